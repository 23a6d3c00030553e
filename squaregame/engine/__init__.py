"""The Square Game engine: pure Python, no Django (spec: ``shared/specs/squaregame.md``).

The platform talks to the game through a handful of functions over an immutable
:class:`GameState`:

>>> state = new_game(2, seed=1)
>>> state, outcome = apply(state, 2, {"type": "place", "piece": 13, "permutation": 4,
...                                   "x": 15, "y": 15})
>>> outcome["status"], outcome["to_move"]
(2, 1)
>>> len(legal_placements(state))
135
>>> GameState.from_dict(state.to_dict()) == state
True
"""

from squaregame.engine.board import OPENING_POINT, SIZE
from squaregame.engine.bot import choose_move
from squaregame.engine.errors import SaveFormatError, SquareGameError
from squaregame.engine.game import (
    PASS,
    apply,
    has_legal_placement,
    is_legal,
    iter_placements,
    leave,
    legal_placements,
    new_game,
    play,
    report,
    start_from_board,
    view,
)
from squaregame.engine.pieces import (
    PERMUTATIONS,
    PIECE_CODES,
    PIECE_LETTERS,
    Point,
    Segment,
    piece_segments,
    piece_shapes,
    transform,
)
from squaregame.engine.runner import SuiteReport, run_suite
from squaregame.engine.saves import (
    DEFAULT_PLAYERS,
    Replay,
    TestResult,
    dumps_save,
    from_save_json,
    load,
    replay,
    run_test_file,
    to_save_json,
)
from squaregame.engine.state import (
    Action,
    ActionType,
    GameState,
    IllegalMoveError,
    Move,
    Outcome,
    Placement,
    PlacementKind,
    Played,
    Reason,
    Status,
)

__all__ = [
    "DEFAULT_PLAYERS",
    "OPENING_POINT",
    "PASS",
    "PERMUTATIONS",
    "PIECE_CODES",
    "PIECE_LETTERS",
    "SIZE",
    "Action",
    "ActionType",
    "GameState",
    "IllegalMoveError",
    "Move",
    "Outcome",
    "Placement",
    "PlacementKind",
    "Played",
    "Point",
    "Reason",
    "Replay",
    "SaveFormatError",
    "Segment",
    "SquareGameError",
    "Status",
    "SuiteReport",
    "TestResult",
    "apply",
    "choose_move",
    "dumps_save",
    "from_save_json",
    "has_legal_placement",
    "is_legal",
    "iter_placements",
    "leave",
    "legal_placements",
    "load",
    "new_game",
    "piece_segments",
    "piece_shapes",
    "play",
    "replay",
    "report",
    "run_suite",
    "run_test_file",
    "start_from_board",
    "to_save_json",
    "transform",
    "view",
]
