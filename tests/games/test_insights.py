"""Insights (issue 27, item 5): seconds per set and wrong claims by kind of set, board size and time
since the last deal over a player's last games, their trend, and the kinds they miss most, worked
out from the stored move logs (games.insights, cards.insights)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cards.insights import BOARD_BUCKETS, DEAL_BUCKETS, board_bucket, deal_bucket
from games import insights, services
from games.models import Game
from games.rules import get_rules
from tests.accounts.test_profiles import T, account, play_set_table

pytestmark = pytest.mark.django_db

# A 3-attribute deck (digits: number, colour, shading) dealt 9 cards then 6 more: on the first
# board A (only shading differs) and B (all three differ); A's cards are replaced by 200 111 122,
# which make C (all differ) with 011; B's by the last three; C is then the board's only set, and
# once it is taken the six cards left hold none: the game is over.
A = ["000", "001", "002"]
B = ["012", "120", "201"]
C = ["200", "122", "011"]
DECK = [*A, *B, "221", "011", "220", "200", "111", "122", "112", "010", "202"]
WRONG = ["221", "220", "200"]  # number alike, colour and shading not: a kind of 2, not a set


def _claim(seat, game, cards, at):
    return services.move_submit(
        game_id=game.pk, seat=seat, action={"type": "claim", "cards": cards}, now=at
    )


def hand_made_game(ann, bob):
    """ann finds A 4 s after the deal, claims wrong 6 s after the next, bob finds B 20 s after
    it, and ann finds C 36 s after B's cards came."""
    game = services.game_create(
        kind="set",
        options={"rules": "classic", "attributes": 3, "deck": DECK, "start": "now"},
        now=T,
        is_open=True,
    )
    seats = [services.game_join(game_id=game.pk, player=p, now=T) for p in (ann, bob)]
    _claim(seats[0], game, A, T + 4_000)
    _claim(seats[0], game, WRONG, T + 10_000)
    _claim(seats[1], game, B, T + 24_000)
    _claim(seats[0], game, C, T + 60_000)
    game.refresh_from_db()
    assert game.status == Game.Status.OVER
    return game


def test_a_hand_made_games_figures_are_exact():
    ann, bob = account("ann"), account("bob")
    game = hand_made_game(ann, bob)
    figures = insights.game_figures([game.pk])[game.pk]
    # [kind, board size, ms since the last deal, ms it took]
    assert figures["ann"]["sets"] == [[1, 9, 4_000, 4_000], [3, 9, 36_000, 36_000]]
    assert figures["ann"]["wrong"] == [[2, 9, 6_000]]
    assert figures["bob"]["sets"] == [[3, 9, 20_000, 20_000]]
    # The boards both saw: A and B; B and C; C alone.
    assert figures["ann"]["seen"] == figures["bob"]["seen"] == {"1": 1, "3": 4}


def test_a_hand_made_historys_insights_are_exact():
    ann, bob = account("ann"), account("bob")
    game = hand_made_game(ann, bob)
    answer = insights.account_insights(ann.user)
    assert answer["games_asked"] == 50 and answer["games_counted"] == 1
    (set_insights,) = answer["kinds"]
    assert set_insights["kind"] == "set" and set_insights["games"] == [game.pk]
    assert set_insights["totals"] == {
        "games": 1,
        "sets": 2,
        "seconds_per_set": 20.0,
        "wrong_claims": 1,
        "wrong_share": 0.333,
    }
    by = {
        split["key"]: {row["key"]: row for row in split["rows"]} for split in set_insights["splits"]
    }
    assert list(by["kind"]) == ["differ-1", "differ-2", "differ-3"]
    assert by["kind"]["differ-1"]["sets"] == 1 and by["kind"]["differ-1"]["seconds_per_set"] == 4.0
    assert (
        by["kind"]["differ-2"]["wrong_claims"] == 1 and by["kind"]["differ-2"]["wrong_share"] == 1.0
    )
    assert by["kind"]["differ-3"]["seconds_per_set"] == 36.0
    assert by["board"]["12"]["sets"] == 2 and by["board"]["15"]["sets"] == 0
    assert by["board"]["18+"]["seconds_per_set"] is None
    assert [row["sets"] for row in by["since_deal"].values()] == [1, 0, 0, 1]
    assert [row["wrong_claims"] for row in by["since_deal"].values()] == [0, 1, 0, 0]
    assert by["since_deal"]["30+"]["seconds_per_set"] == 36.0
    # One game: all of it is the later half.
    assert by["kind"]["differ-1"]["earlier"]["sets"] == 0
    assert by["kind"]["differ-1"]["later"]["sets"] == 1
    assert set_insights["trend"] == [
        {
            "games": [1, 1],
            "sets": 2,
            "seconds_per_set": 20.0,
            "wrong_claims": 1,
            "wrong_share": 0.333,
        }
    ]
    # Sets seen: 1 of kind 1, 4 of kind 3 (20% and 80%); found: 1 and 1 (50% each).
    assert [(row["key"], row["ratio"]) for row in set_insights["missed"]] == [
        ("differ-3", 0.625),
        ("differ-1", 2.5),
    ]
    assert set_insights["practice"] == {
        "rules": "classic",
        "practice": True,
        "attributes": 4,
        "favour": ["differ-1", "differ-3"],
    }


def test_the_last_games_are_the_newest_and_practice_does_not_count():
    ann, bob = account("ann"), account("bob")
    old = hand_made_game(ann, bob)
    newer = [play_set_table([ann, bob], rated=False)[0] for _ in range(2)]
    practice = services.game_create(
        kind="set", options={"practice": True, "attributes": 3, "start": "now"}, now=T
    )
    services.game_join(game_id=practice.pk, player=ann, now=T)
    (set_insights,) = insights.account_insights(ann.user, 20)["kinds"]
    assert set_insights["games"] == [game.pk for game in reversed(newer)] + [old.pk]


def test_warm_insights_are_read_from_the_cache(django_assert_max_num_queries):
    ann, bob = account("ann"), account("bob")
    hand_made_game(ann, bob)
    first = insights.account_insights(ann.user)
    with django_assert_max_num_queries(1):  # what the account's last game is
        assert insights.account_insights(ann.user) == first
    hand_made_game(ann, bob)  # a new game: new insights
    assert insights.account_insights(ann.user)["games_counted"] == 2


@given(size=st.integers(1, 243))
def test_every_board_size_has_one_bucket(size):
    key = board_bucket(size)
    assert key in [bucket[0] for bucket in BOARD_BUCKETS]
    assert (key == "12") == (size <= 12) and (key == "18+") == (size > 15)


@given(first=st.integers(0, 10**8), second=st.integers(0, 10**8))
def test_deal_buckets_keep_the_order_of_times(first, second):
    keys = [bucket[0] for bucket in DEAL_BUCKETS]
    low, high = sorted((first, second))
    assert keys.index(deal_bucket(low)) <= keys.index(deal_bucket(high))
    assert deal_bucket(high) != "30+" or high >= 30_000


@pytest.mark.parametrize("value", ["0", "49", "abc", "50.0", "-20", "20 games", "1e2"])
def test_a_bad_number_of_games_is_refused_naming_the_choices(value):
    with pytest.raises(insights.BadGames, match="games must be one of 20, 50, 200"):
        insights.games_choice(value)


def test_the_choices_of_games():
    assert [insights.games_choice(v) for v in (None, "", "20", "200")] == [50, 50, 20, 200]


def test_the_api_answers_every_figure_the_page_shows(client):
    ann, bob = account("ann"), account("bob")
    game = hand_made_game(ann, bob)
    response = client.get("/api/players/ANN/insights?games=20")
    assert response.status_code == 200
    body = response.json()
    assert body["name"] == "ann" and body["games_asked"] == 20 and body["games_counted"] == 1
    assert body["choices"] == [20, 50, 200]
    (kind,) = body["kinds"]
    assert kind["games"] == [game.pk]
    assert set(kind) == {
        "kind",
        "games",
        "definitions",
        "totals",
        "splits",
        "trend",
        "missed",
        "practice",
    }
    assert [split["key"] for split in kind["splits"]] == ["kind", "board", "since_deal"]
    row = kind["splits"][2]["rows"][0]
    assert set(row) == {
        "key",
        "label",
        "short",
        "sets",
        "seconds_per_set",
        "wrong_claims",
        "wrong_share",
        "earlier",
        "later",
    }
    assert kind["practice"]["favour"] == ["differ-1", "differ-3"]
    assert client.get("/api/players/ann/insights").json()["games_asked"] == 50


def test_the_api_for_no_such_account_is_a_404(client):
    response = client.get("/api/players/nobody/insights")
    assert response.status_code == 404
    assert "nobody" in response.json()["detail"] or response.json()["detail"]


@pytest.mark.parametrize("value", ["7", "all", "50x", "-50"])
def test_the_api_refuses_a_bad_number_of_games_naming_it(client, value):
    account("ann")
    response = client.get(f"/api/players/ann/insights?games={value}")
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert "games must be one of 20, 50, 200" in detail and repr(value) in detail


def test_the_schema_documents_insights_with_an_example(client):
    schema = client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/players/{name}/insights"]["get"]
    assert {"200", "400", "404"} <= set(operation["responses"])
    assert [p["name"] for p in operation["parameters"] if p["in"] == "query"] == ["games"]
    assert "examples" in operation["responses"]["200"]["content"]["application/json"]


def test_private_games_count_only_for_the_account_itself(client):
    ann, bob = account("ann"), account("bob")
    hand_made_game(ann, bob)
    private, _ = play_set_table([ann, bob], rated=False, is_open=False)
    Game.objects.filter(pk=private.pk).update(link_key="k" * 22)
    assert client.get("/api/players/ann/insights").json()["games_counted"] == 1
    client.force_login(ann.user)
    assert client.get("/api/players/ann/insights").json()["games_counted"] == 2


def test_the_profile_shows_the_insights_charts_and_a_practice_button(client):
    ann, bob = account("ann"), account("bob")
    hand_made_game(ann, bob)
    response = client.get("/u/ann")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="insights"' in page
    assert page.count('class="chart"') >= 7  # the trend, then two charts for each of 3 splits
    assert "seconds per set and wrong claims, 1 games at a time" in page
    assert "ann&#x27;s seconds per set, by kind of set" in page
    assert 'data-kind="differ-3"' in page and "3 attributes differ" in page
    assert 'name="favour" value="differ-1,differ-3"' in page
    assert "/api/players/ann/insights?games=50" in page


def test_the_practice_button_opens_a_practice_table_favouring_those_kinds(client):
    ann, bob = account("ann"), account("bob")
    hand_made_game(ann, bob)
    client.force_login(ann.user)
    fields = {
        "rules": "classic",
        "mode": "normal",
        "attributes": "4",
        "visibility": "private",
        "computers": "0",
        "practice": "on",
        "favour": "differ-1,differ-3",
    }
    response = client.post("/play/new", fields)
    assert response.status_code == 302
    game = Game.objects.order_by("-pk").first()
    assert response["Location"] == f"/play/{game.pk}/"
    assert game.options["practice"] is True and game.options["favour"] == ["differ-1", "differ-3"]
    assert game.link_key and not game.rated


def test_a_bad_number_of_games_on_the_profile_is_a_400_with_the_sentence(client):
    account("ann")
    response = client.get("/u/ann?games=9")
    assert response.status_code == 400
    assert "games must be one of 20, 50, 200" in response.content.decode()


def test_favour_over_the_api_is_refused_with_a_sentence(client):
    ann = account("ann")
    client.force_login(ann.user)
    response = client.post(
        "/api/games/",
        {"kind": "set", "options": {"favour": ["differ-9"]}},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "The favour option names kinds of set" in response.json()["detail"]


def _counted_as_the_tally(game):
    figures = insights.game_figures([game.pk])[game.pk]
    tally = game.state["tally"]
    for name, counts in tally.items():
        assert len(figures[name]["sets"]) == counts["sets"]
        assert len(figures[name]["wrong"]) == counts["wrong"]
        assert all(1 <= row[0] <= game.state["attributes"] for row in figures[name]["sets"])
        assert all(row[2] >= 0 and row[3] >= 0 for row in figures[name]["sets"])
    return figures


def test_a_table_that_waits_for_its_start_counts_every_set_from_its_deal():
    ann, bob = account("ann"), account("bob")
    game, _ = play_set_table([ann, bob], rated=False, attributes=4)
    figures = _counted_as_the_tally(game)
    # The first set came 1 s after the deal (play_set_table's first step), not from the join.
    first = min(figures["ann"]["sets"] + figures["bob"]["sets"], key=lambda row: row[3])
    assert first[3] == 1000 and first[2] == 1000


def test_a_declare_tables_picks_count_as_claims():
    ann, bob = account("ann"), account("bob")
    game = services.game_create(
        kind="set", options={"rules": "declare", "attributes": 3, "start": "now"}, now=T
    )
    seats = [services.game_join(game_id=game.pk, player=p, now=T) for p in (ann, bob)]
    at = T
    for turn in range(300):
        game.refresh_from_db()
        if game.status == Game.Status.OVER:
            break
        seat = seats[turn % 2]
        for action in get_rules("set").bot_actions(game.state, seat.name):
            at += 500
            services.move_submit(game_id=game.pk, seat=seat, action=action, now=at)
    game.refresh_from_db()
    assert game.status == Game.Status.OVER
    figures = _counted_as_the_tally(game)
    assert figures["ann"]["sets"] and figures["bob"]["sets"]


def test_a_guest_has_no_insights(client):
    from games.models import Player

    Player.objects.create(name="wanderer")  # a guest: a player without an account
    assert client.get("/api/players/wanderer/insights").status_code == 404
    assert client.get("/u/wanderer").status_code == 404


def test_a_favoured_table_replays_to_its_stored_state():
    from games.replay import replay

    ann = account("ann")
    game = services.game_create(
        kind="set", options={"favour": ["differ-1"], "start": "now"}, seed=7, now=T
    )
    seat = services.game_join(game_id=game.pk, player=ann, now=T)
    for turn in range(3):
        game.refresh_from_db()
        action = get_rules("set").bot_actions(game.state, seat.name)[0]
        services.move_submit(game_id=game.pk, seat=seat, action=action, now=T + 1000 * (turn + 1))
    game.refresh_from_db()
    assert game.options["rules"] == "classic" and not game.rated
    assert replay(game) == game.state


def test_a_favoured_table_is_not_rated(client):
    ann = account("ann")
    client.force_login(ann.user)
    response = client.post(
        "/api/games/",
        {"kind": "set", "rated": True, "options": {"favour": ["differ-1"]}},
        content_type="application/json",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "not_rated"
    assert "deals some kinds of set more often is not rated" in body["detail"]


def test_an_account_without_games_has_a_sentence_instead_of_charts(client):
    account("quiet")
    page = client.get("/u/quiet").content.decode()
    insights_part = page.split('id="insights"')[1]
    assert "No finished Set game to learn from yet" in insights_part
    assert '<svg class="chart"' not in insights_part
    body = client.get("/api/players/quiet/insights").json()
    assert body["games_counted"] == 0 and body["kinds"] == []
