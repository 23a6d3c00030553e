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
from django.db.models.fields.json import KT
from django.db.models.functions import Cast


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
    # Who made the table, for the limit on public tables made per hour (games.manners): an
    # account ("account:<id>"), a guest's player ("guest:<id>"), or an API client's address
    # ("client:<address>"); "" when nobody is counted (the default table, an import, a rematch).
    maker = models.CharField(max_length=80, blank=True, default="", db_default="", db_index=True)
    # The game clock at creation, in Unix ms: replay starts the rules from here.
    created_ms = models.BigIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    finished = models.DateTimeField(null=True, blank=True)
    # A timed race's target, as its options say ("race": a Set-N race's N), or null: computed
    # by the database from the options (which never change), so no write path sets it, and
    # indexed for the boards of best times (a JSON key itself is no indexable column).
    race = models.GeneratedField(
        expression=Cast(KT("options__race"), models.IntegerField()),
        output_field=models.IntegerField(null=True),
        db_persist=True,
    )

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["is_default"], condition=Q(is_default=True), name="one_default_table"
            )
        ]
        indexes = [
            # Timed races by when they finished: the boards of best times read the day's, or
            # all, of one race's games and no other game.
            models.Index(
                fields=["race", "finished"],
                name="game_race_finished",
                condition=Q(race__isnull=False),
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
#: What a hidden line's writer reads beside it (services.chat_post: the word filter).
ONLY_YOU = "Only you can see this: it says a word this site does not show."


#: What a line deleted by a moderator says from then on, wherever it is shown.
REMOVED_TEXT = "removed by a moderator"


class ChatQuerySet(models.QuerySet):
    def read_by(self, reader: int | None):
        """The lines as the account `reader` (a user's id; None: a guest) reads them: without
        those of the accounts it blocked (Block, below)."""
        if reader is None:
            return self
        blocked = Block.objects.filter(blocker_id=reader).values("blocked_id")
        return self.exclude(player__user_id__in=blocked)


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
    # Deleted by a moderator: its text is then REMOVED_TEXT everywhere (the moderation log keeps
    # what it said).
    removed = models.BooleanField(default=False)
    # When it was written, in Unix ms: the replay puts it among the moves by their at_ms.
    at_ms = models.BigIntegerField()
    created = models.DateTimeField(auto_now_add=True)
    # Said a word of the chat's word filter (settings.CHAT_BLOCKED_WORDS): shown to its writer
    # only ("only you can see this"), never to anyone else, in any list, replay or export.
    hidden = models.BooleanField(default=False, db_default=False)

    objects = ChatQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["game", "id"], name="chat_game_order")]

    def __str__(self) -> str:
        where = f"game {self.game_id}" if self.game_id else "the lobby"
        return f"{self.name} in {where}: {self.text[:40]}"


# -- manners: blocks, reports, sanctions, the moderation log ---------------------------------------


class Block(models.Model):
    """An account that does not want to hear from another: the blocked one's chat is hidden from
    the blocker everywhere, and the two are never challenged together (games.moderation). Kept by
    the platform, which filters chat, as it keeps BotAccount."""

    blocker = models.ForeignKey(
        settings.AUTH_USER_MODEL, related_name="blocks_made", on_delete=models.CASCADE
    )
    blocked = models.ForeignKey(
        settings.AUTH_USER_MODEL, related_name="blocks_against", on_delete=models.CASCADE
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="one_block_per_pair")
        ]

    def __str__(self) -> str:
        return f"{self.blocker} blocks {self.blocked}"


class Report(models.Model):
    """An account's report of a chat line, a name or a player, for the moderators to look at."""

    class Reason(models.TextChoices):
        SPAM = "spam", "Spam"
        ABUSE = "abuse", "Abuse or harassment"
        CHEATING = "cheating", "Cheating"
        NAME = "name", "Offensive name"
        OTHER = "other", "Something else"

    class About(models.TextChoices):
        LINE = "line", "A chat line"
        NAME = "name", "A name"
        PLAYER = "player", "A player"

    # The account that reported; null: the word filter (a line it hid, games.wordfilter).
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        related_name="reports_made",
        on_delete=models.CASCADE,
    )
    about = models.CharField(max_length=8, choices=About.choices)
    line = models.ForeignKey(
        ChatMessage, null=True, blank=True, related_name="reports", on_delete=models.SET_NULL
    )
    # The account reported (a line's writer when the line is an account's; null for a guest's).
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        related_name="reports_against",
        on_delete=models.SET_NULL,
    )
    # The name as it was reported (a line's writer's name, the account's name then).
    name = models.CharField(max_length=150, blank=True, default="")
    reason = models.CharField(max_length=10, choices=Reason.choices)
    note = models.CharField(max_length=500, blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    closed = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        related_name="reports_closed",
        on_delete=models.SET_NULL,
    )
    closed_note = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["closed", "id"], name="report_open_order")]

    def __str__(self) -> str:
        return f"report {self.pk}: {self.about} {self.name!r} ({self.reason})"


class Sanction(models.Model):
    """A moderator's mute (no chat) or ban (no joining, creating or moving at tables) of an
    account until a time, with why."""

    class Kind(models.TextChoices):
        MUTE = "mute", "Muted from chat"
        BAN = "ban", "Banned from playing"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, related_name="sanctions", on_delete=models.CASCADE
    )
    kind = models.CharField(max_length=4, choices=Kind.choices)
    until = models.DateTimeField()
    reason = models.CharField(max_length=500)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        related_name="sanctions_given",
        on_delete=models.SET_NULL,
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["user", "kind", "until"], name="sanction_lookup")]

    def __str__(self) -> str:
        return f"{self.user} {self.kind} until {self.until:%Y-%m-%d %H:%M}"


class ModerationLogEntry(models.Model):
    """One moderator's action, for good: who, what, about whom or what, when and why. Written
    once; its save refuses an update and the admin shows it read-only."""

    class Action(models.TextChoices):
        DELETE = "delete", "Deleted a chat line"
        MUTE = "mute", "Muted from chat"
        BAN = "ban", "Banned from playing"
        RENAME = "rename", "Renamed"
        CLOSE = "close", "Closed a report"
        UNMUTE = "unmute", "Lifted a mute early"
        UNBAN = "unban", "Lifted a ban early"

    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        related_name="moderation_done",
        on_delete=models.SET_NULL,
    )
    moderator_name = models.CharField(max_length=150)
    action = models.CharField(max_length=8, choices=Action.choices)
    # Whom or what it was about, in words ("bob", "line 41 by bob", "report 7").
    target = models.CharField(max_length=300)
    # What changed: the line's text, "until ...", "old -> new".
    detail = models.CharField(max_length=600, blank=True, default="")
    reason = models.CharField(max_length=500)
    report = models.ForeignKey(
        Report, null=True, blank=True, related_name="log", on_delete=models.SET_NULL
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "moderation log entries"
        # The moderators group's own permission (its members act on the moderation page).
        permissions = [("moderate", "Can act as a moderator: reports, lines, mutes, bans, names")]

    def __str__(self) -> str:
        return f"{self.moderator_name} {self.action} {self.target}"

    def save(self, *args, **kwargs):
        if self.pk is not None or kwargs.get("force_update"):
            raise ValueError("The moderation log cannot be edited: an entry is written once.")
        super().save(*args, **kwargs)


class Tournament(models.Model):
    """An arena tournament (games.tournaments): from `starts_at` for `minutes`, every player who
    joined and is not at a table is seated by the pool's pairing; each game scores placement
    points (games.arena_scoring). `status` is written by the lifecycle (games.tournaments.tick)
    as time passes; `ended_early` when the admin ended it before its time."""

    class Status(models.TextChoices):
        UPCOMING = "upcoming", "Upcoming"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"

    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=16, choices=Game.Kind.choices)
    options = models.JSONField(default=dict, blank=True)  # the tables' options, "mode" among them
    starts_at = models.DateTimeField(db_index=True)
    minutes = models.PositiveSmallIntegerField()
    ends_at = models.DateTimeField(db_index=True)  # starts_at + minutes, or when it was ended
    rated = models.BooleanField(default=False)
    bots = models.BooleanField(default=False)  # open to bot accounts too (else people only)
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        related_name="tournaments_made",
        on_delete=models.SET_NULL,
    )
    # A recurring arena's key ("hourly:set:classic:2026-11-27T03"): made once whoever makes it.
    recurring = models.CharField(max_length=80, null=True, blank=True, unique=True)
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.UPCOMING, db_index=True
    )
    ended_early = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["starts_at", "id"]

    def __str__(self) -> str:
        return f"{self.name} #{self.pk}"


class TournamentPlayer(models.Model):
    """An account in a tournament: its points and games (the sums of its TournamentScore rows,
    written with them in the transaction of each game's last move), its streak of wins (two
    in a row: "on fire", the points doubled until a game not won), and whether it paused
    (out of the pool until it comes back) or withdrew (out for good; its points stay)."""

    tournament = models.ForeignKey(Tournament, related_name="players", on_delete=models.CASCADE)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, related_name="tournament_entries", on_delete=models.CASCADE
    )
    points = models.FloatField(default=0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    streak = models.PositiveIntegerField(default=0)
    paused = models.BooleanField(default=False)
    withdrawn = models.BooleanField(default=False)
    joined = models.DateTimeField(auto_now_add=True)
    # Since when it waits in the pool (its join, its return, its last game's end): the pairing
    # seats the longest waiting first and widens their rating gap (games.pairing).
    waiting_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-points", "joined", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="tournament_player_once")
        ]
        indexes = [models.Index(fields=["tournament", "-points"], name="tournament_standings")]

    def __str__(self) -> str:
        return f"{self.user} in {self.tournament_id}: {self.points:g}"

    @property
    def on_fire(self) -> bool:
        return self.streak >= 2


class TournamentGame(models.Model):
    """A game played in a tournament (its table seated by the tournament's pool); `scored` once
    its points are given (in the transaction of its last move)."""

    game = models.OneToOneField(
        Game, primary_key=True, related_name="tournament_link", on_delete=models.CASCADE
    )
    tournament = models.ForeignKey(Tournament, related_name="games", on_delete=models.CASCADE)
    scored = models.BooleanField(default=False)

    class Meta:
        indexes = [models.Index(fields=["tournament", "scored"], name="tournament_games")]

    def __str__(self) -> str:
        return f"game {self.game_id} of tournament {self.tournament_id}"


class TournamentScore(models.Model):
    """What one game gave one account in a tournament: its place (0 first), the placement
    points, whether it was on fire (doubled), and the points it got."""

    tournament = models.ForeignKey(Tournament, related_name="scores", on_delete=models.CASCADE)
    game = models.ForeignKey(Game, related_name="tournament_scores", on_delete=models.CASCADE)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, related_name="tournament_scores", on_delete=models.CASCADE
    )
    place = models.PositiveSmallIntegerField()
    placement = models.FloatField()
    on_fire = models.BooleanField(default=False)
    points = models.FloatField()
    created = models.DateTimeField()

    class Meta:
        ordering = ["game_id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="tournament_score_once")
        ]
        indexes = [models.Index(fields=["tournament", "user"], name="tournament_player_games")]

    def __str__(self) -> str:
        return f"{self.user} in game {self.game_id}: {self.points:g}"


# -- Play now: the pools of players waiting for a table -------------------------------------------


class PoolEntry(models.Model):
    """A player waiting in a pool (games.pool): for a table of a kind and rated mode, rated or
    casual (Play now), or in an arena's pool (a pool named by its tournament). Pairing seats the
    waiting entries together and writes `game`; an entry is never deleted, so a restart finds who
    waits and since when. A player waits in one pool at most (the constraint)."""

    class Status(models.TextChoices):
        WAITING = "waiting"
        SEATED = "seated"
        LEFT = "left"

    pool = models.CharField(max_length=64)
    player = models.ForeignKey(Player, related_name="pool_entries", on_delete=models.CASCADE)
    # The account (None: a guest, who plays casual only); its blocks and rating are read by it.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        related_name="pool_entries",
        on_delete=models.CASCADE,
    )
    kind = models.CharField(max_length=16)
    mode = models.CharField(max_length=24)
    rated = models.BooleanField(default=False)
    # The table's options but its number of players (the kind's play_now_options, or an arena's).
    options = models.JSONField(default=dict)
    rating = models.FloatField()  # at entry: pairing compares these
    since = models.DateTimeField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.WAITING)
    game = models.ForeignKey(
        Game, null=True, blank=True, related_name="pool_entries", on_delete=models.SET_NULL
    )
    ended = models.DateTimeField(null=True, blank=True)  # seated or left
    # What the seat's token is handed to (a session, an account's token), and whom a guest's
    # gameStart is told through (its browser's session).
    credential = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        verbose_name_plural = "pool entries"
        # Who waits where: the waiting entries only (the seated and left ones pile up).
        indexes = [
            models.Index(
                fields=["pool", "since"], condition=Q(status="waiting"), name="pool_waiting"
            )
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["player"],
                condition=Q(status="waiting"),
                name="pool_one_wait_per_player",
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.status} in {self.pool}"
