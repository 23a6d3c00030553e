"""The plain-text protocol of the Set table: BOARD and SCORES replies, and parsing request paths.

Byte for byte as ``specs/set-table-protocol.md`` §2, §3, §5 and §10 say, for a "declare" table
state (`cards.engine.table.DeclareState`). The platform's protocol views do three things:

1. ``table_id, route = split_table(path)`` - which table the path addresses (None: the default
   table) and the route part; a bad ``/tables/<id>`` raises `ProtocolError` with "There is no
   table with that id." The platform then looks the table up and answers that same message when
   it does not exist, before reading the route (so a missing table wins over a bad route).
2. ``request = parse_route(route, table_id)`` - the route, player and pick, or a `ProtocolError`
   carrying the exact 404 message. `parse_request` does 1 and 2 at once.
3. Apply ``request.action()`` (None for ``/scores``) with the engine, then reply with
   `board_text` or `scores_text` as ``request.reply`` says. An off-board pick is refused by the
   engine with `cards.engine.table.TableError` (code ``bad_pick``) whose message is the same
   "Your requested pick was not valid.", so it maps to the same 404.

Paths: pass the raw path (query string allowed; it is ignored) and it is percent-decoded here;
pass ``decoded=True`` when the framework has decoded it already (Django's ``request.path``), so
nothing is decoded twice.

>>> parse_request("/tables/7/pick/alice/0,1?x=1")
Request(route='pick', player='alice', row=0, col=1, table_id=7)
>>> parse_request("/scores/").message
Traceback (most recent call last):
...
cards.engine.protocol_text.ProtocolError: There should be no additional characters following /scores in the request.
"""  # noqa: E501

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from urllib.parse import unquote

from cards.engine.errors import SetError
from cards.engine.table.base import BAD_NAME, BAD_PICK
from cards.engine.table.codes import texts
from cards.engine.table.state import DeclareState, TableState

__all__ = [
    "BAD_NAME",
    "BAD_PICK",
    "BAD_WATCH_NAME",
    "BAD_SCORES",
    "NO_TABLE",
    "UNKNOWN",
    "ProtocolError",
    "Request",
    "board_text",
    "scores_text",
    "error_text",
    "split_table",
    "parse_route",
    "parse_request",
]

BAD_WATCH_NAME = "Your player name ID may only consist of alphanumeric characters."
BAD_SCORES = "There should be no additional characters following /scores in the request."
NO_TABLE = "There is no table with that id."
UNKNOWN = "Unknown request."

# A name is at most 40 characters (this project's rule): a seat's name is stored in 40, and the
# JSON API takes the same names.
MAX_NAME_LENGTH = 40
_PLAYER = re.compile(rf"[A-Za-z0-9_]{{1,{MAX_NAME_LENGTH}}}")
_PICK = re.compile(rf"([A-Za-z0-9_]{{1,{MAX_NAME_LENGTH}}})/([0-9]+),([0-9]+)")
_TABLE_ID = re.compile(r"[0-9]+")
# Longer numbers are certainly off the board (and would be slow or refused by int()).
_MAX_DIGITS = 9

# Routes whose argument is a player name, with the message for a bad name.
_NAME_ROUTES = {"look": BAD_NAME, "declare": BAD_NAME, "add": BAD_NAME, "watch": BAD_WATCH_NAME}


class ProtocolError(SetError):
    """Refuse a request path: ``message`` is the spec's one-line 404 message (§10).

    ``table_id`` is the table the path named, when it named one and the error concerns the route
    (the reply's ``X-Table-Id``); ``status`` is always 404.
    """

    status = 404

    def __init__(self, message: str, table_id: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.table_id = table_id

    @property
    def body(self) -> str:
        """Return the reply body: the message and a newline."""
        return error_text(self.message)


@dataclass(frozen=True)
class Request:
    """One parsed protocol request: its route, player and pick, and the table it addresses.

    ``table_id`` None means the default table (a bare route).
    """

    route: str
    player: str | None = None
    row: int | None = None
    col: int | None = None
    table_id: int | None = None

    @property
    def reply(self) -> str:
        """Return which reply the route gets: "BOARD" or "SCORES"."""
        return "SCORES" if self.route in ("add", "scores") else "BOARD"

    @property
    def joins(self) -> bool:
        """Tell whether the request joins a new player (every route but ``/scores``)."""
        return self.route != "scores"

    def action(self) -> dict | None:
        """Return the engine action for this request, or None for ``/scores`` (no action)."""
        if self.route == "scores":
            return None
        if self.route == "pick":
            return {"type": "pick", "row": self.row, "col": self.col}
        return {"type": self.route}


def error_text(message: str) -> str:
    """Return an error reply body: the one-line message and ``\\n``."""
    return message + "\n"


def _strip_query(path: str) -> str:
    return path.split("?", 1)[0]


def split_table(path: str, *, decoded: bool = False) -> tuple[int | None, str]:
    """Split a request path into the table id it names (None: default table) and its route.

    ``/tables/7/look/bob`` gives ``(7, "/look/bob")``; ``/look/bob`` gives ``(None,
    "/look/bob")``. An id that is not digits raises `ProtocolError` (``NO_TABLE``).

    >>> split_table("/tables/7/look/bob")
    (7, '/look/bob')
    >>> split_table("/look/b%6Fb")
    (None, '/look/bob')
    """
    if not decoded:
        path = unquote(_strip_query(path), errors="replace")
    if not path.startswith("/tables/"):
        return None, path
    text, slash, rest = path[len("/tables/") :].partition("/")
    if not _TABLE_ID.fullmatch(text) or len(text) > 18 or int(text) < 1:
        raise ProtocolError(NO_TABLE)
    return int(text), slash + rest


def parse_route(route: str, table_id: int | None = None) -> Request:
    """Parse the route part of a path (already decoded, no query) into a `Request`.

    Raises `ProtocolError` with the spec's message for the route: a bad player name, a bad pick,
    characters after ``/scores``, or an unknown request.
    """
    if route == "/scores":
        return Request("scores", table_id=table_id)
    if route.startswith("/scores"):
        raise ProtocolError(BAD_SCORES, table_id)
    head, _, rest = route[1:].partition("/") if route.startswith("/") else ("", "", "")
    if head == "pick":
        match = _PICK.fullmatch(rest)
        if match is None or max(len(match[2]), len(match[3])) > _MAX_DIGITS:
            raise ProtocolError(BAD_PICK, table_id)
        return Request("pick", match[1], int(match[2]), int(match[3]), table_id)
    if head in _NAME_ROUTES:
        if _PLAYER.fullmatch(rest) is None:
            raise ProtocolError(_NAME_ROUTES[head], table_id)
        return Request(head, rest, table_id=table_id)
    raise ProtocolError(UNKNOWN, table_id)


def parse_request(path: str, *, decoded: bool = False) -> Request:
    """Parse a whole request path (bare or ``/tables/<id>/...``) into a `Request`.

    >>> parse_request("/watch/bob")
    Request(route='watch', player='bob', row=None, col=None, table_id=None)
    """
    table_id, route = split_table(path, decoded=decoded)
    return parse_route(route, table_id)


def board_text(state: DeclareState, player: str | None) -> str:
    """Draw the BOARD reply of a declare table for ``player`` (§3), ``\\n`` line endings.

    Due deadlines must have been applied to ``state`` (the platform ticks before replying).

    >>> from cards.engine.table import DeclareRules
    >>> deck = ["ONE/RED/SOLID/SQUIGGLE", "TWO/RED/SOLID/SQUIGGLE", "THREE/RED/SOLID/SQUIGGLE"]
    >>> deck += ["ONE/GREEN/SOLID/SQUIGGLE", "TWO/GREEN/OPEN/SQUIGGLE"]
    >>> deck += ["THREE/PURPLE/OPEN/SQUIGGLE"]
    >>> deck += ["ONE/PURPLE/STRIPED/SQUIGGLE", "TWO/GREEN/SOLID/SQUIGGLE", "ONE/RED/OPEN/SQUIGGLE"]
    >>> state = DeclareRules.new_state(options={"attributes": 3, "deck": deck}, seed=0, now_ms=0)
    >>> print(board_text(state, "alice"), end="")
    3x3
    none
    up ONE/RED/SOLID/SQUIGGLE
    up TWO/RED/SOLID/SQUIGGLE
    up THREE/RED/SOLID/SQUIGGLE
    up ONE/GREEN/SOLID/SQUIGGLE
    up TWO/GREEN/OPEN/SQUIGGLE
    up THREE/PURPLE/OPEN/SQUIGGLE
    up ONE/PURPLE/STRIPED/SQUIGGLE
    up TWO/GREEN/SOLID/SQUIGGLE
    up ONE/RED/OPEN/SQUIGGLE
    """
    board = state.board
    declaring = state.declaring
    mine = declaring is not None and player is not None and declaring.declarer == player
    if declaring is None:
        declare = "none"
    else:
        declare = f"{'my' if mine else 'up'} {declaring.deadline}"
    up, my = _card_lines(state.attributes)
    if mine and declaring.picks:
        picks = declaring.picks
        lines = [
            my[card] if (r, c) in picks else up[card]
            for r, row in enumerate(board)
            for c, card in enumerate(row)
        ]
    else:
        lines = [up[card] for row in board for card in row]
    return f"{len(board)}x{len(board[0]) if board else 0}\n{declare}\n" + "".join(lines)


@cache
def _card_lines(attributes: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return each card's BOARD line, by code: as not picked ("up") and as picked ("my")."""
    return (
        tuple(f"up {text}\n" for text in texts(attributes)),
        tuple(f"my {text}\n" for text in texts(attributes)),
    )


def scores_text(state: TableState) -> str:
    """Draw the SCORES reply (§3): one ``name score vote`` line per player, sorted by name.

    >>> from cards.engine.table import DeclareRules
    >>> state = DeclareRules.new_state(seed=1)
    >>> for name, action in (("bob", "look"), ("alice", "add")):
    ...     state = DeclareRules.apply(state, name, {"type": action}, 0).state
    >>> print(scores_text(state), end="")
    alice 0 add
    bob 0 none
    """
    votes = set(state.votes) if isinstance(state, DeclareState) else set()
    return "".join(
        f"{name} {score} {'add' if name in votes else 'none'}\n"
        for name, score in sorted(state.scores.items())
    )
