"""The admin: games with filters, their seats, the move log inline, the state pretty-printed,
and the log exportable as JSON."""

from __future__ import annotations

import json

from django.contrib import admin, messages
from django.db.models import Max
from django.http import JsonResponse
from django.urls import path, reverse
from django.utils.html import format_html

from games import selectors, tournaments
from games.errors import GameError
from games.models import (
    Block,
    ChatMessage,
    Game,
    ModerationLogEntry,
    Move,
    Player,
    PoolEntry,
    Rating,
    RatingChange,
    Report,
    Sanction,
    Seat,
    Tournament,
    TournamentPlayer,
)


def pretty(data) -> str:
    return format_html(
        '<pre class="admin-json">{}</pre>',
        json.dumps(data, indent=2, sort_keys=True),
    )


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("number", "name", "player", "score", "is_computer", "joined")
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


class RatingChangeInline(admin.TabularInline):
    """What a rated game did to its accounts' ratings (none: it was not rated)."""

    model = RatingChange
    extra = 0
    fields = ("user", "mode", "rank", "before", "after", "created")
    readonly_fields = fields
    can_delete = False
    verbose_name_plural = "rating changes (none: the game did not rate)"

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="rating before (mu ± sigma)")
    def before(self, change: RatingChange) -> str:
        return f"{change.mu_before:.0f} ± {change.sigma_before:.0f}"

    @admin.display(description="rating after (mu ± sigma)")
    def after(self, change: RatingChange) -> str:
        moved = change.mu_after - change.mu_before
        return f"{change.mu_after:.0f} ± {change.sigma_after:.0f} ({moved:+.0f})"


class MoveInline(admin.TabularInline):
    model = Move
    extra = 0
    fields = ("seq", "actor", "action_text", "outcome_text", "at_ms", "created")
    readonly_fields = fields
    can_delete = False
    ordering = ("seq",)
    # A long log (a Set War draw has 10,000 rounds) would make the page megabytes long and
    # slow to draw: the page shows the latest moves, the JSON export has them all.
    max_shown = 200
    verbose_name_plural = f"moves (the latest {max_shown}; the JSON export has the whole log)"

    def has_add_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        moves = super().get_queryset(request)
        match = request.resolver_match
        try:
            game_id = int(match.kwargs["object_id"])
        except (AttributeError, KeyError, TypeError, ValueError):
            return moves
        last = Move.objects.filter(game_id=game_id).aggregate(last=Max("seq"))["last"]
        if last is not None and last > self.max_shown:
            moves = moves.filter(seq__gt=last - self.max_shown)
        return moves

    @admin.display(description="action")
    def action_text(self, move: Move) -> str:
        return json.dumps(move.action, sort_keys=True)

    @admin.display(description="outcome")
    def outcome_text(self, move: Move) -> str:
        return json.dumps(move.outcome, sort_keys=True)


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    class Media:
        # The site's CSP allows no style attribute: the pretty-printed JSON's box is a class.
        css = {"all": ("css/admin.css",)}

    list_display = (
        "id",
        "kind",
        "rule_set",
        "status",
        "players",
        "version",
        "is_open",
        "is_default",
        "created",
        "finished",
    )
    list_filter = ("kind", "status", "is_open", "rated")
    search_fields = ("id", "seats__name")
    date_hierarchy = "created"
    readonly_fields = (
        "kind",
        "seed",
        "version",
        "status",
        "created",
        "updated",
        "finished",
        "deadline_ms",
        "created_ms",
        "options_pretty",
        "state_pretty",
        "export_link",
        "rated",
        "rated_result",
    )
    fields = (
        "kind",
        "status",
        "is_open",
        "is_default",
        "seed",
        "version",
        "created",
        "updated",
        "finished",
        "deadline_ms",
        "created_ms",
        "rated",
        "rated_result",
        "options_pretty",
        "export_link",
        "state_pretty",
    )
    inlines = [SeatInline, RatingChangeInline, MoveInline]

    @admin.display(description="rating")
    def rated_result(self, game: Game) -> str:
        if not game.rated:
            return "Not created rated."
        changed = game.rating_changes.count()
        if changed:
            return f"Rated: {changed} ratings changed (below)."
        if game.status == Game.Status.OVER:
            return "Created rated, but not rated: a guest, a computer or a hint."
        return "Created rated: rates when it ends if every seat is an account's and no hint."

    @admin.display(description="rules")
    def rule_set(self, game: Game) -> str:
        return game.options.get("rules", "")

    @admin.display(description="players")
    def players(self, game: Game) -> str:
        return ", ".join(seat.name for seat in game.seats.all())

    @admin.display(description="options")
    def options_pretty(self, game: Game) -> str:
        return pretty(game.options)

    @admin.display(description="state")
    def state_pretty(self, game: Game) -> str:
        return pretty(game.state)

    @admin.display(description="export")
    def export_link(self, game: Game) -> str:
        if not game.pk:
            return "-"
        url = reverse("admin:games_game_export", args=[game.pk])
        return format_html(
            '<a class="button" href="{}">Download the game and its log as JSON</a>', url
        )

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("seats")

    def get_urls(self):
        return [
            path(
                "<int:game_id>/export/",
                self.admin_site.admin_view(self.export_view),
                name="games_game_export",
            ),
            *super().get_urls(),
        ]

    def export_view(self, request, game_id: int):
        game = selectors.game_get(game_id)
        export = selectors.game_export(game, full=True)
        response = JsonResponse(export, json_dumps_params={"indent": 2})
        response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.json"'
        return response

    def has_add_permission(self, request):
        return False


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "is_computer", "user", "created")
    list_filter = ("is_computer",)
    search_fields = ("name",)


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "number", "name", "score", "is_computer")
    list_filter = ("game__kind", "is_computer")
    search_fields = ("name",)
    readonly_fields = ("token",)


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "seq", "actor", "created")
    list_filter = ("game__kind",)
    readonly_fields = ("game", "seq", "seat", "actor", "action", "outcome", "at_ms", "created")


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("user", "mode", "rating", "mu", "sigma", "games", "updated")
    list_filter = ("mode",)
    search_fields = ("user__username",)
    readonly_fields = ("user", "mode", "mu", "sigma", "games", "updated")
    ordering = ("mode", "-mu")

    @admin.display(description="rating", ordering="mu")
    def rating(self, rating: Rating) -> int:
        return round(rating.mu)

    def has_add_permission(self, request):
        return False


@admin.register(PoolEntry)
class PoolEntryAdmin(admin.ModelAdmin):
    """Who waits in Play now's pools, and where each entry was seated (read only: pairing
    writes them, games.pool)."""

    list_display = ("id", "pool", "player", "rated", "rating", "since", "status", "game")
    list_filter = ("status", "kind", "rated")
    search_fields = ("player__name", "pool")
    readonly_fields = [f.name for f in PoolEntry._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    """The chat of every game and of the lobby, to read, and to delete a line that must go; a
    message is never written or changed here."""

    list_display = ("id", "where", "name", "text", "created")
    list_filter = (("game", admin.EmptyFieldListFilter),)
    search_fields = ("name", "text", "game__id")
    readonly_fields = ("game", "player", "name", "text", "at_ms", "created")
    list_select_related = ("game",)

    @admin.display(description="where", ordering="game_id")
    def where(self, message: ChatMessage) -> str:
        return str(message.game) if message.game_id else "the lobby"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Block)
class BlockAdmin(admin.ModelAdmin):
    list_display = ("blocker", "blocked", "created")
    search_fields = ("blocker__username", "blocked__username")
    raw_id_fields = ("blocker", "blocked")


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    """Reports as filed; the moderators act on them from the moderation page (/moderation/)."""

    list_display = ("id", "about", "name", "reason", "reporter", "created", "closed")
    list_filter = ("about", "reason", ("closed", admin.EmptyFieldListFilter))
    search_fields = ("name", "note", "reporter__username")
    raw_id_fields = ("reporter", "line", "account", "closed_by")


@admin.register(Sanction)
class SanctionAdmin(admin.ModelAdmin):
    """Mutes and bans; given from the moderation page or its API, which write the log."""

    list_display = ("user", "kind", "until", "reason", "by", "created")
    list_filter = ("kind",)
    search_fields = ("user__username", "reason")
    raw_id_fields = ("user", "by")

    def has_add_permission(self, request):
        return False  # given on the moderation page, which writes the log too

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(ModerationLogEntry)
class ModerationLogAdmin(admin.ModelAdmin):
    """The moderation log, read-only: nobody adds, edits or deletes an entry here."""

    list_display = ("created", "moderator_name", "action", "target", "reason")
    list_filter = ("action",)
    search_fields = ("moderator_name", "target", "reason", "detail")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class TournamentPlayerInline(admin.TabularInline):
    model = TournamentPlayer
    extra = 0
    fields = ("user", "points", "games", "wins", "streak", "paused", "withdrawn", "joined")
    readonly_fields = fields
    can_delete = False
    ordering = ("-points",)

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    """Tournaments, their players and points; an action ends one early (its games still being
    played finish and count; no new table is made)."""

    list_display = (
        "id",
        "name",
        "kind",
        "status",
        "starts_at",
        "minutes",
        "rated",
        "bots",
        "recurring",
        "ended_early",
    )
    list_filter = ("status", "kind", "rated", "bots", "ended_early")
    search_fields = ("name", "recurring")
    readonly_fields = ("status", "ended_early", "ends_at", "created")
    inlines = [TournamentPlayerInline]
    actions = ["end_early"]

    @admin.action(description="End the selected tournaments now")
    def end_early(self, request, queryset):
        ended = 0
        for tournament in queryset:
            try:
                tournaments.tournament_end(tournament_id=tournament.pk)
            except GameError as error:
                self.message_user(request, f"{tournament}: {error.message}", messages.WARNING)
                continue
            ended += 1
        self.message_user(request, f"Ended {ended} tournament(s) early.", messages.SUCCESS)
