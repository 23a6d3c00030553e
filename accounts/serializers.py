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


class RatingOut(serializers.Serializer):
    rating = serializers.IntegerField(help_text="The rating (openskill's estimate, rounded).")
    games = serializers.IntegerField(help_text="Rated games played in this mode.")


class UserOut(serializers.Serializer):
    name = serializers.CharField(help_text="The account's name, as stored.")
    bot = serializers.BooleanField(
        help_text="Whether the account is a bot: it plays by program, through the API only "
        "(POST /api/bot/account/upgrade; the built-in computers are bots, one per speed)."
    )
    computer_speed = serializers.CharField(
        allow_null=True,
        help_text="For a built-in computer's bot account, the speed it plays at; else null.",
    )
    ratings = serializers.DictField(
        child=RatingOut(),
        help_text="The account's rating in each rated mode it has played (a mode it has not "
        "played is absent), by mode: see GET /api/leaderboard/{mode}.",
    )
    stats = serializers.DictField(
        help_text="Its totals over its finished games: games_played, and what each kind counts. "
        "A count is a number (games_won, sets_found, wrong_claims); seconds are "
        '{"count", "mean", "best"} with null for none (seconds_per_set: for each set found, '
        "the seconds since the table's previous set; solitaire_seconds: each solitaire game's "
        "time, the best being the fastest; puzzle_seconds: each puzzle found alone, without a "
        "hint, from its deal to its last set; race_10_seconds, race_20_seconds, "
        "race_30_seconds: each Set-N race played alone with the whole deck and no hint, from "
        "its deal to its N-th set, the best being the account's record: see GET "
        "/api/races/best)."
    )


class BotOut(serializers.Serializer):
    name = serializers.CharField(help_text="The account's name.")
    bot = serializers.BooleanField(help_text="Always true: the account is a bot, for good.")


class BotUpgradeRequest(serializers.Serializer):
    """An empty JSON object, {} (or no body): whose account is said by the Bearer token."""


class InsightsQuery(serializers.Serializer):
    games = serializers.ChoiceField(
        choices=[20, 50, 200],
        required=False,
        help_text="How many of the last finished games to look at: 20, 50 (the default) or 200.",
    )


class InsightsOut(serializers.Serializer):
    name = serializers.CharField(help_text="The account's name, as stored.")
    games_asked = serializers.IntegerField(help_text="The `games` asked for (50 by default).")
    games_counted = serializers.IntegerField(
        help_text="The games looked at: at most games_asked, fewer when the account has fewer."
    )
    choices = serializers.ListField(
        child=serializers.IntegerField(), help_text="The numbers of games one may ask for."
    )
    kinds = serializers.ListField(
        child=serializers.DictField(),
        help_text="One entry per game kind with insights (today: set), when the account has "
        "played one: kind, games (their ids, newest first), definitions, totals, splits, trend, "
        "missed and practice (see the description).",
    )
