"""The original simulator's JSON save and test formats (spec §14-§16).

A save is ``{"board": [...], "moves": [...]}``; a test adds ``"expect"``, the status codes that
replaying the moves must give. Neither records the player count: loading takes it as a
parameter, 4 by default, as the original did.

>>> save = {"board": [], "moves": [
...     {"piece_num": 13, "permutation": 4},
...     {"type": 0, "player_num": 1},
...     {"type": 1, "player_num": 2, "piece_num": 9, "permutation": 1, "x": 16, "y": 16},
...     {"type": 0, "player_num": 2}]}
>>> load(save)
[2, 0, 1, 0]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from squaregame.engine.errors import SaveFormatError, SquareGameError
from squaregame.engine.game import new_game, play, start_from_board
from squaregame.engine.state import (
    ActionType,
    GameState,
    Outcome,
    PlacementKind,
    Reason,
    Status,
)

DEFAULT_PLAYERS = 4
"""The player count of a loaded game or test when none is given (the original's)."""

BOARD_FIELDS = ("player_num", "piece_num", "permutation", "x", "y")


def to_save_json(state: GameState) -> dict[str, Any]:
    """Return ``state`` in the original save format; the game itself is not altered.

    ``moves`` lists the successful actions only: the opening as ``{piece_num,
    permutation}``, placements with ``type`` 1 and passes with ``type`` 0. A game started
    from a preloaded board saves those pieces in ``board`` and has no opening entry.
    """
    board = [
        {
            "player_num": p.seat,
            "piece_num": p.piece,
            "permutation": p.permutation,
            "x": p.x,
            "y": p.y,
        }
        for p in state.placements
        if p.kind is PlacementKind.PRELOAD
    ]
    moves: list[dict[str, Any]] = []
    for played in state.history:
        action = played.action
        if action.type is ActionType.OPENING:
            moves.append({"piece_num": action.piece, "permutation": action.permutation})
        elif action.type is ActionType.PLACE:
            moves.append(
                {
                    "type": 1,
                    "player_num": played.seat,
                    "piece_num": action.piece,
                    "permutation": action.permutation,
                    "x": action.x,
                    "y": action.y,
                }
            )
        else:
            moves.append({"type": 0, "player_num": played.seat})
    return {"board": board, "moves": moves}


def dumps_save(state: GameState) -> str:
    """Return ``state`` as save-file text, indented by 4 as the original wrote it."""
    return json.dumps(to_save_json(state), indent=4)


@dataclass(frozen=True)
class Replay:
    """Hold the result of replaying a save or test: the final state and every status.

    ``outcomes`` has one outcome per status (the opening's included); it is empty when the
    setup failed and ``statuses`` is ``[-1]``.
    """

    state: GameState
    statuses: list[int]
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def setup_failed(self) -> bool:
        """Say whether the opening or the preloaded board was refused."""
        return not self.outcomes and self.statuses == [-1]


def replay(data: object, players: int | None = None, seed: int | None = None) -> Replay:
    """Replay a save or test ``{"board", "moves"}`` for ``players`` seats (spec §15).

    The format records neither the player count (4 when ``None``) nor a seed: ``seed`` is
    only stored in the resulting state.

    Raise :class:`SaveFormatError` when ``data`` does not have the format's shape at all;
    a bad opening or board entry gives the statuses ``[-1]``, and a bad move entry status -1
    for that entry only, as in the original.
    """
    board, moves = _board_and_moves(data)
    players = DEFAULT_PLAYERS if players is None else players
    fresh = new_game(players, seed)
    outcomes: list[Outcome] = []
    if board:
        try:
            state = start_from_board(players, [_board_entry(entry) for entry in board], seed)
        except SquareGameError:
            return Replay(fresh, [-1])
        entries = moves
    elif not moves:
        return Replay(fresh, [])
    else:
        opening = moves[0]
        if not isinstance(opening, dict):
            return Replay(fresh, [-1])
        state, outcome = play(
            fresh,
            players,
            {
                "type": "opening",
                "piece": opening.get("piece_num"),
                "permutation": opening.get("permutation"),
            },
        )
        if not outcome.ok:
            return Replay(fresh, [-1])
        outcomes.append(outcome)
        entries = moves[1:]
    for entry in entries:
        state, outcome = _replay_move(state, entry)
        outcomes.append(outcome)
    return Replay(state, [int(outcome.status) for outcome in outcomes], outcomes)


def load(data: object, players: int | None = None) -> list[int]:
    """Replay a save or test and return its statuses, or ``[-1]`` if the setup fails."""
    return replay(data, players).statuses


def from_save_json(data: object, players: int | None = None, seed: int | None = None) -> GameState:
    """Restore a game from the original save format, ready to play on.

    A save lists successful actions only, so any refused entry means the file is wrong (or
    the player count is): raise :class:`SaveFormatError` saying which entry failed and why.
    """
    result = replay(data, players, seed)
    if result.setup_failed:
        raise SaveFormatError("the saved game's opening or board cannot be set up")
    for number, outcome in enumerate(result.outcomes):
        if not outcome.ok:
            raise SaveFormatError(f"move {number} of the saved game is refused: {outcome.message}")
    return result.state


@dataclass(frozen=True)
class TestResult:
    """Hold the verdict of one test file: did ``load`` give exactly the ``expect`` list?"""

    __test__ = False  # not a pytest test class, despite the name

    passed: bool
    expected: list[int]
    actual: list[int]
    name: str = ""
    state: GameState | None = field(default=None, compare=False, repr=False)


def read_json(path: str | Path) -> Any:
    """Read a JSON file; raise :class:`SaveFormatError` with a one-line reason if unreadable."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SaveFormatError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise SaveFormatError(f"{path}: is a directory, not a file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise SaveFormatError(f"{path}: cannot be read ({error})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise SaveFormatError(
            f"{path}: not valid JSON ({error.msg} at line {error.lineno} column {error.colno})"
        ) from None
    except RecursionError:  # Python's json raises it, not JSONDecodeError, past ~1000 levels
        raise SaveFormatError(f"{path}: its JSON is nested too deeply for a save") from None


def check_test(data: object, name: str = "test") -> list[int]:
    """Check that ``data`` is a test ``{"board", "moves", "expect"}``; return ``expect``."""
    _board_and_moves(data, name)
    assert isinstance(data, dict)
    expect = data.get("expect")
    if not isinstance(expect, list) or not all(type(code) is int for code in expect):
        raise SaveFormatError(f"{name}: 'expect' must be a list of status codes")
    return expect


def run_test_file(
    path_or_dict: str | Path | dict[str, Any], players: int | None = None
) -> TestResult:
    """Run one test of the original format: replay its moves, compare the statuses.

    ``players`` defaults to 4, as the original runner always used. Raise
    :class:`SaveFormatError` if the file is missing or not a test.
    """
    if isinstance(path_or_dict, dict):
        data, name = path_or_dict, "test"
    else:
        name = str(path_or_dict)
        data = read_json(path_or_dict)
    expected = check_test(data, name)
    result = replay(data, players)
    return TestResult(result.statuses == expected, expected, result.statuses, name, result.state)


# -- entries --------------------------------------------------------------------------------


def _board_and_moves(data: object, name: str = "saved game") -> tuple[list[Any], list[Any]]:
    if not isinstance(data, dict):
        raise SaveFormatError(f"{name}: must be a JSON object with 'board' and 'moves'")
    board, moves = data.get("board"), data.get("moves")
    if not isinstance(board, list) or not isinstance(moves, list):
        raise SaveFormatError(f"{name}: 'board' and 'moves' must both be lists")
    return board, moves


def _board_entry(entry: object) -> tuple[int, int, int, int, int]:
    if not isinstance(entry, dict) or not all(type(entry.get(key)) is int for key in BOARD_FIELDS):
        raise SquareGameError(f"a board entry needs integer {', '.join(BOARD_FIELDS)}")
    return tuple(entry[key] for key in BOARD_FIELDS)  # type: ignore[return-value]


def _replay_move(state: GameState, entry: object) -> tuple[GameState, Outcome]:
    """Apply one ``moves`` entry after the setup: type 1 places, type 0 passes."""
    if not isinstance(entry, dict):
        return state, _malformed(None, "a move entry must be a JSON object")
    seat, kind = entry.get("player_num"), entry.get("type")
    if type(seat) is not int:
        return state, _malformed(None, "a move entry needs an integer player_num")
    if type(kind) is not int or kind not in (0, 1):
        return state, _malformed(seat, f"a move entry's type must be 1 or 0, not {kind!r}")
    if kind == 0:
        return play(state, seat, {"type": "pass"})
    action = {
        "type": "place",
        "piece": entry.get("piece_num"),
        "permutation": entry.get("permutation"),
        "x": entry.get("x"),
        "y": entry.get("y"),
    }
    return play(state, seat, action)


def _malformed(seat: int | None, message: str) -> Outcome:
    return Outcome(Status.ERROR, seat, None, message, Reason.MALFORMED)
