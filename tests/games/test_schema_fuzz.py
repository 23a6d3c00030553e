"""Schemathesis against the JSON API: no request gets a 5xx, and every answer is what the OpenAPI
schema (/api/schema/) says it can be: a documented status code and content type, and a body of
the documented shape. Bad input of any kind is a 4xx the schema lists, with a JSON `detail`.

Schemathesis reads the schema and sends every operation examples, its coverage cases (each
boundary and each kind of wrong value) and random requests, valid and invalid, with all of its
checks. Where a valid request may still be refused by the rules (a move in the game's state, a
save that does not replay), its `positive_data_acceptance` check accepts a 400: those
operations, and why, are listed in schemathesis.toml beside this file, which also serves the
command line (see its first lines).

The server is a daphne process of its own (tests.conftest.Server, rate limits off), so the
thousands of games fuzzing creates touch no other test. Before fuzzing, a few real games are
made (a Set declare table, a classic table, a started Square Game, a Set War game); generated
game ids are mostly mapped onto them and a seat's token is sent, so requests reach the rules
and not only the 404 of an unknown id. The run is derandomized: the same cases every time.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from tests.conftest import Server
from tests.examples import EXAMPLE_DECK

# One worker runs the whole module, so its tests share one server.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("schema-fuzz")]

CONFIG = Path(__file__).with_name("schemathesis.toml")


@pytest.fixture(scope="module")
def api_server(tmp_path_factory):
    running = Server(tmp_path_factory.mktemp("schema-fuzz")).start()
    yield running
    running.stop()


def _created(response: httpx.Response) -> dict:
    assert response.status_code == 201, response.text
    return response.json()


@pytest.fixture(scope="module")
def games(api_server) -> dict[str, tuple[int, str | None]]:
    """Real games by what they are: (id, the token of a seat there, or None where nobody sits)."""
    made: dict[str, tuple[int, str | None]] = {}
    with httpx.Client(base_url=api_server.url, timeout=30) as http:

        def create(what: str, kind: str, options: dict, *names: str) -> None:
            body = {"kind": kind, "open": True, "options": options}
            game = _created(http.post("/api/games/", json=body))
            token = None
            for name in names:
                joined = http.post(f"/api/games/{game['id']}/join", json={"name": name})
                token = _created(joined)["token"]
            made[what] = (game["id"], token)

        create("declare", "set", {"rules": "declare", "deck": EXAMPLE_DECK}, "ann")
        create("classic", "set", {"rules": "classic", "attributes": 3}, "bob")
        # Both seats taken, so it has started; di, the last seat, makes the opening.
        create("square", "square", {"players": 2}, "cy", "di")
        made["setwar"] = (
            _created(http.post("/api/setwar/", json={"players": 2, "seed": 7}))["id"],
            None,
        )
    return made


@pytest.fixture(scope="module")
def api_schema(api_server, games):
    return schemathesis.openapi.from_url(
        f"{api_server.url}/api/schema/", config=schemathesis.Config.from_path(CONFIG)
    )


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=20,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_answer_is_one_the_schema_documents(case, games):
    # Computers join only the started Square Game, which refuses them after reading the body:
    # computers seated at the Set tables would play on while the cases run.
    real = [games["square"]] if case.operation.path.endswith("/computers") else list(games.values())
    headers = {}
    game_id = case.path_parameters.get("game_id") if case.path_parameters else None
    # Any integer is a valid id (coverage cases carry it as its text), so mapping one onto a
    # real game keeps a valid case valid; some keep their own value and meet the 404 of a game
    # that does not exist.
    if isinstance(game_id, str) and re.fullmatch(r"-?[0-9]+", game_id):
        game_id = int(game_id)
    if isinstance(game_id, int) and not isinstance(game_id, bool):
        slot = game_id % (len(real) + 1)
        if slot < len(real):
            case.path_parameters["game_id"], token = real[slot]
            if token:
                headers["Authorization"] = f"Token {token}"
    case.call_and_validate(headers=headers)


# Schemathesis sends bodies of the wrong content type too, but judges the answers only by their
# status (no 5xx): the answers to bodies that are not JSON are checked here.
NOT_JSON = [
    ("malformed JSON", "application/json", b'{"name": "ann", ', "JSON parse error"),
    ("a text body", "text/plain", b"name=ann", "text/plain"),
    ("a form", "application/x-www-form-urlencoded", b"name=ann", "x-www-form-urlencoded"),
    ("no Content-Type", None, b'{"name": "ann"}', "without a Content-Type"),
]


@pytest.mark.parametrize("what, content_type, body, named", NOT_JSON, ids=[c[0] for c in NOT_JSON])
def test_a_body_that_is_not_json_gets_a_documented_4xx_naming_why(
    api_server, api_schema, games, what, content_type, body, named
):
    table, token = games["declare"]
    posts = [op for op in (r.ok() for r in api_schema.get_all_operations()) if op.method == "post"]
    assert posts
    with httpx.Client(base_url=api_server.url, timeout=30) as http:
        for operation in posts:
            headers = {"Authorization": f"Token {token}"}
            if content_type:
                headers["Content-Type"] = content_type
            path = operation.path.replace("{game_id}", str(table))
            path = path.replace("{challenge_id}", "1").replace("{name}", "ann")
            path = path.replace("{line}", "1").replace("{report_id}", "1")
            path = path.replace("{tournament_id}", "1")
            response = http.post(path, content=body, headers=headers)
            label = f"{operation.label} with {what}"
            assert 400 <= response.status_code < 500, (label, response.status_code, response.text)
            assert str(response.status_code) in operation.responses.status_codes, label
            assert response.headers["Content-Type"] == "application/json", label
            assert named in response.json()["detail"], (label, response.json())
            operation.validate_response(response)
