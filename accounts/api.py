"""The accounts JSON API, for programs: make an account, and get a personal token for one."""

from __future__ import annotations

import unicodedata

from django.contrib.auth import authenticate, get_user_model, password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import serializers as s
from accounts.tokens import token_create
from accounts.validators import validate_username
from games import limits
from games.errors import Conflict
from games.schema import JSON_BODY, JSON_BODY_RESPONSES, RATE_LIMITED_RESPONSES, error_response

TAGS = ["Accounts"]
API_TOKEN_NAME = "api"


def _credentials(data) -> tuple[str, str]:
    checked = s.CredentialsRequest(data=data)
    checked.is_valid(raise_exception=True)
    username = unicodedata.normalize("NFC", checked.validated_data["username"])
    return username, checked.validated_data["password"]


class AuthTokenView(APIView):
    authentication_classes = []  # the body carries the credentials; no session, no CSRF
    parser_classes = JSON_BODY

    @extend_schema(
        tags=TAGS,
        summary="Get a personal token for an account",
        description=(
            "Checks the account's name and password and makes a new personal token named "
            f'"{API_TOKEN_NAME}" (the account can revoke it on /accounts/tokens/). Counted with '
            "joins in the client's rate limit, so passwords cannot be guessed at speed."
        ),
        auth=[],
        request=s.CredentialsRequest,
        responses={
            200: s.TokenOut,
            **JSON_BODY_RESPONSES,
            401: error_response("No account has that name and password."),
            **RATE_LIMITED_RESPONSES,
        },
    )
    def post(self, request):
        username, password = _credentials(request.data)
        limits.check_join(request)
        user = authenticate(request._request, username=username, password=password)
        if user is None:
            raise exceptions.AuthenticationFailed("No account has that name and password.")
        _, token = token_create(user=user, name=API_TOKEN_NAME)
        return Response({"token": token})

    def get_authenticate_header(self, request):
        # A 401 stays a 401 (DRF answers 403 where no scheme is named).
        return "Bearer"


class AccountListView(APIView):
    authentication_classes = []
    parser_classes = JSON_BODY

    @extend_schema(
        tags=TAGS,
        summary="Create an account",
        description=(
            "A name of 1 to 20 characters (letters of any script, digits, '_' and '-'), unique "
            "among accounts ignoring case, and a password the site's password rules accept. "
            "Counted with joins in the client's rate limit. Answers the account's name and a "
            "personal token for it."
        ),
        auth=[],
        request=s.CredentialsRequest,
        responses={
            201: s.AccountOut,
            **JSON_BODY_RESPONSES,
            409: error_response("An account already has that name (ignoring case)."),
            **RATE_LIMITED_RESPONSES,
        },
    )
    def post(self, request):
        username, password = _credentials(request.data)
        limits.check_join(request)
        try:
            validate_username(username)
        except DjangoValidationError as exc:
            raise exceptions.ValidationError({"username": list(exc.messages)}) from None
        users = get_user_model()
        taken = f"An account named {username!r} already exists (names are compared ignoring case)."
        if users.objects.filter(username__iexact=username).exists():
            raise Conflict(taken)
        try:
            password_validation.validate_password(password, user=users(username=username))
        except DjangoValidationError as exc:
            raise exceptions.ValidationError({"password": list(exc.messages)}) from None
        try:
            with transaction.atomic():
                user = users.objects.create_user(username=username, password=password)
                _, token = token_create(user=user, name=API_TOKEN_NAME)
        except IntegrityError:
            raise Conflict(taken) from None  # made meanwhile by another request
        return Response(
            {"username": user.get_username(), "token": token}, status=status.HTTP_201_CREATED
        )
