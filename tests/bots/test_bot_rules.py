"""examples/bot.py's own reading of a Set board agrees with the rules: on random tables of every
mode, each claim it would make scores, and it finds one whenever the table has one."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.classic import ClassicRules as R
from cards.engine.table.modes import MODES
from cards.engine.table.ways import claims_count

BOT = Path(__file__).resolve().parents[2] / "examples" / "bot.py"
T = 1_700_000_000_000


def load_bot():
    spec = importlib.util.spec_from_file_location("example_bot", BOT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bot = load_bot()


@settings(max_examples=60, deadline=None)
@given(
    # Memory's board lies face down: the bot turns cards up (its own test, below).
    mode=st.sampled_from([key for key, mode in MODES.items() if not mode.face_down]),
    attributes=st.sampled_from([3, 4]),
    seed=st.integers(0, 2**32),
    turns=st.integers(0, 12),
)
def test_every_claim_the_bot_sees_scores_and_it_sees_one_when_there_is_one(
    mode, attributes, seed, turns
):
    options = {"attributes": attributes, "start": "now"}
    if MODES[mode].attributes:  # a mode of its own deck
        options = {"start": "now"}
    if mode != "normal":
        options["mode"] = mode
    state = R.new_state(options=options, seed=seed, now_ms=T)
    state = R.apply(state, "bot", {"type": "join"}, T).state
    for turn in range(turns + 1):
        view = R.view(state, "bot", T + turn)
        if view["over"]:
            break
        found = bot.claims(view)
        assert bool(found) == (claims_count(state) > 0), view.get("mode")
        for cards in found[:5]:
            result = R.apply(state, "bot", {"type": "claim", "cards": cards}, T + turn)
            assert result.outcome.get("claim") == "set", (cards, result.outcome)
        if not found:
            break
        state = R.apply(state, "bot", {"type": "claim", "cards": found[0]}, T + turn).state


@settings(max_examples=30, deadline=None)
@given(
    mode=st.sampled_from(["4set", "4setjr", "4setjrchain", "4setjrpuzzle"]),
    seed=st.integers(0, 2**32),
    turns=st.integers(0, 12),
)
def test_the_bot_sees_every_4set_claim_and_each_scores(mode, seed, turns):
    state = R.new_state(options={"mode": mode, "start": "now"}, seed=seed, now_ms=T)
    state = R.apply(state, "bot", {"type": "join"}, T).state
    for turn in range(turns + 1):
        view = R.view(state, "bot", T + turn)
        if view["over"]:
            break
        found = bot.claims(view)
        assert len(found) == claims_count(state), mode
        for cards in found[:5]:
            result = R.apply(state, "bot", {"type": "claim", "cards": cards}, T + turn)
            assert result.outcome.get("claim") == "set", (cards, result.outcome)
        state = R.apply(state, "bot", {"type": "claim", "cards": found[0]}, T + turn).state


def test_the_bot_plays_memory_to_its_end_by_turning_cards_up(monkeypatch):
    table = {"state": R.new_state(options={"mode": "memory", "start": "now"}, seed=5, now_ms=T)}
    table["state"] = R.apply(table["state"], "bot", {"type": "join"}, T).state

    def call(method, path, body=None):
        try:
            result = R.apply(table["state"], "bot", body, T + 1)
        except ValueError as error:
            return 400, {"detail": str(error)}
        table["state"] = result.state
        return 200, {"outcome": result.outcome}

    monkeypatch.setattr(bot, "call", call)
    monkeypatch.setattr(bot, "say", lambda text: None)
    monkeypatch.setattr(bot.time, "sleep", lambda seconds: None)
    game = bot.Game(1, "set")
    for _ in range(200):
        view = R.view(table["state"], "bot", T + 2)
        if view["over"]:
            break
        assert view["face_down"] and all("card" not in cell for cell in view["board"])
        game.play_memory(view)
    assert table["state"].over and table["state"].scores["bot"] >= 22
