"""Every write to a game goes through here.

Each service runs in one transaction: it locks the game row (``select_for_update``; on SQLite the
IMMEDIATE transaction mode and the process's write lock serialise writers), applies the rules,
appends the move, bumps the version (checked on update, so a stale writer can never overwrite a
newer state) and broadcasts the new version to the game's channel group once the transaction has
committed.
"""

from __future__ import annotations

import json
import random
import re
import time
from dataclasses import dataclass

from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from rest_framework import status

from games import limits, runtime, selectors
from games.errors import GameError
from games.kinds import Result, RuleError, get_rules
from games.models import Game, Move, Player, Seat

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


class NotFound(GameError):
    http_status = status.HTTP_404_NOT_FOUND


class Forbidden(GameError):
    http_status = status.HTTP_403_FORBIDDEN


class Conflict(GameError):
    http_status = status.HTTP_409_CONFLICT


def broadcast(
    game: Game, *, event: bool, actor: str = "", action: str = "", publish: bool = True
) -> None:
    """Once the change is committed, cache the new state and tell every watcher its version.

    The message names the actor and the action, so a /watch can tell its own join from the
    events it waits for, and carries the game's head, so a listener in the writer's process
    (where the new state is cached) renders the change without a database read. Presence marks
    are cached but not published (``publish=False``).
    """
    message = {
        "type": "game.changed",
        "game": game.pk,
        "version": game.version,
        "event": event,
        "deadline_ms": game.deadline_ms,
        "over": game.status == Game.Status.OVER,
        "actor": actor,
        "action": action,
        # The rest of the game's head: with the state cached, a listener has the game without
        # reading it (selectors.head_from_message), unless a later change supersedes this one.
        "kind": game.kind,
        "status": game.status,
        "is_open": game.is_open,
    }
    # A later change of the same transaction supersedes this one: a listener woken by this
    # message reads the game then, and sees the newest (selectors.head_from_message).
    earlier = getattr(game, "_change_message", None)
    if earlier is not None:
        earlier["superseded"] = True
    game._change_message = message
    game_id, version, state = game.pk, game.version, game.state

    def after_commit():
        runtime.remember_state(game_id, version, state)
        if publish:
            runtime.publish(group_name(game_id), message)

    transaction.on_commit(after_commit)


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


def _save(game: Game, result: Result, *, now: int) -> None:
    """Store a new state on a locked game, checking that nobody wrote in between."""
    rules = get_rules(game.kind)
    before = game.state
    game.state = result.state
    game.deadline_ms = rules.next_deadline(result.state)
    new_status = rules.status(result.state)
    fields = {}
    if new_status == Game.Status.OVER and game.status != Game.Status.OVER:
        game.finished = fields["finished"] = timezone.now()
    game.status = new_status
    changed = _update_game(
        game.pk,
        game.version,
        state=game.state,
        deadline_ms=game.deadline_ms,
        status=game.status,
        version=game.version + 1,
        updated=timezone.now(),
        **fields,
    )
    if changed != 1:
        raise Conflict("The game changed while this move was being applied; try again.")
    game.version += 1
    old_scores = rules.scores(before)
    for name, score in rules.scores(result.state).items():
        if old_scores.get(name) != score:
            with connection.cursor() as cursor:  # plain SQL, as _update_game
                cursor.execute(_SEAT_SCORE_SQL, [score, game.pk, name])


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


def _log(game: Game, *, seat, actor: str, action: dict, result: Result, at: int):
    """Append the move; `seat` is a Seat, a seat id, or None for the game's own events."""
    seat_id = seat.pk if isinstance(seat, Seat) else seat
    # The version after the save is the move's number: one move per version.
    moves_append(game.pk, [(game.version, seat_id, actor, action, result.outcome, at)])


def _commit(game: Game, *, seat, actor: str, action: dict, result: Result, now: int) -> None:
    _save(game, result, now=now)
    _log(game, seat=seat, actor=actor, action=action, result=result, at=now)
    if game.has_computers:
        _schedule_computers(game, now)
    kind = action.get("type", "")
    broadcast(
        game,
        event=result.event,
        actor=actor,
        action=kind,
        publish=result.event or kind not in PRESENCE_ACTIONS,
    )
    if game.is_default and game.status == Game.Status.OVER:
        _replace_default(game)


def _due_tick(game: Game, now: int) -> bool:
    """Apply time-driven events that are due before anything else; say whether one happened.

    Due are the rules' own deadlines (a declare timeout) and computer seats whose thinking time
    is up; whichever request, watcher or socket first touches the game after that applies them.
    """
    if game.deadline_ms is None or now < game.deadline_ms or game.status == Game.Status.OVER:
        return False
    event = False
    result = get_rules(game.kind).tick(game.state, now)
    if result.state != game.state:
        _commit(game, seat=None, actor="", action={"type": "tick"}, result=result, now=now)
        event = result.event
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
    rules = get_rules(kind)
    now = now_ms() if now is None else now
    if seed is None:
        seed = random.SystemRandom().randrange(2**62)
    try:
        options = rules.options(options or {})
        state = rules.new(options=options, seed=seed, now_ms=now)
    except (RuleError, ValueError) as exc:
        raise _rule_error(exc) from exc
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
    rules = get_rules(game.kind)
    if game.status == Game.Status.OVER:
        raise GameError("The game is over; nobody can join it.", http_status=409)
    if game.status == Game.Status.ACTIVE and not rules.join_while_active:
        raise GameError("The game has started; nobody can join it now.", http_status=409)
    taken = list(game.seats.order_by().values_list("name", flat=True))
    count = len(taken)
    if rules.max_seats is not None and count >= rules.max_seats:
        raise GameError(f"The game is full ({rules.max_seats} seats).", http_status=409)
    if name in taken:
        raise GameError(f"The name {name!r} is taken at this game.", http_status=409)
    try:
        result = rules.join(game.state, name, now)
    except (RuleError, ValueError) as exc:
        raise _rule_error(exc) from exc
    seat = Seat.objects.create(
        game=game, player=player, number=count, name=name, is_computer=player.is_computer
    )
    _commit(game, seat=seat, actor=name, action={"type": "join"}, result=result, now=now)
    return seat


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


def move_submit(*, game_id: int, seat: Seat, action: dict, now: int | None = None) -> MoveResult:
    """Apply one action for a seat; a refused action raises and changes nothing."""
    now = now_ms() if now is None else now
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
    with runtime.write_transaction():
        game = _lock(game_id)
        if seat.game_id != game.pk:
            raise Forbidden("That seat does not belong to this game.")
        _due_tick(game, now)
        rules = get_rules(game.kind)
        try:
            result = rules.apply(game.state, seat.name, action, now)
        except (RuleError, ValueError) as exc:
            raise _rule_error(exc) from exc
        if result.state != game.state:
            _commit(game, seat=seat, actor=seat.name, action=action, result=result, now=now)
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
        result = get_rules(game.kind).apply(game.state, name, action, now)
        if result.state != game.state:
            _commit(game, seat=seat, actor=name, action=action, result=result, now=now)
        return MoveResult(game=game, outcome=result.outcome, event=event or result.event)
