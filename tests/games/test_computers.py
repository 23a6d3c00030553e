"""Computer seats: they find sets after a delay around their speed and play through the same
service as a person, so a quicker person beats them."""

from __future__ import annotations

import pytest

from games import selectors, services
from games.errors import GameError
from games.models import Game, Move, Player
from games.replay import replay
from tests.games.conftest import ALL_81, EXAMPLE_DECK

pytestmark = pytest.mark.django_db
T = 1_800_000_000_000


def run_clock(game: Game, *, until_ms: int, step_ms: int = 100) -> Game:
    now = T
    while now < until_ms:
        game = services.game_tick(game_id=game.pk, now=now).game
        if game.status == Game.Status.OVER:
            break
        now += step_ms
    return Game.objects.get(pk=game.pk)


def test_a_classic_table_with_a_computer_plays_to_its_end():
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic", "deck": ALL_81[:27]}, now=T
    )
    services.seat_add_computer(game_id=game.pk, speed="instant", now=T)
    game = run_clock(game, until_ms=T + 60_000)
    assert game.status == Game.Status.OVER
    result = game.state and selectors.game_view(game, seat_name=None, now=T)["result"]
    assert result["winners"] == ["Computer1"]
    assert game.seats.get(name="Computer1").score == result["scores"]["Computer1"] > 0
    assert replay(game) == game.state


def test_a_computer_declares_and_picks_on_a_declare_table():
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "declare", "deck": EXAMPLE_DECK}, now=T
    )
    services.seat_add_computer(game_id=game.pk, speed="fast", now=T)
    game.refresh_from_db()
    assert game.deadline_ms is not None and T + 1000 <= game.deadline_ms <= T + 7000
    game = services.game_tick(game_id=game.pk, now=game.deadline_ms).game
    actions = [m.action["type"] for m in Move.objects.filter(game=game).order_by("seq")]
    assert actions[-4:] == ["declare", "pick", "pick", "pick"]
    assert game.state["scores"]["Computer1"] == 10


def test_a_quicker_person_beats_the_computer():
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic", "deck": EXAMPLE_DECK}, now=T
    )
    services.seat_add_computer(game_id=game.pk, speed="slow", now=T)
    person = services.game_join(game_id=game.pk, player=Player.objects.create(name="ann"), now=T)
    game.refresh_from_db()
    from cards.engine import find_set, parse_cards

    found = find_set(parse_cards(game.state["board"]))
    services.move_submit(
        game_id=game.pk,
        seat=person,
        action={"type": "claim", "cards": [card.protocol for card in found]},
        now=T + 500,
    )
    game.refresh_from_db()
    assert game.state["scores"] == {"Computer1": 0, "ann": 1}


def test_unknown_speeds_are_refused():
    game = services.game_create(kind="set", options={"start": "now", "rules": "classic"})
    with pytest.raises(GameError, match="speed"):
        services.seat_add_computer(game_id=game.pk, speed="ludicrous")
    assert game.seats.count() == 0


def test_computers_get_distinct_names():
    game = services.game_create(kind="set", options={"start": "now", "rules": "classic"})
    names = [services.seat_add_computer(game_id=game.pk, speed="fast").name for _ in range(3)]
    assert names == ["Computer1", "Computer2", "Computer3"]
