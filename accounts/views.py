"""The account's pages beside allauth's: its public profile and its personal API tokens; and
allauth's log-in and sign-up pages, and the admin's log-in, under the site's limits."""

from __future__ import annotations

from allauth.account import views as allauth_views
from allauth.account.adapter import get_adapter
from django.contrib import admin, messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from accounts import logins
from accounts.forms import TOKEN_NAME_MAX, RevokeForm, TokenForm
from accounts.models import AccessToken
from accounts.selectors import account_named
from accounts.tokens import token_create, token_revoke
from accounts.validators import NameTaken
from games import (
    charts,
    ghosts,
    insights,
    limits,
    manners,
    moderation,
    profiles,
    ratings,
    selectors,
    tournament_reads,
)
from games.auth import session_player
from games.errors import NotFound
from games.models import Block, BotAccount, Game
from games.pages import game_row


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request):
    """List the account's tokens; make one (shown on this answer only) or revoke one. What is
    posted is read by a form first: a bad name is a 400 with the page and its message."""
    error = new_token = None
    name_value = ""
    if request.method == "POST":
        if "revoke" in request.POST:
            revoke = RevokeForm(request.POST)
            revoked = revoke.is_valid() and token_revoke(
                user=request.user, token_id=revoke.cleaned_data["revoke"]
            )
            if revoked:
                messages.success(request, "The token is revoked: it acts for nobody any more.")
            else:
                messages.error(request, "You have no such token to revoke.")
            back = request.POST.get("next", "")
            if back != reverse("profile", args=[request.user.get_username()]):
                back = reverse("account_tokens")  # the profile or this page, nowhere else
            return redirect(back)
        form = TokenForm(request.POST)
        if form.is_valid():
            _, new_token = token_create(user=request.user, name=form.cleaned_data["name"])
        else:
            error = " ".join(form.errors["name"])
            name_value = form.data.get("name", "").replace("\x00", "")
    rows = AccessToken.objects.filter(user=request.user)
    return render(
        request,
        "accounts/tokens.html",
        {
            "tokens": rows,
            "new_token": new_token,
            "error": error,
            "name_value": name_value,
            "name_max": TOKEN_NAME_MAX,
        },
        status=400 if error else 200,
    )


class LoginView(allauth_views.LoginView):
    """allauth's log-in page under the site's login limit: refused by it, the form with the
    sentence comes as 429 with Retry-After (the limit itself: accounts.adapter, accounts.logins)."""

    def post(self, request, *args, **kwargs):
        return logins.answer_429(request, super().post(request, *args, **kwargs))


def admin_login(request, **kwargs):
    """The admin's log-in page, answered as the site's own (429 with Retry-After over the limit;
    the form: accounts.forms.AdminLoginForm)."""
    return logins.answer_429(request, admin.site.login(request, **kwargs))


class SignupView(allauth_views.SignupView):
    """allauth's sign-up page: under the site's one sign-up limit (RATE_LIMIT_SIGNUPS, shared
    with POST /api/accounts), and the account, its name row and its player made in one
    transaction. A sign-up that loses a race for its name is told so on the name's field."""

    def post(self, request, *args, **kwargs):
        try:
            limits.check("signups", limits.client_address(request.META))
        except limits.RateLimited as refused:
            form = self.get_form()
            form.add_error(None, refused.message)
            response = self.form_invalid(form)
            response.status_code = 429
            response["Retry-After"] = str(refused.retry_after)
            return response
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        try:
            with transaction.atomic():
                return super().form_valid(form)
        except (NameTaken, IntegrityError):
            # Another sign-up took the name (or one that looks like it) since the form's check.
            form.add_error("username", get_adapter().error_messages["username_taken"])
            return self.form_invalid(form)


@require_GET
def profile(request, name: str):
    """An account's public profile: its ratings with their history as charts, its totals and
    its last 100 games with links to their replays."""
    try:
        user = account_named(name)
    except NotFound as error:
        raise Http404(str(error)) from None
    if user.get_username() != name:  # the name as typed, in another case: its own address
        return redirect("profile", name=user.get_username())
    names = ratings.mode_names()
    rated = profiles.account_ratings(user)
    history = profiles.rating_history(user)
    modes = []
    # A link to each rated game's replay, without reversing the URL once per game.
    replay = reverse("replay", args=[0]).replace("/0/", "/{}/")
    for mode, rating in rated.items():
        points = history.get(mode, [])
        for point in points:
            point["replay_url"] = replay.format(point["game"]) if point["game"] else None
        title = f"{user.get_username()}'s {names.get(mode, mode)} rating, game by game"
        chart = charts.line_chart(
            [
                charts.Series(
                    names.get(mode, mode), [(i, p["rating"]) for i, p in enumerate(points)]
                )
            ],
            title=title,
            description=(
                f"The rating after each of {len(points) - 1} rated games, from "
                f"{points[0]['rating'] if points else ratings.shown(ratings.MU)} at the start to "
                f"{rating['rating']}."
            ),
            x_format=lambda x: f"game {x:.0f}" if x else "start",
        )
        modes.append(
            {
                "mode": mode,
                "name": names.get(mode, mode),
                **rating,
                "chart": chart,
                "points": points,
            }
        )
    stats = profiles.account_stats(user)
    fields = [
        (label, stats[field], profiles.is_seconds(field))
        for field, label in profiles.stat_fields().items()
    ]
    is_self = request.user.is_authenticated and request.user.pk == user.pk
    # A private game (by link only) is listed to its own player, and to staff.
    seats = profiles.latest_seats(user, private=is_self or request.user.is_staff)
    figures = profiles.finished_stats(
        seat.game_id for seat in seats if seat.game.status == seat.game.Status.OVER
    )
    games = []
    for seat in seats:
        row = game_row(seat.game, seat.player)
        won = (figures.get(seat.game_id) or {}).get(seat.name, {}).get("games_won")
        games.append({**row, "seat": seat, "won": won})
    insight = _insights(request, user, private=is_self or request.user.is_staff)
    return render(
        request,
        "accounts/profile.html",
        {
            "account": user,
            "bot": BotAccount.objects.filter(user=user).first(),
            "is_self": is_self,
            "blocked": request.user.is_authenticated
            and Block.objects.filter(blocker_id=request.user.pk, blocked=user).exists(),
            "tokens": AccessToken.objects.filter(user=user) if is_self else [],
            "name_max": TOKEN_NAME_MAX,
            "modes": modes,
            "games_played": stats["games_played"],
            "fields": fields,
            "games": games,
            "best_runs": ghosts.best_runs(user, private=is_self or request.user.is_staff),
            "last_games": profiles.LAST_GAMES,
            "api_url": reverse("api-user", args=[user.get_username()]),
            "export_url": reverse("api-user-games", args=[user.get_username()]),
            "insights": insight,
            "rated_wait": _rated_wait(user),
            "tournaments": tournament_reads.tournaments_of(user),
        },
        status=400 if insight["error"] else 200,
    )


def _rated_wait(user) -> dict | None:
    """Why and until when the account waits before it plays rated again (games.manners), with
    the replays of the games it left; None when it does not."""
    wait = manners.rated_wait(user.pk)
    if wait is None:
        return None
    replay = reverse("replay", args=[0]).replace("/0/", "/{}/")
    return {
        **wait,
        "minutes_left": manners.minutes_left(wait),
        "games": [{**leave, "url": replay.format(leave["game"])} for leave in wait["leaves"]],
    }


def _insights(request, user, *, private: bool) -> dict:
    """The profile's insights: its charts and tables over the last games asked for (?games=),
    and a practice table's form fields for the kinds of set most missed."""
    name = user.get_username()
    error = None
    try:
        count = insights.games_choice(request.GET.get("games"))
    except insights.BadGames as refused:
        error, count = str(refused), insights.DEFAULT_GAMES
    answer = insights.account_insights(user, count, private=private)
    found = next((entry for entry in answer["kinds"] if entry["kind"] == "set"), None)
    practice = found and found["practice"]
    return {
        "error": error,
        "games": count,
        "choices": insights.GAME_CHOICES,
        "counted": answer["games_counted"],
        "set": found,
        "charts": insights.insight_charts(found, name=name) if found else None,
        "practice": practice
        and {
            "attributes": practice["attributes"],
            "favour": ",".join(practice["favour"]),
            "labels": [row["label"] for row in found["missed"] if row["key"] in practice["favour"]],
        },
        "needs_name": session_player(request) is None,
        "api_url": reverse("api-player-insights", args=[name]) + f"?games={count}",
    }


def profile_slash(request, name: str):
    """/u/<name>/ is /u/<name>."""
    return redirect("profile", name=name, permanent=True)


@require_GET
@login_required
def moderation_page(request):
    """The moderators' page: the open reports, each with its context (the lines before and after
    a reported line and its game, or the account's profile) and the actions on it, and the
    moderation log. A guest is sent to log in; any other account gets a 403 that says why, as
    the moderation API answers it."""
    if not moderation.is_moderator(request.user):
        raise PermissionDenied(moderation.NOT_MODERATOR)
    reports = []
    for report in moderation.reports_open():
        item = moderation.report_context(report)
        game_id = (item["context"] or {}).get("game")
        if game_id is not None:
            game = Game.objects.filter(pk=game_id).only("kind", "link_key").first()
            if game is not None:
                item["game_url"] = selectors.keyed_url(
                    selectors.page_url(game.kind, game.pk), game.link_key
                )
        item["reason_label"] = moderation.REASONS.get(report.reason, report.reason)
        item["removed"] = bool(report.line_id and report.line.removed)
        reports.append(item)
    return render(
        request,
        "moderation.html",
        {
            "reports": reports,
            "log": [moderation.log_json(e) for e in moderation.log_entries(100)],
            "sanctions": [moderation.sanction_json(s) for s in moderation.sanctions_in_force()],
            "minutes_min": moderation.MINUTES_MIN,
            "minutes_max": moderation.MINUTES_MAX,
            "reason_max": moderation.REASON_MAX,
            "word_filter": moderation.WORD_FILTER,
        },
    )
