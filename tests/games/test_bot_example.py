"""examples/bot.py against a live server: two instances, each an account's, play Set games (the
declare and classic rules, 4Set Junior, Memory) and a Square Game that one challenges the other
to, to the end, and say good game."""

from __future__ import annotations

import pytest

from tests.bots.playing import bots_play_each_game

pytestmark = pytest.mark.xdist_group("servers")


def test_two_bots_play_a_challenge_of_each_game_to_the_end(server, tmp_path):
    bots_play_each_game([server, server], tmp_path)
