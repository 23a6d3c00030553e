"""Races across two server processes: many requests at the same moment, half to each process,
and exactly one outcome (issue 23). Each answer is a 2xx or a 4xx naming why, never a 5xx."""

from __future__ import annotations

import datetime
import json
import re
import unicodedata

import httpx
import pytest

from cards.engine.rules import find_set
from tests.examples import EXAMPLE_DECK
from tests.processes.conftest import at_once

PASSWORD = "a long passphrase for the race"
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def browser(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=30)


def form_token(client: httpx.Client, path: str) -> str:
    """The CSRF token of a page's form (and the browser's CSRF cookie with it)."""
    page = client.get(path)
    assert page.status_code == 200, page.text[:300]
    return CSRF.search(page.text).group(1)


def no_server_error(answers) -> None:
    for answer in answers:
        assert not isinstance(answer, Exception), answer
        assert answer.status_code < 500, (answer.status_code, answer.text[:300])


def test_twenty_sign_ups_of_one_name_in_its_forms_make_one_account(pair):
    """Zoë, ZOË, zoë... in NFC and NFD, ten through the sign-up form and ten through the API,
    half to each process: one account, and every other answer says the name is taken."""
    forms = ["Zoë", "ZOË", "zoë", "zOë", "zoË", "ZoË"]
    forms += [unicodedata.normalize("NFD", name) for name in ("Zoë", "ZOË", "zoë", "zOë")]
    assert {unicodedata.normalize("NFC", name).casefold() for name in forms} == {"zoë"}
    clients = [browser(pair[i % 2].url) for i in range(20)]
    tokens = [form_token(client, "/accounts/signup/") for client in clients[:10]]

    def sign_up(i: int) -> httpx.Response:
        name = forms[i % 10]
        if i < 10:  # the form, as a browser sends it
            return clients[i].post(
                "/accounts/signup/",
                data={
                    "csrfmiddlewaretoken": tokens[i],
                    "username": name,
                    "password1": PASSWORD,
                    "password2": PASSWORD,
                },
            )
        return clients[i].post("/api/accounts", json={"username": name, "password": PASSWORD})

    answers = at_once(20, sign_up)
    no_server_error(answers)
    made = [a for a in answers if a.status_code in (201, 302)]
    assert len(made) == 1, [(a.status_code, a.text[:120]) for a in answers]
    accounts = pair[0].shell(
        "import unicodedata\n"
        "from django.contrib.auth import get_user_model\n"
        "print(sum(unicodedata.normalize('NFC', u.username).casefold() == 'zoë'\n"
        "          for u in get_user_model().objects.all()))"
    )
    assert accounts == "1"


def finished_game(url: str, players: int) -> tuple[int, list[str]]:
    """A classic table of `players` seats (its deck in order), played to its end."""
    with httpx.Client(base_url=url, timeout=30) as http:
        created = http.post(
            "/api/games/",
            json={
                "kind": "set",
                "options": {"start": "now", "rules": "classic", "deck": EXAMPLE_DECK},
            },
        )
        game_id, key = created.json()["id"], created.json()["key"]  # private: joined by its key
        tokens = [
            http.post(f"/api/games/{game_id}/join?key={key}", json={"name": f"p{i}"}).json()[
                "token"
            ]
            for i in range(players)
        ]
        auth = {"Authorization": f"Token {tokens[0]}"}
        for _ in range(60):
            view = http.get(f"/api/games/{game_id}/", headers=auth).json()
            if view["status"] == "over":
                return game_id, tokens
            found = find_set([entry["card"] for entry in view["view"]["board"] if entry])
            claim = {"type": "claim", "cards": [str(card) for card in found]}
            assert http.post(f"/api/games/{game_id}/moves", json=claim, headers=auth).is_success
    raise AssertionError(f"game {game_id} did not end")


def games_after(server, game_id: int) -> list[int]:
    found = server.shell(
        f"from games.models import Game\nprint(list(Game.objects.filter(pk__gt={game_id})"
        ".order_by('pk').values_list('pk', flat=True)))"
    )
    return json.loads(found)


def test_every_player_pressing_play_again_at_once_lands_at_one_new_game(pair):
    game_id, tokens = finished_game(pair[0].url, players=6)
    clients = [browser(pair[i % 2].url) for i in range(6)]

    def rematch(i: int) -> httpx.Response:
        return clients[i].post(
            f"/api/games/{game_id}/rematch",
            json={},
            headers={"Authorization": f"Token {tokens[i]}"},
        )

    answers = at_once(6, rematch)
    no_server_error(answers)
    assert [a.status_code for a in answers] == [201] * 6, [a.text[:200] for a in answers]
    new_ids = {a.json()["game"]["id"] for a in answers}
    assert len(new_ids) == 1
    assert games_after(pair[0], game_id) == sorted(new_ids)  # no second game, seated or not
    new = answers[0].json()["game"]  # private as the game played: read with its key
    seats = httpx.get(f"{pair[1].url}/api/games/{new['id']}/?key={new['key']}").json()["seats"]
    assert sorted(seat["name"] for seat in seats) == [f"p{i}" for i in range(6)]


def test_one_account_starting_the_daily_puzzle_twice_at_once_gets_one_game(pair):
    name = "Puzzler"
    made = httpx.post(f"{pair[0].url}/api/accounts", json={"username": name, "password": PASSWORD})
    assert made.status_code == 201, made.text
    login = browser(pair[0].url)
    answer = login.post(
        "/accounts/login/",
        data={
            "csrfmiddlewaretoken": form_token(login, "/accounts/login/"),
            "login": name,
            "password": PASSWORD,
        },
    )
    assert answer.status_code == 302, answer.text[:300]
    token = form_token(login, "/puzzle/")
    before = games_after(pair[0], 0)
    # The same browser session, its two requests reaching the two processes.
    clients = [browser(pair[i].url) for i in range(2)]
    for client in clients:
        client.cookies = login.cookies

    def start(i: int) -> httpx.Response:
        return clients[i].post("/puzzle/", data={"csrfmiddlewaretoken": token})

    answers = at_once(2, start)
    no_server_error(answers)
    assert [a.status_code for a in answers] == [302, 302], [a.text[:200] for a in answers]
    assert answers[0].headers["location"] == answers[1].headers["location"]
    made = [pk for pk in games_after(pair[0], 0) if pk not in before]
    assert len(made) == 1, made
    game = clients[1].get(f"/api/games/{made[0]}/").json()  # private: its player reads it
    assert game["options"]["day"] == datetime.datetime.now(datetime.UTC).date().isoformat()
    assert [seat["name"] for seat in game["seats"]] == [name]


def test_fifty_claims_of_one_set_over_both_processes_make_one_winner(pair):
    with httpx.Client(base_url=pair[0].url, timeout=30) as http:
        options = {"start": "now", "rules": "classic", "deck": EXAMPLE_DECK}
        body = {"kind": "set", "open": True, "options": options}
        game_id = http.post("/api/games/", json=body).json()["id"]
        tokens = [
            http.post(f"/api/games/{game_id}/join", json={"name": f"p{i}"}).json()["token"]
            for i in range(50)
        ]
    clients = [browser(pair[i % 2].url) for i in range(50)]
    for client in clients:
        client.get("/healthz")  # connections opened beforehand, so the claims leave together
    claim = {"type": "claim", "cards": EXAMPLE_DECK[0:3]}

    def claim_set(i: int) -> httpx.Response:
        return clients[i].post(
            f"/api/games/{game_id}/moves",
            json=claim,
            headers={"Authorization": f"Token {tokens[i]}"},
        )

    answers = at_once(50, claim_set)
    no_server_error(answers)
    assert sorted(a.status_code for a in answers) == [200] + [400] * 49
    log = httpx.get(f"{pair[1].url}/api/games/{game_id}/moves").json()
    claims = [move for move in log if move["action"]["type"] == "claim"]
    winner = next(i for i, a in enumerate(answers) if a.status_code == 200)
    assert [move["actor"] for move in claims] == [f"p{winner}"]
    assert [move["seq"] for move in log] == list(range(1, 52))


pytestmark = pytest.mark.slow
