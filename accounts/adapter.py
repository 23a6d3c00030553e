"""allauth's adapter for this site: names are compared and stored in one Unicode form, a name
another account has, or one that looks like it, is taken (on every database: accounts.selectors),
and a login is under the site's one login limit (accounts.logins), not allauth's."""

from __future__ import annotations

import unicodedata

from allauth.account.adapter import DefaultAccountAdapter
from django import forms

from accounts import logins
from accounts.selectors import name_taken
from games.limits import RateLimited


class AccountAdapter(DefaultAccountAdapter):
    def clean_username(self, username, shallow=False):
        # "Zoë" typed as e + a combining diaeresis is the same name as the one-letter "ë".
        username = super().clean_username(unicodedata.normalize("NFC", username), shallow=shallow)
        if not shallow and name_taken(username):
            raise forms.ValidationError(self.error_messages["username_taken"])
        return username

    def pre_authenticate(self, request, **credentials):
        # Instead of allauth's own count (ACCOUNT_RATE_LIMITS turns it off): the site's, which
        # the API and the admin share. The page answers 429 (accounts.views.LoginView).
        try:
            logins.login_check(request=request, username=credentials.get("username"))
        except RateLimited as refused:
            raise forms.ValidationError(refused.message, code="rate_limited") from None
