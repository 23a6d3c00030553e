"""Ghost races over the platform: a recorded solo run's timeline (exact times), the create's
refusals, the race's view (`ghost`, then `ghost_result`) and the per-set comparison."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import ghosts, services
from games.models import Game
from games.replay import replay
from games.rules import get_rules
from tests.games.conftest import start_and_deal

pytestmark = pytest.mark.django_db

T = 1_700_000_000_000
RULES = get_rules("set")


def post(client, url, body, token=None):
    extra = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return client.post(url, json.dumps(body), "application/json", **extra)


def record(gaps_ms, *, options=None, name="ann", seed=7, is_open=True):
    """A solo run dealt at T whose sets are found `gaps_ms` apart (as many as the list, or
    until the game ends); return the game and the sets' times since the deal."""
    game = services.game_create(
        kind="set",
        options={"rules": "classic", "start": "now", **(options or {})},
        seed=seed,
        is_open=is_open,
        now=T,
    )
    seat = services.game_join(game_id=game.pk, name=name, now=T)
    at, times = T, []
    for gap in gaps_ms:
        game.refresh_from_db()
        actions = RULES.bot_actions(game.state, name)
        if not actions or game.status == Game.Status.OVER:
            break
        at += gap
        # A declare table's set is a declare and three picks: all at one moment.
        for action in actions:
            result = services.move_submit(game_id=game.pk, seat=seat, action=action, now=at)
            if "set" in (result.outcome.get("claim"), result.outcome.get("pick")):
                times.append(at - T)
    game.refresh_from_db()
    return game, times


def finished(gaps_ms=(3100, 2000, 1500, 4000, 900, 2500, 1000), **kwargs):
    """A quick game (18 cards) played to its end."""
    deck = [
        card.protocol
        for card in __import__("cards.engine.deck", fromlist=["x"]).new_deck(4, rng=3)[:18]
    ]
    game, times = record(list(gaps_ms) * 3, options={"deck": deck}, **kwargs)
    assert game.status == Game.Status.OVER
    return game, times


def test_the_timeline_of_a_recorded_run_has_its_sets_at_their_exact_times():
    game, times = finished()
    timeline = ghosts.ghost_of(game.pk)
    assert timeline["game"] == game.pk and timeline["player"] == "ann"
    assert [entry["at_ms"] for entry in timeline["sets"]] == times
    assert times[:3] == [3100, 5100, 6600]
    assert all(len(entry["cards"]) == 3 for entry in timeline["sets"])


def test_a_race_is_dealt_as_the_recording_and_its_view_carries_the_ghost(client):
    game, times = finished()
    created = post(
        client, "/api/games/", {"kind": "set", "open": True, "options": {"ghost": game.pk}}
    )
    assert created.status_code == 201, created.json()
    race = Game.objects.get(pk=created.json()["id"])
    assert race.seed == game.seed
    assert race.options == {**game.options, "start": "wait", "ghost": game.pk}
    token = post(client, f"/api/games/{race.pk}/join", {"name": "bob"}).json()["token"]
    body = client.get(f"/api/games/{race.pk}/", HTTP_AUTHORIZATION=f"Token {token}").json()
    ghost = body["view"]["ghost"]
    assert ghost["game"] == game.pk and ghost["player"] == "ann"
    assert [entry["at_ms"] for entry in ghost["sets"]] == times
    assert "ghost_result" not in body["view"]
    # Dealt at the Start: the same first board as the recording's.
    start_and_deal(race.pk)
    race.refresh_from_db()
    first = services.game_create(
        kind="set", options={**game.options, "start": "now"}, seed=game.seed, now=T
    )
    assert race.state["board"] == first.state["board"]
    assert RULES.unrated_options(race.options) == (
        "A ghost race is not rated: its ghost shows the sets it found."
    )
    assert RULES.describe(race.options).startswith(f"Ghost race of #{game.pk}")


def test_the_result_at_the_end_says_who_was_ahead_at_each_set(client):
    game, times = finished()
    created = post(
        client, "/api/games/", {"kind": "set", "open": True, "options": {"ghost": game.pk}}
    ).json()
    joined = post(client, f"/api/games/{created['id']}/join", {"name": "bob"}).json()
    dealt = start_and_deal(created["id"])
    race = Game.objects.get(pk=created["id"])
    seat = race.seats.get()
    # bob takes the ghost's sets, the first sooner, every other later by 1 s.
    for n, ghost_at in enumerate(times):
        race.refresh_from_db()
        action = RULES.bot_actions(race.state, "bob")[0]
        at = dealt + (ghost_at - 1000 if n == 0 else ghost_at + 1000)
        services.move_submit(game_id=race.pk, seat=seat, action=action, now=at)
    race.refresh_from_db()
    assert race.status == Game.Status.OVER
    assert replay(race) == race.state  # the log is the truth, for a race too
    view = client.get(
        f"/api/games/{race.pk}/", HTTP_AUTHORIZATION=f"Token {joined['token']}"
    ).json()["view"]
    result = view["ghost_result"]
    assert [row["ahead"] for row in result["sets"]] == ["you"] + ["ghost"] * (len(times) - 1)
    assert result["sets"][0] == {
        "set": 1,
        "you_ms": times[0] - 1000,
        "ghost_ms": times[0],
        "ahead": "you",
    }
    assert result["winner"] == "ghost"
    assert result["lines"][0] == "Set 1: you 2.1 s, ghost 3.1 s: you ahead."
    assert result["summary"] == "The ghost won by 1.0 s."
    # The race is no record: no solitaire time on a profile.
    assert RULES.stats(race.options, race.state, [])["bob"]["solitaire_seconds"] == []


def test_compare_counts_sets_first_then_time():
    assert ghosts.compare([{"at_ms": 1}, {"at_ms": 50}], [{"at_ms": 2}])["winner"] == "you"
    assert ghosts.compare([], [{"at_ms": 2}])["winner"] == "ghost"
    level = ghosts.compare([{"at_ms": 5}], [{"at_ms": 5}])
    assert level["winner"] == "level" and level["sets"][0]["ahead"] == "level"
    assert ghosts.compare([{"at_ms": 900}], [{"at_ms": 1500}])["summary"] == (
        "You beat the ghost by 0.6 s."
    )


def refusal(client, options, kind="set"):
    before = Game.objects.count()
    answer = post(client, "/api/games/", {"kind": kind, "options": options})
    assert Game.objects.count() == before  # nothing made
    return answer.status_code, answer.json()["detail"]


def test_refusals_name_what_is_wrong(client):
    over, _ = finished()
    status, detail = refusal(client, {"ghost": 99999})
    assert (status, detail) == (404, "There is no game with id 99999 to race.")
    status, detail = refusal(client, {"ghost": "best"})
    assert status == 400 and "the id of a finished solo game" in detail
    playing, _ = record([3000])
    status, detail = refusal(client, {"ghost": playing.pk})
    assert (status, detail) == (400, f"Game {playing.pk} is not finished: race it once it is over.")
    status, detail = refusal(client, {"ghost": over.pk, "mode": "ultra"})
    assert status == 400 and "its mode is 'normal', not 'ultra'" in detail
    answer = post(client, "/api/games/", {"kind": "set", "seed": 5, "options": {"ghost": over.pk}})
    assert answer.status_code == 400 and "own seed: leave seed out" in answer.json()["detail"]
    rated = post(
        client, "/api/games/", {"kind": "set", "rated": True, "options": {"ghost": over.pk}}
    )
    assert rated.status_code in (400, 403) and "ghost race is not rated" in json.dumps(rated.json())
    status, detail = refusal(client, {"ghost": over.pk}, kind="square")
    assert status == 400 and "a ghost race is played in the recorded game's kind" in detail


def test_a_game_of_two_and_a_private_game_are_refused(client):
    pair = services.game_create(kind="set", options={"rules": "classic"}, is_open=True, now=T)
    services.game_join(game_id=pair.pk, name="ann", now=T)
    services.game_join(game_id=pair.pk, name="bob", now=T)
    Game.objects.filter(pk=pair.pk).update(status=Game.Status.OVER)
    status, detail = refusal(client, {"ghost": pair.pk})
    assert status == 400 and "played by 2 players, not a solo run" in detail
    hidden, _ = finished(is_open=False)
    status, detail = refusal(client, {"ghost": hidden.pk})
    assert status == 400 and f"Game {hidden.pk} is private" in detail
    # Its link opens it: then it may be raced.
    answer = post(
        client,
        f"/api/games/?key={hidden.link_key}",
        {"kind": "set", "options": {"ghost": hidden.pk}},
    )
    assert answer.status_code == 201, answer.json()


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    gaps=st.lists(st.integers(min_value=1, max_value=20_000), min_size=1, max_size=8),
    seed=st.integers(min_value=0, max_value=2**40),
)
def test_any_recorded_run_gives_a_timeline_of_its_sets_in_order_on_its_deal(gaps, seed):
    game, times = record(gaps, seed=seed)
    timeline = ghosts.ghost_of(game.pk)
    at = [entry["at_ms"] for entry in timeline["sets"]]
    assert at == times == sorted(at)
    assert len(at) == game.state["tally"]["ann"]["sets"]
    options, race_seed = (
        ghosts.race_deal(kind="set", options={"ghost": game.pk}, may_see=lambda _game: True)
        if game.status == Game.Status.OVER
        else (None, game.seed)
    )
    assert race_seed == game.seed
    if options is not None:
        assert {k: v for k, v in options.items() if k not in ("ghost", "start")} == {
            k: v for k, v in game.options.items() if k != "start"
        }


def test_race_this_run_from_the_replay_page_opens_the_race_with_its_lane(client):
    game, times = finished()
    replay = client.get(f"/games/{game.pk}/replay/")
    assert f'action="/games/{game.pk}/race/"' in replay.content.decode()
    assert "Race this run" in replay.content.decode()
    opened = client.post(f"/games/{game.pk}/race/", {"name": "bob", "next": "/"}, follow=True)
    assert opened.status_code == 200
    race = Game.objects.latest("id")
    assert race.options["ghost"] == game.pk and race.seats.get().name == "bob"
    page = opened.content.decode()
    assert 'id="ghost-lane"' in page and "Ghost race" in page
    assert f"0 of {len(times)}" in page
    # A game still being played is refused with its sentence, back where the button was.
    playing, _ = record([3000])
    refused = client.post(f"/games/{playing.pk}/race/", {"next": "/solitaire/"}, follow=True)
    assert f"Game {playing.pk} is not finished" in refused.content.decode()
    assert Game.objects.latest("id") == playing


def test_the_days_puzzle_best_run_is_raced_by_anyone_and_the_race_is_no_days_time(client):
    from cards import puzzle

    day = puzzle.today()
    game = services.game_create(kind="set", options={"mode": "puzzle", "day": day}, now=T)
    assert game.link_key  # a private table, as the puzzle page makes them
    seat = services.game_join(game_id=game.pk, name="ann", now=T)
    at = T
    while True:
        game.refresh_from_db()
        actions = RULES.bot_actions(game.state, "ann")
        if not actions or game.status == Game.Status.OVER:
            break
        at += 1500
        services.move_submit(game_id=game.pk, seat=seat, action=actions[0], now=at)
    assert game.status == Game.Status.OVER
    created = post(
        client, "/api/games/", {"kind": "set", "open": True, "options": {"ghost": game.pk}}
    )
    assert created.status_code == 201, created.json()
    race = Game.objects.get(pk=created.json()["id"])
    assert race.options["day"] == day and race.seed == game.seed
    assert [g.pk for g in puzzle._puzzles(options__day=day)] == [game.pk]
    assert [e["at_ms"] for e in ghosts.ghost_of(game.pk)["sets"]] == [1500 * n for n in range(1, 7)]


def test_a_profile_lists_its_best_solo_runs_to_race(client, django_user_model):
    from games.models import Player

    user = django_user_model.objects.create_user("ann", password="pw-long-enough-1")
    game, times = record([1000] * 30, is_open=False)  # a whole deck: a solitaire time
    assert game.status == Game.Status.OVER
    Player.objects.filter(seats__game=game).update(user=user)
    # Private to ann: a visitor sees no run of hers to race.
    page = client.get("/u/ann").content.decode()
    assert 'id="best-runs"' not in page
    client.force_login(user)
    page = client.get("/u/ann").content.decode()
    assert 'id="best-runs"' in page and f'action="/games/{game.pk}/race/"' in page
    assert f"{times[-1] / 1000:.1f} s" in page


def test_a_declare_solo_run_has_its_sets_timed_at_the_pick_that_completes_each():
    game, times = record([400] * 12, options={"rules": "declare"})
    timeline = ghosts.ghost_of(game.pk)["sets"]
    assert len(times) >= 10 and [entry["at_ms"] for entry in timeline] == times
    assert times[:3] == [400, 800, 1200]
    assert all(len(entry["cards"]) == 3 for entry in timeline)
