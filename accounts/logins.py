"""The one limit on logging in (issue 23), for every way in that checks a password: the log-in
form (allauth, through accounts.adapter), `POST /api/auth/token` (accounts.api) and the admin's
log-in (accounts.admin).

What counts is a failed login: Django's `user_login_failed`, which `authenticate()` sends for
every way in (accounts.signals), counts one against the client's address (RATE_LIMIT_LOGINS) and
one against the account named (RATE_LIMIT_ACCOUNT_LOGINS; names that look alike are one account,
games.names.name_key, whether or not it exists). Before checking a password, each way in asks
`login_check`: while either count is used up, every login is refused with 429, a Retry-After and
a sentence naming the limit, a correct password too. A successful login counts nothing. The
counts live in games.limits (Django's cache, Redis when REDIS_URL is set).
"""

from __future__ import annotations

import hashlib

from games import limits
from games.names import name_key

# The request attribute a refused login leaves for its view, which answers 429 (`answer_429`).
REFUSED = "login_refused"


def _account(username) -> str | None:
    if not isinstance(username, str) or not username:
        return None
    # A digest: the cache's key holds no name, and any text is a valid key.
    return hashlib.sha256(name_key(username).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _address(request) -> str | None:
    meta = getattr(request, "META", None)
    return limits.client_address(meta) if meta is not None else None


def _counts(request, username) -> list[tuple[str, str]]:
    """The limits a login counts in: its account's and its address's (scope, key)."""
    account, address = _account(username), _address(request)
    counts = [("account_logins", account)] if account is not None else []
    return counts + ([("logins", address)] if address is not None else [])


def login_check(*, request, username) -> None:
    """Refuse (RateLimited) a login while its account or its address has used up its failed
    logins; the request remembers why, for the way in's answer."""
    try:
        for scope, key in _counts(request, username):
            limits.check_open(scope, key)
    except limits.RateLimited as refused:
        if request is not None:
            setattr(request, REFUSED, refused)
        raise


def login_failed(*, request, username) -> None:
    """Count a failed login against its account and its address."""
    for scope, key in _counts(request, username):
        limits.count(scope, key)


def answer_429(request, response):
    """A log-in page refused by the limit: the same page (the form with the sentence), as 429
    with Retry-After."""
    refused = getattr(request, REFUSED, None)
    if refused is not None and response.status_code == 200:
        response.status_code = 429
        response["Retry-After"] = str(refused.retry_after)
    return response
