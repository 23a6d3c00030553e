"""The bodies of the accounts API."""

from __future__ import annotations

from rest_framework import serializers


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
