"""The services of the event loop: a seat's move, a join and a create, as the JSON API's busiest
requests and the WebSocket ask for them, written without leaving the loop (games.store).

They plan with the services' own functions (services.plan_move, plan_join, plan_create: the
same rules, the same refusals, the same log), and tell listeners with the same message
(services.change_message), so a game cannot tell which way a move came. Games whose writes have
follow-ups of their own, computer seats (their turns are scheduled in the same transaction)
and the protocol's default table (replaced when it ends), are written by the services, on a
game-database thread (`_Elsewhere`).
"""

from __future__ import annotations

from games import limits, runtime, selectors, services
from games.api import join_answer
from games.errors import Forbidden, NotFound
from games.models import Game, Player
from games.rules import get_rules
from games.store import SeatRef, Written, store


class _Elsewhere(Exception):
    """This game's writes have follow-ups only the services do: write it there."""


def _plain(head) -> None:
    if head.has_computers or head.is_default:
        raise _Elsewhere


async def seat_by_token(token: str) -> SeatRef | None:
    return await store().seat_by_token(token)


async def current(game_id: int) -> selectors.TableHead | None:
    """The game as it is now (one small read; its state from the cache when current)."""
    return await store().head(game_id)


async def fresh(game_id: int) -> selectors.TableHead:
    """The game as it is now, with any due deadline applied first (as selectors.game_fresh)."""
    head = await current(game_id)
    if head is None:
        raise NotFound(f"There is no game with id {game_id}.")
    due = head.deadline_ms is not None and services.now_ms() >= head.deadline_ms
    if due and head.status != Game.Status.OVER:
        result = await runtime.run_db(services.game_tick, game_id=game_id)
        head = selectors.head_of(result.game)
    return head


def _committed(written: Written) -> None:
    if written.change is not None:
        services.announce(written.after, written.change)


async def move(*, game_id: int, seat: SeatRef, action: dict, now: int | None = None):
    """services.seat_move on the loop: the seat's rate limit, then its action."""
    now = services.now_ms() if now is None else now
    services.check_action(action)
    if seat.game_id != game_id:
        raise Forbidden("That seat does not belong to this game.")
    await limits.acheck("moves", f"seat:{seat.pk}")

    def plan(head, _seats):
        _plain(head)
        return services.plan_move(head, seat=seat.pk, name=seat.name, action=action, now=now)

    try:
        written = await store().write(game_id, plan)
    except _Elsewhere:
        return await runtime.run_db(
            services.move_submit, game_id=game_id, seat=seat, action=action, now=now
        )
    _committed(written)
    result = written.value
    return services.MoveResult(written.after, result.outcome, result.event, seat)


async def join(*, game_id: int, name: str, client: str, now: int | None = None) -> dict:
    """api.join_game on the loop for a client with no session: the game must exist, then the
    client's join is counted, then a new player takes a seat; the API's answer."""
    # Games are never deleted: one this process knows of exists.
    if runtime.cached_head(game_id) is None and await store().head(game_id) is None:
        raise NotFound(f"There is no game with id {game_id}.")
    await limits.acheck("joins", client)
    now = services.now_ms() if now is None else now

    def plan(head, seats):
        _plain(head)
        return services.plan_join(head, [seat[2] for seat in seats], name=name, now=now), None

    try:
        written = await store().write(game_id, plan, join=True)
    except _Elsewhere:
        return await runtime.run_db(_join_elsewhere, game_id, name)
    _committed(written)
    change, after, row = written.change, written.after, written.row
    new = change.new_seat
    # The new seat's socket comes next, most often to this process.
    store().remember_seat(
        SeatRef(new.pk, game_id, new.player_id, new.number, new.name, new.token, False)
    )
    seats = [
        {
            "number": number,
            "name": seat_name,
            "score": change.scores.get(seat_name, score),
            "is_computer": bool(is_computer),
        }
        for _id, number, seat_name, score, is_computer in written.seats
    ]
    seat = {"number": new.number, "name": new.name, "score": 0, "is_computer": False}
    game = Game(
        pk=game_id,
        kind=after.kind,
        options=row.options,
        status=after.status,
        version=after.version,
        is_open=after.is_open,
        is_default=after.is_default,
        created=row.created,
        updated=written.updated,
        finished=written.updated if change.ended else row.finished,
    )
    return {
        "token": new.token,
        "seat": seat,
        "game": selectors.game_summary(game, seats=[*seats, seat]),
    }


def _join_elsewhere(game_id: int, name: str) -> dict:
    return join_answer(game_id, Player.objects.create(name=name), name)


async def create(
    *,
    kind: str,
    options: dict,
    seed: int | None,
    is_open: bool,
    client: str,
    now: int | None = None,
) -> dict:
    """api.create_game on the loop: the client's join is counted, then the game is made;
    its summary."""
    await limits.acheck("joins", client)
    now = services.now_ms() if now is None else now
    options, seed, state = services.plan_create(kind=kind, options=options, seed=seed, now=now)
    rules = get_rules(kind)
    status, deadline = rules.status(state), rules.next_deadline(state)
    game_id, created = await store().create(
        kind=kind,
        options=options,
        seed=seed,
        state=state,
        status=status,
        deadline_ms=deadline,
        is_open=is_open,
        now_ms=now,
    )
    runtime.remember_head(selectors.TableHead(game_id, kind, is_open, status, 0, deadline, state))
    game = Game(
        pk=game_id,
        kind=kind,
        options=options,
        status=status,
        version=0,
        is_open=is_open,
        is_default=False,
        created=created,
        updated=created,
        finished=None,
    )
    return selectors.game_summary(game, seats=[])
