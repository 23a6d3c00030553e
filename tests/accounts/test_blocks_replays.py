"""A blocked account's chat is hidden from its blocker in replays and exports too (issue 28,
item 1: "hidden from the blocker everywhere"): the replay API and page, a game's export, and an
account's NDJSON download of its games; everyone else still reads the lines."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.utils import timezone

from games import services
from games.auth import account_player
from games.models import Game
from tests.accounts.test_reports_blocks import call, make_account

pytestmark = pytest.mark.django_db


@pytest.fixture
def table():
    ada, bob, cy = make_account("ada"), make_account("bob"), make_account("cy")
    game = services.game_create(
        kind="set", options={"rules": "classic", "start": "wait"}, is_open=True
    )
    for user, text in ((ada[0], "good luck"), (bob[0], "you will lose, idiot"), (cy[0], "hi")):
        player = account_player(user, create=True)
        services.game_join(game_id=game.pk, player=player)
        services.chat_post(game_id=game.pk, player_id=player.pk, text=text)
    assert call("post", "/api/blocks/bob", ada[1]).status_code in (200, 201)
    return game, ada, bob, cy


def texts(lines) -> list[str]:
    return [line["text"] for line in lines]


def test_the_replay_hides_the_blocked_accounts_lines_from_the_blocker(table):
    game, ada, _, cy = table
    mine = call("get", f"/api/games/{game.pk}/replay", ada[1]).json()
    assert texts(mine["chat"]) == ["good luck", "hi"]
    theirs = call("get", f"/api/games/{game.pk}/replay", cy[1]).json()
    assert texts(theirs["chat"]) == ["good luck", "you will lose, idiot", "hi"]
    guest = call("get", f"/api/games/{game.pk}/replay").json()
    assert "you will lose, idiot" in texts(guest["chat"])


def test_the_replay_page_hides_them_too(table):
    game, ada, _, _ = table
    page = Client()
    page.force_login(ada[0])
    html = page.get(f"/games/{game.pk}/replay/").content.decode()
    assert "good luck" in html and "you will lose, idiot" not in html
    assert "you will lose, idiot" in Client().get(f"/games/{game.pk}/replay/").content.decode()


def test_the_export_hides_them_from_the_blocker(table):
    game, ada, _, cy = table
    mine = call("get", f"/api/games/{game.pk}/export", ada[1]).json()
    assert texts(mine["chat"]) == ["good luck", "hi"]
    theirs = call("get", f"/api/games/{game.pk}/export", cy[1]).json()
    assert "you will lose, idiot" in texts(theirs["chat"])


def test_an_accounts_download_of_its_games_hides_them_from_the_blocker(table):
    game, ada, _, cy = table
    Game.objects.filter(pk=game.pk).update(status=Game.Status.OVER, finished=timezone.now())

    def download(token):
        answer = call("get", "/api/users/ada/games", token)
        assert answer.status_code == 200
        body = b"".join(answer.streaming_content).decode()
        return [json.loads(line) for line in body.splitlines()]

    (mine,) = download(ada[1])
    assert texts(mine["chat"]) == ["good luck", "hi"]
    (theirs,) = download(cy[1])
    assert "you will lose, idiot" in texts(theirs["chat"])
    # Unblocked: the lines are back.
    assert call("delete", "/api/blocks/bob", ada[1]).status_code in (200, 204)
    (again,) = download(ada[1])
    assert "you will lose, idiot" in texts(again["chat"])
