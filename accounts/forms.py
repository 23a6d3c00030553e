"""The accounts' forms: the sign-up form says the rules of a name before anyone breaks one; the
tokens page's forms read what is posted before anything is stored; the admin's forms refuse a
name that looks like another account's, and its log-in keeps the site's one login limit."""

from __future__ import annotations

from allauth.account.forms import SignupForm
from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm

from accounts import logins
from accounts.models import AccessToken
from accounts.selectors import name_taken
from accounts.validators import MAX_LENGTH, NameTaken
from games.limits import RateLimited

TOKEN_NAME_MAX = AccessToken._meta.get_field("name").max_length
# The largest id a row can have (a 64-bit column): anything else names no token.
LARGEST_ID = 2**63 - 1


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


class TokenForm(forms.Form):
    """A new personal token's name (Django's CharField refuses a NUL, which PostgreSQL would)."""

    name = forms.CharField(
        max_length=TOKEN_NAME_MAX,
        error_messages={
            "required": "Give the token a name, such as the program that will use it.",
            "max_length": f"A token's name has at most {TOKEN_NAME_MAX} characters.",
        },
    )


class RevokeForm(forms.Form):
    """Which token to revoke: a row's id, or nothing that could be one."""

    revoke = forms.IntegerField(min_value=1, max_value=LARGEST_ID)


class AccountNameAdminMixin:
    """The admin's account forms refuse a name another account has, or one that looks like it
    (the sign-up form's rule), as a form error rather than a failed save."""

    def clean_username(self):
        parent = getattr(super(), "clean_username", None)
        username = parent() if parent is not None else self.cleaned_data["username"]
        # Only a new name is checked: an old account whose name looks like another's (migration
        # 0003 kept both) can still be edited, and renamed.
        changed = self.instance.pk is None or "username" in self.changed_data
        if username and changed and name_taken(username, other_than=self.instance):
            raise forms.ValidationError(NameTaken(username).message, code="username_taken")
        return username


class AccountCreationForm(AccountNameAdminMixin, AdminUserCreationForm):
    pass


class AccountChangeForm(AccountNameAdminMixin, UserChangeForm):
    pass


class AdminLoginForm(AdminAuthenticationForm):
    """The admin's log-in, under the site's login limit (accounts.logins)."""

    def clean(self):
        try:
            logins.login_check(request=self.request, username=self.cleaned_data.get("username"))
        except RateLimited as refused:
            raise forms.ValidationError(refused.message, code="rate_limited") from None
        return super().clean()
