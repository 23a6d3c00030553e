""" "How many sets?": both rule sets answer with the number of sets on the board, changing nothing
a player would see."""

from cards.engine import count_sets, parse_card
from cards.engine.classic import ClassicRules
from cards.engine.table import DeclareRules
from tests.games.conftest import EXAMPLE_DECK


def test_declare_table_counts_the_sets_on_the_board():
    state = DeclareRules.new_state(options={"deck": EXAMPLE_DECK}, seed=0, now_ms=0)
    result = DeclareRules.apply(state, "alice", {"type": "count"}, 10)
    # The worked example's board holds exactly three sets (set-table-protocol.md §11).
    assert result.outcome["count"] == 3
    assert result.state.board == state.board
    assert result.event is True  # alice joined by asking
    again = DeclareRules.apply(result.state, "alice", {"type": "count"}, 20)
    assert again.event is False and again.outcome["count"] == 3


def test_classic_table_counts_the_sets_and_needs_a_seat():
    state = ClassicRules.new_state(options={"deck": EXAMPLE_DECK}, seed=0, now_ms=0)
    seated = ClassicRules.apply(state, "solo", {"type": "join"}, 0).state
    result = ClassicRules.apply(seated, "solo", {"type": "count"}, 5)
    board = [parse_card(text) for text in seated.to_json()["board"]]
    assert result.outcome["count"] == count_sets(board)
    assert result.event is False
    assert result.state.board == seated.board
