"""The accounts' forms: the sign-up form says the rules of a name before anyone breaks one; the
admin's forms refuse a name that looks like another account's."""

from __future__ import annotations

from allauth.account.forms import SignupForm
from django import forms
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm

from accounts.selectors import name_taken
from accounts.validators import MAX_LENGTH, NameTaken


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


class AccountNameAdminMixin:
    """The admin's account forms refuse a name another account has, or one that looks like it
    (the sign-up form's rule), as a form error rather than a failed save."""

    def clean_username(self):
        parent = getattr(super(), "clean_username", None)
        username = parent() if parent is not None else self.cleaned_data["username"]
        if username and name_taken(username, other_than=self.instance):
            raise forms.ValidationError(NameTaken(username).message, code="username_taken")
        return username


class AccountCreationForm(AccountNameAdminMixin, AdminUserCreationForm):
    pass


class AccountChangeForm(AccountNameAdminMixin, UserChangeForm):
    pass
