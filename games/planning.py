"""Planning a change to a game: the rules only, no database.

A plan reads a game's head (and its seats) and says what a request does to it: the moves to log
and the game's row after them (a `Change`), or a refusal (a `RuleError`). Time-driven events come
first (`plan_due`: the rules' own deadline, then each computer whose thinking time is up), and
every change schedules the computers' next turns and hands the default table over when it ends
(`change_of`). games.services commits what is planned here; nothing here writes.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field

from games.errors import GameError, RuleError
from games.models import Game, new_token
from games.names import name_key
from games.rules import Result, get_rules
from games.store import SeatRow, TableHead

OVER = Game.Status.OVER

# Sending a presence mark costs a write; one a second per player keeps "away" exact to a second.
TOUCH_INTERVAL_MS = 1000
# Actions that only mark a player present: logged (the away rule depends on them) but not
# broadcast unless they are events (a join).
PRESENCE_ACTIONS = frozenset({"look", "watch", "touch"})

# Mean thinking time of a computer seat, in seconds, by speed ("instant" is for tests and demos).
COMPUTER_SPEEDS_S = {"slow": 12.0, "medium": 7.0, "fast": 3.5, "instant": 0.05}


# -- what a write does --------------------------------------------------------------------------


@dataclass
class NewSeat:
    """The seat a join adds; its id (`pk`) is known once written. `player_id` None: the write
    makes a player named as the seat."""

    number: int
    name: str
    player_id: int | None = None
    is_computer: bool = False
    protocol: bool = False
    computer: dict = field(default_factory=dict)
    token: str = field(default_factory=new_token)
    pk: int | None = None
    credential: str = ""  # what the token is handed to (games.models.Seat.credential)


@dataclass
class Step:
    """One move of a change, as its log entry: the seat (an id, a NewSeat, or None for the
    game's own events), the actor's name, the action as the rules read it, its result, when."""

    seat: int | NewSeat | None
    actor: str
    action: dict
    result: Result
    at: int

    @property
    def seat_id(self) -> int | None:
        return getattr(self.seat, "pk", self.seat)

    @property
    def published(self) -> bool:
        """Whether listeners hear of it: events, and every action but a presence mark."""
        return self.result.event or self.action.get("type") not in PRESENCE_ACTIONS


@dataclass
class Change:
    """What one write does to a game: the moves it logs (versions `from_version` + 1 ...
    `version`) and the game's row after them. Written only if the game is still at
    `from_version`, so a change planned on a stale game is never stored."""

    game_id: int
    from_version: int
    steps: list[Step]
    state: dict
    status: str
    deadline_ms: int | None
    ended: bool  # the game is over with this change (its `finished` time is set)
    scores: dict[str, int]  # the seats whose score changed, by name
    new_seat: NewSeat | None = None
    computers: dict[str, dict] = field(default_factory=dict)  # computers' new clocks, by name
    has_computers: bool | None = None  # True when a computer joins
    is_default: bool | None = None  # False when the default table ends (a new one follows)
    options: dict | None = None  # the game's options, when the default table ends

    @property
    def version(self) -> int:
        return self.from_version + len(self.steps)


@dataclass
class NewGame:
    """A game to insert: its kind, options, seed and first state, and for a game played as it
    is made (Set War) its moves."""

    kind: str
    options: dict
    seed: int
    state: dict
    status: str
    deadline_ms: int | None
    created_ms: int
    is_open: bool = False
    is_default: bool = False
    steps: list[Step] = field(default_factory=list)
    rated: bool = False
    link_key: str = ""  # a private game's key (games.models.Game.link_key)
    maker: str = ""  # who made it (games.models.Game.maker)
    seats: list[NewSeat] = field(default_factory=list)  # a table made seated (their moves too)


# -- planning: the rules only, no database --------------------------------------------------------


#: How an engine's error says what kind of refusal it is (its ``refusal``), as an HTTP status.
REFUSALS = {"conflict": 409, "forbidden": 403}


def _rule_error(exc: Exception) -> GameError:
    """The platform's one rule error for whatever a kind's rules refused with: a 400, or the
    status of the engine's kind of refusal (a move before the deal is a conflict, 409)."""
    if isinstance(exc, RuleError):
        return exc
    status = REFUSALS.get(getattr(exc, "refusal", None))
    return RuleError(str(exc), getattr(exc, "code", "invalid"), http_status=status)


def has_started(kind: str, state: dict) -> bool:
    """Whether a game has begun for its players (its accounts hear ``gameStart``): its kind's
    `started` (a Set table's countdown runs), else it is no longer waiting."""
    rules = get_rules(kind)
    started = getattr(rules, "started", None)
    return started(state) if started is not None else rules.status(state) != Game.Status.WAITING


def after(head: TableHead, change: Change) -> TableHead:
    """A head with the change applied (a new one: a cached head is shared, never changed)."""
    return dataclasses.replace(
        head,
        state=change.state,
        status=change.status,
        version=change.version,
        deadline_ms=change.deadline_ms,
        has_computers=head.has_computers or bool(change.has_computers),
        is_default=head.is_default if change.is_default is None else change.is_default,
    )


def _thinking_ms(game_id: int, number: int, version: int, speed: str) -> int:
    """A computer's thinking time around its speed, drawn reproducibly for the game."""
    mean = COMPUTER_SPEEDS_S[speed]
    rng = random.Random(f"{game_id}:{number}:{version}")
    return int(1000 * min(max(rng.gauss(mean, mean / 4), mean / 3), 2 * mean))


def _computer_seats(seats) -> list[SeatRow]:
    return sorted((s for s in seats or () if s.is_computer), key=lambda s: s.number)


def plan_due(head: TableHead, seats, now: int) -> tuple[list[Step], dict, dict[str, dict]]:
    """What time alone has made due before anything else: the rules' own deadline (a declare
    timeout), then each computer whose thinking time is up acts on the board as it is. The
    steps, the state after them and the computers' new clocks."""
    steps: list[Step] = []
    state = head.state
    clocks: dict[str, dict] = {}
    if head.deadline_ms is None or now < head.deadline_ms or head.status == OVER:
        return steps, state, clocks
    rules = get_rules(head.kind)
    ticked = rules.tick(state, now)
    if ticked.state != state:
        steps.append(Step(None, "", {"type": "tick"}, ticked, now))
        state = ticked.state
    for seat in _computer_seats(seats):
        planned = seat.computer.get("next_ms")
        if planned is None or planned > now or rules.status(state) == OVER:
            continue
        clocks[seat.name] = {**seat.computer, "next_ms": None}
        for action in rules.bot_actions(state, seat.name) or []:
            try:
                result = rules.apply(state, seat.name, action, now)
            except ValueError:  # RuleError too: the board moved on under it; it thinks again
                break
            steps.append(Step(seat.pk, seat.name, result.action or action, result, now))
            state = result.state
    return steps, state, clocks


def _schedule(head, seats, state, status, clocks, version, now, new_seat=None) -> int | None:
    """Give every idle computer with something to do a time to act (into `clocks`); the
    game's next deadline: the earliest of the rules' own and the computers' times."""
    rules = get_rules(head.kind)
    times = []
    computers = [
        (s.number, s.name, clocks.get(s.name, s.computer)) for s in seats or () if s.is_computer
    ]
    if new_seat is not None and new_seat.is_computer:
        computers.append((new_seat.number, new_seat.name, new_seat.computer))
    for number, name, clock in computers:
        planned = clock.get("next_ms")
        if status == OVER:
            planned = None
        elif planned is None and rules.bot_actions(state, name) is not None:
            speed = clock.get("speed", "medium")
            planned = now + _thinking_ms(head.pk, number, version, speed)
        if planned != clock.get("next_ms"):
            if new_seat is not None and name == new_seat.name:
                new_seat.computer = {**clock, "next_ms": planned}
            else:
                clocks[name] = {**clock, "next_ms": planned}
        if planned is not None:
            times.append(planned)
    deadline = rules.next_deadline(state)
    if deadline is not None:
        times.append(deadline)
    return min(times) if times else None


def change_of(
    head: TableHead,
    seats,
    steps: list[Step],
    now: int,
    *,
    clocks: dict[str, dict] | None = None,
    new_seat: NewSeat | None = None,
    has_computers: bool | None = None,
) -> Change | None:
    """The change `steps` make to the game (None: nothing to write), with the computers'
    turns scheduled and the default table handed over when it ends."""
    clocks = dict(clocks or {})
    if not steps and not clocks:
        return None
    rules = get_rules(head.kind)
    state = steps[-1].result.state if steps else head.state
    status = rules.status(state)
    version = head.version + len(steps)
    if head.has_computers or has_computers:
        deadline = _schedule(head, seats, state, status, clocks, version, now, new_seat)
    else:
        deadline = rules.next_deadline(state)
    before = rules.scores(head.state)
    scores = {
        name: score for name, score in rules.scores(state).items() if before.get(name) != score
    }
    ended = status == OVER and head.status != OVER
    return Change(
        head.pk,
        head.version,
        steps,
        state,
        status,
        deadline,
        ended,
        scores,
        new_seat,
        clocks,
        has_computers,
        False if head.is_default and ended else None,
    )


def plan_move(
    head: TableHead, seats, *, seat: int | NewSeat, name: str, action: dict, now: int
) -> tuple[Change | None, Result]:
    """A seat's action (after whatever is due) on `head`: the change and the action's result.
    A refused action raises and plans nothing."""
    steps, state, clocks = plan_due(head, seats, now)
    rules = get_rules(head.kind)
    try:
        result = rules.apply(state, name, action, now)
    except ValueError as exc:  # RuleError, or the engine's own
        raise _rule_error(exc) from exc
    if result.state != state:
        steps.append(Step(seat, name, result.action or action, result, now))
    return change_of(head, seats, steps, now, clocks=clocks), result


def plan_join(
    head: TableHead,
    seats,
    *,
    name: str,
    now: int,
    player_id: int | None = None,
    is_computer: bool = False,
    protocol: bool = False,
    computer: dict | None = None,
    rated: bool = False,
) -> Change:
    """Seat `name` (after whatever is due) at `head`, whose seats are `seats`. A `rated` game
    takes no new seat once it has started: its players are those it was rated for."""
    rules = get_rules(head.kind)
    steps, state, clocks = plan_due(head, seats, now)
    status = rules.status(state)
    if status == OVER:
        raise GameError("The game is over; nobody can join it.", http_status=409)
    if status == Game.Status.ACTIVE and not rules.join_while_active:
        raise GameError("The game has started; nobody can join it now.", http_status=409)
    if rated and status == Game.Status.ACTIVE:
        raise RuleError(
            "This rated game has started: its players are seated. Watch it, or join the next one.",
            "started",
            http_status=409,
        )
    if rules.max_seats is not None and len(seats) >= rules.max_seats:
        raise GameError(f"The game is full ({rules.max_seats} seats).", http_status=409)
    if any(_looks_alike(seat, name, protocol) for seat in seats):
        raise RuleError(f"The name {name!r} is taken at this game.", "name_taken", http_status=409)
    try:
        result = rules.join(state, name, now)
    except ValueError as exc:
        raise _rule_error(exc) from exc
    seat = NewSeat(len(seats), name, player_id, is_computer, protocol, dict(computer or {}))
    steps.append(Step(seat, name, {"type": "join"}, result, now))
    return change_of(
        head,
        seats,
        steps,
        now,
        clocks=clocks,
        new_seat=seat,
        has_computers=True if is_computer and not head.has_computers else None,
    )


def _looks_alike(seat, name: str, protocol: bool) -> bool:
    """Whether a new seat's `name` is taken by `seat`: a name that looks like it (names.name_key:
    `Ann` and `ann`, `ada` and a Cyrillic `аda`). Two names joined over the text protocol are
    compared as they are: its spec's names are case-sensitive identities."""
    if seat.name == name:
        return True
    if protocol and seat.protocol:
        return False
    return name_key(seat.name) == name_key(name)


def plan_create(
    *, kind: str, options: dict | None, seed: int | None, now: int, is_open=False, is_default=False
) -> NewGame:
    """A new game: its validated options, its seed (the one its options fix, else the one given,
    else random) and first state."""
    rules = get_rules(kind)
    try:
        options = rules.options(options or {})
        fixed = getattr(rules, "seed_for", None)
        seed = (fixed and fixed(options)) or seed
        if seed is None:
            seed = random.SystemRandom().randrange(2**62)
        state = rules.new(options=options, seed=seed, now_ms=now)
    except ValueError as exc:
        raise _rule_error(exc) from exc
    return NewGame(
        kind,
        options,
        seed,
        state,
        rules.status(state),
        rules.next_deadline(state),
        now,
        is_open,
        is_default,
    )
