"""The plain-text Set table protocol: route parsing, error messages and BOARD / SCORES text."""

from __future__ import annotations

import doctest

import pytest

from cards.engine import protocol_text
from cards.engine.protocol_text import (
    BAD_NAME,
    BAD_PICK,
    BAD_SCORES,
    BAD_WATCH_NAME,
    NO_TABLE,
    UNKNOWN,
    ProtocolError,
    Request,
    board_text,
    error_text,
    parse_request,
    parse_route,
    scores_text,
    split_table,
)
from cards.engine.table import DeclareRules, DeclareState

T = 1_700_000_000_000


def test_the_messages_are_the_specs_exactly():
    assert BAD_NAME == "Your player name ID contains non-alphanumeric characters."
    assert BAD_WATCH_NAME == "Your player name ID may only consist of alphanumeric characters."
    assert BAD_PICK == "Your requested pick was not valid."
    assert BAD_SCORES == (
        "There should be no additional characters following /scores in the request."
    )
    assert NO_TABLE == "There is no table with that id."
    assert UNKNOWN == "Unknown request."


@pytest.mark.parametrize(
    "path, expected",
    [
        ("/look/alice", Request("look", "alice")),
        ("/declare/Bob_2", Request("declare", "Bob_2")),
        ("/add/x", Request("add", "x")),
        ("/watch/_", Request("watch", "_")),
        ("/scores", Request("scores")),
        ("/pick/alice/0,1", Request("pick", "alice", 0, 1)),
        ("/pick/alice/12,007", Request("pick", "alice", 12, 7)),
        ("/tables/7/look/bob", Request("look", "bob", table_id=7)),
        ("/tables/7/scores", Request("scores", table_id=7)),
        ("/tables/12/pick/bob/2,3", Request("pick", "bob", 2, 3, table_id=12)),
        ("/look/alice?x=1&y=/", Request("look", "alice")),
        ("/scores?anything", Request("scores")),
        ("/look/%61lice", Request("look", "alice")),
        ("/pick/alice/0%2C1", Request("pick", "alice", 0, 1)),
        ("/tables/%37/watch/bob", Request("watch", "bob", table_id=7)),
    ],
)
def test_routes_parse(path, expected):
    assert parse_request(path) == expected


@pytest.mark.parametrize(
    "path, message",
    [
        ("/look/", BAD_NAME),
        ("/look", BAD_NAME),
        ("/look/al ice", BAD_NAME),
        ("/look/al%20ice", BAD_NAME),
        ("/look/alice/", BAD_NAME),
        ("/declare/bob!", BAD_NAME),
        ("/add/", BAD_NAME),
        ("/add/%C3%A9", BAD_NAME),  # é: \w would accept it, the grammar does not
        ("/look/%D9%A3", BAD_NAME),  # an Arabic-Indic digit
        ("/look/bob%0A", BAD_NAME),  # a trailing newline
        ("/watch/", BAD_WATCH_NAME),
        ("/watch", BAD_WATCH_NAME),
        ("/watch/b-b", BAD_WATCH_NAME),
        ("/pick/alice", BAD_PICK),
        ("/pick/alice/0", BAD_PICK),
        ("/pick/alice/0,", BAD_PICK),
        ("/pick/alice/0,1/", BAD_PICK),
        ("/pick/alice/-1,0", BAD_PICK),
        ("/pick/alice/a,b", BAD_PICK),
        ("/pick/al!ce/0,1", BAD_PICK),
        ("/pick/", BAD_PICK),
        ("/pick", BAD_PICK),
        ("/pick/alice/0,99999999999999999999", BAD_PICK),
        ("/pick/alice/٣,0", BAD_PICK),
        ("/scores/", BAD_SCORES),
        ("/scores/alice", BAD_SCORES),
        ("/scoresx", BAD_SCORES),
        ("/", UNKNOWN),
        ("", UNKNOWN),
        ("/lookup/alice", UNKNOWN),
        ("/LOOK/alice", UNKNOWN),
        ("//look/alice", UNKNOWN),
        ("/tables", UNKNOWN),
        ("/favicon.ico", UNKNOWN),
        ("/tables/x/look/bob", NO_TABLE),
        ("/tables//look/bob", NO_TABLE),
        ("/tables/", NO_TABLE),
        ("/tables/0/look/bob", NO_TABLE),
        ("/tables/-1/look/bob", NO_TABLE),
        ("/tables/1e3/look/bob", NO_TABLE),
        ("/tables/" + "9" * 30 + "/look/bob", NO_TABLE),
        ("/tables/7", UNKNOWN),
        ("/tables/7/", UNKNOWN),
        ("/tables/7/look/", BAD_NAME),
        ("/tables/7/scores/", BAD_SCORES),
    ],
)
def test_errors_carry_the_specs_message(path, message):
    with pytest.raises(ProtocolError) as caught:
        parse_request(path)
    assert caught.value.message == message == str(caught.value)
    assert caught.value.status == 404
    assert caught.value.body == message + "\n"


def test_route_errors_name_the_table_they_concern():
    with pytest.raises(ProtocolError) as caught:
        parse_request("/tables/7/look/")
    assert caught.value.table_id == 7
    with pytest.raises(ProtocolError) as caught:
        parse_request("/tables/x/look/bob")
    assert caught.value.table_id is None


def test_a_decoded_path_is_not_decoded_again():
    assert split_table("/look/a%2541", decoded=False) == (None, "/look/a%41")
    with pytest.raises(ProtocolError) as caught:
        parse_request("/look/a%41", decoded=True)
    assert caught.value.message == BAD_NAME
    assert parse_request("/look/a%41") == Request("look", "aA")
    # A "?" that came from %3F is part of a decoded path.
    with pytest.raises(ProtocolError):
        parse_request("/look/a?b", decoded=True)


def test_split_then_parse_lets_the_platform_check_the_table_first():
    table_id, route = split_table("/tables/9/pick/b!b/0,0")
    assert (table_id, route) == (9, "/pick/b!b/0,0")
    with pytest.raises(ProtocolError) as caught:
        parse_route(route, table_id)
    assert caught.value.message == BAD_PICK and caught.value.table_id == 9


def test_requests_map_to_engine_actions_and_replies():
    assert parse_request("/look/a").action() == {"type": "look"}
    assert parse_request("/watch/a").action() == {"type": "watch"}
    assert parse_request("/declare/a").action() == {"type": "declare"}
    assert parse_request("/add/a").action() == {"type": "add"}
    assert parse_request("/pick/a/1,2").action() == {"type": "pick", "row": 1, "col": 2}
    assert parse_request("/scores").action() is None
    assert [parse_request(p).reply for p in ("/look/a", "/add/a", "/scores", "/watch/a")] == [
        "BOARD",
        "SCORES",
        "SCORES",
        "BOARD",
    ]
    assert parse_request("/scores").joins is False and parse_request("/pick/a/0,0").joins


def test_error_text_ends_with_a_newline():
    assert error_text(UNKNOWN) == "Unknown request.\n"


# --- BOARD and SCORES -----------------------------------------------------------------------------


def table(**options) -> DeclareState:
    return DeclareRules.new_state(options=options, seed=5, now_ms=T)


def act(state, player, kind, now, **fields):
    return DeclareRules.apply(state, player, {"type": kind, **fields}, now).state


def test_board_text_shape_and_line_endings():
    state = table()
    text = board_text(state, "alice")
    lines = text.split("\n")
    assert text.endswith("\n") and "\r" not in text
    assert lines[0] == "3x4" and lines[1] == "none"
    assert lines[2:-1] == ["up " + card for row in state.to_json()["board"] for card in row]
    assert len(lines) == 2 + 12 + 1


def test_board_text_from_the_declarers_and_others_points_of_view():
    state = act(table(), "alice", "declare", T)
    state = act(state, "alice", "pick", T + 1, row=1, col=2)
    mine = board_text(state, "alice").splitlines()
    theirs = board_text(state, "bob").splitlines()
    assert mine[1] == f"my {T + 5000}" and theirs[1] == f"up {T + 5000}"
    assert mine[2 + 4 + 2].startswith("my ") and theirs[2 + 4 + 2].startswith("up ")
    assert sum(line.startswith("my ") for line in mine[2:]) == 1
    assert board_text(state, None).splitlines()[1] == f"up {T + 5000}"


def test_a_three_attribute_board_is_3x3():
    assert board_text(table(attributes=3), "a").startswith("3x3\nnone\n")


def test_scores_text_is_sorted_by_code_point_with_votes():
    state = table()
    for name in ("bob", "Zed", "alice", "_x", "B"):
        state = act(state, name, "look", T)
    state = act(state, "alice", "add", T + 1)
    assert scores_text(state) == ("B 0 none\nZed 0 none\n_x 0 none\nalice 0 add\nbob 0 none\n")


def test_scores_text_with_no_players_is_empty():
    assert scores_text(table()) == ""


def test_the_modules_examples_hold():
    result = doctest.testmod(protocol_text, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
