"""What both rule sets of the Set table do alike: options, actions, presence, hints, tallies.

Every function here is pure: it takes a state (`cards.engine.table.state`) and returns a new one
(or the same one when nothing changes), so a refused action leaves the table as it was.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from cards.engine.card import parse_card
from cards.engine.errors import SetError
from cards.engine.fast import shuffled_codes
from cards.engine.table.base import BAD_NAME, START_MS, TableError
from cards.engine.table.codes import set_at, text_of
from cards.engine.table.state import (
    Hint,
    TableState,
    Tally,
    frozen,
    with_entry,
    without_entry,
)

__all__ = [
    "Claims",
    "Result",
    "TableRules",
    "active_hint",
    "check_action",
    "check_options",
    "check_player",
    "clean_deck",
    "deal_deck",
    "end_left",
    "final_result",
    "forgotten",
    "is_player_name",
    "is_present",
    "option_int",
    "record_hint",
    "refuse_before_deal",
    "seat",
    "start_option",
    "start_table",
    "start_view",
    "tallied",
    "touch_state",
    "was_hinted",
    "winners",
]

S = TypeVar("S", bound=TableState)

# Letters and digits of any script (\w is Unicode-aware), "_" and "-": the site's names. The text
# protocol's names are narrower, ``[A-Za-z0-9_]+``, and it checks them itself (protocol_text).
_NAME = re.compile(r"[\w-]+")


@dataclass(frozen=True)
class Result:
    """Hold what one action or one tick did.

    ``state`` is the new state (the input is never changed: it is frozen), ``outcome`` tells the
    acting player what happened, and ``event`` says whether it is a ``/watch`` event (§9):
    whether watchers should wake. An outcome may change the state without being an event
    (joining the declare queue, an ignored pick, a presence mark).
    """

    state: TableState
    outcome: dict
    event: bool


# --- players, options, actions --------------------------------------------------------------------


def is_player_name(name: object) -> bool:
    """Tell whether ``name`` is a player's name: letters and digits of any script, ``_`` and
    ``-`` (the text protocol allows only ``[A-Za-z0-9_]+`` and checks that itself).

    >>> is_player_name("alice_2"), is_player_name("Zoë"), is_player_name("李雷")
    (True, True, True)
    >>> is_player_name(""), is_player_name("a b"), is_player_name("<b>")
    (False, False, False)
    """
    return isinstance(name, str) and _NAME.fullmatch(name) is not None


def check_player(player: object) -> str:
    """Return ``player`` if it is a valid name; refuse it otherwise (code ``bad_player``)."""
    if not is_player_name(player):
        raise TableError(BAD_NAME, "bad_player")
    return player  # type: ignore[return-value]


def deal_deck(options: dict, attributes: int, seed: int, minimum: int, base: int = 3) -> list[int]:
    """Return the table's deck as card codes: the ``deck`` option as given, or shuffled from seed.

    A given deck (tests, the spec's worked example) must name distinct cards of the table's
    attribute count, hold a multiple of 3 cards (§1) and at least ``minimum`` of them. ``base``
    is the values an attribute has (4 in a 4Set deck, whose given deck may hold any number of
    cards).
    """
    if "deck" not in options:
        return list(shuffled_codes(base**attributes, random.Random(seed)))
    return [card.code for card in _deck_cards(options["deck"], attributes, minimum, base)]


def clean_deck(given: object, attributes: int, minimum: int, base: int = 3) -> list[str]:
    """Return a given deck as canonical card texts, or raise naming what is wrong with it."""
    return [card.protocol for card in _deck_cards(given, attributes, minimum, base)]


def _deck_cards(given: object, attributes: int, minimum: int, base: int = 3) -> list:
    if not isinstance(given, list | tuple) or not all(isinstance(item, str) for item in given):
        raise TableError(
            "The deck option must be a list of card strings (leave it out to shuffle the deck); "
            f"got {_shown(given)}.",
            "bad_option",
        )
    if len(given) > base**attributes:
        raise TableError(
            f"The deck option holds {len(given)} cards; a {attributes}-attribute deck has "
            f"{base**attributes}.",
            "bad_option",
        )
    cards = []
    for item in given:
        try:
            card = parse_card(item, attributes, base)
        except (SetError, ValueError) as error:
            message = f"The deck holds a card that is not valid: {error}"
            raise TableError(message, "bad_option") from None
        if card.attributes != attributes:
            raise TableError(
                f"The deck holds {_shown(item)}, which is not a {attributes}-attribute card.",
                "bad_option",
            )
        cards.append(card)
    if len(set(cards)) != len(cards):
        raise TableError("The deck holds the same card twice.", "bad_option")
    if base == 4 and len(cards) < minimum:  # a 4Set deck (64 or 256 cards) is dealt as it is
        raise TableError(
            f"The deck must hold at least {minimum} cards; it holds {len(cards)}.", "bad_option"
        )
    if base == 3 and (len(cards) % 3 or len(cards) < minimum):
        raise TableError(
            f"The deck must hold a multiple of 3 cards, at least {minimum}; it holds {len(cards)}.",
            "bad_option",
        )
    return cards


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

    >>> from cards.engine.table.base import MAX_CLOCK_MS
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


# --- players at the table ---------------------------------------------------------------------


def seat(state: S, player: str, now_ms: int) -> S:
    """Return the state with ``player`` seated (if new) and seen at ``now_ms``."""
    if player in state.scores:
        if state.last_seen[player] == now_ms:
            return state
        return state.evolve(last_seen=with_entry(state.last_seen, player, now_ms))
    return state.evolve(
        players=(*state.players, player),
        scores=with_entry(state.scores, player, 0),
        last_seen=with_entry(state.last_seen, player, now_ms),
    )


def is_present(state: TableState, player: str, at_ms: int) -> bool:
    """Tell whether ``player`` has sent a request within the last ``away_ms`` before ``at_ms``."""
    return at_ms - state.last_seen[player] < state.away_ms


def touch_state(state: S, player: str, now_ms: int) -> S:
    """Return ``state`` with ``player`` seen at ``now_ms`` (seated players only, never earlier)."""
    seen = state.last_seen.get(player)
    if seen is None or seen >= now_ms or state.over:
        return state
    return state.evolve(last_seen=with_entry(state.last_seen, player, now_ms))


def winners(scores: Mapping[str, int]) -> list[str]:
    """Return every player with the top score, sorted by name (ties share the win).

    >>> winners({"bo": 20, "ann": 20, "cy": 5})
    ['ann', 'bo']
    """
    if not scores:
        return []
    best = max(scores.values())
    return sorted(name for name, score in scores.items() if score == best)


def tallied(
    tally: Mapping[str, Tally],
    player: str,
    *,
    sets: int = 0,
    wrong: int = 0,
    timeouts: int = 0,
    hinted: bool = False,
    hints: int = 0,
) -> Mapping[str, Tally]:
    """Return the tallies with a set, a wrong pick or claim, a timeout or a hint taken counted
    for ``player``.

    >>> tallied({}, "ann", sets=1, hinted=True)
    mappingproxy({'ann': Tally(sets=1, hinted=1, wrong=0, timeouts=0, hints=0)})
    """
    counts = tally.get(player, _NO_TALLY).add(
        sets=sets, wrong=wrong, timeouts=timeouts, hinted=int(hinted), hints=hints
    )
    return with_entry(tally, player, counts)


_NO_TALLY = Tally()


def end_left(state: S, player: str, action: dict, now_ms: int, **ended: Any) -> S:
    """End the game because the seat ``action["seat"]`` left: away (no request) for longer than
    the table's ``away_ms``. Asked by another seated player (``player``); the leaver ranks last
    and wins nothing. ``ended`` are the rule set's own fields to clear as the game ends (a
    classic table's lock-outs, a declare table's declare in progress and votes).

    Refused (``bad_action``) for a name that has no seat or is the asker's own, and
    (``not_away``, a conflict) while the seat is still here.
    """
    name = action.get("seat")
    if not isinstance(name, str) or name not in state.scores:
        raise TableError(
            'Say who left: {"type": "end_left", "seat": <a seat\'s name>}.', "bad_action"
        )
    if name == player:
        raise TableError("You cannot end the game because you left: you are here.", "bad_action")
    if is_present(state, name, now_ms):
        seen_s = (now_ms - state.last_seen[name]) // 1000
        raise TableError(
            f"{name} is still here (seen {seen_s} s ago); a player is gone after "
            f"{state.away_ms // 1000} s away.",
            "not_away",
        )
    return state.evolve(over=True, ended_ms=now_ms, left=(*state.left, name), **ended)


def final_result(state: TableState) -> dict:
    """Summarise a finished game: winners, scores, sets found and hinted sets per player."""
    counts = state.tally
    sets = {player: counts.get(player, _NO_TALLY).sets for player in state.players}
    hinted = {player: counts.get(player, _NO_TALLY).hinted for player in state.players}
    left = set(state.left)
    stayed = {name: score for name, score in state.scores.items() if name not in left}
    result = {
        # Who left (end_left) wins nothing, whatever the score: they rank last.
        "winners": winners(stayed),
        "scores": dict(state.scores),
        "sets": sets,
        "hinted": hinted,
        "ended_ms": state.ended_ms,
    }
    if state.left:
        result["left"] = list(state.left)
    return result


# --- the start -------------------------------------------------------------------------------

#: The ``start`` option's values: deal when the table is made, or wait for a player's start.
START_CHOICES = ("now", "wait")
#: What a player may do at a table still waiting for its deal.
BEFORE_DEAL = frozenset({"join", "look", "watch", "start"})


def start_option(options: dict) -> str:
    """Return the ``start`` option (``"now"`` when absent), refusing any other value.

    >>> start_option({}), start_option({"start": "wait"})
    ('now', 'wait')
    """
    value = options.get("start", "now")
    if value not in START_CHOICES:
        raise TableError(
            f"The start option must be 'now' (deal at once) or 'wait' (deal when a player "
            f"starts the table); got {_shown(value)}.",
            "bad_option",
        )
    return value


def host_of(state: TableState) -> str | None:
    """Return who starts a waiting table: its first player (who made it), or None."""
    if not state.waiting or not state.players:
        return None
    return state.players[0]


def may_start(state: TableState, player: str | None, now_ms: int) -> bool:
    """Tell whether ``player`` may start the table now: a seated player at a table still
    waiting and not counting down, who is its host or whose host is away."""
    if player is None or player not in state.scores or not state.waiting:
        return False
    if state.starts_ms is not None or state.over:
        return False
    host = state.players[0]
    return player == host or not is_present(state, host, now_ms)


def start_table(state: S, player: str, now_ms: int) -> tuple[S, dict]:
    """Start a waiting table's countdown: its cards are dealt `START_MS` later (by ``tick``).

    Only a seated player may, the host (its first player) or anyone when the host is away;
    a second start, or one at a table dealt already, is refused (``already_started``).
    """
    if state.over:
        raise TableError("The game is over.", "game_over")
    if not state.waiting:
        raise TableError("The game has already started.", "already_started")
    if state.starts_ms is not None:
        raise TableError(
            "The game has already started: the cards are being dealt.", "already_started"
        )
    if player not in state.scores:
        raise TableError("Join the table first.", "not_seated")
    if not may_start(state, player, now_ms):
        raise TableError(
            f"Only {state.players[0]}, who made the table, can start it while they are here.",
            "not_host",
        )
    starts = now_ms + START_MS
    state = seat(state, player, now_ms).evolve(starts_ms=starts)
    return state, {"action": "start", "starts_ms": starts}


def refuse_before_deal(state: TableState, kind: str) -> None:
    """Refuse an action that needs the cards while a table waits for its deal (``not_started``)."""
    if not state.waiting or kind in BEFORE_DEAL:
        return
    if state.starts_ms is None:
        raise TableError(
            "The game has not started yet: the cards are dealt once a player presses Start.",
            "not_started",
        )
    raise TableError(
        "The game has not started yet: the cards are dealt when the countdown ends.",
        "not_started",
    )


def start_view(state: TableState, player: str | None, now_ms: int) -> dict[str, Any]:
    """Return what every view says of the table's start: ``status`` ("waiting", "active",
    "over"), ``starts_at``, ``started_at`` and ``ended_at`` (epoch ms or None), ``host`` (who
    may start it; None once started), ``may_start`` (whether ``player`` may now) and ``now``
    (the server's clock, for countdowns)."""
    status = "over" if state.over else "waiting" if state.waiting else "active"
    return {
        "status": status,
        "starts_at": state.starts_ms,
        "started_at": state.started_ms,
        "ended_at": state.ended_ms,
        "host": host_of(state),
        "may_start": may_start(state, player, now_ms),
        "now": now_ms,
    }


# --- hints ------------------------------------------------------------------------------------


def record_hint(
    state: S,
    player: str,
    cards: Sequence[int],
    positions: Sequence[Any],
    *,
    claim: Claims | None = None,
) -> tuple[S, dict]:
    """Show ``player`` one card of a set among ``cards``; return the new state and the outcome.

    ``positions[i]`` is how the view addresses ``cards[i]``. A still-valid earlier hint is shown
    again, so asking twice does not reveal a second set. ``claim`` says what a claim is at a
    table played in another mode (`Claims`); by default it is a set among ``cards``.
    """
    attributes = state.attributes
    active = state.hints.get(player)
    if active is not None and _still_open(active, cards, claim):
        card = active.card
    else:
        if claim is None:
            found = set_at(cards, attributes)
            found_set = None if found is None else tuple(cards[i] for i in found)
        else:
            found_set = claim.find()
        if found_set is None:
            new = state.evolve(hints=without_entry(state.hints, player))
            return (state if new.hints is state.hints else new), {
                "hint": None,
                "message": claim.nothing if claim else "There is no set on the board.",
            }
        card = found_set[0]
        shown = state.hinted_cards.get(player, ())
        state = state.evolve(
            hints=with_entry(state.hints, player, Hint(card, found_set)),  # type: ignore[arg-type]
            hinted_cards=(
                state.hinted_cards
                if card in shown
                else with_entry(state.hinted_cards, player, (*shown, card))
            ),
            # Counted for good (hints and hinted_cards are forgotten with their cards): a
            # rated table is unrated from the first hint taken (games.ratings).
            tally=tallied(state.tally, player, hints=1),
        )
    text = text_of(card, attributes, state.base)
    return state, {
        "hint": {"card": text, "position": positions[cards.index(card)]},
        "message": f"One card of {claim.noun if claim else 'a set'} on the board: {text}.",
    }


def active_hint(
    state: TableState,
    player: str | None,
    cards: Sequence[int],
    positions: Sequence[Any],
    claim: Claims | None = None,
) -> dict | None:
    """Return the viewer's hint while its whole set is still on the board, else None."""
    if player is None:
        return None
    hint = state.hints.get(player)
    if hint is None or not _still_open(hint, cards, claim):
        return None
    return {
        "card": text_of(hint.card, state.attributes, state.base),
        "position": positions[cards.index(hint.card)],
    }


@dataclass(frozen=True)
class Claims:
    """Say what a claim is at a table played in another mode: ``find`` returns one claim
    possible now (its board cards first) or None, ``is_open`` whether an earlier one still is,
    ``noun`` names a claim ("a set", "an ultra") and ``nothing`` says there is none."""

    find: Callable[[], tuple[int, ...] | None]
    is_open: Callable[[tuple[int, ...]], bool]
    noun: str = "a set"
    nothing: str = "There is no set on the board."


def _still_open(hint: Hint, cards: Sequence[int], claim: Claims | None) -> bool:
    if claim is not None:
        return claim.is_open(hint.set)
    return all(card in cards for card in hint.set)


def forgotten(
    state: TableState, removed: Iterable[int]
) -> tuple[Mapping[str, Hint], Mapping[str, tuple[int, ...]]]:
    """Return ``state``'s hints and hinted cards without the cards that left the board (they
    never come back): the same mappings when no hint is about them."""
    gone = set(removed)
    hints = state.hints
    if any(not gone.isdisjoint(hint.set) for hint in hints.values()):
        hints = frozen((p, hint) for p, hint in hints.items() if gone.isdisjoint(hint.set))
    hinted_cards = state.hinted_cards
    if any(not gone.isdisjoint(cards) for cards in hinted_cards.values()):
        kept = ((p, tuple(c for c in cards if c not in gone)) for p, cards in hinted_cards.items())
        hinted_cards = frozen((p, cards) for p, cards in kept if cards)
    return hints, hinted_cards


def was_hinted(state: TableState, player: str, cards: Iterable[int]) -> bool:
    """Tell whether ``player`` was shown any of ``cards`` in a hint."""
    return not set(state.hinted_cards.get(player, ())).isdisjoint(cards)


class TableRules:
    """What both rule sets read the same way from a table state."""

    @staticmethod
    def is_over(state: TableState) -> bool:
        """Tell whether the game has ended."""
        return state.over

    @staticmethod
    def scores(state: TableState) -> dict[str, int]:
        """Return every player's score (name -> score)."""
        return dict(state.scores)

    @staticmethod
    def players(state: TableState) -> list[str]:
        """Return the players in join order."""
        return list(state.players)

    @staticmethod
    def result(state: TableState) -> dict | None:
        """Return the final result (winners, scores, sets, hinted sets) once over, else None."""
        return final_result(state) if state.over else None
