"""What a change tells its listeners: enough to show the game without reading it again, and
never an older game than a read would give."""

from __future__ import annotations

import json

import pytest

from games import consumers, runtime, selectors, services
from games.models import Game


@pytest.fixture
def published(monkeypatch):
    sent: list[dict] = []
    monkeypatch.setattr(runtime, "publish", lambda group, message: sent.append(message))
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


def test_a_change_superseded_in_its_own_transaction_sends_listeners_to_the_newest(
    example_table, published, django_capture_on_commit_callbacks
):
    # A new name's declare is two changes in one transaction: the join, then the declare.
    with django_capture_on_commit_callbacks(execute=True):
        services.protocol_act(game_id=example_table.pk, name="alice", action={"type": "declare"})
    join, declare = published
    assert join["action"] == "join" and declare["action"] == "declare"
    now = services.now_ms()
    assert selectors.head_from_message(join, now) is None  # read: it is the declare's game
    head = selectors.head_from_message(declare, now)
    assert head.version == Game.objects.get(pk=example_table.pk).version
    assert head.deadline_ms is not None


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
