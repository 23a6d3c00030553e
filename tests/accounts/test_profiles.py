"""Profiles (issue 16, items 4 and 6): /u/<name> and GET /api/users/<name> show an account's
ratings with their history, its totals over its finished games and its last games."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from cards.engine.table.base import START_MS
from games import profiles, ratings, services
from games.models import Game, Player, RatingChange
from games.rules import get_rules

pytestmark = pytest.mark.django_db
T = 1_800_000_000_000


def account(name: str) -> Player:
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    return Player.objects.create(name=name, user=user)


def play_set_table(
    players, *, rated=True, attributes=3, finder=lambda turn: turn % 3 != 2, is_open=True
):
    """A classic table of these players (an open one unless told), played to its end:
    `finder(turn)` says whether the first player (else the second) claims the next set, 1 to 3
    seconds apart."""
    game = services.game_create(
        kind="set",
        options={"rules": "classic", "attributes": attributes},
        now=T,
        rated=rated,
        is_open=is_open,
    )
    seats = [services.game_join(game_id=game.pk, player=p, now=T) for p in players]
    # Everyone seated, the first starts it: dealt at T, as the figures count from there.
    services.move_submit(game_id=game.pk, seat=seats[0], action={"type": "start"}, now=T - START_MS)
    services.game_tick(game_id=game.pk, now=T)
    at = T
    for turn in range(200):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            break
        seat = seats[0] if finder(turn) or len(seats) == 1 else seats[1]
        actions = get_rules("set").bot_actions(game.state, seat.name)
        at += 1000 + 1000 * (turn % 3)
        services.move_submit(game_id=game.pk, seat=seat, action=actions[0], now=at)
    assert game.status == Game.Status.OVER
    return game, seats


def test_the_set_tables_figures_count_sets_seconds_and_wins():
    ann, bob = account("ann"), account("bob")
    game, seats = play_set_table([ann, bob])
    figures = profiles.finished_stats([game.pk])[game.pk]
    tally = game.state["tally"]
    assert figures["ann"]["sets_found"] == tally["ann"]["sets"] > figures["bob"]["sets_found"]
    assert figures["ann"]["games_won"] == 1 and figures["bob"]["games_won"] == 0
    # Each set's seconds: from the previous set at the table (1, 2 or 3 s apart here).
    seconds = figures["ann"]["seconds_per_set"] + figures["bob"]["seconds_per_set"]
    assert len(seconds) == tally["ann"]["sets"] + tally["bob"]["sets"]
    assert set(seconds) <= {1.0, 2.0, 3.0}
    assert figures["ann"]["solitaire_seconds"] == []  # two players: not solitaire


def test_a_solitaire_game_has_a_time_and_a_hinted_one_has_none():
    solo = account("solo")
    game, _ = play_set_table([solo], rated=False, attributes=4)
    first, *_, last = game.moves.order_by("seq").values_list("at_ms", flat=True)
    figures = profiles.finished_stats([game.pk])[game.pk]["solo"]
    assert figures["solitaire_seconds"] == [(last - first) / 1000]
    assert figures["games_won"] == 0  # nobody is beaten alone

    hinted = services.game_create(kind="set", options={"start": "now", "rules": "classic"}, now=T)
    seat = services.game_join(game_id=hinted.pk, player=solo, now=T)
    services.move_submit(game_id=hinted.pk, seat=seat, action={"type": "hint"}, now=T + 5)
    for turn in range(60):
        hinted.refresh_from_db()
        if hinted.status == Game.Status.OVER:
            break
        actions = get_rules("set").bot_actions(hinted.state, seat.name)
        services.move_submit(game_id=hinted.pk, seat=seat, action=actions[0], now=T + 10 + turn)
    assert profiles.finished_stats([hinted.pk])[hinted.pk]["solo"]["solitaire_seconds"] == []


def test_a_finished_games_figures_are_computed_once(django_assert_num_queries):
    ann, bob = account("ann"), account("bob")
    game, _ = play_set_table([ann, bob])
    with django_assert_num_queries(2):  # the log, the game
        first = profiles.finished_stats([game.pk])
    with django_assert_num_queries(0):
        assert profiles.finished_stats([game.pk]) == first


def test_the_api_answers_an_accounts_ratings_and_totals(client):
    ann, bob = account("Zoë"), account("bob")
    game, _ = play_set_table([ann, bob])
    play_set_table([ann, bob], rated=False, finder=lambda turn: turn % 3 == 2)
    response = client.get("/api/users/ZOë")  # names are compared ignoring case
    assert response.status_code == 200
    body = response.json()
    assert body["name"] == "Zoë"
    rating = body["ratings"]["set-classic-3"]
    assert rating["games"] == 1 and rating["rating"] > ratings.MU
    assert list(body["ratings"]) == ["set-classic-3"]  # only the modes played
    stats = body["stats"]
    assert stats["games_played"] == 2 and stats["games_won"] == 1
    assert stats["sets_found"] > 0 and stats["wrong_claims"] == 0
    per_set = stats["seconds_per_set"]
    assert per_set["count"] == stats["sets_found"] and per_set["best"] == 1.0
    assert 1.0 <= per_set["mean"] <= 3.0
    assert stats["solitaire_seconds"] == {"count": 0, "mean": None, "best": None}
    assert stats["games_won"] <= stats["games_played"]


def test_an_account_that_played_nothing_has_every_field_at_zero(client):
    account("quiet")
    body = client.get("/api/users/quiet").json()
    assert body == {
        "name": "quiet",
        "bot": False,
        "computer_speed": None,
        "ratings": {},
        "stats": {
            "games_played": 0,
            "games_won": 0,
            "sets_found": 0,
            "wrong_claims": 0,
            "seconds_per_set": {"count": 0, "mean": None, "best": None},
            "solitaire_seconds": {"count": 0, "mean": None, "best": None},
            "puzzle_seconds": {"count": 0, "mean": None, "best": None},
            "race_10_seconds": {"count": 0, "mean": None, "best": None},
            "race_20_seconds": {"count": 0, "mean": None, "best": None},
            "race_30_seconds": {"count": 0, "mean": None, "best": None},
        },
    }


@pytest.mark.parametrize("name", ["nobody", "a" * 300, "nul\x00", "<b>x"])
def test_no_such_account_is_a_404_naming_it(client, name):
    response = client.get(f"/api/users/{name}")
    assert response.status_code == 404
    assert "no account named" in response.json()["detail"]
    page = client.get(f"/u/{name}")
    assert page.status_code == 404


def test_the_user_endpoint_is_in_the_schema(client):
    paths = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()["paths"]
    assert "/api/users/{name}" in paths
    assert "200" in paths["/api/users/{name}"]["get"]["responses"]


def test_the_profile_page_shows_ratings_with_a_chart_totals_and_games(client):
    ann, bob = account("ann"), account("bob")
    games = [play_set_table([ann, bob])[0] for _ in range(2)]
    page = client.get("/u/ann")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Set classic, 3 attributes" in html
    rating = ratings.shown(RatingChange.objects.filter(user=ann.user).latest("created").mu_after)
    assert f'<td class="rating">{rating}</td>' in html
    # The history chart: a line through the start and both games, with its numbers.
    # (The insights, further down, have charts of their own.)
    ratings_part = html.split('id="insights"')[0]
    assert ratings_part.count('<svg class="chart"') == 1 and "<polyline" in ratings_part
    chart = html.split('<svg class="chart"')[1].split("</svg>")[0]
    assert chart.count('class="series-0 mark"') == 3
    assert "game by game" in html
    for game in games:
        assert f'href="/games/{game.pk}/replay/"' in html
    assert 'data-field="games_played">2<' in html
    assert "Sets found" in html and "Seconds per set" in html


def test_the_profile_is_at_the_names_own_case_and_without_a_slash(client):
    account("Ólafur")
    account("Ada")
    assert client.get("/u/ADA")["Location"] == "/u/Ada"
    assert client.get("/u/Ólafur/").status_code == 301
    assert client.get("/u/Ólafur").status_code == 200


def test_the_profile_page_queries_do_not_grow_with_games(client, django_assert_max_num_queries):
    ann, bob = account("ann"), account("bob")
    for _ in range(3):
        play_set_table([ann, bob])
    client.get("/u/ann")  # the games' figures are cached from here on
    with django_assert_max_num_queries(14):
        assert client.get("/u/ann").status_code == 200


def test_the_header_and_the_leaderboard_link_to_profiles(client):
    ann = account("ann")
    client.force_login(ann.user)
    assert 'href="/u/ann"' in client.get("/").content.decode()
    ratings_of = {"ann": 1700.0}
    from django.utils import timezone

    from games.models import Rating

    Rating.objects.create(
        user=ann.user,
        mode="square",
        mu=ratings_of["ann"],
        sigma=100,
        games=5,
        updated=timezone.now(),
    )
    assert 'href="/u/ann"' in client.get("/leaderboard/square/").content.decode()


def test_an_account_makes_and_revokes_tokens_on_its_profile_and_others_see_none(client):
    ann = account("ann")
    account("bob")
    client.force_login(ann.user)
    made = client.post("/accounts/tokens/", {"name": "my bot", "next": "/u/ann"})
    assert made.status_code == 200 and 'id="new-token"' in made.content.decode()
    token = ann.user.access_tokens.get()
    page = client.get("/u/ann").content.decode()
    assert "my bot" in page and f'name="revoke" value="{token.pk}"' in page
    revoked = client.post("/accounts/tokens/", {"revoke": token.pk, "next": "/u/ann"})
    assert revoked["Location"] == "/u/ann"
    token.refresh_from_db()
    assert token.revoked is not None
    # Elsewhere (another page, another site), a revoke comes back to the tokens page.
    again = client.post("/accounts/tokens/", {"revoke": token.pk, "next": "https://evil.example/"})
    assert again["Location"] == "/accounts/tokens/"
    assert "my bot" not in client.get("/u/bob").content.decode()
    client.logout()
    assert "my bot" not in client.get("/u/ann").content.decode()


def test_guests_are_marked_on_profiles_and_replays_and_accounts_linked(client):
    ann = account("ann")
    guest = Player.objects.create(name="visitor")
    game, _ = play_set_table([ann, guest], rated=False)
    html = client.get("/u/ann").content.decode()
    row = html.split(f'data-game="{game.pk}"')[1].split("</tr>")[0]
    assert "visitor" in row and "badge-guest" in row
    bob = account("bob")
    play_set_table([bob, ann], rated=False)
    assert 'href="/u/bob"' in client.get("/u/ann").content.decode()
    replay = client.get(f"/games/{game.pk}/replay/").content.decode()
    assert replay.count("badge-guest") == 1  # the visitor, not ann
