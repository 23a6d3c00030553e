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

How: Twisted builds each connection's protocol with its factory's ``protocol`` (the documented
way to say what a factory makes); once daphne has made its HTTP factory, `Server` has it make
`Channel`, Twisted's HTTPChannel with its documented hook for an over-long line
(``lineLengthExceeded``) answered. Nothing of daphne or Twisted is replaced. HTTP/2, which only
TLS with ALPN negotiates and which needs Twisted's http2 extra (not installed), is not offered.
"""

from __future__ import annotations

from daphne.cli import CommandLineInterface as DaphneCommandLine
from daphne.server import Server as DaphneServer
from twisted.web import http

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
    """Twisted's HTTP connection, answering 414 or 431 where it would close or say 400."""

    refused = False
    _header_bytes = 0

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


class Server(DaphneServer):
    """daphne's server, whose HTTP connections are `Channel`s."""

    def __init__(self, *args, ready_callable=None, **kwargs) -> None:
        self.when_ready = ready_callable
        super().__init__(*args, ready_callable=self.ready, **kwargs)

    def ready(self) -> None:
        # daphne has made its HTTP factory and listens; no connection is taken before this.
        self.http_factory.protocol = Channel
        if self.when_ready is not None:
            self.when_ready()


class CommandLineInterface(DaphneCommandLine):
    server_class = Server


if __name__ == "__main__":
    CommandLineInterface.entrypoint()
