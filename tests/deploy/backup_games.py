"""Games for the backup test, played and checked in a process of their own on the database that
DATABASE_URL names (the test runs it once on the database it dumps, once on the restored one).

    python -m tests.deploy.backup_games play    # finished and live games of every kind
    python -m tests.deploy.backup_games check   # each game replays to its state; live ones play on

Each prints one JSON object: every game's kind, status, version, number of moves and a digest
of its stored state, by id (`check` adds the live games' versions after one more move).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys


def summary() -> dict[str, dict]:
    from games.models import Game

    return {
        str(game.pk): {
            "kind": game.kind,
            "status": game.status,
            "version": game.version,
            "moves": game.moves.count(),
            "state": hashlib.sha256(json.dumps(game.state, sort_keys=True).encode()).hexdigest(),
        }
        for game in Game.objects.order_by("pk")
    }


def play_on(game_id: int, *, turns: int | None = None) -> None:
    """Play `turns` turns (None: to the end) through the services, as a way in submits them: in
    each, the first seat with something to do makes the moves its computer would (a claim; a
    declare and its three picks; a placement)."""
    from games import services
    from games.models import Game, Seat
    from games.rules import get_rules

    game = Game.objects.get(pk=game_id)
    rules = get_rules(game.kind)
    seats = list(Seat.objects.filter(game_id=game_id).order_by("number"))
    played = 0
    while turns is None or played < turns:
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            assert turns is None, f"game {game_id} ended after {played} of {turns} turns"
            return
        for seat in seats:
            actions = rules.bot_actions(game.state, seat.name)
            if actions:
                for action in actions:
                    services.move_submit(game_id=game_id, seat=seat, action=action)
                played += 1
                break
        else:
            # A declare table with no set on its board: every player votes to add cards.
            assert game.state.get("rules") == "declare", f"nobody can move in game {game_id}"
            for seat in seats:
                services.move_submit(game_id=game_id, seat=seat, action={"type": "add"})
            played += 1
        assert played < 1000, f"game {game_id} does not end"


def play() -> dict:
    from cards.setwar.services import setwar_run
    from games import services

    def table(kind: str, options: dict, names: list[str]) -> int:
        game = services.game_create(kind=kind, options=options, is_open=True)
        for name in names:
            services.game_join(game_id=game.pk, name=name)
        return game.pk

    classic = {"start": "now", "rules": "classic"}
    # A minute to pick after a declare: a loaded machine never runs the declarer out of time.
    declare = {"start": "now", "rules": "declare", "declare_ms": 60_000}
    square = {"players": 2}
    for options, kind, names in (
        (classic, "set", ["ann"]),
        (declare, "set", ["ann", "bob"]),
        (square, "square", ["ann", "bob"]),
    ):
        play_on(table(kind, options, names))  # to the end
        play_on(table(kind, options, names), turns=4)  # live
    setwar_run(players=3, seed=7)
    setwar_run(players=2)
    return summary()


def check() -> dict:
    from games.models import Game
    from games.replay import replay

    before = summary()
    for game in Game.objects.order_by("pk"):
        assert replay(game) == game.state, f"game {game.pk} does not replay to its state"
    after = {}
    for game in Game.objects.exclude(status=Game.Status.OVER).order_by("pk"):
        play_on(game.pk, turns=1)
        game.refresh_from_db()
        assert replay(game) == game.state, f"game {game.pk} does not replay after a move"
        after[str(game.pk)] = game.version
    return {"games": before, "after_one_more_move": after}


def main(command: str) -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from games import runtime, store

    try:
        print(json.dumps({"play": play, "check": check}[command]()))
    finally:
        store.close_all()
        runtime.shutdown()


if __name__ == "__main__":
    main(*sys.argv[1:])
