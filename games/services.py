"""Every change to a game: planned by its rules, committed by one function, announced.

Whichever way a change comes in (the JSON API by token or session, a WebSocket, the text
protocol, a computer's turn, a deadline, a join, a create, the default table's replacement, a
Set War game, an imported Square save), it goes the same way:

1. The way in says **who acts** (a seat, a name) and checks that **the request is well formed**
   (`check_action`); a service here makes it a `Work`: the **rate limit** to count and the job.
2. `run(work)` (Django's thread: views, pages, the admin, commands) or `await arun(work)` (the
   event loop: the API's busiest requests, WebSockets, the text protocol) counts the limit, then
   runs the job on the database (games.store).
3. The job is `commit`: it reads the game's newest head, asks a **plan** (pure: the rules and
   nothing else, `plan_move`, `plan_join`, `plan_due`...) what the request does to it, writes
   that `Change` only if the game is still at the version it was planned on (else it plans
   again on the newer game), and announces it: once the write has committed, the new head is
   kept (runtime), the game's listeners hear of it (realtime), and it is counted and logged
   (games.metrics: moves by kind and way in, the commit's time, its retries).

So a game cannot tell which way a move came, and a refused request writes nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import re
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from games import (
    arena,
    bots,
    limits,
    manners,
    metrics,
    moderation,
    presence,
    ratings,
    realtime,
    runtime,
    selectors,
    store,
    wordfilter,
)
from games.errors import Conflict, Forbidden, GameError, NotFound, RuleError
from games.metrics import Committed
from games.models import (
    CHAT_MAX_LENGTH,
    ChatMessage,
    Game,
    Player,
    Rematch,
    Seat,
    keys_match,
    new_link_key,
    new_token,
)
from games.planning import (
    COMPUTER_SPEEDS_S,
    OVER,
    Change,
    NewGame,
    NewSeat,
    Step,
    _rule_error,
    after,
    change_of,
    has_started,
    plan_create,
    plan_due,
    plan_join,
    plan_move,
)
from games.rules import Result, get_rules
from games.store import TableHead

MAX_TRIES = 8  # plans of one write, each on a newer game than the last


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class MoveResult:
    """What a request did: the game after it (a TableHead), what to tell the actor, whether
    it was an event, the acting seat."""

    game: TableHead
    outcome: dict
    event: bool
    seat: Any = None


@dataclass
class Written:
    """What `commit` found and did: the head before and after, the change (None: nothing
    written), the plan's own answer, and for a read with seats the game's row and seats."""

    head: TableHead
    after: TableHead
    change: Change | None
    value: Any
    row: store.GameRow | None = None
    seats: list[store.SeatRow] | None = None
    updated: Any = None


@dataclass(frozen=True)
class Work:
    """A request for `run` or `arun`: whose ban to look up (a player's id, None: nobody's) and
    the rate limits to count first, then the job."""

    job: Generator
    limits: tuple[tuple[str, str], ...] = ()
    banned: int | None = None

    def gate(self) -> None:
        """Refuse a banned player, then count the limits: what is read from the cache (Redis
        when the site is scaled out) before the job, all at once (on the event loop, one trip
        to a thread for both: `arun`)."""
        moderation.check_ban(self.banned)  # a banned account is told why and until when
        for scope, key in self.limits:
            limits.check(scope, key)

    def gated(self) -> Work:
        """`gate` now, on this thread; the job with nothing left to gate (for `arun`)."""
        self.gate()
        return Work(self.job)


# -- the message of a committed change ----------------------------------------------------------

# A change's moves ride in its message up to this many (a stored Set War game has thousands:
# listeners elsewhere read that game instead).
MESSAGE_MOVES = 16


def change_message(head: TableHead, change: Change) -> dict:
    """What every listener of the game hears once `change` is committed to `head` (the game
    before it): the game's new head, and the moves that led there from `from`, so a process
    whose cache holds the game at `from` applies them instead of reading the game.

    Each move is ``[actor, action, at_ms, event]``; a /watch tells its own join from the
    events it waits for by them. ``outcomes`` are the moves' outcomes, in the same order (a
    socket tells the game's story from them).
    """
    moves = outcomes = None
    if len(change.steps) <= MESSAGE_MOVES:
        moves = [[s.actor, s.action, s.at, s.result.event] for s in change.steps]
        # What each move did, whole: a socket tells its reader the story from them
        # (games.story withholds what is not the reader's).
        outcomes = [s.result.outcome for s in change.steps]
    return {
        "type": "game.changed",
        "game": change.game_id,
        "version": change.version,
        "from": change.from_version,
        "event": any(step.result.event for step in change.steps),
        "over": change.status == OVER,
        "deadline_ms": change.deadline_ms,
        "kind": head.kind,
        "status": change.status,
        "is_open": head.is_open,
        "is_default": head.is_default if change.is_default is None else change.is_default,
        "has_computers": head.has_computers or bool(change.has_computers),
        "moves": moves,
        "outcomes": outcomes,
        "origin": runtime.ORIGIN,
    }


# -- the one commit -------------------------------------------------------------------------------

Plan = Callable[[TableHead, list | None], tuple[Change | None, Any]]


def commit(game_id: int, plan: Plan, *, seats: bool = False, now: int | None = None):
    """Plan a change on the game's newest head with `plan(head, seats)` and write it; announce
    it. A job (games.store runs it): every change to a game is written here.

    `plan` returns (change or None, value) or raises a GameError (nothing is written). Seats
    are read for a plan that asks for them and for a game with computers (their turns are
    planned with every change). A plan made on a game that has moved on since (another
    process wrote it) is made again on the newer game.
    """
    lock = False  # after a lost race, the game is read locked: the next plan cannot lose
    started = time.perf_counter()
    retries = 0
    for _ in range(MAX_TRIES):
        head, row, seat_rows = yield store.ReadHead(game_id, seats, lock)
        if head is None:
            raise NotFound(f"There is no game with id {game_id}.")
        if head.has_computers and seat_rows is None:
            head, row, seat_rows = yield store.ReadHead(game_id, True, lock)
        try:
            change, value = plan(head, seat_rows)
        except GameError:
            if (yield store.IsCurrent(head)):
                raise
            retries = _retry(game_id, head, retries)
            lock = True
            continue
        if change is None:
            if (yield store.IsCurrent(head)):
                return Written(head, head, None, value, row, seat_rows)
            retries = _retry(game_id, head, retries)
            lock = True
            continue
        if change.ended and not lock:
            # A game's last move may rate it (games.ratings): planned again on the game read
            # locked, so the move and the ratings are one transaction (on the event loop's
            # PostgreSQL, where a lone write is a transaction of its own, too).
            lock = True
            continue
        updated = yield store.WriteChange(change)
        if updated is None:
            retries = _retry(game_id, head, retries)
            lock = True
            continue
        new_head = after(head, change)
        if change.ended:
            yield from ratings.rate_ended(game_id, head.kind, new_head.state)
            yield from arena.score_ended(game_id, head.kind, new_head.state)
        published = any(step.published for step in change.steps)
        yield store.Announce((new_head, change_message(head, change) if published else None))
        if change.new_seat is not None or change.ended:  # a seat taken, a game over
            yield store.Announce(LOBBY_NEWS)
        if change.ended or (
            head.status == Game.Status.WAITING
            and not has_started(head.kind, head.state)
            and has_started(head.kind, change.state)
        ):
            # The game began (a Set table's countdown) or finished: its accounts' event
            # streams hear it, once each, as soon as it has committed (read here, so a game's
            # end is told before the next table its players sit at is).
            users = yield store.ReadAccounts(game_id)
            yield store.Announce(
                AccountNews(game_id, head.kind, change.status, head.link_key, users)
            )
        # Counted and logged once the transaction has committed (`announce`).
        seconds = time.perf_counter() - started
        yield store.Announce(
            Committed(game_id, head.kind, change.version, len(change.steps), seconds, retries)
        )
        if change.is_default is False:  # the default table ended: a fresh one takes its place
            _, row, _ = yield store.ReadHead(game_id, True)
            options = {k: v for k, v in row.options.items() if k != "deck"}
            fresh = plan_create(
                kind=head.kind, options=options, seed=None, now=now_ms(), is_open=True
            )
            fresh.is_default = True
            yield store.InsertGame(fresh)
        return Written(head, new_head, change, value, row, seat_rows, updated)
    raise Conflict("The game is changing too fast to play on; try again.")


def _retry(game_id: int, head: TableHead, retries: int) -> int:
    """A plan made on a game that has moved on since: forget the head it was made on; count."""
    runtime.forget_head(game_id, head.version)
    metrics.WRITE_RETRIES.labels(head.kind).inc()
    return retries + 1


def insert(game: NewGame):
    """The job that makes a new game (and writes the moves of one played as it is made)."""
    game_id, created = yield store.InsertGame(game)
    head = TableHead(
        game_id,
        game.kind,
        game.is_open,
        game.status,
        len(game.steps),
        game.deadline_ms,
        game.state,
        game.is_default,
        link_key=game.link_key,
        rated=game.rated,
    )
    yield store.Announce((head, None))
    yield store.Announce(LOBBY_NEWS)
    if game.steps:  # a game played as it is made (Set War), or one imported with its moves
        yield store.Announce(Committed(game_id, game.kind, len(game.steps), len(game.steps), 0, 0))
    return head, created, game.options


# Announced after a change the lobby shows (a game made, a seat taken, a game ended): the lobby's
# sockets read their lists again. Moves are not: the lobby lists tables, not boards.
LOBBY_NEWS = ("lobby",)

# When this process last told anyone of each game (monotonic seconds): a move at a table quiet
# for longer than the lobby's idle time brings it back from the idle list, so it is news too.
_last_heard: dict[int, float] = {}
_LAST_HEARD_SIZE = 50_000


@dataclass(frozen=True)
class AccountNews:
    """A game that started or finished: the event streams of its seated accounts
    (`user_ids`, read in the job that wrote it) are told (``gameStart``, ``gameFinish``) once
    it has committed; `more`: what else the event's game says, as pairs."""

    game_id: int
    kind: str
    status: str
    link_key: str
    user_ids: tuple[int, ...]
    more: tuple[tuple[str, Any], ...] = ()


def game_event(kind: str, game_id: int, *, kind_of_game: str, link_key: str = "", **more) -> dict:
    """An account's event about one of its games: ``{"type": kind, "game": {"id", "kind",
    "url"}}`` (the url a private game's link, with its key)."""
    url = selectors.keyed_url(selectors.page_url(kind_of_game, game_id), link_key)
    return {"type": kind, "game": {"id": game_id, "kind": kind_of_game, "url": url, **more}}


def tell_seated_accounts(news: AccountNews) -> None:
    """Tell each account seated at the game that it started or finished, from any thread
    (nothing read: the job read who sits there)."""
    kind = "gameFinish" if news.status == OVER else "gameStart"
    event = game_event(
        kind, news.game_id, kind_of_game=news.kind, link_key=news.link_key, **dict(news.more)
    )
    for user_id in news.user_ids:
        realtime.publish_account(user_id, event)


def announce(announced: list) -> None:
    """After a commit: keep each game's new head (and a protocol name's new seat), and tell
    the game's listeners of the change; and the lobby, once, when its lists changed."""
    lobby = False
    for item in announced:
        if item is LOBBY_NEWS:
            lobby = True
            continue
        if type(item) is Committed:
            metrics.committed(item)
            continue
        if type(item) is AccountNews:
            tell_seated_accounts(item)
            continue
        if type(item) is arena.TournamentNews:
            arena.announce(item)
            continue
        head, message, *seat = item
        runtime.remember_head(head)
        if seat:
            runtime.remember_seat(head.pk, *seat)
        woke = _woke(head.pk)
        if message is not None:
            realtime.publish(message)
            lobby = lobby or woke
    if lobby:
        realtime.lobby_changed()


def _woke(game_id: int) -> bool:
    """Whether this process last heard of the game longer ago than the lobby's idle time (the
    table was shown idle and is live again); remember it was heard now."""
    now = time.monotonic()
    last = _last_heard.get(game_id)
    _last_heard[game_id] = now
    if len(_last_heard) > _LAST_HEARD_SIZE:
        quiet = now - settings.LOBBY_IDLE_AFTER_S
        for known in [g for g, at in _last_heard.items() if at < quiet]:
            del _last_heard[known]
    return last is not None and now - last > settings.LOBBY_IDLE_AFTER_S


def run(work: Work):
    """Serve a request on Django's thread: its limits, then its job in one transaction; the
    announcements once that transaction has committed."""
    work.gate()
    ran = store.run(work.job)
    if ran.announced:
        transaction.on_commit(lambda: announce(ran.announced))
    return ran.value


async def arun(work: Work):
    """Serve a request on the event loop: its limits, then its job, then its announcements."""
    if work.banned is not None or any(limits.rate_for(scope) for scope, _ in work.limits):
        await limits.with_cache(work.gate)
    ran = await store.arun(work.job)
    announce(ran.announced)
    return ran.value


# -- the requests ---------------------------------------------------------------------------------

_JSON_NUL = re.compile(r"(?<!\\)(?:\\\\)*\\u0000")


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


#: Why "end_left" is refused at an unrated table: leaving it costs nothing (games.manners).
UNRATED_LEAVE = (
    "Only a rated game is ended because a player left: this table is unrated, so play on, "
    "or leave it too."
)


def move(
    *, game_id: int, seat, action: dict, now: int | None = None, ban_read: bool = False
) -> Work:
    """A seat's move (over the API, a WebSocket or by a computer of the tests): the action must
    be well formed, the seat's moves are counted, then the rules decide. `run`/`arun` it for a
    MoveResult. `ban_read`: the seat's way in has read that its account is not banned (from
    the database, with its token: games.auth.bearer_seat), so it is not read again."""
    if seat.game_id != game_id:
        raise Forbidden("That seat does not belong to this game.")
    check_action(action)
    now = now_ms() if now is None else now
    if action.get("type") == "end_left" and action.get("seat") in presence.table_here(game_id):
        # The rules judge by the seat's last request; a page still open there is here too.
        raise Conflict(f"{action['seat']} is still at the table: their page is open.")

    def plan(head, seats):
        if action.get("type") == "end_left" and not head.rated:
            raise Conflict(UNRATED_LEAVE)
        return plan_move(head, seats, seat=seat.pk, name=seat.name, action=action, now=now)

    job = _move_job(game_id, plan, seat, now)
    banned = None if ban_read else seat.player_id
    return Work(job, (("moves", f"seat:{seat.pk}"),), banned=banned)


async def amove(*, game_id: int, seat, action: dict, now: int | None = None) -> MoveResult:
    """`move` served on the event loop (the WebSocket, the API's token move)."""
    return await arun(move(game_id=game_id, seat=seat, action=action, now=now))


def _move_job(game_id, plan, seat, now):
    written = yield from commit(game_id, plan, now=now)
    result = written.value
    return MoveResult(written.after, result.outcome, result.event, seat)


def join(
    *,
    game_id: int,
    name: str,
    player_id: int | None = None,
    client: str | None = None,
    now: int | None = None,
    key: str | None = None,
    reached: bool = False,
    credential: str = "",
) -> Work:
    """Seat a player (`player_id`, or a new one named `name`) under a name unique at the game;
    `client`'s joins are counted. A private game is joined only with its `key` (from its link),
    or when the way in has found that the request may reach it (`reached`: games.auth); to
    anyone else it does not exist. The seat's token is handed to `credential` (an account's
    token, a session: games.models.Seat.credential), and ends with it. `run`/`arun` it for a
    Written whose change holds the seat. A banned account's player is refused."""
    now = now_ms() if now is None else now
    if player_id is not None:  # an account that left rated games too often waits (a read)
        manners.check_rated_join(game_id=selectors.game_id_of(game_id), player_id=player_id)

    seating = []

    def plan(head, seats):
        if head.link_key and not reached and not keys_match(key, head.link_key):
            raise NotFound(f"There is no game with id {game_id}.")
        if head.rated:
            _, user_id, seated_users = seating[0] if seating else (True, None, ())
            refused = ratings.seat_refusal(
                user_id=user_id, is_computer=False, seated_users=seated_users
            )
            if refused is not None:
                raise Forbidden(refused)
        # A rated game is joined only until it starts (planning.plan_join).
        change = plan_join(head, seats, name=name, now=now, player_id=player_id, rated=head.rated)
        change.new_seat.credential = credential
        return change, head.rated  # the Written's value: whether the table was created rated

    def job():
        # A table created rated seats accounts only, each once (games.ratings): whose a known
        # player is, and which accounts sit there (a guest's join reads nothing more: the head
        # says whether the table is rated).
        if player_id is not None:
            seating.append((yield store.ReadSeating(game_id, player_id)))
        return (yield from commit(game_id, plan, seats=True, now=now))

    counted = (("joins", client),) if client is not None else ()
    return Work(job(), counted, banned=player_id)


def create(
    *,
    kind: str,
    options: dict | None = None,
    seed: int | None = None,
    is_open: bool = False,
    is_default: bool = False,
    client: str | None = None,
    now: int | None = None,
    rated: bool = False,
    maker: str = "",
) -> Work:
    """Make a game of a kind with validated options; `client`'s joins are counted. `run`/`arun`
    it for (the new game's head, its creation time, its options). A `rated` game rates its
    seats when it ends (games.ratings). A public table made by `maker` (games.auth.table_maker)
    is counted against the public tables they may make an hour (checked here, on Django's
    thread: a `maker` is given only there; games.auth.table_maker names them)."""
    now = now_ms() if now is None else now
    if maker and is_open:
        manners.check_public_tables(maker)
    if rated and maker.startswith("account:"):  # its maker sits there next
        manners.check_rated_wait(int(maker.partition(":")[2]))

    def job():  # the rules check the options once the limit is counted
        game = planned_create(
            kind=kind,
            options=options,
            seed=seed,
            now=now,
            is_open=is_open,
            is_default=is_default,
            rated=rated,
        )
        if not is_open and not is_default:  # by link only: the key is in the link
            game.link_key = new_link_key()
        game.maker = maker
        return (yield from insert(game))

    counted = (("joins", client),) if client is not None else ()
    return Work(job(), counted)


def planned_create(
    *,
    kind: str,
    options: dict | None,
    now: int,
    seed: int | None = None,
    is_open: bool = False,
    is_default: bool = False,
    rated: bool = False,
) -> NewGame:
    """The game a create would make, checked by its rules (a RuleError names a bad option) and,
    if `rated`, by the ratings (options never rated are refused, not shown as rated); nothing is
    written. A challenge checks the table it proposes with it (accounts.challenges)."""
    if rated and not ratings.can_rate(kind):
        raise RuleError(ratings.options_refusal(kind, {}), "not_rated")
    game = plan_create(
        kind=kind, options=options, seed=seed, now=now, is_open=is_open, is_default=is_default
    )
    # Some tables are private by their options (a Set practice table): open is refused, naming why.
    private = getattr(get_rules(kind), "private_refusal", None)
    why_private = private(game.options) if private is not None and is_open else None
    if why_private is not None:
        raise RuleError(why_private, "private_only")
    # Rated means rated: options that are never rated are refused, not shown as rated.
    refused = ratings.options_refusal(kind, game.options) if rated else None
    if refused is not None:
        raise RuleError(f"{refused} Create it unrated, or change the options.", "not_rated")
    game.rated = rated
    return game


@dataclass(frozen=True)
class Sitter:
    """A player a table is made for (`create_seated`): their player row, the name they sit
    under, their account (None: a guest), and what their seat's token is handed to."""

    player_id: int
    name: str
    user_id: int | None = None
    credential: str = ""


class Unseated(GameError):
    """A player `create_seated` could not seat (`number`, in the order given): nothing was
    written; `error` says why, as a join would have."""

    def __init__(self, number: int, error: GameError):
        super().__init__(error.message, http_status=error.http_status)
        self.number = number
        self.error = error


def create_seated(
    *,
    kind: str,
    options: dict | None,
    players: list[Sitter],
    rated: bool = False,
    now: int | None = None,
    more: dict | None = None,
) -> Work:
    """Make a private table for `players`, seat them in their order and start it: planned as
    a create, their joins and the first one's start would be, and written at once (the game,
    its seats and those moves in one insert: one write instead of one per seat). `run` it for
    the new game's head. Each account seated hears ``gameStart`` (its game saying `more` too:
    games.pool names the pool that seated them). A player who cannot sit there raises Unseated
    (a guest at a rated table, an account twice, a name taken); nothing is written. Their bans
    and waits are their caller's to check (the pool checks them as they enter it)."""
    now = now_ms() if now is None else now

    def job():
        game = planned_create(kind=kind, options=options, now=now, rated=rated)
        game.link_key = new_link_key()
        head = TableHead(
            0,
            kind,
            False,
            game.status,
            0,
            game.deadline_ms,
            game.state,
            link_key=game.link_key,
            rated=rated,
        )
        seats: list[store.SeatRow] = []
        users: list[int] = []
        for number, player in enumerate(players):
            try:
                refused = (
                    ratings.seat_refusal(
                        user_id=player.user_id, is_computer=False, seated_users=users
                    )
                    if rated
                    else None
                )
                if refused is not None:
                    raise Forbidden(refused)
                change = plan_join(
                    head, seats, name=player.name, now=now, player_id=player.player_id, rated=rated
                )
            except GameError as error:
                raise Unseated(number, error) from error
            new = change.new_seat
            new.credential = player.credential
            game.seats.append(new)
            game.steps += change.steps
            head = after(head, change)
            seats.append(
                store.SeatRow(None, new.number, new.name, 0, False, False, {}, bool(player.user_id))
            )
            if player.user_id is not None:
                users.append(player.user_id)
        if head.status == Game.Status.WAITING and game.seats:
            first = game.seats[0]
            # A kind that starts as its seats fill has no start to send.
            with contextlib.suppress(GameError):
                change, _ = plan_move(
                    head, seats, seat=first, name=first.name, action={"type": "start"}, now=now
                )
                if change is not None:
                    game.steps += change.steps
                    head = after(head, change)
        game.state, game.status, game.deadline_ms = head.state, head.status, head.deadline_ms
        made, _created, _options = yield from insert(game)
        if not has_started(kind, made.state):
            return made
        yield store.Announce(
            AccountNews(
                made.pk,
                kind,
                made.status,
                made.link_key,
                user_ids=tuple(users),
                more=tuple((more or {}).items()),
            )
        )
        return made

    return Work(job())


def create_played(game: NewGame) -> Work:
    """Store a game played to its end as it is made (Set War): the game and all its moves."""
    return Work(insert(game))


def tick(*, game_id: int, now: int | None = None) -> Work:
    """Apply whatever time alone has made due (watchers and sockets ask at deadlines)."""
    now = now_ms() if now is None else now

    def plan(head, seats):
        steps, _state, clocks = plan_due(head, seats, now)
        change = change_of(head, seats, steps, now, clocks=clocks)
        return change, any(step.result.event for step in steps)

    return Work(_tick_job(game_id, plan, now))


def _tick_job(game_id, plan, now):
    written = yield from commit(game_id, plan, now=now)
    return MoveResult(written.after, {}, written.value)


def add_computer(
    *, game_id: int, speed: str = "medium", client: str | None = None, now: int | None = None
) -> Work:
    """Seat a computer player, which finds sets after a delay drawn around its speed and plays
    through the same rules as a person (so a quicker person beats it)."""
    if speed not in COMPUTER_SPEEDS_S:
        known = ", ".join(COMPUTER_SPEEDS_S)
        raise GameError(f"Unknown computer speed {speed!r}; use one of {known}.")
    now = now_ms() if now is None else now
    # The seat is the built-in bot account's of its speed (games.bots): a rated table takes it
    # as it takes any account, once, and rates it.
    player_id = bots.computer_player(speed).pk
    seating = []

    def plan(head, seats):
        if not hasattr(get_rules(head.kind), "bot_actions"):
            kind = Game.Kind(head.kind).label
            raise GameError(f"{kind} games have no computer players.")
        rated, user_id, seated_users = seating[0]
        if rated:
            refused = ratings.seat_refusal(
                user_id=user_id, is_computer=True, seated_users=seated_users
            )
            if refused is not None:
                raise Forbidden(refused)
        taken = {seat.name for seat in seats}
        number = 1
        while f"Computer{number}" in taken:
            number += 1
        clock = {"speed": speed, "next_ms": None}
        change = plan_join(
            head,
            seats,
            name=f"Computer{number}",
            now=now,
            player_id=player_id,
            is_computer=True,
            computer=clock,
            rated=rated,
        )
        return change, None

    def job():
        seating.append((yield store.ReadSeating(game_id, player_id)))
        return (yield from commit(game_id, plan, seats=True, now=now))

    counted = (("joins", client),) if client is not None else ()
    return Work(job(), counted)


def protocol_work(
    *, game_id: int, name: str, action: dict, now: int | None = None, limits_=()
) -> Work:
    """One plain-text protocol request at an open table: join the name if new (a seat played
    by name), then act, in one write. A name that a browser, a computer or a token client holds
    at the table is refused. `limits_` are the way in's counts (a new name's join, the seat's
    moves). A name that is a banned account's (its name or its players') is refused: over the
    protocol a player is its name."""
    now = now_ms() if now is None else now
    cached = runtime.cached_seat(game_id, name)

    def plan(head, seats):
        steps, state, clocks = plan_due(head, seats, now)
        rules = get_rules(head.kind)
        if rules.status(state) == OVER:
            change = change_of(head, seats, steps, now, clocks=clocks)
            return change, Result(state, {}, any(s.result.event for s in steps))
        seat = cached
        if seat is None:
            seat = next((s for s in seats if s.name == name), None)
            if seat is not None and not seat.protocol:
                raise GameError(f"The name {name!r} is taken at this game.", http_status=409)
            seat = seat.pk if seat is not None else None
        event = False
        if seat is None and seating and seating[0][0]:
            raise GameError(ratings.GUEST_REFUSED, http_status=403)
        if seat is None:
            midway = dataclasses.replace(head, state=state, version=head.version + len(steps))
            joined = plan_join(midway, seats, name=name, now=now, protocol=True)
            steps += joined.steps
            seat, state, event = joined.new_seat, joined.state, True
        try:
            result = rules.apply(state, name, action, now)
        except ValueError as exc:
            raise _rule_error(exc) from exc
        if result.state != state:
            steps.append(Step(seat, name, result.action or action, result, now))
        new_seat = seat if isinstance(seat, NewSeat) else None
        change = change_of(head, seats, steps, now, clocks=clocks, new_seat=new_seat)
        event = event or result.event or any(s.result.event for s in steps)
        return change, Result(result.state, result.outcome, event)

    seating = []
    job = _protocol_job(game_id, plan, name, cached is None, now, seating)
    return Work(job, tuple(limits_))


def _protocol_job(game_id, plan, name, read_seats, now, seating):
    moderation.check_ban_name(name)  # run with the work: its refusal is the way in's answer
    if read_seats:  # a name new to this process: a rated table seats no name (games.ratings)
        seating.append((yield store.ReadSeating(game_id, None)))
    written = yield from commit(game_id, plan, seats=read_seats, now=now)
    change = written.change
    seat = None
    if change is not None and change.new_seat is not None:
        seat = change.new_seat.pk
    elif written.seats is not None:
        seat = next((s.pk for s in written.seats if s.name == name and s.protocol), None)
    if seat is not None:  # known from now on, once committed: no read of the seats
        yield store.Announce((written.after, None, name, seat))
    result = written.value
    return MoveResult(written.after, result.outcome, result.event)


# -- the services as Django's thread calls them (views, pages, the admin, commands, tests) --------


def game_create(
    *,
    kind: str,
    options: dict | None = None,
    seed: int | None = None,
    is_open: bool = False,
    is_default: bool = False,
    now: int | None = None,
    rated: bool = False,
    maker: str = "",
) -> Game:
    """Create a game of a kind with validated options and a seed (random when not given)."""
    head, _created, _options = run(
        create(
            kind=kind,
            options=options,
            seed=seed,
            is_open=is_open,
            is_default=is_default,
            now=now,
            rated=rated,
            maker=maker,
        )
    )
    return Game.objects.get(pk=head.pk)


def game_join(*, game_id: int, player=None, name: str | None = None, now: int | None = None):
    """Seat a player at a game under a name unique there; the seat (a SeatRef) carries the
    API token."""
    name = name or player.name
    written = run(
        join(
            game_id=int(game_id),
            name=name,
            player_id=player.pk if player is not None else None,
            now=now,
            reached=True,  # pages and commands: the caller decided who sits
        )
    )
    return seat_ref(int(game_id), written.change.new_seat)


#: What a watcher who asks to play a finished game again is told: the page offers the next game.
WATCHERS_REMATCH = (
    "Only the game's players can play it again; you can watch or join the next game when they "
    "start one."
)


def game_rematch(
    *, game_id: int, player_id: int, credential: str = ""
) -> tuple[Game, store.SeatRef, bool]:
    """Play a finished game again: the first of its players to ask makes a new game of the same
    kind and options (a new deal: the kind's `rematch_options`), rated and open as it was; each
    who asks is seated there under the name they had (the last value: False when they sat
    there already), their token handed to `credential` (as `join`'s). The game's watchers are
    told (a "game.rematch" message), so the others can accept in one click."""
    game = selectors.game_row(game_id)
    if game.status != Game.Status.OVER:
        raise Conflict("The game is not over yet: play it to its end, then play it again.")
    seat = game.seats.filter(player_id=player_id, is_computer=False).first()
    if seat is None:
        raise Forbidden(WATCHERS_REMATCH)
    new = _rematch_game(game, by=seat.name)
    mine = new.seats.filter(player_id=player_id).first()
    if mine is None:
        try:
            written = run(
                join(
                    game_id=new.pk,
                    name=seat.name,
                    player_id=player_id,
                    reached=True,
                    credential=credential,
                )
            )
            return new, seat_ref(new.pk, written.change.new_seat), True
        except GameError:
            # Seated there meanwhile, by another press of the same player (another process).
            mine = new.seats.filter(player_id=player_id).first()
            if mine is None:
                raise
    ref = store.SeatRef(
        mine.pk,
        new.pk,
        mine.player_id,
        mine.number,
        mine.name,
        mine.token,
        False,
        False,
        mine.credential,
    )
    return new, ref, False


@contextlib.contextmanager
def decided_together(*rows):
    """One transaction for a read and the writes it decides (is there a game yet? then make
    one), decided by the database for every process: the given `rows` (model instances) are
    locked first (PostgreSQL), and on SQLite the database's one writer is taken first. Two
    requests at once, in one process or several, then run one after the other."""
    with runtime.write_transaction():
        for row in rows:
            row._meta.model.objects.select_for_update().filter(pk=row.pk).first()
        yield


#: New deals a rematch tries before it gives up on dealing one that anyone can play.
REMATCH_DEALS = 100


def _rematch_game(game: Game, *, by: str) -> Game:
    """The game a finished game is played again at: the one made already, or one made now.

    The database decides which of several requests (in several processes) makes it: the
    finished game's row is locked while one looks and makes (decided_together), and the new game
    and its Rematch row, unique per finished game, are one transaction, so a request that lost
    anyway is rolled back whole, its game with it, and joins the winner's.
    """
    known = _rematch_of(game)
    if known is not None:
        return known
    options, seed = _playable_deal(game)
    try:
        with decided_together(game):
            known = _rematch_of(game)
            if known is not None:
                return known
            new = game_create(
                kind=game.kind, options=options, seed=seed, is_open=game.is_open, rated=game.rated
            )
            Rematch.objects.create(game=game, next_game=new)
    except IntegrityError:  # made at the same moment by another request: everyone goes there
        return _rematch_of(game)
    told = {
        "type": "game.rematch",
        "game": game.pk,
        "next": new.pk,
        "kind": new.kind,
        "key": new.link_key,
        "by": by,
    }
    transaction.on_commit(lambda: realtime.publish(told))
    return new


def _rematch_of(game: Game) -> Game | None:
    """The game a finished game is played again at, if one was made."""
    known = Rematch.objects.filter(game=game).select_related("next_game").first()
    return known.next_game if known is not None else None


def _playable_deal(game: Game) -> tuple[dict, int]:
    """The options and seed of a new deal of a finished game that its players can play: the
    kind's `rematch_options` from new seeds (a quick game's few cards may hold no set at all,
    and end as they are dealt), else its own options dealt anew; a 409 when no deal can be
    played, and nothing is made."""
    rules = get_rules(game.kind)
    remake = getattr(rules, "rematch_options", None)
    # A game that waits for its start is judged by the deal it will have.
    dealt = getattr(rules, "dealt_options", lambda options: options)
    draw = random.SystemRandom()
    # The last try: the game's own options (its own cards), dealt anew.
    for make in [*([remake] * REMATCH_DEALS if remake else []), None]:
        seed = draw.randrange(2**53)  # read exactly by any JSON reader
        options = make(game.options, seed) if make else game.options
        deal = plan_create(kind=game.kind, options=dealt(options), seed=seed, now=now_ms())
        if deal.status != OVER:
            return options, seed
    raise Conflict(
        "This game cannot be played again: every new deal of it ends before anyone can play."
    )


# -- chat -----------------------------------------------------------------------------------------

SPECTATORS_READ = "Spectators can read the chat but not write in it."
NAMELESS = "Choose a name first (in the lobby, or sign in) to write in the chat."


def chat_text(text) -> str:
    """The chat text as stored (stripped), or the error naming what is wrong with it."""
    if not isinstance(text, str):
        raise GameError('A chat message is text: send {"text": "..."} with a string.')
    text = text.strip()
    if not text:
        raise GameError("A chat message needs some text.")
    if len(text) > CHAT_MAX_LENGTH:
        raise GameError(
            f"A chat message is at most {CHAT_MAX_LENGTH} characters; this one has {len(text)}."
        )
    try:
        text.encode()
    except UnicodeEncodeError:
        raise GameError("A chat message is plain text: no unpaired surrogate.") from None
    if "\x00" in text:  # PostgreSQL stores no NUL in text
        raise GameError("A chat message is plain text: no NUL character.")
    return text


def chat_post(*, game_id: int | None, player_id: int, text, now: int | None = None) -> ChatMessage:
    """Write a line in a game's chat (`game_id`), or in the lobby's (None), and tell whoever
    follows it. The platform's order of checks: who acts (a seated player of the game; in the
    lobby, any named player), whether the text is well formed (1 to CHAT_MAX_LENGTH characters
    once stripped), the player's chat rate limit. Chat is not a move: the game's version, state
    and move log stay as they are."""
    if game_id is not None:
        game_id = selectors.game_id_of(game_id)
        seat = (
            Seat.objects.filter(game_id=game_id, player_id=player_id, is_computer=False)
            .only("name")
            .first()
        )
        if seat is None:
            selectors.game_row(game_id)  # an unknown game is a 404, not a 403
            raise Forbidden(SPECTATORS_READ)
        name = seat.name
        writer = Player.objects.filter(pk=player_id).values_list("user_id", flat=True).first()
    else:
        player = Player.objects.filter(pk=player_id, is_computer=False).only("name", "user").first()
        if player is None or not player.name:
            raise Forbidden(NAMELESS)
        if bots.is_bot(player.user_id):
            raise Forbidden(bots.NO_LOBBY_CHAT)
        gated = manners.lobby_chat_refusal(player)
        if gated is not None:
            raise Forbidden(gated)
        name = player.name
        writer = player.user_id
    moderation.check_mute(writer)  # a muted account is told why and until when
    text = chat_text(text)
    limits.check("chat", f"player:{player_id}")
    # A line that says a blocked word is kept, and shown to its writer only (the answer, the
    # writer's socket and pages); nobody else hears of it.
    blocked = wordfilter.blocked_words(text, settings.CHAT_BLOCKED_WORDS)
    hidden = bool(blocked)
    message = ChatMessage.objects.create(
        game_id=game_id,
        player_id=player_id,
        name=name,
        text=text,
        at_ms=now_ms() if now is None else now,
        hidden=hidden,
    )
    chat = selectors.chat_json(message)
    if hidden:  # and the moderators are told, as by a report
        moderation.report_filtered(message, blocked)
        return message
    if game_id is None:
        # `writer`: the account whose line it is, for the sockets of those who blocked it.
        announced = {"type": "lobby.chat", "chat": chat, "writer": writer}
        transaction.on_commit(lambda: realtime.publish_lobby(announced))
    else:
        announced = {"type": "game.chat", "game": game_id, "chat": chat, "writer": writer}
        transaction.on_commit(lambda: realtime.publish(announced))
    return message


def seat_ref(game_id: int, new: NewSeat) -> store.SeatRef:
    return store.SeatRef(
        new.pk,
        game_id,
        new.player_id,
        new.number,
        new.name,
        new.token,
        new.is_computer,
        False,
        new.credential,
    )


# -- credentials that end -------------------------------------------------------------------------


def credential_revoke(*, credential: str) -> int:
    """End everything a credential opened, at once: an account's token revoked, a browser's
    session logged out (the accounts app calls this). Each seat whose token was handed to it gets
    a new token that nobody has, so the old one acts nowhere (no process keeps such seats by
    token: store.remember_seat), and every socket it opened, in any process, is closed (the
    ``access.ended`` message to its group, games.realtime.credential_group). How many seat
    tokens ended."""
    if not credential:
        return 0
    seats = list(Seat.objects.filter(credential=credential).only("pk"))
    for seat in seats:
        seat.token, seat.credential = new_token(), ""
    Seat.objects.bulk_update(seats, ["token", "credential"], batch_size=500)
    ended = {"type": "access.ended"}
    transaction.on_commit(lambda: realtime.publish_to(realtime.credential_group(credential), ended))
    return len(seats)


def seat_add_computer(*, game_id: int, speed: str = "medium", now: int | None = None):
    """`add_computer` from Django's thread: the new computer seat."""
    written = run(add_computer(game_id=int(game_id), speed=speed, now=now))
    return seat_ref(int(game_id), written.change.new_seat)


def move_submit(*, game_id: int, seat, action: dict, now: int | None = None) -> MoveResult:
    """`move` from Django's thread (commands, the tests): the result with the game's row."""
    return _with_row(run(move(game_id=game_id, seat=seat, action=action, now=now)))


def protocol_act(*, game_id: int, name: str, action: dict, now: int | None = None) -> MoveResult:
    """`protocol_work` from Django's thread (commands, the tests), without rate limits."""
    return _with_row(run(protocol_work(game_id=game_id, name=name, action=action, now=now)))


def game_tick(*, game_id: int, now: int | None = None) -> MoveResult:
    """`tick` from Django's thread: the result with the game's row."""
    return _with_row(run(tick(game_id=game_id, now=now)))


def _with_row(result: MoveResult) -> MoveResult:
    return dataclasses.replace(result, game=selectors.game_get(result.game.pk))


def game_fresh(game_id, now: int) -> TableHead:
    """The game as it is now, with any due time-driven event applied first (a read that finds
    a deadline passed asks for the tick): reads never show stale clocks."""
    head = selectors.game_head(game_id)
    if head.deadline_ms is not None and now >= head.deadline_ms and head.status != OVER:
        head = run(tick(game_id=head.pk, now=now)).game
    return head


async def agame_fresh(game_id: int, now: int | None = None) -> TableHead:
    """`game_fresh` on the event loop."""
    now = now_ms() if now is None else now
    head = await ahead(game_id)
    if head is None:
        raise NotFound(f"There is no game with id {game_id}.")
    if head.deadline_ms is not None and now >= head.deadline_ms and head.status != OVER:
        head = (await arun(tick(game_id=game_id, now=now))).game
    return head


async def ahead(game_id) -> TableHead | None:
    """The game's head as it is now (its state from the cache when current), from the loop."""
    if not selectors.is_row_id(game_id):
        return None
    head, _row, _seats = await store.aread("read_head", store.ReadHead(game_id))
    if head is not None:
        runtime.remember_head(head)
    return head


#: The default table's options: the text protocol's table, dealt when made, as its spec says.
DEFAULT_TABLE = {"rules": "declare", "start": "now"}


def default_table() -> TableHead:
    """The table the bare protocol routes address, created on first use."""
    head = selectors.table_head(default=True)
    if head is not None:
        return head
    try:
        head, _created, _options = run(
            create(kind=Game.Kind.SET, options=DEFAULT_TABLE, is_open=True, is_default=True)
        )
    except Conflict:  # another request created it first
        head = selectors.table_head(default=True)
    return head


async def adefault_table() -> TableHead | None:
    """`default_table` on the event loop."""
    game_id = await store.aread("default_id")
    if game_id is None:
        try:
            head, _created, _options = await arun(
                create(kind=Game.Kind.SET, options=DEFAULT_TABLE, is_open=True, is_default=True)
            )
            return head
        except Conflict:  # another request created it first
            game_id = await store.aread("default_id")
    return await ahead(game_id)
