"""Shared pieces of the OpenAPI schema: the one error shape and the error responses that use it.

Every 4xx of the JSON API is an `Error` object (games.errors.api_exception_handler makes it);
views list the answers they can give by combining the response sets below, so each answer is
described once here and the schema refers to the one `Error` component.
"""

from drf_spectacular.serializers import PolymorphicProxySerializerExtension
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    inline_serializer,
)
from rest_framework import serializers

from games.parsers import JSONParser

ErrorSerializer = inline_serializer(
    name="Error",
    fields={
        "detail": serializers.CharField(help_text="What was wrong, in one line."),
        "errors": serializers.DictField(
            required=False,
            help_text="With a refused request body or query: the messages, field by field.",
        ),
        "code": serializers.CharField(
            required=False,
            help_text=(
                "With a request the rules refuse: a short reason for programs, e.g. "
                "`not_rated` (a game created rated whose options are never rated), "
                "`bad_option`, `not_a_set`."
            ),
        ),
    },
)

JSON_BODY = [JSONParser]
"""Request bodies are JSON: anything else is a 415 naming the content type to send."""


def error_response(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorSerializer, description=description)


ERROR_RESPONSES = {
    400: error_response(
        "The request was malformed (a bad query, body or malformed JSON); `detail` says how."
    ),
}
JSON_BODY_RESPONSES = {
    **ERROR_RESPONSES,
    415: error_response("The body is not JSON: send it with 'Content-Type: application/json'."),
}
NOT_FOUND_RESPONSES = {
    404: error_response(
        "No game with that id (or a private game, to a request without its key and no seat)."
    ),
}
GAME_KEY = OpenApiParameter(
    "key",
    str,
    description=(
        "A private game's key (its `key`, in the link its players share): a game created not "
        "open is reachable only with it, or by its seats (their seat tokens, their accounts' "
        "tokens, their browsers); to anyone else it answers 404, as a game that does not exist."
    ),
)
TOKEN_RESPONSES = {
    401: error_response(
        "The token sent is not valid: a seat's ('Authorization: Token <token>') or an "
        "account's ('Authorization: Bearer <token>'), unknown or revoked."
    ),
}
FORBIDDEN_RESPONSES = {
    403: error_response("You have no seat at this game."),
    409: error_response("The game cannot take this now."),
}
RATE_LIMITED_RESPONSES = {
    429: error_response(
        "Too many joins or moves from this client; the Retry-After header says how many "
        "seconds to wait."
    ),
}


class OneOf(PolymorphicProxySerializer):
    """A request body that is one of several shapes, all of which have `required_fields`.

    drf-spectacular marks a request body as required only when its schema lists required
    fields, and a plain oneOf lists none: this one says which fields every shape has.
    """

    def __init__(self, *args, required_fields: list[str], **kwargs):
        self.required_fields = required_fields
        super().__init__(*args, **kwargs)


class OneOfExtension(PolymorphicProxySerializerExtension):
    target_class = OneOf

    def map_serializer(self, auto_schema, direction):
        schema = super().map_serializer(auto_schema, direction)
        return {**schema, "required": self.target.required_fields}
