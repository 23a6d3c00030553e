"""Persistence of the platform: players, games, seats and the append-only move log.

No game rules live here: a Game's `state` is whatever its kind's rules produce, and replaying its
moves from `seed` and `options` gives that state back (the move log is the truth; `state` is a
cache for fast reads).
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q


def new_token() -> str:
    return secrets.token_urlsafe(24)


def new_link_key() -> str:
    """A private game's key: 128 random bits, in a URL as they are."""
    return secrets.token_urlsafe(16)


def keys_match(given, link_key: str) -> bool:
    """Whether `given` (from a link) is a private game's key, compared in constant time."""
    if not isinstance(given, str) or not given or not link_key:
        return False
    return secrets.compare_digest(given.encode("utf-8", "surrogatepass"), link_key.encode())


class Player(models.Model):
    """Someone who plays: a browser session, a user, an API client or the computer."""

    name = models.CharField(max_length=40)
    session_key = models.CharField(max_length=64, blank=True, default="", db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    is_computer = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class BotAccount(models.Model):
    """An account that plays by program, for good: it plays through the API only (never from a
    browser's pages), never writes in the lobby's chat, and is marked BOT wherever its name
    shows; leaderboards list people by default and bots apart. An account becomes one when it
    has played no game (services.bot_upgrade), or is made one: the built-in computer players
    are bot accounts of their own, one per speed (`speed`), whose player sits at every computer
    seat of that speed, so a rated game against the computer rates both.

    Kept by the platform (not the accounts app), which reads it wherever seats, lists and
    ratings are read, and imports nothing of the accounts app."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, related_name="bot", on_delete=models.CASCADE
    )
    # The computer speed this built-in bot plays at (planning.COMPUTER_SPEEDS_S); "" for an
    # account upgraded to play by its own program.
    speed = models.CharField(max_length=16, blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["speed"], condition=~Q(speed=""), name="one_bot_per_computer_speed"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} (bot{', computer ' + self.speed if self.speed else ''})"


class Game(models.Model):
    class Kind(models.TextChoices):
        SET = "set", "Set"
        SETWAR = "setwar", "Set War"
        SQUARE = "square", "Square Game"

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for players"
        ACTIVE = "active", "Being played"
        OVER = "over", "Over"

    kind = models.CharField(max_length=16, choices=Kind.choices, db_index=True)
    options = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField()
    status = models.CharField(
        max_length=8, choices=Status.choices, default=Status.WAITING, db_index=True
    )
    version = models.PositiveIntegerField(default=0)
    state = models.JSONField(default=dict, blank=True)
    # Open tables are listed and anyone may watch or join them; a Set declare table that is open
    # is also reachable over the plain-text protocol, where the name is the identity.
    is_open = models.BooleanField(default=False)
    # A private game's key (a table made not open): it is reachable only by a link that carries
    # the key, and by its seats (games.auth.may_reach); "" for a game anyone may see.
    link_key = models.CharField(max_length=32, blank=True, default="")
    # The table the bare protocol routes (/look/P ...) address; exactly one at a time.
    is_default = models.BooleanField(default=False)
    # When time alone will next change the game (a declare deadline), in Unix ms; null if never.
    deadline_ms = models.BigIntegerField(null=True, blank=True)
    # Whether any seat is played by the computer (so moves schedule its next turn).
    has_computers = models.BooleanField(default=False)
    # Created to be rated: the game rates its seats when it ends if every seat is an account's
    # and the rules count it (no hints); its RatingChange rows say whether it did.
    rated = models.BooleanField(default=False, db_default=False)
    # The game clock at creation, in Unix ms: replay starts the rules from here.
    created_ms = models.BigIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["is_default"], condition=Q(is_default=True), name="one_default_table"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk}"


class Seat(models.Model):
    """A player's place at one game; the token lets an API client act for this seat only."""

    # Indexed by seat_number_unique (game, number): an index of its own would only cost writes.
    game = models.ForeignKey(Game, related_name="seats", on_delete=models.CASCADE, db_index=False)
    player = models.ForeignKey(Player, related_name="seats", on_delete=models.PROTECT)
    number = models.PositiveSmallIntegerField()
    # The name the rules know this seat by (unique within the game).
    name = models.CharField(max_length=40)
    score = models.IntegerField(default=0)
    token = models.CharField(max_length=64, unique=True, default=new_token)
    # What the token was handed to, when that is a credential that can end (an account's token,
    # "token-<id>"; a browser's session, "session-<digest>"): when it is revoked or logs out, the
    # seat gets a new token nobody has (services.credential_revoke). "": a token that is its own
    # credential (a guest's join without a session), or one never handed out.
    credential = models.CharField(max_length=80, blank=True, default="")
    is_computer = models.BooleanField(default=False)
    # Joined by name over the text protocol, where the name is the identity: the only seats
    # a name may play over the protocol (a token client's, a browser's or a computer's never).
    protocol = models.BooleanField(default=False)
    computer = models.JSONField(default=dict, blank=True)
    joined = models.DateTimeField(auto_now_add=True)

    class Meta:
        # "game" would order by Game's own ordering (-id) through a join: the column says it.
        ordering = ["-game_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="seat_number_unique"),
            models.UniqueConstraint(fields=["game", "name"], name="seat_name_unique"),
        ]
        # Found by the credential that ends (services.credential_revoke); seats with none, most of
        # them, stay out of the index and cost it nothing.
        indexes = [
            models.Index(fields=["credential"], condition=~Q(credential=""), name="seat_credential")
        ]

    def __str__(self) -> str:
        return f"{self.name} (seat {self.number} of game {self.game_id})"


class Move(models.Model):
    """One entry of a game's append-only log: who did what, when, and what came of it."""

    # Indexed by move_seq_unique (game, seq): an index of its own would only cost every move.
    game = models.ForeignKey(Game, related_name="moves", on_delete=models.CASCADE, db_index=False)
    seq = models.PositiveIntegerField()
    seat = models.ForeignKey(Seat, null=True, blank=True, on_delete=models.PROTECT)
    # The seat's name as the rules know it ("" for the game's own time-driven events).
    actor = models.CharField(max_length=40, blank=True, default="")
    action = models.JSONField()
    outcome = models.JSONField(default=dict, blank=True)
    # The game clock of this move in Unix milliseconds: replay feeds it back to the rules.
    at_ms = models.BigIntegerField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-game_id", "seq"]  # as "game", without the join
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="move_seq_unique")]

    def __str__(self) -> str:
        return f"#{self.seq} {self.actor or 'game'}: {self.action.get('type', '?')}"


class Rating(models.Model):
    """An account's rating in one rated mode (games.ratings): openskill's estimate `mu` and its
    uncertainty `sigma`, and how many rated games it rests on."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, related_name="ratings", on_delete=models.CASCADE
    )
    mode = models.CharField(max_length=24)
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField()

    class Meta:
        ordering = ["mode", "-mu"]
        constraints = [
            models.UniqueConstraint(fields=["user", "mode"], name="rating_user_mode_unique")
        ]
        indexes = [models.Index(fields=["mode", "-mu"], name="rating_board")]

    def __str__(self) -> str:
        return f"{self.user} {self.mode}: {round(self.mu)}"


class RatingChange(models.Model):
    """What a rated game did to one account's rating: written in the transaction of the game's
    last move, at most once per game and account (the constraint: a retried write rates no
    one twice)."""

    game = models.ForeignKey(Game, related_name="rating_changes", on_delete=models.CASCADE)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, related_name="rating_changes", on_delete=models.CASCADE
    )
    mode = models.CharField(max_length=24)
    rank = models.PositiveSmallIntegerField()  # 0: first (equal ranks: a tie)
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    created = models.DateTimeField()

    class Meta:
        ordering = ["-game_id", "rank"]
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="rating_change_once")]

    def __str__(self) -> str:
        moved = f"{round(self.mu_before)} -> {round(self.mu_after)}"
        return f"{self.user} in game {self.game_id}: {moved}"


class Rematch(models.Model):
    """A finished game played again: the game its players are asked to (services.rematch).
    One per finished game, so every player who accepts comes to the same table."""

    game = models.OneToOneField(
        Game, primary_key=True, related_name="rematch", on_delete=models.CASCADE
    )
    next_game = models.ForeignKey(Game, related_name="rematch_of", on_delete=models.CASCADE)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.game_id} -> {self.next_game_id}"


#: The longest chat message, in characters (services.chat_post refuses a longer one).
CHAT_MAX_LENGTH = 250


class ChatMessage(models.Model):
    """A line of chat at a game, or in the lobby (no game): who wrote it, under the name shown,
    and when. Chat is not a move: it never enters the move log and never changes a game."""

    # Null: the lobby's chat. Indexed by chat_game_order (game, id): the log is read in order.
    game = models.ForeignKey(
        Game,
        null=True,
        blank=True,
        related_name="chat_messages",
        on_delete=models.CASCADE,
        db_index=False,
    )
    player = models.ForeignKey(
        Player, null=True, blank=True, related_name="chat_messages", on_delete=models.SET_NULL
    )
    # The name as it was shown when written (a seat's name at a game, the player's in the lobby).
    name = models.CharField(max_length=40)
    text = models.CharField(max_length=CHAT_MAX_LENGTH)
    # When it was written, in Unix ms: the replay puts it among the moves by their at_ms.
    at_ms = models.BigIntegerField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["game", "id"], name="chat_game_order")]

    def __str__(self) -> str:
        where = f"game {self.game_id}" if self.game_id else "the lobby"
        return f"{self.name} in {where}: {self.text[:40]}"
