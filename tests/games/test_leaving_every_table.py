"""Leaving a rated game at every rated table (issue 28, item 4), not only Set classic: a Set
declare table and the Square Game. A seat away past the table's limit may be said to have left
by another seat ("end_left"): the game ends there, the leaver ranks last (the ratings move so),
the leave counts towards the account's wait, and its log replays to the stored state. Refused,
with a sentence and nothing changed: a seat still here, an unrated table, one's own seat, and
(the Square Game) a seat waiting for its turn."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model

from cards.engine.table.base import AWAY_MS, START_MS
from games import manners, services
from games.errors import Conflict, RuleError
from games.models import Game, Move, Player, RatingChange
from games.replay import replay
from squaregame.rules import AWAY_MS as SQUARE_AWAY_MS

pytestmark = pytest.mark.django_db

T = 1_800_000_000_000


def account(name: str) -> Player:
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    return Player.objects.create(name=name, user=user)


def set_table(rules: str, ann: Player, bob: Player, *, rated: bool = True):
    game = services.game_create(
        kind="set", options={"rules": rules}, now=T - START_MS, rated=rated, is_open=True
    )
    seats = [services.game_join(game_id=game.pk, player=p, now=T - START_MS) for p in (ann, bob)]
    services.move_submit(game_id=game.pk, seat=seats[0], action={"type": "start"}, now=T - START_MS)
    services.game_tick(game_id=game.pk, now=T)
    return game, seats


def square_table(ann: Player, bob: Player, *, rated: bool = True):
    game = services.game_create(kind="square", options={"players": 2}, now=T, rated=rated)
    seats = [services.game_join(game_id=game.pk, player=p, now=T) for p in (ann, bob)]
    return game, seats


def end_left(game, seat, name, at):
    return services.move_submit(
        game_id=game.pk, seat=seat, action={"type": "end_left", "seat": name}, now=at
    )


def ranks(game) -> dict[str, int]:
    return {c.user.username: c.rank for c in RatingChange.objects.filter(game=game)}


def test_at_a_rated_declare_table_a_seat_away_is_ended_as_last():
    ann, bob = account("ann"), account("bob")
    game, (ann_seat, _) = set_table("declare", ann, bob)
    services.move_submit(game_id=game.pk, seat=ann_seat, action={"type": "look"}, now=T + 1000)
    with pytest.raises(RuleError) as early:
        end_left(game, ann_seat, "bob", T + 2000)
    assert early.value.http_status == 409 and "bob is still here" in early.value.message
    assert Game.objects.get(pk=game.pk).status != Game.Status.OVER
    result = end_left(game, ann_seat, "bob", T + AWAY_MS + 1000)
    assert result.outcome["left"] == "bob" and result.outcome["over"] is True
    assert result.outcome["result"]["winners"] == ["ann"]
    game.refresh_from_db()
    assert game.status == Game.Status.OVER and game.state["left"] == ["bob"]
    assert ranks(game) == {"ann": 0, "bob": 1}
    assert replay(game) == game.state  # the log is the truth
    assert [leave["game"] for leave in manners.leaves(bob.user_id)] == [game.pk]


def test_one_cannot_say_oneself_left_at_a_declare_table():
    ann, bob = account("ann"), account("bob")
    game, (ann_seat, _) = set_table("declare", ann, bob)
    for name in ("ann", "zed"):
        with pytest.raises(RuleError) as refused:
            end_left(game, ann_seat, name, T + AWAY_MS + 1000)
        assert refused.value.http_status == 400
    assert Game.objects.get(pk=game.pk).status != Game.Status.OVER


@pytest.mark.parametrize("rules", ["classic", "declare"])
def test_an_unrated_table_is_not_ended_because_a_player_left(rules):
    ann, bob = account("ann"), account("bob")
    game, (ann_seat, _) = set_table(rules, ann, bob, rated=False)
    with pytest.raises(Conflict) as refused:
        end_left(game, ann_seat, "bob", T + AWAY_MS + 1000)
    assert refused.value.message == services.UNRATED_LEAVE
    game.refresh_from_db()
    assert game.status != Game.Status.OVER and "left" not in game.state
    assert not Move.objects.filter(game=game, action__type="end_left").exists()


def test_the_square_game_ends_when_the_seat_to_move_stays_away():
    ann, bob = account("ann"), account("bob")
    game, (ann_seat, bob_seat) = square_table(ann, bob)
    # Bob, the last to join, makes the opening: it is his turn from T.
    with pytest.raises(RuleError) as early:
        end_left(game, ann_seat, "bob", T + 5000)
    assert early.value.http_status == 409 and early.value.code == "not_away"
    assert "bob is still here (their turn began 5 s ago)" in early.value.message
    # Ann waits for her turn: she has not left, however long bob thinks.
    with pytest.raises(RuleError) as waiting:
        end_left(game, bob_seat, "ann", T + SQUARE_AWAY_MS * 3)
    assert waiting.value.http_status == 409 and "It is not ann's turn" in waiting.value.message
    with pytest.raises(RuleError) as own:
        end_left(game, bob_seat, "bob", T + SQUARE_AWAY_MS * 3)
    assert own.value.http_status == 400
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
    result = end_left(game, ann_seat, "bob", T + SQUARE_AWAY_MS + 1000)
    assert result.outcome["left"] == "bob" and result.outcome["winner_names"] == ["ann"]
    game.refresh_from_db()
    assert game.status == Game.Status.OVER
    assert game.state["game"]["left"] == [2] and game.state["game"]["winners"] == [1]
    assert ranks(game)["ann"] < ranks(game)["bob"]
    assert replay(game) == game.state
    assert [leave["game"] for leave in manners.leaves(bob.user_id)] == [game.pk]
    # Over: a second end is a conflict.
    with pytest.raises(RuleError) as over:
        end_left(game, ann_seat, "bob", T + SQUARE_AWAY_MS * 4)
    assert over.value.http_status == 409


def test_the_square_games_away_time_is_the_tables_and_counts_from_the_last_move():
    ann, bob = account("ann"), account("bob")
    game = services.game_create(
        kind="square", options={"players": 2, "away_ms": 20_000}, now=T, rated=True
    )
    ann_seat, bob_seat = (services.game_join(game_id=game.pk, player=p, now=T) for p in (ann, bob))
    opening = {"type": "place", "piece": 13, "permutation": 4, "x": 15, "y": 15}
    services.move_submit(game_id=game.pk, seat=bob_seat, action=opening, now=T + 15_000)
    # Ann's turn began at the opening: 15 s later she is still here, 21 s later she has left.
    with pytest.raises(RuleError):
        end_left(game, bob_seat, "ann", T + 30_000)
    assert end_left(game, bob_seat, "ann", T + 36_000).outcome["left"] == "ann"
    game.refresh_from_db()
    assert replay(game) == game.state


def test_the_square_game_over_the_api(client):
    ann, bob = account("ann"), account("bob")
    now = services.now_ms()
    fresh = services.game_create(kind="square", options={"players": 2}, now=now, rated=True)
    seat = next(services.game_join(game_id=fresh.pk, player=p, now=now) for p in (ann, bob))
    services.game_join(game_id=fresh.pk, player=bob, now=now)
    body = json.dumps({"type": "end_left", "seat": "bob"})
    auth = {"HTTP_AUTHORIZATION": f"Token {seat.token}"}
    early = client.post(f"/api/games/{fresh.pk}/moves", body, "application/json", **auth)
    assert early.status_code == 409 and "bob is still here" in early.json()["detail"]
    # A table whose turn began past the limit: bob has left.
    then = now - SQUARE_AWAY_MS - 5000
    carol, dan = account("carol"), account("dan")
    game = services.game_create(kind="square", options={"players": 2}, now=then, rated=True)
    carol_seat = services.game_join(game_id=game.pk, player=carol, now=then)
    services.game_join(game_id=game.pk, player=dan, now=then)
    auth = {"HTTP_AUTHORIZATION": f"Token {carol_seat.token}"}
    body = json.dumps({"type": "end_left", "seat": "dan"})
    done = client.post(f"/api/games/{game.pk}/moves", body, "application/json", **auth)
    assert done.status_code in (200, 201), done.json()
    view = client.get(f"/api/games/{game.pk}/", **auth).json()
    assert view["status"] == "over"
    assert view["view"]["left"] == ["dan"] and view["view"]["winner_names"] == ["carol"]


def test_an_unrated_square_game_is_not_ended_because_a_player_left():
    ann, bob = account("ann"), account("bob")
    game, (ann_seat, _) = square_table(ann, bob, rated=False)
    with pytest.raises(Conflict):
        end_left(game, ann_seat, "bob", T + SQUARE_AWAY_MS * 2)
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
