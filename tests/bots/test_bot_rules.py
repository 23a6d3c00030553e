"""examples/bot.py's own reading of a Set board agrees with the rules: on random tables of every
mode, each claim it would make scores, and it finds one whenever the table has one."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cards.engine.classic import ClassicRules as R
from cards.engine.table.ways import claims_count

BOT = Path(__file__).resolve().parents[2] / "examples" / "bot.py"
T = 1_700_000_000_000


def load_bot():
    spec = importlib.util.spec_from_file_location("example_bot", BOT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bot = load_bot()


@settings(max_examples=40, deadline=None)
@given(
    mode=st.sampled_from(["normal", "ultra", "chain", "puzzle"]),
    attributes=st.sampled_from([3, 4]),
    seed=st.integers(0, 2**32),
    turns=st.integers(0, 12),
)
def test_every_claim_the_bot_sees_scores_and_it_sees_one_when_there_is_one(
    mode, attributes, seed, turns
):
    options = {"attributes": attributes, "start": "now"}
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
