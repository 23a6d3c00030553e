"""The server's entry: daphne, whose HTTP connections answer a request too long to read.

``python -m config.server [daphne's options] config.asgi:application`` is daphne's own command
line (every option of ``daphne --help``), serving with `Server`: daphne's server, except that an
HTTP request whose request line or headers Twisted will not read gets an answer instead of a
closed connection:

- a request line (method, path and query) over 16 KiB: ``414 URI Too Long``;
- one header line over 16 KiB, or the request line and headers together over 16 KiB:
  ``431 Request Header Fields Too Large``;

each with a one-line text body naming the limit. Plain daphne closes the connection without a
word for the first two (Twisted's line reader drops a line past its MAX_LENGTH) and answers a
bare ``400 Bad Request`` for the third.

A server told to stop (SIGTERM, or SIGINT: Ctrl-C) stops gracefully:

1. it stops listening on its ports (a new connection is refused: a load balancer sends it to
   another process);
2. it tells each of its open WebSockets to close with 1012, Service Restart
   (games.realtime.open_sockets), which the pages take as "reconnect at once";
3. it stops once every connection is gone (the sockets closed, the requests in flight
   answered), or after SHUTDOWN_GRACE_S seconds (an environment variable, 10 by default), when
   what is left is cut as daphne cuts it.

A second signal while it waits stops it at once. The signals are taken on the server's event
loop (asyncio's ``add_signal_handler``) instead of Twisted's handlers, which would stop the
reactor, and with it every socket, at once.

How: Twisted builds each connection's protocol with its factory's ``protocol`` (the documented
way to say what a factory makes); once daphne has made its HTTP factory, `Server` has it make
`Channel`, Twisted's HTTPChannel with its documented hook for an over-long line
(``lineLengthExceeded``) answered; its WebSocket factory makes `WebSocketChannel`, daphne's
WebSocket connection, which may also close with the codes RFC 6455 gives a server (1012, 1013:
autobahn's sendClose, which daphne uses, refuses them). At daphne's default verbosity, which sends
Twisted's own log nowhere, the HTTP factory is given no log file, so Twisted does not format a
combined-log line per request only to drop it (2 % of the server under bench/bench_load.py;
daphne's access log is unchanged). Nothing of daphne or Twisted is replaced. HTTP/2, which
only TLS with ALPN negotiates and which needs Twisted's http2 extra (not installed), is not
offered.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import signal

from daphne.cli import CommandLineInterface as DaphneCommandLine
from daphne.server import Server as DaphneServer
from daphne.ws_protocol import WebSocketProtocol
from twisted.web import http

log = logging.getLogger(__name__)

# How often it looks whether they are.
DRAIN_POLL_S = 0.05

# Twisted's own limits (LineReceiver.MAX_LENGTH, HTTPChannel.totalHeadersSize), named here.
LINE_LIMIT = http.HTTPChannel.MAX_LENGTH
HEADERS_LIMIT = http.HTTPChannel.totalHeadersSize


def _answer(status: bytes, text: str) -> bytes:
    body = (text + "\n").encode()
    return (
        b"HTTP/1.1 " + status + b"\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n"
        b"Connection: close\r\n\r\n" + body
    )


URI_TOO_LONG = _answer(
    b"414 URI Too Long",
    f"The request line is too long: at most {LINE_LIMIT} bytes (method, path and query).",
)
HEADERS_TOO_LARGE = _answer(
    b"431 Request Header Fields Too Large",
    f"The request's headers are too large: at most {HEADERS_LIMIT} bytes in all.",
)

# After refusing, the rest of what the client sends is read and dropped for this long before the
# connection closes: closed with unread data, it is reset, and the client may lose the answer.
LINGER_S = 2


class Channel(http.HTTPChannel):
    """Twisted's HTTP connection, answering 414 or 431 where it would close or say 400; its
    requests leave a form's body unparsed."""

    refused = False
    _header_bytes = 0
    _requests = http.Request

    # daphne gives each connection its request class (WebRequest) through Twisted's
    # `requestFactory`; each request is made with Twisted's documented switch
    # `parsePOSTFormSubmission` off. On, Twisted parses every POST's Content-Type with the
    # e-mail package (a tenth of the server's CPU under bench/bench_bots.py) to read a form into
    # `Request.args`, which daphne never reads: the application gets the body as it came.
    @property
    def requestFactory(self):
        return functools.partial(self._requests, parsePOSTFormSubmission=False)

    @requestFactory.setter
    def requestFactory(self, value) -> None:
        self._requests = value

    def lineReceived(self, line: bytes) -> None:
        if self.refused:
            return
        # Twisted counts the request line and headers too (and answers a bare 400 past its
        # limit): counted here first, the limit is answered in words.
        if not self.requests:  # no request read yet: this line starts one
            self._header_bytes = 0
        self._header_bytes += len(line)
        if self._header_bytes > HEADERS_LIMIT:
            self.refuse(HEADERS_TOO_LARGE)
            return
        super().lineReceived(line)

    def lineLengthExceeded(self, line: bytes) -> None:
        """A line longer than Twisted reads: the request line (no request started yet) or a
        header line."""
        self.refuse(HEADERS_TOO_LARGE if self.requests else URI_TOO_LONG)

    def refuse(self, answer: bytes) -> None:
        """Answer, stop reading requests, and close once the client has stopped sending (or
        after LINGER_S)."""
        self.refused = True
        self.clearLineBuffer()  # no later line of what was read is taken for a request
        self.transport.write(answer)
        self.transport.loseWriteConnection()
        self.setTimeout(LINGER_S)

    def dataReceived(self, data: bytes) -> None:
        if self.refused:
            return  # the rest of a refused request
        super().dataReceived(data)

    def timeoutConnection(self) -> None:
        if self.refused:
            self.transport.abortConnection()
            return
        super().timeoutConnection()


# The close codes RFC 6455 (and IANA's registry) give a server: going away, an internal error,
# service restart, try again later, bad gateway. autobahn's sendClose, which daphne closes with,
# takes only 1000 and 3000-4999 from an application.
SERVER_CLOSE_CODES = frozenset({1001, 1011, 1012, 1013, 1014})


class WebSocketChannel(WebSocketProtocol):
    """daphne's WebSocket connection, which may also close with a server's codes of RFC 6455
    (SERVER_CLOSE_CODES): 1012 (Service Restart) when the server stops, 1013 (Try Again Later)
    when a service does not answer a handshake (games.consumers)."""

    def serverClose(self, code=None) -> None:
        if code in SERVER_CLOSE_CODES:
            # As daphne sends 1011 itself (handle_exception): autobahn's close frame, any code.
            self.sendCloseFrame(code=code, isReply=False)
        else:
            super().serverClose(code)


class Server(DaphneServer):
    """daphne's server, whose HTTP connections are `Channel`s, and which stops gracefully."""

    def __init__(self, *args, ready_callable=None, signal_handlers=True, **kwargs) -> None:
        self.when_ready = ready_callable
        self.stops_gracefully = signal_handlers
        from django.conf import settings  # (read once the application has set Django up)

        self.grace_s = settings.SHUTDOWN_GRACE_S  # how long a stop waits for the connections
        self.ports = []  # the listening ports, once listening
        self.stopping: asyncio.Task | None = None
        # Twisted's handlers would stop the reactor at the first signal: this server's own are
        # installed in `ready` instead (when asked for signal handlers at all).
        super().__init__(*args, ready_callable=self.ready, signal_handlers=False, **kwargs)

    def ready(self) -> None:
        # daphne has made its HTTP factory and listens; no connection is taken before this.
        self.http_factory.protocol = Channel
        self.ws_factory.protocol = WebSocketChannel
        if self.stops_gracefully:
            loop = asyncio.get_event_loop()  # the reactor's, which daphne has made current
            for number in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(number, self.signalled, number)
        if self.when_ready is not None:
            self.when_ready()

    def listen_success(self, port) -> None:
        self.ports.append(port)
        if self.verbosity <= 1:
            # Twisted's HTTP factory writes each request's combined-log line to Twisted's log,
            # which daphne sends nowhere at this verbosity (its own access log is the one kept):
            # without a log file (its documented `logFile`), no line is made.
            self.http_factory.logFile = None
        super().listen_success(port)

    def signalled(self, number: int) -> None:
        if self.stopping is None:
            log.warning("%s: stopping gracefully", signal.Signals(number).name)
            self.stopping = asyncio.ensure_future(self.stop_gracefully())
        else:
            log.warning("%s again: stopping now", signal.Signals(number).name)
            self.stop()

    async def stop_gracefully(self) -> None:
        """Stop listening, tell the sockets to reconnect elsewhere, wait until every connection
        is gone (or the grace has passed), and stop."""
        from games.realtime import open_sockets  # the app, loaded once the server runs

        for port in self.ports:
            port.stopListening()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.grace_s
        try:
            told = await open_sockets.restart()
            log.warning(
                "Told %d sockets and long polls to reconnect; waiting for the connections", told
            )
            while self.open_connections() and loop.time() < deadline:
                await asyncio.sleep(DRAIN_POLL_S)
        finally:
            left = self.open_connections()
            if left:
                log.warning("Still open after %s s, cut: %d connections", self.grace_s, left)
            self.stop()

    def open_connections(self) -> int:
        """How many connections (WebSockets, HTTP requests) are open or still being served."""
        count = 0
        for details in self.connections.values():
            application = details.get("application_instance")
            if "disconnected" not in details or (application and not application.done()):
                count += 1
        return count


class CommandLineInterface(DaphneCommandLine):
    server_class = Server


if __name__ == "__main__":
    from django.core.exceptions import ImproperlyConfigured

    try:
        CommandLineInterface.entrypoint()
    except ImproperlyConfigured as error:  # a setting that cannot be: one line, not a traceback
        raise SystemExit(f"Cannot start: {error}") from None
