"""examples/bot.py on PostgreSQL + Redis with two daphne processes: each bot's event stream, game
streams and moves on a different process from its opponent's, so every challenge, game start,
change and chat line a bot hears was made on the other process and reached it through Redis."""

from __future__ import annotations

from tests.bots.playing import bots_play_each_game


def test_two_bots_on_two_processes_play_each_game_to_the_end(pair, tmp_path):
    bots_play_each_game(list(pair), tmp_path)
