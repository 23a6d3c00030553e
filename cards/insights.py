"""Insights of a Set player: where their sets come quickly or slowly, where they claim wrong, and
the kinds of set they miss, from their finished games' move logs.

Each finished game is replayed once with the engine (`game_figures`): for every claim of three
cards, its kind (how many attributes differ, `cards.engine.table.kinds`), the board's size when it
was made, the time since the last deal and, for a set, the seconds it took; and for every player,
the sets of each kind on the boards they saw. `summarise` sums one player's figures over their
last games into the splits a profile draws (kind of set, board size, time since the last deal),
a trend over the games in chunks, and the kinds they miss most, with the options of a practice
table that deals those more often.

Definitions (the profile page says them too):

- **seconds per set**: from the previous set taken at the table (by anyone) or the deal that
  started the game, to the set;
- **time since the last deal**: from the last time cards came to the board (the first deal, the
  cards that replaced a set, three more dealt when there was no set) to the claim, in the buckets
  `DEAL_BUCKETS`;
- **board size**: the cards on the board when the claim was made: 12 or fewer, 13 to 15, 18+;
- **missed**: a kind is missed when its share of the player's sets is below its share of the
  sets that were on the boards they saw (each board counted once, from when it was dealt to its
  next change, while they sat at the table); the kinds with the lowest ratio are missed most.

Only games of the normal mode count (classic or declare rules), and not practice tables nor
tables that favour kinds of set, whose deals are not like the others.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from cards.engine.table.codes import stored_codes
from cards.engine.table.kinds import differing, kind_key, sets_by_kind

#: The board sizes a claim is put in: (its key, its name for people, the largest size in it).
BOARD_BUCKETS = (
    ("12", "12 cards or fewer", 12),
    ("15", "13 to 15 cards", 15),
    ("18+", "18 cards or more", None),
)
#: The times since the last deal a claim is put in: (key, name, the bucket's end in ms).
DEAL_BUCKETS = (
    ("0-5", "0–5 s", 5_000),
    ("5-15", "5–15 s", 15_000),
    ("15-30", "15–30 s", 30_000),
    ("30+", "30 s+", None),
)
#: What each figure means, in a sentence each (the page and the API say them).
DEFINITIONS = {
    "kind": "A kind of set is how many attributes differ among its three cards (for a wrong "
    "claim: how many are not all alike); sets differing in one attribute are the rarest.",
    "seconds_per_set": "Seconds per set: from the previous set taken at the table, by anyone, "
    "or from the first deal, to the set.",
    "since_deal": "Time since the last deal: from the last time cards came to the board (the "
    "first deal, the cards replacing a set, three more when there was none) to the claim.",
    "board": "Board size: the cards on the board when the claim was made.",
    "wrong_share": "Wrong claims: the share of one's claims that were not sets.",
    "missed": "Missed: a kind's share of your sets, against its share of the sets on the boards "
    "you saw (each board counted once, while you sat at the table); the lower that ratio, the "
    "more you miss the kind. Only the normal game counts: not practice, other modes, nor tables "
    "that deal some kinds more often.",
    "halves": "Earlier and later: the older and the newer half of the games looked at.",
}
#: Each bucket's name on a chart's axis, where room is short (a deal bucket's is its name).
SHORT = {
    "12": "≤12",
    "15": "15",
    "18+": "18+",
    **{f"differ-{count}": f"differ {count}" for count in range(1, 6)},
}
TREND_CHUNKS = 10
MISSED_SHOWN = 3


def board_bucket(size: int) -> str:
    """Return the key of the board-size bucket of a board of ``size`` cards.

    >>> board_bucket(9), board_bucket(12), board_bucket(15), board_bucket(21)
    ('12', '12', '15', '18+')
    """
    for key, _, largest in BOARD_BUCKETS:
        if largest is None or size <= largest:
            return key
    raise AssertionError("the last bucket takes every size")


def deal_bucket(since_ms: int) -> str:
    """Return the key of the time-since-the-last-deal bucket of a claim ``since_ms`` after it.

    >>> [deal_bucket(ms) for ms in (0, 4_999, 5_000, 29_999, 30_000)]
    ['0-5', '0-5', '5-15', '15-30', '30+']
    """
    for key, _, end in DEAL_BUCKETS:
        if end is None or since_ms < end:
            return key
    raise AssertionError("the last bucket takes every time")


def counts_for_insights(options: dict) -> bool:
    """Whether a finished table of these options counts in insights."""
    return (
        options.get("practice") is not True
        and options.get("mode", "normal") == "normal"
        and "favour" not in options
    )


def game_figures(engine, options: dict, seed: int, created_ms: int, moves) -> dict | None:
    """Replay one finished game with its engine and return each player's figures, or None for a
    game that does not count (`counts_for_insights`).

    ``moves`` are its log as ``(actor, action, outcome, at_ms)`` in order. A player's figures:
    ``attributes``; ``sets``, one ``[kind, board size, ms since the last deal, ms it took]`` per
    set; ``wrong``, one ``[kind, board size, ms since the last deal]`` per wrong claim; ``seen``,
    the sets of each kind (its count of differing attributes, as text) on the boards they saw.
    """
    if not counts_for_insights(options):
        return None
    engine_options = {key: value for key, value in options.items() if key != "rules"}
    state = engine.new_state(options=engine_options, seed=seed, now_ms=created_ms)
    attributes = state.attributes
    read = stored_codes(attributes)
    figures: dict[str, dict[str, Any]] = {}
    board: tuple[int, ...] = ()
    dealt_ms = previous_ms = None

    def player(name: str) -> dict[str, Any]:
        return figures.setdefault(
            name, {"attributes": attributes, "sets": [], "wrong": [], "seen": Counter()}
        )

    def follow(new_state, at_ms: int) -> None:
        """Note a change of board: when cards came, and the sets each seated player saw."""
        nonlocal board, dealt_ms, previous_ms
        cards = new_state.board_cards
        if cards == board:
            return
        if set(cards) - set(board):
            dealt_ms = new_state.started_ms if not board else at_ms
            if previous_ms is None:
                previous_ms = dealt_ms
        board = cards
        if cards and not new_state.over:
            kinds = sets_by_kind(cards, attributes)
            for name in new_state.scores:
                player(name)["seen"].update(kinds)

    follow(state, created_ms)
    for actor, action, outcome, at_ms in moves:
        kind = action.get("type")
        if state.waiting and state.starts_ms is not None and state.starts_ms <= at_ms:
            state = engine.tick(state, at_ms).state  # the deal the move would make first
            follow(state, at_ms)
        before = board
        joined = kind == "join" and actor not in state.scores
        if kind == "tick":
            state = engine.tick(state, at_ms).state
        else:
            state = engine.apply(
                state, actor, {"type": "join"} if kind == "join" else action, at_ms
            ).state
        verdict = outcome.get("claim") or outcome.get("pick")
        if verdict in ("set", "not_set") and len(outcome.get("cards") or ()) == 3:
            cards = read(outcome["cards"])
            since = at_ms - (dealt_ms if dealt_ms is not None else at_ms)
            row = [differing(cards, attributes), len(before), since]
            if verdict == "set":
                row.append(at_ms - (previous_ms if previous_ms is not None else at_ms))
                player(actor)["sets"].append(row)
                previous_ms = at_ms
            else:
                player(actor)["wrong"].append(row)
        follow(state, at_ms)
        if joined and board and not state.over:
            player(actor)["seen"].update(sets_by_kind(board, attributes))
    for name in state.scores:
        player(name)
    return {
        name: {**values, "seen": {str(k): n for k, n in sorted(values["seen"].items())}}
        for name, values in figures.items()
    }


def _mean_seconds(rows: Sequence[list]) -> float | None:
    return round(sum(row[3] for row in rows) / len(rows) / 1000, 2) if rows else None


def _cell(sets: Sequence[list], wrong: Sequence[list]) -> dict[str, Any]:
    claims = len(sets) + len(wrong)
    return {
        "sets": len(sets),
        "seconds_per_set": _mean_seconds(sets),
        "wrong_claims": len(wrong),
        "wrong_share": round(len(wrong) / claims, 3) if claims else None,
    }


def _split(
    key_of, buckets: Iterable[tuple[str, str]], halves: list[tuple[list, list]]
) -> list[dict[str, Any]]:
    """One row per bucket: the whole window's figures, then its earlier and later halves'."""
    rows = []
    for key, label in buckets:
        short = SHORT.get(key) or label
        parts = [
            ([r for r in sets if key_of(r) == key], [r for r in wrong if key_of(r) == key])
            for sets, wrong in halves
        ]
        whole = (parts[0][0] + parts[1][0], parts[0][1] + parts[1][1])
        rows.append(
            {
                "key": key,
                "label": label,
                "short": short,
                **_cell(*whole),
                "earlier": _cell(*parts[0]),
                "later": _cell(*parts[1]),
            }
        )
    return rows


def kind_label(count: int) -> str:
    return f"{count} attribute{'' if count == 1 else 's'} differ{'s' if count == 1 else ''}"


def summarise(games: Sequence[dict]) -> dict[str, Any]:
    """Sum one player's figures over their games (newest first) into what a profile shows:
    ``totals``; ``splits`` (by kind of set, board size and time since the last deal), each row
    with the whole window's sets, seconds per set, wrong claims and their share of claims, and the
    same for the window's ``earlier`` and ``later`` halves; ``trend`` (the games oldest first in
    up to `TREND_CHUNKS` chunks); ``missed`` (up to `MISSED_SHOWN` kinds, most missed first) and
    ``practice`` (the options of a practice table that deals them more often, or None)."""
    oldest_first = list(reversed(games))
    attributes = max((game["attributes"] for game in games), default=4)
    middle = len(oldest_first) // 2
    halves = []
    for part in (oldest_first[:middle], oldest_first[middle:]):
        halves.append(([r for g in part for r in g["sets"]], [r for g in part for r in g["wrong"]]))
    sets = halves[0][0] + halves[1][0]
    wrong = halves[0][1] + halves[1][1]
    kinds = [(kind_key(count), kind_label(count)) for count in range(1, attributes + 1)]
    splits = [
        {
            "key": "kind",
            "title": "By kind of set",
            "rows": _split(lambda row: kind_key(row[0]), kinds, halves),
        },
        {
            "key": "board",
            "title": "By board size",
            "rows": _split(
                lambda row: board_bucket(row[1]), [(k, n) for k, n, _ in BOARD_BUCKETS], halves
            ),
        },
        {
            "key": "since_deal",
            "title": "By time since the last deal",
            "rows": _split(
                lambda row: deal_bucket(row[2]), [(k, n) for k, n, _ in DEAL_BUCKETS], halves
            ),
        },
    ]
    trend = []
    size = -(-len(oldest_first) // TREND_CHUNKS) if oldest_first else 1
    for start in range(0, len(oldest_first), size):
        chunk = oldest_first[start : start + size]
        trend.append(
            {
                "games": [start + 1, start + len(chunk)],
                **_cell(
                    [r for g in chunk for r in g["sets"]], [r for g in chunk for r in g["wrong"]]
                ),
            }
        )
    missed = _missed(games, sets, attributes)
    practice = None
    if missed:
        favour = sorted(row["key"] for row in missed)
        practice = {
            "rules": "classic",
            "practice": True,
            "attributes": max(4, attributes),
            "favour": favour,
        }
        if len(favour) >= practice["attributes"]:  # favouring every kind favours none
            practice["favour"] = favour[: practice["attributes"] - 1]
    return {
        "definitions": DEFINITIONS,
        "totals": {"games": len(games), **_cell(sets, wrong)},
        "splits": splits,
        "trend": trend,
        "missed": missed,
        "practice": practice,
    }


def _missed(games: Sequence[dict], sets: Sequence[list], attributes: int) -> list[dict[str, Any]]:
    seen: Counter[int] = Counter()
    for game in games:
        seen.update({int(kind): count for kind, count in game["seen"].items()})
    found = Counter(row[0] for row in sets)
    total_seen, total_found = sum(seen.values()), sum(found.values())
    if not total_seen or not total_found:
        return []
    rows = []
    for count in range(1, attributes + 1):
        if not seen[count]:
            continue
        found_share = found[count] / total_found
        seen_share = seen[count] / total_seen
        rows.append(
            {
                "key": kind_key(count),
                "label": kind_label(count),
                "sets_found": found[count],
                "sets_seen": seen[count],
                "found_share": round(found_share, 3),
                "seen_share": round(seen_share, 3),
                "ratio": round(found_share / seen_share, 3),
            }
        )
    rows.sort(key=lambda row: (row["ratio"], row["key"]))
    return rows[:MISSED_SHOWN]
