"""Every write to a game goes through here.

Each service runs in one transaction: it locks the game row (``select_for_update``; on SQLite the
IMMEDIATE transaction mode and the process's write lock serialise writers), applies the rules,
appends the move, bumps the version (checked on update, so a stale writer can never overwrite a
newer state) and broadcasts the new version to the game's channel group once the transaction has
committed.

What a write does is planned apart from how it is written: `plan_move` and `plan_join` apply the
rules to a game's head and return a `Change` (the moves to log and the game's row after them),
and nothing else. The services here write a Change through Django's connection
(`_commit_change`); the event loop's services (games.live) write the same Change through
games.store, without a thread hop. Both broadcast the same message (`change_message`), which
carries the change's moves, so another process can bring its cached state up to date by
applying them (the move log is the truth) instead of reading the game.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import time
from dataclasses import dataclass, field

from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from rest_framework import status

from games import limits, runtime, selectors
from games.errors import Conflict, Forbidden, GameError, NotFound, RuleError
from games.models import Game, Move, Player, Seat, new_token
from games.rules import Result, get_rules

# Sending a presence mark costs a write; one a second per player keeps "away" exact to a second.
TOUCH_INTERVAL_MS = 1000
# Actions that only mark a player present: logged (the away rule depends on them) but not
# broadcast unless they are events (a join).
PRESENCE_ACTIONS = frozenset({"look", "watch", "touch"})

# Mean thinking time of a computer seat, in seconds, by speed ("instant" is for tests and demos).
COMPUTER_SPEEDS_S = {"slow": 12.0, "medium": 7.0, "fast": 3.5, "instant": 0.05}


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def group_name(game_id: int) -> str:
    return f"game-{game_id}"


@dataclass(frozen=True)
class MoveResult:
    game: Game
    outcome: dict
    event: bool
    seat: Seat | None = None


# -- planning: what a write does (the rules only; no database) ----------------------------------


@dataclass
class NewSeat:
    """The seat a join adds. It is written before the moves that name it, which is when its id
    (`pk`) is known; `player` is the player it seats (None: the writer makes one named `name`)."""

    number: int
    name: str
    player: Player | None = None
    is_computer: bool = False
    token: str = field(default_factory=new_token)
    pk: int | None = None
    player_id: int | None = None


@dataclass
class Step:
    """One move of a change, as its log entry: the seat (an id, a Seat, a NewSeat or None for
    the game's own events), the actor's name, the action, what came of it, and when."""

    seat: int | Seat | NewSeat | None
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
    `version`), and the game's row after them. Written with its version checked, so a change
    planned on a stale game is never stored."""

    game_id: int
    from_version: int
    steps: list[Step]
    state: dict
    status: str
    deadline_ms: int | None
    ended: bool  # the game is over with this change (its `finished` time is set)
    scores: dict[str, int]  # the seats whose score changed, by name
    new_seat: NewSeat | None = None

    @property
    def version(self) -> int:
        return self.from_version + len(self.steps)


def change_of(head, steps: list[Step], new_seat: NewSeat | None = None) -> Change:
    """The change that `steps` (applied in order to `head`'s state) make to the game."""
    rules = get_rules(head.kind)
    state = steps[-1].result.state
    status = rules.status(state)
    before = rules.scores(head.state)
    scores = {
        name: score for name, score in rules.scores(state).items() if before.get(name) != score
    }
    ended = status == Game.Status.OVER and head.status != Game.Status.OVER
    return Change(
        head.pk,
        head.version,
        steps,
        state,
        status,
        rules.next_deadline(state),
        ended,
        scores,
        new_seat,
    )


def after(head, change: Change):
    """A TableHead with the change applied (a new one: a cached head is shared, so it is never
    changed in place)."""
    return dataclasses.replace(
        head,
        state=change.state,
        status=change.status,
        version=change.version,
        deadline_ms=change.deadline_ms,
    )


def tick_step(head, now: int) -> Step | None:
    """The rules' time-driven events (the declare timeout), when the game's deadline is due."""
    if head.deadline_ms is None or now < head.deadline_ms or head.status == Game.Status.OVER:
        return None
    result = get_rules(head.kind).tick(head.state, now)
    if result.state == head.state:
        return None
    return Step(None, "", {"type": "tick"}, result, now)


def plan_move(
    head, *, seat: int, name: str, action: dict, now: int
) -> tuple[Change | None, Result]:
    """Apply a seat's action (after any due tick) to `head`; the change (None: nothing to
    write) and the action's result. A refused action raises and plans nothing."""
    steps = []
    tick = tick_step(head, now)
    if tick is not None:
        steps.append(tick)
    state = tick.result.state if tick is not None else head.state
    try:
        result = get_rules(head.kind).apply(state, name, action, now)
    except (RuleError, ValueError) as exc:
        raise _rule_error(exc) from exc
    if result.state != state:
        steps.append(Step(seat, name, action, result, now))
    return (change_of(head, steps) if steps else None), result


def plan_join(
    head,
    taken: list[str],
    *,
    name: str,
    now: int,
    player: Player | None = None,
    is_computer: bool = False,
) -> Change:
    """Seat `name` (after any due tick) at `head`, whose seats hold the names `taken`."""
    rules = get_rules(head.kind)
    steps = []
    state, status = head.state, head.status
    tick = tick_step(head, now)
    if tick is not None:
        steps.append(tick)
        state = tick.result.state
        status = rules.status(state)
    if status == Game.Status.OVER:
        raise GameError("The game is over; nobody can join it.", http_status=409)
    if status == Game.Status.ACTIVE and not rules.join_while_active:
        raise GameError("The game has started; nobody can join it now.", http_status=409)
    if rules.max_seats is not None and len(taken) >= rules.max_seats:
        raise GameError(f"The game is full ({rules.max_seats} seats).", http_status=409)
    if name in taken:
        raise GameError(f"The name {name!r} is taken at this game.", http_status=409)
    try:
        result = rules.join(state, name, now)
    except (RuleError, ValueError) as exc:
        raise _rule_error(exc) from exc
    seat = NewSeat(len(taken), name, player, is_computer)
    steps.append(Step(seat, name, {"type": "join"}, result, now))
    return change_of(head, steps, seat)


# -- the message of a committed change ----------------------------------------------------------

# A change's moves ride in its message up to this many (a stored Set War game has thousands:
# listeners elsewhere read that game instead).
MESSAGE_MOVES = 16


def change_message(head, change: Change, *, origin: str) -> dict:
    """What every listener of the game hears once `change` is committed to `head` (the game
    before it): the game's new head, and the moves that led there from `from`, so a process
    whose cache holds the game at `from` applies them instead of reading the game.

    Each move is ``[actor, action, at_ms, event]``; a /watch tells its own join from the
    events it waits for by them.
    """
    moves = None
    if len(change.steps) <= MESSAGE_MOVES:
        moves = [[s.actor, s.action, s.at, s.result.event] for s in change.steps]
    return {
        "type": "game.changed",
        "game": change.game_id,
        "version": change.version,
        "from": change.from_version,
        "event": any(step.result.event for step in change.steps),
        "over": change.status == Game.Status.OVER,
        "deadline_ms": change.deadline_ms,
        "kind": head.kind,
        "status": change.status,
        "is_open": head.is_open,
        # Whose writes only the services make (a process following the change must know).
        "is_default": head.is_default,
        "has_computers": head.has_computers,
        "moves": moves,
        "origin": origin,
    }


# -- writing a change through Django's connection ----------------------------------------------

# The columns a write needs, read with one small query: the ORM's query building cost more than
# the rest of a protocol write together (bench/bench_server.py). `state` comes from the cache.
_LOCK_COLUMNS = (
    "id",
    "kind",
    "options",
    "seed",
    "status",
    "version",
    "is_open",
    "is_default",
    "deadline_ms",
    "created_ms",
    "has_computers",
)


def _lock(game_id: int) -> Game:
    """Lock the game row for this transaction and return it for writing (with `.update()` only:
    the instance carries just the columns a write needs)."""
    try:
        game_id = int(game_id)
    except (ValueError, TypeError, OverflowError):
        raise NotFound(f"There is no game with id {game_id}.") from None
    sql = f"SELECT {', '.join(_LOCK_COLUMNS)} FROM games_game WHERE id = %s"
    if connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id])
        row = cursor.fetchone()
    if row is None:
        raise NotFound(f"There is no game with id {game_id}.")
    values = dict(zip(_LOCK_COLUMNS, row, strict=True))
    values["options"] = _OPTIONS_FIELD.from_db_value(values["options"], None, connection)
    values["is_open"], values["is_default"] = bool(values["is_open"]), bool(values["is_default"])
    values["has_computers"] = bool(values["has_computers"])
    return selectors.with_state(Game(**values))


_OPTIONS_FIELD = Game._meta.get_field("options")


_SEAT_SCORE_SQL = "UPDATE games_seat SET score = %s WHERE game_id = %s AND name = %s"


def _update_game(game_id: int, expected_version: int, /, **values) -> int:
    """UPDATE one game row if it still has `version`; return how many rows changed.

    Plain SQL with values prepared by the model's own fields (each backend gets its own JSON and
    date forms): the ORM's query building cost more than the rest of a protocol move.
    """
    quote = connection.ops.quote_name
    fields = [Game._meta.get_field(name) for name in values]
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    params = [field.get_db_prep_save(values[field.name], connection) for field in fields]
    sql = f"UPDATE {quote(Game._meta.db_table)} SET {assignments} WHERE id = %s AND version = %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, game_id, expected_version])
        return cursor.rowcount


_MOVE_FIELDS = [
    Move._meta.get_field(name)
    for name in ("game", "seq", "seat", "actor", "action", "outcome", "at_ms", "created")
]


def moves_append(game_id: int, moves: list[tuple[int, int | None, str, dict, dict, int]]) -> None:
    """Append moves (seq, seat id, actor, action, outcome, at_ms) to a game's log in one go."""
    _game, seq, seat, actor, action, outcome, at_ms, created = _MOVE_FIELDS
    now = created.get_db_prep_save(timezone.now(), connection)
    rows = [
        (
            game_id,
            number,
            seat_id,
            name,
            action.get_db_prep_save(did, connection),
            outcome.get_db_prep_save(came, connection),
            at,
            now,
        )
        for number, seat_id, name, did, came, at in moves
    ]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(field.column) for field in _MOVE_FIELDS)
    placeholders = ", ".join(["%s"] * len(_MOVE_FIELDS))
    sql = f"INSERT INTO {quote(Move._meta.db_table)} ({columns}) VALUES ({placeholders})"
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


def _commit_change(game: Game, change: Change) -> Seat | None:
    """Write a change to a locked game, then let the game's own follow-ups run: computers
    schedule their turns, the default table is replaced when it ends, and listeners hear of it
    once the transaction commits."""
    seat = None
    if change.new_seat is not None:
        new = change.new_seat
        seat = Seat.objects.create(
            game=game,
            player=new.player,
            number=new.number,
            name=new.name,
            token=new.token,
            is_computer=new.is_computer,
        )
        new.pk, new.player_id = seat.pk, seat.player_id
    fields = {"finished": timezone.now()} if change.ended else {}
    changed = _update_game(
        game.pk,
        game.version,
        state=change.state,
        deadline_ms=change.deadline_ms,
        status=change.status,
        version=change.version,
        updated=timezone.now(),
        **fields,
    )
    if changed != 1:
        raise Conflict("The game changed while this move was being applied; try again.")
    game.state, game.status = change.state, change.status
    game.version, game.deadline_ms = change.version, change.deadline_ms
    if change.ended:
        game.finished = fields["finished"]
    moves_append(
        game.pk,
        [
            (
                change.from_version + n,
                step.seat_id,
                step.actor,
                step.action,
                step.result.outcome,
                step.at,
            )
            for n, step in enumerate(change.steps, 1)
        ],
    )
    for name, score in change.scores.items():
        with connection.cursor() as cursor:  # plain SQL, as _update_game
            cursor.execute(_SEAT_SCORE_SQL, [score, game.pk, name])
    if game.has_computers:
        _schedule_computers(game, change.steps[-1].at)
    _broadcast(game, change)
    if game.is_default and game.status == Game.Status.OVER:
        _replace_default(game)
    return seat


def _broadcast(game: Game, change: Change) -> None:
    """Once the transaction commits, cache the game's new state and tell its listeners.

    The changes of one transaction make one message (from the version the transaction found
    to the one it left): a listener never hears of a state that was not committed.
    Presence marks alone are cached, not published.
    """
    pending = getattr(game, "_pending_change", None)
    if pending is None:
        pending = game._pending_change = [change.from_version, []]
        transaction.on_commit(lambda: _after_commit(game))
    pending[1].extend(change.steps)


def _after_commit(game: Game) -> None:
    from_version, steps = game.__dict__.pop("_pending_change")
    change = Change(
        game.pk, from_version, steps, game.state, game.status, game.deadline_ms, False, {}
    )
    announce(selectors.head_of(game), change)


def announce(head, change: Change) -> None:
    """After a change's commit (here and in games.live): keep the game's new head, and tell
    its listeners unless the change was only presence marks."""
    runtime.remember_head(head)
    if any(step.published for step in change.steps):
        runtime.publish(change_message(head, change, origin=runtime.ORIGIN))


def _commit(game: Game, *, seat, actor: str, action: dict, result: Result, now: int) -> None:
    """Commit one step (a computer's move) to a locked game."""
    _commit_change(game, change_of(game, [Step(seat, actor, action, result, now)]))


def _due_tick(game: Game, now: int) -> bool:
    """Apply time-driven events that are due before anything else; say whether one happened.

    Due are the rules' own deadlines (a declare timeout) and computer seats whose thinking time
    is up; whichever request, watcher or socket first touches the game after that applies them.
    """
    if game.deadline_ms is None or now < game.deadline_ms or game.status == Game.Status.OVER:
        return False
    event = False
    tick = tick_step(game, now)
    if tick is not None:
        _commit_change(game, change_of(game, [tick]))
        event = tick.result.event
    if game.has_computers:
        event = _play_computers(game, now) or event
    return event


def _thinking_ms(game: Game, seat: Seat) -> int:
    """Draw a computer's thinking time around its speed, reproducibly from the game's seed."""
    mean = COMPUTER_SPEEDS_S[seat.computer.get("speed", "medium")]
    rng = random.Random(f"{game.seed}:{seat.number}:{game.version}")
    return int(1000 * min(max(rng.gauss(mean, mean / 4), mean / 3), 2 * mean))


def _schedule_computers(game: Game, now: int) -> None:
    """Give every idle computer seat with something to do a time to act; keep the game's
    deadline at the earliest of the rules' deadline and the computers' times."""
    rules = get_rules(game.kind)
    times = []
    for seat in game.seats.filter(is_computer=True):
        planned = seat.computer.get("next_ms")
        if game.status == Game.Status.OVER:
            planned = None
        elif planned is None and rules.bot_actions(game.state, seat.name) is not None:
            planned = now + _thinking_ms(game, seat)
        if planned != seat.computer.get("next_ms"):
            seat.computer = {**seat.computer, "next_ms": planned}
            Seat.objects.filter(pk=seat.pk).update(computer=seat.computer)
        if planned is not None:
            times.append(planned)
    rules_deadline = rules.next_deadline(game.state)
    if rules_deadline is not None:
        times.append(rules_deadline)
    deadline = min(times) if times else None
    if deadline != game.deadline_ms:
        Game.objects.filter(pk=game.pk).update(deadline_ms=deadline)
        game.deadline_ms = deadline


def _play_computers(game: Game, now: int) -> bool:
    """Let each computer seat whose time is up act on the board as it is now."""
    rules = get_rules(game.kind)
    event = False
    for seat in game.seats.filter(is_computer=True).order_by("number"):
        planned = seat.computer.get("next_ms")
        if planned is None or planned > now or game.status == Game.Status.OVER:
            continue
        seat.computer = {**seat.computer, "next_ms": None}
        Seat.objects.filter(pk=seat.pk).update(computer=seat.computer)
        for action in rules.bot_actions(game.state, seat.name) or []:
            try:
                result = rules.apply(game.state, seat.name, action, now)
            except (RuleError, ValueError):
                break  # the board moved on under it; it thinks again below
            _commit(game, seat=seat, actor=seat.name, action=action, result=result, now=now)
            event = event or result.event
    _schedule_computers(game, now)
    return event


def _rule_error(exc: Exception) -> GameError:
    code = getattr(exc, "code", "invalid")
    error = GameError(str(exc), http_status=status.HTTP_400_BAD_REQUEST)
    error.code = code
    return error


def plan_create(
    *, kind: str, options: dict | None, seed: int | None, now: int
) -> tuple[dict, int, dict]:
    """A new game's validated options, seed (random when not given) and first state."""
    rules = get_rules(kind)
    if seed is None:
        seed = random.SystemRandom().randrange(2**62)
    try:
        options = rules.options(options or {})
        state = rules.new(options=options, seed=seed, now_ms=now)
    except (RuleError, ValueError) as exc:
        raise _rule_error(exc) from exc
    return options, seed, state


def game_create(
    *,
    kind: str,
    options: dict | None = None,
    seed: int | None = None,
    is_open: bool = False,
    is_default: bool = False,
    now: int | None = None,
) -> Game:
    """Create a game of a kind with validated options and a seed (random when not given)."""
    now = now_ms() if now is None else now
    options, seed, state = plan_create(kind=kind, options=options, seed=seed, now=now)
    rules = get_rules(kind)
    return Game.objects.create(
        kind=kind,
        options=options,
        seed=seed,
        state=state,
        status=rules.status(state),
        deadline_ms=rules.next_deadline(state),
        created_ms=now,
        is_open=is_open,
        is_default=is_default,
    )


def _replace_default(finished: Game) -> None:
    """Make a fresh table the default when the default one is over (set-table-protocol §8)."""
    Game.objects.filter(pk=finished.pk).update(is_default=False)
    finished.is_default = False
    game_create(
        kind=finished.kind,
        options={k: v for k, v in finished.options.items() if k != "deck"},
        is_open=True,
        is_default=True,
    )


def default_table() -> Game:
    """The table the bare protocol routes address, created on first use."""
    game = Game.objects.filter(is_default=True).first()
    if game is not None:
        return game
    try:
        with runtime.write_transaction():
            return game_create(
                kind=Game.Kind.SET, options={"rules": "declare"}, is_open=True, is_default=True
            )
    except IntegrityError:  # another request created it first
        return Game.objects.get(is_default=True)


def protocol_seat_id(game: Game, name: str) -> int | None:
    """The seat a protocol name acts for: one joined by name (the protocol or a token client),
    never a browser session's or a computer's; their names are taken (`_add_seat` refuses)."""
    seat_id = runtime.cached_seat(game.pk, name)
    if seat_id is None:
        seat_id = (
            Seat.objects.filter(
                game_id=game.pk,
                name=name,
                is_computer=False,
                player__session_key="",
                player__user__isnull=True,
            )
            .values_list("id", flat=True)
            .first()
        )
        if seat_id is not None and not connection.in_atomic_block:
            runtime.remember_seat(game.pk, name, seat_id)
        elif seat_id is not None:
            # Only a committed seat may be cached (this transaction could still roll back).
            transaction.on_commit(lambda: runtime.remember_seat(game.pk, name, seat_id))
    return seat_id


def _add_seat(game: Game, *, player: Player, name: str, now: int) -> Seat:
    taken = list(game.seats.order_by().values_list("name", flat=True))
    change = plan_join(
        game, taken, name=name, now=now, player=player, is_computer=player.is_computer
    )
    return _commit_change(game, change)


def game_join(
    *, game_id: int, player: Player, name: str | None = None, now: int | None = None
) -> Seat:
    """Seat a player at a game under a name unique there; the seat carries the API token."""
    now = now_ms() if now is None else now
    with runtime.write_transaction():
        game = _lock(game_id)
        _due_tick(game, now)
        return _add_seat(game, player=player, name=name or player.name, now=now)


_JSON_NUL = re.compile(r"(?<!\\)(?:\\\\)*\\u0000")


def seat_move(*, game_id: int, seat: Seat, action: dict, now: int | None = None) -> MoveResult:
    """A seat's move through the API or the WebSocket: counted against the seat's rate limit,
    then submitted (the text protocol counts its moves against the same seat: protocol.limit)."""
    limits.check("moves", f"seat:{seat.pk}")
    return move_submit(game_id=game_id, seat=seat, action=action, now=now)


def check_action(action) -> None:
    """Refuse what is not an action a seat may submit, or what the move log cannot store."""
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise GameError("An action is a JSON object with a string field 'type'.")
    if action["type"] in {"join", "tick"}:
        raise GameError(f"'{action['type']}' is not an action a seat can submit.")
    try:
        # The move log stores the action as JSON: no NaN or infinity, no unpaired surrogate,
        # and no NUL character (PostgreSQL's jsonb refuses it).
        text = json.dumps(action, allow_nan=False, ensure_ascii=False)
        text.encode()
        if _JSON_NUL.search(text):  # a NUL escape, not an escaped backslash before "u0000"
            raise ValueError("NUL")
    except ValueError:
        raise GameError(
            "An action holds only plain JSON: finite numbers and Unicode text without NUL."
        ) from None


def move_submit(*, game_id: int, seat: Seat, action: dict, now: int | None = None) -> MoveResult:
    """Apply one action for a seat; a refused action raises and changes nothing."""
    now = now_ms() if now is None else now
    check_action(action)
    with runtime.write_transaction():
        game = _lock(game_id)
        if seat.game_id != game.pk:
            raise Forbidden("That seat does not belong to this game.")
        if game.has_computers:
            _due_tick(game, now)  # computers whose time is up play first
        change, result = plan_move(game, seat=seat.pk, name=seat.name, action=action, now=now)
        if change is not None:
            _commit_change(game, change)
        return MoveResult(game=game, outcome=result.outcome, event=result.event, seat=seat)


def seat_add_computer(*, game_id: int, speed: str = "medium", now: int | None = None) -> Seat:
    """Seat a computer player, which finds sets after a delay drawn around its speed and plays
    through the same rules as a person (so a quicker person beats it)."""
    if speed not in COMPUTER_SPEEDS_S:
        known = ", ".join(COMPUTER_SPEEDS_S)
        raise GameError(f"Unknown computer speed {speed!r}; use one of {known}.")
    now = now_ms() if now is None else now
    with runtime.write_transaction():
        game = _lock(game_id)
        if not hasattr(get_rules(game.kind), "bot_actions"):
            raise GameError(f"{game.get_kind_display()} games have no computer players.")
        taken = set(game.seats.values_list("name", flat=True))
        number = 1
        while f"Computer{number}" in taken:
            number += 1
        player = Player.objects.create(name=f"Computer{number}", is_computer=True)
        if not game.has_computers:
            game.has_computers = True
            Game.objects.filter(pk=game.pk).update(has_computers=True)
        seat = _add_seat(game, player=player, name=player.name, now=now)
        seat.computer = {"speed": speed, "next_ms": None}
        seat.save(update_fields=["computer"])
        _schedule_computers(game, now)
        return seat


def game_tick(*, game_id: int, now: int | None = None) -> MoveResult:
    """Apply whatever time alone has made due (watchers and sockets call this at deadlines)."""
    now = now_ms() if now is None else now
    with runtime.write_transaction():
        game = _lock(game_id)
        event = _due_tick(game, now)
        return MoveResult(game=game, outcome={}, event=event)


def protocol_act(*, game_id: int, name: str, action: dict, now: int | None = None) -> MoveResult:
    """Serve one plain-text protocol request: join the name if new, then act, atomically."""
    now = now_ms() if now is None else now
    with runtime.write_transaction():
        game = _lock(game_id)
        event = _due_tick(game, now)
        if game.status == Game.Status.OVER:
            return MoveResult(game=game, outcome={}, event=event)
        seat = protocol_seat_id(game, name)
        if seat is None:
            player = Player.objects.create(name=name)
            seat = _add_seat(game, player=player, name=name, now=now).pk
            event = True
        change, result = plan_move(game, seat=seat, name=name, action=action, now=now)
        if change is not None:
            _commit_change(game, change)
        return MoveResult(game=game, outcome=result.outcome, event=event or result.event)
