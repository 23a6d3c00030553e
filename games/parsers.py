"""The JSON API's body parser: DRF's, refusing JSON nested too deeply like any malformed body.

Python's json module raises RecursionError (not ValueError) past about a thousand levels of
nesting, and DRF's parser lets it through as a 500; a few kilobytes of ``[`` are enough.

And the content negotiation: every view's (`NamedFormats`: a ``?format=`` the view has no
renderer for is ignored, as any unknown query parameter is, where DRF answered a bare 404 "Not
found."), and that of the views that answer NDJSON (`AnyAccept`): their refusals are the API's
JSON whatever the client's Accept header asks.
"""

from __future__ import annotations

from rest_framework import negotiation, parsers
from rest_framework.exceptions import ParseError
from rest_framework.settings import api_settings


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the JSON is nested too deeply.") from None


class NamedFormats(negotiation.DefaultContentNegotiation):
    """DRF's negotiation, except that a ``?format=`` naming no renderer of the view is left out
    (the Accept header decides) instead of making the request a 404."""

    def select_renderer(self, request, renderers, format_suffix=None):
        key = api_settings.URL_FORMAT_OVERRIDE
        wanted = format_suffix or (key and request.query_params.get(key))
        if wanted and not any(renderer.format == wanted for renderer in renderers):
            request = _WithoutFormat(request, key)
            format_suffix = None
        return super().select_renderer(request, renderers, format_suffix)


class _WithoutFormat:
    """A request read without its ``format`` query parameter (for the negotiation only)."""

    def __init__(self, request, key: str) -> None:
        self._wrapped, self._key = request, key

    def __getattr__(self, name):
        return getattr(self._wrapped, name)

    @property
    def query_params(self):
        params = self._wrapped.query_params.copy()
        params.pop(self._key, None)
        return params


NDJSON = "application/x-ndjson"
"""One JSON object a line: an account's games (accounts.api), a game's stream (games.follow)."""


class AnyAccept(negotiation.DefaultContentNegotiation):
    """The answer comes as NDJSON, an error as JSON, whatever the client's Accept header asks
    (``Accept: application/x-ndjson`` is not refused with a 406)."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type
