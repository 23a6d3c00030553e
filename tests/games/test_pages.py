"""The pages a person uses, through Django's test client: lobby, name, new table, table, solitaire,
replay; bad input gets a clear message and never a 500."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.utils.html import escape

from games import services
from games.auth import SESSION_PLAYER_KEY
from games.models import Game, Player, Seat
from tests.examples import EXAMPLE_DECK

pytestmark = pytest.mark.django_db


def named(client, name="ada"):
    response = client.post("/name", {"name": name})
    assert response.status_code == 302
    return Player.objects.get(pk=client.session[SESSION_PLAYER_KEY])


def page_config(response, element_id="table-config") -> dict:
    match = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>',
        response.content.decode(),
        re.S,
    )
    assert match, f"no #{element_id} on the page"
    return json.loads(match.group(1))


def finished_game(name="ada") -> Game:
    """A classic table dealt from 9 cards of the 27-card deck, played to its end by one player."""
    from cards.engine.card import parse_card
    from cards.engine.deck import new_deck
    from cards.engine.rules import find_set

    deck = [card.protocol for card in new_deck(3, rng=11)[:9]]
    game = services.game_create(
        kind="set",
        options={"start": "now", "rules": "classic", "attributes": 3, "deck": deck},
        is_open=True,
    )
    seat = services.game_join(game_id=game.pk, player=Player.objects.create(name=name))

    while True:
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            return game
        board = game.state["board"]
        found = find_set([parse_card(text, 3) for text in board])
        services.move_submit(
            game_id=game.pk,
            seat=seat,
            action={"type": "claim", "cards": [card.protocol for card in found]},
        )


# --- the lobby and the name ----------------------------------------------------------------------


def test_the_lobby_is_the_home_page_with_forms_and_the_developer_links(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Play Set" in html
    # One form: the name (its Save button sends it to /name) and the table, asked once.
    assert 'formaction="/name"' in html and 'action="/play/new"' in html
    assert html.count("csrfmiddlewaretoken") >= 1
    for link in ("/api/docs/", "/api/schema/", "/admin/", "/healthz", "/solitaire/"):
        assert f'href="{link}"' in html
    assert "For developers" in html and "playset" in html


def test_choosing_a_name_remembers_it_in_the_session_and_renaming_keeps_the_player(client):
    player = named(client, "ada")
    assert player.name == "ada" and player.session_key
    assert "You play as <strong" in client.get("/").content.decode()
    response = client.post("/name", {"name": "ada_l"})
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.name == "ada_l"
    assert Player.objects.count() == 1


@pytest.mark.parametrize(
    "name, message",
    [
        ("", "Please choose a name"),
        ("   ", "Please choose a name"),
        ("two words", "no spaces or other signs"),
        ("x" * 21, "A name has at most 20 characters; this one has 21."),
        ("é" * 21, "A name has at most 20 characters; this one has 21."),
        ("<script>", "no spaces or other signs"),
    ],
)
def test_a_bad_name_is_refused_with_a_message(client, name, message):
    response = client.post("/name", {"name": name})
    # Post, redirect, get: the address bar goes back to the lobby, which says what is wrong.
    assert response.status_code == 302 and response["Location"] == "/"
    html = client.get("/").content.decode()
    assert message in html and 'aria-invalid="true"' in html
    # The name as typed is shown again, whole (never cut), and only once.
    assert f'value="{escape(name)}"' in html
    assert message not in client.get("/").content.decode()
    assert "<script>" not in html.split("<main", 1)[1].split("</main>")[0]
    assert Player.objects.count() == 0


def test_a_bad_name_sent_from_a_table_goes_back_there_with_the_message(client):
    game = services.game_create(kind="set", options={"start": "now", "rules": "classic"})
    target = f"/play/{game.pk}/?join=1"
    response = client.post("/name", {"name": "no way", "next": target}, follow=True)
    assert response.redirect_chain[-1][0] == target
    assert "no spaces or other signs" in response.content.decode()


def test_a_name_chosen_on_an_invite_is_told_once_by_the_table_not_twice(client):
    game = services.game_create(kind="set", options={"rules": "classic"}, is_open=True)
    target = f"/play/{game.pk}/?join=1"
    response = client.post("/name", {"name": "Bob", "next": target}, follow=True)
    assert response.redirect_chain[-1][0] == target
    # The table's page says "You joined as Bob." itself; no second line above it.
    assert "You play as Bob." not in response.content.decode()
    # Chosen in the lobby, the name is confirmed there.
    response = client.post("/name", {"name": "Bo"}, follow=True)
    assert "You play as Bo." in response.content.decode()


@pytest.mark.parametrize("name", ["Zoë", "李雷", "Ólafur", "x-y_1", "é" * 20])
def test_a_name_of_any_script_is_taken_whole(client, name):
    response = client.post("/name", {"name": name})
    assert response.status_code == 302
    assert Player.objects.get().name == name


def test_the_name_form_never_redirects_off_the_site(client):
    response = client.post("/name", {"name": "ada", "next": "https://evil.example/"})
    assert response["Location"] == "/"


def test_forms_need_the_csrf_token():
    client = Client(enforce_csrf_checks=True)
    assert client.post("/name", {"name": "ada"}).status_code == 403
    assert client.post("/play/new", {"name": "ada"}).status_code == 403
    assert client.post("/solitaire/", {"name": "ada"}).status_code == 403


def test_pages_refuse_the_wrong_method(client):
    assert client.get("/name").status_code == 405
    assert client.get("/play/new").status_code == 405
    assert client.post("/").status_code == 405


# --- new tables ----------------------------------------------------------------------------------


def test_creating_a_table_seats_its_creator_and_opens_it(client):
    player = named(client)
    response = client.post(
        "/play/new",
        {"rules": "declare", "attributes": "3", "visibility": "private", "computers": "0"},
    )
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/play/{game.pk}/"
    # A table for friends waits for its Start; the page draws the waiting room.
    assert game.options == {"rules": "declare", "attributes": 3, "start": "wait"}
    assert game.is_open is False
    view = page_config(client.get(f"/play/{game.pk}/"), "table-view")
    assert view["status"] == "waiting" and view["may_start"] is True and view["board"] == []
    assert list(game.seats.values_list("player", "name")) == [(player.pk, "ada")]


def test_a_newcomer_names_themself_in_the_new_table_form(client):
    response = client.post("/play/new", {"name": "bob", "rules": "classic", "attributes": "5"})
    assert response.status_code == 302
    game = Game.objects.get()
    assert game.options["attributes"] == 5
    assert game.seats.get().player.pk == client.session[SESSION_PLAYER_KEY]


def test_computer_opponents_sit_at_the_new_table(client):
    named(client)
    client.post("/play/new", {"rules": "classic", "computers": "2", "speed": "fast"})
    seats = Seat.objects.filter(game=Game.objects.get()).order_by("number")
    assert [seat.is_computer for seat in seats] == [False, True, True]
    assert all(seat.computer["speed"] == "fast" for seat in seats if seat.is_computer)


def test_a_quick_game_deals_eighteen_cards(client):
    named(client)
    client.post("/play/new", {"rules": "classic", "attributes": "4", "length": "quick"})
    game = Game.objects.get()
    assert len(game.options["deck"]) == 18
    assert len(game.state["board"]) + len(game.state["deck"]) == 18


@pytest.mark.parametrize(
    "form, message",
    [
        ({"rules": "poker"}, "rule set"),
        ({"rules": "declare", "attributes": "5"}, "attributes for declare"),
        ({"attributes": "many"}, "attributes"),
        ({"computers": "7"}, "computer opponents"),
        ({"computers": "1", "speed": "warp"}, "computer speed"),
        ({"speed": "instant"}, "computer speed"),
        ({"visibility": "secret"}, "visibility"),
        ({"length": "forever"}, "game length"),
        ({"name": "not ok"}, "no spaces or other signs"),
    ],
)
def test_bad_table_options_are_refused_with_a_message(client, form, message):
    if "name" not in form:
        named(client)
    response = client.post("/play/new", form)
    # Post, redirect, get: the lobby's address, the folded options open, the message there.
    assert response.status_code == 302 and response["Location"] == "/#new-table"
    page = client.get("/").content.decode()
    assert message in page and '<details class="table-options" id="new-table" open>' in page
    assert 'aria-invalid="true"' in page
    assert 'class="form-error"' not in client.get("/").content.decode()  # said once
    assert Game.objects.count() == 0


@pytest.mark.parametrize(
    "form, field, message",
    [
        ({"rules": "declare", "mode": "ultra"}, "mode", "for classic tables"),
        ({"rules": "classic", "mode": "puzzle", "attributes": "5"}, "mode", "3 or 4"),
        ({"rules": "classic", "computers": "x"}, "computers", "computer opponents"),
    ],
)
def test_a_refused_choice_is_shown_beside_its_control_which_has_the_focus(
    client, form, field, message
):
    named(client)
    assert client.post("/play/new", form)["Location"] == "/#new-table"
    page = client.get("/").content.decode()
    control = re.search(rf'<select id="{field}"[^>]*>', page).group(0)
    assert 'aria-invalid="true"' in control and "autofocus" in control
    assert re.search(rf'<p class="form-error" id="{field}-error"[^>]*>[^<]*{message}', page)


def test_a_table_needs_a_name(client):
    response = client.post("/play/new", {"rules": "classic", "preset": "friend"})
    assert response.status_code == 302 and response["Location"] == "/#play-now"
    page = client.get("/").content.decode()
    assert re.search(
        r'<p class="form-error" id="play-name-error"[^>]*>Choose your name first', page
    )


def test_the_play_now_buttons_make_a_table_against_a_computer_or_for_a_friend(client):
    client.post("/play/new", {"name": "ada", "preset": "computer"})
    against = Game.objects.get()
    assert [seat.is_computer for seat in against.seats.order_by("number")] == [False, True]
    # Against a computer the cards are dealt at once; a friend's table waits for the friend.
    expected = {"rules": "classic", "attributes": 4, "start": "now"}
    assert against.options == expected and not against.rated
    client.post("/play/new", {"preset": "friend"})
    friend = Game.objects.exclude(pk=against.pk).get()
    assert not friend.is_open and friend.seats.count() == 1
    assert friend.options["start"] == "wait"


def test_the_lobby_sends_the_option_rules_its_form_offers(client):
    page = client.get("/").content.decode()
    found = re.search(r'<script id="option-rules" type="application/json">(.*?)</script>', page)
    rules = json.loads(found.group(1))
    assert rules == client.get("/api/options").json()["kinds"]["set"]


def test_the_lobby_asks_a_guest_for_a_name_once(client):
    html = client.get("/").content.decode()
    assert html.count('name="name"') == 1  # the name form; the table form does not ask again
    client.post("/name", {"name": "ada"})
    html = client.get("/").content.decode()
    assert html.count('name="name"') == 1  # to rename
    assert 'id="table-needs-name"' not in html


# --- the table page ------------------------------------------------------------------------------


def test_a_watcher_sees_the_table_with_its_live_view(client):
    # A fixed deck: 1 shuffle in 30 deals no set in 12 cards, and the table then shows 15.
    options = {"rules": "classic", "deck": EXAMPLE_DECK, "start": "now"}
    game = services.game_create(kind="set", options=options, is_open=True)
    response = client.get(f"/play/{game.pk}/")
    assert response.status_code == 200
    config = page_config(response)
    assert config["game"] == game.pk and config["seat"] is None and config["auto_join"] is False
    # Told who is here, and the game's story (the table log).
    assert config["ws_url"] == f"/ws/games/{game.pk}/?presence=1&story=1"
    assert config["story_url"] == f"/api/games/{game.pk}/story"
    view = page_config(response, "table-view")
    assert len(view["board"]) == 12 and view["seated"] is False
    html = response.content.decode()
    assert "Choose a name to join" in html
    assert f"/play/{game.pk}/?join=1" in html  # the share link
    assert '<script type="module" src="/static/js/pages/table.js">' in html
    # The page draws and names cards, and presses keys, from the server's words.
    assert config["deck"]["ONE/RED/SOLID/DIAMOND"] == ["0000", "one red solid diamond"]
    assert config["keys"]["codes"][1][:4] == ["KeyQ", "KeyW", "KeyE", "KeyR"]
    assert config["keys"]["layouts"]["azerty"]["rows"][1].startswith("azer")
    assert set(config["keys"]["layouts"]) == {"qwerty", "azerty", "qwertz", "dvorak"}
    assert len(config["deck"]) == 81


def test_the_share_link_joins_once_the_visitor_has_a_name(client):
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "declare"}, is_open=True
    )
    named(client, "bob")
    config = page_config(client.get(f"/play/{game.pk}/?join=1"))
    assert config["auto_join"] is True and config["name"] == "bob"
    # Joining from the page goes through the API, which seats the session's own player.
    response = client.post(
        f"/api/games/{game.pk}/join", {"name": "bob"}, content_type="application/json"
    )
    assert response.status_code == 201
    seat = Seat.objects.get(game=game)
    assert seat.player.pk == client.session[SESSION_PLAYER_KEY]
    config = page_config(client.get(f"/play/{game.pk}/?join=1"))
    assert config["seat"] == "bob" and config["auto_join"] is False


def test_a_seated_player_acts_with_the_session_and_the_csrf_header():
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    client = Client(enforce_csrf_checks=True)
    page = client.get("/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())[1]
    client.post("/name", {"name": "cleo", "csrfmiddlewaretoken": token})
    headers = {"HTTP_X_CSRFTOKEN": client.cookies["csrftoken"].value}
    joined = client.post(
        f"/api/games/{game.pk}/join", {"name": "cleo"}, content_type="application/json", **headers
    )
    assert joined.status_code == 201
    url = f"/api/games/{game.pk}/moves"
    hint = {"type": "hint"}
    refused = client.post(url, hint, content_type="application/json")
    assert refused.status_code == 403
    answered = client.post(url, hint, content_type="application/json", **headers)
    assert answered.status_code == 200 and answered.json()["outcome"]["hint"]


def test_unknown_games_are_404_pages_not_protocol_answers(client):
    for path in ("/play/999/", "/games/999/", "/games/999/replay/", "/solitaire/999/"):
        response = client.get(path)
        assert response.status_code == 404, path


def test_a_game_address_opens_the_page_for_its_kind(client):
    table = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    assert client.get(f"/games/{table.pk}/")["Location"] == f"/play/{table.pk}/"
    other = Game.objects.create(kind=Game.Kind.SQUARE, seed=1, status=Game.Status.OVER)
    assert client.get(f"/games/{other.pk}/")["Location"] == f"/square/{other.pk}/"
    assert client.get(f"/play/{other.pk}/")["Location"] == f"/square/{other.pk}/"


# --- lists ---------------------------------------------------------------------------------------


def test_the_lobby_lists_open_tables_your_private_ones_and_finished_games(client):
    open_table = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    hidden = services.game_create(kind="set", options={"start": "now", "rules": "classic"})
    war = Game.objects.create(kind=Game.Kind.SETWAR, seed=1, is_open=True)
    over = finished_game("zed")
    html = client.get("/").content.decode()
    assert f'data-game="{open_table.pk}"' in html
    assert f"/play/{open_table.pk}/?join=1" in html
    assert f'data-game="{hidden.pk}"' not in html
    assert "Set War" in html and f"/setwar/{war.pk}/" in html
    finished = html.split('id="finished-games"', 1)[1]
    assert f"/games/{over.pk}/replay/" in finished and "zed" in finished

    player = named(client, "ada")
    services.game_join(game_id=hidden.pk, player=player)
    html = client.get("/").content.decode()
    assert f'data-game="{hidden.pk}"' in html and "Return" in html


# --- solitaire and replay ------------------------------------------------------------------------


def test_solitaire_starts_a_one_seat_classic_game_against_the_clock(client):
    assert client.get("/solitaire/").status_code == 200
    response = client.post("/solitaire/", {"name": "solo", "attributes": "3"})
    game = Game.objects.get()
    assert response["Location"] == f"/solitaire/{game.pk}/"
    # Solitaire deals at once: nobody to wait for.
    assert game.options == {"rules": "classic", "attributes": 3, "start": "now"}
    assert not game.is_open
    assert game.seats.count() == 1
    page = client.get(f"/solitaire/{game.pk}/")
    config = page_config(page)
    assert config["solitaire"] is True and config["seat"] == "solo"
    assert config["started_ms"] == game.created_ms
    html = page.content.decode()
    assert "How many sets?" in html and "Show one" in html and 'id="clock"' in html
    assert f"#{game.pk}" in client.get("/solitaire/").content.decode()


@pytest.mark.parametrize(
    "form, message",
    [({"name": "", "attributes": "4"}, "choose a name"), ({"attributes": "9"}, "attributes")],
)
def test_solitaire_refuses_bad_input_with_a_message(client, form, message):
    if form.get("name") is None:
        named(client)
    response = client.post("/solitaire/", form)
    assert response.status_code == 400
    assert message in response.content.decode()


def test_the_replay_page_loads_its_steps_from_the_api(client):
    game = finished_game()
    response = client.get(f"/games/{game.pk}/replay/")
    assert response.status_code == 200
    config = page_config(response, "replay-config")
    assert config["kind"] == "set"
    data = client.get(config["data_url"]).json()
    assert data["steps"][0]["seq"] == 0 and data["steps"][-1]["view"]["over"] is True
    html = response.content.decode()
    assert "Winner" in html and "replay.js" in html


def test_the_favicon_address_browsers_ask_for_leads_to_the_site_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == "/static/img/favicon.svg"


def test_every_page_carries_a_strict_content_security_policy(client):
    policy = client.get("/")["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "style-src 'self'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert "object-src 'none'" in policy and "frame-ancestors 'none'" in policy


def test_the_display_choices_are_drawn_by_the_server_from_their_cookies(client):
    assert '<html lang="en" data-theme="auto" data-colorblind="0">' in client.get("/").text
    client.cookies["theme"] = "dark"
    client.cookies["colorblind"] = "1"
    assert '<html lang="en" data-theme="dark" data-colorblind="1">' in client.get("/").text
    client.cookies["theme"] = '"><script>'
    assert 'data-theme="auto"' in client.get("/").text


def test_a_finished_table_offers_no_invitation(client):
    from tests.games.conftest import play_to_the_end

    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic", "attributes": 3}, is_open=True
    )
    seat = services.game_join(game_id=game.pk, player=Player.objects.create(name="solo"))
    assert (
        'id="invite-panel" aria-labelledby="share-heading" >'
        in client.get(f"/play/{game.pk}/").content.decode()
    )
    play_to_the_end(game, seat)
    html = client.get(f"/play/{game.pk}/").content.decode()
    assert 'id="invite-panel" aria-labelledby="share-heading" hidden>' in html


def test_every_keyboard_layout_names_every_key_place_once():
    from cards.pages import KEY_CODES, KEY_LAYOUTS

    for name, (_label, rows) in KEY_LAYOUTS.items():
        assert [len(row) for row in rows] == [len(codes) for codes in KEY_CODES], name
        keys = "".join(rows)
        assert len(set(keys)) == len(keys), f"{name} names two places alike"
    assert len({code for row in KEY_CODES for code in row}) == sum(map(len, KEY_CODES))


def test_a_table_nobody_played_at_for_ten_minutes_is_idle_and_leaves_the_live_list(client):
    import datetime

    from django.utils import timezone

    busy = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    quiet = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    services.game_join(game_id=quiet.pk, player=Player.objects.create(name="gone"))
    eleven_minutes_ago = timezone.now() - datetime.timedelta(minutes=11)
    Game.objects.filter(pk=quiet.pk).update(updated=eleven_minutes_ago)
    html = client.get("/").content.decode()
    live = html.split('id="open-tables"')[1].split("</table>")[0]
    assert f'data-game="{busy.pk}"' in live and f'data-game="{quiet.pk}"' not in live
    idle = html.split('id="idle-tables"')[1].split("</details>")[0]
    assert f'href="/play/{quiet.pk}/"' in idle and "gone" in idle
    assert client.get(f"/play/{quiet.pk}/").status_code == 200  # it can still be opened


@pytest.mark.django_db
def test_no_page_shows_a_template_comment(client):
    # Django's {# #} spans one line: one spread over two was shown on the lobby as text.
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic"}, is_open=True
    )
    for path in ("/", "/puzzle/", "/solitaire/", "/square/", f"/play/{game.pk}/"):
        html = client.get(path).content.decode()
        assert "{#" not in html and "#}" not in html, path


def test_no_template_has_a_one_line_comment_spread_over_two_lines():
    """Django's {# #} ends on its own line; one that does not is shown as text (the profile's
    challenge form once showed its comment to every visitor). Every template, every page."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    spread = [
        f"{path.relative_to(root)}:{number}"
        for folder in ("templates", "accounts", "games", "cards", "squaregame")
        for path in (root / folder).rglob("*.html")
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if line.count("{#") != line.count("#}")
    ]
    assert not spread, spread


def test_a_game_ended_within_the_minute_ended_just_now_not_zero_minutes_ago():
    import datetime

    from games.lobby import ago

    now = datetime.datetime(2026, 11, 26, 12, 0, tzinfo=datetime.UTC)
    assert ago(now - datetime.timedelta(seconds=59), now) == "just now"
    assert ago(now - datetime.timedelta(minutes=5), now) == "5\xa0minutes ago"
