"""The story of a game (GET /api/games/<id>/story): its table log told from the move log, with
the chat, the same for every reload, a hint's card its seat's alone while the game is played."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from cards.engine.card import parse_card
from cards.engine.rules import is_set
from games import services
from games.models import Game, Player
from tests.games.conftest import EXAMPLE_DECK, T, play_to_the_end

pytestmark = pytest.mark.django_db


def seated(game: Game, name: str):
    return services.game_join(game_id=game.pk, player=Player.objects.create(name=name))


def story(client: Client, game: Game, token: str | None = None, query: str = "") -> dict:
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    response = client.get(f"/api/games/{game.pk}/story{query}", **headers)
    assert response.status_code == 200, response.content
    return response.json()


def by_type(body: dict, kind: str) -> list[dict]:
    return [entry for entry in body["entries"] if entry["type"] == kind]


def a_non_set(board: list[str]) -> list[str]:
    cards = [parse_card(text) for text in board]
    for i in range(len(cards)):
        for j in range(i + 1, len(cards)):
            for k in range(j + 1, len(cards)):
                if not is_set(cards[i], cards[j], cards[k]):
                    return [board[i], board[j], board[k]]
    raise AssertionError("every triple is a set")


def board_of(game: Game) -> list[str]:
    return [c["card"] for c in services.selectors.game_view(game, seat_name=None, now=0)["board"]]


# A table for friends opens waiting for its Start (contract A); these are dealt at once.
DEALT_AT_ONCE = {"rules": "classic", "deck": EXAMPLE_DECK[:18], "start": "now"}


def classic_table(**created):
    game = services.game_create(kind="set", options=DEALT_AT_ONCE, is_open=True, **created)
    return game, seated(game, "ann"), seated(game, "bob")


def test_the_story_tells_joins_sets_wrong_claims_with_why_counts_and_chat():
    game, ann, bob = classic_table()
    game.refresh_from_db()
    wrong = a_non_set(
        [
            cell["card"]
            for cell in services.selectors.game_view(game, seat_name=None, now=0)["board"]
        ]
    )
    services.move_submit(game_id=game.pk, seat=ann, action={"type": "claim", "cards": wrong})
    services.move_submit(game_id=game.pk, seat=bob, action={"type": "count"})
    services.chat_post(game_id=game.pk, player_id=bob.player_id, text="Good luck!")
    client = Client()
    body = story(client, game)
    assert body["game"] == game.pk
    game.refresh_from_db()
    assert body["version"] == game.version
    assert [e["text"] for e in by_type(body, "join")] == [
        "ann joined the table.",
        "bob joined the table.",
    ]
    (claim,) = by_type(body, "wrong")
    assert claim["actor"] == "ann" and claim["id"] == f"v{claim['version']}"
    assert claim["text"] == "ann claimed three cards that are not a set. ann is locked out."
    assert [card["card"] for card in claim["cards"]] == wrong
    assert set(claim["cards"][0]) == {"card", "digits", "code"}
    assert claim["why"] and all("two alike, one different" in line for line in claim["why"])
    (count,) = by_type(body, "count")
    assert count["text"].startswith("bob asked how many sets there are: ")
    (chat,) = by_type(body, "chat")
    assert chat["name"] == "bob" and chat["chat"] == "Good luck!"
    assert chat["id"].startswith("c") and chat["version"] is None
    assert [e["at"] for e in body["entries"]] == sorted(e["at"] for e in body["entries"])
    # A reload tells the very same story; so does a seat's read (nothing private in it).
    assert story(Client(), game) == body
    assert story(Client(), game, ann.token)["entries"] == body["entries"]


def test_the_claim_answer_and_the_move_log_say_why():
    game, ann, _bob = classic_table()
    client = Client()
    board = board_of(game)
    response = client.post(
        f"/api/games/{game.pk}/moves",
        {"type": "claim", "cards": a_non_set(board)},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {ann.token}",
    )
    assert response.status_code == 200
    why = response.json()["outcome"]["why"]
    assert why and "two alike, one different" in why[0]
    log = client.get(f"/api/games/{game.pk}/moves").json()
    assert log[-1]["outcome"]["why"] == why


def test_a_hint_is_told_to_everyone_but_its_card_only_to_its_seat_until_the_end():
    game, ann, bob = classic_table()
    card = services.move_submit(game_id=game.pk, seat=bob, action={"type": "hint"}).outcome
    card = card["hint"]["card"]
    client = Client()
    for reader in (None, ann.token):  # a spectator, and another seat
        (hint,) = by_type(story(client, game, reader), "hint")
        assert hint["text"] == "bob took a hint." and hint["actor"] == "bob"
        assert hint["cards"] == [] and card not in str(hint)
    (own,) = by_type(story(client, game, bob.token), "hint")
    assert [c["card"] for c in own["cards"]] == [card]
    play_to_the_end(game, ann)
    body = story(client, game)
    (hint,) = by_type(body, "hint")
    assert [c["card"] for c in hint["cards"]] == [card]
    (end,) = by_type(body, "end")
    assert end["text"].startswith("The game is over: ann wins with ")
    assert body["entries"][-1]["type"] == "end"
    sets = by_type(body, "set")
    assert sets and all(len(entry["cards"]) == 3 and entry["points"] == 1 for entry in sets)


def test_a_hint_at_a_rated_table_says_it_makes_the_game_unrated():
    options = {"rules": "classic", "start": "wait"}  # rated: the whole deck
    game = services.game_create(kind="set", options=options, is_open=True, rated=True, now=T)
    # A rated table seats accounts only.
    users = get_user_model().objects
    ann, bob = (
        services.game_join(
            game_id=game.pk,
            player=Player.objects.create(name=name, user=users.create_user(name, password="pw-1x")),
        )
        for name in ("ann", "bob")
    )
    services.move_submit(game_id=game.pk, seat=ann, action={"type": "start"}, now=T)
    services.game_tick(game_id=game.pk, now=T + 10_000)
    services.move_submit(game_id=game.pk, seat=bob, action={"type": "hint"}, now=T + 10_000)
    (hint,) = by_type(story(Client(), game), "hint")
    assert hint["text"] == "bob took a hint. A hint makes this rated game unrated."


def test_a_private_game_s_story_is_not_found_for_a_stranger():
    game = services.game_create(
        kind="set", options={"rules": "classic", "start": "now"}, is_open=False
    )
    ann = seated(game, "ann")
    assert game.link_key
    client = Client()
    response = client.get(f"/api/games/{game.pk}/story")
    assert response.status_code == 404
    assert "detail" in response.json()
    assert client.get(f"/api/games/{game.pk}/story?key={game.link_key}").status_code == 200
    assert story(Client(), game, ann.token)["entries"][0]["type"] == "join"
    assert Client().get("/api/games/999999/story").status_code == 404


def test_a_declare_timeout_is_told_with_its_points():
    game = services.game_create(
        kind="set",
        options={"rules": "declare", "deck": EXAMPLE_DECK, "declare_ms": 1000, "start": "now"},
        is_open=True,
        now=1_000,
    )
    ann = seated(game, "ann")
    services.move_submit(game_id=game.pk, seat=ann, action={"type": "declare"}, now=2_000)
    services.game_tick(game_id=game.pk, now=4_000)
    body = story(Client(), game)
    (declared,) = by_type(body, "declare")
    assert declared["text"] == "ann declared a set."
    (timeout,) = by_type(body, "timeout")
    assert timeout["actor"] == "ann" and timeout["at"] == 3_000
    assert timeout["text"] == "ann ran out of time to pick a set; the score stays at 0."
    assert timeout["points"] == 0


def test_a_wrong_declared_pick_is_told_with_its_points_and_why():
    game = services.game_create(
        kind="set", options={"rules": "declare", "deck": EXAMPLE_DECK, "start": "now"}, is_open=True
    )
    ann = seated(game, "ann")
    services.move_submit(game_id=game.pk, seat=ann, action={"type": "declare"})
    view = services.selectors.game_view(game, seat_name=None, now=0)
    cells = [
        (r, c, cell["card"]) for r, row in enumerate(view["board"]) for c, cell in enumerate(row)
    ]
    picks = None
    for i, a in enumerate(cells):
        for j, b in enumerate(cells[i + 1 :], i + 1):
            for c in cells[j + 1 :]:
                if not is_set(*(parse_card(x[2]) for x in (a, b, c))):
                    picks = (a, b, c)
                    break
            if picks:
                break
        if picks:
            break
    for r, c, _card in picks:
        services.move_submit(game_id=game.pk, seat=ann, action={"type": "pick", "row": r, "col": c})
    (wrong,) = by_type(story(Client(), game), "wrong")
    assert wrong["text"] == "ann picked three cards that are not a set; the score stays at 0."
    assert [card["card"] for card in wrong["cards"]] == [card for _r, _c, card in picks]
    assert wrong["why"]


def test_a_square_game_s_story_tells_its_placements_passes_and_end():
    game = services.game_create(kind="square", options={"players": 2}, is_open=True)
    ann, bob = seated(game, "ann"), seated(game, "bob")
    rules = services.get_rules("square")
    for _ in range(400):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            break
        for seat in (ann, bob):
            actions = rules.bot_actions(game.state, seat.name)
            if actions:
                services.move_submit(game_id=game.pk, seat=seat, action=actions[0])
                break
    assert game.status == Game.Status.OVER
    body = story(Client(), game)
    types = [entry["type"] for entry in body["entries"]]
    assert types[:3] == ["join", "join", "start"]
    assert by_type(body, "start")[0]["text"] == "Every seat is taken: the game begins."
    assert body["entries"][3]["text"].startswith("bob opened with piece ")
    assert "place" in types and types[-1] == "end"
    assert body["entries"][-1]["text"].startswith("The game is over: ")
    ids = [entry["id"] for entry in body["entries"]]
    assert len(ids) == len(set(ids))


def test_the_openapi_schema_describes_the_story(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/games/{game_id}/story"]["get"]
    assert set(operation["responses"]) >= {"200", "404"}
    entry = schema["components"]["schemas"]["StoryEntryOut"]["properties"]
    assert {"id", "version", "at", "type", "actor", "text", "cards", "why", "points"} <= set(entry)


def test_a_kind_without_a_story_hook_tells_its_joins_and_nothing_else():
    from cards.setwar.services import setwar_run

    game = setwar_run(players=2, seed=1)
    body = story(Client(), game)
    assert body["version"] == game.version
    assert all(entry["type"] == "join" for entry in body["entries"])


def test_a_waiting_table_s_start_and_deal_are_told(client):
    game = services.game_create(
        kind="set",
        options={"rules": "classic", "deck": EXAMPLE_DECK[:18], "start": "wait"},
        is_open=True,
        now=1_000,
    )
    ann = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"), now=1_000)
    services.game_join(game_id=game.pk, player=Player.objects.create(name="bob"), now=1_000)
    services.move_submit(game_id=game.pk, seat=ann, action={"type": "start"}, now=2_000)
    services.game_tick(game_id=game.pk, now=6_000)
    starts = [(e["actor"], e["at"], e["text"]) for e in by_type(story(client, game), "start")]
    assert starts == [
        ("ann", 2_000, "ann pressed Start: the cards are dealt in 3 seconds."),
        (None, 5_000, "The cards are dealt."),
    ]
