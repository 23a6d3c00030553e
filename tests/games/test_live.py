"""Writes served on the event loop (services.arun: the store's loop connection, games.realtime):
a move, a join or a create written there is stored as the same services write it on Django's
connection, is never planned on a stale game, and is heard of exactly once by every listener."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection
from django.utils import timezone

from cards.engine import count_sets, is_set, parse_cards
from cards.engine.classic import JUST_TAKEN
from cards.engine.errors import SetError
from games import planning, realtime, runtime, selectors, services, store
from games.api import created_answer, join_answer
from games.errors import GameError
from games.models import Game, Move, Player, Seat
from games.replay import replay
from games.rules import get_rules
from tests.conftest import scaled_backend
from tests.games.conftest import EXAMPLE_DECK, LoopTicks, T

# The loop's store writes on connections of its own, which cannot see a test's transaction.
pytestmark = pytest.mark.django_db(transaction=True)

CLIENT = "127.0.0.1"
FIRST_SET = {"type": "claim", "cards": EXAMPLE_DECK[:3]}
# Nine cards with no set among them, then three that make the deck's one set: a declare table
# dealt this deck is over once that set is taken.
ONE_SET_DECK = [
    "ONE/RED/SOLID/DIAMOND", "ONE/RED/SOLID/SQUIGGLE", "ONE/RED/STRIPED/DIAMOND",
    "ONE/RED/STRIPED/SQUIGGLE", "ONE/GREEN/SOLID/DIAMOND", "ONE/GREEN/SOLID/SQUIGGLE",
    "ONE/GREEN/STRIPED/DIAMOND", "ONE/GREEN/STRIPED/SQUIGGLE", "TWO/RED/SOLID/DIAMOND",
    "TWO/RED/SOLID/SQUIGGLE", "TWO/RED/STRIPED/DIAMOND", "TWO/RED/OPEN/OVAL",
]  # fmt: skip


# -- helpers ---------------------------------------------------------------------------------------


def on_loop(fn, /, *args, **kwargs):
    """Run `await fn(...)` on an event loop of its own, as a server's request runs."""
    return async_to_sync(fn)(*args, **kwargs)


def classic_game(names=("ann", "bob"), *, now=T):
    """A classic table dealt the worked example's deck, with `names` seated (clock: `now`)."""
    game = services.game_create(
        kind="set",
        options={"start": "now", "rules": "classic", "deck": EXAMPLE_DECK},
        seed=7,
        now=now,
        is_open=True,
    )
    seats = [
        services.game_join(game_id=game.pk, player=Player.objects.create(name=name), now=now + n)
        for n, name in enumerate(names, 1)
    ]
    game.refresh_from_db()
    return game, seats


async def move(game_id: int, token: str, action, now: int | None = None):
    """A seat's move as the fast API and the sockets make it: the token's seat, then the move
    served on the loop."""
    seat = await store.aseat_by_token(token)
    return await services.amove(game_id=game_id, seat=seat, action=action, now=now)


async def join(game_id: int, name: str, now: int | None = None) -> dict:
    written = await services.arun(services.join(game_id=game_id, name=name, client=CLIENT, now=now))
    return join_answer(written)


async def create(kind: str, options: dict, seed: int | None, now: int | None = None) -> dict:
    made = await services.arun(
        services.create(kind=kind, options=options, seed=seed, is_open=True, client=CLIENT, now=now)
    )
    return created_answer(made)


def written(game_id: int) -> dict:
    """Everything stored of a game but its ids and wall-clock times, as the ORM reads it."""
    game = Game.objects.get(pk=game_id)
    fields = [
        *("kind", "options", "seed", "status", "version", "state", "is_open", "is_default"),
        *("deadline_ms", "has_computers", "created_ms"),
    ]
    return {
        **{name: getattr(game, name) for name in fields},
        "finished": game.finished is not None,
        "seats": list(
            game.seats.order_by("number").values_list(
                "number", "name", "score", "is_computer", "computer", "player__name"
            )
        ),
        "moves": [
            (m.seq, m.seat.number if m.seat else None, m.actor, m.action, m.outcome, m.at_ms)
            for m in game.moves.select_related("seat").order_by("seq")
        ],
    }


def assert_log_is_whole(game_id: int) -> Game:
    """The log runs 1..version with no gap or duplicate, and replaying it gives the state."""
    game = Game.objects.get(pk=game_id)
    seqs = list(Move.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.version + 1))
    assert replay(game) == game.state
    return game


def cache_stale(stale: selectors.TableHead, current: Game) -> None:
    """Make this process's cache hold the game as it was at `stale`, before `current`."""
    runtime.forget_head(current.pk, current.version)
    runtime.remember_head(stale)
    assert runtime.cached_head(current.pk).version == stale.version < current.version


async def close_the_pool() -> None:
    """Close the loop's PostgreSQL pool before the loop ends. A burst of moves makes the pool
    open more connections in the background, and a pool task cancelled while it connects never
    ends: a server's loop never ends, but a test's would wait for it for ever."""
    found = store.store()
    if isinstance(found, store.LoopPostgres):
        await (await found.pool()).close()


def claim(cards) -> dict:
    return {"type": "claim", "cards": list(cards)}


def snapshot(game_id: int) -> tuple:
    game = Game.objects.get(pk=game_id)
    scores = list(game.seats.order_by("number").values_list("name", "score"))
    return game.version, game.state, game.moves.count(), scores


# -- what the loop writes is what the services write -----------------------------------------------


def test_a_move_written_on_the_loop_is_read_back_as_the_services_would_have_written_it():
    game, (ann, bob) = classic_game()
    twin, (twin_ann, twin_bob) = classic_game()
    change, planned = planning.plan_move(
        selectors.head_of(game), [], seat=ann.pk, name="ann", action=FIRST_SET, now=T + 10
    )
    before = timezone.now()
    result = on_loop(move, game.pk, ann.token, FIRST_SET, T + 10)
    after = timezone.now()
    services.move_submit(game_id=twin.pk, seat=twin_ann, action=FIRST_SET, now=T + 10)

    stored = Game.objects.get(pk=game.pk)
    assert (stored.state, stored.version) == (change.state, game.version + 1)
    logged = Move.objects.get(game=stored, seq=stored.version)
    assert (logged.seat_id, logged.actor, logged.action, logged.outcome, logged.at_ms) == (
        ann.pk,
        "ann",
        FIRST_SET,
        planned.outcome,
        T + 10,
    )
    assert planned.outcome["claim"] == "set"
    assert (result.outcome, result.event, result.game.version) == (
        planned.outcome,
        True,
        stored.version,
    )
    assert Seat.objects.get(pk=ann.pk).score == 1
    # Times are aware UTC datetimes the ORM compares and filters by (text, on SQLite).
    assert stored.updated.utcoffset() is not None and before <= stored.updated <= after
    assert before <= logged.created <= after
    assert Game.objects.filter(pk=game.pk, updated__range=(before, after)).exists()

    # The log keeps an action as the rules read it: fields they do not read are not stored.
    odd = {"type": "hint", "note": "café ✓ 名前 \\u0000", "x": [1.5, -0.0, None, {"y": []}]}
    on_loop(move, game.pk, bob.token, odd, T + 20)
    services.move_submit(game_id=twin.pk, seat=twin_bob, action=odd, now=T + 20)
    assert Move.objects.get(game_id=game.pk, seq=stored.version + 1).action == {"type": "hint"}
    assert written(game.pk) == written(twin.pk)
    assert_log_is_whole(game.pk)


def test_a_join_written_on_the_loop_seats_a_new_player_as_the_services_would():
    game, _ = classic_game()
    twin, _ = classic_game()
    before = timezone.now()
    answer = on_loop(join, game.pk, "cal", T + 30)
    after = timezone.now()
    services.game_join(game_id=twin.pk, player=Player.objects.create(name="cal"), now=T + 30)

    seat = Seat.objects.select_related("player").get(token=answer["token"])
    assert (seat.game_id, seat.number, seat.name, seat.score, seat.is_computer, seat.computer) == (
        game.pk,
        2,
        "cal",
        0,
        False,
        {},
    )
    player = seat.player
    assert (player.name, player.is_computer, player.session_key, player.user_id) == (
        "cal",
        False,
        "",
        None,
    )
    assert before <= seat.joined <= after and before <= player.created <= after
    stored = Game.objects.get(pk=game.pk)
    assert stored.version == game.version + 1
    logged = Move.objects.get(game=stored, seq=stored.version)
    assert (logged.seat_id, logged.actor, logged.action, logged.at_ms) == (
        seat.pk,
        "cal",
        {"type": "join"},
        T + 30,
    )
    # The answer shows the game as the ORM reads it, times included.
    assert answer["seat"] == selectors.seat_json(seat)
    assert answer["game"] == selectors.game_summary(stored)
    assert written(game.pk) == written(twin.pk)
    assert_log_is_whole(game.pk)

    # The token it hands out acts for the new seat.
    result = on_loop(move, game.pk, answer["token"], FIRST_SET, T + 40)
    assert result.outcome["claim"] == "set" and Seat.objects.get(pk=seat.pk).score == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL session setting")
def test_a_join_answer_shows_the_game_s_times_whatever_the_server_s_time_zone(monkeypatch):
    # As on a server whose timezone setting is not UTC (initdb takes the machine's): Django's
    # own connections set theirs to UTC; the loop's must read times right all the same.
    monkeypatch.setenv("PGTZ", "Asia/Kolkata")
    game, _ = classic_game()
    answer = on_loop(join, game.pk, "cal")
    stored = Game.objects.get(pk=game.pk)
    assert answer["game"]["created"] == stored.created.isoformat()
    assert answer["game"] == selectors.game_summary(stored)


CREATES = {
    "a classic table": ("set", {"rules": "classic", "deck": EXAMPLE_DECK}),
    "a declare table": ("set", {"rules": "declare"}),
    "a square game": ("square", {}),
}


@pytest.mark.parametrize("case", list(CREATES))
def test_a_create_written_on_the_loop_is_the_game_the_services_would_have_made(case):
    kind, options = CREATES[case]
    before = timezone.now()
    answer = on_loop(create, kind, options, 7, T)
    after = timezone.now()
    twin = services.game_create(kind=kind, options=options, seed=7, is_open=True, now=T)

    game = Game.objects.get(pk=answer["id"])
    assert answer == selectors.game_summary(game)
    assert written(game.pk) == written(twin.pk)
    assert (game.version, game.seed, game.created_ms, game.finished) == (0, 7, T, None)
    assert before <= game.created == game.updated <= after
    # A random seed is stored as drawn: the log replays to the dealt state.
    answer = on_loop(create, kind, options, None)
    game = Game.objects.get(pk=answer["id"])
    assert answer == selectors.game_summary(game)
    assert replay(game) == game.state
    # And Django's own services play on it.
    services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"))
    assert_log_is_whole(game.pk)


# -- refusals --------------------------------------------------------------------------------------


def with_a_computer():
    game, seats = classic_game(("ann", "bob"))
    services.seat_add_computer(game_id=game.pk, speed="slow", now=T + 3)
    game.refresh_from_db()
    return game, seats


@pytest.mark.parametrize("table", [classic_game, with_a_computer], ids=["plain", "with a computer"])
def test_a_refused_action_changes_nothing_and_says_what_the_rules_say(table):
    game, (ann, _bob) = table()
    rules = get_rules("set")
    not_set = claim([EXAMPLE_DECK[0], EXAMPLE_DECK[1], EXAMPLE_DECK[3]])
    refusals = [
        (claim(EXAMPLE_DECK[12:15]), "not_on_board"),  # in the deck, not yet dealt
        (claim(EXAMPLE_DECK[:2]), "bad_claim"),
        ({"type": "jump"}, "bad_action"),
        # A claim of three cards that are no set is judged, not refused: it locks ann out ...
        (not_set, None),
        (FIRST_SET, "locked_out"),  # ... and then her claims are refused
    ]
    for action, code in refusals:
        if code is None:
            assert on_loop(move, game.pk, ann.token, action, T + 20).outcome["claim"] == "not_set"
            continue
        before = snapshot(game.pk)
        state = Game.objects.get(pk=game.pk).state
        with pytest.raises(SetError) as by_the_rules:
            rules.apply(state, "ann", action, T + 20)
        with pytest.raises(GameError) as refused:
            on_loop(move, game.pk, ann.token, action, T + 20)
        assert (str(refused.value), refused.value.code, refused.value.http_status) == (
            str(by_the_rules.value),
            code,
            400,
        )
        assert snapshot(game.pk) == before, action
    # A seat of another game acts on none.
    _other, (stranger, _) = classic_game()

    async def stranger_moves():
        seat = await store.aseat_by_token(stranger.token)
        return await services.amove(game_id=game.pk, seat=seat, action=FIRST_SET, now=T + 30)

    before = snapshot(game.pk)
    with pytest.raises(GameError) as refused:
        on_loop(stranger_moves)
    assert (str(refused.value), refused.value.http_status) == (
        "That seat does not belong to this game.",
        403,
    )
    assert snapshot(game.pk) == before
    assert_log_is_whole(game.pk)


# -- a stale cached head ---------------------------------------------------------------------------


def test_a_move_on_a_stale_cached_head_is_planned_on_the_newest_game():
    game, (ann, bob) = classic_game()
    stale = selectors.head_of(game)
    # Another writer (the services, in this thread) takes the first set; the cache forgets it.
    services.move_submit(game_id=game.pk, seat=bob, action=FIRST_SET, now=T + 10)
    current = Game.objects.get(pk=game.pk)
    cache_stale(stale, current)

    hint = {"type": "hint"}
    rules = get_rules("set")
    on_current = rules.apply(current.state, "ann", hint, T + 20)
    assert on_current.outcome != rules.apply(stale.state, "ann", hint, T + 20).outcome
    result = on_loop(move, game.pk, ann.token, hint, T + 20)
    assert result.outcome == on_current.outcome
    stored = Game.objects.get(pk=game.pk)
    assert (stored.version, stored.state) == (current.version + 1, on_current.state)
    assert stored.state["scores"] == {"ann": 0, "bob": 1}
    assert_log_is_whole(game.pk)
    cached = runtime.cached_head(game.pk)
    assert (cached.version, cached.state) == (stored.version, stored.state)

    # A claim the stale board would score is judged on the board as it is: just taken.
    cache_stale(stale, stored)
    with pytest.raises(GameError, match=JUST_TAKEN):
        on_loop(move, game.pk, ann.token, FIRST_SET, T + 30)
    final = assert_log_is_whole(game.pk)
    assert (final.version, final.state) == (stored.version, stored.state)


def test_a_refusal_planned_on_a_stale_cached_head_is_not_returned_once_the_game_moved_on():
    game, (ann, bob) = classic_game()
    stale = selectors.head_of(game)
    services.move_submit(game_id=game.pk, seat=bob, action=FIRST_SET, now=T + 10)
    current = Game.objects.get(pk=game.pk)
    dealt = [card for card in current.state["board"] if card not in stale.state["board"]]
    fresh_set = next(
        cards
        for cards in itertools.combinations(current.state["board"], 3)
        if is_set(*parse_cards(cards)) and set(cards) & set(dealt)
    )
    # On the stale board those cards are still in the deck: it would refuse the claim.
    with pytest.raises(GameError, match="not on the board"):
        planning.plan_move(stale, [], seat=ann.pk, name="ann", action=claim(fresh_set), now=T + 20)

    cache_stale(stale, current)
    result = on_loop(move, game.pk, ann.token, claim(fresh_set), T + 20)
    assert result.outcome["claim"] == "set"
    stored = assert_log_is_whole(game.pk)
    assert stored.version == current.version + 1
    assert stored.state["scores"] == {"ann": 1, "bob": 1}
    assert (
        dict(Seat.objects.filter(game=game).values_list("name", "score")) == stored.state["scores"]
    )

    # An answer that writes nothing (a count no later than ann's join: no presence mark to
    # write) is the current board's too, not that of the game a version before.
    one_behind = selectors.head_of(current)
    counts = [count_sets(parse_cards(h.state["board"])) for h in (stored, one_behind)]
    assert counts[0] != counts[1]
    cache_stale(one_behind, stored)
    result = on_loop(move, game.pk, ann.token, {"type": "count"}, T + 1)
    assert (result.outcome["count"], result.game.version) == (counts[0], stored.version)
    assert Game.objects.get(pk=game.pk).version == stored.version


# -- games the services write ----------------------------------------------------------------------


def test_a_game_with_a_computer_is_written_by_the_services_and_its_computer_still_plays():
    game, (ann,) = classic_game(("ann",))
    computer = services.seat_add_computer(game_id=game.pk, speed="slow", now=T + 5)
    due = Seat.objects.get(pk=computer.pk).computer["next_ms"]
    assert due is not None and Game.objects.get(pk=game.pk).deadline_ms == due

    # Ann moves once the computer's time is up: its turn is played first, then hers.
    result = on_loop(move, game.pk, ann.token, {"type": "hint"}, due + 1)
    stored = assert_log_is_whole(game.pk)
    last = list(stored.moves.order_by("-seq")[:2])[::-1]
    assert [(m.actor, m.action["type"], m.at_ms) for m in last] == [
        ("Computer1", "claim", due + 1),
        ("ann", "hint", due + 1),
    ]
    assert last[0].outcome["claim"] == "set"
    assert Seat.objects.get(pk=computer.pk).score == 1
    # ... and the computer has its next turn scheduled, which the game's deadline shows.
    rescheduled = Seat.objects.get(pk=computer.pk).computer["next_ms"]
    assert rescheduled is not None and rescheduled > due + 1
    assert stored.deadline_ms == rescheduled
    assert (result.outcome["action"], result.event, result.game.version) == (
        "hint",
        True,  # the others are told that a hint was taken
        stored.version,
    )
    assert result.seat.pk == ann.pk


def test_a_move_answers_alike_whether_the_loop_or_the_services_write_it():
    plain, (ann, _) = classic_game()
    computer, (computer_ann, _) = with_a_computer()
    replies = []
    for game, seat in ((plain, ann), (computer, computer_ann)):
        result = on_loop(move, game.pk, seat.token, FIRST_SET, T + 10)
        reply = selectors.move_reply(result, seat_name="ann", now=T + 10)
        assert reply["version"] == Game.objects.get(pk=game.pk).version == game.version + 1
        replies.append(reply)
    assert replies[0]["outcome"] == replies[1]["outcome"]
    assert replies[0]["event"] is replies[1]["event"] is True
    assert set(replies[0]) == set(replies[1]) and set(replies[0]["view"]) == set(replies[1]["view"])
    assert replies[0]["view"]["board"] == replies[1]["view"]["board"]


def shape(data):
    """The keys of an answer, all the way down (its values differ from one game to the next)."""
    if isinstance(data, dict):
        return {key: shape(value) for key, value in data.items()}
    if isinstance(data, list):
        return [shape(value) for value in data]
    return type(data).__name__


def test_a_join_and_a_move_at_the_default_table_answer_as_at_any_table():
    default = services.default_table()
    plain = services.game_create(
        kind="set", options={"start": "now", "rules": "declare"}, is_open=True
    )

    async def join_and_declare(game_id):
        answer = await join(game_id, "zoe")
        result = await move(game_id, answer["token"], {"type": "declare"})
        return answer, result.outcome, result.game.version

    answers = [on_loop(join_and_declare, game.pk) for game in (default, plain)]
    (at_default, declared, version), (at_plain, plain_declared, _) = answers
    assert shape(at_default) == shape(at_plain)
    assert (
        at_default["seat"]
        == at_plain["seat"]
        == selectors.seat_json(Seat.objects.get(token=at_default["token"]))
    )
    assert at_default["game"]["is_default"] is True and at_plain["game"]["is_default"] is False
    assert at_default["game"]["version"] == default.version + 1
    assert declared.keys() == plain_declared.keys() and declared["declare"] == "declarer"
    stored = assert_log_is_whole(default.pk)
    assert stored.version == version == default.version + 2
    assert stored.state["declarer"] == "zoe"


def test_a_default_table_ended_over_the_loop_is_replaced_by_a_fresh_one():
    table = services.game_create(
        kind="set",
        options={"start": "now", "rules": "declare", "deck": ONE_SET_DECK},
        is_open=True,
        is_default=True,
    )
    board = table.state["board"]
    picks = [
        [r, c]
        for r, row in enumerate(board)
        for c, card in enumerate(row)
        if card in ONE_SET_DECK[9:]
    ]
    assert len(picks) == 3

    async def take_the_last_set():
        answer = await join(table.pk, "zoe")
        await move(table.pk, answer["token"], {"type": "declare"})
        for row, col in picks:
            result = await move(table.pk, answer["token"], {"type": "pick", "row": row, "col": col})
        return result.outcome

    outcome = on_loop(take_the_last_set)
    assert (outcome["pick"], outcome["over"]) == ("set", True)
    ended = assert_log_is_whole(table.pk)
    assert (ended.status, ended.is_default) == ("over", False) and ended.finished is not None
    fresh = Game.objects.get(is_default=True)
    assert fresh.pk != table.pk
    # Dealt at once, as the default table always is (the text protocol's table).
    assert (fresh.status, fresh.options, fresh.is_open) == (
        "waiting",
        {"rules": "declare", "start": "now"},
        True,
    )
    assert fresh.state["board"][0] and "waiting" not in fresh.state


# -- the loop and the process's write lock (SQLite) ------------------------------------------------


@pytest.mark.skipif(connection.vendor != "sqlite", reason="PostgreSQL has no process write lock")
def test_a_move_waits_for_another_thread_s_write_off_the_loop_which_keeps_serving():
    game, (ann, bob) = classic_game()
    held = threading.Event()

    def another_writer():
        try:
            with runtime.write_lock():
                services.move_submit(game_id=game.pk, seat=bob, action={"type": "hint"}, now=T + 10)
                held.set()
                time.sleep(0.3)
        finally:
            connection.close()

    async def run():
        seat = await store.aseat_by_token(ann.token)
        writer = threading.Thread(target=another_writer)
        writer.start()
        await asyncio.to_thread(held.wait, 10)
        async with LoopTicks() as ticks:
            started = time.monotonic()
            result = await services.amove(game_id=game.pk, seat=seat, action=FIRST_SET, now=T + 20)
            waited = time.monotonic() - started
        await asyncio.to_thread(writer.join, 10)
        return result, waited, ticks.count

    result, waited, ticks = on_loop(run)
    assert result.outcome["claim"] == "set"
    assert waited >= 0.2  # it waited for the lock ...
    assert ticks >= 5  # ... and the loop ran other tasks meanwhile (blocked, it runs none)
    stored = assert_log_is_whole(game.pk)
    assert stored.version == game.version + 2
    assert [m.actor for m in stored.moves.order_by("-seq")[:2]] == ["ann", "bob"]


# -- many at once ----------------------------------------------------------------------------------


def test_twenty_claims_of_one_set_at_once_on_the_loop_score_exactly_once():
    names = ("ann", "bob", "cal", "dan", "eve")
    game, seats = classic_game(names)

    async def all_at_once():
        refs = [await store.aseat_by_token(seat.token) for seat in seats]
        try:
            return await asyncio.gather(
                *(
                    services.amove(game_id=game.pk, seat=refs[n % len(refs)], action=FIRST_SET)
                    for n in range(20)
                ),
                return_exceptions=True,
            )
        finally:
            await close_the_pool()

    results = on_loop(all_at_once)
    won = [r for r in results if not isinstance(r, BaseException)]
    lost = [r for r in results if isinstance(r, BaseException)]
    assert len(won) == 1 and won[0].outcome["claim"] == "set", results
    assert len(lost) == 19
    assert all(isinstance(exc, GameError) and str(exc) == JUST_TAKEN for exc in lost), lost
    stored = assert_log_is_whole(game.pk)
    assert stored.version == game.version + 1
    assert sum(stored.state["scores"].values()) == 1
    assert sum(Seat.objects.filter(game=game).values_list("score", flat=True)) == 1
    assert stored.state["scores"][won[0].seat.name] == 1


# -- the game's group on the channel layer ---------------------------------------------------------


class Inbox:
    """A channel in a game's group (as a socket's or a watch's) that keeps what it hears."""

    def __init__(self, game_id: int, layer=None) -> None:
        self.layer = layer or get_channel_layer()
        self.group = realtime.group_name(game_id)
        self.messages: list[dict] = []

    async def __aenter__(self) -> Inbox:
        self.channel = await self.layer.new_channel()
        await self.layer.group_add(self.group, self.channel)
        self.reader = asyncio.ensure_future(self._read())
        return self

    async def _read(self) -> None:
        while True:
            self.messages.append(await self.layer.receive(self.channel))

    async def leave(self) -> None:
        await self.layer.group_discard(self.group, self.channel)

    async def __aexit__(self, *exc) -> None:
        await self.leave()
        self.reader.cancel()
        await self.layer.close()  # the layer's tasks on this loop (a server's loop never ends)

    async def wait_for(self, count: int, settle: float = 0.3) -> list[dict]:
        """The messages once `count` in all have come (or 5 s have passed), after a moment for
        any extra one to arrive."""
        deadline = time.monotonic() + 5
        while len(self.messages) < count and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        await asyncio.sleep(settle)
        return list(self.messages)


def test_a_member_of_the_game_s_group_hears_each_committed_change_once_with_its_moves():
    game, (ann, bob) = classic_game()
    now = services.now_ms()
    hint = {"type": "hint"}

    async def run():
        async with Inbox(game.pk) as inbox:
            heard = []
            result = await move(game.pk, ann.token, FIRST_SET, now)
            heard.append(await inbox.wait_for(1))
            # A change the services commit on a game-database thread is heard the same way.
            bob_ref = await store.aseat_by_token(bob.token)
            await runtime.run_db(
                services.move_submit, game_id=game.pk, seat=bob_ref, action=hint, now=now + 1
            )
            heard.append(await inbox.wait_for(2))
            # A presence mark is written but not told.
            looked = await move(game.pk, ann.token, {"type": "look"}, now + 2)
            heard.append(await inbox.wait_for(2))
            await inbox.leave()
            await move(game.pk, bob.token, {"type": "count"}, now + 3)
            heard.append(await inbox.wait_for(2))
            return result, looked, heard

    result, looked, heard = on_loop(run)
    assert [len(messages) for messages in heard] == [1, 2, 2, 2]
    first, second = heard[-1]
    v = game.version
    assert first["type"] == "game.changed"
    assert (first["game"], first["from"], first["version"]) == (game.pk, v, v + 1)
    assert result.game.version == v + 1
    assert first["moves"] == [["ann", FIRST_SET, now, True]]
    assert (first["event"], first["status"], first["origin"]) == (True, "active", runtime.ORIGIN)
    assert (second["from"], second["version"]) == (v + 1, v + 2)
    # A hint is told to everyone (that it was taken, not its card): an event.
    assert second["moves"] == [["bob", hint, now + 1, True]] and second["event"] is True
    assert looked.game.version == v + 3  # written, though nobody was told
    stored = assert_log_is_whole(game.pk)
    assert stored.version == v + 4  # the count after leaving was written, and not heard


needs_shared_store = pytest.mark.skipif(
    not scaled_backend(), reason="another process's changes come through Redis"
)


def another_process() -> realtime.GamesLayer:
    """The channel layer of another server process of the deployment (its own Redis client)."""
    from django.conf import settings

    inner = settings.CHANNEL_LAYERS["default"]["CONFIG"]["inner"]
    return realtime.GamesLayer(inner=inner, origin="another process")


@needs_shared_store
def test_a_change_from_another_process_brings_the_cache_up_to_date_without_a_read(monkeypatch):
    game, (_ann, bob) = classic_game()
    stale = selectors.head_of(game)
    told: list[dict] = []
    monkeypatch.setattr(realtime, "publish", told.append)
    services.move_submit(game_id=game.pk, seat=bob, action=FIRST_SET, now=T + 10)
    monkeypatch.undo()
    (message,) = told
    current = Game.objects.get(pk=game.pk)
    # This process knew the game a version before; the other process's message says what came.
    cache_stale(stale, current)
    group = realtime.group_name(game.pk)

    async def run():
        theirs = another_process()
        try:
            async with Inbox(game.pk) as inbox:
                await theirs.group_send(group, {**message, "origin": "another process"})
                heard = await inbox.wait_for(1)
                followed = runtime.cached_head(game.pk)
                # This process's own messages come back through Redis too: they are skipped
                # (followed again, they would not change the stale cache).
                cache_stale(stale, current)
                await get_channel_layer().group_send(group, message)
                heard_after = await inbox.wait_for(2)
                ignored = runtime.cached_head(game.pk)
                return heard, followed, heard_after, ignored
        finally:
            await theirs.close()

    heard, followed, heard_after, ignored = on_loop(run)
    assert [m["version"] for m in heard] == [current.version]
    assert (followed.version, followed.state, followed.status, followed.deadline_ms) == (
        current.version,
        current.state,
        current.status,
        current.deadline_ms,
    )
    assert [m["origin"] for m in heard_after] == ["another process", runtime.ORIGIN]
    assert ignored.version == stale.version and ignored.state == stale.state


def test_a_number_past_64_bits_the_rules_do_not_read_is_not_stored_and_every_process_hears():
    game, (ann, _) = classic_game()
    action = {"type": "hint", "n": 2**70, "m": -(2**70)}

    async def run():
        async with Inbox(game.pk) as inbox:
            theirs, elsewhere = None, None
            if scaled_backend():  # another process, following the game through Redis
                theirs = another_process()
                elsewhere = Inbox(game.pk, theirs)
                await elsewhere.__aenter__()
            try:
                result = await move(game.pk, ann.token, action, T + 10)
                heard = await inbox.wait_for(1)
                there = await elsewhere.wait_for(1) if elsewhere else None
                return result, heard, there
            finally:
                if elsewhere is not None:
                    await elsewhere.__aexit__()

    result, heard, there = on_loop(run)
    stored = assert_log_is_whole(game.pk)
    read = {"type": "hint"}
    assert Move.objects.get(game=stored, seq=stored.version).action == read
    assert [m["moves"] for m in heard] == [[["ann", read, T + 10, True]]]
    if scaled_backend():  # nothing msgpack cannot carry: the others follow by the moves
        assert [(m["version"], m["moves"]) for m in there] == [
            (result.game.version, [["ann", read, T + 10, True]])
        ]


# -- bad input -------------------------------------------------------------------------------------

PLAIN_JSON = "An action holds only plain JSON: finite numbers and Unicode text without NUL."
BAD_ACTIONS = {
    "NaN": ({"type": "hint", "n": float("nan")}, PLAIN_JSON),
    "infinity": ({"type": "hint", "n": float("-inf")}, PLAIN_JSON),
    "a NUL in text": ({"type": "hint", "note": "a\x00b"}, PLAIN_JSON),
    "a NUL in a key": ({"type": "hint", "a\x00": 1}, PLAIN_JSON),
    "a NUL deep down": ({"type": "hint", "x": [{"y": ["\x00"]}]}, PLAIN_JSON),
    "a NUL in the type": ({"type": "hint\x00"}, PLAIN_JSON),
    "a lone surrogate": ({"type": "hint", "note": "\ud800"}, PLAIN_JSON),
    "a list": (["hint"], "An action is a JSON object with a string field 'type'."),
    "no type": ({"cards": []}, "An action is a JSON object with a string field 'type'."),
    "a join": ({"type": "join"}, "'join' is not an action a seat can submit."),
    "a tick": ({"type": "tick"}, "'tick' is not an action a seat can submit."),
}


@pytest.mark.parametrize("case", list(BAD_ACTIONS))
def test_an_action_the_log_cannot_store_is_refused_with_a_clear_message(case):
    action, message = BAD_ACTIONS[case]
    game, (ann, _) = classic_game()
    before = snapshot(game.pk)
    with pytest.raises(GameError) as refused:
        on_loop(move, game.pk, ann.token, action)
    assert (str(refused.value), refused.value.http_status) == (message, 400)
    assert snapshot(game.pk) == before


def test_a_create_the_rules_refuse_makes_no_game():
    with pytest.raises(GameError, match="Set War plays itself from the deal"):
        on_loop(create, "setwar", {}, None)
    with pytest.raises(GameError) as refused:
        on_loop(create, "set", {"rules": "classic", "attributes": 7}, None)
    assert refused.value.http_status == 400 and "attributes" in str(refused.value)
    assert not Game.objects.exists()
