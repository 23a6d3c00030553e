"""Who is acting: an API client by its seat token or its account's token, a browser by its
session."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from games import bots, selectors, store
from games.errors import Conflict, Forbidden, NotFound
from games.models import Player, Seat, keys_match
from games.selectors import game_id_of, game_row

SESSION_PLAYER_KEY = "player_id"
TOKEN_KEYWORD = "Token"
BEARER_KEYWORD = "Bearer"


def scheme_of(header: bytes | str | None) -> str | None:
    """The scheme of an Authorization header in lower case ("token", "bearer"), or None for no
    header or an empty one."""
    if isinstance(header, bytes):
        header = header.decode("latin-1")
    parts = header.split(None, 1) if header else []
    return parts[0].lower() if parts else None


def token_of(header: bytes | str | None, keyword: str = TOKEN_KEYWORD) -> str | None:
    """The token of an ``Authorization: <keyword> <token>`` header, a seat's ("Token") unless
    told (None: the header says no such thing); every way in reads the header with this."""
    if isinstance(header, bytes):
        header = header.decode("latin-1")
    parts = header.split() if header else []
    if len(parts) != 2 or parts[0].lower() != keyword.lower():
        return None
    return parts[1]


@dataclass(frozen=True)
class AccountGrant:
    """What an account's token grants a request (DRF's `request.auth`): acting as the account.
    `credential` names the token (the accounts app's name for it): seat tokens handed out to the
    request end with it (games.models.Seat.credential)."""

    user: object
    credential: str = ""


# The accounts app says which account a personal token names (accounts.apps registers it): the
# platform keeps no account's credentials and imports nothing of the accounts app.
_account_of_token: Callable[[str], tuple[object, str]] | None = None
_seat_token_of: Callable[[str, int], str | None] | None = None


def register_account_tokens(
    resolver: Callable[[str], tuple[object, str]], seats: Callable[[str, int], str | None]
) -> None:
    """Have `resolver(token)` find the account of an ``Authorization: Bearer`` token: it answers
    the account and a name for the token that is unique and never changes (the credential that
    seats are handed to; the accounts app ends it with services.credential_revoke), or raises
    AuthenticationFailed naming what is wrong (unknown, revoked). `seats(token, game_id)`
    answers the token of the seat that account holds at the game (`account_seats`' first) or
    None, or raises as `resolver` does (and games.moderation.Sanctioned for a banned
    account): a bot's move asks it, in one query."""
    global _account_of_token, _seat_token_of
    _account_of_token, _seat_token_of = resolver, seats


class SeatTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Token <token>`: the token returned when joining acts for that seat only."""

    keyword = TOKEN_KEYWORD

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1")
        words = header.split()
        if not words or words[0].lower() != self.keyword.lower():
            return None  # no token: a session, or nobody
        token = token_of(header)
        if token is None:
            raise exceptions.AuthenticationFailed(
                "Send the seat token as 'Authorization: Token <token>'."
            )
        seat = store.seat_by_token(token)
        if seat is None:
            raise exceptions.AuthenticationFailed("That seat token is not valid.")
        return (None, seat)

    def authenticate_header(self, request):
        return self.keyword


class BearerAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer <token>`: an account's personal token acts as that account."""

    keyword = BEARER_KEYWORD

    def authenticate(self, request):
        header = authentication.get_authorization_header(request)
        if scheme_of(header) != self.keyword.lower():
            return None  # a seat token, a session, or nobody
        token = token_of(header, self.keyword)
        if token is None:
            raise exceptions.AuthenticationFailed(
                "Send the account token as 'Authorization: Bearer <token>'."
            )
        if _account_of_token is None:
            raise exceptions.AuthenticationFailed("Account tokens are not accepted here.")
        user, credential = _account_of_token(token)
        return (user, AccountGrant(user, credential))

    def authenticate_header(self, request):
        return self.keyword


class BearerScheme(OpenApiAuthenticationExtension):
    target_class = "games.auth.BearerAuthentication"
    name = "accountToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": (
                "`Bearer <token>`: an account's personal token (made on /accounts/tokens/, by "
                "`POST /api/auth/token` or `POST /api/accounts`); it acts as that account."
            ),
        }


class SeatTokenScheme(OpenApiAuthenticationExtension):
    target_class = "games.auth.SeatTokenAuthentication"
    name = "seatToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <token>`, where the token is the one returned by joining.",
        }


ACCOUNT_NAME_TAKEN = "That name belongs to an account: log in to play as it, or choose another."


_account_name_taken: Callable[[str], bool] | None = None


def register_account_names(taken: Callable[[str], bool]) -> None:
    """Have `taken(name)` say whether an account has a name, ignoring case (the accounts app
    keeps names as they are compared)."""
    global _account_name_taken
    _account_name_taken = taken


def is_account_name(name: str) -> bool:
    """Whether an account has this name, ignoring case (one indexed query): a guest may not take
    it at a table. Asked only on joins that make a seat, never on moves."""
    if _account_name_taken is None:
        raise RuntimeError("No app has registered how account names are found.")
    return _account_name_taken(name)


def check_guest_name(name: str) -> None:
    """Refuse (409) a guest's new seat under an account's name."""
    if is_account_name(name):
        raise Conflict(ACCOUNT_NAME_TAKEN)


async def acheck_guest_name(name: str) -> None:
    """`check_guest_name` from the event loop (the query on Django's thread)."""
    if await sync_to_async(is_account_name)(name):
        raise Conflict(ACCOUNT_NAME_TAKEN)


def _account(request):
    """The signed-in account of a request (a Django or a DRF request), or None for a guest. The
    Django request's own user is read: DRF's would run the API's authenticators again."""
    user = getattr(getattr(request, "_request", request), "user", None)
    return user if user is not None and user.is_authenticated else None


def session_player(request) -> Player | None:
    """The browser's player: a guest's is named by the session; a signed-in account's is the one
    this browser played with, or the account's first."""
    player_id = request.session.get(SESSION_PLAYER_KEY) if hasattr(request, "session") else None
    account = _account(request)
    if account is None:
        if not player_id:
            return None
        # A player that belongs to an account acts only for a browser signed in to it.
        return Player.objects.filter(pk=player_id, user__isnull=True).first()
    player = Player.objects.filter(pk=player_id, user=account).first() if player_id else None
    if player is None:
        player = Player.objects.filter(user=account).order_by("pk").first()
        if player is not None:
            request.session[SESSION_PLAYER_KEY] = player.pk
    return player


def session_player_claim(request, user) -> Player | None:
    """Give the browser's guest player, with its seats, to the account that just signed in;
    a browser with no guest player plays as the account's first player from now on (made under
    the account's name if it has none: an account never has to choose a name again)."""
    player_id = request.session.get(SESSION_PLAYER_KEY)
    guest = (
        Player.objects.filter(pk=player_id, user__isnull=True, is_computer=False).first()
        if player_id and not bots.is_bot(user.pk)  # a bot keeps no guest's games: it has none
        else None
    )
    if guest is not None:
        guest.user = user
        guest.name = user.get_username()
        guest.save(update_fields=["user", "name"])
        return guest
    player = account_player(user, create=True)
    request.session[SESSION_PLAYER_KEY] = player.pk
    return player


def account_player(user, *, create: bool = False) -> Player | None:
    """The account's player (its first), made under the account's name when `create` is set;
    a program acting by the account's token plays as it, as a signed-in browser does."""
    player = Player.objects.filter(user=user).order_by("pk").first()
    if player is None and create:
        player = Player.objects.create(name=user.get_username(), user=user)
    return player


def account_players(users) -> dict[int, Player]:
    """Each account's player ({user id: player}, as `account_player` finds it), made where it has
    none: one query for them all."""
    found: dict[int, Player] = {}
    for player in Player.objects.filter(user__in=[user.pk for user in users]).order_by("pk"):
        found.setdefault(player.user_id, player)
    for user in users:
        if user.pk not in found:
            found[user.pk] = Player.objects.create(name=user.get_username(), user=user)
    return found


def _grant(request) -> AccountGrant | None:
    auth = getattr(request, "auth", None)
    return auth if isinstance(auth, AccountGrant) else None


def joining_player(request) -> Player | None:
    """Who a join through the API seats: an account's token seats the account's player (made
    if need be); a browser, its session's player (with its CSRF token); anyone else, a new one."""
    grant = _grant(request)
    if grant is not None:
        return account_player(grant.user, create=True)
    return session_player_for_write(request)


def session_player_for_write(request) -> Player | None:
    """The session's player for a write through the API (joining): like every session write,
    it needs the CSRF token; a client without a session (a token client) needs none."""
    player = session_player(request)
    if player is not None and request.method not in ("GET", "HEAD", "OPTIONS"):
        authentication.SessionAuthentication().enforce_csrf(request)
        bots.refuse_in_pages(_account(request))  # a bot plays by its token only
    return player


def is_guest(request) -> bool:
    """Whether a browser is signed in to no account."""
    return _account(request) is None


def session_player_save(request, name: str) -> Player:
    """Name the browser's player: create it and remember it in the session, or rename it. A
    signed-in account plays under its own name."""
    account = _account(request)
    if account is not None:
        bots.refuse_in_pages(account)  # a bot takes no seat from the pages
        name = account.get_username()
    player = session_player(request)
    if player is None:
        if not request.session.session_key:
            request.session.save()
        player = Player.objects.create(
            name=name, session_key=request.session.session_key, user=account
        )
        request.session[SESSION_PLAYER_KEY] = player.pk
    elif player.name != name:
        player.name = name
        player.save(update_fields=["name"])
    return player


def reader_seat(request, game_id: int) -> store.SeatRef | None:
    """The seat a request holds at a game: its seat token's (of this game), its account's (an
    account's token, or a signed-in browser: any of the account's players'), or its browser
    session's player's; None for a reader with none. It checks nothing a write needs (CSRF)."""
    seat = request.auth if isinstance(getattr(request, "auth", None), store.SeatRef) else None
    if seat is not None:
        return seat if seat.game_id == game_id else None
    grant = _grant(request)
    if grant is not None:
        return account_seat(grant.user, game_id)
    player = session_player(request)
    return store.read("seat_of_player", game_id, player.pk) if player is not None else None


def account_seats(game_id: int, user):
    """The seats an account holds at a game, the one it acts for first: any of its players'
    (a guest's games it kept are its own too), its first player's first. `user` may be an
    OuterRef (accounts.tokens asks it inside its token's query)."""
    return Seat.objects.filter(game_id=game_id, player__user=user).order_by("player_id", "number")


def reader_account_id(request) -> int | None:
    """The account a request reads as (its user's id), for what it hides from it (the chat of
    the accounts it blocked): an account's token's, a signed-in browser's, a seat token's
    player's; None for a guest."""
    auth = getattr(request, "auth", None)
    if isinstance(auth, store.SeatRef):
        return Player.objects.filter(pk=auth.player_id).values_list("user_id", flat=True).first()
    grant = _grant(request)
    if grant is not None:
        return grant.user.pk
    account = _account(request)
    return account.pk if account is not None else None


def account_seat(user, game_id: int) -> store.SeatRef | None:
    """An account's seat at a game (`account_seats`' first), or None: one query, and the seat
    by its token (cached)."""
    seat_token = account_seats(game_id, user).values_list("token", flat=True).first()
    return _seat_of(seat_token, game_id)


def _seat_of(seat_token: str | None, game_id: int) -> store.SeatRef | None:
    seat = store.seat_by_token(seat_token) if seat_token else None
    return seat if seat is not None and seat.game_id == game_id else None


def bearer_seat(token: str, game_id: int) -> store.SeatRef | None:
    """The seat an account's token (``Authorization: Bearer``) acts for at a game, found as
    BearerAuthentication and `acting_seat` find it (the token noted as used); None where they
    would answer otherwise (a token unknown, revoked or of a disabled account: 401; no seat at
    the game, or no such game: 403 or 404). A banned account's Sanctioned is raised (403,
    why and until when). The token, its account, its ban and the account's seat there are
    read in one query (the accounts app's `seats`), the seat then by its token (cached)."""
    if _seat_token_of is None or not selectors.is_row_id(game_id):
        return None
    try:
        seat_token = _seat_token_of(token, game_id)
    except exceptions.AuthenticationFailed:
        return None
    return _seat_of(seat_token, game_id)


def acting_seat(request, game_id: int) -> store.SeatRef:
    """The seat this request acts for at this game, or a 404 for a game that does not exist (or
    a private one the request cannot reach), or a 403 naming what is missing. A seat token of
    this game needs no other query."""
    game_id = game_id_of(game_id)
    token_seat = request.auth if isinstance(request.auth, store.SeatRef) else None
    if token_seat is not None and token_seat.game_id != game_id:
        check_reach(request, game_row(game_id))
        raise Forbidden("That seat token belongs to another game.")
    seat = reader_seat(request, game_id)
    if seat is not None:
        by_session = token_seat is None and _grant(request) is None
        if by_session and request.method not in ("GET", "HEAD", "OPTIONS"):
            # A browser session acts only with its CSRF token, like any session write, and
            # never for a bot's account (bots play by their token).
            authentication.SessionAuthentication().enforce_csrf(request)
            bots.refuse_in_pages(_account(request))
        return seat
    check_reach(request, game_row(game_id))
    raise Forbidden(
        "You have no seat at this game: join it first and send your seat token as "
        "'Authorization: Token <token>'."
    )


def session_credential(session_key: str) -> str:
    """The credential a browser's session is, as seats are handed to it: a digest, never the
    session's key itself."""
    return "session-" + hashlib.sha256(session_key.encode()).hexdigest()[:40]


def credential_of(request) -> str:
    """What a seat token handed out to this request is handed to, and ends with: its account's
    token, the credential of the seat token it came with, its browser's session, or nothing (a
    guest's own token, which is its only credential)."""
    auth = getattr(request, "auth", None)
    if isinstance(auth, store.SeatRef | AccountGrant):
        return auth.credential
    session = getattr(request, "session", None)
    key = session.session_key if session is not None else None
    return session_credential(key) if key else ""


def socket_credentials(scope, token_seat=None) -> list[str]:
    """The credentials a WebSocket was opened with, whose end closes it: its browser's session
    (its cookie), and the credential of the seat token it came with, if that token was handed
    to one (an account's token, a session)."""
    credentials = []
    session_key = scope.get("cookies", {}).get(settings.SESSION_COOKIE_NAME)
    if session_key:
        credentials.append(session_credential(session_key))
    if token_seat is not None and token_seat.credential:
        credentials.append(token_seat.credential)
    return credentials


def reader_seats(request) -> selectors.Seated:
    """Whose private games a request sees listed beside everyone's: its seat token's game
    (that seat's only, whoever its player is), or its account's players' games (an account's
    token or a signed-in browser), or its browser session's guest's."""
    auth = getattr(request, "auth", None)
    if isinstance(auth, store.SeatRef):
        return selectors.Seated(games=(auth.game_id,))
    account = auth.user if isinstance(auth, AccountGrant) else _account(request)
    if account is not None:
        players = Player.objects.filter(user=account).values_list("pk", flat=True)
        return selectors.Seated(players=tuple(players))
    player = session_player(request)
    return selectors.Seated(players=(player.pk,) if player is not None else ())


# -- who may reach a private game -----------------------------------------------------------------

#: A browser session's private games opened by their link (their ids), newest last.
REACHED_SESSION_KEY = "games_reached"
REACHED_MAX = 200
#: The query parameter that carries a private game's key (its link: ``/play/7/?key=...``).
KEY_PARAMETER = "key"


def may_reach(request, game_id: int, link_key: str, *, remember: bool = False) -> bool:
    """Whether a request may see a game (read it, watch it, join it): any game anyone may see;
    a private one (`link_key` set) only by its link (``?key=``), a browser that opened its link
    before, its seats, and staff. With `remember`, a browser that brings the key is remembered
    (its session), so the page's own requests and socket need no key."""
    if not link_key:
        return True
    session = getattr(request, "session", None)
    if keys_match(request.GET.get(KEY_PARAMETER), link_key):
        if remember and session is not None:
            reached = [g for g in session.get(REACHED_SESSION_KEY, ()) if g != game_id]
            session[REACHED_SESSION_KEY] = [*reached[-(REACHED_MAX - 1) :], game_id]
        return True
    if session is not None and game_id in session.get(REACHED_SESSION_KEY, ()):
        return True
    account = _account(request)
    if account is not None and account.is_staff:
        return True
    return reader_seat(request, game_id) is not None


def check_reach(request, game, *, remember: bool = False) -> None:
    """Refuse a request that may not see a game (`may_reach`) as if the game did not exist: a
    private game's id says nothing to a stranger."""
    if not may_reach(request, game.pk, game.link_key, remember=remember):
        raise NotFound(f"There is no game with id {game.pk}.")


def scope_may_reach(scope, game_id: int, link_key: str) -> bool:
    """`may_reach` for the handshake of a WebSocket that holds no seat at the game (its query
    string, its browser's session); the session is read from the database: call it on a
    game-database thread."""
    if not link_key:
        return True
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    if keys_match((query.get(KEY_PARAMETER) or [None])[-1], link_key):
        return True
    session = scope.get("session")
    return session is not None and game_id in session.get(REACHED_SESSION_KEY, ())


def table_maker(request) -> str:
    """Who makes a table by `request` (a Django or a DRF request), as Game.maker names them: an
    account (by its token or its session), a guest's player (by the session), or the client's
    address (games.manners counts their public tables an hour)."""
    grant = _grant(request)
    if grant is not None:
        return f"account:{grant.user.pk}"
    account = _account(request)
    if account is not None:
        return f"account:{account.pk}"
    player = session_player(request) if hasattr(request, "session") else None
    if player is not None:
        return f"guest:{player.pk}"
    return f"client:{getattr(request, 'META', {}).get('REMOTE_ADDR') or 'unknown'}"
