"""The multiplayer Set table: the shared parts and the "declare" rule set of the original server.

The authority is ``specs/set-table-protocol.md``; section numbers below (§4, §6, ...) refer to it.
Everything here is pure Python: a table's state is a plain JSON-able dict, time comes in as Unix
milliseconds (``now_ms``) and randomness as a seed, so the platform can store, replay and lock
games as it likes. No function mutates its input; each returns a new state, so an action that
raises `TableError` leaves the game exactly as it was.

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

Choices where the spec is silent (this module's rules):

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
- **Player names** follow the protocol's ``[A-Za-z0-9_]+`` (ASCII only) in every rule set.
- **Unknown options** are refused, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cards.engine.card import Card, parse_card
from cards.engine.deck import new_deck
from cards.engine.errors import SetError
from cards.engine.rules import count_sets, find_set, is_set

__all__ = [
    "AWAY_MS",
    "BAD_NAME",
    "BAD_PICK",
    "DECLARE_MS",
    "MAX_CLOCK_MS",
    "DeclareRules",
    "Result",
    "TableError",
    "is_player_name",
]

#: How long a declarer has to pick three cards (§4).
DECLARE_MS = 5000
#: How long without any request before a player is away (§7).
AWAY_MS = 60_000
#: The longest ``declare_ms`` or ``away_ms`` a table may be given: one day. A deadline is
#: ``now + declare_ms`` (or ``last_seen + away_ms``) in Unix ms, stored in a 64-bit column, so an
#: unbounded option would overflow the database on the first move.
MAX_CLOCK_MS = 86_400_000
#: Points for a correct set and for a wrong one or a timeout (§5).
SET_POINTS = 10
PENALTY_POINTS = 5

#: The protocol's error messages that the engine raises too (§10).
BAD_NAME = "Your player name ID contains non-alphanumeric characters."
BAD_PICK = "Your requested pick was not valid."

_NAME = re.compile(r"[A-Za-z0-9_]+")

#: A board position, (row, column).
Position = tuple[int, int]


class TableError(SetError):
    """Refuse an action or an option that the table's rules do not allow.

    ``str(error)`` is a sentence for a person; ``code`` is a short machine reason (``bad_pick``,
    ``bad_action``, ``bad_option``, ``bad_player``, ``not_seated``, ``locked_out``,
    ``just_taken``, ``not_on_board``, ``bad_claim``, ``game_over``).
    """

    def __init__(self, message: str, code: str = "bad_action") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Result:
    """Hold what one action or one tick did.

    ``state`` is the new state (a new dict; the input is untouched), ``outcome`` tells the acting
    player what happened, and ``event`` says whether it is a ``/watch`` event (§9): whether
    watchers should wake. An outcome may change the state without being an event (joining the
    declare queue, an ignored pick, a presence mark).
    """

    state: dict
    outcome: dict
    event: bool


# --- Shared helpers (also used by the classic rule set) ------------------------------------------


_ATOMS = frozenset({str, int, float, bool, type(None)})


def copy_state(state: Any) -> Any:
    """Return a deep copy of a JSON-able state (about 12x faster than ``copy.deepcopy``).

    Every action copies the whole state (a rejected one must leave it as it was), so the copy
    is on every move's path: texts and numbers, which cannot change, are taken as they are
    without a call each, and only dicts and lists are copied.

    >>> original = {"board": [["A"]], "scores": {"ann": 1}}
    >>> copied = copy_state(original)
    >>> copied["board"][0].append("B"); original["board"]
    [['A']]
    """
    kind = type(state)
    if kind is dict or (kind not in _ATOMS and isinstance(state, dict)):
        return {
            key: value if type(value) in _ATOMS else copy_state(value)
            for key, value in state.items()
        }
    if kind is list or (kind not in _ATOMS and isinstance(state, list)):
        return [value if type(value) in _ATOMS else copy_state(value) for value in state]
    return state


def is_player_name(name: object) -> bool:
    """Tell whether ``name`` follows the protocol's player grammar ``[A-Za-z0-9_]+`` (ASCII)."""
    return isinstance(name, str) and _NAME.fullmatch(name) is not None


def check_player(player: object) -> str:
    """Return ``player`` if it is a valid name; refuse it otherwise (code ``bad_player``)."""
    if not is_player_name(player):
        raise TableError(BAD_NAME, "bad_player")
    return player  # type: ignore[return-value]


@lru_cache(maxsize=8192)
def card_of(text: str, attributes: int) -> Card:
    """Return the card that the stored ``text`` names (cached: states keep cards as text)."""
    return parse_card(text, attributes)


def card_text(card: Card) -> str:
    """Return the text a state stores for ``card``: its protocol text, as the BOARD reply shows."""
    return card.protocol


def card_digits(card: Card) -> str:
    """Return ``card``'s digit string (one digit 0/1/2 per attribute), for views."""
    return card.digits


@lru_cache(maxsize=8192)
def card_json(text: str, attributes: int) -> dict[str, Any]:
    """Describe one stored card for a view: protocol text, digits and code.

    Every view of every seat describes the same few cards, so each is described once and the
    dict is shared: views merge it into a dict of their own (``{**card_json(...), ...}``) and
    never change it."""
    card = card_of(text, attributes)
    return {"card": text, "digits": card_digits(card), "code": card.code}


def find_set_in(texts: Sequence[str], attributes: int) -> tuple[int, int, int] | None:
    """Return the indexes into ``texts`` of one set among those cards, or None if there is none."""
    cards = [card_of(text, attributes) for text in texts]
    found = find_set(cards)
    if found is None:
        return None
    index = {card: i for i, card in enumerate(cards)}
    return tuple(sorted(index[card] for card in found))  # type: ignore[return-value]


def count_sets_in(texts: Sequence[str], attributes: int) -> int:
    """Return how many sets lie among ``texts`` (the "How many sets?" help)."""
    return count_sets([card_of(text, attributes) for text in texts])


def is_set_of(texts: Sequence[str], attributes: int) -> bool:
    """Tell whether the three stored cards form a set."""
    a, b, c = (card_of(text, attributes) for text in texts)
    return is_set(a, b, c)


def deal_deck(options: dict, attributes: int, seed: int, minimum: int) -> list[str]:
    """Return the table's deck as card texts: the ``deck`` option as given, or shuffled from seed.

    A given deck (tests, the spec's worked example) must name distinct cards of the table's
    attribute count, hold a multiple of 3 cards (§1) and at least ``minimum`` of them.
    """
    if "deck" not in options:
        return [card_text(card) for card in new_deck(attributes, rng=random.Random(seed))]
    return clean_deck(options["deck"], attributes, minimum)


def clean_deck(given: object, attributes: int, minimum: int) -> list[str]:
    """Return a given deck as canonical card texts, or raise naming what is wrong with it."""
    if not isinstance(given, list | tuple) or not all(isinstance(item, str) for item in given):
        raise TableError(
            "The deck option must be a list of card strings (leave it out to shuffle the deck); "
            f"got {_shown(given)}.",
            "bad_option",
        )
    if len(given) > 3**attributes:
        raise TableError(
            f"The deck option holds {len(given)} cards; a {attributes}-attribute deck has "
            f"{3**attributes}.",
            "bad_option",
        )
    texts = []
    for item in given:
        try:
            card = parse_card(item, attributes)
        except (SetError, ValueError) as error:
            message = f"The deck holds a card that is not valid: {error}"
            raise TableError(message, "bad_option") from None
        if card.attributes != attributes:
            raise TableError(
                f"The deck holds {_shown(item)}, which is not a {attributes}-attribute card.",
                "bad_option",
            )
        texts.append(card_text(card))
    if len(set(texts)) != len(texts):
        raise TableError("The deck holds the same card twice.", "bad_option")
    if len(texts) % 3 or len(texts) < minimum:
        raise TableError(
            f"The deck must hold a multiple of 3 cards, at least {minimum}; it holds {len(texts)}.",
            "bad_option",
        )
    return texts


def _shown(value: object, limit: int = 60) -> str:
    """Show a bad option value briefly: a pasted deck or a 4000-digit number stays readable."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def option_int(
    options: dict,
    key: str,
    default: int,
    allowed: Iterable[int] | None = None,
    *,
    maximum: int | None = None,
) -> int:
    """Return the integer option ``key`` (``default`` when absent), refusing a bad value.

    Without ``allowed`` the value must be at least 1 and, with ``maximum``, at most that.

    >>> option_int({"declare_ms": 2000}, "declare_ms", 5000, maximum=MAX_CLOCK_MS)
    2000
    >>> try:
    ...     option_int({"away_ms": 10**19}, "away_ms", 60000, maximum=MAX_CLOCK_MS)
    ... except TableError as error:
    ...     print(error)
    The away_ms option must be at most 86400000; got 10000000000000000000.
    """
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TableError(f"The {key} option must be an integer; got {_shown(value)}.", "bad_option")
    if allowed is not None:
        allowed = sorted(allowed)
        if value not in allowed:
            names = ", ".join(str(a) for a in allowed[:-1]) + f" or {allowed[-1]}"
            raise TableError(
                f"The {key} option must be {names}; got {_shown(value)}.", "bad_option"
            )
    elif value < 1:
        raise TableError(f"The {key} option must be positive; got {_shown(value)}.", "bad_option")
    elif maximum is not None and value > maximum:
        raise TableError(
            f"The {key} option must be at most {maximum}; got {_shown(value)}.", "bad_option"
        )
    return value


def check_options(options: object, known: Iterable[str]) -> dict:
    """Return ``options`` as a dict after refusing anything that is not a known option."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TableError("Options must be a mapping of option names to values.", "bad_option")
    known = tuple(known)
    unknown = sorted(map(str, set(options) - set(known)))
    if unknown:
        raise TableError(
            f"Unknown option(s): {', '.join(_shown(name, 40) for name in unknown)}; "
            f"known: {', '.join(known)}.",
            "bad_option",
        )
    return options


def check_action(action: object, kinds: Iterable[str]) -> str:
    """Return the action's type, refusing anything that is not one of ``kinds``."""
    kinds = tuple(kinds)
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise TableError('An action must be a mapping with a "type".', "bad_action")
    kind = action["type"]
    if kind not in kinds:
        raise TableError(
            f"Unknown action {kind!r}; this table knows {', '.join(kinds)}.", "bad_action"
        )
    return kind


def winners(scores: dict[str, int]) -> list[str]:
    """Return every player with the top score, sorted by name (ties share the win)."""
    if not scores:
        return []
    best = max(scores.values())
    return sorted(name for name, score in scores.items() if score == best)


_TALLY_KEYS = {"set": "sets", "wrong": "wrong", "timeout": "timeouts"}


def tally(state: dict, player: str, kind: str, *, hinted: bool = False) -> None:
    """Count a set, a wrong pick or claim, or a timeout for ``player`` in ``state["tally"]``.

    The state keeps counts, not a list of events: the move log holds every event with its
    outcome, and a state that grew with every move would make every move slower.
    """
    counts = state["tally"].setdefault(player, {"sets": 0, "hinted": 0, "wrong": 0, "timeouts": 0})
    counts[_TALLY_KEYS[kind]] += 1
    if hinted:
        counts["hinted"] += 1


def final_result(state: dict) -> dict:
    """Summarise a finished game: winners, scores, sets found and hinted sets per player."""
    counts = state["tally"]
    sets = {player: counts.get(player, {}).get("sets", 0) for player in state["players"]}
    hinted = {player: counts.get(player, {}).get("hinted", 0) for player in state["players"]}
    return {
        "winners": winners(state["scores"]),
        "scores": dict(state["scores"]),
        "sets": sets,
        "hinted": hinted,
        "ended_ms": state["ended_ms"],
    }


def is_present(state: dict, player: str, at_ms: int) -> bool:
    """Tell whether ``player`` has sent a request within the last ``away_ms`` before ``at_ms``."""
    return at_ms - state["last_seen"][player] < state["away_ms"]


def touch_state(state: dict, player: str, now_ms: int) -> dict:
    """Return a copy of ``state`` with ``player`` seen at ``now_ms`` (seated players only)."""
    if player not in state["last_seen"] or state["over"]:
        return state
    if state["last_seen"][player] >= now_ms:
        return state
    new = dict(state)
    new["last_seen"] = {**state["last_seen"], player: now_ms}
    return new


def record_hint(state: dict, player: str, cards: list[str], positions: list[Any]) -> dict:
    """Show ``player`` one card of a set among ``cards`` (mutating ``state``); return the outcome.

    ``positions[i]`` is how the view addresses ``cards[i]``. A still-valid earlier hint is shown
    again, so asking twice does not reveal a second set.
    """
    on_board = {text: i for i, text in enumerate(cards)}
    active = state["hints"].get(player)
    if active is not None and all(text in on_board for text in active["set"]):
        text = active["card"]
    else:
        found = find_set_in(cards, state["attributes"])
        if found is None:
            state["hints"].pop(player, None)
            return {"hint": None, "message": "There is no set on the board."}
        found_set = [cards[i] for i in found]
        text = found_set[0]
        state["hints"][player] = {"card": text, "set": found_set}
        shown = state["hinted_cards"].setdefault(player, [])
        if text not in shown:
            shown.append(text)
    return {
        "hint": {"card": text, "position": positions[on_board[text]]},
        "message": f"One card of a set on the board: {text}.",
    }


def active_hint(
    state: dict, player: str | None, cards: list[str], positions: list[Any]
) -> dict | None:
    """Return the viewer's hint while its whole set is still on the board, else None."""
    if player is None:
        return None
    hint = state["hints"].get(player)
    on_board = {text: i for i, text in enumerate(cards)}
    if hint is None or not all(text in on_board for text in hint["set"]):
        return None
    return {"card": hint["card"], "position": positions[on_board[hint["card"]]]}


def forget_cards(state: dict, removed: list[str]) -> None:
    """Drop hints about cards that left the board (mutating ``state``): they never come back."""
    gone = set(removed)
    for player in list(state["hints"]):
        if gone & set(state["hints"][player]["set"]):
            del state["hints"][player]
    for player in list(state["hinted_cards"]):
        kept = [text for text in state["hinted_cards"][player] if text not in gone]
        if kept:
            state["hinted_cards"][player] = kept
        else:
            del state["hinted_cards"][player]


def was_hinted(state: dict, player: str, cards: list[str]) -> bool:
    """Tell whether ``player`` was shown any of ``cards`` in a hint."""
    return bool(set(state["hinted_cards"].get(player, ())) & set(cards))


# --- The "declare" rule set -----------------------------------------------------------------------


def _board_cards(state: dict) -> list[str]:
    """Return the board's cards row by row (§3 order)."""
    return [text for row in state["board"] for text in row]


def _positions(state: dict) -> list[list[int]]:
    """Return the positions of `_board_cards`, in the same order."""
    return [[r, c] for r, row in enumerate(state["board"]) for c in range(len(row))]


def _cols(state: dict) -> int:
    """Return the board's column count (0 for a finished, empty 3x0 board)."""
    return len(state["board"][0])


def _penalise(state: dict, player: str, kind: str, at_ms: int, cards: list[str] | None) -> int:
    """Take the penalty from ``player`` (stopping at 0), log it, and return the points taken."""
    before = state["scores"][player]
    after = max(0, before - PENALTY_POINTS)
    state["scores"][player] = after
    tally(state, player, kind)
    return after - before


def _hand_over(state: dict, deadline: int) -> None:
    """Make the first queued player the declarer with ``deadline``, or leave nobody declaring."""
    state["picks"] = []
    if state["queue"]:
        state["declarer"] = state["queue"].pop(0)
        state["deadline"] = deadline
    else:
        state["declarer"] = None
        state["deadline"] = None


def _end_if_done(state: dict, at_ms: int) -> bool:
    """Run the end-of-game test of §8 (mutating ``state``); return True if the game just ended."""
    if state["deck"] or find_set_in(_board_cards(state), state["attributes"]) is not None:
        return False
    state.update(over=True, ended_ms=at_ms, declarer=None, deadline=None, queue=[], picks=[])
    state["votes"] = []
    return True


def _add_cards(state: dict, at_ms: int) -> dict:
    """Lay one deck card at the right end of each row (§7), clear votes, run the end test."""
    added = []
    for row in state["board"]:
        text = state["deck"].pop(0)
        row.append(text)
        added.append(text)
    state["votes"] = []
    over = _end_if_done(state, at_ms)
    return {"kind": "added", "at": at_ms, "cards": added, "over": over}


def _agreement_time(state: dict) -> int | None:
    """Return when away players alone complete the add agreement (§7), or None if they never do.

    That is the moment the last non-voter becomes away; it only exists while at least one vote is
    recorded and the deck can still deal.
    """
    if state["over"] or not state["votes"] or not state["deck"]:
        return None
    voted = set(state["votes"])
    waits = [state["last_seen"][p] + state["away_ms"] for p in state["players"] if p not in voted]
    return max(waits) if waits else None


def _agreed(state: dict, at_ms: int) -> bool:
    """Tell whether every present player has voted (and somebody has) at ``at_ms``."""
    if not state["votes"] or not state["deck"]:
        return False
    voted = set(state["votes"])
    return all(p in voted or not is_present(state, p, at_ms) for p in state["players"])


def _run_due(state: dict, now_ms: int) -> list[dict]:
    """Apply, in time order, everything time has done up to ``now_ms`` (mutating ``state``).

    Returns what happened: declare timeouts (each hands over to the next queued player with the
    old deadline + 5000, §4) and cards added when players became away (§7).
    """
    happened: list[dict] = []
    while not state["over"]:
        deadline = state["deadline"] if state["declarer"] is not None else None
        agreement = _agreement_time(state)
        due = [t for t in (deadline, agreement) if t is not None and t <= now_ms]
        if not due:
            break
        at = min(due)
        if at == deadline:
            player = state["declarer"]
            delta = _penalise(state, player, "timeout", at, None)
            _hand_over(state, at + state["declare_ms"])
            happened.append(
                {
                    "kind": "timeout",
                    "at": at,
                    "player": player,
                    "delta": delta,
                    "score": state["scores"][player],
                    "declarer": state["declarer"],
                }
            )
        else:
            happened.append(_add_cards(state, at))
    return happened


class TableRules:
    """What both rule sets read the same way from a table state."""

    @staticmethod
    def is_over(state: dict) -> bool:
        """Tell whether the game has ended."""
        return bool(state["over"])

    @staticmethod
    def scores(state: dict) -> dict[str, int]:
        """Return every player's score (name -> score)."""
        return dict(state["scores"])

    @staticmethod
    def players(state: dict) -> list[str]:
        """Return the players in join order."""
        return list(state["players"])

    @staticmethod
    def result(state: dict) -> dict | None:
        """Return the final result (winners, scores, sets, hinted sets) once over, else None."""
        return final_result(state) if state["over"] else None


class DeclareRules(TableRules):
    """The "declare" table of the original Set server, exactly as the protocol spec says.

    Stateless: every method takes and returns plain state dicts. State keys:

    ``rules`` ("declare"), ``attributes`` (3 or 4), ``default_cols`` (D = attributes),
    ``declare_ms``, ``away_ms``, ``created_ms``, ``board`` (3 rows of card texts, row 0 on top),
    ``deck`` (the cards still to deal, front first), ``taken`` (cards removed by sets, in order),
    ``players`` (names in join order), ``scores`` (name -> score), ``votes`` (voters in vote
    order), ``last_seen`` (name -> ms of the last request), ``declarer`` (name or None),
    ``deadline`` (ms or None), ``queue`` (FIFO of names waiting to declare; never shown),
    ``picks`` (the declarer's [row, col] picks in order), ``hints`` (name -> {card, set}: the
    last hint shown), ``hinted_cards`` (name -> cards ever shown to that player and still on
    the board), ``tally`` (per player: sets, hinted sets, wrong picks, timeouts; each event itself,
    with its points and the delta applied after the floor at 0, is in the move's outcome), ``over``,
    ``ended_ms``.
    """

    name = "declare"
    actions = ("join", "look", "watch", "declare", "pick", "add", "hint", "count")

    # -- creation ---------------------------------------------------------------------------------

    @staticmethod
    def new_state(*, options: dict | None = None, seed: int = 0, now_ms: int = 0) -> dict:
        """Deal a fresh declare table: shuffle (or take the given deck) and lay 3 rows of D cards.

        Options: ``attributes`` (3 or 4, default 4), ``deck`` (card strings in deck order),
        ``away_ms`` (default 60000), ``declare_ms`` (default 5000).
        """
        options = DeclareRules.clean_options(options)
        attributes = options.get("attributes", 4)
        away_ms = options.get("away_ms", AWAY_MS)
        declare_ms = options.get("declare_ms", DECLARE_MS)
        deck = deal_deck(options, attributes, seed, 3 * attributes)
        cols = attributes
        board = [deck[r * cols : (r + 1) * cols] for r in range(3)]
        state = {
            "rules": DeclareRules.name,
            "attributes": attributes,
            "default_cols": cols,
            "declare_ms": declare_ms,
            "away_ms": away_ms,
            "created_ms": now_ms,
            "board": board,
            "deck": deck[3 * cols :],
            "taken": [],
            "players": [],
            "scores": {},
            "votes": [],
            "last_seen": {},
            "declarer": None,
            "deadline": None,
            "queue": [],
            "picks": [],
            "hints": {},
            "hinted_cards": {},
            "tally": {},
            "over": False,
            "ended_ms": None,
        }
        _end_if_done(state, now_ms)
        return state

    @staticmethod
    def clean_options(options: object) -> dict:
        """Return the options checked and in canonical form; raise `TableError` naming the first
        bad one.

        Known options, each optional: ``attributes`` (3 or 4), ``deck`` (distinct card strings
        of that size, a multiple of 3, at least a board; stored as protocol texts),
        ``declare_ms`` and ``away_ms`` (whole milliseconds, 1 to `MAX_CLOCK_MS`). Only the
        options given are returned, so defaults stay the engine's.

        >>> DeclareRules.clean_options({"attributes": 3, "declare_ms": 2000})
        {'attributes': 3, 'declare_ms': 2000}
        """
        options = check_options(options, ("attributes", "deck", "away_ms", "declare_ms"))
        attributes = option_int(options, "attributes", 4, (3, 4))
        cleaned: dict[str, Any] = {}
        if "attributes" in options:
            cleaned["attributes"] = attributes
        if "deck" in options:
            cleaned["deck"] = clean_deck(options["deck"], attributes, 3 * attributes)
        for key, default in (("declare_ms", DECLARE_MS), ("away_ms", AWAY_MS)):
            if key in options:
                cleaned[key] = option_int(options, key, default, maximum=MAX_CLOCK_MS)
        return cleaned

    # -- actions ----------------------------------------------------------------------------------

    @staticmethod
    def apply(state: dict, player: str, action: dict, now_ms: int) -> Result:
        """Handle one request of ``player`` at ``now_ms`` and return the new state.

        Every expired deadline is applied first (§4). Actions: ``join``, ``look`` and ``watch``
        (join if new, otherwise only mark presence), ``declare``, ``pick`` (``row``, ``col``),
        ``add`` (vote) and ``hint``. Each joins a new player. A finished table changes nothing.
        """
        kind = check_action(action, DeclareRules.actions)
        check_player(player)
        new = copy_state(state)
        expired = _run_due(new, now_ms)
        ticked = bool(expired)
        position = _check_pick(new, action) if kind == "pick" else None
        outcome: dict[str, Any] = {"action": kind, "joined": False, "expired": expired}
        if new["over"]:
            outcome.update(over=True, changed=ticked)
            return Result(new, outcome, ticked)

        joined = player not in new["scores"]
        if joined:
            new["players"].append(player)
            new["scores"][player] = 0
        new["last_seen"][player] = now_ms
        outcome["joined"] = joined
        handler = _HANDLERS.get(kind)
        event = handler(new, player, action, now_ms, position, outcome) if handler else False
        outcome["over"] = new["over"]
        return Result(new, outcome, joined or ticked or event)

    @staticmethod
    def tick(state: dict, now_ms: int) -> Result:
        """Apply every expired declare deadline and away-completed add agreement up to now."""
        new = copy_state(state)
        expired = _run_due(new, now_ms)
        outcome = {"action": "tick", "expired": expired, "over": new["over"]}
        return Result(new, outcome, bool(expired))

    @staticmethod
    def next_deadline(state: dict) -> int | None:
        """Return the earliest ms at which `tick` changes the table, or None if time never will.

        It is the declare deadline or the moment the last non-voting player becomes away while
        votes are pending. It can lie in the past for a state not ticked yet: tick it then.
        """
        times = [_agreement_time(state)]
        if state["declarer"] is not None and not state["over"]:
            times.append(state["deadline"])
        times = [t for t in times if t is not None]
        return min(times) if times else None

    @staticmethod
    def touch(state: dict, player: str, now_ms: int) -> dict:
        """Return the state with ``player`` marked present at ``now_ms``; nothing else changes.

        Use it while a ``/watch`` waits (a pending watch counts as a request, §7). It does not
        join unknown players and is not an event. Call `tick` first if a deadline may have passed,
        so an agreement completed by this player's absence is not lost.
        """
        return touch_state(state, player, now_ms)

    # -- reading ----------------------------------------------------------------------------------

    @staticmethod
    def view(state: dict, player: str | None, now_ms: int) -> dict:
        """Draw the table for ``player`` (None: a spectator) at ``now_ms`` as JSON-able data.

        Due deadlines are applied to the drawing (not to ``state``). The declare queue and the
        deck order are never shown; only the declarer sees their own picks, as in BOARD.
        """
        state = _run_due_copy(state, now_ms)
        attributes = state["attributes"]
        declarer = state["declarer"]
        mine = player is not None and player == declarer
        picks = [list(p) for p in state["picks"]] if mine else []
        board = [
            [
                {**card_json(text, attributes), "picked": [r, c] in picks}
                for c, text in enumerate(row)
            ]
            for r, row in enumerate(state["board"])
        ]
        if declarer is None:
            declare = {"state": "none", "declarer": None, "deadline": None}
        else:
            who = "my" if mine else "up"
            declare = {"state": who, "declarer": declarer, "deadline": state["deadline"]}
        present = [p for p in state["players"] if is_present(state, p, now_ms)]
        return {
            "rules": DeclareRules.name,
            "attributes": attributes,
            "rows": 3,
            "cols": _cols(state),
            "default_cols": state["default_cols"],
            "board": board,
            "declare": declare,
            "picks": picks,
            "you": player,
            "seated": player in state["scores"],
            "scores": dict(sorted(state["scores"].items())),
            "votes": sorted(state["votes"]),
            "players": sorted(state["players"]),
            "present": sorted(present),
            "away": sorted(set(state["players"]) - set(present)),
            "deck_left": len(state["deck"]),
            "hint": active_hint(state, player, _board_cards(state), _positions(state)),
            "over": state["over"],
            "result": final_result(state) if state["over"] else None,
            "next_deadline": DeclareRules.next_deadline(state),
        }


def _run_due_copy(state: dict, now_ms: int) -> dict:
    """Return ``state`` with due deadlines applied, copying only when something is due."""
    next_at = DeclareRules.next_deadline(state)
    if next_at is None or next_at > now_ms:
        return state
    new = copy_state(state)
    _run_due(new, now_ms)
    return new


def _check_pick(state: dict, action: dict) -> Position:
    """Return the pick's (row, col), refusing one that is not a position on the board (§5)."""
    row, col = action.get("row"), action.get("col")
    for value in (row, col):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TableError(BAD_PICK, "bad_pick")
    if not (0 <= row < len(state["board"]) and 0 <= col < _cols(state)):
        raise TableError(BAD_PICK, "bad_pick")
    return row, col


def _join(
    state: dict, player: str, action: dict, now_ms: int, position: Position | None, outcome: dict
) -> bool:
    """Join or look: only the join itself (handled by apply) is an event."""
    return False


def _declare(
    state: dict, player: str, action: dict, now_ms: int, position: Position | None, outcome: dict
) -> bool:
    """Declare (§4): become the declarer, join the queue, or nothing if already in either."""
    if state["declarer"] == player or player in state["queue"]:
        outcome["declare"] = "already"
        return False
    if state["declarer"] is None:
        state["declarer"] = player
        state["deadline"] = now_ms + state["declare_ms"]
        state["picks"] = []
        outcome.update(declare="declarer", deadline=state["deadline"])
        return True
    state["queue"].append(player)
    outcome["declare"] = "queued"
    return False


def _pick(
    state: dict, player: str, action: dict, now_ms: int, position: Position | None, outcome: dict
) -> bool:
    """Pick or deselect (§5); judge at the third pick; ignore picks by anyone but the declarer."""
    row, col = position
    outcome["position"] = [row, col]
    if state["declarer"] != player:
        outcome["pick"] = "ignored"
        return False
    picks = state["picks"]
    if [row, col] in picks:
        picks.remove([row, col])
        outcome["pick"] = "deselected"
        return True
    picks.append([row, col])
    if len(picks) < 3:
        outcome["pick"] = "picked"
        return True
    cards = [state["board"][r][c] for r, c in picks]
    outcome["cards"] = cards
    if is_set_of(cards, state["attributes"]):
        _score_set(state, player, cards, now_ms, outcome)
    else:
        delta = _penalise(state, player, "wrong", now_ms, cards)
        _hand_over(state, now_ms + state["declare_ms"])
        outcome.update(pick="not_set", points=-PENALTY_POINTS, delta=delta, hinted=False)
    outcome["score"] = state["scores"][player]
    return True


def _score_set(state: dict, player: str, cards: list[str], now_ms: int, outcome: dict) -> None:
    """Score a correct set (§5), change the board (§6) and run the end test (§8)."""
    hinted = was_hinted(state, player, cards)
    state["scores"][player] += SET_POINTS
    tally(state, player, "set", hinted=hinted)
    picks = state["picks"]
    state.update(declarer=None, deadline=None, queue=[], votes=[], picks=[])
    state["taken"].extend(cards)
    forget_cards(state, cards)
    if _cols(state) <= state["default_cols"] and state["deck"]:
        for r, c in picks:
            state["board"][r][c] = state["deck"].pop(0)
        outcome["board"] = "replaced"
    else:
        picked = {(r, c) for r, c in picks}
        kept = [
            text
            for r, row in enumerate(state["board"])
            for c, text in enumerate(row)
            if (r, c) not in picked
        ]
        cols = len(kept) // 3
        state["board"] = [kept[r * cols : (r + 1) * cols] for r in range(3)]
        outcome["board"] = "reflowed"
    outcome.update(pick="set", points=SET_POINTS, delta=SET_POINTS, hinted=hinted)
    _end_if_done(state, now_ms)


def _add(
    state: dict, player: str, action: dict, now_ms: int, position: Position | None, outcome: dict
) -> bool:
    """Vote to add cards (§7); add them at once when every present player has voted."""
    if not state["deck"]:
        outcome.update(vote="ignored", added=None)
        return False
    if player in state["votes"]:
        outcome.update(vote="repeated", added=None)
        return False
    state["votes"].append(player)
    outcome.update(vote="recorded", added=None)
    if _agreed(state, now_ms):
        outcome["added"] = _add_cards(state, now_ms)["cards"]
    return True


def _hint(
    state: dict, player: str, action: dict, now_ms: int, position: Position | None, outcome: dict
) -> bool:
    """Show the player one card of a set on the board; never an event."""
    outcome.update(record_hint(state, player, _board_cards(state), _positions(state)))
    return False


def _count(
    state: dict, player: str, action: dict, now_ms: int, position: Position | None, outcome: dict
) -> bool:
    """Tell the player how many sets the board holds; a question, never an event."""
    outcome["count"] = count_sets_in(_board_cards(state), state["attributes"])
    return False


_HANDLERS = {
    "count": _count,
    "join": _join,
    "look": _join,
    "watch": _join,
    "declare": _declare,
    "pick": _pick,
    "add": _add,
    "hint": _hint,
}
