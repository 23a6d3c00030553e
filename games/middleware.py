"""Middleware of the platform."""

from __future__ import annotations

from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http import HttpResponsePermanentRedirect
from django.http.request import split_domain_port, validate_host
from django.middleware import common
from django.utils.http import escape_leading_slashes

from games import metrics
from games.errors import outage_response, unavailable


class HttpResponsePermanentRedirectKeepingMethod(HttpResponsePermanentRedirect):
    """A 308: the browser sends the same method and body to the new address (a 301 turns a
    form's POST into a GET and drops what was sent)."""

    status_code = 308


class CommonMiddleware(common.CommonMiddleware):
    """Django's CommonMiddleware (APPEND_SLASH: `/puzzle` redirects to `/puzzle/`), except that a
    form sent to a page's address without its final slash is redirected with its method and
    body (308), where Django's would answer a 301 (a browser then sends a GET) or, under DEBUG,
    raise an error. Paths that resolve (the plain-text protocol's, /play/new) are never
    redirected: APPEND_SLASH only acts on a path nothing answers."""

    def process_response(self, request, response):
        if (
            request.method not in ("GET", "HEAD")
            and response.status_code == 404
            and self.should_redirect_with_slash(request)
        ):
            target = escape_leading_slashes(request.get_full_path(force_append_slash=True))
            return HttpResponsePermanentRedirectKeepingMethod(target)
        return super().process_response(request, response)


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


class RouteName:
    """Say which URL pattern answered a request, for its metrics (games.metrics: a route, never
    a path with its ids); a path that matched none is counted as "(unmatched)"."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view, args, kwargs):
        # Before the view, which may name its route more closely (the text protocol's).
        metrics.name_route("/" + request.resolver_match.route)


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


_SCHEMES = {"ws": "http", "wss": "https", "http": "http", "https": "https"}
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin_parts(origin: str) -> tuple[str, str, int] | None:
    """An origin ("https://example.com:8443") as (scheme, host, port), the port filled in for
    the scheme's default; None for what is no origin (``null``, a path, a bad port)."""
    try:
        parsed = urlsplit(origin.strip().lower())
        port = parsed.port
    except ValueError:
        return None
    scheme = _SCHEMES.get(parsed.scheme)
    if scheme is None or not parsed.hostname or parsed.path or parsed.query or parsed.username:
        return None
    return scheme, parsed.hostname, port if port is not None else _DEFAULT_PORTS[scheme]


def _scheme(scope) -> str:
    """The scheme the visitor used ("http" or "https"), as Django's request.is_secure() tells it:
    behind a proxy that says so (SECURE_PROXY_SSL_HEADER, e.g. X-Forwarded-Proto: https), the
    proxy's header decides; else the handshake's own scheme. daphne puts no scheme in a WebSocket
    scope, even with --proxy-headers."""
    if settings.SECURE_PROXY_SSL_HEADER:
        name, secure = settings.SECURE_PROXY_SSL_HEADER
        wanted = name.removeprefix("HTTP_").replace("_", "-").lower().encode("latin-1")
        for key, value in scope.get("headers", ()):
            if key == wanted:
                told = value.decode("latin-1").split(",")[0].strip()
                return "https" if told == secure else "http"
    return _SCHEMES.get(scope.get("scheme") or "ws", "http")


def same_origin(scope) -> bool:
    """Whether a WebSocket handshake comes from a page of the site itself: its Origin is the
    address the handshake was sent to (scheme, host and port: Django's CSRF check compares the
    same for forms), or one of CSRF_TRUSTED_ORIGINS; and that address's host is one of
    ALLOWED_HOSTS. A handshake without an Origin or a Host is refused, as browsers send both."""
    origin = host = None
    for key, value in scope.get("headers", ()):
        if key == b"origin":
            origin = value.decode("latin-1")
        elif key == b"host":
            host = value.decode("latin-1")
    if origin is None or host is None:
        return False
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    scheme = _scheme(scope)
    sent = _origin_parts(origin)
    if sent is None:
        return False
    if sent == _origin_parts(f"{scheme}://{host}"):
        return True
    return any(sent == _origin_parts(trusted) for trusted in settings.CSRF_TRUSTED_ORIGINS)


class SameOriginWebSockets:
    """ASGI middleware: refuse (403) a WebSocket handshake that does not come from the site's
    own pages (`same_origin`). Channels' AllowedHostsOriginValidator compares only the host, so
    a page served from another port or scheme of the same host could open a player's socket."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not same_origin(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.inner(scope, receive, send)
