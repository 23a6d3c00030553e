"""Ratings beside the names in the lobbies (issue 16, item 3): the Set lobby's tables and the
Square Game's lists show each account seat's rating in the game's mode at a rated game, and mark
guests; the ratings of all the listed games are read in one query."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import ratings, selectors, services
from games.models import Game, Player, Rating

pytestmark = pytest.mark.django_db
SET_OPTIONS = {"rules": "classic", "attributes": 4}


def account(name: str) -> Player:
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    return Player.objects.create(name=name, user=user)


def rate(player: Player, mode: str, mu: float, games: int) -> None:
    Rating.objects.create(
        user=player.user, mode=mode, mu=mu, sigma=300, games=games, updated=timezone.now()
    )


def table(*players: Player, rated: bool = True, kind: str = "set") -> Game:
    """A table of these players. A rated table seats accounts only; one with a guest is made as
    a game stored before that rule (seated, then marked rated), whose lists mark the guest."""
    options = SET_OPTIONS if kind == "set" else {"players": 4}
    guests = any(player.user_id is None for player in players)
    game = services.game_create(
        kind=kind, options=options, is_open=True, rated=rated and not guests
    )
    for player in players:
        services.game_join(game_id=game.pk, player=player)
    if rated and guests:
        Game.objects.filter(pk=game.pk).update(rated=True)
        game.refresh_from_db()
    return game


def players_cell(html: str, list_id: str, game: Game) -> str:
    listed = html.split(f'id="{list_id}"', 1)[1]
    return re.search(rf'data-game="{game.pk}".*?</tr>', listed, re.S).group(0)


def test_seat_ratings_of_reads_each_game_in_its_own_mode():
    set_mode = ratings.mode_of("set", SET_OPTIONS)
    ann, bob = account("ann"), account("bob")
    rate(ann, set_mode, 1623.4, 7)
    rate(ann, "square", 1400, 2)
    rate(bob, "square", 1710, 9)
    at_set, at_square = table(ann, bob), table(ann, bob, kind="square")
    unrated = table(ann, rated=False)
    with CaptureQueriesContext(connection) as queries:
        shown = selectors.seat_ratings_of([at_set, at_square, unrated])
    assert len(queries) == 1
    assert shown == {
        at_set.pk: {"ann": {"rating": 1623, "games": 7}, "bob": {"rating": 1500, "games": 0}},
        at_square.pk: {"ann": {"rating": 1400, "games": 2}, "bob": {"rating": 1710, "games": 9}},
    }
    assert selectors.seat_ratings(at_square) == shown[at_square.pk]
    with CaptureQueriesContext(connection) as none:
        assert selectors.seat_ratings_of([unrated]) == {} and selectors.seat_ratings(unrated) == {}
    assert len(none) == 0


def test_the_set_lobby_shows_the_ratings_at_a_rated_table_and_marks_guests(client):
    ann, bob = account("ann"), account("bob")
    rate(ann, ratings.mode_of("set", SET_OPTIONS), 1642.2, 6)
    rated = table(ann, bob)
    guest = Player.objects.create(name="zoe")
    unrated = table(ann, guest, rated=False)

    html = client.get("/").content.decode()
    cell = players_cell(html, "open-tables", rated)
    assert re.search(r"ann <span class=\"seat-rating\"[^>]*>1642</span>", cell)
    assert re.search(r"bob <span class=\"seat-rating\"[^>]*>1500</span>", cell)
    assert "rated</span>" in cell and "guest" not in cell

    cell = players_cell(html, "open-tables", unrated)
    assert "seat-rating" not in cell  # not rated: no ratings
    assert re.search(r"zoe <span class=\"badge badge-guest\"[^>]*>guest</span>", cell)
    assert not re.search(r"ann <span class=\"badge badge-guest\"", cell)


def test_the_square_lists_show_the_ratings_at_a_rated_game_and_mark_guests(client):
    ann = account("ann")
    rate(ann, "square", 1588, 5)
    game = table(ann, Player.objects.create(name="zoe"), kind="square")
    html = client.get("/square/").content.decode()
    cell = players_cell(html, "square-waiting", game)
    assert re.search(r"ann <span class=\"seat-rating\"[^>]*>1588</span>", cell)
    assert re.search(r"zoe <span class=\"badge badge-guest\"[^>]*>guest</span>", cell)


@pytest.mark.parametrize("url", ["/", "/square/"])
def test_the_lobbies_read_as_many_queries_for_many_rated_games_as_for_one(client, url):
    kind = "set" if url == "/" else "square"
    players = [account(name) for name in ("ann", "bob", "cid", "dee")]
    rate(players[0], ratings.mode_of(kind, SET_OPTIONS if kind == "set" else {}), 1600, 5)
    table(*players[:2], kind=kind)
    table(players[0], Player.objects.create(name="zoe"), kind=kind)
    client.get(url)  # the first request of a client may set up its session
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200

    for n in range(6):
        table(players[n % 4], players[(n + 1) % 4], kind=kind)
        table(players[n % 4], Player.objects.create(name=f"guest{n}"), kind=kind, rated=False)
    with CaptureQueriesContext(connection) as many:
        html = client.get(url).content.decode()
    assert html.count("seat-rating") >= 2 * 7
    assert len(many) == len(few), "\n".join(q["sql"][:200] for q in many.captured_queries)
