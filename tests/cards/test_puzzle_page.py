"""The daily puzzle's page (/puzzle/): one game a day for each player, the day's best times of
accounts and an account's days (issue 17, item 5)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.models import Game
from games.rules import get_rules

pytestmark = pytest.mark.django_db


def finish(game_id: int, name: str) -> None:
    """Find every set of a puzzle as the seat `name` (what a computer would claim)."""
    seat = Game.objects.get(pk=game_id).seats.get(name=name)
    while True:
        game = Game.objects.get(pk=game_id)
        actions = get_rules("set").bot_actions(game.state, name)
        if not actions:
            return
        services.move_submit(game_id=game_id, seat=seat, action=actions[0])


def start(client) -> int:
    response = client.post("/puzzle/")
    assert response.status_code == 302, response.content[:300]
    return int(response["Location"].strip("/").split("/")[-1])


def test_a_player_plays_the_days_puzzle_once_and_an_account_is_listed_with_its_time(client):
    user = get_user_model().objects.create_user("Ines", password="a long passphrase")
    client.force_login(user)
    first = start(client)
    assert start(client) == first  # starting again opens the same game, not a new deal
    finish(first, "Ines")
    page = client.get("/puzzle/").content.decode()
    assert 'href="/u/Ines"' in page and "Open your game" in page
    assert Game.objects.filter(options__mode="puzzle").count() == 1


def test_a_guest_asks_for_a_name_and_gets_the_same_cards_as_everyone(client):
    refused = client.post("/puzzle/", {"name": "<b>"})
    assert refused.status_code == 400 and "No account has found all six" in refused.content.decode()
    game_id = int(client.post("/puzzle/", {"name": "Gus"})["Location"].strip("/").split("/")[-1])
    other = services.game_create(
        kind="set", options={"mode": "puzzle", "day": Game.objects.get(pk=game_id).options["day"]}
    )
    assert other.state["board"] == Game.objects.get(pk=game_id).state["board"]
    # A guest's time is theirs only: the day's best times are of accounts.
    finish(game_id, "Gus")
    assert "Gus" not in client.get("/puzzle/").content.decode().split("Today's best times")[1]


@pytest.mark.django_db(transaction=True)
def test_an_account_starting_the_days_puzzle_twice_at_once_gets_one_game():
    """Issue 23, finding 7: two starts at once (two tabs, two server processes) each found no
    game of the day yet, and each made one."""
    import threading

    from django.test import Client

    user = get_user_model().objects.create_user("Ines", password="a long passphrase")
    browsers = [Client(), Client()]
    for browser in browsers:
        browser.force_login(user)
    together = threading.Barrier(len(browsers))
    games = []

    def press(browser):
        together.wait()
        games.append(start(browser))

    threads = [threading.Thread(target=press, args=(b,)) for b in browsers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(games) == 2 and games[0] == games[1]
    assert Game.objects.filter(options__mode="puzzle").count() == 1
