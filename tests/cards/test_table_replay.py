"""Games stored by earlier versions of the Set table replay to their snapshots, move by move.

Each file of tests/cards/set_table_games/ is a game as the platform stored it (options, seed,
move log with outcomes, the game row's snapshot), recorded by the engine of commit b8a4a56 (see
make.py there). Replaying its log through the platform's adapter must give the same outcomes,
the same state after every move, the same views and protocol replies, and the stored snapshot;
the snapshot itself, read back from JSON, must answer as the replayed state does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cards.engine.protocol_text import board_text, scores_text
from cards.engine.table import TableState
from cards.rules import SetTable, table_state
from games.replay import next_state

GAMES = sorted((Path(__file__).parent / "set_table_games").glob("*.json"))


def compact(data) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def digest(data) -> str:
    import hashlib

    return hashlib.sha256(compact(data).encode()).hexdigest()[:20]


# What views say of a table's start (issue 24), which the recorded games' views predate: each
# recorded table was dealt when made, so these say only that.
START_VIEW = ("status", "starts_at", "started_at", "ended_at", "host", "may_start", "now")


def recorded_view(view: dict, at_ms: int) -> dict:
    """Return a view as the recording engine drew it, after checking what it adds."""
    added = {key: view.pop(key) for key in START_VIEW}
    assert added["status"] in ("active", "over") and added["starts_at"] is None
    assert added["host"] is None and added["may_start"] is False and added["now"] == at_ms
    return view


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def step(rules: SetTable, state: dict, move: dict):
    kind = move["action"]["type"]
    if kind == "join":
        return rules.join(state, move["actor"], move["at_ms"])
    if kind == "tick":
        return rules.tick(state, move["at_ms"])
    return rules.apply(state, move["actor"], move["action"], move["at_ms"])


def test_the_recorded_games_cover_both_rule_sets_and_every_kind_of_move():
    assert len(GAMES) >= 6
    records = [load(path) for path in GAMES]
    assert {r["options"]["rules"] for r in records} == {"declare", "classic"}
    outcomes = [m["outcome"] for r in records for m in r["moves"]]
    seen = {(o["action"], o.get("pick") or o.get("claim") or o.get("vote")) for o in outcomes}
    for expected in [
        ("hint", None),
        ("count", None),
        ("pick", "set"),
        ("pick", "not_set"),
        ("pick", "deselected"),
        ("pick", "ignored"),
        ("add", "recorded"),
        ("add", "repeated"),
        ("claim", "set"),
        ("claim", "not_set"),
        ("tick", None),
    ]:
        assert expected in seen
    assert any(e["kind"] == "timeout" for o in outcomes for e in o.get("expired", ()))
    assert any(e["kind"] == "added" for o in outcomes for e in o.get("expired", ()))
    assert any(o.get("hinted") for o in outcomes)
    assert sum(r["state"]["over"] for r in records) >= 4


@pytest.mark.parametrize("path", GAMES, ids=lambda path: path.stem)
def test_a_stored_game_replays_to_its_snapshot(path):
    record = load(path)
    rules = SetTable()
    # Stored before tables could wait (dealt when made, the engine's default); today's options
    # say how a table starts explicitly.
    options = rules.options(record["options"])
    assert options.pop("start") in ("now", "wait") and options == record["options"]
    assert "waiting" not in rules.new(options=record["options"], seed=1, now_ms=0)
    state = rules.new(options=record["options"], seed=record["seed"], now_ms=record["created_ms"])
    refused: dict[int, list[dict]] = {}
    for attempt in record["refused"]:
        refused.setdefault(attempt["after_moves"], []).append(attempt)
    players: list[str] = []
    for number, move in enumerate([*record["moves"], None]):
        for attempt in refused.get(number, ()):
            with pytest.raises(ValueError) as caught:
                rules.apply(state, attempt["actor"], attempt["action"], attempt["at_ms"])
            # The tables of today know actions the recording's did not: "start", "reveal",
            # "end_left".
            message = str(caught.value).replace(", end_left.", ".").replace(", reveal.", ".")
            message = message.replace(", count, start.", ", count.")
            assert (getattr(caught.value, "code", None), message) == (
                attempt["code"],
                attempt["message"],
            )
        if move is None:
            break
        result = step(rules, state, move)
        # Outcomes are those recorded, and a wrong claim now also says why (a later addition).
        outcome = dict(result.outcome)
        why = outcome.pop("why", None)
        assert outcome == move["outcome"], (number, move)
        wrong = "not_set" in (outcome.get("pick"), outcome.get("claim"))
        assert bool(why) == wrong, (number, move)
        assert result.event == move["event"], (number, move)
        assert result.state != state
        state = result.state
        if move["actor"] and move["actor"] not in players and move["actor"] in state["players"]:
            players.append(move["actor"])
        after = move["after"]
        assert digest(state) == after["state"], (number, move)
        assert rules.status(state) == after["status"]
        assert rules.next_deadline(state) == after["next_deadline"]
        assert (
            digest(recorded_view(rules.view(state, None, move["at_ms"]), move["at_ms"]))
            == (after["view"])
        )
        assert digest({p: rules.bot_actions(state, p) for p in players}) == after["bots"]
        if "seat_view" in after:
            seat, seen = after["seat_view"]
            assert digest(recorded_view(rules.view(state, seat, move["at_ms"]), move["at_ms"])) == (
                seen
            )
        if "texts" in after:
            typed = table_state(state)
            texts = [board_text(typed, p) for p in [None, *players]] + [scores_text(typed)]
            assert digest(texts) == after["texts"]
    assert state == record["state"]
    assert compact(state) == compact(record["state"])  # the same keys in the same order


@pytest.mark.parametrize("path", GAMES, ids=lambda path: path.stem)
def test_the_platform_replay_gives_the_snapshot(path):
    record = load(path)
    rules = SetTable()
    state = rules.new(options=record["options"], seed=record["seed"], now_ms=record["created_ms"])
    for move in record["moves"]:
        state = next_state(rules, state, move["actor"], move["action"], move["at_ms"])
    assert state == record["state"]


@pytest.mark.parametrize("path", GAMES, ids=lambda path: path.stem)
def test_a_stored_snapshot_reads_back_and_plays_on(path):
    record = load(path)
    rules = SetTable()
    stored = record["state"]  # as read from the database: a dict never seen by the rules
    end = record["end"]
    for viewer, view in end["views"].items():
        seen = recorded_view(rules.view(stored, viewer or None, end["at_ms"]), end["at_ms"])
        assert compact(seen) == compact(view)
    if "board_text" in end:
        for viewer, text in end["board_text"].items():
            assert board_text(table_state(stored), viewer or None) == text
        assert scores_text(table_state(stored)) == end["scores_text"]
    # The next move on the stored snapshot is the same as on a fresh copy of it.
    again = json.loads(json.dumps(stored))
    for name in (*stored["players"][:2], "newcomer"):
        action = {"type": "join" if record["options"]["rules"] == "classic" else "look"}
        first = rules.apply(stored, name, action, end["at_ms"] + 1000)
        second = rules.apply(again, name, action, end["at_ms"] + 1000)
        assert (first.state, first.outcome, first.event) == (
            second.state,
            second.outcome,
            second.event,
        )
    assert stored == load(path)["state"]  # never changed in place


@pytest.mark.parametrize("path", GAMES, ids=lambda path: path.stem)
def test_a_stored_snapshot_is_the_json_form_of_its_typed_state(path):
    stored = load(path)["state"]
    state = TableState.from_json(stored)
    assert state.rules == stored["rules"] and state.over == stored["over"]
    assert compact(state.to_json()) == compact(stored)  # the same keys, order and texts
    assert TableState.from_json(state.to_json()) == state
