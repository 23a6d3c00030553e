"""What a stranger, a watcher and each seat may read (issue 23, findings 1 and 2).

- **What a seat alone may see stays its own until the game ends**: a Set hint's card is shown to
  the seat that asked, in its answer and its view; every way out (the move log, the replay, the
  export) leaves it out for anyone else while the game is played, and shows it once it is over.
"""

from __future__ import annotations

import pytest
from django.test import Client

from games import services
from games.models import Game, Player
from games.rules import get_rules
from tests.games.conftest import EXAMPLE_DECK

pytestmark = pytest.mark.django_db


def finish(game: Game, seat) -> None:
    """Play a Set table to its end: `seat` does all a computer would, each time."""
    for _ in range(100):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            return
        for action in get_rules("set").bot_actions(game.state, seat.name):
            services.move_submit(game_id=game.pk, seat=seat, action=action)
    raise AssertionError(f"game {game.pk} did not end")


def seated(game: Game, name: str):
    return services.game_join(game_id=game.pk, player=Player.objects.create(name=name))


def read(client: Client, url: str, token: str | None = None):
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    response = client.get(url, **headers)
    assert response.status_code == 200, response.content
    return response.json()


def hint_outcomes(client: Client, game: Game, token: str | None = None) -> dict[str, list]:
    """The hint moves' outcomes as each way out shows them to this reader."""
    moves = read(client, f"/api/games/{game.pk}/moves?since=0", token)
    replay = read(client, f"/api/games/{game.pk}/replay", token)["steps"]
    export = read(client, f"/api/games/{game.pk}/export", token)["moves"]
    return {
        way: [m["outcome"] for m in listed if m["action"]["type"] == "hint"]
        for way, listed in (("moves", moves), ("replay", replay), ("export", export))
    }


@pytest.mark.parametrize("rules", ["classic", "declare"])
def test_a_hint_is_its_seats_alone_until_the_game_ends(rules):
    game = services.game_create(kind="set", options={"rules": rules, "deck": EXAMPLE_DECK[:12]})
    ann, bob = seated(game, "ann"), seated(game, "bob")
    answer = services.move_submit(game_id=game.pk, seat=ann, action={"type": "hint"}).outcome
    card = answer["hint"]["card"]
    services.move_submit(game_id=game.pk, seat=bob, action={"type": "count"})

    client = Client()
    for reader in (None, bob.token):  # a stranger, and another seat
        for way, outcomes in hint_outcomes(client, game, reader).items():
            assert len(outcomes) == 1, way
            (outcome,) = outcomes
            assert "hint" not in outcome and card not in str(outcome), (reader, way, outcome)
            assert outcome["action"] == "hint"
            assert outcome["withheld"] == ["hint", "message"]
    # The seat that asked reads its own hint everywhere.
    for way, outcomes in hint_outcomes(client, game, ann.token).items():
        assert outcomes[0]["hint"]["card"] == card, way
    # What is anyone's stays anyone's: how many sets there are.
    counts = [
        m["outcome"]["count"]
        for m in read(client, f"/api/games/{game.pk}/moves")
        if m["action"]["type"] == "count"
    ]
    assert len(counts) == 1

    finish(game, bob)
    for way, outcomes in hint_outcomes(client, game).items():
        assert outcomes[0]["hint"]["card"] == card, way  # over: the log is everyone's


def test_a_browser_seat_reads_its_own_hint_and_a_watching_browser_does_not():
    game = services.game_create(kind="set", options={"rules": "classic"})
    ann = seated(game, "ann")
    services.move_submit(game_id=game.pk, seat=ann, action={"type": "hint"})
    browser = Client()
    session = browser.session
    session["player_id"] = ann.player_id
    session.save()
    assert "hint" in hint_outcomes(browser, game)["moves"][0]
    watcher = Client()
    assert "hint" not in hint_outcomes(watcher, game)["moves"][0]
