"""Play now (issue 29, item 1): POST/GET/DELETE /api/pool, pairing committed like a move, the
players told gameStart, the timer that seats two after the wait limit."""

from __future__ import annotations

import asyncio
import datetime
import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from accounts.tokens import token_create
from cards.engine import find_set, parse_cards
from games import manners, pool, realtime, runtime, services, store
from games.models import Block, Game, Player, PoolEntry, Rating, Sanction, Seat
from games.replay import replay_states

pytestmark = pytest.mark.django_db


def make_account(name: str) -> tuple[object, str]:
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    return user, token_create(user=user, name="api")[1]


def call(method: str, token: str | None = None, body=None, client: Client | None = None):
    extra = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    data = json.dumps(body) if body is not None else ""
    client = client or Client()
    return getattr(client, method)("/api/pool", data, content_type="application/json", **extra)


def play(token, kind="set", **options):
    return call("post", token, {"kind": kind, "options": options})


@pytest.fixture
def told(monkeypatch):
    """The events each account was told, as (user id, event)."""
    heard: list[tuple[int, dict]] = []
    monkeypatch.setattr(realtime, "publish_account", lambda u, e, **kw: heard.append((u, e)))
    return heard


@pytest.fixture
def accounts():
    return [make_account(name) for name in ("ada", "bob", "cy", "dee", "eve")]


def test_play_now_answers_202_and_says_where_one_waits(accounts):
    ada = accounts[0]
    answer = play(ada[1], mode="set-classic", rated=True)
    assert answer.status_code == 202, answer.json()
    waiting = answer.json()["waiting"]
    assert waiting["pool"] == "set:set-classic:rated" and waiting["rating"] == 1500
    assert answer.json()["pools"] == {"set:set-classic:rated": 1}
    state = call("get", ada[1]).json()
    assert state["waiting"]["pool"] == "set:set-classic:rated" and state["seated"] is None
    assert "set-classic" in state["modes"]["set"] and state["modes"]["square"] == {
        "square": "Square Game"
    }
    assert not Game.objects.exists()  # one player alone waits


def test_bad_requests_are_refused_with_a_sentence(accounts):
    ada = accounts[0]
    for body, words in (
        ({"kind": "setwar"}, "Play now is for"),
        ({"kind": "set", "options": {"mode": "square"}}, "options.mode is one of"),
        ({"kind": "set", "options": {"mode": "set-puzzle"}}, "options.mode is one of"),
        ({"kind": "set", "options": {"rated": "yes"}}, "true or false"),
        ({"kind": "set", "options": {"players": 3}}, "Unknown Play now option"),
        ({"options": {}}, "kind"),
    ):
        answer = call("post", ada[1], body)
        assert answer.status_code == 400, body
        assert words in json.dumps(answer.json()), answer.json()
    assert call("post", ada[1], [1, 2]).status_code == 400
    assert not PoolEntry.objects.exists()


def test_nobody_is_a_401_and_a_guest_plays_casual_only():
    assert play(None).status_code == 401
    assert "choose a name" in play(None).json()["detail"]
    assert call("get").status_code == 401 and call("delete").status_code == 401
    guest = Client()
    guest.post("/name", {"name": "gus"})  # the lobby's name form
    rated = call("post", body={"kind": "set", "options": {"rated": True}}, client=guest)
    assert rated.status_code == 403 and "for accounts" in rated.json()["detail"]
    casual = call("post", body={"kind": "square"}, client=guest)
    assert casual.status_code == 202, casual.json()
    assert casual.json()["waiting"]["pool"] == "square:square:casual"


def test_a_banned_account_and_one_that_must_wait_are_refused(accounts, monkeypatch):
    ada, bob = accounts[:2]
    Sanction.objects.create(
        user=ada[0],
        kind=Sanction.Kind.BAN,
        until=timezone.now() + datetime.timedelta(hours=1),
        reason="spam",
    )
    banned = play(ada[1])
    assert banned.status_code == 403 and "banned" in banned.json()["detail"].lower()
    until = timezone.now() + datetime.timedelta(minutes=20)
    monkeypatch.setattr(
        manners, "rated_wait", lambda user_id, **kw: {"until": until, "leaves": [], "minutes": 20}
    )
    waits = play(bob[1], rated=True)
    assert waits.status_code == 403 and "rated" in waits.json()["detail"]
    assert play(bob[1], rated=False).status_code == 202  # casual is open to it
    assert PoolEntry.objects.filter(status="waiting").count() == 1


def test_a_player_waits_in_one_pool_at_most_and_leaves_it(accounts):
    ada = accounts[0]
    play(ada[1], mode="set-classic")
    moved = play(ada[1], kind="square")
    assert moved.json()["pools"] == {"square:square:casual": 1}
    assert PoolEntry.objects.filter(status="waiting").count() == 1
    left = call("delete", ada[1])
    assert left.status_code == 200 and left.json() == {"left": True}
    assert call("delete", ada[1]).json() == {"left": False}
    assert call("get", ada[1]).json()["waiting"] is None
    assert call("get", ada[1]).json()["pools"] == {}


def test_four_who_wait_are_seated_at_once_and_told(
    accounts, told, django_capture_on_commit_callbacks
):
    for account in accounts[:3]:
        assert play(account[1], mode="set-classic", rated=True).json()["waiting"] is not None
    assert not Game.objects.exists()  # three wait for a fourth (or the wait limit)
    with django_capture_on_commit_callbacks(execute=True):
        fourth = play(accounts[3][1], mode="set-classic", rated=True).json()
    assert fourth["waiting"] is None and fourth["seated"] is not None
    game = Game.objects.get()
    seats = Seat.objects.filter(game=game).order_by("number")
    assert [s.player.user.get_username() for s in seats] == ["ada", "bob", "cy", "dee"]
    assert game.rated and not game.is_open and game.options["rules"] == "classic"
    assert game.moves.filter(action__type="start").exists()  # the countdown began
    starts = [(u, e) for u, e in told if e["type"] == "gameStart"]
    assert sorted(u for u, _ in starts) == sorted(a[0].pk for a in accounts[:4])
    assert all(e["game"]["id"] == game.pk and e["game"]["pool"] for _, e in starts)
    assert starts[0][1]["game"]["url"] == f"/play/{game.pk}/?key={game.link_key}"
    assert set(PoolEntry.objects.values_list("status", flat=True)) == {"seated"}
    # GET says where each was seated; the fifth waits alone.
    assert call("get", accounts[0][1]).json()["seated"]["id"] == game.pk


def test_an_account_seated_hears_gamestart_once_naming_its_pool_not_again_at_the_deal(
    accounts, told, django_capture_on_commit_callbacks
):
    """The table's countdown begins as it is made: its accounts hear gameStart then, with the
    pool, and not a second time when the countdown ends and the cards are dealt."""
    for account in accounts[:3]:
        play(account[1], mode="set-classic")
    with django_capture_on_commit_callbacks(execute=True):
        play(accounts[3][1], mode="set-classic")
    game = Game.objects.get()
    assert game.status == Game.Status.WAITING  # the countdown runs
    with django_capture_on_commit_callbacks(execute=True):
        dealt = services.game_tick(game_id=game.pk, now=services.now_ms() + 60_000)
    assert dealt.game.status == Game.Status.ACTIVE
    starts = [(u, e["game"]) for u, e in told if e["type"] == "gameStart"]
    assert sorted(u for u, _ in starts) == sorted(a[0].pk for a in accounts[:4])
    assert {(g["id"], g["pool"]) for _, g in starts} == {(game.pk, "set:set-classic:casual")}


def test_a_table_is_made_seated_and_started_in_one_write_that_replays_to_its_state(accounts):
    """Pairing writes a table once: the game with its seats and their moves (each join, the
    start) in one insert; its log replays to the state stored, and each seat plays."""
    for account in accounts[:4]:
        play(account[1], mode="set-classic")
    game = Game.objects.get()
    seats = list(Seat.objects.filter(game=game).order_by("number"))
    moves = list(game.moves.order_by("seq"))
    assert [m.action["type"] for m in moves] == ["join"] * 4 + ["start"]
    assert [m.seat_id for m in moves] == [s.pk for s in seats] + [seats[0].pk]
    assert game.version == len(moves) == 5
    assert game.updated == game.created  # written once, not once a seat and again to start
    assert list(replay_states(game))[-1][1] == game.state
    # The game goes on as any other: dealt at its time, then a seat's claim scores.
    later = services.now_ms() + 60_000
    dealt = services.game_tick(game_id=game.pk, now=later)
    assert dealt.game.status == Game.Status.ACTIVE and dealt.game.version == 6
    game.refresh_from_db()
    found = find_set(parse_cards(game.state["board"]))
    services.move_submit(
        game_id=game.pk,
        seat=store.seat_by_token(seats[1].token),
        action={"type": "claim", "cards": [card.protocol for card in found]},
        now=later + 500,
    )
    game.refresh_from_db()
    assert game.state["scores"][seats[1].name] == 1


def test_a_games_end_is_told_to_its_accounts_as_it_commits_with_nothing_read_after(
    accounts, told, settings, django_capture_on_commit_callbacks, django_assert_num_queries
):
    """The accounts hear gameFinish from what the game's last write read: nothing waits for a
    read after the commit (on a busy server such a read queued for seconds, and the players'
    next table's gameStart, told at once, came before the last game's end)."""
    settings.POOL_WAIT_LIMIT_S = 0  # two sit down at once
    for account in accounts[:2]:
        play(account[1], mode="set-classic")
    game = Game.objects.get()
    seats = list(Seat.objects.filter(game=game).order_by("number"))
    now = services.now_ms() + 60_000
    services.game_tick(game_id=game.pk, now=now)
    over = False
    while not over:
        game.refresh_from_db()
        found = find_set(parse_cards(game.state["board"]))
        now += 500
        with django_capture_on_commit_callbacks() as callbacks:
            done = services.move_submit(
                game_id=game.pk,
                seat=store.seat_by_token(seats[0].token),
                action={"type": "claim", "cards": [card.protocol for card in found]},
                now=now,
            )
        over = done.game.status == Game.Status.OVER
    told.clear()
    with django_assert_num_queries(0):
        for callback in callbacks:
            callback()
    finishes = [(u, e["game"]["id"]) for u, e in told if e["type"] == "gameFinish"]
    assert sorted(finishes) == sorted((a[0].pk, game.pk) for a in accounts[:2])


def test_one_who_may_not_sit_when_the_table_is_made_leaves_and_the_others_sit_without_them(
    accounts, settings, monkeypatch
):
    """A table's player refused as it is made (here: told to wait before rated play after
    entering the pool) leaves the pool; nothing of that table is written; the others wait on
    and sit with the next who comes."""
    ada, bob, cy = accounts[:3]
    for account in (ada, bob):
        play(account[1], mode="set-classic", rated=True)
    until = timezone.now() + datetime.timedelta(minutes=20)
    monkeypatch.setattr(
        manners,
        "rated_wait",
        lambda user_id, **kw: (
            {"until": until, "leaves": [], "minutes": 20} if user_id == ada[0].pk else None
        ),
    )
    settings.POOL_WAIT_LIMIT_S = 0
    assert pool.pool_pair("set:set-classic:rated") == []
    assert not Game.objects.exists() and not Seat.objects.exists()
    assert PoolEntry.objects.get(user=ada[0]).status == "left"
    assert PoolEntry.objects.get(user=bob[0]).status == "waiting"
    play(cy[1], mode="set-classic", rated=True)
    game = Game.objects.get()
    names = [s.player.user.get_username() for s in Seat.objects.filter(game=game)]
    assert sorted(names) == ["bob", "cy"]


def test_a_square_table_is_made_for_its_number_of_players(accounts, settings):
    settings.POOL_WAIT_LIMIT_S = 0
    play(accounts[0][1], kind="square")
    assert Game.objects.count() == 0
    play(accounts[1][1], kind="square")  # both past a limit of 0 s: seated at once
    game = Game.objects.get()
    assert game.options["players"] == 2 and game.status == Game.Status.ACTIVE


def test_far_ratings_wait_and_blocked_accounts_never_sit_together(accounts, settings):
    ada, bob, cy, dee = accounts[:4]
    now = timezone.now()
    Rating.objects.create(user=dee[0], mode="set-classic", mu=2400, sigma=100, updated=now)
    Block.objects.create(blocker=ada[0], blocked=bob[0])
    for account in (ada, bob, cy, dee):
        play(account[1], mode="set-classic", rated=True)
    assert not Game.objects.exists()  # dee is 900 above, ada and bob apart: no table of 4
    settings.POOL_WAIT_LIMIT_S = 0
    pool.pool_pair("set:set-classic:rated")
    games = list(Game.objects.all())
    pairs = [{s.player.user.get_username() for s in Seat.objects.filter(game=g)} for g in games]
    assert all(not {"ada", "bob"} <= names for names in pairs)
    seated = set().union(*pairs)
    assert len(seated) == sum(len(p) for p in pairs)  # nobody twice
    assert len(seated) == 4


def test_pairing_twice_seats_nobody_twice(accounts, settings):
    settings.POOL_WAIT_LIMIT_S = 0
    for account in accounts[:2]:
        pool.pool_enter(
            player=pool_player(account[0]),
            pool="arena:1",
            kind="set",
            mode="set-classic",
            options={"rules": "classic"},
            rated=False,
        )
    first = pool.pool_pair("arena:1")
    again = pool.pool_pair("arena:1")
    assert len(first) == 1 and again == []
    assert Game.objects.count() == 1 and Seat.objects.count() == 2


def test_an_arena_records_its_tables_in_the_pairing_transaction(accounts, settings):
    settings.POOL_WAIT_LIMIT_S = 0
    for account in accounts[:3]:
        pool.pool_enter(
            player=pool_player(account[0]),
            pool="arena:9",
            kind="square",
            mode="square",
            options={"players": 2},
            rated=True,
        )
    seen = []
    made = pool.pool_pair("arena:9", on_table=lambda table: seen.append(table))
    assert seen == made and len(made) == 1
    table = made[0]
    assert [e.user_id for e in table.entries] == [a[0].pk for a in accounts[:3]]
    assert Game.objects.get(pk=table.game.pk).options["players"] == 3


def pool_player(user):
    from games.auth import account_player

    return account_player(user, create=True)


def test_the_pool_is_in_the_schema():
    schema = Client().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    paths = schema["paths"]["/api/pool"]
    assert {"202", "400", "401", "403", "429"} <= set(paths["post"]["responses"])
    assert "examples" in json.dumps(paths["post"]) and "200" in paths["get"]["responses"]
    assert "delete" in paths


# -- the timer ------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_timer_seats_two_after_the_wait_limit(settings):
    """Two players of one pool: nobody sits at once; the timer set on the event loop for the
    wait limit seats them, with no request meanwhile."""
    settings.POOL_WAIT_LIMIT_S = 0.3
    ada, bob = make_account("ada"), make_account("bob")

    async def scenario():
        realtime.attach_loop()  # the loop a server's requests are served on
        # Requests on the game-database threads (their connections are closed after the tests).
        await runtime.run_db(play, ada[1])
        await runtime.run_db(play, bob[1])
        assert await runtime.run_db(Game.objects.count) == 0
        for _ in range(40):
            await asyncio.sleep(0.1)
            if await runtime.run_db(Game.objects.count):
                break
        return await runtime.run_db(
            lambda: sorted(s.player.name for s in Seat.objects.select_related("player"))
        )

    assert asyncio.run(scenario()) == ["ada", "bob"]


def test_a_restart_pairs_who_waited_on_the_next_request(accounts, settings):
    settings.POOL_WAIT_LIMIT_S = 5
    for account in accounts[:2]:
        play(account[1])
    PoolEntry.objects.update(since=timezone.now() - datetime.timedelta(seconds=30))
    pool._resumed = False  # as a process just started
    state = call("get", accounts[0][1]).json()
    assert state["waiting"] is None and state["seated"] is not None
    assert Game.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_processes_pairing_at_once_never_seat_one_player_twice(settings):
    """Two pairings of one pool at the same moment (two server processes): each player sits at
    one table. On SQLite the second waits for the first's IMMEDIATE transaction and finds them
    seated; on PostgreSQL it finds the pool being paired (an advisory lock, tried) and returns
    at once, its thread never held on the first's locks (the pool is tried again a moment
    later by the server's timer)."""
    import threading
    import time

    from django.db import connection as main_connection
    from django.db import connections

    settings.POOL_WAIT_LIMIT_S = 0
    users = [make_account(f"p{n}")[0] for n in range(8)]
    for user in users:
        pool.pool_enter(
            player=pool_player(user),
            pool="arena:race",
            kind="square",
            mode="square",
            options={"players": 2},
            rated=False,
        )
    barrier = threading.Barrier(2)
    made: list[list] = []
    errors: list[BaseException] = []

    def slow(table):
        time.sleep(0.2)  # the other pairing runs meanwhile

    took: list[float] = []

    def pair():
        try:
            barrier.wait()
            began = time.perf_counter()
            made.append(pool.pool_pair("arena:race", on_table=slow))
            took.append(time.perf_counter() - began)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=pair) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    seats = list(Seat.objects.values_list("player__user_id", flat=True))
    assert sorted(seats) == sorted(u.pk for u in users), main_connection.vendor  # each once
    assert sum(len(tables) for tables in made) == Game.objects.count() == 2
    assert set(PoolEntry.objects.values_list("status", flat=True)) == {"seated"}
    if main_connection.vendor == "postgresql":
        assert sorted(len(tables) for tables in made) == [0, 2]
        assert min(took) < 0.2 < max(took), took  # the busy one did not wait for two tables


def test_the_admin_lists_who_waits(accounts):
    play(accounts[0][1], mode="set-classic", rated=True)
    staff = get_user_model().objects.create_superuser("root", password="x" * 12)
    browser = Client()
    browser.force_login(staff)
    page = browser.get("/admin/games/poolentry/")
    assert page.status_code == 200 and b"set:set-classic:rated" in page.content


# -- the lobby socket -----------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_lobby_socket_has_the_counts_and_a_guest_hears_its_game_start(settings):
    """Each lobby frame has the pools' counts; an entry pushes them; a guest seated from a pool
    hears gameStart on its lobby socket (by its session), as an account does by its group."""
    from asgiref.sync import async_to_sync
    from channels.testing import WebsocketCommunicator
    from django.core.cache import cache

    from config.asgi import application
    from games import lobby_consumer, presence
    from games.auth import session_credential
    from tests.games.conftest import SAME_ORIGIN
    from tests.games.test_lobby_live import session_of

    settings.LOBBY_REFRESH_S = 0.05
    settings.POOL_WAIT_LIMIT_S = 0
    cache.delete(presence.KEY)
    lobby_consumer._pool_counts[:] = [0.0, None]  # another test database's counts
    ada = make_account("ada")
    guest = Player.objects.create(name="gus")
    cookie = session_of(guest)

    async def frame_of(socket, kind):
        while True:
            frame = await socket.receive_json_from(timeout=5)
            if frame["type"] == kind:
                return frame

    async def run():
        headers = [*SAME_ORIGIN, (b"cookie", f"sessionid={cookie}".encode())]
        socket = WebsocketCommunicator(application, "/ws/lobby/", headers=headers)
        assert (await socket.connect())[0]
        assert (await frame_of(socket, "lobby"))["pools"] == {}
        await runtime.run_db(
            pool.pool_enter,
            player=guest,
            pool="square:square:casual",
            kind="square",
            mode="square",
            options={"players": 2},
            rated=False,
            credential=session_credential(cookie),
        )
        assert (await frame_of(socket, "pools"))["pools"] == {"square:square:casual": 1}
        await runtime.run_db(play, ada[1], kind="square")
        start = await frame_of(socket, "gameStart")
        assert start["game"]["pool"] == "square:square:casual"
        assert start["game"]["url"].startswith(f"/square/{start['game']['id']}/?key=")
        assert (await frame_of(socket, "pools"))["pools"] == {}
        await socket.disconnect()

    async_to_sync(run)()
    cache.delete(presence.KEY)


def test_a_registered_pool_is_paired_by_its_rules_after_a_restart(accounts, monkeypatch):
    from games.pairing import PairingRules

    monkeypatch.setattr(pool, "_registered", {})
    seen = []
    pool.pools_register(
        "arena:",
        rules=lambda: PairingRules(wait_limit_ms=0),
        on_table=lambda table: seen.append(table.game.pk),
    )
    for account in accounts[:2]:
        pool.pool_enter(
            player=pool_player(account[0]),
            pool="arena:5",
            kind="set",
            mode="set-classic",
            options={"rules": "classic"},
            rated=False,
        )
    pool.pool_resume(force=True)  # as the first pool request after a restart
    assert seen == [Game.objects.get().pk]


def test_two_entries_of_one_player_at_once_are_a_409_not_a_500(accounts, monkeypatch):
    play(accounts[0][1])
    # As a second request would find it, had it read before the first one's entry committed.
    monkeypatch.setattr(pool, "_leave", lambda player, now: 0)
    again = play(accounts[0][1], kind="square")
    assert again.status_code == 409 and "another request" in again.json()["detail"]
    assert PoolEntry.objects.filter(status="waiting").count() == 1


def test_play_now_pauses_the_arenas_one_plays_in_so_they_do_not_take_one_back(accounts):
    """An arena's pool takes back whoever joined it, is not paused and sits at no table; Play
    now pauses the player there (Join comes back), so the arena does not pull them out of the
    Play now pool at its next look."""
    from django.utils import timezone

    from games import tournaments
    from games.models import TournamentPlayer

    user, token = accounts[0]
    arena = tournaments.tournament_create(
        user=None,
        kind="square",
        options={"mode": "square"},
        starts_at=timezone.now(),
        minutes=10,
    )
    tournaments.tournament_join(tournament_id=arena.pk, user=user)
    assert PoolEntry.objects.get(status="waiting").pool == f"arena:{arena.pk}"
    assert play(token, mode="set-classic").status_code == 202
    assert TournamentPlayer.objects.get(tournament=arena, user=user).paused
    tournaments.tick(tournaments.tournament_of(arena.pk))  # the arena looks again
    assert [e.pool for e in PoolEntry.objects.filter(status="waiting")] == [
        "set:set-classic:casual"
    ]


def test_a_play_now_refused_leaves_the_arenas_one_plays_in_as_they_were(accounts, monkeypatch):
    """Play now pauses one's arenas only when it puts one in its pool: refused (here a rated
    Play now for an account that must wait before playing rated), the player still plays the
    arena, waiting in its pool."""
    from games import tournaments
    from games.models import TournamentPlayer

    user, token = accounts[0]
    arena = tournaments.tournament_create(
        user=None, kind="square", options={"mode": "square"}, starts_at=timezone.now(), minutes=10
    )
    tournaments.tournament_join(tournament_id=arena.pk, user=user)
    until = timezone.now() + datetime.timedelta(minutes=20)
    monkeypatch.setattr(
        manners, "rated_wait", lambda user_id, **kw: {"until": until, "leaves": [], "minutes": 20}
    )
    refused = play(token, mode="set-classic", rated=True)
    assert refused.status_code == 403 and "rated" in refused.json()["detail"]
    assert not TournamentPlayer.objects.get(tournament=arena, user=user).paused
    assert [e.pool for e in PoolEntry.objects.filter(status="waiting")] == [f"arena:{arena.pk}"]
