"""The account's pages beside allauth's: its personal API tokens."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts.models import AccessToken
from accounts.tokens import token_create, token_revoke

TOKEN_NAME_MAX = AccessToken._meta.get_field("name").max_length


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request):
    """List the account's tokens; make one (shown on this answer only) or revoke one."""
    error = new_token = None
    name_value = ""
    if request.method == "POST":
        if "revoke" in request.POST:
            try:
                token_id = int(request.POST["revoke"])
            except ValueError:
                token_id = 0
            if token_revoke(user=request.user, token_id=token_id):
                messages.success(request, "The token is revoked: it acts for nobody any more.")
            else:
                messages.error(request, "You have no such token to revoke.")
            return redirect("account_tokens")
        name_value = request.POST.get("name", "").strip()
        if not name_value:
            error = "Give the token a name, such as the program that will use it."
        elif len(name_value) > TOKEN_NAME_MAX:
            error = f"A token's name has at most {TOKEN_NAME_MAX} characters."
        else:
            _, new_token = token_create(user=request.user, name=name_value)
            name_value = ""
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
