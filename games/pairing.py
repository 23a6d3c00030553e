"""Pairing: which of a pool's waiting players sit down together now, planned purely.

A pool is the people waiting for a table of one kind and mode, rated or casual (Play now), or of
one arena tournament. `plan_tables` takes the pool's waiting entries and the time, and says which
tables to seat now and when the next decision is due; it reads no database and writes nothing
(games.pool commits what it plans, in one transaction, like a move).

The rules, with the numbers of `PairingRules()` (ratings on the 1500 scale of games.ratings):

- A table seats 2 to 4 players.
- Each waiting player accepts a rating gap that widens the longer they wait: 100 points at once,
  50 more each second (300 after 4 s, 600 after 10 s).
- A table of 4 starts as soon as 4 players wait each two of whom are within the gap both accept
  (the longest waiting is seated first, with the closest others).
- Once a player has waited 10 s (the wait limit) they take any gap: they sit at once with the
  closest other player in rating, and with up to two more of the closest whose own gap reaches
  them (unless taking one would leave someone with nobody to sit with). Nobody waits past the
  limit while someone they may sit with waits too.
- Two players of whom one blocks the other never sit at one table.
- Ties are broken by who came first, then by key: the same entries and time give the same plan.

`Plan.next_due_ms` is the earliest time a wait crosses a threshold (a gap that makes two players
compatible, or the wait limit), so a timer can be set for it instead of polling.

>>> a = Waiting("a", 1500, since_ms=0)
>>> b = Waiting("b", 1900, since_ms=1000)
>>> plan_tables([a, b], now_ms=2000)
Plan(tables=(), next_due_ms=10000)
>>> plan_tables([a, b], now_ms=10_000)
Plan(tables=(('a', 'b'),), next_due_ms=None)
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field

__all__ = ["PLAY_NOW", "PairingRules", "Plan", "Waiting", "allowed_gap", "plan_tables"]


@dataclass(frozen=True)
class PairingRules:
    """The numbers of a pool: table sizes, the wait limit and how fast the rating gap widens."""

    table_min: int = 2
    table_max: int = 4
    wait_limit_ms: int = 10_000
    base_gap: float = 100.0
    gap_per_s: float = 50.0

    def __post_init__(self) -> None:
        if not 2 <= self.table_min <= self.table_max:
            raise ValueError("a table seats at least 2, and table_max may not be below table_min")
        if self.wait_limit_ms < 0 or self.base_gap < 0 or self.gap_per_s < 0:
            raise ValueError("the wait limit and the gaps are not negative")


PLAY_NOW = PairingRules()


@dataclass(frozen=True)
class Waiting:
    """One player waiting in a pool: a key the caller knows them by (an entry id, an account
    id), their rating, since when they wait (ms), and the keys they must not sit with (their
    blocks, either way: the planner checks both sides)."""

    key: Hashable
    rating: float
    since_ms: int
    blocks: frozenset = field(default_factory=frozenset)


@dataclass(frozen=True)
class Plan:
    """The tables to seat now (each a tuple of keys, longest waiting first) and when the next
    decision is due (None: nothing changes by waiting, e.g. one player alone)."""

    tables: tuple[tuple[Hashable, ...], ...]
    next_due_ms: int | None


def allowed_gap(entry: Waiting, now_ms: int, rules: PairingRules = PLAY_NOW) -> float:
    """The widest rating gap `entry` accepts at `now_ms` (infinite once past the wait limit)."""
    waited = max(0, now_ms - entry.since_ms)
    if waited >= rules.wait_limit_ms:
        return math.inf
    return rules.base_gap + rules.gap_per_s * waited / 1000


def _blocked(a: Waiting, b: Waiting) -> bool:
    return b.key in a.blocks or a.key in b.blocks


def _order(entry: Waiting) -> tuple:
    return (entry.since_ms, repr(entry.key))


def plan_tables(waiting: Iterable[Waiting], now_ms: int, rules: PairingRules = PLAY_NOW) -> Plan:
    """Say which of `waiting` sit down together at `now_ms`, and when to look again.

    Full tables first (each anchored on the longest waiting), then each player past the wait
    limit with the closest others; see the module's docstring for the numbers.
    """
    entries = sorted(waiting, key=_order)
    keys = [e.key for e in entries]
    if len(set(keys)) != len(keys):
        raise ValueError("each waiting entry has its own key")
    gap = {e.key: allowed_gap(e, now_ms, rules) for e in entries}
    free = list(entries)  # still waiting, longest first
    by_rating = sorted(entries, key=lambda e: (e.rating, *_order(e)))  # the same, by rating
    ratings = [e.rating for e in by_rating]
    tables: list[tuple[Hashable, ...]] = []

    def closest(anchor: Waiting, width: float = math.inf) -> list[Waiting]:
        """The others `anchor` may sit with, within `width` of its rating, closest first."""
        near = by_rating
        if width != math.inf:  # a window of the rating order: a large pool is not sorted again
            low = bisect.bisect_left(ratings, anchor.rating - width)
            near = by_rating[low : bisect.bisect_right(ratings, anchor.rating + width)]
        others = [e for e in near if e is not anchor and not _blocked(anchor, e)]
        return sorted(others, key=lambda e: (abs(e.rating - anchor.rating), *_order(e)))

    def fits(table: list[Waiting], newcomer: Waiting) -> bool:
        return all(
            not _blocked(newcomer, member)
            and abs(newcomer.rating - member.rating) <= min(gap[newcomer.key], gap[member.key])
            for member in table
        )

    def seat(table: list[Waiting]) -> None:
        tables.append(tuple(e.key for e in table))
        for member in table:
            free.remove(member)
            index = by_rating.index(member)
            del by_rating[index], ratings[index]

    def full_table() -> list[Waiting] | None:
        for anchor in free:
            table = [anchor]
            # Everyone at a table is within the anchor's own gap of it.
            for other in closest(anchor, gap[anchor.key]):
                if fits(table, other):
                    table.append(other)
                    if len(table) == rules.table_max:
                        return table
        return None

    def overdue_table() -> list[Waiting] | None:
        for anchor in free:
            if gap[anchor.key] != math.inf:
                continue
            table = [anchor]
            for other in closest(anchor):
                if any(_blocked(other, member) for member in table):
                    continue
                near = abs(other.rating - anchor.rating) <= gap[other.key]
                if len(table) >= rules.table_min and (not near or strands(table, other)):
                    continue
                table.append(other)
                if len(table) == rules.table_max:
                    break
            if len(table) >= rules.table_min:
                return table
        return None

    def strands(table: list[Waiting], extra: Waiting) -> bool:
        """Whether taking `extra` to the table leaves someone who waits with nobody to sit
        with, who would have had `extra`."""
        rest = [e for e in free if e not in table and e is not extra]
        return any(
            not _blocked(one, extra)
            and not any(not _blocked(one, other) for other in rest if other is not one)
            for one in rest
        )

    # Full tables first, then whoever waited past the limit, until nobody more sits down (a
    # table seated may leave the rest a full table they did not have).
    while (table := full_table() or overdue_table()) is not None:
        seat(table)

    return Plan(tuple(tables), _next_due(free, now_ms, rules))


def _next_due(free: list[Waiting], now_ms: int, rules: PairingRules) -> int | None:
    """The earliest time after `now_ms` a wait among `free` crosses a threshold: someone's wait
    limit (when they have someone to sit with) or, when enough wait for a full table, two
    players' gaps reaching each other (only pairs within the widest gap before the limit: a
    wider pair fits only once both have reached their limits, which are due times already)."""
    due: list[int] = []
    for a in free:
        if any(b is not a and not _blocked(a, b) for b in free):
            limit = a.since_ms + rules.wait_limit_ms
            if limit > now_ms:
                due.append(limit)
    if len(free) >= rules.table_max:
        widest = rules.base_gap + rules.gap_per_s * rules.wait_limit_ms / 1000
        by_rating = sorted(free, key=lambda e: e.rating)
        for i, a in enumerate(by_rating):
            for b in by_rating[i + 1 :]:
                diff = b.rating - a.rating
                if diff > widest:
                    break
                if _blocked(a, b):
                    continue
                when = max(_reach_ms(a, diff, rules), _reach_ms(b, diff, rules))
                if when > now_ms:
                    due.append(when)
    return min(due) if due else None


def _reach_ms(entry: Waiting, diff: float, rules: PairingRules) -> int:
    """When `entry`'s gap first reaches `diff` (at the latest, its wait limit)."""
    if diff <= rules.base_gap:
        return entry.since_ms
    if rules.gap_per_s == 0:
        return entry.since_ms + rules.wait_limit_ms
    waited = math.ceil((diff - rules.base_gap) / rules.gap_per_s * 1000)
    return entry.since_ms + min(waited, rules.wait_limit_ms)
