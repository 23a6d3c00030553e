"""A faster Content-Type parse for Twisted's HTTP server, which daphne runs on.

Twisted reads the media type of every request body (``twisted.web.http._parseContentType``) to
decide whether to parse a form into ``request.args``, which daphne never reads (it hands the
body to the ASGI application). Twisted 26 does it by building an ``email.message.EmailMessage``
and running the email package's header parser: under the load benchmark that was 8 % of the
event loop's time (bench/bench_load.py --profile). The replacement below gives the same answer
for every header Twisted compares (the two form types, any case, any parameters, any spacing)
with a split and a lower-case; for other headers the two may differ, and nothing reads it.

`install()` replaces the private function when the ASGI application is loaded (config/asgi.py).
requirements.txt pins Twisted through daphne; tests/test_twisted_http.py checks the replacement
against the original on many headers, so a Twisted release that changes it fails there first.
"""

from __future__ import annotations

from twisted.web import http

original = http._parseContentType


def parse_content_type(line: bytes) -> bytes:
    """The media type of a Content-Type header, lower-cased, without its parameters. Twisted
    only compares it with the two form types, and for those it is the original's answer."""
    return line.split(b";", 1)[0].strip().lower()


def install() -> None:
    http._parseContentType = parse_content_type
