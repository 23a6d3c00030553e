"""Rated means rated (issue 24, item 4): what can be rated is said before a game starts (the
option rules, GET /api/options), a game created rated that cannot rate is refused with a
sentence, a rated table seats accounts only, and a hint taken unrates it, which its JSON, the
lobby, the table and the profile say; nothing shown as rated is left unrated."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from cards.engine.table.modes import MODES
from cards.rules import table_options
from games import services
from games.errors import Forbidden, RuleError
from games.models import Game, Player, Rating, RatingChange
from games.option_rules import option_rules
from games.rules import get_rules
from tests.games.conftest import start_and_deal

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery"
QUICK = table_options(rules="classic", mode="normal", attributes=4, length="quick", seed=7)


def account(name: str) -> Player:
    user = get_user_model().objects.create_user(name, password=PASSWORD)
    return Player.objects.create(name=name, user=user)


def create(client, options, *, rated=True):
    return client.post(
        "/api/games/",
        {"kind": "set", "open": True, "options": options, "rated": rated},
        content_type="application/json",
    )


def test_a_quick_game_created_rated_is_refused_with_a_sentence_and_nothing_is_made(client):
    refused = create(client, QUICK)
    assert refused.status_code == 400
    body = refused.json()
    assert body["code"] == "not_rated"
    assert body["detail"].startswith("A quick game (18 cards) is not rated: a rated game deals")
    assert Game.objects.count() == 0
    puzzle = create(client, {"rules": "classic", "mode": "puzzle"})
    assert puzzle.status_code == 400 and "puzzle is not rated" in puzzle.json()["detail"]
    # Unrated, the same options make a game; rated, the whole deck is accepted and says so.
    assert create(client, QUICK, rated=False).json()["rated"] is False
    made = create(client, {"rules": "classic", "attributes": 4})
    assert made.status_code == 201
    assert (made.json()["rated"], made.json()["unrated"]) == (True, None)


def test_every_choice_of_the_option_rules_is_what_the_server_does():
    """The document the lobby's form obeys is the server's own behaviour, choice by choice."""
    choices = option_rules()["kinds"]["set"]["choices"]
    assert len(choices) == 2 * len(MODES) * 3 * 2  # rules, modes, attributes, lengths
    for choice in choices:
        fields = choice["fields"]
        options = table_options(
            rules=fields["rules"],
            mode=fields["mode"],
            attributes=int(fields["attributes"]),
            length=fields["length"],
            seed=1,
        )
        if not choice["accepted"]:
            with pytest.raises(RuleError, match=re.escape(choice["refused"])):
                services.game_create(kind="set", options=options)
            continue
        if choice["rated"]:
            assert services.game_create(kind="set", options=options, rated=True).rated
        else:
            with pytest.raises(RuleError, match=re.escape(choice["unrated"])) as refused:
                services.game_create(kind="set", options=options, rated=True)
            assert refused.value.code == "not_rated"
    found = {(c["fields"]["rules"], c["fields"]["mode"]) for c in choices if c["accepted"]}
    assert ("declare", "ultra") not in found and ("classic", "ultra") in found


def test_the_api_sends_the_option_rules_and_seat_limits(client):
    body = client.get("/api/options").json()
    assert set(body["kinds"]) == {"set", "setwar", "square"}
    square = body["kinds"]["square"]
    assert square["seats"] == {"min": 2, "max": 4} and square["rated"]["can_rate"] is True
    assert body["kinds"]["setwar"]["rated"]["never"] == "Set War games are never rated."
    rated = body["kinds"]["set"]["rated"]
    assert rated["min_players"] == 2 and "accounts only" in rated["seats"]
    assert "hint" in rated["unrated_by"]
    schema = client.get("/api/schema/").content.decode()
    assert "/api/options" in schema and "unrated:" in schema


def test_a_rated_table_seats_accounts_only(client):
    game = services.game_create(kind="set", options={"rules": "classic"}, rated=True, is_open=True)
    guest = client.post(
        f"/api/games/{game.pk}/join", {"name": "zoe"}, content_type="application/json"
    )
    assert guest.status_code == 403
    assert guest.json()["detail"] == (
        "This table is rated: only players signed in to an account sit at it. Log in or sign up "
        "to play, or watch."
    )
    # A computer sits as its speed's bot account (issue 26), and an account sits there once.
    services.seat_add_computer(game_id=game.pk)
    with pytest.raises(Forbidden, match="an account sits at it once"):
        services.seat_add_computer(game_id=game.pk)
    # Over the text protocol (an open table), a name is no account either.
    declare = services.game_create(
        kind="set", options={"rules": "declare"}, rated=True, is_open=True
    )
    looked = client.get(f"/tables/{declare.pk}/look/zed")
    assert looked.status_code == 404 and "This table is rated" in looked.content.decode()
    assert game.seats.count() == 1 and declare.seats.count() == 0
    # An account joins, once.
    ann = account("ann")
    client.login(username="ann", password=PASSWORD)
    joined = client.post(
        f"/api/games/{game.pk}/join", {"name": "ann"}, content_type="application/json"
    )
    assert joined.status_code == 201 and joined.json()["game"]["rated"] is True
    with pytest.raises(Forbidden, match="an account sits at it once"):
        other = Player.objects.create(name="ann2", user=ann.user)
        services.game_join(game_id=game.pk, player=other)


def claim(game: Game, seat, at: int) -> None:
    game.refresh_from_db()
    actions = get_rules("set").bot_actions(game.state, seat.name)
    services.move_submit(game_id=game.pk, seat=seat, action=actions[0], now=at)


def test_a_hint_unrates_the_table_for_everyone_and_nothing_calls_it_rated(client):
    ann, bob = account("ann"), account("bob")
    game = services.game_create(
        kind="set", options={"rules": "classic", "attributes": 3}, rated=True, is_open=True
    )
    seats = [services.game_join(game_id=game.pk, player=p) for p in (ann, bob)]
    dealt = start_and_deal(game.pk)
    before = client.get(f"/api/games/{game.pk}/").json()
    assert (before["rated"], before["unrated"]) == (True, None)
    # Bob takes a hint and finds no set with it: the table is unrated all the same.
    hinted = services.move_submit(
        game_id=game.pk, seat=seats[1], action={"type": "hint"}, now=dealt + 1
    )
    assert hinted.event  # the others are told
    after = client.get(f"/api/games/{game.pk}/").json()
    assert (after["rated"], after["unrated"]) == (False, "bob took a hint.")
    listed = client.get("/api/games/").json()
    row = next(item for item in listed if item["id"] == game.pk)
    assert row["rated"] is False and row["unrated"] == "bob took a hint."
    lobby = client.get("/")
    assert lobby.status_code == 200, lobby
    lobby = lobby.content.decode()
    assert 'title="bob took a hint.">unrated</span>' in lobby
    client.login(username="ann", password=PASSWORD)
    table = client.get(f"/play/{game.pk}/").content.decode()
    assert "Not rated: bob took a hint." in table and "A rated game:" not in table
    # Played to its end: nobody's rating moves, and the profile and leaderboard agree.
    for turn in range(40):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            break
        claim(game, seats[0], dealt + 1000 * (turn + 1))
    assert game.status == Game.Status.OVER
    assert not RatingChange.objects.exists() and not Rating.objects.exists()
    assert client.get(f"/api/games/{game.pk}/").json()["rated"] is False
    profile = client.get("/u/ann").content.decode()
    assert '<span class="badge">rated</span>' not in profile
    assert 'title="bob took a hint.">unrated</span>' in profile
    assert client.get("/api/leaderboard/set-classic-3").json()["players"] == []


def test_a_rated_table_where_only_one_played_says_why_it_did_not_rate(client):
    ann = account("ann")
    options = {"rules": "classic", "attributes": 3, "start": "now"}  # dealt at its first join
    game = services.game_create(kind="set", options=options, rated=True, is_open=True)
    seat = services.game_join(game_id=game.pk, player=ann)
    for turn in range(40):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            break
        claim(game, seat, 1000 * (turn + 1))
    body = client.get(f"/api/games/{game.pk}/").json()
    assert body["rated"] is False
    assert body["unrated"] == "Only ann played: a rated game needs two players or more."
    assert not RatingChange.objects.exists()
