"""The Set table's story hook (cards.story): each kind of logged move told in words."""

from __future__ import annotations

from cards.story import table_story

ANN_WRONG = ["ONE/RED/SOLID/OVAL", "TWO/RED/SOLID/OVAL", "THREE/GREEN/SOLID/OVAL"]


def told(options, *moves, **reader):
    reader = {"viewer": None, "over": False, **reader}
    return table_story(options, list(moves), **reader)


def test_a_claim_logged_before_claims_said_why_is_explained_from_its_cards():
    outcome = {"action": "claim", "claim": "not_set", "cards": ANN_WRONG, "points": 0}
    (entry,) = told({"rules": "classic"}, (4, "ann", {"type": "claim"}, outcome, 40))
    assert entry["type"] == "wrong" and entry["version"] == 4 and entry["at"] == 40
    assert entry["why"] == ["color: red, red, green — two alike, one different"]
    assert entry["text"] == "ann claimed three cards that are not a set."
    assert [card["digits"] for card in entry["cards"]] == ["0002", "1002", "2102"]


def test_an_ultra_table_speaks_of_ultras():
    cards = [*ANN_WRONG, "ONE/PURPLE/OPEN/OVAL"]
    wrong = {"action": "claim", "claim": "not_set", "cards": cards, "why": ["x"], "points": 0}
    found = {"action": "claim", "claim": "set", "cards": cards, "points": 1, "hinted": True}
    count = {"action": "count", "count": 2}
    entries = told(
        {"rules": "classic", "mode": "ultra"},
        (1, "ann", {"type": "claim"}, wrong, 1),
        (2, "ann", {"type": "claim"}, found, 2),
        (3, "bo", {"type": "count"}, count, 3),
    )
    assert [e["text"] for e in entries] == [
        "ann claimed four cards that are not an ultra.",
        "ann found an ultra with a hint.",
        "bo asked how many ultras there are: 2 ultras.",
    ]


def test_a_start_a_deal_and_a_leave_from_elsewhere_are_told():
    entries = told(
        {"rules": "classic"},
        (3, "ann", {"type": "start"}, {"action": "start"}, 30),
        (4, "", {"type": "tick"}, {"action": "tick", "dealt": True}, 33),
        (5, "bo", {"type": "leave"}, {"action": "leave"}, 40),
    )
    assert [(e["type"], e["actor"], e["text"]) for e in entries] == [
        ("start", "ann", "ann pressed Start."),
        ("start", None, "The cards are dealt."),
        ("leave", "bo", "bo left the table."),
    ]


def test_declare_moves_votes_added_cards_timeouts_and_the_end():
    timeout = {"kind": "timeout", "at": 15, "player": "bo", "delta": -5, "score": 5}
    added = {"kind": "added", "at": 16, "cards": ANN_WRONG, "over": False}
    tick = {"action": "tick", "expired": [timeout, added], "over": False}
    vote = {"action": "add", "vote": "recorded", "added": None, "joined": True}
    found = {
        "action": "pick",
        "pick": "set",
        "cards": ANN_WRONG,
        "points": 10,
        "delta": 10,
        "over": True,
    }
    state = {"scores": {"ann": 20, "bo": 5}}
    entries = told(
        {"rules": "declare"},
        (1, "ann", {"type": "declare"}, {"action": "declare", "declare": "declarer"}, 10),
        (2, "", {"type": "tick"}, tick, 20),
        (3, "cy", {"type": "add"}, vote, 25),
        (4, "ann", {"type": "pick"}, found, 30),
        state=state,
        over=True,
    )
    assert [(e["type"], e["at"], e["text"], e.get("points")) for e in entries] == [
        ("declare", 10, "ann declared a set.", None),
        ("timeout", 15, "bo ran out of time to pick a set: −5 points.", -5),
        ("add", 16, "Three cards were added.", None),
        ("join", 25, "cy joined the table.", None),
        ("vote", 25, "cy voted to add cards.", None),
        ("set", 30, "ann found a set.", 10),
        ("end", 30, "The game is over: ann wins with 20 points.", None),
    ]
    assert len(entries[2]["cards"]) == 3


def test_a_shared_win_and_a_hint_with_nothing_to_show():
    state = {"scores": {"ann": 2, "bo": 2, "cy": 1}}
    over = {"action": "claim", "claim": "set", "cards": ANN_WRONG, "points": 1, "over": True}
    nothing = {"action": "hint", "hint": None, "message": "There is no set on the board."}
    entries = told(
        {"rules": "classic"},
        (1, "cy", {"type": "hint"}, nothing, 1),
        (2, "bo", {"type": "claim"}, over, 2),
        state=state,
        rated=True,
    )
    assert [e["text"] for e in entries] == [
        "cy asked for a hint: there is none on the board. A hint makes this rated game unrated.",
        "bo found a set.",
        "The game is over: ann and bo share the win with 2 sets.",
    ]
