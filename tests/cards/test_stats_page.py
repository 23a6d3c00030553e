"""The statistics page, /stats/ (issue 16, item 7): a simulation run in the background with its
progress, its charts beside the published values, and the site's own numbers."""

from __future__ import annotations

import datetime
import threading
import time

import pytest
from django.utils import timezone

from cards import stats
from games import services
from games.models import Game, Player
from games.rules import get_rules

pytestmark = pytest.mark.django_db
T = 1_800_000_000_000


def play_set_table(names, *, attributes=4):
    """A classic table of these players, played to its end by taking the first set each turn
    (turns 2 seconds apart, the players in turn)."""
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic", "attributes": attributes}, now=T
    )
    seats = [
        services.game_join(game_id=game.pk, player=Player.objects.create(name=name), now=T)
        for name in names
    ]
    at = T
    for turn in range(200):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            break
        seat = seats[turn % len(seats)]
        actions = get_rules("set").bot_actions(game.state, seat.name)
        at += 2000
        services.move_submit(game_id=game.pk, seat=seat, action=actions[0], now=at)
    assert game.status == Game.Status.OVER
    return game


def wait_done(client, url: str, timeout: float = 20) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(url).json()
        if body["status"] != "running":
            return body
        time.sleep(0.05)
    raise AssertionError(f"the run at {url} did not finish in {timeout} s")


def test_the_page_shows_the_sites_numbers_from_finished_games(client):
    solo = play_set_table(["solo"])
    pair = play_set_table(["ann", "bob"], attributes=3)
    old = play_set_table(["old"])
    now = timezone.now()
    Game.objects.filter(pk=solo.pk).update(finished=now - datetime.timedelta(days=3))
    Game.objects.filter(pk=pair.pk).update(finished=now)
    Game.objects.filter(pk=old.pk).update(finished=now - datetime.timedelta(days=40))
    sets = sum(tally["sets"] for game in (solo, pair) for tally in game.state["tally"].values())

    response = client.get("/stats/")
    assert response.status_code == 200
    page = response.content.decode()
    site = response.context["site"]
    assert site["games"] == 2  # the game of 40 days ago is not counted
    assert site["sets_found"] == sets
    assert [row["games"] for row in site["days"]][-4:] == [1, 0, 0, 1]
    assert len(site["days"]) == 30 and sum(row["games"] for row in site["days"]) == 2
    modes = {row["mode"]: row for row in site["modes"]}
    assert set(modes) == {"set-classic", "set-classic-3"}
    assert modes["set-classic"]["mean"] == 2.0  # a set every 2 seconds
    assert modes["set-classic"]["sets"] == solo.state["tally"]["solo"]["sets"]
    assert page.count('<svg class="chart"') == 2  # games per day, seconds per set
    assert "Games finished per day" in page and "Mean seconds per set" in page
    assert f'<dd data-field="sets_found">{sets}</dd>' in page


def test_the_sites_numbers_are_cached_until_a_game_ends(client, django_assert_num_queries):
    client.get("/stats/")
    with django_assert_num_queries(1):  # which game ended last: the numbers are cached
        stats.site_numbers()
    play_set_table(["late"])
    assert client.get("/stats/").context["site"]["games"] == 1  # a game ended: counted at once


def test_a_small_run_finishes_with_its_report_and_charts(client):
    response = client.post(
        "/stats/runs", {"games": 300, "attributes": 4}, content_type="application/json"
    )
    assert response.status_code == 202
    run = response.json()
    assert run["status"] == "running" and run["games"] == 300 and run["attributes"] == 4
    assert response["Location"] == run["url"] == f"/stats/runs/{run['id']}"

    done = wait_done(client, run["url"])
    assert done["status"] == "done" and done["done"] == 300
    report = done["report"]
    assert report["games"] == 300 and report["attributes"] == 4
    assert sum(report["leftover"].values()) == 300
    assert all(int(left) % 3 == 0 and left != "3" for left in report["leftover"])
    for size in (12, 15, 18):
        share = report[f"p_no_set_{size}"]
        assert share is None or 0 <= share <= 1
    assert 0 < report["p_no_set_12"] < 0.2
    html = done["html"]
    assert html.count('<svg class="chart"') == 2
    assert "Norvig" in html and "rules booklet" in html and "norvig.com/SET.html" in html
    assert "16:1 against no set" in html and "2500:1 against no set" in html

    page = client.get(done["page"])  # the run's own address shows its charts
    assert page.status_code == 200
    assert page.content.decode().count('<svg class="chart"') == 3  # and games per day


def test_a_run_of_another_deck_shows_no_published_values(client):
    response = client.post(
        "/stats/runs", {"games": 40, "attributes": 3}, content_type="application/json"
    )
    done = wait_done(client, response.json()["url"])
    assert done["report"]["attributes"] == 3
    assert "16:1" not in done["html"] and "for 27 cards the simulated shares" in done["html"]


def test_the_form_without_script_starts_a_run_and_goes_to_its_page(client):
    response = client.post("/stats/runs", {"games": "1000", "attributes": "3"})
    assert response.status_code == 302
    assert response["Location"].startswith("/stats/?run=")
    run_id = response["Location"].split("=", 1)[1]
    wait_done(client, f"/stats/runs/{run_id}")


@pytest.mark.parametrize(
    ("body", "sentence"),
    [
        ({"games": "abc"}, "The number of games must be a whole number from 1 to 100,000"),
        ({"games": 0}, "The number of games must be a whole number from 1 to 100,000, not 0."),
        ({"games": 10**9}, "not 1000000000."),
        ({"games": -5}, "not -5."),
        ({"games": 2.5}, "not 2.5."),
        ({"games": True}, "not true."),
        ({}, "Say how many games to play"),
        ({"games": 100, "attributes": 7}, "A Set deck has 3, 4 or 5 attributes, not 7."),
        ({"games": 100, "attributes": "six"}, "A Set deck has 3, 4 or 5 attributes, not 'six'."),
        ([1, 2], "Send an object"),
    ],
)
def test_bad_input_is_refused_with_a_sentence(client, body, sentence):
    response = client.post("/stats/runs", body, content_type="application/json")
    assert response.status_code == 400
    assert sentence in response.json()["detail"]
    assert response.json()["detail"].endswith(".")


def test_bad_input_from_the_form_is_shown_on_the_page(client):
    response = client.post("/stats/runs", {"games": "1000000000", "attributes": "4"})
    assert response.status_code == 400
    assert "must be a whole number from 1 to 100,000" in response.content.decode()


def test_a_body_that_is_not_json_and_an_unknown_run(client):
    response = client.post("/stats/runs", "{games", content_type="application/json")
    assert response.status_code == 400 and response.json()["detail"] == "The body is not JSON."
    for run_id in ("0" * 32, "nope"):
        response = client.get(f"/stats/runs/{run_id}")
        assert response.status_code == 404
        assert "no simulation with this id" in response.json()["detail"]
    assert client.get("/stats/?run=nope").status_code == 200  # the page, with no run
    assert client.get("/stats/runs").status_code == 405


def test_at_most_two_runs_at_once(client, monkeypatch):
    release = threading.Event()

    def slow(games, attributes, progress):
        release.wait(10)
        return real(games, attributes=attributes, progress=progress)

    real = stats.simulate
    monkeypatch.setattr(stats, "simulate", slow)
    urls = []
    try:
        for _ in range(stats.MAX_RUNNING):
            response = client.post("/stats/runs", {"games": 20}, content_type="application/json")
            assert response.status_code == 202
            urls.append(response.json()["url"])
        refused = client.post("/stats/runs", {"games": 20}, content_type="application/json")
        assert refused.status_code == 429
        assert refused.json()["detail"].startswith("2 simulations are running on this server")
        assert refused["Retry-After"] == "5"
    finally:
        release.set()
    for url in urls:
        assert wait_done(client, url)["status"] == "done"
    again = client.post("/stats/runs", {"games": 20}, content_type="application/json")
    assert again.status_code == 202  # a slot is free again
    wait_done(client, again.json()["url"])


def test_a_run_that_fails_says_so(client, monkeypatch):
    def broken(games, attributes, progress):
        raise RuntimeError("boom")

    monkeypatch.setattr(stats, "simulate", broken)
    response = client.post("/stats/runs", {"games": 20}, content_type="application/json")
    done = wait_done(client, response.json()["url"])
    assert done["status"] == "failed" and done["error"] == "The simulation stopped on an error."
