"""The JSON API's body parser: DRF's, refusing JSON nested too deeply like any malformed body.

Python's json module raises RecursionError (not ValueError) past about a thousand levels of
nesting, and DRF's parser lets it through as a 500; a few kilobytes of ``[`` are enough.
"""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the JSON is nested too deeply.") from None
