"""Middleware of the platform."""

from __future__ import annotations


class RunMiddlewareInOneThread:
    """Make Django run the whole middleware chain of a request in one thread.

    Under ASGI, Django calls each hook of each classic middleware (sessions, CSRF, auth...)
    through its own hop between the event loop and a thread: about fourteen hops a request,
    which cost more than the views themselves (bench/bench_server.py). A sync-only middleware
    at the inside of the chain makes Django adapt the chain once instead: the request crosses
    into a thread at the outside and runs every hook there. Async views are unaffected: the
    protocol and /watch are served in front of Django (games.protocol.ProtocolApp).
    """

    sync_capable = True
    async_capable = False

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)
