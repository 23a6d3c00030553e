"""ASGI entry point.

- Every HTTP request is counted, timed and logged, and /metrics served to the addresses allowed,
  by games.metrics.ObservedHttp, in front of everything else.
- The Set server's plain-text protocol (/look/P, /watch/P, ...) is answered by a lean handler
  in front of Django (cards.protocol.ProtocolApp): no sessions, CSRF or templates to run.
- The API's busiest requests (a token move, a bot's create and join) are answered in front of
  Django too (games.api_fast.FastApiApp); every other case goes on.
- Static files are served by Django's ASGI static handler, in the event loop, from the project.
- Everything else over HTTP goes to Django. WebSockets go through a check that the handshake
  comes from the site's own pages (games.middleware.SameOriginWebSockets: the whole origin,
  scheme, host and port) and Channels' routing to the consumer games.consumers.GameConsumer; a
  handshake that sends cookies (a browser) also through Channels' session middleware, so the
  socket can read the browser's session. A token client's socket has no session to read, and
  the middleware would wrap each of its frames.
"""

import gc
import os

import django
from django.core.handlers.asgi import ASGIHandler

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)


class SharedThreadASGIHandler(ASGIHandler):
    """Django's ASGI handler, but the sync code of every request runs on one long-lived thread.

    The stock handler starts a thread for each request, and with it a fresh database connection
    (about a millisecond on SQLite before the first query); here asgiref's one sync thread keeps
    its connection (CONN_MAX_AGE). Python runs one thread at a time anyway; what is given up is
    overlapping two slow sync views, which is what more server processes are for. The protocol,
    /watch and the WebSockets do their database work on their own threads (games.runtime).
    Measured with a trivial view: 4-7 ms a request before, 2.6 ms after (docs/benchmarks.md).
    """

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await super().__call__(scope, receive, send)
        await self.handle(scope, receive, send)


django_asgi_app = SharedThreadASGIHandler()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.sessions import SessionMiddlewareStack  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from cards.protocol import ProtocolApp  # noqa: E402
from games.api_fast import FastApiApp  # noqa: E402
from games.metrics import ObservedHttp  # noqa: E402
from games.middleware import SameOriginWebSockets  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402


class SessionIfCookies:
    """Channels' session middleware (the session only: no user is looked up for a socket) for a
    handshake that sends cookies; the bare route for one that sends none."""

    def __init__(self, inner):
        self.inner = inner
        self.with_session = SessionMiddlewareStack(inner)

    async def __call__(self, scope, receive, send):
        if any(name == b"cookie" for name, _value in scope.get("headers", ())):
            return await self.with_session(scope, receive, send)
        return await self.inner(scope, receive, send)


application = ProtocolTypeRouter(
    {
        "http": ObservedHttp(ProtocolApp(FastApiApp(ASGIStaticFilesHandler(django_asgi_app)))),
        "websocket": SameOriginWebSockets(SessionIfCookies(URLRouter(websocket_urlpatterns))),
    }
)

# What is loaded by now lives as long as the server. Python's collector walks every object it
# tracks at each full collection: with Django, DRF, Twisted and the rest loaded, hundreds of
# thousands, tens of milliseconds in which no request is answered (move p99 188 -> 34 ms under
# bench/bench_load.py). Frozen, they are left out of every collection.
gc.collect()
gc.freeze()
