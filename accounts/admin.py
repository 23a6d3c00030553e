"""Accounts in the admin (issue 16, item 8): Django's user admin, with each account's ratings, its
latest games (and what each rated game did to its rating) and its personal API tokens.

Everything added is read-only: ratings move only when a rated game ends, and a token is made and
revoked by its owner on the profile. A token's digest is never shown.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import Count
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from accounts.challenges import status_of
from accounts.forms import AccountChangeForm, AccountCreationForm, AdminLoginForm
from accounts.models import AccessToken, Challenge
from games import ratings
from games.models import Game, Rating, RatingChange, Seat

User = get_user_model()
GAMES_SHOWN = 100


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        # Each row shows its object's name, which names its account.
        return super().get_queryset(request).select_related("user")


class RatingInline(ReadOnlyInline):
    """The account's rating in each mode it has played rated."""

    model = Rating
    fields = ("mode", "rating", "sigma_shown", "games", "updated")
    readonly_fields = fields
    ordering = ("mode",)
    verbose_name_plural = "ratings (one per mode with a rated game)"

    @admin.display(description="rating")
    def rating(self, rating: Rating) -> int:
        return ratings.shown(rating.mu)

    @admin.display(description="sigma (uncertainty)")
    def sigma_shown(self, rating: Rating) -> str:
        return f"{rating.sigma:.0f}"


class AccessTokenInline(ReadOnlyInline):
    """The account's personal API tokens: names and dates only (the digest stays hidden)."""

    model = AccessToken
    fields = ("name", "created", "last_used", "revoked")
    readonly_fields = fields
    verbose_name_plural = "personal API tokens"


def account_games(user_id: int, *, limit: int = GAMES_SHOWN) -> tuple[list[Game], int]:
    """The latest games an account sat at, newest first (without their states), and how many it
    sat at in all: two queries."""
    sat = Seat.objects.filter(player__user_id=user_id).values("game_id")
    games = Game.objects.filter(pk__in=sat)
    listed = games.only("kind", "options", "status", "rated", "created", "finished")
    return list(listed.order_by("-id")[:limit]), games.count()


# Django's own registration (django.contrib.auth, installed before this app) is replaced.
admin.site.unregister(User)
# The admin's log-in is under the site's login limit (AdminSite.login_form, a documented setting).
admin.site.login_form = AdminLoginForm


@admin.register(User)
class AccountAdmin(UserAdmin):
    """Django's user admin, with what an account did on the site."""

    list_display = (*UserAdmin.list_display, "rated_games", "date_joined")
    # A name another account has, or one that looks like it, is a form error.
    add_form = AccountCreationForm
    form = AccountChangeForm
    inlines = [RatingInline, AccessTokenInline]
    # An account may have played thousands of games: the page lists the latest.
    games_shown = GAMES_SHOWN

    def get_queryset(self, request):
        # Rated games: the rating changes of the account (one per game it was rated in).
        return super().get_queryset(request).annotate(rated=Count("rating_changes"))

    @admin.display(description="rated games", ordering="rated")
    def rated_games(self, user) -> int:
        return user.rated

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:
            return fieldsets
        return (*fieldsets, ("Games", {"fields": ("games",)}))

    def get_readonly_fields(self, request, obj=None):
        fields = super().get_readonly_fields(request, obj)
        return fields if obj is None else (*fields, "games")

    @admin.display(description=f"games (the latest {GAMES_SHOWN})")
    def games(self, user) -> str:
        games, total = account_games(user.pk, limit=self.games_shown)
        if not games:
            return "No game yet."
        changes = {
            change.game_id: change
            for change in RatingChange.objects.filter(user=user, game__in=[g.pk for g in games])
        }
        rows = format_html_join(
            "",
            "<tr><td><a href='{}'>{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
            "<td>{}</td></tr>",
            (
                (
                    reverse("admin:games_game_change", args=[game.pk]),
                    f"#{game.pk}",
                    game.get_kind_display(),
                    game.get_status_display(),
                    "yes" if game.rated else "no",
                    rating_moved(changes.get(game.pk)),
                    game.finished.strftime("%Y-%m-%d %H:%M") if game.finished else "-",
                )
                for game in games
            ),
        )
        shown = f"{len(games)} of {total} games, newest first" if total > len(games) else ""
        return format_html(
            "{}<table class='account-games'><thead><tr><th>game</th><th>kind</th><th>status</th>"
            "<th>rated</th><th>rating change</th><th>finished</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            format_html("<p>{}</p>", shown) if shown else "",
            rows,
        )


def rating_moved(change: RatingChange | None) -> str:
    if change is None:
        return "-"
    before, after = ratings.shown(change.mu_before), ratings.shown(change.mu_after)
    return f"{change.mode}: {before} → {after} ({after - before:+d})"


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    """Challenges between accounts, read-only: they change only by their accounts' answers."""

    list_display = ("id", "challenger", "dest", "kind", "rated", "shown_status", "created")
    list_filter = ("status", "kind", "rated")
    search_fields = ("challenger__username", "dest__username")
    list_select_related = ("challenger", "dest")
    readonly_fields = [f.name for f in Challenge._meta.fields] + ["shown_status"]

    @admin.display(description="as read now")
    def shown_status(self, challenge: Challenge) -> str:
        return status_of(challenge)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
