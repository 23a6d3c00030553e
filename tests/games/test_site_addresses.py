"""Issue 24, item 3: addresses answer as a site does. A page's address without its final slash
redirects to it; every unknown path is the site's 404 page (JSON under /api/); the plain-text
protocol answers only its own routes (set-table-protocol.md §10), the same through Django (the
test client) and through the ASGI application that serves production."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.test import Client

pytestmark = pytest.mark.django_db

PAGES = [
    "/puzzle",
    "/stats",
    "/square",
    "/setwar",
    "/leaderboard",
    "/solitaire",
    "/play/5",
    "/games/5",
    "/games/5/replay",
    "/solitaire/5",
    "/setwar/5",
    "/square/5",
    "/leaderboard/classic",
]


@pytest.mark.parametrize("path", PAGES)
def test_a_page_address_without_its_slash_redirects_to_it(client, path):
    response = client.get(path + "?from=link")
    assert response.status_code == 301
    assert response["Location"] == path + "/?from=link"


def test_the_redirect_lands_on_the_page(client):
    response = client.get("/puzzle", follow=True)
    assert response.status_code == 200
    assert response.redirect_chain == [("/puzzle/", 301)]


@pytest.mark.parametrize("debug", [False, True])
def test_a_form_sent_without_the_slash_is_redirected_with_its_method(settings, debug):
    """A 308 keeps the POST and its body (a 301 would turn it into a GET; Django's own
    middleware raises under DEBUG)."""
    settings.DEBUG = debug
    response = Client().post("/solitaire", {"deck": "full"})
    assert response.status_code == 308
    assert response["Location"] == "/solitaire/"


def test_addresses_that_answer_without_a_slash_are_not_redirected(client):
    # The form's own answer: back to the lobby, which says what is wrong (never a slash's 308).
    refused = client.post("/play/new", {})
    assert refused.status_code == 302 and refused["Location"] == "/#new-table"
    assert client.get("/u/nobody").status_code == 404  # a profile's address has no slash


@pytest.mark.parametrize("path", ["/nothing", "/foo/bar/", "/LOOK/bob", "/lookup", "/x%0Ay"])
def test_an_unknown_path_is_the_sites_404_page(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert "Nothing here" in html and "There is no page at this address." in html
    assert "Unknown request." not in html


@pytest.mark.parametrize("path", ["/api/nothing", "/api/games/abc/", "/api/games/5/nothing"])
def test_an_unknown_path_under_api_is_a_json_404(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert set(response.json()) == {"detail"}


@pytest.mark.django_db(transaction=True)  # the protocol reads on its own thread's connection
@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/look/al-ice", "Your player name ID contains non-alphanumeric characters."),
        ("/look", "Your player name ID contains non-alphanumeric characters."),
        ("/watch/", "Your player name ID may only consist of alphanumeric characters."),
        ("/pick/alice/x", "Your requested pick was not valid."),
        ("/scores/", "There should be no additional characters following /scores in the request."),
        ("/tables/abc/look/a", "There is no table with that id."),
        ("/tables", "Unknown request."),
        ("/tables/", "There is no table with that id."),
        ("/tables/7x", "There is no table with that id."),
    ],
)
def test_the_protocols_malformed_requests_keep_their_lines(client, path, message):
    for reply in (as_reply(client.get(path)), asgi(path)):
        assert reply["status"] == 404, path
        assert reply["type"] == "text/plain; charset=utf-8", path
        assert reply["body"] == message + "\n", path


def test_the_protocols_routes_are_never_redirected_even_for_a_post(client):
    assert client.get("/scores").status_code == 200
    response = client.post("/look/alice")
    assert response.status_code == 404
    assert response.content == b"Unknown request.\n"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/nothing", "/LOOK/bob", "/puzzle"])
def test_production_serves_site_paths_from_django_not_the_protocol(path):
    """config.asgi's application: the protocol's lean app passes every other path on."""
    reply = asgi(path)
    if path == "/puzzle":
        assert reply["status"] == 301 and reply["location"] == "/puzzle/"
    else:
        assert reply["status"] == 404 and reply["type"].startswith("text/html")
        assert "Nothing here" in reply["body"]


@pytest.mark.django_db(transaction=True)
def test_api_answers_json_404_through_production_too():
    reply = asgi("/api/nothing")
    assert reply["status"] == 404
    assert set(json.loads(reply["body"])) == {"detail"}


def as_reply(response) -> dict:
    """A test client's response as the small dict `asgi` gives."""
    return {
        "status": response.status_code,
        "type": response["Content-Type"],
        "location": response.get("Location"),
        "body": response.content.decode(),
    }


def asgi(path: str) -> dict:
    """GET a decoded path from config.asgi.application, as daphne would send it."""
    from config.asgi import application

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }

    async def send():
        app = ApplicationCommunicator(application, scope)
        await app.send_input({"type": "http.request", "body": b"", "more_body": False})
        start = await app.receive_output(timeout=20)
        body = b""
        while True:
            chunk = await app.receive_output(timeout=20)
            body += chunk.get("body", b"")
            if not chunk.get("more_body"):
                break
        await app.wait(timeout=5)
        return start, body

    start, body = async_to_sync(send)()
    headers = {key.decode().lower(): value.decode() for key, value in start["headers"]}
    return {
        "status": start["status"],
        "type": headers.get("content-type", ""),
        "location": headers.get("location"),
        "body": body.decode(),
    }
