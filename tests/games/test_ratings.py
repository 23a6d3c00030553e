"""Ratings (issue 16, item 3): a game created rated moves its accounts' ratings when it ends, in
the transaction of its last move and once only; guests, computers and hints leave it unrated."""

from __future__ import annotations

import datetime
import random

import pytest
from django.contrib.auth import get_user_model

from cards.engine.table.base import START_MS
from games import ratings, selectors, services, store
from games.errors import Forbidden, RuleError
from games.models import Game, Player, Rating, RatingChange
from games.rules import get_rules
from squaregame.engine import GameState, choose_move

pytestmark = pytest.mark.django_db
T = 1_800_000_000_000


def account(name: str) -> Player:
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    return Player.objects.create(name=name, user=user)


def square_game(players: list[Player | None], *, rated=True) -> tuple[Game, list]:
    """A Square game of these seats (None: a guest), played to its end: seat 1 places what the
    computer would, the others pass."""
    game = services.game_create(
        kind="square", options={"players": len(players)}, seed=3, now=T, rated=rated, is_open=True
    )
    seats = [
        services.game_join(
            game_id=game.pk, player=player, name=None if player else f"guest{n}", now=T
        )
        for n, player in enumerate(players)
    ]
    for turn in range(400):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            break
        state = GameState.from_dict(game.state["game"])
        seat = seats[state.to_move - 1]
        places = state.to_move == 1 or not state.started  # the opening is anyone's
        action = choose_move(state, random.Random(turn)) if places else {"type": "pass"}
        services.move_submit(game_id=game.pk, seat=seat, action=action, now=T + turn)
    assert game.status == Game.Status.OVER
    return game, seats


def test_a_rated_game_of_accounts_moves_the_winner_up_and_the_loser_down_once():
    ann, bob = account("ann"), account("bob")
    game, _ = square_game([ann, bob])
    winners = set(get_rules("square").view(game.state, None, T)["winner_names"])
    assert winners == {"ann"}
    up = Rating.objects.get(user=ann.user, mode="square")
    down = Rating.objects.get(user=bob.user, mode="square")
    assert up.mu > ratings.MU > down.mu and up.games == down.games == 1
    assert up.sigma < ratings.SIGMA and down.sigma < ratings.SIGMA
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    assert changes[ann.user_id].rank == 0 and changes[bob.user_id].rank == 1
    assert changes[ann.user_id].mu_after == up.mu and changes[bob.user_id].mu_before == ratings.MU

    # The job of the last move, run again (a retry of a write that had committed): no game is
    # rated twice.
    ran = store.run(ratings.rate_ended(game.pk, "square", game.state))
    assert ran.value == []
    assert RatingChange.objects.filter(game=game).count() == 2
    assert Rating.objects.get(user=ann.user, mode="square").mu == up.mu


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(ratings.Seated("guest", None, False), id="a guest"),
        pytest.param(ratings.Seated("Computer1", None, True), id="a computer"),
        pytest.param(ratings.Seated("ann2", 1, False), id="one account in two seats"),
    ],
)
def test_a_seat_that_is_not_another_account_makes_a_game_unrated(other):
    state = {"game": {"winners": [1]}, "names": ["ann", other.name]}
    seats = [ratings.Seated("ann", 1, False), other]
    assert ratings.standing("square", {"players": 2}, state, seats) is None
    alone = [ratings.Seated("ann", 1, False), ratings.Seated(other.name, 2, False)]
    assert ratings.standing("square", {"players": 2}, state, alone) == ("square", {1: 0, 2: 1})


def test_a_guest_cannot_sit_at_a_rated_game_and_one_who_sat_earlier_rates_no_one():
    ann = account("ann")
    # Rated means rated: a rated table seats accounts only, so the guest is refused, with why.
    with pytest.raises(Forbidden, match="only players signed in to an account"):
        square_game([ann, None])
    # A game stored before that rule, with a guest seated, played to its end: not rated.
    game, _ = square_game([ann, None], rated=False)
    Game.objects.filter(pk=game.pk).update(rated=True)
    game.refresh_from_db()
    store.run(ratings.rate_ended(game.pk, "square", game.state))
    assert not RatingChange.objects.exists() and not Rating.objects.exists()
    assert selectors.rated_now(game) == (
        False,
        "guest1 has no account: a rated game seats accounts only.",
    )


def test_a_game_not_created_rated_rates_no_one():
    game, _ = square_game([account("ann"), account("bob")], rated=False)
    assert not game.rated and not Rating.objects.exists()


def test_set_war_is_never_rated():
    with pytest.raises(RuleError, match="never rated"):
        services.game_create(kind="setwar", rated=True)


def set_table(*, attributes=3, rated=True):
    game = services.game_create(
        kind="set",
        options={"rules": "classic", "attributes": attributes},
        now=T - START_MS,
        rated=rated,
        is_open=True,
    )
    # A rated table seats its players while it waits, then its first seat starts it.
    ann, bob = account("ann"), account("bob")
    seats = [services.game_join(game_id=game.pk, player=p, now=T - START_MS) for p in (ann, bob)]
    services.move_submit(game_id=game.pk, seat=seats[0], action={"type": "start"}, now=T - START_MS)
    services.game_tick(game_id=game.pk, now=T)
    return game, seats


def claim(game: Game, seat, at: int):
    game.refresh_from_db()
    actions = get_rules("set").bot_actions(game.state, seat.name)
    assert actions, "a set on the board"
    services.move_submit(game_id=game.pk, seat=seat, action=actions[0], now=at)


def test_a_set_table_played_to_the_end_rates_its_mode():
    game, seats = set_table()
    for turn in range(40):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            break
        claim(game, seats[turn % 3 == 2], T + 1000 * turn)  # ann finds two of every three
    assert game.status == Game.Status.OVER
    found = {r.user.username: r for r in Rating.objects.filter(mode="set-classic-3")}
    assert found["ann"].mu > found["bob"].mu and found["ann"].games == 1


def test_a_hinted_set_makes_a_set_table_unrated():
    game, (ann, bob) = set_table(attributes=4)
    rules = get_rules("set")
    claim(game, ann, T + 1)
    game.refresh_from_db()
    assert rules.rating(game.options, game.state)[0] == "set-classic"
    services.move_submit(game_id=game.pk, seat=bob, action={"type": "hint"}, now=T + 2)
    claim(game, bob, T + 3)
    game.refresh_from_db()
    assert rules.rating(game.options, game.state) is None


def test_a_chosen_deck_or_board_size_is_not_rated():
    rules = get_rules("set")
    game, _ = set_table()
    assert rules.rating({**game.options, "board_size": 6}, game.state) is None


@pytest.mark.parametrize("players", range(2, 9))
def test_rating_moves_winners_up_and_losers_down_for_two_to_eight_players(players):
    ranks = {user: user - 1 for user in range(1, players + 1)}
    rated = {r.user_id: r for r in ratings.rate(ranks, {})}
    assert rated[1].mu_after > ratings.MU > rated[players].mu_after
    mus = [rated[user].mu_after for user in range(1, players + 1)]
    assert mus == sorted(mus, reverse=True)
    assert all(r.games == 1 and r.sigma_after < ratings.SIGMA for r in rated.values())


def test_a_tie_between_equals_changes_neither_mu_and_a_tie_with_a_stronger_player_helps():
    even = ratings.rate({1: 0, 2: 0}, {})
    assert all(abs(r.mu_after - ratings.MU) < 1e-6 for r in even)
    strong = {1: (1800.0, 200.0, 30), 2: (1400.0, 200.0, 30)}
    after = {r.user_id: r for r in ratings.rate({1: 0, 2: 0}, strong)}
    assert after[1].mu_after < 1800.0 and after[2].mu_after > 1400.0
    assert after[1].games == after[2].games == 31


def test_the_modes_are_the_kinds_rated_modes_and_not_set_war():
    assert ratings.modes() == [
        "set-classic",
        "set-declare",
        "set-classic-3",
        "set-declare-3",
        "set-classic-5",
        "set-ultra",
        "set-chain",
        # The fork's modes, each rated apart (cards.engine.table.modes).
        "set-junior",
        "set-ultrachain",
        "set-ultra9",
        "set-megaset",
        "set-ghostset",
        "set-shuffle",
        "set-deckpuzzle",
        "set-ultra9puzzle",
        "set-4set",
        "set-4setjr",
        "set-4setjrchain",
        "set-4setjrpuzzle",
        "set-memory",
        "square",
    ]


# --- the leaderboard and where ratings show --------------------------------------------------


def rating_of(name: str, mode: str, mu: float, games: int) -> None:
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    Rating.objects.create(user=user, mode=mode, mu=mu, sigma=100.0, games=games, updated=NOW)


NOW = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)


def test_the_leaderboard_lists_accounts_with_five_rated_games_best_first(client):
    rating_of("ann", "square", 1700.4, 5)
    rating_of("bob", "square", 1800.6, 9)
    rating_of("cy", "square", 2000.0, 4)  # one game short
    rating_of("di", "set-classic", 1900.0, 12)  # another mode
    answer = client.get("/api/leaderboard/square")
    assert answer.status_code == 200
    assert answer.json() == {
        "mode": "square",
        "bots": False,
        "players": [
            {"name": "bob", "rating": 1801, "games": 9, "bot": False},
            {"name": "ann", "rating": 1700, "games": 5, "bot": False},
        ],
    }
    assert client.get("/api/leaderboard/set-declare-3").json() == {
        "mode": "set-declare-3",
        "bots": False,
        "players": [],
    }


def test_the_leaderboard_shows_the_top_hundred():
    for n in range(105):
        rating_of(f"p{n}", "square", 1000.0 + n, 5)
    from games import selectors

    players = selectors.leaderboard("square")["players"]
    assert len(players) == 100 and players[0]["name"] == "p104" and players[-1]["name"] == "p5"


@pytest.mark.parametrize("mode", ["setwar", "chess", "set-declare-5"])
def test_an_unknown_mode_is_a_404_naming_the_modes(client, mode):
    answer = client.get(f"/api/leaderboard/{mode}")
    assert answer.status_code == 404
    detail = answer.json()["detail"]
    assert mode in detail and "set-classic" in detail and "square" in detail
    assert client.get(f"/leaderboard/{mode}/").status_code == 404


def test_the_leaderboard_page_has_a_tab_per_mode_and_the_top_players(client):
    rating_of("ann", "set-classic", 1650.0, 7)
    page = client.get("/leaderboard/")
    assert page.status_code == 200
    html = page.content.decode()
    for mode in ratings.modes():
        assert f'href="/leaderboard/{mode}/"' in html
    assert 'aria-current="page"' in html and "ann" in html and "1650" in html
    square = client.get("/leaderboard/square/").content.decode()
    assert "No one has played 5 rated games" in square
    assert "<script" not in square.split("<main")[-1]  # no inline script: the strict CSP


def test_the_leaderboard_is_in_the_schema(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    assert "/api/leaderboard/{mode}" in schema["paths"]


def test_a_rated_games_detail_shows_its_accounts_ratings(client):
    ann, bob = account("ann"), account("bob")
    game, _ = square_game([ann, bob])
    body = client.get(f"/api/games/{game.pk}/").json()
    assert body["rated"] is True
    up = round(Rating.objects.get(user=ann.user).mu)
    assert body["ratings"]["ann"] == {"rating": up, "games": 1, "change": up - 1500}
    plain = services.game_create(kind="square", options={"players": 2}, is_open=True)
    body = client.get(f"/api/games/{plain.pk}/").json()
    assert body["rated"] is False and body["ratings"] == {}


def test_the_api_creates_a_rated_game_and_refuses_a_rated_set_war(client):
    made = client.post(
        "/api/games/",
        {"kind": "square", "open": True, "options": {"players": 2}, "rated": True},
        content_type="application/json",
    )
    assert made.status_code == 201
    assert Game.objects.get(pk=made.json()["id"]).rated
    refused = client.post(
        "/api/games/",
        {"kind": "square", "open": True, "rated": "yes"},
        content_type="application/json",
    )
    assert refused.status_code == 400 and "rated" in refused.json()["detail"]


def test_the_admin_shows_whether_a_game_rated_and_the_changes(client, django_user_model):
    ann, bob = account("ann"), account("bob")
    game, _ = square_game([ann, bob])
    django_user_model.objects.create_superuser("boss", password="correct horse battery")
    client.login(username="boss", password="correct horse battery")
    page = client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert "Rated: 2 ratings changed" in page and "Rating changes" in page
    ratings_page = client.get("/admin/games/rating/").content.decode()
    assert "ann" in ratings_page and "square" in ratings_page


def test_an_account_creates_a_rated_table_from_the_lobby_and_the_table_says_so(client):
    get_user_model().objects.create_user("ann", password="correct horse battery")
    assert 'name="rated"' not in client.get("/").content.decode()  # guests: no rated tables
    client.login(username="ann", password="correct horse battery")
    assert 'name="rated"' in client.get("/").content.decode()
    form = {"rules": "classic", "attributes": "4", "computers": "0", "speed": "medium"}
    made = client.post("/play/new", {**form, "name": "ann", "rated": "on"})
    assert made.status_code == 302
    game = Game.objects.get()
    assert game.rated
    page = client.get(made.url).content.decode()
    assert "A rated game" in page and 'ann: <strong class="rating">1500</strong>' in page


@pytest.mark.django_db(transaction=True)
def test_the_last_move_on_the_event_loop_rates_in_its_own_transaction():
    """The busiest way in (games.api_fast, WebSockets): the loop's own connection (SQLite) or
    its pool (PostgreSQL, where a lone write is its own transaction) writes the last move and
    the ratings together."""
    from asgiref.sync import async_to_sync

    ann, bob = account("ann"), account("bob")
    game = services.game_create(
        kind="square", options={"players": 2}, seed=3, now=T, rated=True, is_open=True
    )
    seats = [services.game_join(game_id=game.pk, player=p, now=T) for p in (ann, bob)]

    async def play() -> None:
        for turn in range(400):
            head = await services.ahead(game.pk)
            state = GameState.from_dict(head.state["game"])
            if state.over:
                return
            places = state.to_move == 1 or not state.started
            action = choose_move(state, random.Random(turn)) if places else {"type": "pass"}
            seat = seats[state.to_move - 1]
            await services.amove(game_id=game.pk, seat=seat, action=action, now=T + turn)

    try:
        async_to_sync(play)()
    finally:
        store.close_all()
    game.refresh_from_db()
    assert game.status == Game.Status.OVER
    assert RatingChange.objects.filter(game=game).count() == 2
    assert Rating.objects.get(user=ann.user).mu > Rating.objects.get(user=bob.user).mu


def test_a_rated_games_seats_say_how_far_the_game_moved_each_rating(client):
    ann, bob = account("ann"), account("bob")
    game, _ = square_game([ann, bob])
    square_game([ann, bob])  # a later game moves the ratings again
    body = client.get(f"/api/games/{game.pk}/").json()
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    for player in (ann, bob):
        change = changes[player.user_id]
        shown = body["ratings"][player.name]
        assert shown["rating"] == ratings.shown(change.mu_after)  # right after this game
        assert shown["change"] == ratings.shown(change.mu_after) - ratings.shown(change.mu_before)
    assert body["ratings"]["ann"]["change"] > 0 > body["ratings"]["bob"]["change"]
    page = client.get(f"/square/{game.pk}/").content.decode()
    assert 'class="change up"> (+' in page and 'class="change down"> (−' in page
