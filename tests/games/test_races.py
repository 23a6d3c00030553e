"""Many clients at the same moment: exactly one wins, scores add up, the log has no gap."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games import services
from games.models import Game, Move, Player
from games.replay import replay
from tests.games.conftest import EXAMPLE_DECK, start_and_deal

pytestmark = pytest.mark.django_db(transaction=True)
THREADS = 50


def run_at_once(worker, count=THREADS):
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def run(index):
        try:
            barrier.wait()
            results[index] = ("ok", worker(index))
        except Exception as exc:  # noqa: BLE001 - the outcome is what the test inspects
            results[index] = ("error", exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


def assert_log_is_whole(game: Game):
    game.refresh_from_db()
    seqs = list(Move.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.version + 1))
    assert replay(game) == game.state


def test_fifty_declares_at_once_make_exactly_one_declarer(db):
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "declare", "deck": EXAMPLE_DECK}, is_open=True
    )
    results = run_at_once(
        lambda i: services.protocol_act(game_id=game.pk, name=f"p{i}", action={"type": "declare"})
    )
    assert all(kind == "ok" for kind, _ in results), results
    game.refresh_from_db()
    assert game.state["declarer"] in {f"p{i}" for i in range(THREADS)}
    assert len(game.state["queue"]) == THREADS - 1
    assert len(game.state["players"]) == THREADS
    assert_log_is_whole(game)


def test_fifty_claims_of_one_set_at_once_score_exactly_once(db):
    game = services.game_create(
        kind="set", options={"start": "now", "rules": "classic", "deck": EXAMPLE_DECK}
    )
    seats = [
        services.game_join(game_id=game.pk, player=Player.objects.create(name=f"p{i}"))
        for i in range(THREADS)
    ]
    claim = {"type": "claim", "cards": EXAMPLE_DECK[0:3]}
    results = run_at_once(
        lambda i: services.move_submit(game_id=game.pk, seat=seats[i], action=claim)
    )
    winners = [r for r in results if r[0] == "ok"]
    losers = [r for r in results if r[0] == "error"]
    assert len(winners) == 1, results
    assert all("just taken" in str(exc) for _, exc in losers)
    game.refresh_from_db()
    assert sum(game.state["scores"].values()) == 1
    assert_log_is_whole(game)


def test_rated_games_ending_at_once_for_the_same_new_accounts_each_count(db):
    """Eight rated games between the same two new accounts end at the same moment: each game's
    rating reads the rating the one before it wrote (none is lost), so each account has eight
    rated games and eight changes, each starting where the one before ended."""
    from django.contrib.auth import get_user_model

    from games.models import Rating, RatingChange
    from games.rules import get_rules

    rules = get_rules("set")
    users = get_user_model()
    ann = Player.objects.create(name="ann", user=users.objects.create_user("ann", password="x"))
    bob = Player.objects.create(name="bob", user=users.objects.create_user("bob", password="x"))
    last = []
    for index in range(8):
        game = services.game_create(
            kind="set",
            options={"rules": "classic", "attributes": 3},
            seed=index,
            rated=True,
        )
        seats = [services.game_join(game_id=game.pk, player=p) for p in (ann, bob)]
        start_and_deal(game.pk)  # a rated game is dealt once its players are seated
        while True:  # play until the next set ends the game
            game.refresh_from_db()
            action = rules.bot_actions(game.state, "ann")[0]
            after = rules.apply(game.state, "ann", action, services.now_ms())
            if rules.status(after.state) == "over":
                last.append((game.pk, seats[0], action))
                break
            services.move_submit(game_id=game.pk, seat=seats[0], action=action)
    results = run_at_once(
        lambda i: services.move_submit(game_id=last[i][0], seat=last[i][1], action=last[i][2]),
        count=len(last),
    )
    assert all(kind == "ok" for kind, _ in results), results
    for player in (ann, bob):
        assert Rating.objects.get(user=player.user, mode="set-classic-3").games == 8
        changes = list(RatingChange.objects.filter(user=player.user).order_by("id"))
        assert len(changes) == 8
        chained = {round(c.mu_before, 9) for c in changes[1:]} == {
            round(c.mu_after, 9) for c in changes[:-1]
        }
        assert chained, "each game starts from the rating the one before it left"
