"""The multiplayer Set table: its typed state, the shared rules and the "declare" rule set.

The authority is ``specs/set-table-protocol.md``; section numbers below (§4, §6, ...) refer to it.
Everything here is pure Python: a table's state is a frozen dataclass (`DeclareState`,
`ClassicState`) whose JSON form (`TableState.to_json`, `TableState.from_json`) is what the
platform stores; time comes in as Unix milliseconds (``now_ms``) and randomness as a seed, so the
platform can store, replay and lock games as it likes. No state ever changes; each action returns
a new one, sharing every part it did not change with the state before, so an action that raises
`TableError` leaves the game exactly as it was.

The modules: `~cards.engine.table.state` (the state and its JSON form),
`~cards.engine.table.codes` (cards as int codes and their texts), `~cards.engine.table.shared`
(what both rule sets do alike), `~cards.engine.table.declare` (the declare rule set);
`cards.engine.classic` holds the classic rule set, which `~cards.engine.table.modes` (UltraSet,
Set-Chain, the puzzle) and `~cards.engine.table.ways` (their options, hints, counts and views)
let it play in other ways.

The platform drives a table through `DeclareRules` (and `cards.engine.classic.ClassicRules`, the
physical game, with the same methods):

- `DeclareRules.new_state` deals a fresh table;
- `DeclareRules.apply` handles one player's action and returns a `Result`
  ``(state, outcome, event)``; ``event`` tells whether ``/watch`` waiters wake (§9);
- `DeclareRules.tick` applies what time alone has done (declare timeouts, away players completing
  an add agreement) and `DeclareRules.next_deadline` says when that will next happen;
- `DeclareRules.touch` marks a player present without any other effect (a pending ``/watch``
  counts as a request, §7), cheaply and without an event;
- `DeclareRules.view` draws the table for one viewer as JSON; ``cards.engine.protocol_text``
  draws the plain-text BOARD and SCORES replies.

>>> state = DeclareRules.new_state(options={"attributes": 3}, seed=4, now_ms=0)
>>> state = DeclareRules.apply(state, "ann", {"type": "declare"}, 100).state
>>> state.declaring
Declaring(declarer='ann', deadline=5100, queue=(), picks=())
>>> late = DeclareRules.tick(state, 5100)
>>> late.outcome["expired"][0]["kind"], late.state.declaring, late.state.tally["ann"]
('timeout', None, Tally(sets=0, hinted=0, wrong=0, timeouts=1, hints=0))

Choices where the spec is silent (this package's rules):

- **Hints** cost no points but are marked. A hint shows the asking player one card of a set on the
  board (its card and position); asking again while that set is still on the board shows the same
  card. When a player scores a set containing a card they were shown, the set counts as *hinted*:
  the outcome says so, the tally counts it and the final result shows hinted sets per player.
  A hint is not a §9 event and joins a new player like every other declare-table action.
- **Away players and votes**: the add agreement needs at least one recorded vote and a vote from
  every present player (an away voter's vote still counts, §7). When the last present non-voter
  becomes away, the cards are added at that moment.
- **A table whose fixed test deck leaves no set and no cards** at creation is over at once (the
  end-of-game test of §8 also runs when a table is dealt).
- **A finished table** answers everything with its final state and changes nothing (§8), but a
  pick still has to name a position on the final board, otherwise it is refused with the §5
  message (an off-board pick is an error whatever the table's state).
- **Player names** are letters and digits of any script, ``_`` and ``-``, in every rule set;
  the text protocol's own grammar, ``[A-Za-z0-9_]+``, is checked by the protocol.
- **Unknown options** are refused, so a typo never silently falls back to a default.
"""

from cards.engine.table.base import (
    AWAY_MS,
    BAD_NAME,
    BAD_PICK,
    DECLARE_MS,
    MAX_CLOCK_MS,
    PENALTY_POINTS,
    SET_POINTS,
    TableError,
)
from cards.engine.table.declare import DeclareRules
from cards.engine.table.shared import Result, is_player_name, is_present
from cards.engine.table.state import (
    ClassicState,
    DeclareState,
    Declaring,
    Hint,
    Position,
    RuleSet,
    TableState,
    Tally,
)

__all__ = [
    "AWAY_MS",
    "BAD_NAME",
    "BAD_PICK",
    "DECLARE_MS",
    "MAX_CLOCK_MS",
    "PENALTY_POINTS",
    "SET_POINTS",
    "ClassicState",
    "DeclareRules",
    "DeclareState",
    "Declaring",
    "Hint",
    "Position",
    "Result",
    "RuleSet",
    "TableError",
    "TableState",
    "Tally",
    "is_player_name",
    "is_present",
]
