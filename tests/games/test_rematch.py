"""Play again (issue 17, item 3): at the end of a game its players go to one new game of the same
kind and options, dealt anew, in one request each; the old game's sockets are told where."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

from config.asgi import application
from games import services
from games.models import Game, Player, Rematch
from games.rules import get_rules
from tests.games.conftest import SAME_ORIGIN, play_to_the_end


def finished_table(*, options=None, rated=False):
    """A classic table of ann and bob, played to its end (ann finds every set)."""
    options = options or {"rules": "classic", "attributes": 3}
    game = services.game_create(kind="set", options=options, rated=rated, is_open=True)
    seated = []
    for name in ("ann", "bob"):
        # A rated table seats accounts only.
        user = get_user_model().objects.create_user(name) if rated else None
        player = Player.objects.create(name=name, user=user)
        seated.append(services.game_join(game_id=game.pk, player=player))
    ann, bob = seated
    play_to_the_end(game, ann)
    return game, ann, bob


def rematch(client, game_id, token):
    return client.post(
        f"/api/games/{game_id}/rematch", "{}", "application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )  # fmt: skip


@pytest.mark.django_db
def test_both_players_accept_and_sit_at_one_new_game_of_the_same_options(client):
    game, ann, bob = finished_table()
    first = rematch(client, game.pk, ann.token)
    assert first.status_code == 201, first.json()
    new_id = first.json()["game"]["id"]
    assert new_id != game.pk and first.json()["seat"]["name"] == "ann"
    second = rematch(client, game.pk, bob.token)
    assert second.status_code == 201 and second.json()["game"]["id"] == new_id
    again = rematch(client, game.pk, ann.token)  # asked twice: the same seat
    assert again.status_code == 200 and again.json()["token"] == first.json()["token"]
    new = Game.objects.get(pk=new_id)
    assert new.kind == game.kind and new.options == game.options and new.is_open
    assert new.seed != game.seed  # dealt anew
    assert sorted(new.seats.values_list("name", flat=True)) == ["ann", "bob"]
    assert Rematch.objects.get(game=game).next_game == new
    # The new game waits for its players, as the old one did; its first seat starts it, and
    # the new seat's token plays it.
    token = first.json()["token"]
    assert new.status == Game.Status.WAITING
    started = client.post(
        f"/api/games/{new_id}/start", "{}", "application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )  # fmt: skip
    assert started.status_code == 200, started.json()
    services.game_tick(game_id=new_id, now=started.json()["outcome"]["starts_ms"])
    new.refresh_from_db()
    action = get_rules("set").bot_actions(new.state, "ann")[0]
    moved = client.post(
        f"/api/games/{new_id}/moves", json.dumps(action), "application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )  # fmt: skip
    assert moved.status_code == 200


@pytest.mark.django_db
def test_a_quick_game_is_dealt_anew_and_a_rated_one_stays_rated(client):
    from cards.engine.deck import new_deck

    quick = [card.protocol for card in new_deck(3, rng=5)[:12]]
    game, ann, _ = finished_table(
        options={"start": "now", "rules": "classic", "attributes": 3, "deck": quick}
    )
    new = Game.objects.get(pk=rematch(client, game.pk, ann.token).json()["game"]["id"])
    assert len(new.options["deck"]) == 12 and new.options["deck"] != quick
    rated, ann2, _ = finished_table(rated=True)
    assert Game.objects.get(pk=rematch(client, rated.pk, ann2.token).json()["game"]["id"]).rated


@pytest.mark.django_db
def test_a_game_not_over_or_someone_who_did_not_play_it_is_refused(client):
    game = services.game_create(kind="set", options={"start": "now", "rules": "classic"})
    seat = services.game_join(game_id=game.pk, player=Player.objects.create(name="cy"))
    refused = rematch(client, game.pk, seat.token)
    assert refused.status_code == 409 and "not over" in refused.json()["detail"]
    over, _, _ = finished_table()
    stranger = rematch(client, over.pk, seat.token)  # a seat token of another game
    assert stranger.status_code == 403
    watcher = client.post(f"/api/games/{over.pk}/rematch", "{}", "application/json")
    # A spectator (the page of someone watching) is told what they can do, never of tokens.
    assert watcher.status_code == 403 and watcher.json()["detail"] == services.WATCHERS_REMATCH
    assert "token" not in watcher.json()["detail"]
    assert client.post("/api/games/999999/rematch", "{}", "application/json").status_code == 404
    assert not Rematch.objects.exists()


@pytest.mark.django_db
def test_it_is_in_the_schema(client):
    paths = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()["paths"]
    responses = paths["/api/games/{game_id}/rematch"]["post"]["responses"]
    assert {"200", "201", "403", "404", "409"} <= set(responses)


@pytest.mark.django_db(transaction=True)
def test_the_old_games_sockets_are_told_where_the_new_game_is(db):
    async def run():
        game, ann, bob = await sync_to_async(finished_table)()
        socket = WebsocketCommunicator(
            application, f"/ws/games/{game.pk}/?token={bob.token}", headers=SAME_ORIGIN
        )
        watcher = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=SAME_ORIGIN)
        for each in (socket, watcher):
            assert (await each.connect())[0]
            await each.receive_json_from(timeout=5)  # the state
        new, _seat, _ = await sync_to_async(services.game_rematch)(
            game_id=game.pk, player_id=ann.player_id
        )
        told = {"type": "rematch", "game": new.pk, "url": f"/play/{new.pk}/", "by": "ann"}
        assert await socket.receive_json_from(timeout=5) == told
        assert await watcher.receive_json_from(timeout=5) == told  # spectators too
        for each in (socket, watcher):
            await each.disconnect()

    async_to_sync(run)()


@pytest.mark.django_db
def test_a_rematch_made_meanwhile_by_another_process_is_joined_and_leaves_no_orphan(
    client, monkeypatch
):
    """Issue 23, finding 7: two processes pressing at once each made a game; the loser's stayed,
    seatless, in the lobby."""
    game, ann, bob = finished_table()
    other = services.game_create(kind="set", options=game.options, is_open=True)
    games_before = Game.objects.count()
    # Another server process records its new game after this one looked and found none.
    Rematch.objects.create(game=game, next_game=other)
    found, looked = services._rematch_of, []

    def looked_before_it_was_made(finished):
        looked.append(finished)
        return None if len(looked) == 1 else found(finished)

    monkeypatch.setattr(services, "_rematch_of", looked_before_it_was_made)
    answer = rematch(client, game.pk, ann.token)
    assert answer.status_code == 201 and answer.json()["game"]["id"] == other.pk
    assert list(other.seats.values_list("name", flat=True)) == ["ann"]
    assert Game.objects.count() == games_before  # the game made here was rolled back with it
    assert len(looked) == 2


@pytest.mark.django_db
def test_a_quick_game_of_three_cards_is_played_again_at_a_deal_that_can_be_played(client):
    """Issue 23, finding 8: three new cards most often hold no set, so the new game ended as it
    was dealt: every press answered 409 "nobody can join it" and left a seatless finished game."""
    from cards.engine.deck import new_deck
    from cards.engine.rules import third_card

    first, second = new_deck(4, rng=1)[:2]
    triple = [card.protocol for card in (first, second, third_card(first, second))]
    three = {"rules": "classic", "deck": triple, "board_size": 3}
    for attempt in range(5):  # each press deals anew: always one that can be played
        game, ann, bob = finished_table(options=three)
        answer = rematch(client, game.pk, ann.token)
        assert answer.status_code == 201, answer.json()
        new = Game.objects.get(pk=answer.json()["game"]["id"])
        assert new.status != Game.Status.OVER, attempt
        assert list(new.seats.values_list("name", flat=True)) == ["ann"]
    assert not Game.objects.filter(status=Game.Status.OVER, seats__isnull=True).exists()


@pytest.mark.django_db
def test_a_game_no_deal_of_which_can_be_played_is_not_played_again_and_nothing_is_made(
    client, monkeypatch
):
    from cards.engine.deck import new_deck
    from cards.engine.rules import is_set

    # Three cards that hold no set: the game is over as it is dealt (made so by a program).
    cards = next(deal for seed in range(10) if not is_set(*(deal := new_deck(4, rng=seed)[:3])))
    options = {"rules": "classic", "deck": [card.protocol for card in cards], "board_size": 3}
    game = services.game_create(kind="set", options={**options, "start": "now"})
    assert game.status == Game.Status.OVER
    player = Player.objects.create(name="ann")
    seat = game.seats.create(player=player, number=0, name="ann")
    before = Game.objects.count()
    monkeypatch.setattr(services, "REMATCH_DEALS", 0)  # its own three cards, dealt anew only
    answer = rematch(client, game.pk, seat.token)
    assert answer.status_code == 409
    assert answer.json()["detail"] == (
        "This game cannot be played again: every new deal of it ends before anyone can play."
    )
    assert Game.objects.count() == before and not Rematch.objects.exists()
