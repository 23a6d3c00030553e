"""Play now: pools of players waiting for a table, seated together by games.pairing.

A pool is named by a key: ``"<kind>:<mode>:rated"`` or ``"<kind>:<mode>:casual"`` for Play now
(a kind's rated mode, games.ratings, rated or casual), or any other key a caller chooses (an
arena tournament's pool, ``"arena:17"``). A player waits in one pool at most
(games.models.PoolEntry): entering another moves them.

Pairing (`pool_pair`) is planned purely (games.pairing.plan_tables) and committed like a move: in
one transaction that reads the pool's waiting entries locked (PostgreSQL's ``SELECT ... FOR
UPDATE``; SQLite's IMMEDIATE transaction under the process's write lock), makes each table
through the one write path (services.create, services.join in order, a Set table's start), and
marks the entries seated only if they still wait, so two processes never seat one player
twice. Once committed, each seated player is told ``{"type": "gameStart", "game": {"id",
"kind", "url", "pool"}}`` (an account's event stream and lobby sockets; a guest's lobby socket
by its session), and the lobby's sockets the pools' counts (``{"type": "pools", ...}``).

Who pairs: every entry into a pool; a timer on the server's event loop at the plan's next due
time (no polling); and, after a restart, the first pool request the process serves
(`pool_resume`), so a restart loses nothing: the entries are rows.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import logging
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from games import manners, moderation, ratings, realtime, runtime, services
from games.errors import Conflict, Forbidden, GameError, RuleError
from games.models import Block, Game, Player, PoolEntry, Rating
from games.pairing import PLAY_NOW, PairingRules, Plan, Waiting, plan_tables
from games.rules import get_rules, kinds

log = logging.getLogger(__name__)

WAITING = PoolEntry.Status.WAITING
SEATED = PoolEntry.Status.SEATED
LEFT = PoolEntry.Status.LEFT
RATED_FOR_ACCOUNTS = "A rated pool is for accounts: sign in, or play casual."


def pairing_rules() -> PairingRules:
    """Play now's numbers, with the wait limit of POOL_WAIT_LIMIT_S (10 s by default)."""
    limit_s = float(getattr(settings, "POOL_WAIT_LIMIT_S", 10))
    return PairingRules(
        table_min=PLAY_NOW.table_min,
        table_max=PLAY_NOW.table_max,
        wait_limit_ms=int(limit_s * 1000),
        base_gap=PLAY_NOW.base_gap,
        gap_per_s=PLAY_NOW.gap_per_s,
    )


# -- the pools of Play now ---------------------------------------------------------------------


def play_now_modes() -> dict[str, dict[str, str]]:
    """Each kind that has Play now, with its modes and their names for people (in order)."""
    found: dict[str, dict[str, str]] = {}
    for kind in kinds():
        rules = get_rules(kind)
        options_of = getattr(rules, "play_now_options", None)
        if options_of is None:
            continue
        modes = {
            mode: name
            for mode, name in getattr(rules, "rating_modes", {}).items()
            if options_of(mode, 2) is not None
        }
        if modes:
            found[kind] = modes
    return found


def pool_key(kind: str, mode: str, rated: bool) -> str:
    return f"{kind}:{mode}:{'rated' if rated else 'casual'}"


def play_now_pool(kind, options) -> tuple[str, str, bool]:
    """Check a Play now request's kind and options (``mode``, ``rated``): (kind, mode, rated),
    or a RuleError (400) naming what is wrong."""
    modes = play_now_modes()
    if kind not in modes:
        raise RuleError(
            f"Play now is for {' or '.join(repr(k) for k in modes)}; not {kind!r}.", "bad_kind"
        )
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RuleError("options is a JSON object: mode and rated.", "bad_option")
    unknown = sorted(set(options) - {"mode", "rated"})
    if unknown:
        raise RuleError(
            f"Unknown Play now option {unknown[0]!r}; the options are mode and rated.",
            "bad_option",
        )
    mode = options.get("mode", next(iter(modes[kind])))
    if mode not in modes[kind]:
        raise RuleError(
            f"options.mode is one of {', '.join(modes[kind])} for {kind!r}; not {mode!r}.",
            "bad_option",
        )
    rated = options.get("rated", False)
    if not isinstance(rated, bool):
        raise RuleError("options.rated is true or false.", "bad_option")
    return kind, mode, rated


def play_now_enter(*, player: Player, kind, options, credential: str = "") -> PoolEntry:
    """Put `player` in the Play now pool the request names (see `play_now_pool`), and pair it.
    A guest plays casual only (403)."""
    kind, mode, rated = play_now_pool(kind, options)
    table_options = get_rules(kind).play_now_options(mode, 2)
    entry = pool_enter(
        player=player,
        pool=pool_key(kind, mode, rated),
        kind=kind,
        mode=mode,
        options=table_options,
        rated=rated,
        credential=credential,
    )
    pool_pair(entry.pool)
    return entry


# -- entering and leaving (any pool) ---------------------------------------------------------------


def rating_of(user_id: int | None, mode: str) -> float:
    """An account's rating in `mode` (a new account's, or a guest's: 1500)."""
    if user_id is None:
        return ratings.MU
    mu = Rating.objects.filter(user_id=user_id, mode=mode).values_list("mu", flat=True).first()
    return ratings.MU if mu is None else mu


def pool_enter(
    *,
    player: Player,
    pool: str,
    kind: str,
    mode: str,
    options: dict,
    rated: bool,
    credential: str = "",
    rating: float | None = None,
    now: dt.datetime | None = None,
) -> PoolEntry:
    """Put `player` in `pool` (leaving any other pool it waits in), to be seated at a table of
    `kind` with `options` (its ``players`` set by the table's size, where the kind has them),
    rated or not; `rating`: what pairing compares (by default the account's rating in `mode`).
    Nothing is paired here: call `pool_pair`. A banned account is refused; a rated pool takes
    accounts only, and not one that must wait before playing rated (games.manners)."""
    moderation.check_ban(player.pk)
    moderation.check_ban_account(player.user_id)
    if rated:
        if player.user_id is None:
            raise Forbidden(RATED_FOR_ACCOUNTS)
        manners.check_rated_wait(player.user_id)
    if len(pool) > 64:
        raise RuleError("A pool's key is 64 characters at most.", "bad_pool")
    now = now or timezone.now()
    try:
        entry = _enter(player, pool, kind, mode, options, rated, credential, rating, now)
    except IntegrityError:  # the same player entering twice at once (two requests): one wins
        raise Conflict("You are entering a pool in another request right now.") from None
    return entry


def pool_enter_many(
    *,
    players: list[tuple[Player, dt.datetime]],
    pool: str,
    kind: str,
    mode: str,
    options: dict,
    rated: bool,
) -> None:
    """`pool_enter` for many accounts' players at once (an arena's pool after its games'
    ends), each pair (player, since when it waits), in a few queries for all: the checks are
    read at once, and a player they may refuse (a ban, a rated game left lately) goes through
    `pool_enter` alone, which refuses it or not (GameError, said in the log); the others'
    ratings are one query, their entries one insert (one who entered a pool meanwhile keeps
    that one). Nothing is paired here."""
    if not players:
        return
    users = {player.user_id for player, _ in players if player.user_id is not None}
    banned_players, banned_users = moderation.may_be_banned([p.pk for p, _ in players], users)
    waits = manners.may_wait_rated(users) if rated else set()
    clear, doubtful = [], []
    for player, since in players:
        unsure = player.pk in banned_players or player.user_id in banned_users | waits
        unsure = unsure or (rated and player.user_id is None)
        (doubtful if unsure else clear).append((player, since))
    for player, since in doubtful:
        try:
            pool_enter(
                player=player,
                pool=pool,
                kind=kind,
                mode=mode,
                options=options,
                rated=rated,
                now=since,
            )
        except GameError as error:
            log.info("Pool %s: %s waits not: %s", pool, player.name, error)
    if not clear:
        return
    now = timezone.now()
    with runtime.write_transaction():
        ids = [player.pk for player, _ in clear]
        ids_users = [player.user_id for player, _ in clear if player.user_id is not None]
        PoolEntry.objects.filter(status=WAITING).filter(
            Q(player_id__in=ids) | Q(user_id__in=ids_users)
        ).update(status=LEFT, ended=now)
        mus = dict(
            Rating.objects.filter(user_id__in=ids_users, mode=mode).values_list("user_id", "mu")
        )
        same = (pool, kind, mode, options, rated)
        PoolEntry.objects.bulk_create(
            [_entry(p, *same, "", mus.get(p.user_id, ratings.MU), since) for p, since in clear],
            ignore_conflicts=True,
        )
        transaction.on_commit(tell_counts)


def _entry(player, pool, kind, mode, options, rated, credential, rating, since) -> PoolEntry:
    """A pool entry of `player`'s, not saved yet."""
    return PoolEntry(
        pool=pool,
        player=player,
        user_id=player.user_id,
        kind=kind,
        mode=mode,
        rated=rated,
        options=options,
        rating=rating,
        since=since,
        credential=credential,
    )


def _enter(player, pool, kind, mode, options, rated, credential, rating, now) -> PoolEntry:
    with runtime.write_transaction():
        _leave(player, now)
        if rating is None:
            rating = rating_of(player.user_id, mode)
        entry = _entry(player, pool, kind, mode, options, rated, credential, rating, now)
        entry.save(force_insert=True)
        transaction.on_commit(tell_counts)
    return entry


def _leave(player: Player, now: dt.datetime) -> int:
    """Mark the waiting entries of `player` (and of its account's other players) left."""
    waiting = PoolEntry.objects.filter(status=WAITING)
    if player.user_id is not None:
        waiting = waiting.filter(user_id=player.user_id) | waiting.filter(player=player)
    else:
        waiting = waiting.filter(player=player)
    return waiting.update(status=LEFT, ended=now)


def pool_leave(*, player: Player, pool: str | None = None) -> int:
    """Take `player` out of the pool it waits in (only if it is `pool`, when given); how many
    entries it left (0: it waited nowhere)."""
    with runtime.write_transaction():
        if pool is not None and not waiting_entries(player).filter(pool=pool).exists():
            return 0
        left = _leave(player, timezone.now())
        if left:
            transaction.on_commit(tell_counts)
    return left


def waiting_entries(player: Player):
    entries = PoolEntry.objects.filter(status=WAITING)
    if player.user_id is not None:
        return entries.filter(user_id=player.user_id) | entries.filter(player=player)
    return entries.filter(player=player)


# -- pairing ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatedTable:
    """A table pairing made: its head (pk, kind, link_key...) and the entries seated there, in
    their seats' order."""

    game: object
    entries: tuple[PoolEntry, ...]


# The pools of other apps (an arena's), by the prefix of their keys: their rules and the
# callback each of their tables runs in the pairing transaction (`pools_register`).
_registered: dict[str, tuple[Callable[[], PairingRules] | None, Callable | None]] = {}


def pools_register(
    prefix: str,
    *,
    rules: Callable[[], PairingRules] | None = None,
    on_table: Callable[[SeatedTable], None] | None = None,
) -> None:
    """Say how the pools whose keys start with `prefix` (``"arena:"``) are paired: `rules()`
    gives their numbers (default Play now's), `on_table(table)` runs in the pairing transaction
    for each table made. The timer and a restart's `pool_resume` pair them the same way."""
    _registered[prefix] = (rules, on_table)


def _pairing_of(pool: str) -> tuple[PairingRules, Callable | None]:
    for prefix, (rules, on_table) in _registered.items():
        if pool.startswith(prefix):
            return (rules() if rules is not None else pairing_rules()), on_table
    return pairing_rules(), None


def pool_pair(
    pool: str,
    *,
    now: int | None = None,
    rules: PairingRules | None = None,
    on_table: Callable[[SeatedTable], None] | None = None,
) -> list[SeatedTable]:
    """Seat whoever of `pool` should sit down now (games.pairing.plan_tables with `rules`, by
    default the pool's registered ones or Play now's), each table made through the one write
    path, in one transaction; tell them once it has committed; set the timer for the next
    decision. `on_table(table)` (by default the pool's registered one) runs in the same
    transaction for each table made (an arena records its game there). The tables made, in
    order."""
    registered_rules, registered_on_table = _pairing_of(pool)
    rules = rules or registered_rules
    on_table = on_table or registered_on_table
    now = services.now_ms() if now is None else now
    made: list[SeatedTable] = []
    refused = False
    with runtime.write_transaction():
        if not pairing_turn(pool):
            # Another connection pairs this pool now, from what it read when it began: whoever
            # came since is paired a moment later (no thread waits on its locks meanwhile).
            transaction.on_commit(
                lambda: schedule(pool, now + BUSY_RETRY_MS, rules=rules, on_table=on_table)
            )
            return []
        waiting = list(
            PoolEntry.objects.select_for_update(of=("self",))
            .select_related("player")
            .filter(pool=pool, status=WAITING)
            .order_by("since", "pk")
        )
        plan = plan_tables(_waiting(waiting), now, rules) if waiting else Plan((), None)
        by_pk = {entry.pk: entry for entry in waiting}
        for keys in plan.tables:
            table = [by_pk[key] for key in keys]
            try:
                with transaction.atomic():  # a table refused is undone alone
                    seated = _seat(table, now)
                    if on_table is not None:
                        on_table(seated)
            except Refused as refusal:
                log.info("Pool %s: %s not seated: %s", pool, refusal.entry, refusal.error)
                PoolEntry.objects.filter(pk=refusal.entry.pk).update(
                    status=LEFT, ended=timezone.now()
                )
                refused = True
                continue
            made.append(seated)
        if made or refused:
            transaction.on_commit(functools.partial(_tell_seated, pool, made))
    if refused:  # the others of a refused table wait on: planned again without the one refused
        return made + pool_pair(pool, now=now, rules=rules, on_table=on_table)
    schedule(pool, plan.next_due_ms, rules=rules, on_table=on_table)  # as this pairing
    return made


# A pool paired by another connection is tried again this much later.
BUSY_RETRY_MS = 100


def pairing_turn(pool: str) -> bool:
    """Whether this transaction may pair `pool`: one pairing of a pool at a time, whatever the
    process (PostgreSQL: a transaction's advisory lock on the pool's key, tried, never waited
    for; SQLite: the process's write lock, already held, is enough)."""
    if connection.vendor != "postgresql":
        return True
    key = zlib.crc32(pool.encode()) - 2**31  # a signed 32-bit key
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [PAIRING_LOCKS, key])
        return bool(cursor.fetchone()[0])


# The first key of the pools' advisory locks (the second is the pool's): "pool" in ASCII.
PAIRING_LOCKS = 0x706F6F6C


def _waiting(entries: Iterable[PoolEntry]) -> list[Waiting]:
    """The planner's view of the entries: ratings, waits, and blocks between their accounts."""
    entries = list(entries)
    users = {e.user_id for e in entries if e.user_id is not None}
    pairs = (
        Block.objects.filter(blocker_id__in=users, blocked_id__in=users).values_list(
            "blocker_id", "blocked_id"
        )
        if len(users) > 1
        else []
    )
    blocked: dict[int, set[int]] = {}
    for blocker, blocked_id in pairs:
        blocked.setdefault(blocker, set()).add(blocked_id)
    by_user: dict[int, list[int]] = {}
    for entry in entries:
        if entry.user_id is not None:
            by_user.setdefault(entry.user_id, []).append(entry.pk)
    return [
        Waiting(
            entry.pk,
            entry.rating,
            since_ms=int(entry.since.timestamp() * 1000),
            blocks=frozenset(
                other for user in blocked.get(entry.user_id, ()) for other in by_user.get(user, ())
            ),
        )
        for entry in entries
    ]


class Refused(Exception):
    """An entry refused a seat at a table being made (its join refused, or an `on_table`
    that refuses it): that table is undone, the entry leaves the pool, the others wait on."""

    def __init__(self, entry: PoolEntry, error: GameError):
        super().__init__(str(error))
        self.entry = entry
        self.error = error


def _seat(table: list[PoolEntry], now: int) -> SeatedTable:
    """Make the table of these entries through the one write path (made seated and started in
    one write: services.create_seated) and mark them seated."""
    first = table[0]
    options = dict(first.options)
    if "players" in options:  # a kind whose table is made for its number of players
        options["players"] = len(table)
    for entry in table:  # what a join would refuse them, asked before the table is planned
        try:
            moderation.check_ban(entry.player_id)
            if first.rated:
                manners.check_rated_wait(entry.user_id)
        except GameError as error:
            raise Refused(entry, error) from error
    players = [
        services.Sitter(entry.player_id, entry.player.name, entry.user_id, entry.credential)
        for entry in table
    ]
    try:
        head = services.run(
            services.create_seated(
                kind=first.kind,
                options=options,
                players=players,
                rated=first.rated,
                now=now,
                more={"pool": first.pool},
            )
        )
    except services.Unseated as unseated:
        raise Refused(table[unseated.number], unseated.error) from unseated
    marked = PoolEntry.objects.filter(pk__in=[e.pk for e in table], status=WAITING).update(
        status=SEATED, game_id=head.pk, ended=timezone.now()
    )
    if marked != len(table):  # never with the rows locked; said loudly if it were
        raise Conflict("A player of this table was seated already.")
    for entry in table:
        entry.status, entry.game_id = SEATED, head.pk
    return SeatedTable(head, tuple(table))


def _tell_seated(pool: str, made: list[SeatedTable]) -> None:
    """After the commit: each seated guest hears gameStart (an account hears it from the
    table's start, saying its pool: services.create_seated); the lobby, the pools' counts."""
    for seated in made:
        game = seated.game
        event = services.game_event(
            "gameStart", game.pk, kind_of_game=game.kind, link_key=game.link_key, pool=pool
        )
        for entry in seated.entries:
            if entry.user_id is None:
                tell(entry, event)
    tell_counts()


def tell(entry: PoolEntry, event: dict) -> None:
    """Tell a pool entry's player an event: an account's followers, or a guest's browser (its
    lobby socket is in its session's group)."""
    if entry.user_id is not None:
        realtime.publish_account(entry.user_id, event)
    elif entry.credential:
        realtime.publish_to(
            realtime.credential_group(entry.credential),
            {"type": "account.event", "event": event, "sent": False},
        )


# -- what the lobby shows -------------------------------------------------------------------------


def pool_counts() -> dict[str, int]:
    """How many wait in each pool that has someone waiting."""
    rows = (
        PoolEntry.objects.filter(status=WAITING)
        .values("pool")
        .annotate(waiting=Count("pk"))
        .order_by("pool")
    )
    return {row["pool"]: row["waiting"] for row in rows}


def tell_counts() -> None:
    """Push the pools' counts to the lobby's sockets."""
    realtime.publish_to(realtime.LOBBY_GROUP, {"type": "lobby.pools", "pools": pool_counts()})


def entry_json(entry: PoolEntry, now: dt.datetime | None = None) -> dict:
    now = now or timezone.now()
    return {
        "pool": entry.pool,
        "kind": entry.kind,
        "mode": entry.mode,
        "rated": entry.rated,
        "rating": ratings.shown(entry.rating),
        "since": entry.since.isoformat(),
        "waited_s": round(max(0.0, (now - entry.since).total_seconds()), 1),
    }


def pool_state(player: Player | None) -> dict:
    """What ``GET /api/pool`` answers and the lobby starts from: where `player` waits (None:
    nowhere), the game it was seated at last if that is still being played, the count of each
    pool, and the Play now pools there are."""
    waiting = None
    seated = None
    if player is not None:
        entry = waiting_entries(player).order_by("-since").first()
        waiting = entry_json(entry) if entry is not None else None
        last = (
            PoolEntry.objects.filter(player=player, status=SEATED, game__isnull=False)
            .exclude(game__status=Game.Status.OVER)
            .select_related("game")
            .order_by("-ended")
            .first()
        )
        if last is not None:
            game = last.game
            url = services.game_event(
                "gameStart", game.pk, kind_of_game=game.kind, link_key=game.link_key
            )["game"]["url"]
            seated = {"id": game.pk, "kind": game.kind, "url": url, "pool": last.pool}
    return {
        "waiting": waiting,
        "seated": seated,
        "pools": pool_counts(),
        "modes": play_now_modes(),
        "kinds": {kind: Game.Kind(kind).label for kind in play_now_modes()},
        "wait_limit_s": pairing_rules().wait_limit_ms / 1000,
    }


# -- who pairs: the timer, and a restart -----------------------------------------------------------

# On the event loop only: each pool's timer, and the pairing it runs.
_timers: dict[str, asyncio.TimerHandle] = {}
_tasks: set[asyncio.Task] = set()
_resumed = False


def schedule(pool: str, due_ms: int | None, **pairing) -> bool:
    """Pair `pool` again at `due_ms` (epoch ms), by a timer on the server's event loop (an
    earlier timer of the pool's is kept); whether a loop took it (none in a command or a test
    without a server: the next pool request pairs instead)."""
    if due_ms is None:
        return False
    return realtime.call_on_loop(functools.partial(_arm, pool, due_ms, pairing))


def _arm(pool: str, due_ms: int, pairing: dict) -> None:
    loop = asyncio.get_running_loop()
    delay = max(0.0, (due_ms - services.now_ms()) / 1000) + 0.01
    old = _timers.get(pool)
    if old is not None and not old.cancelled() and old.when() <= loop.time() + delay:
        return
    if old is not None:
        old.cancel()
    _timers[pool] = loop.call_later(delay, _fire, pool, pairing)


def _fire(pool: str, pairing: dict) -> None:
    _timers.pop(pool, None)
    task = asyncio.ensure_future(runtime.run_db(pool_pair, pool, **pairing))
    _tasks.add(task)
    task.add_done_callback(_done)


def _done(task: asyncio.Task) -> None:
    _tasks.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.error("A pool's pairing failed", exc_info=task.exception())


def pool_resume(*, force: bool = False) -> None:
    """Once a process (or with `force`): pair every pool where someone waits (Play now's and
    the registered ones), which sets their timers again (after a restart, the waits go on from
    the rows)."""
    global _resumed
    if _resumed and not force:
        return
    _resumed = True
    modes = play_now_modes()
    for pool in pool_counts():
        kind, _, rest = pool.partition(":")
        play_now = kind in modes and rest.rpartition(":")[0] in modes[kind]
        if play_now or any(pool.startswith(prefix) for prefix in _registered):
            pool_pair(pool)
