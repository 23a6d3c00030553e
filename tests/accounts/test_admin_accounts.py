"""The admin's accounts (issue 16, item 8): an account's page shows its ratings, its latest games
(linked to their pages, with what each rated game did to its rating) and its API tokens, never a
token's digest, in a number of queries that does not grow with its games."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.admin import AccountAdmin
from accounts.tokens import token_create
from games import services
from games.models import Player, Rating, RatingChange

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", password="x" * 12))
    return client


def account(name: str) -> Player:
    user = get_user_model().objects.create_user(name, password="correct horse battery")
    return Player.objects.create(name=name, user=user)


def games_of(player: Player, count: int, *, rated: bool = False) -> list[int]:
    """Square games the player sits at (waiting for a second player)."""
    ids = []
    for _ in range(count):
        game = services.game_create(kind="square", options={"players": 2}, rated=rated)
        services.game_join(game_id=game.pk, player=player)
        ids.append(game.pk)
    return ids


def rated_in(game_id: int, user, *, before: float, after: float) -> None:
    now = timezone.now()
    RatingChange.objects.create(
        game_id=game_id,
        user=user,
        mode="square",
        rank=0,
        mu_before=before,
        sigma_before=500,
        mu_after=after,
        sigma_after=450,
        created=now,
    )
    Rating.objects.update_or_create(
        user=user,
        mode="square",
        defaults={"mu": after, "sigma": 450.4, "games": 1, "updated": now},
    )


def test_an_account_page_shows_its_ratings_games_and_tokens_but_no_digest(staff):
    ann = account("ann")
    first, second = games_of(ann, 2, rated=True)
    rated_in(first, ann.user, before=1500, after=1561.7)
    token, secret = token_create(user=ann.user, name="my bot")

    response = staff.get(f"/admin/auth/user/{ann.user_id}/change/")
    assert response.status_code == 200
    page = response.content.decode()
    # The rating, rounded as the site shows it, with its uncertainty and games.
    assert "1562" in page and "450" in page and "square" in page
    # Both games, each linked to its admin page, the rated one with what it did to the rating.
    for game_id in (first, second):
        assert f"/admin/games/game/{game_id}/change/" in page
    assert "square: 1500 → 1562 (+62)" in page
    # The token by its name, never its digest nor the token itself.
    assert "my bot" in page
    assert token.digest not in page and secret not in page
    # The site's CSP: no inline style nor inline script.
    assert "style=" not in page
    assert not re.search(r"<script(?![^>]*\ssrc=)[^>]*>", page)


def test_the_account_list_counts_rated_games(staff):
    ann, bob = account("ann"), account("bob")
    for game_id in games_of(ann, 3, rated=True)[:2]:
        rated_in(game_id, ann.user, before=1500, after=1550)
    games_of(bob, 1)

    response = staff.get("/admin/auth/user/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "rated games" in page.lower()
    rows = {
        name: re.search(rf">{name}</a>.*?</tr>", page, re.S).group(0) for name in ("ann", "bob")
    }
    assert '<td class="field-rated_games">2</td>' in rows["ann"]
    assert '<td class="field-rated_games">0</td>' in rows["bob"]


def test_an_account_page_reads_a_bounded_number_of_queries(staff):
    ann = account("ann")
    token_create(user=ann.user, name="one")
    for game_id in games_of(ann, 2, rated=True):
        rated_in(game_id, ann.user, before=1500, after=1520)
    url = f"/admin/auth/user/{ann.user_id}/change/"
    staff.get(url)  # once first: Django caches the content types per process on a first read
    with CaptureQueriesContext(connection) as few:
        assert staff.get(url).status_code == 200

    for game_id in games_of(ann, 8, rated=True):
        rated_in(game_id, ann.user, before=1520, after=1540)
    token_create(user=ann.user, name="two")
    token_create(user=ann.user, name="three")
    with CaptureQueriesContext(connection) as many:
        page = staff.get(url).content.decode()
    assert page.count("/admin/games/game/") >= 10
    assert len(many) == len(few), "\n".join(q["sql"][:150] for q in many.captured_queries)


def test_an_account_page_lists_only_its_latest_games(staff, monkeypatch):
    monkeypatch.setattr(AccountAdmin, "games_shown", 3)
    ann = account("ann")
    ids = games_of(ann, 5)
    page = staff.get(f"/admin/auth/user/{ann.user_id}/change/").content.decode()
    assert "3 of 5 games, newest first" in page
    assert f"/admin/games/game/{ids[-1]}/change/" in page
    assert f"/admin/games/game/{ids[0]}/change/" not in page


def test_the_add_and_password_pages_still_load(staff):
    ann = account("ann")
    assert staff.get("/admin/auth/user/add/").status_code == 200
    assert staff.get(f"/admin/auth/user/{ann.user_id}/password/").status_code == 200
