"""Record the stored Set table games that tests/cards/test_table_replay.py replays.

Each JSON file beside this script is one game as the platform stores it: its options (checked
by ``SetTable.options``, "rules" included), seed, creation time and move log (actor, the action
as the rules read it, ``at_ms``, and the outcome), then the snapshot the game row holds. For the
test, each move also keeps what the rules said of the state after it (its digest, status, next
deadline, the spectator's view and the computers' actions, as short digests), a few refused
actions keep their error, and the end keeps its views and protocol replies in full.

The files were made by the engine of commit b8a4a56, the last one that kept a table's state as
a dict of card texts (``copy_state`` on every move), so that the typed engine after it is checked
against what games stored before it. This script, as it is now, plays the same games on the
current engine and writes the same files byte for byte; do not remake them unless a rule changes
on purpose::

    DJANGO_SETTINGS_MODULE=config.settings .venv/bin/python tests/cards/set_table_games/make.py

The recording plays like the platform (``games.planning``): a due deadline is ticked first (a
logged ``tick`` move by nobody), a join is always logged, and an action only when it changed
the state; a refused action changes nothing and is not logged.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
T = 1_700_000_000_000


def digest(data) -> str:
    """Return a short digest of ``data``'s compact JSON, keys in their own order."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


class Recorder:
    """Play one game through the platform's adapter and keep what the platform would store."""

    def __init__(self, name: str, options: dict, seed: int, created_ms: int = T) -> None:
        from cards.rules import SetTable

        self.name = name
        self.rules = SetTable()
        self.options = self.rules.options(options)
        self.seed = seed
        self.created_ms = created_ms
        self.state = self.rules.new(options=self.options, seed=seed, now_ms=created_ms)
        self.players: list[str] = []
        self.moves: list[dict] = []
        self.refused: list[dict] = []
        self.now = created_ms

    @property
    def declare(self) -> bool:
        return self.options["rules"] == "declare"

    def _log(self, actor: str, action: dict, result, at: int) -> None:
        self.state = result.state
        rules = self.rules
        after = {
            "state": digest(self.state),
            "status": rules.status(self.state),
            "next_deadline": rules.next_deadline(self.state),
            "view": digest(rules.view(self.state, None, at)),
            "bots": digest({p: rules.bot_actions(self.state, p) for p in self.players}),
        }
        if self.players:
            seat = self.players[len(self.moves) % len(self.players)]
            after["seat_view"] = [seat, digest(rules.view(self.state, seat, at))]
        if self.declare:
            from cards.engine.protocol_text import board_text, scores_text
            from cards.rules import table_state

            typed = table_state(self.state)
            after["texts"] = digest(
                [board_text(typed, p) for p in [None, *self.players]] + [scores_text(typed)]
            )
        self.moves.append(
            {
                "actor": actor,
                "action": action,
                "at_ms": at,
                "outcome": result.outcome,
                "event": result.event,
                "after": after,
            }
        )

    def due(self, now: int) -> None:
        """Tick when the rules' deadline has passed (the platform's plan_due)."""
        deadline = self.rules.next_deadline(self.state)
        if deadline is None or now < deadline or self.rules.status(self.state) == "over":
            return
        result = self.rules.tick(self.state, now)
        if result.state != self.state:
            self._log("", {"type": "tick"}, result, now)

    def wait(self, ms: int) -> int:
        self.now += ms
        return self.now

    def join(self, name: str, dt: int = 100) -> None:
        now = self.wait(dt)
        self.due(now)
        result = self.rules.join(self.state, name, now)
        self.players.append(name)
        self._log(name, {"type": "join"}, result, now)

    def act(self, name: str, action: dict, dt: int = 100, *, tick_first: bool = True):
        """Apply one action as the platform would; return the outcome, or the error's code."""
        now = self.wait(dt)
        if tick_first:
            self.due(now)
        try:
            result = self.rules.apply(self.state, name, action, now)
        except ValueError as error:
            self.refused.append(
                {
                    "after_moves": len(self.moves),
                    "actor": name,
                    "action": action,
                    "at_ms": now,
                    "code": getattr(error, "code", None),
                    "message": str(error),
                }
            )
            return getattr(error, "code", "error")
        if name not in self.players and result.outcome.get("joined"):
            self.players.append(name)
        if result.state != self.state:
            self._log(name, result.action or action, result, now)
        return result.outcome

    # -- helpers for the scripts --------------------------------------------------------------

    def board_cells(self) -> list[tuple[object, str]]:
        """Return (position, card) pairs: (row, col) on a declare table, index on a classic."""
        board = self.state["board"]
        if self.declare:
            return [((r, c), text) for r, row in enumerate(board) for c, text in enumerate(row)]
        return list(enumerate(board))

    def a_set(self) -> list[tuple[object, str]] | None:
        from cards.engine import find_set, parse_card

        cells = self.board_cells()
        attributes = self.state["attributes"]
        found = find_set([parse_card(text, attributes) for _, text in cells])
        if found is None:
            return None
        texts = {card.protocol for card in found}
        return [cell for cell in cells if cell[1] in texts]

    def not_a_set(self) -> list[tuple[object, str]]:
        from cards.engine import is_set, parse_card

        cells = self.board_cells()
        for i in range(len(cells)):
            for j in range(i + 1, len(cells)):
                for k in range(j + 1, len(cells)):
                    triple = [cells[i], cells[j], cells[k]]
                    cards = [parse_card(t, self.state["attributes"]) for _, t in triple]
                    if not is_set(*cards):
                        return triple
        raise AssertionError("every triple is a set")

    def pick(self, name: str, cells, dt: int = 100, **kwargs) -> None:
        for (r, c), _ in cells:
            self.act(name, {"type": "pick", "row": r, "col": c}, dt, **kwargs)

    def take_set_declare(self, name: str, dt: int = 100) -> bool:
        found = self.a_set()
        if found is None:
            return False
        if self.state["declarer"] != name:
            self.act(name, {"type": "declare"}, dt)
        self.pick(name, found, dt)
        return True

    def claim(self, name: str, cells, dt: int = 100):
        return self.act(name, {"type": "claim", "cards": [t for _, t in cells]}, dt)

    def finish(self) -> dict:
        """Return the record: the game as stored, and what the test checks beside it."""
        from cards.engine.protocol_text import board_text, scores_text
        from cards.rules import table_state

        end = self.now + 1
        views = {p or "": self.rules.view(self.state, p, end) for p in [None, *self.players]}
        record = {
            "name": self.name,
            "kind": "set",
            "options": self.options,
            "seed": self.seed,
            "created_ms": self.created_ms,
            "moves": self.moves,
            "state": self.state,
            "refused": self.refused,
            "end": {"at_ms": end, "views": views},
        }
        if self.declare:
            typed = table_state(self.state)
            record["end"]["board_text"] = {p or "": board_text(typed, p) for p in views}
            record["end"]["scores_text"] = scores_text(typed)
        return record


# -- the games ---------------------------------------------------------------------------------


def declare_tour(g: Recorder) -> None:
    """Every declare rule once: hints, queue, deselect, wrong picks, timeouts, votes, reflow."""
    for name in ("ann", "bo", "cy"):
        g.join(name)
    g.act("ann", {"type": "hint"})
    g.act("ann", {"type": "hint"})  # the same card again
    g.act("bo", {"type": "count"})
    g.act("ann", {"type": "declare"})
    g.act("bo", {"type": "declare"})  # queued
    g.act("bo", {"type": "declare"})  # already queued
    found = g.a_set()
    g.pick("cy", found[:1])  # not the declarer: ignored (but seen)
    g.pick("ann", found[:2])
    g.pick("ann", found[1:2])  # deselect
    g.pick("ann", found[1:])  # a set, with ann's hinted card: a hinted set
    g.act("bo", {"type": "declare"})
    g.pick("bo", g.not_a_set())  # wrong: -5 from 0 stays 0
    g.act("cy", {"type": "declare"})
    g.act("ann", {"type": "declare"}, 50)
    g.act("cy", {"type": "look"}, 6000)  # cy timed out; ann declares at cy's deadline + 5000
    g.act("bo", {"type": "watch"}, 5500)  # ann timed out too
    g.act("bo", {"type": "pick", "row": 3, "col": 0})  # off the board: refused
    g.act("bo", {"type": "pick", "row": 0, "col": 99})
    g.act("bo", {"type": "pick", "row": True, "col": 0})
    g.act("bo", {"type": "fly"})
    g.act("bad name!", {"type": "look"})
    # Votes: everyone present agrees, the board grows by a column.
    g.act("ann", {"type": "add"})
    g.act("ann", {"type": "add"})  # repeated
    g.act("bo", {"type": "add"})
    g.act("cy", {"type": "add"})
    assert len(g.state["board"][0]) == 5, g.state["board"]
    g.act("cy", {"type": "hint"})
    g.take_set_declare("cy")  # from a board of 5 columns: the board reflows to 4
    assert len(g.state["board"][0]) == 4
    # A newcomer joins by acting; a pick by the declarer, then time runs out mid-pick.
    g.act("dee", {"type": "declare"})
    g.pick("dee", g.a_set()[:2])
    g.act("ann", {"type": "declare"})
    g.act("dee", {"type": "look"}, 12_000, tick_first=False)  # the apply runs the timeouts
    # Away players: only dee stays; her vote adds the cards once the others are away (a tick).
    for name, dt in (("ann", 30_000), ("bo", 100), ("cy", 100)):
        g.act(name, {"type": "look"}, dt)
    g.act("dee", {"type": "add"})
    g.now += 25_000
    g.due(g.now)  # the agreement completes at the last non-voter's away time
    g.act("dee", {"type": "look"})
    g.act("dee", {"type": "hint"})
    g.take_set_declare("dee")
    g.act("ann", {"type": "look"})  # back from away
    g.take_set_declare("ann", 40)


def declare_to_the_end(g: Recorder) -> None:
    """Play until the deck is out and no set is left; then a finished table changes nothing."""
    for name in ("ann", "bo"):
        g.join(name)
    turn = 0
    while g.state["over"] is False:
        turn += 1
        name = ("ann", "bo")[turn % 2]
        if turn % 7 == 0:
            g.act(name, {"type": "hint"})
        if turn % 11 == 0:
            g.act(name, {"type": "declare"})
            g.pick(name, g.not_a_set())
            continue
        if not g.take_set_declare(name, 300):
            for voter in ("ann", "bo"):
                g.act(voter, {"type": "add"}, 200)
    for kind in ("look", "declare", "add", "hint", "count", "watch"):
        g.act("ann", {"type": kind})
    g.act("zed", {"type": "look"})  # nobody joins a finished table
    if g.state["board"] and g.state["board"][0]:
        g.act("bo", {"type": "pick", "row": 0, "col": 0})
    g.act("bo", {"type": "pick", "row": 0, "col": 40})


def classic_tour(g: Recorder) -> None:
    """Every classic rule once: hints, lockouts, release, races, removal, the end."""
    for name in ("ann", "bo", "cy"):
        g.join(name)
    g.act("dee", {"type": "claim", "cards": ["x", "y", "z"]})  # not seated
    g.act("dee", {"type": "look"})  # not seated: nothing
    g.act("ann", {"type": "hint"})
    g.act("ann", {"type": "count"})
    g.act("ann", {"type": "look"}, 30_000)
    wrong = g.not_a_set()
    g.claim("bo", wrong)  # locked out
    g.claim("bo", g.a_set())  # still locked: refused
    g.claim("cy", wrong)  # locked out too
    g.act("cy", {"type": "hint"})
    found = g.a_set()
    g.claim("ann", found)  # a hinted set; everyone released
    g.claim("bo", found)  # just taken
    g.claim("bo", [(0, "ONE/RED/SOLID/OVAL")] * 3)  # the same card three times
    g.claim("bo", [(0, "NINE/RED/SOLID/OVAL")] + found[1:])
    g.act("bo", {"type": "claim", "cards": ["ONE/RED/SOLID/OVAL"]})
    g.act("bo", {"type": "fly"})
    # Everyone errs: all lockouts lift.
    for name in ("ann", "bo", "cy"):
        g.claim(name, g.not_a_set())
    turn = 0
    while not g.state["over"]:
        turn += 1
        name = ("ann", "bo", "cy")[turn % 3]
        if turn % 5 == 0:
            g.act(name, {"type": "hint"})
        if turn % 9 == 0:
            g.claim(name, g.not_a_set())
            continue
        found = g.a_set()
        g.claim(name, found, 700)
    g.act("ann", {"type": "join"})
    g.act("ann", {"type": "look"})
    g.act("ann", {"type": "hint"})
    g.claim("ann", [(0, "ONE/RED/SOLID/OVAL"), (1, "ONE/RED/SOLID/OVAL"), (2, "x")])


def classic_small(g: Recorder) -> None:
    """A small board: sets removed from a grown board, cards dealt while there is no set."""
    g.join("solo")
    g.join("duo")
    turn = 0
    while not g.state["over"]:
        turn += 1
        if turn % 4 == 0:
            g.act("solo", {"type": "hint"})
        g.claim(("solo", "duo")[turn % 2], g.a_set(), 900)


GAMES = [
    ("declare_tour", {"rules": "declare", "away_ms": 20_000}, 20240501, declare_tour),
    ("declare_3_to_the_end", {"rules": "declare", "attributes": 3}, 7, declare_to_the_end),
    (
        "declare_4_to_the_end",
        {"rules": "declare", "declare_ms": 2000, "away_ms": 90_000},
        99,
        declare_to_the_end,
    ),
    ("classic_tour", {"rules": "classic"}, 31337, classic_tour),
    ("classic_3_small", {"rules": "classic", "attributes": 3, "board_size": 6}, 5, classic_small),
    (
        "classic_5",
        {"rules": "classic", "attributes": 5, "board_size": 12, "away_ms": 5000},
        3,
        classic_small,
    ),
]


def main() -> None:
    sys.path.insert(0, str(HERE.parents[2]))
    import django

    django.setup()
    for name, options, seed, script in GAMES:
        recorder = Recorder(name, options, seed)
        script(recorder)
        record = recorder.finish()
        path = HERE / f"{name}.json"
        path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        print(f"{path.name}: {len(record['moves'])} moves, {len(record['refused'])} refused")


if __name__ == "__main__":
    main()
