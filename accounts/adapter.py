"""allauth's adapter for this site: names are compared and stored in one Unicode form."""

from __future__ import annotations

import unicodedata

from allauth.account.adapter import DefaultAccountAdapter


class AccountAdapter(DefaultAccountAdapter):
    def clean_username(self, username, shallow=False):
        # "Zoë" typed as e + a combining diaeresis is the same name as the one-letter "ë".
        return super().clean_username(unicodedata.normalize("NFC", username), shallow=shallow)
