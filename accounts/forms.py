"""The sign-up form says the rules of a name before anyone breaks one."""

from __future__ import annotations

from allauth.account.forms import SignupForm

from accounts.validators import MAX_LENGTH


class AccountSignupForm(SignupForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["username"].help_text = (
            f"1 to {MAX_LENGTH} characters: letters of any script, digits, '_' and '-'. "
            "It is the name you play under."
        )
        # No maxlength on the input: a browser would cut a long name silently; the server refuses
        # it with a message instead.
        self.fields["username"].widget.attrs.pop("maxlength", None)
