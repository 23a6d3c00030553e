"""The Square Game on the platform: seats, moves through the API, computer seats, save files
exported at any time and imported as live games, the admin's board picture and import form,
the pages, and replays that rebuild the stored state."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from games import services
from games.errors import RuleError
from games.models import Game, Move, Player
from games.replay import replay
from games.rules import get_rules
from squaregame.engine import GameState, load, to_save_json
from squaregame.rules import board_svg

pytestmark = pytest.mark.django_db
T = 1_800_000_000_000
OPENING = {"type": "place", "piece": 13, "permutation": 4, "x": 15, "y": 15}
# After the opening 13/4, seat 1 closes two squares with 9/1 at (16,16) and moves again.
TWO_SQUARES = {"type": "place", "piece": 9, "permutation": 1, "x": 16, "y": 16}
SPEC_SAVE = {
    "board": [],
    "moves": [
        {"piece_num": 13, "permutation": 4},
        {"type": 0, "player_num": 1},
        {"type": 1, "player_num": 2, "piece_num": 9, "permutation": 1, "x": 16, "y": 16},
        {"type": 0, "player_num": 2},
    ],
}
# Seats 1 to 3 pass after the opening: a save only a game of 3 or 4 players can load.
ROUND_OF_PASSES = {
    "board": [],
    "moves": [{"piece_num": 13, "permutation": 4}]
    + [{"type": 0, "player_num": seat} for seat in (1, 2, 3)],
}


def create(client, **options) -> int:
    response = client.post(
        "/api/games/",
        {"kind": "square", "open": True, "options": options},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    return response.json()["id"]


def join(client, game_id: int, name: str) -> str:
    response = client.post(
        f"/api/games/{game_id}/join", {"name": name}, content_type="application/json"
    )
    assert response.status_code == 201, response.content
    return response.json()["token"]


def act(client, game_id: int, token: str | None, action: dict):
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return client.post(
        f"/api/games/{game_id}/moves", action, content_type="application/json", **headers
    )


def look(client, game_id: int, token: str | None = None) -> dict:
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    response = client.get(f"/api/games/{game_id}/", **headers)
    assert response.status_code == 200
    return response.json()


def seated(client, players: int = 2, names=("ann", "bob", "cy", "di")) -> tuple[int, list[str]]:
    game_id = create(client, players=players)
    return game_id, [join(client, game_id, name) for name in names[:players]]


def opened(client, players: int = 2) -> tuple[int, list[str]]:
    """A game whose last seat has made the opening 13/4: seat 1 to move."""
    game_id, tokens = seated(client, players)
    assert act(client, game_id, tokens[-1], OPENING).status_code == 200
    return game_id, tokens


def run_clock(game: Game, *, until_ms: int, step_ms: int = 100) -> Game:
    now = T
    while now < until_ms:
        game = services.game_tick(game_id=game.pk, now=now).game
        if game.status == Game.Status.OVER:
            break
        now += step_ms
    return game


# --- creating, joining, starting ---------------------------------------------------------------


def test_seats_fill_in_join_order_then_the_game_starts_with_the_last_seats_opening(client):
    game_id = create(client, players=3)
    assert look(client, game_id)["status"] == "waiting"
    tokens = [join(client, game_id, name) for name in ("ann", "bob")]
    assert look(client, game_id)["view"]["phase"] == "waiting"
    # Nobody acts before every seat is taken.
    refused = act(client, game_id, tokens[0], {"type": "pass"})
    assert refused.status_code == 400 and "waits for 1 more player" in refused.json()["detail"]
    tokens.append(join(client, game_id, "cy"))
    body = look(client, game_id, tokens[2])
    view = body["view"]
    assert body["status"] == "active"
    assert view["names"] == ["ann", "bob", "cy"] and view["seat"] == 3 and view["you"] == "cy"
    assert view["phase"] == "opening" and view["your_turn"] and view["to_move_name"] == "cy"
    assert view["legal_count"] == len(view["legal"]) == 128  # 16 pieces x 8 permutations
    assert all(move[2:] == [15, 15] for move in view["legal"])
    assert look(client, game_id, tokens[0])["view"]["legal"] == []
    # A fourth person finds the game started.
    late = client.post(
        f"/api/games/{game_id}/join", {"name": "di"}, content_type="application/json"
    )
    assert late.status_code == 409 and "started" in late.json()["detail"]


def test_options_default_to_two_players_and_bad_options_name_the_problem(client):
    game_id = create(client)
    assert look(client, game_id)["options"] == {"players": 2}
    for options, words in (
        ({"players": 5}, "players: a Square Game has 2, 3 or 4 players, not 5"),
        ({"players": True}, "not True"),
        ({"players": "3"}, "not '3'"),
        ({"colour": "red"}, "Unknown Square Game option 'colour'"),
        ({"save": {"board": [], "moves": "x"}}, "'moves' must be a list"),
    ):
        response = client.post(
            "/api/games/",
            {"kind": "square", "open": True, "options": options},
            content_type="application/json",
        )
        assert response.status_code == 400, options
        assert words in response.json()["detail"], response.json()
    assert Game.objects.count() == 1


# --- moves through the API ---------------------------------------------------------------------


def test_moves_through_the_api_keep_the_specs_status_codes(client):
    game_id, (ann, bob) = seated(client)
    opening = act(client, game_id, bob, OPENING)
    assert opening.status_code == 200
    outcome = opening.json()["outcome"]
    assert outcome["status"] == 2 and outcome["to_move_name"] == "ann"
    assert outcome["meaning"].startswith("Placement accepted; turn moved")
    again = act(client, game_id, ann, TWO_SQUARES).json()
    assert again["outcome"]["status"] == 1 and len(again["outcome"]["squares"]) == 2
    assert again["view"]["your_turn"] and again["view"]["moves_left"] == 1
    assert again["view"]["scores"] == {"ann": 2, "bob": 0}
    passed = act(client, game_id, ann, {"type": "pass"}).json()["outcome"]
    assert passed["status"] == 0 and passed["to_move_name"] == "bob"
    game = Game.objects.get(pk=game_id)
    assert game.seats.get(name="ann").score == 2
    assert [m.action["type"] for m in Move.objects.filter(game=game)] == [
        "join",
        "join",
        "place",
        "place",
        "pass",
    ]
    view = look(client, game_id)["view"]
    assert view["last"]["status"] == 0 and view["last"]["meaning"].startswith("Pass accepted")
    assert [s["name"] for s in view["seats"]] == ["ann", "bob"]
    assert view["seats"][0]["pieces_left"] == 15 and view["seats"][1]["pieces_left"] == 15


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ({"type": "place", "piece": 1, "permutation": 1, "x": 3, "y": 3}, "closes no new square"),
        ({"type": "place", "piece": 99, "permutation": 1, "x": 16, "y": 16}, "numbered 1-16"),
        ({"type": "place", "piece": 9, "permutation": 9, "x": 16, "y": 16}, "permutations are"),
        ({"type": "place", "piece": 9, "permutation": 1, "x": 40, "y": 16}, "leave the board"),
        ({"type": "place", "piece": 9, "permutation": 1}, "needs both x and y"),
        ({"type": "place", "piece": "9", "permutation": 1, "x": 1, "y": 1}, "must be an integer"),
        ({"type": "hint"}, "Unknown action type 'hint'"),
        ({"piece": 9}, "type: This field is required"),
    ],
)
def test_an_illegal_move_is_a_400_naming_why_and_changes_nothing(client, action, words):
    game_id, (ann, _bob) = opened(client)
    before = Game.objects.get(pk=game_id)
    response = act(client, game_id, ann, action)
    assert response.status_code == 400
    assert words in response.json()["detail"], response.json()
    after = Game.objects.get(pk=game_id)
    assert (after.version, after.state) == (before.version, before.state)


def test_moves_out_of_turn_or_for_another_seat_are_refused(client):
    game_id, (ann, bob) = opened(client)
    version = Game.objects.get(pk=game_id).version
    out_of_turn = act(client, game_id, bob, {"type": "pass"})
    assert out_of_turn.status_code == 400
    assert out_of_turn.json()["detail"] == "It is ann's turn (seat 1), not bob's."
    assert act(client, game_id, None, {"type": "pass"}).status_code == 403
    other_id, (other, _) = seated(client)
    assert act(client, game_id, other, {"type": "pass"}).status_code == 403
    assert act(client, other_id, ann, {"type": "pass"}).status_code == 403
    assert Game.objects.get(pk=game_id).version == version


def test_a_game_played_to_the_end_by_people_names_the_winners_and_refuses_more(client):
    """Seat 2 passes every turn; seat 1 places the computer's choice until its hand is empty."""
    import random

    from squaregame.engine import choose_move

    game_id, (ann, bob) = opened(client)
    for turn in range(200):
        game = Game.objects.get(pk=game_id)
        if game.status == Game.Status.OVER:
            break
        state = GameState.from_dict(game.state["game"])
        token = ann if state.to_move == 1 else bob
        action = choose_move(state, random.Random(turn)) if token == ann else {"type": "pass"}
        assert act(client, game_id, token, action).status_code == 200
    view = look(client, game_id)["view"]
    assert view["over"] and view["winner_names"] and view["phase"] == "over"
    assert look(client, game_id)["status"] == "over"
    refused = act(client, game_id, ann, {"type": "pass"})
    assert refused.status_code == 400 and "over" in refused.json()["detail"]
    game = Game.objects.get(pk=game_id)
    assert game.finished is not None and replay(game) == game.state


# --- computer seats ----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4])
def test_computer_seats_play_a_whole_game_through_the_platform(players):
    game = services.game_create(
        kind="square", options={"players": players}, seed=7, now=T, is_open=True
    )
    for _ in range(players):
        services.seat_add_computer(game_id=game.pk, speed="instant", now=T)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and game.deadline_ms is not None
    game = run_clock(game, until_ms=T + 600_000)
    assert game.status == Game.Status.OVER
    view = get_rules("square").view(game.state, None, T)
    assert view["over"] and view["winner_names"]
    assert set(view["winner_names"]) <= {f"Computer{n}" for n in range(1, players + 1)}
    seats = {seat.name: seat.score for seat in game.seats.all()}
    assert seats == view["scores"] and sum(seats.values()) > 0
    assert replay(game) == game.state
    # The save of the finished game replays to the same statuses the moves had.
    statuses = [m.outcome["status"] for m in game.moves.exclude(action__type="join")]
    assert load(to_save_json(GameState.from_dict(game.state["game"])), players) == statuses


def test_a_computer_waits_for_its_turn_and_plays_the_opening_when_seated_last(client):
    game_id = create(client, players=2)
    ann = join(client, game_id, "ann")
    rules = get_rules("square")
    game = Game.objects.get(pk=game_id)
    assert rules.bot_actions(game.state, "ann") is None  # waiting: nobody moves yet
    services.seat_add_computer(game_id=game_id, speed="fast", now=T)
    game.refresh_from_db()
    assert rules.bot_actions(game.state, "Computer1")[0]["type"] == "place"
    assert rules.bot_actions(game.state, "ann") is None
    game = services.game_tick(game_id=game_id, now=game.deadline_ms).game
    view = look(client, game_id, ann)["view"]
    assert view["your_turn"] and view["last"]["seat"] == 2 and view["phase"] == "playing"
    assert game.deadline_ms is None  # the computer waits for ann now


# --- saves: export at any time, import as a live game ------------------------------------------


def test_a_save_downloads_at_any_time_in_the_original_format(client):
    game_id = create(client, players=2)
    empty = client.get(f"/api/games/{game_id}/save")
    assert empty.status_code == 200
    assert empty["Content-Disposition"] == f'attachment; filename="square-game-{game_id}.json"'
    assert json.loads(empty.content) == {"board": [], "moves": []}
    ann, bob = join(client, game_id, "ann"), join(client, game_id, "bob")
    act(client, game_id, bob, OPENING)
    act(client, game_id, ann, {"type": "pass"})
    act(client, game_id, bob, TWO_SQUARES)
    version = Game.objects.get(pk=game_id).version
    save = client.get(f"/api/games/{game_id}/save")
    text = save.content.decode()
    assert text.startswith('{\n    "board": []')  # indented by 4, as the original wrote it
    assert json.loads(text) == {
        "board": [],
        "moves": [
            {"piece_num": 13, "permutation": 4},
            {"type": 0, "player_num": 1},
            {"type": 1, "player_num": 2, "piece_num": 9, "permutation": 1, "x": 16, "y": 16},
        ],
    }
    assert load(json.loads(text), 2) == [2, 0, 1]
    assert Game.objects.get(pk=game_id).version == version  # saving changes nothing


def test_only_square_games_have_a_save(client):
    set_game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    response = client.get(f"/api/games/{set_game.pk}/save")
    assert response.status_code == 400 and "only Square games" in response.json()["detail"]
    assert client.get("/api/games/999999/save").status_code == 404


def test_an_exported_save_imports_as_a_live_game_that_continues(client):
    game_id, (ann, bob) = opened(client)
    act(client, game_id, ann, TWO_SQUARES)
    save = json.loads(client.get(f"/api/games/{game_id}/save").content)
    response = client.post(
        "/api/square/import", {**save, "players": 2, "seed": 5}, content_type="application/json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    new_id = body["id"]
    assert body["status"] == "waiting" and body["options"]["save"] == save
    original = Game.objects.get(pk=game_id).state["game"]
    assert body["view"]["placements"] == look(client, game_id)["view"]["placements"]
    # New seats take seats 1 and 2 of the save; ann's extra placement is still to come.
    # Not open: a private game, joined by its link's key.
    joining = f"/api/games/{new_id}/join?key={body['key']}"
    tokens = [
        client.post(joining, {"name": name}, content_type="application/json").json()["token"]
        for name in ("eve", "fay")
    ]
    view = look(client, new_id, tokens[0])["view"]
    assert view["your_turn"] and view["moves_left"] == 1 and view["to_move_name"] == "eve"
    assert view["seats"][0]["hand"] == original["hands"][0]
    moved = act(client, new_id, tokens[0], {"type": "pass"})
    assert moved.status_code == 200 and moved.json()["outcome"]["to_move_name"] == "fay"
    game = Game.objects.get(pk=new_id)
    assert replay(game) == game.state
    # Its own save carries on from the imported moves.
    continued = json.loads(client.get(f"/api/games/{new_id}/save?key={body['key']}").content)
    assert continued["moves"] == [*save["moves"], {"type": 0, "player_num": 1}]


def test_the_specs_sample_save_imports_for_four_players_by_default(client):
    response = client.post("/api/square/import", SPEC_SAVE, content_type="application/json")
    assert response.status_code == 201
    view = response.json()["view"]
    assert view["players"] == 4 and view["to_move"] == 3 and view["phase"] == "waiting"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ([], "Expected a dictionary"),
        ({"moves": []}, "board: This field is required"),
        ({"board": [], "moves": "x"}, "'moves' must be a list, not 'x'"),
        ({"board": {}, "moves": []}, "'board' must be a list"),
        ({"board": [], "moves": [{"piece_num": "13"}]}, "Move 0 is the opening"),
        ({"board": [], "moves": [{"piece_num": 13, "permutation": 9}]}, "permutations are 1-8"),
        ({"board": [], "moves": [7]}, "Move 0 must be a JSON object"),
        (
            {"board": [], "moves": [{"piece_num": 13, "permutation": 4}, {"type": 2}]},
            "Move 1: type must be 1 (a placement) or 0 (a pass), not 2",
        ),
        (
            {"board": [{"player_num": 1, "piece_num": 1}], "moves": []},
            "Board entry 1 needs integer",
        ),
        (
            {"board": [{"player_num": 1, "piece_num": 1, "permutation": 1, "x": 40, "y": 1}]},
            "moves: This field is required",
        ),
        (
            {
                "board": [{"player_num": 1, "piece_num": 1, "permutation": 1, "x": 40, "y": 1}],
                "moves": [],
            },
            "Board entry 1: piece 1/1 at (40,1) would leave the board",
        ),
        (
            {
                "board": [],
                "moves": [
                    {"piece_num": 13, "permutation": 4},
                    {
                        "type": 1,
                        "player_num": 2,
                        "piece_num": 9,
                        "permutation": 1,
                        "x": 16,
                        "y": 16,
                    },
                ],
            },
            "Move 1 of the saved game is refused: it is seat 1's turn, not 2's",
        ),
        ({**ROUND_OF_PASSES, "players": 2}, "the save names seat 3 but the game has 2 players"),
        ({**SPEC_SAVE, "players": 5}, "players: Ensure this value is less than or equal to 4"),
    ],
)
def test_a_malformed_save_is_a_400_naming_what_is_wrong(client, body, words):
    response = client.post("/api/square/import", body, content_type="application/json")
    assert response.status_code == 400
    assert words in response.json()["detail"], response.json()
    assert not Game.objects.exists()


def test_a_save_that_is_not_json_is_a_400(client):
    response = client.post("/api/square/import", "{nope", content_type="application/json")
    assert response.status_code == 400 and "JSON parse error" in response.json()["detail"]


# --- the admin ---------------------------------------------------------------------------------


@pytest.fixture
def staff(client, django_user_model):
    # No password: hashing one would cost more than the test (force_login needs none).
    client.force_login(django_user_model.objects.create_superuser("root", password=None))
    return client


def test_the_admin_shows_a_square_games_board_and_offers_its_save(staff):
    game = services.game_create(
        kind="square", options={"players": 2, "save": SPEC_SAVE}, is_open=True
    )
    page = staff.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="square-board-picture"' in page
    assert page.count('stroke-width="5"') == 5 + 3  # the opening's 5 segments, piece 9's 3
    assert 'fill-opacity="0.28"' in page  # the two squares seat 2 closed
    assert f"/admin/games/game/{game.pk}/save/" in page
    assert "&quot;players&quot;: 2" in page  # the JSON, pretty-printed as for every kind
    download = staff.get(f"/admin/games/game/{game.pk}/save/")
    assert download["Content-Disposition"].startswith("attachment;")
    assert json.loads(download.content) == SPEC_SAVE
    set_game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    set_page = staff.get(f"/admin/games/game/{set_game.pk}/change/").content.decode()
    assert "square-board-picture" not in set_page and "/save/" not in set_page
    assert staff.get(f"/admin/games/game/{set_game.pk}/save/").status_code == 302


def test_board_svg_escapes_names_and_shades_squares_by_seat():
    view = {
        "players": 2,
        "names": ["<b>x</b>", None],
        "board": [{"segment": [[15, 15], [16, 15]], "seat": 2}],
        "squares": [{"cell": [15, 14], "seat": 2}, {"cell": [14, 14], "seat": None}],
    }
    svg = board_svg(view)
    assert "&lt;b&gt;x&lt;/b&gt;" in svg and "<b>" not in svg and "(empty)" in svg
    assert 'stroke="#1f6fd1"' in svg and 'fill="#1f6fd1" fill-opacity="0.28"' in svg
    assert 'fill="#888888" fill-opacity="0.28"' in svg


def test_the_admin_imports_a_save_file_as_a_new_game(staff):
    form = staff.get("/admin/games/game/import-save/")
    assert form.status_code == 200 and 'type="file"' in form.content.decode()
    assert "/admin/games/game/import-save/" in staff.get("/admin/games/game/").content.decode()
    upload = SimpleUploadedFile("game.json", json.dumps(SPEC_SAVE).encode(), "application/json")
    response = staff.post("/admin/games/game/import-save/", {"save_file": upload, "players": 4})
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(f"/{game.pk}/change/")
    assert game.kind == "square" and game.options == {"players": 4, "save": SPEC_SAVE}
    assert game.status == Game.Status.WAITING


@pytest.mark.parametrize(
    ("content", "players", "words"),
    [
        (b"{nope", "4", "not valid JSON"),
        (b"\xff\xfe", "4", "not text"),
        (b'{"board": [], "moves": 3}', "4", "&#x27;moves&#x27; must be a list"),
        (json.dumps(ROUND_OF_PASSES).encode(), "2", "the save names seat 3 but the game has 2"),
        (json.dumps(SPEC_SAVE).encode(), "7", "Select a valid choice"),
    ],
)
def test_the_admin_import_form_shows_what_is_wrong(staff, content, players, words):
    upload = SimpleUploadedFile("game.json", content, "application/json")
    response = staff.post(
        "/admin/games/game/import-save/", {"save_file": upload, "players": players}
    )
    assert response.status_code == 400
    assert words in response.content.decode()
    assert not Game.objects.exists()


def test_the_admin_import_needs_staff(client, django_user_model):
    assert client.get("/admin/games/game/import-save/").status_code == 302
    client.force_login(django_user_model.objects.create_user("plain", password=None))
    upload = SimpleUploadedFile("game.json", json.dumps(SPEC_SAVE).encode())
    response = client.post("/admin/games/game/import-save/", {"save_file": upload, "players": 4})
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert not Game.objects.exists()


# --- the pages ---------------------------------------------------------------------------------


def page_config(response) -> dict:
    match = re.search(
        r'<script id="square-config" type="application/json">(.*?)</script>',
        response.content.decode(),
        re.S,
    )
    assert match, "no #square-config on the page"
    return json.loads(match.group(1))


def test_the_square_page_starts_a_game_with_computers_and_opens_it(client):
    assert client.get("/square/").status_code == 200
    response = client.post(
        "/square/", {"name": "ada", "players": "3", "computers": "2", "speed": "instant"}
    )
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/square/{game.pk}/"
    assert [s.name for s in game.seats.all()] == ["ada", "Computer1", "Computer2"]
    assert game.status == Game.Status.ACTIVE
    page = client.get(f"/square/{game.pk}/")
    config = page_config(page)
    assert config["seat"] == "ada" and config["save_url"] == f"/api/games/{game.pk}/save"
    assert config["meanings"]["3"].startswith("Placement accepted; mover emptied")
    text = page.content.decode()
    for words in ("<kbd>R</kbd> rotate", "<kbd>F</kbd> flip", "<kbd>P</kbd> pass", "Enter"):
        assert words in text
    assert f"/square/{game.pk}/" in client.get("/square/").content.decode()


@pytest.mark.parametrize(
    ("form", "words"),
    [
        ({"name": "ada", "players": "5"}, "Choose the number of players among 2, 3, 4"),
        ({"name": "ada", "players": "2", "computers": "2"}, "number of computers (0-1)"),
        ({"name": "a b", "players": "2"}, "no spaces or other signs"),
        ({"players": "2"}, "Choose a name before starting a game"),
        ({"name": "ada", "speed": "warp"}, "computer speed"),
    ],
)
def test_the_square_page_says_what_is_wrong_with_a_form(client, form, words):
    response = client.post("/square/", form)
    assert response.status_code == 400
    assert words in response.content.decode()
    assert not Game.objects.exists()


def test_the_square_page_continues_an_uploaded_save_with_the_visitor_in_seat_1(client):
    upload = SimpleUploadedFile("save.json", json.dumps(SPEC_SAVE).encode())
    response = client.post(
        "/square/import", {"name": "ada", "import_players": "4", "save_file": upload}
    )
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/square/{game.pk}/"
    assert [s.name for s in game.seats.all()] == ["ada"]
    bad = SimpleUploadedFile("save.json", b'{"board": []}')
    response = client.post("/square/import", {"import_players": "4", "save_file": bad})
    assert response.status_code == 400 and "no &#x27;moves&#x27; list" in response.content.decode()
    assert client.post("/square/import", {"import_players": "4"}).status_code == 400


def test_the_play_page_of_another_kind_or_no_game(client):
    set_game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    assert client.get(f"/square/{set_game.pk}/").status_code == 302
    assert client.get("/square/999999/").status_code == 404


def test_the_replay_page_loads_its_one_module(client):
    game = services.game_create(kind="square", options={"players": 2}, is_open=True)
    page = client.get(f"/games/{game.pk}/replay/").content.decode()
    assert '<script type="module" src="/static/js/pages/replay.js">' in page
    assert page.count("<script") == 3  # the site's module, the replay's, and its config (JSON)
    steps = client.get(f"/api/games/{game.pk}/replay").json()["steps"]
    assert steps[0]["view"]["kind"] == "square"


# --- replay ------------------------------------------------------------------------------------


def test_replaying_the_log_gives_the_stored_state(client):
    game_id, (ann, bob) = opened(client, players=2)
    act(client, game_id, ann, TWO_SQUARES)
    act(client, game_id, ann, {"type": "place", "piece": 1, "permutation": 1, "x": 3, "y": 3})
    act(client, game_id, ann, {"type": "pass"})
    game = Game.objects.get(pk=game_id)
    assert replay(game) == game.state
    imported = services.game_create(
        kind="square", options={"players": 4, "save": SPEC_SAVE}, is_open=True
    )
    for name in ("a", "b", "c"):
        services.game_join(game_id=imported.pk, player=Player.objects.create(name=name))
    imported.refresh_from_db()
    assert replay(imported) == imported.state


def test_rule_errors_keep_the_specs_reason_ids_as_codes():
    rules = get_rules("square")
    state = rules.new(options={"players": 2}, seed=1, now_ms=0)
    for name in ("ann", "bob"):
        state = rules.join(state, name, 0).state
    with pytest.raises(RuleError) as error:
        rules.apply(state, "ann", {"type": "pass"}, 0)
    assert error.value.code == "not_started"
    with pytest.raises(RuleError) as error:
        rules.apply(state, "bob", {"type": "place", "piece": 99, "permutation": 1}, 0)
    assert error.value.code == "piece_unavailable"


def test_a_seat_to_move_is_told_how_many_squares_each_legal_placement_closes(client):
    """`legal_squares` goes with `legal`, in order: what a program needs to play well without
    the pieces' shapes (the computer takes one of the placements closing the most)."""
    game_id, tokens = seated(client, players=2)
    opening = look(client, game_id, tokens[1])["view"]
    assert opening["legal_squares"] == [0] * len(opening["legal"])
    piece, permutation, x, y = opening["legal"][0]
    placed = {"type": "place", "piece": piece, "permutation": permutation, "x": x, "y": y}
    assert act(client, game_id, tokens[1], placed).status_code == 200
    for _ in range(6):  # a few turns, each by the seat to move, taking a best placement
        views = [look(client, game_id, token)["view"] for token in tokens]
        mover = next(n for n, view in enumerate(views) if view["your_turn"])
        view = views[mover]
        assert len(view["legal_squares"]) == len(view["legal"])
        assert all(n >= 1 for n in view["legal_squares"])  # a placement closes a square
        assert views[1 - mover]["legal_squares"] == []
        if not view["legal"]:
            assert act(client, game_id, tokens[mover], {"type": "pass"}).status_code == 200
            continue
        best = max(range(len(view["legal"])), key=view["legal_squares"].__getitem__)
        piece, permutation, x, y = view["legal"][best]
        move = {"type": "place", "piece": piece, "permutation": permutation, "x": x, "y": y}
        answer = act(client, game_id, tokens[mover], move)
        assert answer.status_code == 200, answer.json()
