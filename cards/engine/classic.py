"""The "classic" Set table: the physical game, played in real time by everyone at once.

The rules are those of the card game (seed 001): any seated player claims three cards at once; a
set scores 1 and its cards are replaced from the deck, back to the standard board size; a wrong
claim locks that player out until another player finds a set; when the board holds no set the
dealer deals three more cards, again and again while there is none; when the deck is empty and no
set remains the game is over and whoever collected the most sets wins (tied leaders all win).

The interface is that of `cards.engine.table.DeclareRules` (``new_state``, ``apply``, ``tick``,
``next_deadline``, ``touch``, ``view``, ``is_over``, ``scores``, ``players``), on a
`cards.engine.table.ClassicState`, so the platform treats both rule sets alike. Nothing here is
time-driven: ``tick`` never changes a classic table.

Choices where the seeds are silent (this module's rules):

- **Board size**: the standard board is 3 × ATTRS cards (9, 12 or 15 for 3, 4 or 5 attributes;
  12 for the usual deck), configurable with the ``board_size`` option.
- **Board layout**: ``board`` is a flat list of positions with no holes. A view draws position
  ``i`` at row ``i % 3``, column ``i // 3`` (3 rows of ``len(board) // 3`` columns), so the three
  cards of an extra deal form a new column on the right and nothing else moves.
- **Replacing**: a set taken from a board of at most the standard size is replaced in place, card
  by card in claim order, while the deck lasts; from a larger board (or once the deck is empty) its
  three cards are removed and the later positions move up.
- **Claims name cards, not positions**, so two claims racing for overlapping cards are told
  apart: a claim naming a card that a set already took is refused with ``just_taken`` ("Those
  cards were just taken.") and locks nobody out; a card that was never dealt is ``not_on_board``.
- **Lockouts**: when every seated player is locked out, all lockouts are lifted (otherwise a
  solitary player, or a table where everyone erred, could never play again).
- **Hints** cost nothing and are marked, as in the declare rule set (see `cards.engine.table`).
- **Joining**: only ``join`` seats a player; ``look`` marks a seated player present; ``claim``
  and ``hint`` need a seat (``not_seated``). A finished game answers ``join``, ``look`` and
  ``hint`` with its final state and refuses claims (``game_over``).
"""

from __future__ import annotations

import random
from typing import Any

from cards.engine.errors import SetError
from cards.engine.table.base import AWAY_MS, MAX_CLOCK_MS, TableError
from cards.engine.table.codes import code_of, described, set_at, texts_of
from cards.engine.table.kinds import favour_option, favoured_deck
from cards.engine.table.memory import (
    CLAIM_BY_PLACES,
    NOT_A_SET,
    claimed_cards,
    hidden_board,
    reveal_outcome,
)
from cards.engine.table.modes import (
    MODES,
    PUZZLE_BOARD,
    Mode,
    ModeRules,
    chain_message,
    found_message,
    puzzle_board,
)
from cards.engine.table.practice import (
    pause_table,
    practice_actions,
    practice_claimed,
    practice_hint,
    practice_option,
    practice_seat_view,
    practice_view,
    refuse_while_paused,
    show_claim,
)
from cards.engine.table.race import race_option, race_over, race_view, recycled
from cards.engine.table.shared import (
    Result,
    TableRules,
    active_hint,
    check_action,
    check_options,
    check_player,
    clean_deck,
    deal_deck,
    final_result,
    forgotten,
    is_present,
    may_start,
    option_int,
    record_hint,
    refuse_before_deal,
    seat,
    start_option,
    start_table,
    start_view,
    tallied,
    touch_state,
    was_hinted,
)
from cards.engine.table.shared import end_left as shared_end_left
from cards.engine.table.state import ClassicState, ModeState, Practice, Race, with_entry
from cards.engine.table.ways import (
    CARD_NUMBERS,
    Finder,
    claims_count,
    claims_of,
    finder,
    fork_options,
    mode_option,
    mode_view,
    puzzle_options,
)

__all__ = ["ClassicRules", "JUST_TAKEN"]

#: The message of a claim that lost a race for its cards.
JUST_TAKEN = "Those cards were just taken."


def _positions(state: ClassicState) -> range:
    """Return how views address the board's cards: their indexes."""
    return range(len(state.board))


def _dealt_while_no_set(
    board: tuple[int, ...], deck: tuple[int, ...], attributes: int, find: Finder | None = None
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Return the board and deck after growing the board while it holds no set (no claim, with
    ``find``) and the deck has cards: to the next multiple of 3 (12 -> 15, 16 -> 18, 10 -> 12,
    13 -> 15), as the fork's ``findBoardSize`` does."""
    while deck and (set_at(board, attributes) if find is None else find(board)) is None:
        more = 3 - len(board) % 3
        board, deck = board + deck[:more], deck[more:]
    return board, deck


def _ending(
    board: tuple[int, ...],
    deck: tuple[int, ...],
    attributes: int,
    at_ms: int,
    find: Finder | None = None,
) -> dict[str, Any]:
    """Run the end test on a board and deck about to be the table's: return what else changes
    when the game ends there (over at ``at_ms``, nobody locked out), or nothing."""
    if deck or (set_at(board, attributes) if find is None else find(board)) is not None:
        return {}
    return {"over": True, "ended_ms": at_ms, "locked": ()}


class ClassicRules(TableRules):
    """The physical game of Set as a real-time table; stateless, on `ClassicState` values.

    The platform stores the state's JSON form (`ClassicState.to_json`): ``rules`` ("classic"),
    ``attributes`` (3, 4 or 5), ``board_size`` (the standard board, 3 × attributes by default),
    ``away_ms``, ``created_ms``, ``board`` (flat list of card texts, no holes), ``deck`` (cards
    still to deal, front first), ``taken`` (cards of found sets, in order), ``players`` (join
    order), ``scores`` (name -> sets found), ``last_seen``, ``locked`` (players locked out),
    ``hints``, ``hinted_cards``, ``tally`` (per player: sets, hinted sets, wrong claims; each
    claim itself is in its move's outcome), ``over``, ``ended_ms``.
    """

    name = "classic"
    actions = ("join", "look", "claim", "hint", "count", "start", "reveal", "end_left")

    @staticmethod
    def new_state(*, options: dict | None = None, seed: int = 0, now_ms: int = 0) -> ClassicState:
        """Deal a fresh table: the standard board, then 3 more cards while there is no set.

        Options: ``attributes`` (3, 4 or 5; default 4), ``deck`` (card strings in deck order),
        ``board_size`` (a multiple of 3; default 3 × attributes), ``away_ms`` (default 60000,
        only for showing who is present), ``start`` ("now", the default, or "wait": no cards
        until a player starts the table), ``race`` (10, 20 or 30: the game ends at that set;
        `cards.engine.table.race`), ``favour`` (kinds of set, ``"differ-1"``...: the
        shuffled deck re-ordered so that boards hold more sets of those kinds, see
        `cards.engine.table.kinds.favoured_deck`).

        >>> state = ClassicRules.new_state(options={"attributes": 3, "board_size": 3}, seed=1)
        >>> len(state.board), len(state.deck)
        (6, 21)
        >>> waiting = ClassicRules.new_state(options={"attributes": 3, "start": "wait"}, seed=1)
        >>> waiting.board, len(waiting.deck), waiting.started_ms
        ((), 27, None)
        """
        options = ClassicRules.clean_options(options)
        mode = Mode(options.get("mode", "normal"))
        rules = MODES[mode]
        attributes = rules.attributes or options.get("attributes", 4)
        fields = {
            "attributes": attributes,
            "board_size": rules.board or options.get("board_size", 3 * attributes),
            "away_ms": options.get("away_ms", AWAY_MS),
            "created_ms": now_ms,
            "board": (),
            "waiting": True,
        }
        if rules.fixed:
            if "deck" in options:
                board = tuple(deal_deck(options, attributes, seed, PUZZLE_BOARD))
            else:  # a day's puzzle too: the platform gives every game of that day one seed
                board = puzzle_board(seed, attributes)
            # Its deck is its board, laid down whole when it is dealt.
            fields.update(board_size=PUZZLE_BOARD, deck=board)
        else:
            least = 3 if rules.attributes else fields["board_size"]  # the fork: min(M, deck)
            fields["deck"] = tuple(deal_deck(options, attributes, seed, least, rules.values))
            if "favour" in options:
                fields["deck"] = favoured_deck(fields["deck"], attributes, options["favour"])
        if options.get("practice"):
            fields["practice"] = Practice()
        if "race" in options:
            fields["race"] = Race(options["race"])
        if mode == "normal":
            state = ClassicState(**fields)
        else:
            # A shuffling table's own generator, seeded by the game and continued by each shuffle.
            rng = random.Random(seed).getrandbits(64) if rules.shuffle else None
            state = ModeState(**fields, mode=mode, rng=rng)
        if start_option(options) == "wait":
            return state
        return _dealt(state, now_ms).evolve(starts_ms=None)

    @staticmethod
    def clean_options(options: object) -> dict:
        """Return the options checked and in canonical form; raise `TableError` naming the first
        bad one.

        Known options, each optional: ``attributes`` (3, 4 or 5), ``board_size`` (a multiple of
        3, from 3 to the whole deck, 3 ** attributes), ``deck`` (distinct card strings of that
        size, a multiple of 3, at least a board; stored as protocol texts) and ``away_ms`` (whole
        milliseconds, 1 to `MAX_CLOCK_MS`). Only the options given are returned.

        >>> ClassicRules.clean_options({"attributes": 5, "board_size": 18})
        {'attributes': 5, 'board_size': 18}
        """
        options = check_options(
            options,
            (
                "attributes",
                "deck",
                "board_size",
                "away_ms",
                "mode",
                "day",
                "start",
                "practice",
                "race",
                "favour",
            ),
        )
        mode = mode_option(options)
        rules = MODES[mode]
        cleaned: dict[str, Any] = {}
        attributes = option_int(options, "attributes", 4, (3, 4) if rules.fixed else (3, 4, 5))
        if "attributes" in options and rules.attributes is None:
            cleaned["attributes"] = attributes
        if rules.attributes is not None:  # a mode of its own deck and board
            # Stored with its deck's attributes, so whatever reads a game's options (its story,
            # a rematch's deck, a description) reads its cards right.
            cleaned["attributes"] = rules.attributes
            cleaned.update(fork_options(options, rules))
        elif rules.fixed:
            cleaned.update(puzzle_options(options, attributes))
        else:
            if "day" in options:
                raise TableError("The day option is for the puzzle mode only.", "bad_option")
            whole_deck = 3**attributes
            board_size = option_int(options, "board_size", 3 * attributes, maximum=whole_deck)
            if board_size % 3:
                raise TableError(
                    f"The board_size option must be a multiple of 3; got {board_size}.",
                    "bad_option",
                )
            if "board_size" in options:
                cleaned["board_size"] = board_size
            if "deck" in options:
                cleaned["deck"] = clean_deck(options["deck"], attributes, board_size)
        if "favour" in options:
            if mode != "normal" or "deck" in options:
                raise TableError(
                    "The favour option re-orders the shuffled deck of a normal table: leave out "
                    "the mode and deck options to use it.",
                    "bad_option",
                )
            cleaned["favour"] = favour_option(options["favour"], attributes)
        if "away_ms" in options:
            cleaned["away_ms"] = option_int(options, "away_ms", AWAY_MS, maximum=MAX_CLOCK_MS)
        if mode != "normal":
            cleaned["mode"] = mode.value
        if "start" in options:
            cleaned["start"] = start_option(options)
        race = race_option(options, mode.value)
        if race is not None:
            cleaned["race"] = race
        if practice_option(options):
            if race is not None:  # a pause would stop a race's clock: no time to compare
                raise TableError(
                    "A race is timed: it cannot be a practice table (which pauses).", "bad_option"
                )
            cleaned["practice"] = True
        return cleaned

    @staticmethod
    def apply(state: ClassicState, player: str, action: dict, now_ms: int) -> Result:
        """Handle one action of ``player``: ``join``, ``look``, ``claim``, ``hint``, ``count``,
        ``reveal`` (Memory: turn a card up for oneself, `cards.engine.table.memory`) or ``start``
        (a waiting table's countdown; before the deal only ``join``, ``look`` and ``start`` are
        taken, ``not_started``); at a practice table also ``pause``, ``resume`` and ``show``
        (`cards.engine.table.practice`)."""
        kind = check_action(action, practice_actions(state, action, ClassicRules.actions))
        check_player(player)
        state = _due(state, now_ms)
        refuse_before_deal(state, kind)
        refuse_while_paused(state, kind)
        seated = player in state.scores
        outcome: dict[str, Any] = {"action": kind, "joined": False}
        if kind == "start":
            state, outcome = start_table(state, player, now_ms)
            outcome.update(joined=False, over=False)
            return Result(state, outcome, True)
        if kind in ("pause", "resume"):
            state, outcome = pause_table(state, player, kind, now_ms)
            outcome.update(joined=False, over=False)
            return Result(touch_state(state, player, now_ms), outcome, True)
        if state.over:
            if kind in ("claim", "end_left"):
                raise TableError("The game is over.", "game_over")
            outcome.update(over=True, changed=False)
            return Result(state, outcome, False)
        if kind == "join":
            outcome.update(joined=not seated, over=False)
            return Result(seat(state, player, now_ms), outcome, not seated)
        if not seated:
            if kind == "look":
                outcome["over"] = False
                return Result(state, outcome, False)
            raise TableError("Join the table first.", "not_seated")
        if kind == "look":
            outcome["over"] = False
            return Result(touch_state(state, player, now_ms), outcome, False)
        if kind == "reveal":
            if not isinstance(state, ModeState) or not MODES[state.mode].face_down:
                raise TableError("Only Memory's cards lie face down to turn up.", "bad_action")
            outcome.update(reveal_outcome(state.board, action, state.attributes, state.base))
            outcome.update(joined=False, over=False)
            return Result(touch_state(state, player, now_ms), outcome, False)
        if kind == "count":
            outcome.update(count=claims_count(state), over=False)
            return Result(touch_state(state, player, now_ms), outcome, False)
        if kind == "end_left":
            ended = end_left(touch_state(state, player, now_ms), player, action, now_ms)
            outcome.update(left=ended.left[-1], over=True, result=final_result(ended))
            return Result(ended, outcome, True)

        cards = _check_claim(state, action) if kind == "claim" else ()
        new = seat(state, player, now_ms)
        if kind == "show":
            shown_state, shown = show_claim(new, player, _positions(new))
            outcome.update(shown, over=False)
            return Result(shown_state, outcome, False)
        if kind == "hint" and new.practice is not None:
            claims = claims_of(new) if isinstance(new, ModeState) else None
            hinted, shown = practice_hint(new, player, _positions(new), claims)
            outcome.update(shown, over=False)
            return Result(hinted, outcome, hinted.tally is not new.tally)
        if kind == "hint":
            claims = claims_of(new) if isinstance(new, ModeState) else None
            hinted, shown = record_hint(new, player, new.board, _positions(new), claim=claims)
            outcome.update(shown, over=False)
            # The count of hints taken is everyone's (never the card): an event when it grows.
            return Result(hinted, outcome, hinted.tally is not new.tally)
        if player in new.locked:
            raise TableError("You are locked out until another player finds a set.", "locked_out")
        _check_on_board(new, cards)
        new = practice_claimed(_claim(new, player, cards, now_ms, outcome))
        outcome["over"] = new.over
        return Result(new, outcome, True)

    @staticmethod
    def tick(state: ClassicState, now_ms: int) -> Result:
        """Deal a started table whose countdown has ended; nothing else here depends on time."""
        dealt = _due(state, now_ms)
        if dealt is state:
            return Result(state, {"action": "tick", "expired": [], "over": state.over}, False)
        expired = [{"kind": "dealt", "at": dealt.started_ms, "over": dealt.over}]
        return Result(dealt, {"action": "tick", "expired": expired, "over": dealt.over}, True)

    @staticmethod
    def next_deadline(state: ClassicState) -> int | None:
        """Return when a started table's countdown ends; otherwise None: time alone never
        changes a classic table."""
        return state.starts_ms if state.waiting else None

    @staticmethod
    def touch(state: ClassicState, player: str, now_ms: int) -> ClassicState:
        """Return the state with seated ``player`` marked present at ``now_ms``; nothing else."""
        return touch_state(state, player, now_ms)

    @staticmethod
    def view(state: ClassicState, player: str | None, now_ms: int, *, shown: bool = False) -> dict:
        """Draw the table for ``player`` (None: a spectator) as JSON-able data.

        ``board`` is the flat list of positions, each with its card, ``row`` (``i % 3``) and
        ``col`` (``i // 3``); ``rows`` is 3 and ``cols`` ``len(board) // 3``. What differs from
        a spectator's view is `seat_view`.
        """
        state = _due(state, now_ms)
        cards = described(state.attributes, state.base)
        hidden = (
            isinstance(state, ModeState)
            and MODES[state.mode].face_down
            and not (state.over or shown)
        )
        if hidden:  # Memory: nobody sees a card until they turn it up (reveal)
            board = hidden_board(len(state.board))
        else:
            board = [
                {**cards[card], "position": i, "row": i % 3, "col": i // 3}
                for i, card in enumerate(state.board)
            ]
        present = [p for p in state.players if is_present(state, p, now_ms)]
        view = {
            **start_view(state, player, now_ms),
            "rules": ClassicRules.name,
            "attributes": state.attributes,
            "rows": 3,
            "cols": -(-len(board) // 3),
            "board_size": state.board_size,
            "board": board,
            **_seat_fields(state, player),
            "locked": sorted(state.locked),
            "scores": dict(sorted(state.scores.items())),
            "players": sorted(state.players),
            "present": sorted(present),
            "away": sorted(set(state.players) - set(present)),
            "deck_left": len(state.deck),
            "hint": _hint(state, player),
            "over": state.over,
            "result": final_result(state) if state.over else None,
            "next_deadline": ClassicRules.next_deadline(state),
        }
        if isinstance(state, ModeState):
            view.update(mode_view(state, cards))
            if hidden:
                view["face_down"] = True
            if MODES[state.mode].face_down:  # the last set left face up for everyone
                view["last_set"] = [cards[card]["card"] for card in state.taken[-3:]]
        if state.practice is not None:
            view.update(practice_view(state, now_ms, view))
            claims = claims_of(state) if isinstance(state, ModeState) else None
            view.update(practice_seat_view(state, player, _positions(state), claims))
        if state.race is not None:
            view["race"] = race = race_view(state, now_ms)
            if race["result"] is not None and race["result"]["winner"] is not None:
                # A tie of sets goes to the earlier last set: one winner.
                view["result"]["winners"] = [race["result"]["winner"]]
        return view

    @staticmethod
    def seat_view(state: ClassicState, player: str, now_ms: int) -> dict:
        """The fields of ``player``'s view that differ from a spectator's, and the clock:
        ``view(state, player, now_ms)`` is ``{**view(state, None, now_ms), **seat_view(state,
        player, now_ms)}``, so every seat's view of one version can share one spectator's."""
        state = _due(state, now_ms)
        fields = {
            "may_start": may_start(state, player, now_ms),
            "now": now_ms,  # a shared spectator's view may be a moment old
            **_seat_fields(state, player),
            "hint": _hint(state, player),
        }
        if state.practice is not None:  # its clock and the viewer's hints and "show me"
            fields.update(practice_view(state, now_ms, fields))
            claims = claims_of(state) if isinstance(state, ModeState) else None
            fields.update(practice_seat_view(state, player, _positions(state), claims))
        return fields


def _seat_fields(state: ClassicState, player: str | None) -> dict[str, Any]:
    return {
        "you": player,
        "seated": player in state.scores,
        "locked_out": player in state.locked,
    }


def end_left(state: ClassicState, player: str, action: dict, now_ms: int) -> ClassicState:
    """End the game because the seat ``action["seat"]`` left: away (no request) for longer than
    the table's ``away_ms`` (`cards.engine.table.shared.end_left`, nobody locked out any more).
    Asked by another seated player; the leaver ranks last.

    >>> table = ClassicRules.new_state(options={"away_ms": 1000}, seed=1, now_ms=0)
    >>> table = ClassicRules.apply(table, "ann", {"type": "join"}, 0).state
    >>> table = ClassicRules.apply(table, "bob", {"type": "join"}, 0).state
    >>> end_left(table, "ann", {"type": "end_left", "seat": "bob"}, 500).left  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cards.engine.table.base.TableError: bob is still here (seen 0 s ago); ...
    >>> ended = end_left(table, "ann", {"type": "end_left", "seat": "bob"}, 2000)
    >>> ended.over, ended.left, ended.ended_ms
    (True, ('bob',), 2000)
    """
    return shared_end_left(state, player, action, now_ms, locked=())


def _hint(state: ClassicState, player: str | None) -> dict | None:
    """The viewer's hint while its whole set (or claim) is still on the board."""
    claims = claims_of(state) if isinstance(state, ModeState) else None
    return active_hint(state, player, state.board, _positions(state), claims)


def _dealt(state: ClassicState, at_ms: int) -> ClassicState:
    """Deal a waiting table at ``at_ms``: the standard board from the front of the deck, then
    more cards while there is no set (no claim, in another mode), then the end test. A fixed
    puzzle's deck is its whole board."""
    attributes = state.attributes
    moded = isinstance(state, ModeState)
    if moded and MODES[state.mode].fixed:
        return state.evolve(board=state.deck, deck=(), waiting=False, starts_ms=at_ms)
    size = state.board_size
    find = finder(state.mode, attributes) if moded else None
    board, deck = _dealt_while_no_set(state.deck[:size], state.deck[size:], attributes, find)
    return state.evolve(
        board=board,
        deck=deck,
        waiting=False,
        starts_ms=at_ms,
        **_ending(board, deck, attributes, at_ms, find),
    )


def _due(state: ClassicState, now_ms: int) -> ClassicState:
    """Return the table dealt if its start's countdown has ended by ``now_ms``, else itself."""
    if state.waiting and state.starts_ms is not None and state.starts_ms <= now_ms:
        return _dealt(state, state.starts_ms)
    return state


def _check_claim(state: ClassicState, action: dict) -> tuple[int, ...]:
    """Return the claim's cards, refusing a malformed claim: named as card strings
    (``cards``), or as board places (``positions``, as Memory's face-down board is claimed)."""
    cards = action.get("cards")
    size = MODES[state.mode].claim.size if isinstance(state, ModeState) else 3
    if cards is None and "positions" in action:
        return claimed_cards(state.board, action, size)
    if isinstance(state, ModeState) and MODES[state.mode].face_down and not state.over:
        # Naming cards would let a client find sets on a board nobody has seen (no penalty).
        raise TableError(CLAIM_BY_PLACES, "bad_claim")
    if not isinstance(cards, list | tuple) or len(cards) != size:
        raise TableError(f"A claim names exactly {CARD_NUMBERS[size]} cards.", "bad_claim")
    codes = []
    for value in cards:
        if not isinstance(value, str):
            raise TableError("A claim names its cards as card strings.", "bad_claim")
        try:
            codes.append(code_of(value, state.attributes, state.base))
        except (SetError, ValueError) as error:
            raise TableError(f"A claimed card is not valid: {error}", "bad_claim") from None
    if len(set(codes)) != size:
        raise TableError(f"A claim names {CARD_NUMBERS[size]} different cards.", "bad_claim")
    return tuple(codes)


def _check_on_board(state: ClassicState, cards: tuple[int, ...]) -> None:
    """Refuse a claim for cards not on the board: taken by a set a moment ago, or never dealt."""
    chain = state.chain if isinstance(state, ModeState) else ()
    missing = [card for card in cards if card not in state.board and card not in chain]
    if not missing:
        return
    if all(card in state.taken for card in missing):
        raise TableError(JUST_TAKEN, "just_taken")
    raise TableError("Those cards are not on the board.", "not_on_board")


def _claim(
    state: ClassicState, player: str, cards: tuple[int, ...], now_ms: int, outcome: dict
) -> ClassicState:
    """Judge a claim of cards on the table as its mode says (`cards.engine.table.modes`):
    score and refill a good claim (a set, an ultra, a claim through the chain, a puzzle's claim
    not found yet), lock out a wrong one."""
    attributes, board = state.attributes, state.board
    moded = isinstance(state, ModeState)
    rules = MODES[state.mode if moded else "normal"]
    claim = rules.claim
    chain = state.chain if moded else ()
    positions = [board.index(card) if card in board else None for card in cards]
    outcome.update(cards=texts_of(cards, attributes, state.base), positions=positions)
    if rules.chain and chain:
        links = sum(card in chain for card in cards)
        if links == len(cards):  # the chain itself: the claim another player took a moment ago
            raise TableError(JUST_TAKEN, "just_taken")
        if links != rules.chain:
            rest = claim.size - rules.chain
            raise TableError(
                f"{chain_message(rules)}: {claim.a} must take exactly "
                f"{CARD_NUMBERS.get(rules.chain, 'one')} "
                f"{'card' if rules.chain == 1 else 'cards'} of the chain (the last {claim.one} "
                f"found) and {CARD_NUMBERS.get(rest, 'two')} from the board.",
                "not_chained",
            )
    good = claim.check(cards, attributes)
    if not good and rules.face_down:  # Memory: refused, with no penalty and no lockout
        raise TableError(NOT_A_SET, "not_set")
    if good and rules.puzzle and tuple(sorted(cards)) in state.found:
        message = found_message(rules)
        raise TableError(message if message.endswith(".") else f"{message}.", "already_found")
    if not good:
        locked = (*state.locked, player)
        released = set(locked) >= set(state.players)
        outcome.update(
            claim="not_set", points=0, hinted=False, locked_out=not released, released=released
        )
        if moded:  # the card game's outcomes are stored as they always were
            outcome["message"] = f"Not {claim.article}"
        outcome["why"] = claim.why(cards, attributes)
        outcome["score"] = state.scores[player]
        return state.evolve(
            tally=tallied(state.tally, player, wrong=1), locked=() if released else locked
        )
    hinted = was_hinted(state, player, cards)
    changes: dict[str, Any] = {}
    deck = state.deck
    # What leaves the table: a puzzle's claims stay on its board (until the board is clear); a
    # chain claim's board cards become the chain, and the chain cards it did not take leave.
    taken = cards
    new_chain = cards if rules.chain else ()
    found = (*state.found, tuple(sorted(cards))) if rules.puzzle else ()
    find = None if not moded else finder(state.mode, attributes, new_chain, found)
    if rules.puzzle:
        outcome["board"] = "kept"
        taken = ()
        if not rules.fixed and find(board) is None:  # board clear: the next deal
            outcome["cleared"] = len(found)
            outcome["board"] = "cleared"
            taken = board
            board, deck = deck[: rules.board], deck[rules.board :]
            found = ()
            find = finder(state.mode, attributes)
        changes["found"] = found
    else:
        gone = [p for p in positions if p is not None]
        if rules.fork:
            board, deck, rng = _fork_refill(state, rules, gone, outcome)
            if rng is not None:
                changes["rng"] = rng
        else:
            board, deck = _take(state, gone, outcome)
        if rules.chain:
            changes["chain"] = new_chain
            taken = tuple(card for card in chain if card not in cards)
    # A race's empty pile takes back the cards of the sets found (cards.engine.table.race).
    deck, all_taken = recycled(state, deck, state.taken + taken)
    before_deal = len(board)
    board, deck = _dealt_while_no_set(board, deck, attributes, find)
    # Hints about the cards of this claim, and of those that left, are spent.
    hints, hinted_cards = forgotten(state, (*cards, *taken))
    score = state.scores[player] + 1
    changes.update(
        scores=with_entry(state.scores, player, score),
        tally=tallied(state.tally, player, sets=1, hinted=hinted),
        taken=all_taken,
        locked=(),
        hints=hints,
        hinted_cards=hinted_cards,
        board=board,
        deck=deck,
    )
    changes.update(_ending(board, deck, attributes, now_ms, find))
    if state.race is not None:
        changes["race"] = race = state.race.with_set(player, now_ms)
        if race_over(race):  # the N-th set ends the race at once
            changes.update(over=True, ended_ms=now_ms, locked=())
    outcome.update(claim="set", points=1, hinted=hinted, dealt=len(board) - before_deal)
    outcome["score"] = score
    return state.evolve(**changes)


def _fork_refill(
    state: ModeState, rules: ModeRules, positions: list[int], outcome: dict
) -> tuple[tuple[int, ...], tuple[int, ...], int | None]:
    """Return the board, deck and shuffle generator after the cards at ``positions`` leave, as
    the fork's ``updateBoard`` and ``removeCards`` do (§3 "After a valid claim"):

    a shuffling table first re-lays its L board slots (Fisher-Yates, its own generator
    continuing), and the taken cards are found in their new slots; a taken card in one of the
    first M (``board_size``) slots is replaced in its slot, the fillers coming first from the
    board's overflow slots (M and beyond, in slot order), then from the deck, the lowest hole
    first; taken cards in overflow slots close up; when fewer than M cards remain in all, the
    last cards move into the holes. The board is then dealt up to max(L - r, M) cards while the
    deck lasts (the caller grows it while it holds no claim).
    """
    board, size = state.board, state.board_size
    rng = None
    if rules.shuffle:
        taken = [board[p] for p in positions]
        generator = random.Random(state.rng)
        laid = list(board)
        generator.shuffle(laid)
        board = tuple(laid)
        positions = [board.index(card) for card in taken]
        rng = generator.getrandbits(64)
    current = [*board, *state.deck]
    length, r = len(board), len(positions)
    cutoff = min(len(current) - r, size)
    holes = sorted(positions, reverse=True)
    for i, at in enumerate(holes):
        if at >= cutoff:
            del current[at]
            continue
        count = len(holes) - i
        fillers = current[cutoff : cutoff + count]
        del current[cutoff : cutoff + count]
        for j, card in enumerate(fillers):
            current[holes[-1 - j]] = card
        break
    shown = min(max(length - r, size), len(current))
    outcome["board"] = "shuffled" if rules.shuffle else "replaced"
    return tuple(current[:shown]), tuple(current[shown:]), rng


def _take(
    state: ClassicState, positions: list[int], outcome: dict
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Return the board and deck after the cards at ``positions`` (in claim order) leave the
    board: replaced in place from the deck while the board is at most its standard size,
    otherwise removed, then the board dealt back up to its standard size while the deck lasts
    (an ultra takes four cards from a board grown by three)."""
    board, deck = state.board, state.deck
    if len(board) <= state.board_size and len(deck) >= len(positions):
        replaced = list(board)
        for position, card in zip(positions, deck, strict=False):
            replaced[position] = card
        outcome["board"] = "replaced"
        return tuple(replaced), deck[len(positions) :]
    gone = set(positions)
    board = tuple(card for i, card in enumerate(board) if i not in gone)
    outcome["board"] = "removed"
    short = max(state.board_size - len(board), 0)
    return board + deck[:short], deck[short:]
