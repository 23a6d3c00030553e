"""Three costs of the stack daphne serves on (Twisted's HTTP server, autobahn's WebSockets) that
buy daphne nothing.

**The Content-Type parse.**
Twisted reads the media type of every request body (``twisted.web.http._parseContentType``) to
decide whether to parse a form into ``request.args``, which daphne never reads (it hands the
body to the ASGI application). Twisted 26 does it by building an ``email.message.EmailMessage``
and running the email package's header parser: under the load benchmark that was 8 % of the
event loop's time (bench/bench_load.py --profile). The replacement below gives the same answer
for every header Twisted compares (the two form types, any case, any parameters, any spacing)
with a split and a lower-case; for other headers the two may differ, and nothing reads it.

**Twisted's own access log.** Twisted's HTTP factory formats a combined-log line for every
request and writes it to Twisted's legacy log (`twisted.python.log.logfile`) when it is given no
log path, as daphne gives it none; daphne never starts an observer of that log and writes its
own access log instead, so the line went nowhere (4 % of an API move's time here).
`start_factory` leaves Twisted's log off in that case; daphne's access log is unchanged.

**autobahn's settings dump.** On every new WebSocket connection autobahn pretty-prints its
thirty-odd settings with `pprint.pformat` for a debug log line, whether debug logging is on or
not: a tenth of the server's work to open a socket (bench/bench_load.py --profile). Its module's
`pformat` becomes `repr`: the same text on one line, when the line is written at all (autobahn
uses it for nothing else but two other debug lines and the text of its timings).

**autobahn's debug-line arguments.** autobahn writes a debug line on every frame it sends, every
new socket and every close, and works out its arguments (the calling method's qualified name,
highlighted in colour by click when click is installed) before the logger decides to drop the
line: 3 % of the server's time under the load benchmark. Its `hltype` and `hlval` now give an
object that does that work only when the line is written, with the same text then.

`install()` puts them in place when the ASGI application is loaded (config/asgi.py), before
daphne starts listening. requirements.txt pins Twisted and autobahn (not only daphne);
tests/test_daphne_speedups.py checks the parse against the original on many headers, the
factory's log and autobahn's name, so a release that changes one fails there first.
"""

from __future__ import annotations

from autobahn import util as autobahn_util
from autobahn.twisted import websocket as autobahn_twisted
from autobahn.websocket import protocol as autobahn_protocol
from twisted.web import http

original = http._parseContentType
_start_factory = http.HTTPFactory.startFactory


def parse_content_type(line: bytes) -> bytes:
    """The media type of a Content-Type header, lower-cased, without its parameters. Twisted
    only compares it with the two form types, and for those it is the original's answer."""
    return line.split(b";", 1)[0].strip().lower()


def start_factory(self) -> None:
    """HTTPFactory.startFactory, without Twisted's access log when it has no log path."""
    _start_factory(self)
    if not self.logPath:
        self._logFile = None  # HTTPFactory.log writes nothing then


class Deferred:
    """A log argument worked out only when the line is written (as text or a format)."""

    __slots__ = ("work", "value")

    def __init__(self, work, value) -> None:
        self.work, self.value = work, value

    def __str__(self) -> str:
        return self.work(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


def deferred(work):
    """`work(value)`, put off until the log line is written."""

    def later(value):
        return Deferred(work, value)

    return later


def install() -> None:
    http._parseContentType = parse_content_type
    http.HTTPFactory.startFactory = start_factory
    autobahn_protocol.pformat = repr
    for module in (autobahn_protocol, autobahn_twisted):
        module.hltype = deferred(autobahn_util.hltype)
        module.hlval = deferred(autobahn_util.hlval)
