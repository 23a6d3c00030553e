"""The platform's adapter keeps Set table states as JSON dicts and the engine's states typed."""

from __future__ import annotations

import json

import orjson
import pytest

from cards.engine.table import DeclareState, TableState
from cards.rules import SetTable, table_state
from games.errors import RuleError

T = 1_700_000_000_000
DEALT = {"rules": "declare", "start": "now"}  # dealt when made


def test_a_state_is_stored_as_its_json_form_and_read_back_once():
    rules = SetTable()
    stored = rules.new(options=rules.options(DEALT), seed=3, now_ms=T)
    typed = table_state(stored)
    assert isinstance(typed, DeclareState) and typed.to_json() == stored
    assert table_state(stored) is typed  # the dict the platform passes back is not read again
    copy = json.loads(json.dumps(stored))  # as after a database read
    assert table_state(copy) == typed and table_state(copy) is not typed


def test_a_move_that_changes_nothing_returns_the_same_dict():
    rules = SetTable()
    stored = rules.new(options=rules.options(DEALT), seed=3, now_ms=T)
    joined = rules.join(stored, "ann", T).state
    assert rules.tick(joined, T + 1).state is joined
    assert rules.apply(joined, "ann", {"type": "look"}, T).state is joined
    moved = rules.apply(joined, "ann", {"type": "declare"}, T + 5).state
    assert moved is not joined and moved["declarer"] == "ann" and joined["declarer"] is None
    # The parts the move did not change are shared with the dict before it; both stay whole.
    assert moved["deck"] is joined["deck"]
    assert moved == TableState.from_json(json.loads(json.dumps(moved))).to_json()


@pytest.mark.parametrize("rules_option", ["declare", "classic"])
def test_a_stored_state_is_a_plain_dict_to_json_and_lends_its_parts_to_the_next_move(
    rules_option,
):
    rules = SetTable()
    stored = rules.new(options=rules.options({**DEALT, "rules": rules_option}), seed=5, now_ms=T)
    joined = rules.join(stored, "ann", T).state
    assert orjson.dumps(joined) == orjson.dumps(dict(joined))
    assert json.dumps(joined) == json.dumps(dict(joined))
    moved = rules.apply(joined, "ann", {"type": "hint"}, T + 10).state
    assert moved["hints"]["ann"] and not joined["hints"]
    assert moved["deck"] is joined["deck"] and moved["board"] is joined["board"]
    assert list(moved) == list(stored)


def test_a_state_read_back_lends_its_parts_only_in_the_stored_key_order():
    rules = SetTable()
    stored = rules.new(options=rules.options(DEALT), seed=3, now_ms=T)
    joined = rules.join(stored, "ann", T).state
    read = json.loads(json.dumps(joined))  # as SQLite gives it back
    moved = rules.apply(read, "ann", {"type": "declare"}, T + 5).state
    assert moved["deck"] is read["deck"] and moved["declarer"] == "ann"
    reordered = dict(sorted(read.items()))  # as PostgreSQL's jsonb gives it back
    moved_again = rules.apply(reordered, "ann", {"type": "declare"}, T + 5).state
    assert moved_again["deck"] is not reordered["deck"]
    assert json.dumps(moved_again) == json.dumps(moved)  # drawn whole, keys in stored order


@pytest.mark.parametrize(
    "bad",
    [
        {"rules": "poker"},
        {"rules": "declare"},
        {"rules": "classic", "attributes": 4, "board": ["NOT/A/CARD"]},
    ],
)
def test_a_dict_that_is_not_a_table_state_is_refused(bad):
    with pytest.raises(RuleError) as caught:
        SetTable().view(bad, None, T)
    assert caught.value.code == "bad_state"
