"""Shared pieces of the OpenAPI schema."""

from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

ErrorSerializer = inline_serializer(
    name="Error",
    fields={"detail": serializers.CharField(help_text="What was wrong, in one line.")},
)

ERROR_RESPONSES = {
    400: OpenApiResponse(
        ErrorSerializer, description="The request was malformed; `detail` says how."
    ),
}

NOT_FOUND_RESPONSES = {
    404: OpenApiResponse(ErrorSerializer, description="No game with that id."),
}
FORBIDDEN_RESPONSES = {
    403: OpenApiResponse(ErrorSerializer, description="You have no seat at this game."),
    409: OpenApiResponse(ErrorSerializer, description="The game cannot take this now."),
}
