"""A request the server will not read (a request line or headers over 16 KiB) gets an answer
naming the limit, never a connection closed without a word (config/server.py)."""

from __future__ import annotations

import socket
import time
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.xdist_group("servers")


def ask(server, raw: bytes) -> bytes:
    """Send a raw request at once and read the answer until the server closes."""
    where = urlsplit(server.url)
    with socket.create_connection((where.hostname, where.port), timeout=10) as conn:
        conn.sendall(raw)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer


def status_and_body(answer: bytes) -> tuple[str, str]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(), body.decode()


@pytest.mark.parametrize("length", [20_000, 200_000])
def test_a_request_line_too_long_is_a_414_naming_the_limit(server, length):
    raw = b"GET /api/games/?q=" + b"a" * length + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    status, body = status_and_body(ask(server, raw))
    assert status == "HTTP/1.1 414 URI Too Long"
    assert body == "The request line is too long: at most 16384 bytes (method, path and query).\n"


@pytest.mark.parametrize(
    "headers",
    [
        b"X-Long: " + b"a" * 20_000 + b"\r\n",  # one header line past the limit
        b"".join(b"X-%d: %s\r\n" % (i, b"a" * 1000) for i in range(20)),  # many, 20 KB in all
    ],
    ids=["one-line", "in-all"],
)
def test_headers_too_large_are_a_431_naming_the_limit(server, headers):
    raw = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + b"\r\n"
    status, body = status_and_body(ask(server, raw))
    assert status == "HTTP/1.1 431 Request Header Fields Too Large"
    assert body == "The request's headers are too large: at most 16384 bytes in all.\n"


def test_requests_within_the_limits_are_served_on_the_same_connection(server):
    near = b"GET /healthz?q=" + b"a" * 16_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    last = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    answer = ask(server, near + last)
    assert answer.count(b"HTTP/1.1 200 OK") == 2, answer[:300]


def test_every_request_is_in_the_access_log_once(tmp_path):
    """daphne's access log keeps one line per request, as `make run` shows it (Twisted's own
    combined-log line, which daphne sends nowhere at its default verbosity, is not made:
    config.server)."""
    from tests.conftest import Server

    running = Server(tmp_path, PYTHONUNBUFFERED="1").start()  # each line written at once
    try:
        for n in range(3):
            raw = b"GET /healthz?n=%d HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % n
            assert ask(running, raw).startswith(b"HTTP/1.1 200 OK")
        deadline = time.monotonic() + 5
        while True:
            log = (tmp_path / f"server-{running.port}.log").read_text("utf-8", "replace")
            lines = [line for line in log.splitlines() if '"GET /healthz?n=' in line]
            if len(lines) >= 3 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
    finally:
        running.stop()
    assert len(lines) == 3, log[-2000:]
    assert all(" 200 " in line for line in lines), lines


def test_a_broken_form_body_gets_the_apis_sentence_not_a_closed_connection(server):
    """Twisted once parsed each POST's form itself (for daphne, which never reads it) and closed
    the connection with a bare 400 on a multipart body it could not read; the application
    answers it now, in words."""
    body = b"this is not a multipart body"
    raw = (
        b"POST /api/games/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: multipart/form-data; boundary=xyz\r\n"
        b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
    ) + body
    status, text = status_and_body(ask(server, raw))
    assert status.startswith("HTTP/1.1 4"), status
    assert "detail" in text, text  # the API's JSON sentence
