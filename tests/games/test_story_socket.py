"""The story over a game's socket (?story=1): the whole of it after the first state, then after
each state only the entries newer than those sent, a hint's card its seat's alone."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from games import services
from games.models import Player
from tests.games.conftest import EXAMPLE_DECK, SAME_ORIGIN, play_to_the_end
from tests.games.test_story import a_non_set, board_of

pytestmark = pytest.mark.django_db(transaction=True)


def communicator(path: str) -> WebsocketCommunicator:
    return WebsocketCommunicator(application, path, headers=SAME_ORIGIN)


@sync_to_async
def make_table():
    game = services.game_create(
        kind="set",
        options={"rules": "classic", "deck": EXAMPLE_DECK[:18], "start": "now"},
        is_open=True,
    )
    ann = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    bob = services.game_join(game_id=game.pk, player=Player.objects.create(name="bob"))
    game.refresh_from_db()
    return game, ann, bob, a_non_set(board_of(game))


async def opened(path: str):
    socket = communicator(path)
    assert (await socket.connect())[0]
    first = await socket.receive_json_from(timeout=5)
    assert first["type"] == "state"
    return socket, first


def test_a_socket_is_told_the_story_and_then_only_what_is_new(db):
    async_to_sync(_told_the_story_then_only_what_is_new)()


async def _told_the_story_then_only_what_is_new():
    game, ann, bob, wrong = await make_table()
    watcher, _ = await opened(f"/ws/games/{game.pk}/?story=1")
    story = await watcher.receive_json_from(timeout=5)
    assert story["type"] == "story"
    assert [(e["id"], e["text"]) for e in story["entries"]] == [
        ("v1", "ann joined the table."),
        ("v2", "bob joined the table."),
    ]
    plain, _ = await opened(f"/ws/games/{game.pk}/")  # a socket that did not ask
    player, _ = await opened(f"/ws/games/{game.pk}/?story=1&token={ann.token}")
    await player.receive_json_from(timeout=5)  # its whole story

    await player.send_json_to({"type": "claim", "cards": wrong})
    result = await player.receive_json_from(timeout=5)
    assert result["type"] == "result" and result["outcome"]["claim"] == "not_set"
    assert result["outcome"]["why"]
    assert (await player.receive_json_from(timeout=5))["type"] == "state"
    told = await player.receive_json_from(timeout=5)
    assert told["type"] == "story"
    (entry,) = told["entries"]
    assert entry["id"] == "v3" and entry["type"] == "wrong"
    assert [card["card"] for card in entry["cards"]] == wrong
    assert entry["why"] == result["outcome"]["why"]

    seen = await watcher.receive_json_from(timeout=5)
    assert seen["type"] == "state" and seen["version"] == 3
    assert (await watcher.receive_json_from(timeout=5))["entries"] == told["entries"]

    assert (await plain.receive_json_from(timeout=5))["type"] == "state"
    assert await plain.receive_nothing(timeout=0.2)
    for socket in (watcher, plain, player):
        await socket.disconnect()


def test_a_hint_on_the_socket_shows_its_card_to_its_seat_alone(db):
    async_to_sync(_a_hint_shows_its_card_to_its_seat_alone)()


async def _a_hint_shows_its_card_to_its_seat_alone():
    game, ann, bob, _wrong = await make_table()
    watcher, _ = await opened(f"/ws/games/{game.pk}/?story=1")
    await watcher.receive_json_from(timeout=5)
    asker, _ = await opened(f"/ws/games/{game.pk}/?story=1&token={bob.token}")
    await asker.receive_json_from(timeout=5)

    await asker.send_json_to({"type": "hint"})
    result = await asker.receive_json_from(timeout=5)
    card = result["outcome"]["hint"]["card"]
    assert (await asker.receive_json_from(timeout=5))["type"] == "state"
    (own,) = (await asker.receive_json_from(timeout=5))["entries"]
    assert own["type"] == "hint" and [c["card"] for c in own["cards"]] == [card]

    assert (await watcher.receive_json_from(timeout=5))["type"] == "state"
    (theirs,) = (await watcher.receive_json_from(timeout=5))["entries"]
    assert theirs["id"] == own["id"] and theirs["text"] == "bob took a hint."
    assert theirs["cards"] == [] and card not in str(theirs)
    for socket in (watcher, asker):
        await socket.disconnect()


def test_at_the_end_the_socket_is_sent_the_whole_story_with_the_hints_cards(db):
    async_to_sync(_at_the_end_the_whole_story)()


async def _at_the_end_the_whole_story():
    game, ann, bob, _wrong = await make_table()
    hint = await sync_to_async(services.move_submit)(
        game_id=game.pk, seat=bob, action={"type": "hint"}
    )
    card = hint.outcome["hint"]["card"]
    watcher, _ = await opened(f"/ws/games/{game.pk}/?story=1")
    first = await watcher.receive_json_from(timeout=5)
    (hidden,) = [e for e in first["entries"] if e["type"] == "hint"]
    assert hidden["cards"] == []
    await sync_to_async(play_to_the_end)(game, ann)
    last = None
    while True:
        frame = await watcher.receive_json_from(timeout=5)
        if frame["type"] == "story" and any(e["type"] == "end" for e in frame["entries"]):
            last = frame
            break
    (shown,) = [e for e in last["entries"] if e["type"] == "hint"]
    assert shown["id"] == hidden["id"] and [c["card"] for c in shown["cards"]] == [card]
    assert last["entries"][0]["id"] == "v1"  # the whole story, from the first join
    assert last["entries"][-1]["text"].startswith("The game is over: ann wins with ")
    await watcher.disconnect()
