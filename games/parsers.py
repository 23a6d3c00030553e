"""The JSON API's body parser: DRF's, refusing JSON nested too deeply like any malformed body.

Python's json module raises RecursionError (not ValueError) past about a thousand levels of
nesting, and DRF's parser lets it through as a 500; a few kilobytes of ``[`` are enough.

And the content negotiation of the views that answer NDJSON (`AnyAccept`): their refusals are
the API's JSON whatever the client's Accept header asks.
"""

from __future__ import annotations

from rest_framework import negotiation, parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the JSON is nested too deeply.") from None


NDJSON = "application/x-ndjson"
"""One JSON object a line: an account's games (accounts.api), a game's stream (games.follow)."""


class AnyAccept(negotiation.DefaultContentNegotiation):
    """The answer comes as NDJSON, an error as JSON, whatever the client's Accept header asks
    (``Accept: application/x-ndjson`` is not refused with a 406)."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type
