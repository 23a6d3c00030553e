"""The rules: the opening, placements, passes, turns, the final round and the end (spec §5-§12).

Two entry points apply an action:

* :func:`play` follows the spec literally: an illegal action returns status -1 with a reason,
  and the very same state; it never raises for anything a player can do wrong.
* :func:`apply` is the platform's shape: it returns the new state and an outcome dict, and
  raises :class:`IllegalMoveError` (status -1, reason, message) instead of returning -1.

Neither consumes a turn on an illegal action: the spec says -1 changes nothing.

>>> state = new_game(4)
>>> state, outcome = play(state, 4, {"type": "place", "piece": 13, "permutation": 4})
>>> outcome.status, state.current
(<Status.NEXT: 2>, 1)
>>> state, outcome = play(state, 1, {"type": "place", "piece": 9, "permutation": 1, "x": 16,
...                                  "y": 16})
>>> outcome.status, outcome.squares, state.moves_left
(<Status.AGAIN: 1>, ((15, 14), (16, 14)), 1)
>>> play(state, 2, {"type": "pass"})[1].reason
<Reason.NOT_YOUR_TURN: 'not_your_turn'>
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from squaregame.engine.board import OPENING_POINT, SHAPES, Check
from squaregame.engine.errors import SquareGameError
from squaregame.engine.pieces import PERMUTATIONS, PIECE_CODES, Point
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

PASS: dict[str, Any] = {"type": "pass"}
"""The pass ("give up") action."""


def new_game(players: int, seed: int | None = None) -> GameState:
    """Return a new game for 2-4 players, waiting for seat N's opening.

    ``seed`` is only recorded: the rules are deterministic (bots take their own ``Random``).
    """
    return GameState.new(players, seed)


def play(state: GameState, seat: int, action: object) -> tuple[GameState, Outcome]:
    """Let ``seat`` act, and return the next state and the outcome with its status code.

    ``action`` is an action dict: ``{"type": "place", "piece", "permutation", "x", "y"}``
    (by seat N before the opening it is the opening, at (15, 15)), ``{"type": "pass"}``, or
    ``{"type": "opening", "piece", "permutation"}``. An illegal or malformed action returns
    the same ``state`` and an outcome with status -1 and a reason.
    """
    if type(seat) is not int:
        return _refuse(state, None, None, Reason.MALFORMED, f"a seat is a number, not {seat!r}")
    try:
        parsed = Action.from_dict(action)
    except SquareGameError as error:
        return _refuse(state, seat, None, Reason.MALFORMED, str(error))
    if parsed.type is ActionType.PASS:
        return _pass(state, seat, parsed)
    if parsed.type is ActionType.OPENING or (
        not state.started and not state.over and seat == state.players
    ):
        return _open(state, seat, parsed)
    return _place(state, seat, parsed)


def apply(state: GameState, seat: int, action: object) -> tuple[GameState, dict[str, Any]]:
    """Let ``seat`` act; return the next state and a JSON-able outcome dict.

    The dict holds the outcome (``status``, ``reason``, ``message``, ``squares``, ...) and
    where the game now stands (``to_move``, ``moves_left``, ``final_round``, ``over``,
    ``winners``). Raise :class:`IllegalMoveError` for anything :func:`play` answers with -1:
    an action out of turn, an illegal placement or a malformed action. The state passed in is
    never changed.
    """
    after, outcome = play(state, seat, action)
    if not outcome.ok:
        raise IllegalMoveError(outcome)
    return after, report(after, outcome)


def leave(state: GameState, seat: int) -> GameState:
    """End the game because ``seat`` left it: the seats that stayed win, the leaver ranks last.

    The original simulator has no such end; a server decides when a seat has left (away on
    its turn past the table's limit) and asks here. Raise :class:`IllegalMoveError` for a game
    already over or a seat that is not one of the game's; the state passed in is never changed.

    >>> state = leave(new_game(3), 2)
    >>> state.over, state.winners, state.left, state.to_move
    (True, (1, 3), (2,), None)
    >>> leave(state, 1)
    Traceback (most recent call last):
    ...
    squaregame.engine.state.IllegalMoveError: the game is over
    """
    if type(seat) is not int or seat not in state.seats:
        raise IllegalMoveError(
            _refusal(None, None, Reason.MALFORMED, f"the game has no seat {seat!r}")
        )
    if state.over:
        raise IllegalMoveError(_refusal(seat, None, Reason.GAME_OVER, "the game is over"))
    stayed = tuple(other for other in state.seats if other != seat and other not in state.left)
    return replace(
        state, over=True, current=None, winners=stayed, left=(*state.left, seat), final_round=None
    )


def report(state: GameState, outcome: Outcome) -> dict[str, Any]:
    """Return ``outcome`` as a dict, with where ``state`` (the game after it) now stands."""
    return {
        **outcome.to_dict(),
        "to_move": state.to_move,
        "moves_left": state.moves_left,
        "final_round": state.final_round,
        "over": state.over,
        "winners": list(state.winners) if state.over else [],
    }


# -- the three actions ----------------------------------------------------------------------


def _open(state: GameState, seat: int, action: Action) -> tuple[GameState, Outcome]:
    """Make the opening (spec §6): seat N, any piece, any permutation, zero point (15, 15)."""
    opening = Action(ActionType.OPENING, action.piece, action.permutation, *OPENING_POINT)
    if state.over:
        return _refuse(state, seat, opening, Reason.GAME_OVER, "the game is over")
    if state.started:
        return _refuse(
            state, seat, opening, Reason.ALREADY_STARTED, "the opening has already been made"
        )
    if seat != state.players:
        return _refuse(
            state,
            seat,
            opening,
            Reason.NOT_YOUR_TURN,
            f"the opening is made by seat {state.players}, not seat {seat}",
        )
    if (action.x, action.y) not in ((None, None), OPENING_POINT):
        return _refuse(
            state,
            seat,
            opening,
            Reason.OPENING_POSITION,
            f"the opening's zero point is (15,15), not ({action.x},{action.y})",
        )
    problem, _ = _piece_problem(state, seat, opening, regular=False)
    if problem is not None:
        return state, problem
    piece, permutation = opening.piece, opening.permutation
    assert piece is not None and permutation is not None
    placement = Placement(
        len(state.placements) + 1, seat, piece, permutation, *OPENING_POINT, PlacementKind.OPENING
    )
    after = replace(
        state,
        hands=_without(state.hands, seat, piece),
        placements=(*state.placements, placement),
        history=(*state.history, Played(seat, opening)),
        started=True,
        current=1,
        moves_left=1,
    )
    text = f"seat {seat} opened with piece {piece}/{permutation} at (15,15)"
    return _finish_action(after, seat, opening, Status.NEXT, text)


def _place(state: GameState, seat: int, action: Action) -> tuple[GameState, Outcome]:
    """Make a regular placement (spec §7, §8), or refuse it with the first failing check."""
    problem = _turn_problem(state, seat, action)
    if problem is not None:
        return state, problem
    if action.x is None or action.y is None:
        return _refuse(state, seat, action, Reason.MALFORMED, "a placement needs both x and y")
    problem, squares = _piece_problem(state, seat, action, regular=True)
    if problem is not None:
        return state, problem
    piece, permutation, x, y = action.piece, action.permutation, action.x, action.y
    assert piece is not None and permutation is not None
    placement = Placement(
        len(state.placements) + 1, seat, piece, permutation, x, y, PlacementKind.REGULAR, squares
    )
    hands = _without(state.hands, seat, piece)
    after = replace(
        state,
        hands=hands,
        placements=(*state.placements, placement),
        history=(*state.history, Played(seat, action)),
        moves_left=state.moves_left - 1 + (len(squares) - 1),
    )
    text = (
        f"seat {seat} placed piece {piece}/{permutation} at ({x},{y}), closing "
        f"{_count(len(squares), 'square')}"
    )
    if not hands[seat - 1]:
        after, status = _finish_hand(after, seat)
    elif after.moves_left >= 1:
        status = Status.AGAIN
    else:
        after, status = _end_turn(after, Status.NEXT)
    return _finish_action(after, seat, action, status, text, squares)


def _pass(state: GameState, seat: int, action: Action) -> tuple[GameState, Outcome]:
    """Pass (give up the rest of the turn, extra moves included; spec §9)."""
    problem = _turn_problem(state, seat, action)
    if problem is not None:
        return state, problem
    after = replace(state, history=(*state.history, Played(seat, action)))
    after, status = _end_turn(after, Status.PASSED)
    return _finish_action(after, seat, action, status, f"seat {seat} passed")


# -- checks ---------------------------------------------------------------------------------


def _turn_problem(state: GameState, seat: int, action: Action) -> Outcome | None:
    """Check 1 of spec §7: the game is running and ``seat`` is the current player."""
    if state.over:
        return _refusal(seat, action, Reason.GAME_OVER, "the game is over")
    if not state.started:
        return _refusal(
            seat,
            action,
            Reason.NOT_STARTED,
            f"the game has not started: seat {state.players} must make the opening first",
        )
    if seat != state.current:
        return _refusal(
            seat, action, Reason.NOT_YOUR_TURN, f"it is seat {state.current}'s turn, not {seat}'s"
        )
    return None


def _piece_problem(
    state: GameState, seat: int, action: Action, *, regular: bool
) -> tuple[Outcome | None, tuple[Point, ...]]:
    """Run checks 2 to 8 of spec §7: hand, permutation, then the geometry of the board.

    Return the refusal of the first failing check (``None`` if all pass) and the squares the
    placement would newly close. ``regular=False`` (opening, preloaded board) skips the
    square and contact checks.
    """
    piece, permutation, x, y = action.piece, action.permutation, action.x, action.y
    assert piece is not None and permutation is not None and x is not None and y is not None
    if piece not in state.hand(seat):
        text = (
            f"piece {piece} is not in seat {seat}'s hand (already played)"
            if piece in PIECE_CODES
            else f"there is no piece {piece}: pieces are numbered 1-16"
        )
        return _refusal(seat, action, Reason.PIECE_UNAVAILABLE, text), ()
    if permutation not in PERMUTATIONS:
        text = f"there is no permutation {permutation}: permutations are 1-8"
        return _refusal(seat, action, Reason.BAD_PERMUTATION, text), ()
    verdict = state.board.check(SHAPES[piece, permutation], x, y, regular=regular)
    if verdict.failed is None:
        return None, verdict.squares
    where = f"piece {piece}/{permutation} at ({x},{y})"
    if verdict.failed is Check.OUT_OF_BOUNDS:
        text = f"{where} would leave the board (0-32 on both axes)"
    elif verdict.failed is Check.LINE_TAKEN:
        text = f"{where} would lay {_segment(verdict.detail)}, which is already on the board"
    elif verdict.failed is Check.NO_NEW_SQUARE:
        text = f"{where} closes no new square"
    elif verdict.failed is Check.NO_CONTACT:
        text = f"{where} touches nothing on the board"
    else:
        (px, py), layer = verdict.detail  # type: ignore[misc]
        text = f"{where} would cross placement #{layer} at ({px},{py})"
    return _refusal(seat, action, Reason(verdict.failed.value), text), ()


# -- turns and the end ----------------------------------------------------------------------


def _end_turn(state: GameState, status: Status) -> tuple[GameState, Status]:
    """End the current turn (spec §10): count down a final round, or hand over the turn."""
    final_round = state.final_round
    if final_round is not None:
        final_round -= 1
        if final_round == 0:
            return replace(state, final_round=0, over=True, current=None), Status.GAME_OVER
    assert state.current is not None
    active = state.active
    following = active[(active.index(state.current) + 1) % len(active)]
    return replace(state, final_round=final_round, current=following, moves_left=1), status


def _finish_hand(state: GameState, seat: int) -> tuple[GameState, Status]:
    """Retire a seat that emptied its hand (spec §10) and start or shorten the final round.

    Only the seats after it in the active list still get a turn, so every seat ends up with
    the same number of turns: seat 1 moves first and the opening is not a turn.
    """
    index = state.active.index(seat)
    after = state.active[index + 1 :]
    winners = (*state.winners, seat)
    active = state.active[:index] + after
    if not after:
        return (
            replace(state, active=active, winners=winners, final_round=0, over=True, current=None),
            Status.GAME_OVER,
        )
    return (
        replace(
            state,
            active=active,
            winners=winners,
            final_round=len(after),
            current=after[0],
            moves_left=1,
        ),
        Status.FINAL_ROUND,
    )


def _finish_action(
    state: GameState,
    seat: int,
    action: Action,
    status: Status,
    text: str,
    squares: tuple[Point, ...] = (),
) -> tuple[GameState, Outcome]:
    """Apply the dead-position rule (spec §11), then record and return the outcome."""
    if not state.over and not any(has_legal_placement(state, s) for s in state.active):
        winners = state.winners or _fewest_pieces(state)
        state = replace(state, over=True, current=None, dead_position=True, winners=winners)
        status = Status.GAME_OVER
        text += "; no active seat can place a piece"
    text += "; " + _standing(state, status)
    outcome = Outcome(status, seat, action, text, None, squares)
    return replace(state, last=outcome), outcome


def _fewest_pieces(state: GameState) -> tuple[int, ...]:
    """Return the seats with the fewest pieces left in hand, in seat order (spec §11)."""
    fewest = min(len(hand) for hand in state.hands)
    return tuple(seat for seat in state.seats if len(state.hand(seat)) == fewest)


def _standing(state: GameState, status: Status) -> str:
    if state.over:
        names = ", ".join(f"seat {seat}" for seat in state.winners)
        return f"game over, won by {names}"
    if status is Status.AGAIN:
        return f"seat {state.current} moves again ({_count(state.moves_left, 'move')} left)"
    if status is Status.FINAL_ROUND:
        return (
            f"seat {state.winners[-1]} emptied their hand: final round, "
            f"{_count(state.final_round or 0, 'turn')} left, seat {state.current} to move"
        )
    return f"seat {state.current} to move"


# -- queries --------------------------------------------------------------------------------


def iter_placements(
    state: GameState, pieces: Iterable[int]
) -> Iterator[tuple[Move, tuple[Point, ...]]]:
    """Yield every legal regular placement of ``pieces`` now, with the squares each closes.

    Whose turn it is does not matter here (the dead-position rule asks for every seat); the
    order is unspecified.
    """
    if state.over or not state.started:
        return
    board = state.board
    for piece in pieces:
        for permutation in PERMUTATIONS:
            for x, y, squares in board.placements_for(SHAPES[piece, permutation]):
                yield Move(piece, permutation, x, y), squares


def legal_placements(state: GameState) -> list[Move]:
    """Return every placement the seat to move could make now, sorted (spec §12).

    Before the opening these are seat N's opening choices at (15, 15); once the game is over
    there are none.

    >>> state = play(new_game(4), 4, {"type": "opening", "piece": 13, "permutation": 4})[0]
    >>> moves = legal_placements(state)
    >>> len(moves), len({frozenset(Placement(0, 1, *m).segments) for m in moves})
    (135, 95)
    >>> Move(9, 1, 16, 16) in moves, Move(9, 3, 15, 14) in moves
    (True, True)
    """
    if state.over or state.current is None:
        return []
    if not state.started:
        hand = state.hand(state.current)
        board = state.board
        return [
            Move(piece, permutation, *OPENING_POINT)
            for piece in hand
            for permutation in PERMUTATIONS
            if board.check(SHAPES[piece, permutation], *OPENING_POINT, regular=False).failed is None
        ]
    return sorted(_moves(state, state.hand(state.current)))


def has_legal_placement(state: GameState, seat: int) -> bool:
    """Say whether ``seat`` could make a regular placement now, whoever's turn it is."""
    return next(_moves(state, state.hand(seat)), None) is not None


def _moves(state: GameState, pieces: Iterable[int]) -> Iterator[Move]:
    """Yield the legal regular placements of ``pieces`` (:func:`iter_placements`, no squares)."""
    if state.over or not state.started:
        return
    board = state.board
    for piece in pieces:
        for permutation in PERMUTATIONS:
            for x, y in board.zero_points_for(SHAPES[piece, permutation]):
                yield Move(piece, permutation, x, y)


def is_legal(state: GameState, seat: int, action: object) -> bool:
    """Say whether :func:`play` would accept ``action`` from ``seat`` now."""
    return play(state, seat, action)[1].ok


def view(state: GameState, seat: int | None = None) -> dict[str, Any]:
    """Return what ``seat`` (or a spectator, for ``None``) sees, as a JSON-able dict.

    Nothing in the Square Game is hidden, so every seat sees the same thing; ``viewer`` only
    says who is looking. Closed squares carry the seat whose placement closed them (``None``
    for a cell laid whole by one piece, the opening or a preloaded board); ``squares`` in each
    seat is that seat's tally. The spec has no points: the tally is for show, never for
    deciding winners.
    """
    board = state.board
    seat_of = {p.id: p.seat for p in state.placements}
    closed_by = {cell: p.seat for p in state.placements for cell in p.squares}
    if state.over:
        phase = "over"
    elif state.started:
        phase = "playing"
    else:
        phase = "opening"
    return {
        "players": state.players,
        "viewer": seat,
        "phase": phase,
        "to_move": state.to_move,
        "moves_left": state.moves_left if not state.over else 0,
        "final_round": state.final_round,
        "board": [
            {"segment": [list(a), list(b)], "seat": seat_of[layer], "placement": layer}
            for (a, b), layer in board.segments()
        ],
        "placements": [p.to_dict() for p in state.placements],
        "squares": [
            {"cell": list(cell), "seat": closed_by.get(cell)} for cell in board.closed_cells()
        ],
        "seats": [
            {
                "seat": s,
                "hand": list(state.hand(s)),
                "pieces_left": len(state.hand(s)),
                "squares": state.squares_closed(s),
                "active": s in state.active,
                "finished": not state.hand(s),
            }
            for s in state.seats
        ],
        "last": None if state.last is None else state.last.to_dict(),
        "over": state.over,
        "dead_position": state.dead_position,
        "winners": list(state.winners) if state.over else [],
    }


# -- preloaded boards -----------------------------------------------------------------------


def start_from_board(
    players: int,
    entries: Iterable[tuple[int, int, int, int, int]],
    seed: int | None = None,
) -> GameState:
    """Return a started game whose board is preloaded with ``(seat, piece, perm, x, y)`` entries.

    Each entry is checked for hand, permutation, bounds, overlap and crossing, but not for
    squares or contact; it is no action, so no status, no end rule, no turn (spec §15). Seat
    1 then moves. Raise :class:`IllegalMoveError` for the first entry that fails.
    """
    state = new_game(players, seed)
    for number, (seat, piece, permutation, x, y) in enumerate(entries, 1):
        action = Action(ActionType.PLACE, piece, permutation, x, y)
        if seat not in state.seats:
            problem: Outcome | None = _refusal(
                seat, action, Reason.NOT_YOUR_TURN, f"there is no seat {seat} in this game"
            )
        else:
            problem, _ = _piece_problem(state, seat, action, regular=False)
        if problem is not None:
            raise IllegalMoveError(
                replace(problem, message=f"board entry {number}: {problem.message}")
            )
        placement = Placement(
            len(state.placements) + 1, seat, piece, permutation, x, y, PlacementKind.PRELOAD
        )
        state = replace(
            state,
            hands=_without(state.hands, seat, piece),
            placements=(*state.placements, placement),
        )
    return replace(state, started=True, current=1, moves_left=1)


# -- small helpers --------------------------------------------------------------------------


def _refusal(seat: int | None, action: Action | None, reason: Reason, message: str) -> Outcome:
    return Outcome(Status.ERROR, seat, action, message, reason)


def _refuse(
    state: GameState, seat: int | None, action: Action | None, reason: Reason, message: str
) -> tuple[GameState, Outcome]:
    return state, _refusal(seat, action, reason, message)


def _without(
    hands: tuple[tuple[int, ...], ...], seat: int, piece: int
) -> tuple[tuple[int, ...], ...]:
    return tuple(
        tuple(p for p in hand if p != piece) if number == seat else hand
        for number, hand in enumerate(hands, 1)
    )


def _segment(segment: object) -> str:
    (x1, y1), (x2, y2) = segment  # type: ignore[misc]
    return f"({x1},{y1})-({x2},{y2})"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
