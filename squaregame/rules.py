"""The Square Game as a game kind: 2-4 seats placing seven-segment pieces (specs/squaregame.md).

Options: ``players`` (2, 3 or 4; default 2) and, for a game continued from a save file,
``save`` (the original save format ``{"board": [...], "moves": [...]}``). People and computers
join until ``players`` seats are filled; then the game starts (waiting -> active). Engine seat
``k`` (1-based, as the spec numbers seats) is the ``k``-th name to join, so the last to join is
seat N and makes the opening.

The platform state is ``{"game": GameState.to_dict(), "names": [...]}``: the pure engine's state
and the seat names in join order. A game imported from a save keeps the save in its options, so
``new(options, seed)`` rebuilds the loaded position and replaying the move log still gives the
stored state.

Outcomes keep the spec's status codes (``status`` 0, 1, 2, 3 or 5); a refused action (the
spec's -1) raises :class:`RuleError` whose ``code`` is the spec's reason id, and changes nothing.

``scores`` are the squares each seat closed: a tally for show. The spec has no points; the
winners are the seats that emptied their hands (see ``winners`` in the view).
"""

from __future__ import annotations

import random
from html import escape
from typing import Any

from games.errors import RuleError
from games.rules import Result, register
from squaregame.engine import (
    OPENING_POINT,
    SIZE,
    GameState,
    IllegalMoveError,
    Reason,
    SquareGameError,
    choose_move,
    from_save_json,
    iter_placements,
    legal_placements,
    new_game,
    play,
    start_from_board,
)
from squaregame.engine import apply as engine_apply
from squaregame.engine import leave as engine_leave
from squaregame.engine import view as engine_view
from squaregame.story import game_story

PLAYERS_DEFAULT = 2

AWAY_MS = 120_000
"""How long a seat may stay away on its turn (no move, no page open) before another seat may
end the game because it left (``end_left``): two minutes, a turn's long think included."""

AWAY_MS_RANGE = (10_000, 86_400_000)
"""The ``away_ms`` option's bounds: ten seconds to a day."""
SAVE_PLAYERS_DEFAULT = 4
"""The player count a save is loaded with when none is given (the original format's)."""

MAX_SAVE_ENTRIES = 5000
"""The most board plus move entries a save may hold (a whole game has fewer than 200)."""

SEAT_COLOURS = ("#d62828", "#1f6fd1", "#1b8a3a", "#d97706")
"""Each seat's colour, seat 1 first: on the board, in the palette, in the admin picture."""

STATUS_MEANINGS = {
    -1: "Error; nothing changed",
    0: "Pass accepted; turn moved on",
    1: "Placement accepted; same player moves again",
    2: "Placement accepted; turn moved to the next player (also the opening)",
    3: "Placement accepted; mover emptied their hand; final round in progress",
    5: "Game over (after a placement or a pass)",
}
"""The spec's status codes (§13) and what they mean."""

BOARD_FIELDS = ("player_num", "piece_num", "permutation", "x", "y")
PLACE_FIELDS = ("piece_num", "permutation", "x", "y")


def clean_away_ms(value: object) -> int:
    """Return an ``away_ms`` option (whole milliseconds, `AWAY_MS_RANGE`), or raise a
    RuleError that says what is wrong.

    >>> clean_away_ms(60_000)
    60000
    """
    low, high = AWAY_MS_RANGE
    if not _is_int(value) or not low <= value <= high:
        raise RuleError(
            f"away_ms: how long a seat may stay away on its turn, {low} to {high} "
            f"milliseconds, not {value!r}.",
            "bad_option",
        )
    return value


def away_ms(state: dict) -> int:
    """The table's away limit (`AWAY_MS` unless its options said otherwise)."""
    return int(state.get("away_ms", AWAY_MS))


def _bad_save(message: str) -> RuleError:
    return RuleError(message, "bad_save")


def _is_int(value: object) -> bool:
    return type(value) is int


def clean_players(value: object, *, default: int = PLAYERS_DEFAULT) -> int:
    """Return a player count of 2 to 4, or raise a RuleError saying what is wrong.

    >>> clean_players(3), clean_players(None)
    (3, 2)
    """
    if value is None:
        return default
    if not _is_int(value) or not 2 <= value <= 4:
        raise RuleError(
            f"players: a Square Game has 2, 3 or 4 players, not {value!r}.", "bad_option"
        )
    return value


def clean_save(data: object) -> dict[str, list[dict[str, int]]]:
    """Return a save's ``board`` and ``moves`` with only the fields the format defines.

    Raise :class:`RuleError` (code ``bad_save``) naming the first entry that is not in the
    original save format. Whether the moves are legal is checked by :func:`load_save`.

    >>> clean_save({"board": [], "moves": [{"piece_num": 13, "permutation": 4}]})
    {'board': [], 'moves': [{'piece_num': 13, 'permutation': 4}]}
    """
    if not isinstance(data, dict):
        raise _bad_save(
            f"A save is a JSON object with 'board' and 'moves' lists, not {type(data).__name__}."
        )
    board, moves = data.get("board"), data.get("moves")
    for key, value in (("board", board), ("moves", moves)):
        if not isinstance(value, list):
            if value is None:
                raise _bad_save(f"The save has no {key!r} list.")
            raise _bad_save(f"The save's {key!r} must be a list, not {_shown(value)}.")
    if len(board) + len(moves) > MAX_SAVE_ENTRIES:
        raise _bad_save(f"The save is too long: at most {MAX_SAVE_ENTRIES} board and move entries.")
    clean_board = []
    for number, entry in enumerate(board, 1):
        if not isinstance(entry, dict) or not all(_is_int(entry.get(k)) for k in BOARD_FIELDS):
            raise _bad_save(
                f"Board entry {number} needs integer {', '.join(BOARD_FIELDS)}: {_shown(entry)}."
            )
        clean_board.append({key: entry[key] for key in BOARD_FIELDS})
    clean_moves = []
    for number, entry in enumerate(moves):
        where = f"Move {number}"
        if not isinstance(entry, dict):
            raise _bad_save(f"{where} must be a JSON object, not {_shown(entry)}.")
        if number == 0 and not board:
            if not all(_is_int(entry.get(k)) for k in ("piece_num", "permutation")):
                raise _bad_save(
                    f"{where} is the opening: it needs integer piece_num and permutation "
                    f"({_shown(entry)})."
                )
            clean_moves.append({k: entry[k] for k in ("piece_num", "permutation")})
            continue
        kind, seat = entry.get("type"), entry.get("player_num")
        if not _is_int(kind) or kind not in (0, 1):
            raise _bad_save(f"{where}: type must be 1 (a placement) or 0 (a pass), not {kind!r}.")
        if not _is_int(seat):
            raise _bad_save(f"{where}: player_num must be an integer, not {seat!r}.")
        if kind == 0:
            clean_moves.append({"type": 0, "player_num": seat})
            continue
        if not all(_is_int(entry.get(k)) for k in PLACE_FIELDS):
            raise _bad_save(
                f"{where} is a placement: it needs integer {', '.join(PLACE_FIELDS)} "
                f"({_shown(entry)})."
            )
        clean_moves.append({"type": 1, "player_num": seat, **{k: entry[k] for k in PLACE_FIELDS}})
    return {"board": clean_board, "moves": clean_moves}


def load_save(save: object, players: int, seed: int | None = None) -> GameState:
    """Return the position a save leads to, ready to play on, for ``players`` seats.

    Raise :class:`RuleError` (code ``bad_save``) naming the entry the rules refuse.
    """
    save = clean_save(save)
    board, moves = save["board"], save["moves"]
    seats = {entry["player_num"] for entry in board} | {
        entry["player_num"] for entry in moves if "player_num" in entry
    }
    beyond = sorted(seat for seat in seats if not 1 <= seat <= players)
    hint = (
        f" (the save names seat {beyond[0]} but the game has {players} players: "
        "give the save's player count)"
        if beyond
        else ""
    )
    try:
        if board:
            start_from_board(players, [tuple(e[k] for k in BOARD_FIELDS) for e in board], seed)
        elif moves:
            opening = {"type": "opening", "piece": moves[0]["piece_num"]}
            opening["permutation"] = moves[0]["permutation"]
            outcome = play(new_game(players, seed), players, opening)[1]
            if not outcome.ok:
                raise _bad_save(f"Move 0 (the opening) is refused: {outcome.message}.")
        return from_save_json(save, players, seed)
    except RuleError:
        raise
    except SquareGameError as error:
        raise _bad_save(f"{_sentence(str(error))}{hint}.") from None


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _sentence(text: str) -> str:
    text = text.rstrip(".")
    return text[:1].upper() + text[1:]


# -- the board as a picture -----------------------------------------------------------------


def board_svg(view: dict[str, Any], *, margin: int = 2, min_cells: int = 8) -> str:
    """Return an SVG picture of a Square Game view: each seat's segments in its colour.

    Closed squares are shaded in the colour of the seat whose placement closed them (grey when
    a piece closed a cell by itself). The picture shows the part of the 32x32 board in use, with
    ``margin`` cells around it; y grows upward, as in the spec. Names are escaped.

    >>> svg = board_svg({"board": [{"segment": [[15, 15], [16, 15]], "seat": 1}],
    ...                  "squares": [], "players": 2})
    >>> svg.startswith("<svg") and 'stroke="#d62828"' in svg
    True
    """
    segments = view.get("board") or []
    squares = view.get("squares") or []
    xs = [p[0] for item in segments for p in item["segment"]] or [15, 16]
    ys = [p[1] for item in segments for p in item["segment"]] or [15, 16]
    x0, x1 = max(min(xs) - margin, 0), min(max(xs) + margin, 32)
    y0, y1 = max(min(ys) - margin, 0), min(max(ys) + margin, 32)
    while x1 - x0 < min_cells and (x0 > 0 or x1 < 32):
        x0, x1 = max(x0 - 1, 0), min(x1 + 1, 32)
    while y1 - y0 < min_cells and (y0 > 0 or y1 < 32):
        y0, y1 = max(y0 - 1, 0), min(y1 + 1, 32)
    unit = 22
    pad = 14
    width = (x1 - x0) * unit + 2 * pad
    height = (y1 - y0) * unit + 2 * pad

    def sx(x: float) -> float:
        return pad + (x - x0) * unit

    def sy(y: float) -> float:
        return pad + (y1 - y) * unit

    def colour(seat: object) -> str:
        if _is_int(seat) and 1 <= seat <= len(SEAT_COLOURS):
            return SEAT_COLOURS[seat - 1]
        return "#888888"

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="square-board-picture" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="The Square Game board, x {x0}-{x1}, y {y0}-{y1}">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fbfaf7"/>',
    ]
    for cell in squares:
        cx, cy = cell["cell"]
        parts.append(
            f'<rect x="{sx(cx)}" y="{sy(cy + 1)}" width="{unit}" height="{unit}" '
            f'fill="{colour(cell.get("seat"))}" fill-opacity="0.28"/>'
        )
    for x in range(x0, x1 + 1):
        parts.append(
            f'<line x1="{sx(x)}" y1="{sy(y0)}" x2="{sx(x)}" y2="{sy(y1)}" stroke="#e2dfd8"/>'
        )
    for y in range(y0, y1 + 1):
        parts.append(
            f'<line x1="{sx(x0)}" y1="{sy(y)}" x2="{sx(x1)}" y2="{sy(y)}" stroke="#e2dfd8"/>'
        )
    for item in segments:
        (ax, ay), (bx, by) = item["segment"]
        parts.append(
            f'<line x1="{sx(ax)}" y1="{sy(ay)}" x2="{sx(bx)}" y2="{sy(by)}" '
            f'stroke="{colour(item.get("seat"))}" stroke-width="5" stroke-linecap="round"/>'
        )
    for x in range(x0, x1 + 1):
        if x % 5 == 0:
            parts.append(
                f'<text x="{sx(x)}" y="{height - 2}" font-size="9" text-anchor="middle" '
                f'fill="#5f6368">{x}</text>'
            )
    for y in range(y0, y1 + 1):
        if y % 5 == 0:
            parts.append(f'<text x="2" y="{sy(y) + 3}" font-size="9" fill="#5f6368">{y}</text>')
    parts.append("</svg>")
    legend = []
    names = view.get("names") or []
    for seat in range(1, int(view.get("players") or len(names) or 0) + 1):
        name = names[seat - 1] if seat - 1 < len(names) and names[seat - 1] else "(empty)"
        # The seat's colour is an SVG fill, not a style attribute (the site's CSP forbids those).
        legend.append(
            f'<strong><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" '
            f'fill="{colour(seat)}"/></svg> seat {seat}: {escape(str(name))}</strong>'
        )
    if legend:
        parts.append(f'<div class="square-legend">{" &nbsp; ".join(legend)}</div>')
    return "".join(parts)


# -- the kind -------------------------------------------------------------------------------


# What the engine reads of each action: the log keeps that, not whatever else was sent.
ACTION_FIELDS = {
    "place": ("type", "piece", "permutation", "x", "y"),
    "opening": ("type", "piece", "permutation", "x", "y"),
    "pass": ("type",),
    "end_left": ("type", "seat"),
}


class SquareKind:
    """The platform's view of the Square Game: seats by name, the engine's rules underneath."""

    kind = "square"
    page = "square-game"  # a game's own page (a URL name)
    min_seats = 2
    max_seats = 4
    join_while_active = False

    # -- options and state ------------------------------------------------------------------

    def options(self, options: dict) -> dict:
        """Validate ``players`` (2-4, default 2), an optional ``save`` to continue from and
        ``away_ms`` (how long a seat may stay away on its turn before the others may end the
        game because it left; `AWAY_MS` by default)."""
        if not isinstance(options, dict):
            raise RuleError(
                "Square Game options are a JSON object: players and save.", "bad_option"
            )
        unknown = sorted(set(options) - {"players", "save", "away_ms"})
        if unknown:
            raise RuleError(
                f"Unknown Square Game option {unknown[0]!r}; the options are players, save "
                "and away_ms.",
                "bad_option",
            )
        players = clean_players(options.get("players"))
        cleaned: dict[str, Any] = {"players": players}
        if options.get("away_ms") is not None:
            cleaned["away_ms"] = clean_away_ms(options["away_ms"])
        if options.get("save") is None:
            return cleaned
        save = clean_save(options["save"])
        load_save(save, players)
        return {**cleaned, "save": save}

    def new(self, *, options: dict, seed: int, now_ms: int) -> dict:
        players = clean_players(options.get("players"))
        if options.get("save") is not None:
            engine = load_save(options["save"], players, seed)
        else:
            engine = new_game(players, seed)
        state: dict[str, Any] = {"game": engine.to_dict(), "names": []}
        if options.get("away_ms") is not None:
            state["away_ms"] = clean_away_ms(options["away_ms"])
        return state

    @staticmethod
    def engine(state: dict) -> GameState:
        return GameState.from_dict(state["game"])

    @staticmethod
    def seat_of(state: dict, name: str | None) -> int | None:
        """Return the engine seat (1-based) of a name, or None if it has no seat."""
        names = state["names"]
        return names.index(name) + 1 if name in names else None

    @staticmethod
    def _players(state: dict) -> int:
        return int(state["game"]["players"])

    def _name(self, state: dict, seat: int | None) -> str | None:
        names = state["names"]
        return names[seat - 1] if seat is not None and 0 < seat <= len(names) else None

    # -- seats and actions ------------------------------------------------------------------

    def join(self, state: dict, name: str, now_ms: int) -> Result:
        players = self._players(state)
        names = list(state["names"])
        if name in names:
            raise RuleError(f"The name {name!r} already has a seat at this game.", "name_taken")
        if len(names) >= players:
            raise RuleError(f"The game is full ({players} seats).", "full")
        names.append(name)
        seat = len(names)
        outcome = {"seat": seat, "name": name, "started": seat == players}
        return Result({**state, "names": names, "last_ms": now_ms}, outcome, event=True)

    def apply(self, state: dict, actor: str, action: dict, now_ms: int) -> Result:
        """Let ``actor``'s seat place a piece or pass; a refusal raises and changes nothing."""
        seat = self.seat_of(state, actor)
        if seat is None:
            raise RuleError(f"{actor!r} has no seat at this game.", "not_seated")
        players = self._players(state)
        missing = players - len(state["names"])
        if missing:
            raise RuleError(
                f"The game has not begun: it waits for {missing} more "
                f"{'player' if missing == 1 else 'players'}.",
                "waiting",
            )
        engine = self.engine(state)
        if isinstance(action, dict) and action.get("type") == "end_left":
            return self._end_left(state, engine, actor, action, now_ms)
        try:
            after, outcome = engine_apply(engine, seat, action)
        except IllegalMoveError as error:
            raise RuleError(self._refusal(state, engine, actor, error), str(error.reason)) from None
        outcome["meaning"] = STATUS_MEANINGS[outcome["status"]]
        outcome["seat_name"] = actor
        outcome["to_move_name"] = self._name(state, outcome["to_move"])
        outcome["winner_names"] = [self._name(state, s) for s in outcome["winners"]]
        fields = ACTION_FIELDS.get(action.get("type"), ("type",))
        read = {key: action[key] for key in fields if key in action}
        after_state = {**state, "game": after.to_dict(), "last_ms": now_ms}
        return Result(after_state, outcome, event=True, action=read)

    def _end_left(
        self, state: dict, engine: GameState, actor: str, action: dict, now_ms: int
    ) -> Result:
        """End the game because the seat named ``action["seat"]`` left: it is its turn, and it
        has been away (no move since its turn began; the platform adds: no page open) for the
        table's ``away_ms``. The seats that stayed win; the leaver ranks last. A seat waiting
        for its turn has not left: it is judged once the turn is its."""
        name = action.get("seat")
        if engine.over:
            raise RuleError("The game is over.", "game_over", http_status=409)
        if not isinstance(name, str) or self.seat_of(state, name) is None:
            raise RuleError(
                'Say who left: {"type": "end_left", "seat": <a seat\'s name>}.', "bad_action"
            )
        if name == actor:
            raise RuleError("You cannot end the game because you left: you are here.", "bad_action")
        if engine.to_move != self.seat_of(state, name):
            raise RuleError(
                f"It is not {name}'s turn: a player waiting for their turn has not left. "
                f"Once it is theirs and they stay away, the game can be ended.",
                "not_away",
                http_status=409,
            )
        limit = away_ms(state)
        waited = now_ms - int(state.get("last_ms", 0))
        if waited < limit:
            raise RuleError(
                f"{name} is still here (their turn began {max(waited, 0) // 1000} s ago); a "
                f"player is gone after {limit // 1000} s away on their turn.",
                "not_away",
                http_status=409,
            )
        after = engine_leave(engine, self.seat_of(state, name))
        winners = [self._name(state, s) for s in after.winners]
        outcome = {
            "status": 5,
            "meaning": STATUS_MEANINGS[5],
            "left": name,
            "over": True,
            "winners": list(after.winners),
            "winner_names": winners,
            "to_move": None,
            "to_move_name": None,
            "seat_name": actor,
        }
        read = {"type": "end_left", "seat": name}
        return Result({**state, "game": after.to_dict()}, outcome, event=True, action=read)

    def _refusal(self, state: dict, engine: GameState, actor: str, error: IllegalMoveError) -> str:
        """Say why an action was refused, naming seats by their players' names."""
        if error.reason is Reason.NOT_YOUR_TURN and engine.to_move is not None:
            turn = engine.to_move
            what = "opening" if not engine.started else "turn"
            return f"It is {self._name(state, turn)}'s {what} (seat {turn}), not {actor}'s."
        return _sentence(str(error)) + "."

    def tick(self, state: dict, now_ms: int) -> Result:
        return Result(state, {}, event=False)

    def next_deadline(self, state: dict) -> int | None:
        return None

    # -- reading ------------------------------------------------------------------------------

    def view(self, state: dict, actor: str | None, now_ms: int) -> dict:
        """The engine's view, plus who you are, the names per seat and your legal placements.

        ``legal`` lists ``[piece, permutation, x, y]`` for every placement you could make now
        (only while it is your turn), and ``legal_squares`` how many squares each would close, in
        the same order (what the computer player weighs: a program need not know the shapes);
        ``legal_count`` counts them, or, when it is not your turn, the placements your hand
        would have on this board. ``size`` (the largest coordinate) and
        ``opening`` (the opening's zero point) let a drawing frame the board without a copy of
        the rules.
        """
        engine = self.engine(state)
        seat = self.seat_of(state, actor)
        players = engine.players
        names = [self._name(state, s) for s in engine.seats]
        waiting = players - len(state["names"])
        view = engine_view(engine, seat)
        view["kind"] = self.kind
        view["you"] = actor if seat is not None else None
        view["seat"] = seat
        view["names"] = names
        view["colours"] = list(SEAT_COLOURS[:players])
        view["size"] = SIZE
        view["opening"] = list(OPENING_POINT)
        view["waiting_for"] = waiting
        if waiting and not engine.over:
            view["phase"] = "waiting"
        for entry in view["seats"]:
            entry["name"] = names[entry["seat"] - 1]
            entry["colour"] = SEAT_COLOURS[entry["seat"] - 1]
        view["to_move_name"] = self._name(state, view["to_move"])
        view["winner_names"] = [self._name(state, s) for s in view["winners"]]
        view["scores"] = self.scores(state, engine)
        if view["last"] is not None:
            view["last"]["meaning"] = STATUS_MEANINGS[view["last"]["status"]]
        legal: list[list[int]] = []
        squares: list[int] = []
        count = 0
        if seat is not None and not engine.over and not waiting:
            if engine.to_move == seat:
                legal = [list(move) for move in legal_placements(engine)]
                closes = {
                    tuple(move): len(closed)
                    for move, closed in iter_placements(engine, engine.hand(seat))
                }
                squares = [closes.get(tuple(move), 0) for move in legal]  # the opening: none
                count = len(legal)
            elif engine.started:
                count = sum(1 for _ in iter_placements(engine, engine.hand(seat)))
        view["legal"] = legal
        view["legal_squares"] = squares
        view["legal_count"] = count
        view["your_turn"] = seat is not None and not waiting and engine.to_move == seat
        view["left"] = [self._name(state, s) for s in engine.left]
        view["away_ms"] = away_ms(state)
        # When the seat to move has been away on its turn for the table's limit (the page adds
        # whether its player's page is open): the others may end the game then (end_left).
        to_move = view["to_move"]
        view["away_at"] = (
            int(state.get("last_ms", 0)) + away_ms(state)
            if to_move is not None and not waiting and "last_ms" in state
            else None
        )
        return view

    def status(self, state: dict) -> str:
        if state["game"]["over"]:
            return "over"
        return "waiting" if len(state["names"]) < self._players(state) else "active"

    def scores(self, state: dict, engine: GameState | None = None) -> dict[str, int]:
        """Return the squares each seated player closed (a tally for show, not the result)."""
        engine = engine or self.engine(state)
        return {name: engine.squares_closed(n) for n, name in enumerate(state["names"], 1)}

    rating_modes = {"square": "Square Game"}

    def play_now_options(self, mode: str, players: int) -> dict | None:
        """The options of a Play now table (games.pool): the one mode, for `players`."""
        return {"players": players} if mode == "square" else None

    def rating_mode(self, options: dict) -> str | None:
        """The one mode; a game continued from a save is not rated (it did not start equal)."""
        return None if options.get("save") is not None else "square"

    def rating(self, options: dict, state: dict) -> tuple[str, dict[str, int]] | None:
        """Rate a finished game: the winners share the first place, the others the second, and
        a seat that left (``end_left``) ranks last."""
        if self.rating_mode(options) is None:
            return None
        winners = set(state["game"]["winners"])
        left = set(state["game"].get("left", ()))
        return "square", {
            name: 0 if number in winners else 2 if number in left else 1
            for number, name in enumerate(state["names"], 1)
        }

    def story(self, options: dict, moves, **reader) -> list[dict]:
        """The game's log in words: joins, the opening, placements, passes, the end."""
        return game_story(options, moves, **reader)

    def rematch_options(self, options: dict, seed: int) -> dict:
        """The same game played again starts from the beginning, not from a save."""
        return {key: value for key, value in options.items() if key != "save"}

    stat_fields = {"games_won": "Games won"}

    def stats(self, options: dict, state: dict, moves) -> dict[str, dict]:
        """What each player of a finished game did, for profiles: whether they won."""
        winners = set(state["game"]["winners"])
        return {
            name: {"games_won": int(number in winners)}
            for number, name in enumerate(state["names"], 1)
        }

    def bot_actions(self, state: dict, name: str) -> list[dict] | None:
        """Return the computer's move when it is ``name``'s turn, else None.

        The move closes the most squares (ties broken by a ``Random`` seeded from the game's
        seed and the number of moves so far, so replays and reruns choose alike); it passes
        when nothing fits.
        """
        seat = self.seat_of(state, name)
        if seat is None or self.status(state) != "active":
            return None
        engine = self.engine(state)
        if engine.to_move != seat:
            return None
        rng = random.Random(f"square:{engine.seed}:{len(engine.history)}")
        return [choose_move(engine, rng)]


register(SquareKind())
