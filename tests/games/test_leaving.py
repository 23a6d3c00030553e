"""Leaving a rated game (issue 28, item 4): a seat away past the table's away limit may be said
to have left by another seat ("end_left", a move of the one write path): the game ends there,
the leaver ranks last and the ratings move so; an account that leaves rated games too often
waits before it plays rated again (403 with the reasons and `until`, on the API and the pages),
and its profile says why and until when."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from cards.engine.table.base import AWAY_MS, START_MS
from games import manners, presence, services
from games.errors import Conflict, RuleError
from games.models import Game, Move, Player, RatingChange

pytestmark = pytest.mark.django_db

T = 1_800_000_000_000


def account(name: str) -> Player:
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    return Player.objects.create(name=name, user=user)


def rated_table(ann: Player, bob: Player):
    game = services.game_create(
        kind="set", options={"rules": "classic"}, now=T - START_MS, rated=True, is_open=True
    )
    seats = [services.game_join(game_id=game.pk, player=p, now=T - START_MS) for p in (ann, bob)]
    services.move_submit(game_id=game.pk, seat=seats[0], action={"type": "start"}, now=T - START_MS)
    services.game_tick(game_id=game.pk, now=T)
    return game, seats


def leave(game, stayer, leaver_name: str, at: int = T + AWAY_MS + 1000):
    return services.move_submit(
        game_id=game.pk, seat=stayer, action={"type": "end_left", "seat": leaver_name}, now=at
    )


def test_a_seat_away_past_the_limit_is_ended_as_last_and_rated_so():
    ann, bob = account("ann"), account("bob")
    game, (ann_seat, bob_seat) = rated_table(ann, bob)
    # Bob leads by a set, then leaves: ann keeps playing.
    services.move_submit(game_id=game.pk, seat=ann_seat, action={"type": "look"}, now=T + 1000)
    with pytest.raises(RuleError) as refused:  # still within the away limit
        leave(game, ann_seat, "bob", at=T + 2000)
    assert "bob is still here" in refused.value.message
    assert refused.value.http_status == 409
    game.refresh_from_db()
    assert game.status != Game.Status.OVER
    result = leave(game, ann_seat, "bob")
    assert result.outcome["over"] is True and result.outcome["left"] == "bob"
    game.refresh_from_db()
    assert game.status == Game.Status.OVER and game.state["left"] == ["bob"]
    ranks = {c.user_id: c.rank for c in RatingChange.objects.filter(game=game)}
    assert ranks == {ann.user_id: 0, bob.user_id: 1}
    # The leave is the game's own move, in its log.
    assert Move.objects.filter(game=game, action__type="end_left", action__seat="bob").count() == 1


def test_a_seat_whose_page_is_open_has_not_left():
    ann, bob = account("ann"), account("bob")
    game, (ann_seat, _) = rated_table(ann, bob)
    presence.table_arrive(game.pk, "bob-socket", "bob")
    try:
        with pytest.raises(Conflict) as refused:
            leave(game, ann_seat, "bob")
        assert refused.value.message == "bob is still at the table: their page is open."
    finally:
        presence.table_leave(game.pk, "bob-socket")
    game.refresh_from_db()
    assert game.status != Game.Status.OVER


def test_one_cannot_say_oneself_or_a_stranger_left(client):
    ann, bob = account("ann"), account("bob")
    game, (ann_seat, _) = rated_table(ann, bob)
    for name in ("ann", "zed", 7):
        with pytest.raises(RuleError):
            leave(game, ann_seat, name)
    # Over the API: the rules' sentence, nothing changed.
    answer = client.post(
        f"/api/games/{game.pk}/moves", json.dumps({"type": "end_left", "seat": "bob"}),
        "application/json", HTTP_AUTHORIZATION=f"Token {ann_seat.token}",
    )  # fmt: skip
    assert answer.status_code == 409, answer.json()
    assert "bob is still here" in answer.json()["detail"]


def three_leaves(leaver: Player) -> None:
    for n in range(3):
        other = account(f"stayer{n}")
        game, (stayer_seat, _) = rated_table(other, leaver)
        leave(game, stayer_seat, leaver.name)


def test_the_third_leave_in_a_day_makes_the_account_wait_ten_minutes_then_doubling(
    client, settings
):
    settings.LEAVE_FREE_PER_DAY = 2
    settings.LEAVE_WAIT_MINUTES = 10
    bob = account("bob")
    assert manners.rated_wait(bob.user_id) is None
    three_leaves(bob)
    wait = manners.rated_wait(bob.user_id)
    assert wait["minutes"] == 10 and len(wait["leaves"]) == 3
    assert dt.timedelta(minutes=9) < wait["until"] - timezone.now() <= dt.timedelta(minutes=10)
    # A rated table is refused with why and until when; nothing is written.
    table = services.game_create(kind="set", options={"rules": "classic"}, rated=True, is_open=True)
    token = client.post(
        "/api/auth/token", json.dumps({"username": "bob", "password": "correct horse battery"}),
        "application/json",
    ).json()["token"]  # fmt: skip
    seats = table.seats.count()
    refused = client.post(
        f"/api/games/{table.pk}/join", json.dumps({"name": "bob"}), "application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )  # fmt: skip
    assert refused.status_code == 403, refused.json()
    assert refused.json()["detail"].startswith("You left 3 rated games in the last 24 hours")
    assert "you can play rated again in 10 minutes" in refused.json()["detail"]
    assert refused.json()["until"].endswith("Z")
    assert table.seats.count() == seats
    games = Game.objects.count()
    made = client.post(
        "/api/games/", json.dumps({"kind": "set", "options": {"rules": "classic"}, "rated": True}),
        "application/json", HTTP_AUTHORIZATION=f"Bearer {token}",
    )  # fmt: skip
    assert made.status_code == 403 and "rated again" in made.json()["detail"]
    assert Game.objects.count() == games
    # Unrated tables stay open to it.
    unrated = services.game_create(kind="set", options={"rules": "classic"}, is_open=True)
    assert client.post(
        f"/api/games/{unrated.pk}/join", json.dumps({"name": "bob"}), "application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    ).status_code == 201  # fmt: skip
    # Each leave beyond the free ones doubles the wait (here: one free, so three leaves wait 20).
    settings.LEAVE_FREE_PER_DAY = 1
    assert manners.rated_wait(bob.user_id)["minutes"] == 20
    # A day later, the slate is clean.
    Move.objects.filter(action__type="end_left").update(
        created=timezone.now() - dt.timedelta(hours=25)
    )
    assert manners.rated_wait(bob.user_id) is None


def test_the_profile_page_says_why_and_until_when(client, settings):
    settings.LEAVE_FREE_PER_DAY = 2
    settings.LEAVE_WAIT_MINUTES = 10
    bob = account("bob")
    three_leaves(bob)
    page = client.get("/u/bob").content.decode()
    assert 'id="rated-wait"' in page
    assert "bob left 3 rated games in the last 24 hours" in " ".join(page.split())
    assert "can play rated again in" in page and "<strong>10 minutes</strong>" in page
    # Nothing of it once the wait is over.
    Move.objects.filter(action__type="end_left").update(
        created=timezone.now() - dt.timedelta(hours=2)
    )
    assert 'id="rated-wait"' not in client.get("/u/bob").content.decode()


def test_a_rated_challenge_waits_for_an_account_that_left_too_often(settings):
    from accounts.models import Challenge
    from tests.accounts.test_challenges import challenge, make_account, post

    settings.LEAVE_FREE_PER_DAY = 2
    ada, ada_token = make_account("ada")
    bob, bob_token = make_account("bob")
    sent = challenge(ada_token, rated=True, rules="classic")
    assert sent.status_code == 201, sent.json()
    three_leaves(Player.objects.create(name="bob", user=bob))
    refused = challenge(bob_token, name="ada", rated=True, rules="classic")
    assert refused.status_code == 403
    assert refused.json()["detail"].startswith("You left 3 rated games")
    games = Game.objects.count()
    # Ada, challenged by bob earlier... here bob accepts ada's: refused, nothing made.
    accepted = post(f"/api/challenge/{sent.json()['id']}/accept", bob_token)
    assert accepted.status_code == 403 and "rated again" in accepted.json()["detail"]
    assert Game.objects.count() == games
    assert Challenge.objects.get(pk=sent.json()["id"]).status == Challenge.Status.CREATED
    # An unrated challenge is fine.
    assert challenge(bob_token, name="ada", rules="classic").status_code == 201


@pytest.mark.django_db(transaction=True)
def test_over_the_websocket_a_player_ends_the_game_of_one_who_left():
    from asgiref.sync import async_to_sync
    from channels.testing import WebsocketCommunicator

    from config.asgi import application
    from tests.games.conftest import SAME_ORIGIN

    ann, bob = account("ann"), account("bob")
    game = services.game_create(
        kind="set", options={"rules": "classic", "away_ms": 1000}, rated=True, is_open=True
    )
    seats = [services.game_join(game_id=game.pk, player=p) for p in (ann, bob)]
    services.move_submit(game_id=game.pk, seat=seats[0], action={"type": "start"})

    async def run():
        import asyncio

        socket = WebsocketCommunicator(
            application, f"/ws/games/{game.pk}/?token={seats[0].token}", headers=SAME_ORIGIN
        )
        assert (await socket.connect())[0]
        bob_socket = WebsocketCommunicator(
            application, f"/ws/games/{game.pk}/?token={seats[1].token}", headers=SAME_ORIGIN
        )
        assert (await bob_socket.connect())[0]
        await asyncio.sleep(0.3)
        await socket.send_json_to({"type": "end_left", "seat": "bob"})
        frames = []
        while not await socket.receive_nothing(timeout=0.5):
            frames.append(await socket.receive_json_from())
        refused = [f for f in frames if f.get("type") == "error"]
        await bob_socket.disconnect()  # bob closes his page, and stays away
        await asyncio.sleep(3.5)  # the table's away time (a second) and the deal's countdown
        await socket.send_json_to({"type": "end_left", "seat": "bob"})
        frames = []
        while not await socket.receive_nothing(timeout=1):
            frames.append(await socket.receive_json_from())
        await socket.disconnect()
        return refused, frames

    refused, frames = async_to_sync(run)()
    assert refused and refused[0]["detail"] == "bob is still at the table: their page is open."
    results = [f for f in frames if f.get("type") == "result"]
    assert results and results[0]["outcome"]["left"] == "bob" and results[0]["outcome"]["over"]
    game.refresh_from_db()
    assert game.status == Game.Status.OVER and game.state["left"] == ["bob"]
