"""allauth's adapter for this site: names are compared and stored in one Unicode form, a name
another account has, or one that looks like it, is taken (on every database: accounts.selectors)."""

from __future__ import annotations

import unicodedata

from allauth.account.adapter import DefaultAccountAdapter
from django import forms

from accounts.selectors import name_taken


class AccountAdapter(DefaultAccountAdapter):
    def clean_username(self, username, shallow=False):
        # "Zoë" typed as e + a combining diaeresis is the same name as the one-letter "ë".
        username = super().clean_username(unicodedata.normalize("NFC", username), shallow=shallow)
        if not shallow and name_taken(username):
            raise forms.ValidationError(self.error_messages["username_taken"])
        return username
