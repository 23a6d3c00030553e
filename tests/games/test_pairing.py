"""The pairing planner (games.pairing): who sits down together, planned without a database."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.pairing import PairingRules, Plan, Waiting, allowed_gap, plan_tables

RULES = PairingRules()
LIMIT = RULES.wait_limit_ms


def w(key, rating=1500, since=0, blocks=()):
    return Waiting(key, rating, since_ms=since, blocks=frozenset(blocks))


def test_four_close_players_sit_at_once():
    plan = plan_tables([w(k, 1500 + 10 * k, since=k) for k in range(4)], now_ms=5)
    assert plan == Plan(tables=((0, 1, 2, 3),), next_due_ms=None)


def test_three_close_players_wait_for_a_fourth_until_the_limit():
    three = [w(k, 1500, since=0) for k in range(3)]
    assert plan_tables(three, now_ms=1000) == Plan((), next_due_ms=LIMIT)
    assert plan_tables(three, now_ms=LIMIT).tables == ((0, 1, 2),)


def test_past_the_limit_the_closest_sits_down_and_the_far_one_waits():
    entries = [w("old", 1500, since=0), w("near", 1550, since=9000), w("far", 2500, since=9500)]
    plan = plan_tables(entries, now_ms=LIMIT)
    assert plan.tables == (("old", "near"),)
    # "far" waits alone now: nobody to sit with, nothing to wait for.
    assert plan.next_due_ms is None


def test_one_player_alone_waits_without_a_timer():
    assert plan_tables([w("a")], now_ms=LIMIT * 5) == Plan((), None)


def test_the_gap_widens_with_the_wait():
    entry = w("a", since=0)
    assert allowed_gap(entry, 0) == 100
    assert allowed_gap(entry, 4000) == 300
    assert allowed_gap(entry, LIMIT - 1) < 600
    assert allowed_gap(entry, LIMIT) == float("inf")


def test_four_far_apart_sit_together_once_their_gaps_reach():
    # Ratings 100 apart: gaps reach 200 after 2 s (a decision due, nobody sits: only pairs fit),
    # and 300 after 4 s, when all four fit.
    entries = [w(k, 1500 + 100 * k, since=0) for k in range(4)]
    assert plan_tables(entries, now_ms=0) == Plan((), next_due_ms=2000)
    assert plan_tables(entries, now_ms=2000) == Plan((), next_due_ms=4000)
    assert plan_tables(entries, now_ms=4000).tables == ((0, 1, 2, 3),)


def test_blocked_players_never_sit_together_even_past_the_limit():
    entries = [w("a", since=0, blocks={"b"}), w("b", since=0)]
    assert plan_tables(entries, now_ms=LIMIT * 3) == Plan((), None)


def test_a_block_either_way_counts():
    entries = [w("a", since=0), w("b", since=0, blocks={"a"}), w("c", 1900, since=5)]
    assert plan_tables(entries, now_ms=LIMIT).tables == (("a", "c"),)


def test_keys_are_unique():
    with pytest.raises(ValueError):
        plan_tables([w("a"), w("a")], now_ms=0)


# -- properties ------------------------------------------------------------------------------

entry_lists = st.lists(
    st.tuples(
        st.integers(800, 2400),  # rating
        st.integers(0, 30_000),  # since
    ),
    max_size=14,
).flatmap(
    lambda raw: st.tuples(
        st.just(raw),
        st.sets(
            st.tuples(st.integers(0, max(0, len(raw) - 1)), st.integers(0, max(0, len(raw) - 1))),
            max_size=6,
        ),
    )
)


def build(raw, blocked_pairs):
    blocks = {k: set() for k in range(len(raw))}
    for a, b in blocked_pairs:
        if a != b and a < len(raw) and b < len(raw):
            blocks[a].add(b)
    return [
        Waiting(k, rating, since_ms=since, blocks=frozenset(blocks[k]))
        for k, (rating, since) in enumerate(raw)
    ]


@settings(max_examples=300, deadline=None)
@given(entry_lists, st.integers(0, 45_000))
def test_plans_keep_the_invariants(data, now_ms):
    raw, blocked_pairs = data
    entries = build(raw, blocked_pairs)
    by_key = {e.key: e for e in entries}
    plan = plan_tables(entries, now_ms)
    seated = [key for table in plan.tables for key in table]
    assert len(seated) == len(set(seated)), "nobody is seated twice"
    assert all(2 <= len(table) <= 4 for table in plan.tables)
    for table in plan.tables:
        for a, b in itertools.combinations(table, 2):
            assert b not in by_key[a].blocks and a not in by_key[b].blocks
        # A table short of four starts only because someone in it waited past the limit.
        if len(table) < 4:
            assert any(now_ms - by_key[k].since_ms >= LIMIT for k in table)
    left = [e for e in entries if e.key not in seated]
    for a in left:
        if now_ms - a.since_ms >= LIMIT:
            # Past the limit and still waiting: only beside people they may not sit with.
            assert all(a.key in b.blocks or b.key in a.blocks for b in left if b is not a)
    assert plan == plan_tables(list(reversed(entries)), now_ms), "the same pool, the same plan"
    if plan.next_due_ms is not None:
        assert plan.next_due_ms > now_ms


@settings(max_examples=150, deadline=None)
@given(entry_lists, st.integers(0, 45_000))
def test_nothing_changes_before_the_next_decision(data, now_ms):
    # A timer set for next_due_ms loses nothing: planning the rest again, now or just before
    # the due time, seats nobody (and with no due time, nobody ever).
    raw, blocked_pairs = data
    entries = build(raw, blocked_pairs)
    plan = plan_tables(entries, now_ms)
    seated = {key for table in plan.tables for key in table}
    left = [e for e in entries if e.key not in seated]
    assert plan_tables(left, now_ms).tables == ()
    later = plan.next_due_ms - 1 if plan.next_due_ms is not None else now_ms + 100_000
    assert plan_tables(left, later).tables == ()


def test_an_overdue_table_takes_no_one_another_needs():
    # Everyone past the limit; a blocks b. a sits with its closest (c) and would take d too,
    # but then b would wait with nobody: b sits with d instead.
    entries = [
        w("a", 1500, since=0, blocks={"b"}),
        w("b", 1500, since=1),
        w("c", 1500, since=2),
        w("d", 2400, since=3),
    ]
    plan = plan_tables(entries, now_ms=LIMIT + 10)
    assert sorted(map(sorted, plan.tables)) == [["a", "c"], ["b", "d"]]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 40_000), st.integers(900, 2300)),  # arrival time, rating
        min_size=1,
        max_size=16,
    ),
    st.sets(st.tuples(st.integers(0, 15), st.integers(0, 15)), max_size=5),
)
def test_a_pool_driven_by_arrivals_and_its_timer_keeps_nobody_past_the_limit(arrivals, blocked):
    """Decisions made only when someone arrives and when the plan says the next is due (the
    timer): each player is seated once, and nobody is still waiting past the limit at a
    decision while someone they may sit with waits too, nor kept waiting past it for want of
    a decision."""
    arrivals = sorted(arrivals)
    pending = [
        Waiting(n, rating, since_ms=at, blocks=frozenset(b for a, b in blocked if a == n))
        for n, (at, rating) in enumerate(arrivals)
    ]
    waiting: list[Waiting] = []
    seated: set = set()
    due = None
    while pending or due is not None:
        next_arrival = pending[0].since_ms if pending else None
        now = min(t for t in (next_arrival, due) if t is not None)
        while pending and pending[0].since_ms <= now:
            waiting.append(pending.pop(0))
        plan = plan_tables(waiting, now)
        for table in plan.tables:
            assert not seated & set(table)
            seated |= set(table)
        waiting = [e for e in waiting if e.key not in seated]
        due = plan.next_due_ms
        for one in waiting:
            partners = [o for o in waiting if o is not one and o.key not in one.blocks]
            partners = [o for o in partners if one.key not in o.blocks]
            if partners:
                assert now - one.since_ms < LIMIT, "waiting past the limit beside a partner"
                assert due is not None and due <= one.since_ms + LIMIT, "no timer for the limit"
