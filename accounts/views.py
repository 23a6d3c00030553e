"""The account's pages beside allauth's: its public profile and its personal API tokens; and
allauth's log-in and sign-up pages, and the admin's log-in, under the site's limits."""

from __future__ import annotations

from allauth.account import views as allauth_views
from allauth.account.adapter import get_adapter
from django.contrib import admin, messages
from django.contrib.auth.decorators import login_required
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
from games import charts, limits, profiles, ratings
from games.errors import NotFound
from games.models import BotAccount
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
        won = figures.get(seat.game_id, {}).get(seat.name, {}).get("games_won")
        games.append({**row, "seat": seat, "won": won})
    return render(
        request,
        "accounts/profile.html",
        {
            "account": user,
            "bot": BotAccount.objects.filter(user=user).first(),
            "is_self": is_self,
            "tokens": AccessToken.objects.filter(user=user) if is_self else [],
            "name_max": TOKEN_NAME_MAX,
            "modes": modes,
            "games_played": stats["games_played"],
            "fields": fields,
            "games": games,
            "last_games": profiles.LAST_GAMES,
            "api_url": reverse("api-user", args=[user.get_username()]),
            "export_url": reverse("api-user-games", args=[user.get_username()]),
        },
    )


def profile_slash(request, name: str):
    """/u/<name>/ is /u/<name>."""
    return redirect("profile", name=name, permanent=True)
