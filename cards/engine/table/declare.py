"""The "declare" rule set of the original Set server, exactly as the protocol spec says."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cards.engine.table.base import (
    AWAY_MS,
    BAD_PICK,
    DECLARE_MS,
    MAX_CLOCK_MS,
    PENALTY_POINTS,
    SET_POINTS,
    TableError,
)
from cards.engine.table.codes import count_sets, described, is_set, set_at, texts_of
from cards.engine.table.modes import claim_why
from cards.engine.table.shared import (
    Result,
    TableRules,
    active_hint,
    check_action,
    check_options,
    check_player,
    clean_deck,
    deal_deck,
    end_left,
    final_result,
    forgotten,
    is_present,
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
from cards.engine.table.state import DeclareState, Declaring, Position, with_entry

__all__ = ["DeclareRules"]


class DeclareRules(TableRules):
    """The "declare" table of the original Set server, exactly as the protocol spec says.

    Stateless: every method takes and returns a `DeclareState` (see there for what it holds).
    The platform stores its JSON form (`DeclareState.to_json`): ``rules`` ("declare"),
    ``attributes`` (3 or 4), ``default_cols`` (D = attributes), ``declare_ms``, ``away_ms``,
    ``created_ms``, ``board`` (3 rows of card texts, row 0 on top), ``deck`` (the cards still to
    deal, front first), ``taken`` (cards removed by sets, in order), ``players`` (names in join
    order), ``scores`` (name -> score), ``votes`` (voters in vote order), ``last_seen`` (name ->
    ms of the last request), ``declarer`` (name or None), ``deadline`` (ms or None), ``queue``
    (FIFO of names waiting to declare; never shown), ``picks`` (the declarer's [row, col] picks
    in order), ``hints`` (name -> {card, set}: the last hint shown), ``hinted_cards`` (name ->
    cards ever shown to that player and still on the board), ``tally`` (per player: sets, hinted
    sets, wrong picks, timeouts; each event itself, with its points and the delta applied after
    the floor at 0, is in the move's outcome), ``over``, ``ended_ms``.
    """

    name = "declare"
    actions = (
        "join", "look", "watch", "declare", "pick", "add", "hint", "count", "start", "end_left"
    )  # fmt: skip

    # -- creation ---------------------------------------------------------------------------------

    @staticmethod
    def new_state(*, options: dict | None = None, seed: int = 0, now_ms: int = 0) -> DeclareState:
        """Deal a fresh declare table: shuffle (or take the given deck) and lay 3 rows of D cards.

        Options: ``attributes`` (3 or 4, default 4), ``deck`` (card strings in deck order),
        ``away_ms`` (default 60000), ``declare_ms`` (default 5000), ``start`` ("now", the
        default, or "wait": no cards until a player starts the table, see `start_table`).

        >>> waiting = DeclareRules.new_state(options={"start": "wait"}, seed=4, now_ms=0)
        >>> waiting.board, len(waiting.deck), waiting.waiting
        (((), (), ()), 81, True)
        """
        options = DeclareRules.clean_options(options)
        attributes = options.get("attributes", 4)
        deck = deal_deck(options, attributes, seed, 3 * attributes)
        state = DeclareState(
            attributes=attributes,
            default_cols=attributes,
            declare_ms=options.get("declare_ms", DECLARE_MS),
            away_ms=options.get("away_ms", AWAY_MS),
            created_ms=now_ms,
            board=((), (), ()),
            deck=tuple(deck),
            waiting=True,
        )
        if start_option(options) == "wait":
            return state
        return _dealt(state, now_ms).evolve(starts_ms=None)

    @staticmethod
    def clean_options(options: object) -> dict:
        """Return the options checked and in canonical form; raise `TableError` naming the first
        bad one.

        Known options, each optional: ``attributes`` (3 or 4), ``deck`` (distinct card strings
        of that size, a multiple of 3, at least a board; stored as protocol texts),
        ``declare_ms`` and ``away_ms`` (whole milliseconds, 1 to `MAX_CLOCK_MS`), ``start``
        ("now" or "wait"). Only the options given are returned, so defaults stay the engine's.

        >>> DeclareRules.clean_options({"attributes": 3, "declare_ms": 2000})
        {'attributes': 3, 'declare_ms': 2000}
        """
        options = check_options(options, ("attributes", "deck", "away_ms", "declare_ms", "start"))
        attributes = option_int(options, "attributes", 4, (3, 4))
        cleaned: dict[str, Any] = {}
        if "attributes" in options:
            cleaned["attributes"] = attributes
        if "deck" in options:
            cleaned["deck"] = clean_deck(options["deck"], attributes, 3 * attributes)
        for key, default in (("declare_ms", DECLARE_MS), ("away_ms", AWAY_MS)):
            if key in options:
                cleaned[key] = option_int(options, key, default, maximum=MAX_CLOCK_MS)
        if "start" in options:
            cleaned["start"] = start_option(options)
        return cleaned

    # -- actions ----------------------------------------------------------------------------------

    @staticmethod
    def apply(state: DeclareState, player: str, action: dict, now_ms: int) -> Result:
        """Handle one request of ``player`` at ``now_ms`` and return the new state.

        Every expired deadline is applied first (§4). Actions: ``join``, ``look`` and ``watch``
        (join if new, otherwise only mark presence), ``declare``, ``pick`` (``row``, ``col``),
        ``add`` (vote) and ``hint``. Each joins a new player. A finished table changes nothing.
        ``end_left`` (``seat``: a seat away past ``away_ms``) ends the game there, asked by
        another seated player: the leaver ranks last (`cards.engine.table.shared.end_left`).
        ``start`` starts a waiting table's countdown (`start_table`); before the deal only
        ``join``, ``look``, ``watch`` and ``start`` are taken (``not_started``).
        """
        kind = check_action(action, DeclareRules.actions)
        check_player(player)
        state, expired = _run_due(state, now_ms)
        ticked = bool(expired)
        refuse_before_deal(state, kind)
        if kind == "start":
            state, outcome = start_table(state, player, now_ms)
            outcome.update(joined=False, expired=expired, over=False)
            return Result(state, outcome, True)
        position = _check_pick(state, action) if kind == "pick" else None
        outcome: dict[str, Any] = {"action": kind, "joined": False, "expired": expired}
        if state.over:
            if kind == "end_left":
                raise TableError("The game is over.", "game_over")
            outcome.update(over=True, changed=ticked)
            return Result(state, outcome, ticked)
        if kind == "end_left":  # by a seated player only: it never seats the asker
            if player not in state.scores:
                raise TableError("Join the table first.", "not_seated")
            asker = touch_state(state, player, now_ms)
            ended = end_left(asker, player, action, now_ms, declaring=None, votes=())
            outcome.update(left=ended.left[-1], over=True, result=final_result(ended))
            return Result(ended, outcome, True)

        joined = player not in state.scores
        state = seat(state, player, now_ms)
        outcome["joined"] = joined
        handler = _HANDLERS.get(kind)
        event = False
        if handler is not None:
            state, event = handler(state, player, now_ms, position, outcome)
        outcome["over"] = state.over
        return Result(state, outcome, joined or ticked or event)

    @staticmethod
    def tick(state: DeclareState, now_ms: int) -> Result:
        """Apply every expired declare deadline and away-completed add agreement up to now."""
        state, expired = _run_due(state, now_ms)
        outcome = {"action": "tick", "expired": expired, "over": state.over}
        return Result(state, outcome, bool(expired))

    @staticmethod
    def next_deadline(state: DeclareState) -> int | None:
        """Return the earliest ms at which `tick` changes the table, or None if time never will.

        It is the declare deadline or the moment the last non-voting player becomes away while
        votes are pending. It can lie in the past for a state not ticked yet: tick it then.
        """
        agreement = _agreement_time(state)
        if state.waiting:
            return state.starts_ms
        declaring = state.declaring
        if declaring is None or state.over:
            return agreement
        if agreement is None:
            return declaring.deadline
        return min(agreement, declaring.deadline)

    @staticmethod
    def touch(state: DeclareState, player: str, now_ms: int) -> DeclareState:
        """Return the state with ``player`` marked present at ``now_ms``; nothing else changes.

        Use it while a ``/watch`` waits (a pending watch counts as a request, §7). It does not
        join unknown players and is not an event. Call `tick` first if a deadline may have passed,
        so an agreement completed by this player's absence is not lost.
        """
        return touch_state(state, player, now_ms)

    # -- reading ----------------------------------------------------------------------------------

    @staticmethod
    def view(state: DeclareState, player: str | None, now_ms: int) -> dict:
        """Draw the table for ``player`` (None: a spectator) at ``now_ms`` as JSON-able data.

        Due deadlines are applied to the drawing (not to ``state``). The declare queue and the
        deck order are never shown; only the declarer sees their own picks, as in BOARD.
        """
        state = _run_due(state, now_ms)[0]
        attributes = state.attributes
        declaring = state.declaring
        mine = declaring is not None and player is not None and player == declaring.declarer
        picked = set(declaring.picks) if mine else set()
        cards = described(attributes)
        board = [
            [{**cards[card], "picked": (r, c) in picked} for c, card in enumerate(row)]
            for r, row in enumerate(state.board)
        ]
        if declaring is None:
            declare = {"state": "none", "declarer": None, "deadline": None}
        else:
            who = "my" if mine else "up"
            declare = {"state": who, "declarer": declaring.declarer, "deadline": declaring.deadline}
        present = [p for p in state.players if is_present(state, p, now_ms)]
        return {
            **start_view(state, player, now_ms),
            "rules": DeclareRules.name,
            "attributes": attributes,
            "rows": 3,
            "cols": state.cols,
            "default_cols": state.default_cols,
            "board": [] if state.waiting else board,
            "declare": declare,
            "picks": [[r, c] for r, c in declaring.picks] if mine else [],
            "you": player,
            "seated": player in state.scores,
            "scores": dict(sorted(state.scores.items())),
            "votes": sorted(state.votes),
            "players": sorted(state.players),
            "present": sorted(present),
            "away": sorted(set(state.players) - set(present)),
            "deck_left": len(state.deck),
            "hint": active_hint(state, player, state.board_cards, _positions(state)),
            "over": state.over,
            "result": final_result(state) if state.over else None,
            "next_deadline": DeclareRules.next_deadline(state),
        }


def _positions(state: DeclareState) -> list[list[int]]:
    """Return the positions of `DeclareState.board_cards`, in the same order."""
    return [[r, c] for r, row in enumerate(state.board) for c in range(len(row))]


def _check_pick(state: DeclareState, action: dict) -> Position:
    """Return the pick's (row, col), refusing one that is not a position on the board (§5)."""
    row, col = action.get("row"), action.get("col")
    for value in (row, col):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TableError(BAD_PICK, "bad_pick")
    if not (0 <= row < len(state.board) and 0 <= col < state.cols):
        raise TableError(BAD_PICK, "bad_pick")
    return row, col


# -- the handlers: each returns the new state and whether it is an event -------------------------


def _join(
    state: DeclareState, player: str, now_ms: int, position: Position | None, outcome: dict
) -> tuple[DeclareState, bool]:
    """Join or look: only the join itself (handled by apply) is an event."""
    return state, False


def _declare(
    state: DeclareState, player: str, now_ms: int, position: Position | None, outcome: dict
) -> tuple[DeclareState, bool]:
    """Declare (§4): become the declarer, join the queue, or nothing if already in either."""
    declaring = state.declaring
    if declaring is None:
        deadline = now_ms + state.declare_ms
        outcome.update(declare="declarer", deadline=deadline)
        return state.evolve(declaring=Declaring(player, deadline)), True
    if declaring.declarer == player or player in declaring.queue:
        outcome["declare"] = "already"
        return state, False
    outcome["declare"] = "queued"
    queued = declaring.with_queue((*declaring.queue, player))
    return state.evolve(declaring=queued), False


def _pick(
    state: DeclareState, player: str, now_ms: int, position: Position | None, outcome: dict
) -> tuple[DeclareState, bool]:
    """Pick or deselect (§5); judge at the third pick; ignore picks by anyone but the declarer."""
    assert position is not None
    row, col = position
    outcome["position"] = [row, col]
    declaring = state.declaring
    if declaring is None or declaring.declarer != player:
        outcome["pick"] = "ignored"
        return state, False
    if position in declaring.picks:
        picks = tuple(p for p in declaring.picks if p != position)
        outcome["pick"] = "deselected"
        return state.evolve(declaring=declaring.with_picks(picks)), True
    picks = (*declaring.picks, position)
    if len(picks) < 3:
        outcome["pick"] = "picked"
        return state.evolve(declaring=declaring.with_picks(picks)), True
    cards = tuple(state.board[r][c] for r, c in picks)
    outcome["cards"] = texts_of(cards, state.attributes)
    if is_set(cards, state.attributes):
        state = _score_set(state, player, picks, cards, now_ms, outcome)
    else:
        scores, delta = _penalised(state.scores, player)
        state = state.evolve(
            scores=scores,
            tally=tallied(state.tally, player, wrong=1),
            declaring=_handed_over(declaring, now_ms + state.declare_ms),
        )
        outcome.update(pick="not_set", points=-PENALTY_POINTS, delta=delta, hinted=False)
        outcome["why"] = claim_why(cards, state.attributes)
    outcome["score"] = state.scores[player]
    return state, True


def _score_set(
    state: DeclareState,
    player: str,
    picks: tuple[Position, ...],
    cards: tuple[int, ...],
    now_ms: int,
    outcome: dict,
) -> DeclareState:
    """Score a correct set (§5), change the board (§6) and run the end test (§8)."""
    hinted = was_hinted(state, player, cards)
    deck = state.deck
    if state.cols <= state.default_cols and deck:
        rows = [list(row) for row in state.board]
        for (r, c), card in zip(picks, deck, strict=False):
            rows[r][c] = card
        board = tuple(map(tuple, rows))
        deck = deck[len(picks) :]
        outcome["board"] = "replaced"
    else:
        picked = set(picks)
        kept = [
            card
            for r, row in enumerate(state.board)
            for c, card in enumerate(row)
            if (r, c) not in picked
        ]
        cols = len(kept) // 3
        board = tuple(tuple(kept[r * cols : (r + 1) * cols]) for r in range(3))
        outcome["board"] = "reflowed"
    hints, hinted_cards = forgotten(state, cards)
    outcome.update(pick="set", points=SET_POINTS, delta=SET_POINTS, hinted=hinted)
    changes = {
        "scores": with_entry(state.scores, player, state.scores[player] + SET_POINTS),
        "tally": tallied(state.tally, player, sets=1, hinted=hinted),
        "declaring": None,
        "votes": (),
        "taken": state.taken + cards,
        "hints": hints,
        "hinted_cards": hinted_cards,
        "board": board,
        "deck": deck,
    }
    changes.update(_ending(board, deck, state.attributes, now_ms))
    return state.evolve(**changes)


def _add(
    state: DeclareState, player: str, now_ms: int, position: Position | None, outcome: dict
) -> tuple[DeclareState, bool]:
    """Vote to add cards (§7); add them at once when every present player has voted."""
    if not state.deck:
        outcome.update(vote="ignored", added=None)
        return state, False
    if player in state.votes:
        outcome.update(vote="repeated", added=None)
        return state, False
    state = state.evolve(votes=(*state.votes, player))
    outcome.update(vote="recorded", added=None)
    if _agreed(state, now_ms):
        state, added = _add_cards(state, now_ms)
        outcome["added"] = added["cards"]
    return state, True


def _hint(
    state: DeclareState, player: str, now_ms: int, position: Position | None, outcome: dict
) -> tuple[DeclareState, bool]:
    """Show the player one card of a set on the board: an event only for the count of hints
    taken, which everyone sees (never the card)."""
    new, shown = record_hint(state, player, state.board_cards, _positions(state))
    outcome.update(shown)
    return new, new.tally is not state.tally


def _count(
    state: DeclareState, player: str, now_ms: int, position: Position | None, outcome: dict
) -> tuple[DeclareState, bool]:
    """Tell the player how many sets the board holds; a question, never an event."""
    outcome["count"] = count_sets(state.board_cards, state.attributes)
    return state, False


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


# -- time, penalties, the end ----------------------------------------------------------------------


def _penalised(scores: Mapping[str, int], player: str) -> tuple[Mapping[str, int], int]:
    """Return the scores with the penalty taken from ``player`` (stopping at 0), and the points
    taken (0 or negative)."""
    before = scores[player]
    after = max(0, before - PENALTY_POINTS)
    return with_entry(scores, player, after), after - before


def _handed_over(declaring: Declaring | None, deadline: int) -> Declaring | None:
    """Return the first queued player declaring with ``deadline``, or None if nobody waits."""
    if declaring is None or not declaring.queue:
        return None
    return Declaring(declaring.queue[0], deadline, declaring.queue[1:])


def _ending(
    board: tuple[tuple[int, ...], ...], deck: tuple[int, ...], attributes: int, at_ms: int
) -> dict[str, Any]:
    """Run the end-of-game test of §8 on a board and deck about to be the table's: return what
    else changes when it ends there (over at ``at_ms``, nobody declaring, no votes), or nothing."""
    if deck or set_at(tuple(card for row in board for card in row), attributes) is not None:
        return {}
    return {"over": True, "ended_ms": at_ms, "declaring": None, "votes": ()}


def _dealt(state: DeclareState, at_ms: int) -> DeclareState:
    """Deal a waiting table at ``at_ms``: 3 rows of D cards from the front of the deck (§1),
    then the end-of-game test of §8 (a given deck may hold no set)."""
    deck, cols = state.deck, state.default_cols
    board = tuple(tuple(deck[r * cols : (r + 1) * cols]) for r in range(3))
    changes: dict[str, Any] = {
        "board": board,
        "deck": deck[3 * cols :],
        "waiting": False,
        "starts_ms": at_ms,
    }
    changes.update(_ending(board, changes["deck"], state.attributes, at_ms))
    return state.evolve(**changes)


def _add_cards(state: DeclareState, at_ms: int) -> tuple[DeclareState, dict]:
    """Lay one deck card at the right end of each row (§7), clear votes, run the end test."""
    added = state.deck[: len(state.board)]
    board = tuple((*row, card) for row, card in zip(state.board, added, strict=True))
    deck = state.deck[len(added) :]
    changes = {"board": board, "deck": deck, "votes": ()}
    changes.update(_ending(board, deck, state.attributes, at_ms))
    state = state.evolve(**changes)
    cards = texts_of(added, state.attributes)
    return state, {"kind": "added", "at": at_ms, "cards": cards, "over": state.over}


def _agreement_time(state: DeclareState) -> int | None:
    """Return when away players alone complete the add agreement (§7), or None if they never do.

    That is the moment the last non-voter becomes away; it only exists while at least one vote is
    recorded and the deck can still deal.
    """
    if state.over or not state.votes or not state.deck:
        return None
    voted = set(state.votes)
    last_seen = state.last_seen
    waits = [last_seen[p] + state.away_ms for p in state.players if p not in voted]
    return max(waits) if waits else None


def _agreed(state: DeclareState, at_ms: int) -> bool:
    """Tell whether every present player has voted (and somebody has) at ``at_ms``."""
    if not state.votes or not state.deck:
        return False
    voted = set(state.votes)
    return all(p in voted or not is_present(state, p, at_ms) for p in state.players)


def _run_due(state: DeclareState, now_ms: int) -> tuple[DeclareState, list[dict]]:
    """Apply, in time order, everything time has done up to ``now_ms``.

    Return the new state (the same one when nothing was due) and what happened: declare timeouts
    (each hands over to the next queued player with the old deadline + 5000, §4) and cards added
    when players became away (§7).
    """
    happened: list[dict] = []
    if state.waiting:
        if state.starts_ms is None or state.starts_ms > now_ms:
            return state, happened
        at = state.starts_ms
        state = _dealt(state, at)
        happened.append({"kind": "dealt", "at": at, "over": state.over})
    while not state.over:
        declaring = state.declaring
        deadline = declaring.deadline if declaring is not None else None
        agreement = _agreement_time(state)
        due = [t for t in (deadline, agreement) if t is not None and t <= now_ms]
        if not due:
            break
        at = min(due)
        if at == deadline:
            assert declaring is not None
            player = declaring.declarer
            scores, delta = _penalised(state.scores, player)
            state = state.evolve(
                scores=scores,
                tally=tallied(state.tally, player, timeouts=1),
                declaring=_handed_over(declaring, at + state.declare_ms),
            )
            happened.append(
                {
                    "kind": "timeout",
                    "at": at,
                    "player": player,
                    "delta": delta,
                    "score": state.scores[player],
                    "declarer": state.declaring.declarer if state.declaring else None,
                }
            )
        else:
            state, added = _add_cards(state, at)
            happened.append(added)
    return state, happened
