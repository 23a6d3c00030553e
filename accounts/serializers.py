"""The bodies of the accounts API."""

from __future__ import annotations

from rest_framework import serializers

from games.serializers import QueryIntegerField


class CredentialsRequest(serializers.Serializer):
    username = serializers.CharField(
        min_length=1, max_length=150, trim_whitespace=False, help_text="The account's name."
    )
    password = serializers.CharField(
        min_length=1, max_length=4096, trim_whitespace=False, help_text="The account's password."
    )


class TokenOut(serializers.Serializer):
    token = serializers.CharField(
        help_text="A new personal token: send it as 'Authorization: Bearer <token>'. It is "
        "shown only this once."
    )


class AccountOut(TokenOut):
    username = serializers.CharField(help_text="The new account's name, as stored.")


# The largest `since` a datetime can hold (the last millisecond of the year 9999, UTC).
MAX_SINCE_MS = 253_402_300_799_999
MAX_GAMES = 100_000


class UserGamesQuery(serializers.Serializer):
    max = QueryIntegerField(
        required=False,
        min_value=1,
        max_value=MAX_GAMES,
        help_text=f"At most this many games, the newest (1 to {MAX_GAMES}; default: all).",
    )
    since = QueryIntegerField(
        required=False,
        min_value=0,
        max_value=MAX_SINCE_MS,
        help_text="Only games finished at or after this moment, in Unix milliseconds.",
    )
