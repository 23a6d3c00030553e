"""What a change tells its listeners: enough to show the game without reading it again, and
never an older game than a read would give."""

from __future__ import annotations

import json

import pytest

from games import consumers, realtime, runtime, selectors, services
from games.models import Game


@pytest.fixture
def published(monkeypatch):
    sent: list[dict] = []
    monkeypatch.setattr(realtime, "publish", sent.append)
    return sent


def test_a_listener_in_the_writer_s_process_gets_the_game_from_the_message_alone(
    example_table, published, django_capture_on_commit_callbacks, django_assert_num_queries
):
    with django_capture_on_commit_callbacks(execute=True):
        services.protocol_act(game_id=example_table.pk, name="alice", action={"type": "look"})
    (message,) = published
    stored = Game.objects.get(pk=example_table.pk)
    with django_assert_num_queries(0):
        head = selectors.head_from_message(message, services.now_ms())
    assert (head.pk, head.kind, head.status, head.is_open) == (
        stored.pk,
        stored.kind,
        stored.status,
        stored.is_open,
    )
    assert (head.version, head.deadline_ms, head.state) == (
        stored.version,
        stored.deadline_ms,
        stored.state,
    )


def test_the_changes_of_one_transaction_make_one_message_with_their_moves(
    example_table, published, django_capture_on_commit_callbacks
):
    # A new name's declare is two moves in one transaction: the join, then the declare.
    before = Game.objects.get(pk=example_table.pk).version
    with django_capture_on_commit_callbacks(execute=True):
        services.protocol_act(game_id=example_table.pk, name="alice", action={"type": "declare"})
    (message,) = published
    stored = Game.objects.get(pk=example_table.pk)
    assert (message["from"], message["version"]) == (before, stored.version) == (before, before + 2)
    assert [(actor, action["type"], event) for actor, action, _at, event in message["moves"]] == [
        ("alice", "join", True),
        ("alice", "declare", True),
    ]
    head = selectors.head_from_message(message, services.now_ms())
    assert head.version == stored.version and head.deadline_ms is not None


def test_another_process_follows_a_change_by_its_moves_without_reading_the_game(
    example_table, published, django_capture_on_commit_callbacks, django_assert_num_queries
):
    with django_capture_on_commit_callbacks(execute=True):
        services.protocol_act(game_id=example_table.pk, name="alice", action={"type": "look"})
    at_join = Game.objects.get(pk=example_table.pk)
    with django_capture_on_commit_callbacks(execute=True):
        services.protocol_act(game_id=example_table.pk, name="bob", action={"type": "declare"})
    stored = Game.objects.get(pk=example_table.pk)
    # Another process knew the game as it was after alice's join, and hears of bob's moves.
    runtime.forget_states()
    runtime.remember_head(selectors.head_of(at_join))
    message = {**published[-1], "origin": "another process"}
    with django_assert_num_queries(0):
        realtime._follow(message)
        head = selectors.head_from_message(message, services.now_ms())
    assert (head.version, head.state, head.deadline_ms) == (
        stored.version,
        stored.state,
        stored.deadline_ms,
    )
    # A process that missed a change in between cannot follow: its listeners read the game.
    runtime.forget_states()
    runtime.remember_head(selectors.head_of(at_join, {**at_join.state}))
    realtime._follow({**message, "from": message["from"] - 1})
    assert selectors.head_from_message(message, services.now_ms()) is None


def test_without_the_state_cached_or_with_a_deadline_due_the_listener_reads(
    example_table, published, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        services.protocol_act(game_id=example_table.pk, name="alice", action={"type": "declare"})
    declare = published[-1]
    assert selectors.head_from_message(declare, declare["deadline_ms"]) is None  # due: tick
    runtime.forget_states()  # another process: its cache never saw this state
    assert selectors.head_from_message(declare, services.now_ms()) is None


def test_socket_messages_are_compact_json_and_keep_any_text_and_number():
    data = {"type": "state", "view": {"you": "Zoë ✓", "scores": {"名前": 2}}, "n": 2**70}
    text = consumers._text(data)  # 2**70 is past orjson's integers: json writes it
    assert json.loads(text) == data
    assert consumers._text({"a": [1, "é"]}) == '{"a":[1,"é"]}'


def test_a_process_following_a_change_knows_the_game_has_computers_since_it(
    db, published, django_capture_on_commit_callbacks, django_assert_num_queries
):
    """A process that follows a computer's seating by its moves must know the game has computer
    seats: its writes then go through the services, which schedule the computers' turns."""
    game = services.game_create(kind="set", options={"start": "now", "rules": "classic"})
    with django_capture_on_commit_callbacks(execute=True):
        services.protocol_act(game_id=game.pk, name="ann", action={"type": "look"})
    before = Game.objects.get(pk=game.pk)
    with django_capture_on_commit_callbacks(execute=True):
        services.seat_add_computer(game_id=game.pk, speed="slow")
    runtime.forget_states()
    runtime.remember_head(selectors.head_of(before))  # another process, before the computer
    message = {**published[-1], "origin": "another process"}
    with django_assert_num_queries(0):
        realtime._follow(message)
    head = selectors.head_from_message(message, services.now_ms())
    assert head.has_computers and not head.is_default
    assert head.version == Game.objects.get(pk=game.pk).version
