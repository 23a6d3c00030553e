"""Bot accounts (games.models.BotAccount): accounts that play by program, through the API only.

An account becomes a bot for good, and only before it has played (`bot_upgrade`); the built-in
computer players are bot accounts of their own, one per speed (`computer_player`), made by a
migration of the accounts app (which reserves their names) or, on a database emptied since, the
first time a table seats a computer of that speed. What a bot may not do is said here once, in
sentences every way in shows as they are.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from games.errors import Forbidden, GameError
from games.models import BotAccount, Player, Seat

#: What a built-in computer bot's account is called: ``Computer_<speed>`` (a number after it on
#: a site where a person had that name already). An account's name, so nobody signs up as it.
COMPUTER_NAME = "Computer_{speed}"

NOT_IN_PAGES = (
    "This account is a bot: bots play through the API only (a Bearer token), never from the "
    "site's pages."
)
NO_LOBBY_CHAT = "Bots do not write in the lobby's chat; they may chat at the tables they play."
ALREADY = "This account is a bot already."
PLAYED = "Only an account that has played no game can become a bot; this one has played."


def is_bot(user_id: int | None) -> bool:
    """Whether an account (None: a guest) is a bot: one indexed query."""
    return user_id is not None and BotAccount.objects.filter(user_id=user_id).exists()


def player_is_bot(player_id: int | None) -> bool:
    """Whether a player is a bot account's."""
    if player_id is None:
        return False
    return BotAccount.objects.filter(user__player__pk=player_id).exists()


def bot_users(user_ids: Iterable[int | None]) -> set[int]:
    """Which of these accounts are bots (one query; none for no account)."""
    ids = {user_id for user_id in user_ids if user_id is not None}
    if not ids:
        return set()
    return set(BotAccount.objects.filter(user_id__in=ids).values_list("user_id", flat=True))


def refuse_in_pages(user) -> None:
    """Refuse (403) a bot account's browser session a seat or a move: bots play by the API."""
    if user is not None and getattr(user, "is_authenticated", False) and is_bot(user.pk):
        raise Forbidden(NOT_IN_PAGES)


def bot_upgrade(*, user) -> BotAccount:
    """Make an account a bot, for good: only one that has played no game (a seat at any game,
    by any of its players), and only once (400 with a sentence otherwise)."""
    with transaction.atomic():
        # Its players' rows, held: a join racing the upgrade waits, then finds a bot.
        list(Player.objects.select_for_update().filter(user=user).values_list("pk"))
        if BotAccount.objects.filter(user=user).exists():
            raise GameError(ALREADY)
        if Seat.objects.filter(player__user=user).exists():
            raise GameError(PLAYED)
        return BotAccount.objects.create(user=user)


def computer_player(speed: str) -> Player:
    """The player of the built-in bot account of a computer speed, which sits at every computer
    seat of that speed: made (account, bot, player) if this database has none yet."""
    player = Player.objects.filter(user__bot__speed=speed).order_by("pk").first()
    if player is not None:
        return player
    users = get_user_model()
    base = COMPUTER_NAME.format(speed=speed)
    for number in range(1, 100):
        name = base if number == 1 else f"{base}{number}"
        if users.objects.filter(username__iexact=name).exists():
            continue
        try:
            with transaction.atomic():
                user = users(username=name)
                user.set_unusable_password()
                user.save()  # the accounts app keeps its name as names are compared
                BotAccount.objects.create(user=user, speed=speed)
                return Player.objects.create(name=name, user=user, is_computer=True)
        except (IntegrityError, ValidationError):
            # A name like it is taken, or another process made this speed's bot just now.
            player = Player.objects.filter(user__bot__speed=speed).order_by("pk").first()
            if player is not None:
                return player
    raise GameError(f"No name is free for the {speed} computer's account.")
