"""Lean keep-alive HTTP/1.1 clients for the server benchmark (bench helper).

`http.client` spends more CPU parsing headers than a small server reply is worth, and on a 2-core
machine the load generator competes with the server for CPU. These clients send a hand-written
request and read the reply by Content-Length (or chunks), nothing more: `Conn` is blocking (one per
client thread), `AsyncConn` is for asyncio (hundreds of waiting watchers on one loop).
"""

from __future__ import annotations

import asyncio
import json
import math
import socket
import ssl as ssl_module
import time

HOST = "127.0.0.1"


class HttpError(Exception):
    pass


class Reply:
    __slots__ = ("status", "headers", "body", "at")

    def __init__(self, status: int, headers: dict[str, str], body: bytes, at: float) -> None:
        self.status = status
        self.headers = headers
        self.body = body
        self.at = at  # perf_counter() when the whole reply had arrived

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.body)

    def __repr__(self) -> str:
        return f"Reply({self.status}, {self.body[:200]!r})"


def build_request(
    method: str, path: str, port: int, body: bytes = b"", headers: dict[str, str] | None = None
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if body or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def parse_head(head: bytes) -> tuple[int, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/"):
        raise HttpError(f"bad status line {lines[0]!r}")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(parts[1]), headers


class Conn:
    """One blocking keep-alive connection."""

    def __init__(self, port: int, timeout: float = 10.0) -> None:
        self.port = port
        self.timeout = timeout
        self.sock: socket.socket | None = None
        self.buf = b""

    def connect(self) -> None:
        self.close()
        sock = socket.create_connection((HOST, self.port), timeout=self.timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock, self.buf = sock, b""

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def _recv(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise HttpError("connection closed by the server")
        self.buf += chunk

    def read_reply(self) -> Reply:
        while (end := self.buf.find(b"\r\n\r\n")) < 0:
            self._recv()
        status, headers = parse_head(self.buf[:end])
        self.buf = self.buf[end + 4 :]
        if "content-length" in headers:
            length = int(headers["content-length"])
            while len(self.buf) < length:
                self._recv()
            body, self.buf = self.buf[:length], self.buf[length:]
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                while (eol := self.buf.find(b"\r\n")) < 0:
                    self._recv()
                size = int(self.buf[:eol].split(b";")[0], 16)
                while len(self.buf) < eol + 2 + size + 2:
                    self._recv()
                body += self.buf[eol + 2 : eol + 2 + size]
                self.buf = self.buf[eol + 2 + size + 2 :]
                if size == 0:
                    break
        else:
            raise HttpError("reply without Content-Length or chunks")
        if headers.get("connection", "").lower() == "close":
            self.close()
        return Reply(status, headers, body, time.perf_counter())

    def send(self, raw: bytes) -> float:
        if self.sock is None:
            self.connect()
        start = time.perf_counter()
        self.sock.sendall(raw)
        return start

    def request(
        self,
        method: str,
        path: str,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
    ) -> tuple[float, Reply]:
        """Send one request; return (perf_counter at send, reply)."""
        start = self.send(build_request(method, path, self.port, body, headers))
        return start, self.read_reply()

    def get(self, path: str) -> tuple[float, Reply]:
        return self.request("GET", path)

    def json(self, method: str, path: str, data=None, token: str | None = None) -> Reply:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        body = json.dumps(data).encode() if data is not None else b""
        return self.request(method, path, body, headers)[1]


class AsyncConn:
    """One asyncio keep-alive connection (over TLS with `ssl`, e.g. to a proxy)."""

    def __init__(self, port: int, ssl: ssl_module.SSLContext | None = None) -> None:
        self.port = port
        self.ssl = ssl
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(HOST, self.port, ssl=self.ssl)
        self.writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = self.reader = None

    async def ready(self) -> None:
        """Connect, or connect again when the server has closed the kept-alive connection while
        it was idle (daphne does, after a while), as browsers and HTTP libraries do."""
        if self.reader is not None and self.reader.at_eof():
            self.close()
        if self.writer is None:
            await self.connect()

    def send(self, raw: bytes) -> float:
        start = time.perf_counter()
        self.writer.write(raw)
        return start

    async def exchange(self, raw: bytes) -> Reply:
        """Send a request and read its reply. A kept-alive connection the server closed while
        idle just as the request went out (no byte of a reply came) is connected again and the
        request sent once more, as browsers and HTTP libraries do; any other failure closes the
        connection and is raised."""
        while True:
            kept = self.writer is not None
            await self.ready()
            self.send(raw)
            try:
                return await self.read_reply()
            except asyncio.IncompleteReadError as exc:
                self.close()
                if not kept or exc.partial:
                    raise
            except (OSError, EOFError):
                self.close()
                raise

    async def read_reply(self) -> Reply:
        head = await self.reader.readuntil(b"\r\n\r\n")
        status, headers = parse_head(head[:-4])
        if "content-length" not in headers:
            raise HttpError("reply without Content-Length")
        body = await self.reader.readexactly(int(headers["content-length"]))
        return Reply(status, headers, body, time.perf_counter())


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]
