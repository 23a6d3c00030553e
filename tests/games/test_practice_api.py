"""Practice tables over the platform: created private and unrated (a 400 that says why with
`open` or `rated`), paused and resumed by their host over the API (others 403, a second pause or
a resume of a running table 409, nothing changed), no card sent while paused, hints and "show
me" kept to their seat, and a practice game left out of ratings, profiles and the site's
numbers."""

from __future__ import annotations

import itertools
import json

import pytest
from django.contrib.auth import get_user_model

from cards.engine.table.base import START_MS
from cards.engine.table.codes import codes_of, is_set
from games import lobby, profiles, selectors, services, store
from games.models import Game, Player, Rating, RatingChange
from games.rules import get_rules

pytestmark = pytest.mark.django_db
T = 1_800_000_000_000


def post(client, url, body, token=None):
    extra = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return client.post(url, json.dumps(body), "application/json", **extra)


def practice_table(client, **options):
    """A practice table over the API, ann (its host) and bo seated, dealt: (id, tokens)."""
    body = {"kind": "set", "options": {"practice": True, "start": "now", **options}}
    created = post(client, "/api/games/", body)
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    key = created.json()["key"]
    tokens = {}
    for name in ("ann", "bo"):
        joined = post(client, f"/api/games/{game_id}/join?key={key}", {"name": name})
        assert joined.status_code in (200, 201), joined.json()
        tokens[name] = joined.json()["token"]
    return game_id, tokens


def view_of(client, game_id, token):
    answer = client.get(f"/api/games/{game_id}/", HTTP_AUTHORIZATION=f"Token {token}")
    assert answer.status_code == 200
    return answer.json()


def test_a_practice_table_is_created_private_and_classic_and_its_view_says_practice(client):
    game_id, tokens = practice_table(client)
    game = Game.objects.get(pk=game_id)
    assert game.options["practice"] is True and game.options["rules"] == "classic"
    assert not game.is_open and game.link_key and not game.rated
    detail = view_of(client, game_id, tokens["ann"])
    assert detail["view"]["practice"] is True and detail["view"]["paused"] is False
    assert detail["view"]["board"]


@pytest.mark.parametrize(
    "extra, code, sentence",
    [
        ({"open": True}, "private_only", "A practice table is private"),
        ({"rated": True}, "not_rated", "A practice table is not rated"),
    ],
)
def test_practice_with_open_or_rated_is_a_400_that_says_why(client, extra, code, sentence):
    before = Game.objects.count()
    answer = post(client, "/api/games/", {"kind": "set", "options": {"practice": True}, **extra})
    assert answer.status_code == 400
    assert answer.json()["code"] == code
    assert answer.json()["detail"].startswith(sentence)
    assert Game.objects.count() == before


@pytest.mark.parametrize(
    "options, sentence",
    [
        ({"practice": True, "rules": "declare"}, "Practice is played at classic tables"),
        ({"practice": "yes"}, "The practice option must be true or false"),
    ],
)
def test_a_bad_practice_option_is_a_400_naming_it(client, options, sentence):
    answer = post(client, "/api/games/", {"kind": "set", "options": options})
    assert answer.status_code == 400
    assert sentence in answer.json()["detail"]


def test_the_host_pauses_and_resumes_and_no_card_is_sent_while_paused(client):
    game_id, tokens = practice_table(client, mode="chain")
    moves = f"/api/games/{game_id}/moves"
    running = view_of(client, game_id, tokens["ann"])["view"]
    cards = [cell["card"] for cell in running["board"]]

    refused = post(client, moves, {"type": "pause"}, tokens["bo"])
    assert refused.status_code == 403
    assert refused.json()["detail"] == "Only ann, who made the table, can pause the game."
    refused = post(client, moves, {"type": "resume"}, tokens["ann"])
    assert refused.status_code == 409 and refused.json()["detail"] == "The game is not paused."

    paused = post(client, moves, {"type": "pause"}, tokens["ann"])
    assert paused.status_code == 200 and paused.json()["outcome"]["paused"] is True
    version = Game.objects.get(pk=game_id).version
    again = post(client, moves, {"type": "pause"}, tokens["ann"])
    assert again.status_code == 409 and again.json()["detail"] == "The game is paused already."
    claim = post(client, moves, {"type": "claim", "cards": cards[:3]}, tokens["bo"])
    assert claim.status_code == 409 and claim.json()["detail"] == "The game is paused."
    hint = post(client, moves, {"type": "hint"}, tokens["bo"])
    assert hint.status_code == 409 and hint.json()["detail"] == "The game is paused."
    assert Game.objects.get(pk=game_id).version == version  # nothing changed

    # No card in any view: a seat's, a watcher's (by the key), the shared selectors' own.
    game = Game.objects.get(pk=game_id)
    texts = [json.dumps(view_of(client, game_id, token)) for token in tokens.values()]
    texts.append(json.dumps(client.get(f"/api/games/{game_id}/?key={game.link_key}").json()))
    head = store.head_of(game)
    texts += [
        json.dumps(selectors.game_view(head, seat_name=n, now=services.now_ms()))
        for n in (None, "bo")
    ]
    for text in texts:
        assert not any(card in text for card in cards)
        assert '"paused": true' in text

    # Nor its replay, whose last step holds the cards on the table.
    replay = client.get(f"/api/games/{game_id}/replay", HTTP_AUTHORIZATION=f"Token {tokens['bo']}")
    assert replay.status_code == 409
    assert (
        replay.json()["detail"] == "The game is paused: its replay is back when the game resumes."
    )

    resumed = post(client, moves, {"type": "resume"}, tokens["ann"])
    assert resumed.status_code == 200 and resumed.json()["outcome"]["paused"] is False
    view = view_of(client, game_id, tokens["bo"])["view"]
    assert [cell["card"] for cell in view["board"]] == cards
    replay = client.get(f"/api/games/{game_id}/replay", HTTP_AUTHORIZATION=f"Token {tokens['bo']}")
    assert replay.status_code == 200


def test_pause_at_a_table_that_is_not_practice_is_a_400(client):
    created = post(
        client, "/api/games/", {"kind": "set", "options": {"rules": "classic", "start": "now"}}
    )
    game_id = created.json()["id"]
    key = created.json()["key"]
    token = post(client, f"/api/games/{game_id}/join?key={key}", {"name": "ann"}).json()["token"]
    answer = post(client, f"/api/games/{game_id}/moves", {"type": "pause"}, token)
    assert answer.status_code == 400
    assert answer.json()["detail"] == "Only a practice table can be paused."


def test_hints_and_show_me_are_their_seats_own(client):
    game_id, tokens = practice_table(client)
    moves = f"/api/games/{game_id}/moves"
    for press in (1, 2, 3, 4):
        hint = post(client, moves, {"type": "hint"}, tokens["ann"]).json()["outcome"]["hint"]
        assert len(hint["cards"]) == min(press, 3)
    shown = post(client, moves, {"type": "show"}, tokens["ann"]).json()["outcome"]["show"]
    assert len(shown["sets"]) == 1 and shown["total"] >= 1
    ann = view_of(client, game_id, tokens["ann"])["view"]
    assert len(ann["hint"]["cards"]) == 3 and ann["show"] == shown
    bo = view_of(client, game_id, tokens["bo"])["view"]
    assert bo["hint"] is None and bo["show"] is None
    # The log tells bo that ann took hints and was shown a set, never which cards.
    log = client.get(moves, HTTP_AUTHORIZATION=f"Token {tokens['bo']}").json()
    text = json.dumps(log)
    assert '"show"' in text and '"hint"' in text
    shown_cards = [cell["card"] for found in shown["sets"] for cell in found]
    assert not any(card["card"] in text for card in ann["hint"]["cards"])
    assert not any(card in text for card in shown_cards)


def account(name: str) -> Player:
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    return Player.objects.create(name=name, user=user)


def test_a_practice_game_played_to_its_end_is_in_no_rating_profile_or_count():
    ann, bob = account("ann"), account("bob")
    game = services.game_create(
        kind="set", options={"rules": "classic", "attributes": 3, "practice": True}, now=T
    )
    seats = [services.game_join(game_id=game.pk, player=p, now=T) for p in (ann, bob)]
    services.move_submit(game_id=game.pk, seat=seats[0], action={"type": "start"}, now=T - START_MS)
    services.game_tick(game_id=game.pk, now=T)
    at = T
    # Paused a while, then played to its end.
    services.move_submit(game_id=game.pk, seat=seats[0], action={"type": "pause"}, now=at + 10)
    services.move_submit(game_id=game.pk, seat=seats[0], action={"type": "resume"}, now=at + 5010)
    for turn in range(100):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            break
        seat = seats[turn % 2]
        actions = get_rules("set").bot_actions(game.state, seat.name)
        at += 6000
        services.move_submit(game_id=game.pk, seat=seat, action=actions[0], now=at)
    assert game.status == Game.Status.OVER
    assert not RatingChange.objects.exists() and not Rating.objects.exists()
    assert profiles.finished_stats([game.pk])[game.pk] is None
    for user in (ann.user, bob.user):
        stats = profiles.account_stats(user)
        assert stats["games_played"] == 0 and stats["sets_found"] == 0
    # Its time leaves the pause out.
    view = get_rules("set").view(game.state, "ann", at + 99_000)
    assert view["elapsed_ms"] == game.state["ended_ms"] - T - 5000
    # Lists show it with its badge.
    assert lobby.finished_row(game, now=game.finished)["badges"] == ["practice"]


def test_the_practice_badge_is_on_the_table_and_replay_pages(client):
    game_id, tokens = practice_table(client)
    key = Game.objects.get(pk=game_id).link_key
    for url in (f"/play/{game_id}/?key={key}", f"/games/{game_id}/replay/?key={key}"):
        page = client.get(url)
        assert page.status_code == 200, url
        assert 'class="badge badge-practice"' in page.content.decode()


def test_a_computer_at_a_paused_practice_table_waits_for_the_resume():
    ann = account("ann")
    game = services.game_create(
        kind="set", options={"rules": "classic", "practice": True, "start": "now"}, now=T
    )
    host = services.game_join(game_id=game.pk, player=ann, now=T)
    services.seat_add_computer(game_id=game.pk, speed="fast", now=T)
    services.move_submit(game_id=game.pk, seat=host, action={"type": "pause"}, now=T + 1)
    game.refresh_from_db()
    # Its thinking time, planned before the pause, comes: it finds no card and stops thinking.
    services.game_tick(game_id=game.pk, now=T + 600_000)
    game.refresh_from_db()
    assert sum(game.state["scores"].values()) == 0
    assert game.deadline_ms is None
    services.move_submit(game_id=game.pk, seat=host, action={"type": "resume"}, now=T + 600_000)
    game.refresh_from_db()
    assert game.deadline_ms is not None and game.deadline_ms > T + 600_000
    services.game_tick(game_id=game.pk, now=game.deadline_ms)
    game.refresh_from_db()
    assert game.state["scores"]["Computer1"] == 1


def test_the_schema_documents_the_practice_option_and_its_actions(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    text = json.dumps(schema)
    components = schema["components"]["schemas"]
    options = json.dumps(components["SetGameCreateRequest"])
    assert '"practice"' in options and "private_only" in text
    actions = components["SetSimpleActionTypeEnum"]
    assert {"pause", "resume", "show"} <= set(actions["enum"])


def test_while_paused_the_log_and_story_name_no_card_of_the_table(client):
    game_id, tokens = practice_table(client)
    moves = f"/api/games/{game_id}/moves"
    board = [c["card"] for c in view_of(client, game_id, tokens["ann"])["view"]["board"]]
    # A wrong claim: its cards stay on the board, and the log names them.
    wrong = next(
        list(three)
        for three in itertools.combinations(board, 3)
        if not is_set(codes_of(three, 4), 4)
    )
    assert post(client, moves, {"type": "claim", "cards": wrong}, tokens["bo"]).status_code == 200
    post(client, moves, {"type": "hint"}, tokens["ann"])
    auth = {"HTTP_AUTHORIZATION": f"Token {tokens['ann']}"}
    assert wrong[0] in json.dumps(client.get(moves, **auth).json())
    assert post(client, moves, {"type": "pause"}, tokens["ann"]).status_code == 200
    for url in (moves, f"/api/games/{game_id}/story", f"/api/games/{game_id}/export"):
        answer = client.get(url, **auth)
        assert answer.status_code == 200, url
        assert not any(card in answer.content.decode() for card in board), url
    log = client.get(moves, **auth).json()
    claim = next(move for move in log if move["action"]["type"] == "claim")
    assert claim["action"]["withheld"] == ["cards"] and "cards" in claim["outcome"]["withheld"]
    # Resumed: the log names them again.
    post(client, moves, {"type": "resume"}, tokens["ann"])
    assert wrong[0] in json.dumps(client.get(moves, **auth).json())
    story = client.get(f"/api/games/{game_id}/story", **auth).json()
    assert any(entry["cards"] for entry in story["entries"])
