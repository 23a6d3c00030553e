"""Middleware of the platform."""

from __future__ import annotations

from django.conf import settings
from django.http.request import split_domain_port, validate_host

from games.errors import outage_response, unavailable


class RunMiddlewareInOneThread:
    """Make Django run the whole middleware chain of a request in one thread.

    Under ASGI, Django calls each hook of each classic middleware (sessions, CSRF, auth...)
    through its own hop between the event loop and a thread: about fourteen hops a request,
    which cost more than the views themselves (bench/bench_server.py). A sync-only middleware
    at the inside of the chain makes Django adapt the chain once instead: the request crosses
    into a thread at the outside and runs every hook there. Async views are unaffected: the
    protocol and /watch are served in front of Django (cards.protocol.ProtocolApp).
    """

    sync_capable = True
    async_capable = False

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)


class ServiceOutage:
    """Answer a view that failed because the database or Redis did not answer with a 503 (the
    API's JSON, or the site's page) instead of a 500; see games.errors.unavailable."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        outage = unavailable(exception)
        return outage_response(request, outage) if outage is not None else None


def allowed_host(scope) -> bool:
    """Whether an ASGI request's Host is one of ALLOWED_HOSTS (as Django checks it)."""
    for key, value in scope.get("headers", ()):
        if key == b"host":
            domain, _port = split_domain_port(value.decode("latin-1"))
            return bool(domain) and validate_host(domain, settings.ALLOWED_HOSTS)
    return False
