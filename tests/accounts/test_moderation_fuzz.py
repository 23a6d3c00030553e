"""Issue 28: no action of a non-moderator changes another player's chat, name or standing.

Hypothesis sends random sequences of API calls by an account that is no moderator (reports,
blocks, every moderation address with random bodies, chat, challenges) and checks after each
sequence that the other account's lines, name, sanctions, ratings and reports are as they were,
and that the moderation log is empty."""

from __future__ import annotations

import datetime
import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.tokens import token_create
from games import services
from games.auth import account_player
from games.models import ChatMessage, ModerationLogEntry, Player, Rating, Report, Sanction

pytestmark = pytest.mark.django_db

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=600_000),
    st.integers(min_value=1, max_value=3),  # the line's and the report's ids, likely
    st.text(max_size=12),
    st.sampled_from(["spam", "abuse", "name", "vic", "VIC", "removed by a moderator"]),
)
bodies = st.dictionaries(
    st.sampled_from(["line", "name", "player", "reason", "note", "minutes", "report", "text"]),
    values,
    max_size=4,
)
paths = st.sampled_from(
    [
        "/api/reports",
        "/api/blocks/vic",
        "/api/moderation/reports",
        "/api/moderation/reports/{report}/close",
        "/api/moderation/chat/{line}/delete",
        "/api/moderation/users/vic/mute",
        "/api/moderation/users/vic/ban",
        "/api/moderation/users/vic/rename",
        "/api/moderation/log",
        "/api/lobby/chat",
        "/api/challenge/vic",
    ]
)
calls = st.lists(
    st.tuples(st.sampled_from(["post", "get", "delete"]), paths, bodies), min_size=1, max_size=6
)


@pytest.fixture
def world():
    accounts = {}
    for name in ("vic", "eve"):
        user = get_user_model().objects.create_user(name, password="correct horse battery")
        accounts[name] = (user, token_create(user=user, name="api")[1])
    vic = accounts["vic"][0]
    line = services.chat_post(
        game_id=None, player_id=account_player(vic, create=True).pk, text="a fine line"
    )
    Rating.objects.create(
        user=vic, mode="set-classic-4", mu=1600.0, sigma=90.0, games=9,
        updated=datetime.datetime.now(datetime.UTC),
    )  # fmt: skip
    report = Report.objects.create(reporter=vic, about="line", line=line, reason="spam")
    return accounts, line, report


def standing(vic) -> tuple:
    vic.refresh_from_db()
    return (
        vic.username,
        vic.is_active,
        sorted(Player.objects.filter(user=vic).values_list("name", flat=True)),
        sorted(ChatMessage.objects.filter(player__user=vic).values_list("id", "text", "removed")),
        sorted(Sanction.objects.filter(user=vic).values_list("id", flat=True)),
        sorted(Rating.objects.filter(user=vic).values_list("mode", "mu", "sigma", "games")),
        sorted(Report.objects.filter(reporter=vic).values_list("id", "closed", "closed_note")),
    )


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sequence=calls)
def test_no_action_of_a_non_moderator_changes_another_players_chat_name_or_standing(
    world, sequence
):
    accounts, line, report = world
    vic, eve_token = accounts["vic"][0], accounts["eve"][1]
    before = standing(vic)
    for method, path, body in sequence:
        path = path.format(report=report.pk, line=line.pk)
        auth = {"HTTP_AUTHORIZATION": f"Bearer {eve_token}"}
        if method == "get":
            answer = Client().get(path, **auth)
        else:
            answer = getattr(Client(), method)(
                path, json.dumps(body), content_type="application/json", **auth
            )
        assert answer.status_code < 500, (path, body, answer.content)
        if "/moderation/" in path:
            assert answer.status_code == 403, (path, answer.content)
    assert standing(vic) == before
    assert not ModerationLogEntry.objects.exists()
