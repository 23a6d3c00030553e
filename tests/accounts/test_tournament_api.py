"""The tournaments' API (issue 29, item 2): lists, making, joining, pausing, leaving, the
standings page by page and the NDJSON results; bad input is a 400 sentence."""

from __future__ import annotations

import datetime
import json

import pytest
from django.test import Client
from django.utils import timezone

from games import tournaments
from games.models import BotAccount, Tournament, TournamentGame
from tests.accounts.test_challenges import make_account, post

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _looked_at_anew():
    tournaments._ensured["at"] = None  # the recurring arenas are looked at once a minute


def soon(seconds=0) -> str:
    return (timezone.now() + datetime.timedelta(seconds=seconds)).isoformat()


def make(token, **more):
    body = {
        "kind": "set",
        "options": {"mode": "set-classic"},
        "starts_at": soon(60),
        "minutes": 30,
        "rated": True,
        "bots": False,
        **more,
    }
    return post("/api/tournaments", token, body)


def test_an_account_makes_a_tournament_and_it_is_listed_upcoming():
    _, token = make_account("ada")
    made = make(token)
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["status"] == "upcoming" and body["mode"] == "set-classic" and body["rated"]
    assert body["made_by"] == "ada" and 0 < body["seconds_left"] <= 60
    listed = Client().get("/api/tournaments?status=upcoming").json()
    assert [t["id"] for t in listed["upcoming"] if not t["recurring"]] == [body["id"]]
    every = Client().get("/api/tournaments").json()
    assert set(every) == {"running", "upcoming", "finished"}
    # The recurring arenas were made ahead by that request.
    assert any(t["recurring"] for t in every["running"] + every["upcoming"])


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"minutes": 5}, "10 to 120 minutes"),
        ({"minutes": "half an hour"}, "whole number of minutes"),
        ({"starts_at": "tomorrow"}, "ISO 8601"),
        ({"starts_at": "2030-01-01T18:00:00"}, "with its zone"),
        ({"starts_at": "2001-01-01T18:00:00Z"}, "not in the past"),
        ({"kind": "setwar"}, "Set or the Square Game"),
        ({"options": {"mode": "blitz"}}, "mode is one of"),
        ({"options": {"mode": "set-classic", "hints": "yes"}}, "hints"),
    ],
)
def test_bad_input_is_a_400_sentence(change, words):
    _, token = make_account("ada")
    answer = make(token, **change)
    assert answer.status_code == 400, answer.content
    assert words in json.dumps(answer.json())


def test_making_one_needs_an_account_and_recurring_ones_staff():
    assert make(None).status_code == 401
    _, token = make_account("ada")
    assert make(token, recurring="weekly:mine").status_code == 403


def test_join_pause_withdraw_and_the_standings_and_results():
    _, ada = make_account("ada")
    _, bob = make_account("bob")
    made = make(ada, starts_at=soon(), minutes=10).json()
    tid = made["id"]
    assert post(f"/api/tournaments/{tid}/join", ada).json()["paused"] is False
    assert post(f"/api/tournaments/{tid}/join", bob).status_code == 200
    paused = post(f"/api/tournaments/{tid}/pause", bob).json()
    assert paused["paused"] is True
    assert post(f"/api/tournaments/{tid}/join", bob).json()["paused"] is False
    left = post(f"/api/tournaments/{tid}/withdraw", bob).json()
    assert left["withdrawn"] is True
    detail = Client().get(f"/api/tournaments/{tid}", HTTP_AUTHORIZATION=f"Bearer {ada}").json()
    assert detail["status"] == "running"
    assert [p["name"] for p in detail["standings"]] == ["ada", "bob"]
    assert detail["me"]["name"] == "ada" and detail["page"] == detail["pages"] == 1
    results = Client().get(f"/api/tournaments/{tid}/results")
    assert results["Content-Type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in results.content.decode().splitlines()]
    assert [(line["rank"], line["name"]) for line in lines] == [(1, "ada"), (1, "bob")]


def test_pause_without_joining_is_a_409_and_an_unknown_tournament_a_404():
    _, ada = make_account("ada")
    tid = make(ada, starts_at=soon()).json()["id"]
    answer = post(f"/api/tournaments/{tid}/pause", ada)
    assert answer.status_code == 409 and "not joined" in answer.json()["detail"]
    assert Client().get("/api/tournaments/999").status_code == 404
    assert post("/api/tournaments/999/join", ada).status_code == 404
    assert Client().get(f"/api/tournaments/{tid}?page=x").status_code == 400
    assert Client().get("/api/tournaments?status=soon").status_code == 400


def test_an_arena_open_to_bots_takes_people_too_and_a_peoples_refuses_bots():
    user, robo = make_account("robo")
    BotAccount.objects.create(user=user)
    _, ada = make_account("ada")
    open_to_bots = make(ada, starts_at=soon(), bots=True).json()["id"]
    people = make(ada, starts_at=soon()).json()["id"]
    assert post(f"/api/tournaments/{open_to_bots}/join", ada).status_code == 200
    refused = post(f"/api/tournaments/{people}/join", robo)
    assert refused.status_code == 403 and "people only" in refused.json()["detail"]
    assert post(f"/api/tournaments/{open_to_bots}/join", robo).status_code == 200


def test_the_standings_come_page_by_page():
    _, ada = make_account("ada")
    tid = make(ada, starts_at=soon()).json()["id"]
    t = Tournament.objects.get(pk=tid)
    for n in range(25):
        user, _ = make_account(f"p{n:02}")
        tournaments.tournament_pause(
            tournament_id=tid, user=tournaments.tournament_join(tournament_id=tid, user=user).user
        )
    assert TournamentGame.objects.filter(tournament=t).count() == 0
    first = Client().get(f"/api/tournaments/{tid}").json()
    second = Client().get(f"/api/tournaments/{tid}?page=2").json()
    assert first["pages"] == 2 and len(first["standings"]) == 20 and len(second["standings"]) == 5


def test_the_tournaments_are_in_the_schema():
    schema = Client().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert {"get", "post"} <= set(schema["paths"]["/api/tournaments"])
    assert "201" in schema["paths"]["/api/tournaments"]["post"]["responses"]
    for action in ("join", "pause", "withdraw"):
        assert f"/api/tournaments/{{tournament_id}}/{action}" in schema["paths"]
    results = schema["paths"]["/api/tournaments/{tournament_id}/results"]["get"]
    assert "application/x-ndjson" in results["responses"]["200"]["content"]
