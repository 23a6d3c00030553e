"""A public site's manners: blocks and reports, and what moderators do about them.

Blocks: an account blocks another; the blocked one's chat is hidden from the blocker wherever
chat is read or pushed (selectors.chat_log and chat_recent take the reader, the sockets and the
game stream ask `hides`), and the two are never challenged together (`check_pair`).

Reports: any account reports a chat line, a name or a player, with a reason from REASONS and an
optional note; the moderators see the open ones with their context.

Moderators (the `moderators` group, made by a migration with its own permissions, and staff)
delete a line (it says REMOVED_TEXT everywhere from then on, pushed live), mute an account from
chat or ban it from playing for MINUTES_MIN to MINUTES_MAX minutes, rename it (the accounts app:
names are its), and close a report with a note. Each action writes a ModerationLogEntry, which is
never edited. A muted or banned account is refused with `Sanctioned`: a 403 that says why and
until when (``"until"``, ISO 8601). The platform's order of
checks: who acts (an account: the ways in refuse a guest), whether the request is well formed
(400 naming what is wrong), the account's rate (RATE_LIMIT_REPORTS), then the write.
"""

from __future__ import annotations

import datetime
import functools

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from games import limits, realtime, selectors
from games.errors import Conflict, Forbidden, GameError, NotFound, unavailable
from games.models import (
    REMOVED_TEXT,
    Block,
    ChatMessage,
    ModerationLogEntry,
    Player,
    Report,
    Sanction,
)
from games.names import name_key

REASONS = {choice.value: choice.label for choice in Report.Reason}
NOTE_MAX = 500


def reasons_text() -> str:
    return ", ".join(repr(key) for key in REASONS)


# -- blocks ------------------------------------------------------------------------------------


def blocked_ids(viewer_user_id: int | None) -> set[int]:
    """The accounts `viewer_user_id` blocked (whose chat it is not shown)."""
    if viewer_user_id is None:
        return set()
    return set(Block.objects.filter(blocker_id=viewer_user_id).values_list("blocked_id", flat=True))


def hides(viewer_user_id: int | None, writer_user_id: int | None) -> bool:
    """Whether a line by `writer_user_id` is hidden from `viewer_user_id` (who blocked it)."""
    if viewer_user_id is None or writer_user_id is None:
        return False
    return Block.objects.filter(blocker_id=viewer_user_id, blocked_id=writer_user_id).exists()


def check_pair(one_id: int, other_id: int, *, blocked: str, named: dict[int, str]) -> None:
    """Refuse a table of two accounts (a challenge, its accept): Forbidden(`blocked`) where
    either blocked the other, else Sanctioned for the first of them banned now (`one_id`'s
    first; the other named by `named`: {user id: name}), by its longest ban. One statement,
    compiled once (`_pair_sql`): the two accounts with their longest ban's id and whether a
    block stands between them."""
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    params = (Sanction.Kind.BAN.value, now, one_id, other_id, other_id, one_id, one_id, other_id)
    with connection.cursor() as cursor:
        cursor.execute(_pair_sql(), params)
        rows = {pk: (ban, bool(is_blocked)) for pk, ban, is_blocked in cursor.fetchall()}
    if any(is_blocked for _, is_blocked in rows.values()):
        raise Forbidden(blocked)
    for user_id in (one_id, other_id):
        ban = rows.get(user_id, (None, False))[0]
        sanction = Sanction.objects.filter(pk=ban).first() if ban is not None else None
        if sanction is not None:  # (None: lifted since, in the admin)
            raise Sanctioned(sanction, who=named.get(user_id))


@functools.cache
def _pair_sql() -> str:
    """`check_pair`'s statement (parameters: the ban's kind, now, the pair twice each way, the
    pair): each account's longest ban in force, and whether either blocked the other."""
    users = get_user_model()._meta.db_table
    sanctions, blocks = Sanction._meta.db_table, Block._meta.db_table
    return (
        f"SELECT u.id, (SELECT b.id FROM {sanctions} b WHERE b.user_id = u.id AND b.kind = %s "
        f"AND b.until > %s ORDER BY b.until DESC LIMIT 1), "
        f"EXISTS (SELECT 1 FROM {blocks} k WHERE (k.blocker_id = %s AND k.blocked_id = %s) "
        f"OR (k.blocker_id = %s AND k.blocked_id = %s)) "
        f"FROM {users} u WHERE u.id IN (%s, %s)"
    )


def block_add(*, blocker, blocked) -> bool:
    """Block `blocked` for `blocker`; whether it is new (blocking twice changes nothing)."""
    if blocker.pk == blocked.pk:
        raise GameError("You cannot block yourself.")
    try:
        with transaction.atomic():
            Block.objects.create(blocker=blocker, blocked=blocked)
    except IntegrityError:
        return False
    return True


def block_remove(*, blocker, blocked) -> None:
    """Unblock: `blocked`'s chat is shown to `blocker` again. Not blocked: a 404 that says so."""
    deleted, _ = Block.objects.filter(blocker=blocker, blocked=blocked).delete()
    if not deleted:
        raise NotFound(f"You have not blocked {blocked.get_username()!r}.")


def blocks_of(user) -> list[str]:
    """The names of the accounts `user` blocked, in the order blocked."""
    return [
        block.blocked.get_username()
        for block in Block.objects.filter(blocker=user).select_related("blocked").order_by("id")
    ]


# -- reports -----------------------------------------------------------------------------------


def _reason(reason) -> str:
    if not isinstance(reason, str) or reason not in REASONS:
        raise GameError(f"A report's reason is one of {reasons_text()}, not {reason!r}.")
    return reason


def _note(note) -> str:
    if note is None:
        return ""
    if not isinstance(note, str):
        raise GameError("A report's note is text (or left out).")
    note = note.strip()
    if len(note) > NOTE_MAX:
        raise GameError(
            f"A report's note is at most {NOTE_MAX} characters; this one has {len(note)}."
        )
    if "\x00" in note:
        raise GameError("A report's note is plain text: no NUL character.")
    return note


def chat_line(line) -> ChatMessage:
    """The chat line a report or a moderator names (by its id), or the 400 that says none is."""
    if isinstance(line, bool) or not isinstance(line, int):
        raise GameError(f'A chat line is named by its id, a number: {{"line": 17}}, not {line!r}.')
    message = ChatMessage.objects.filter(pk=line).select_related("player").first()
    if message is None:
        raise GameError(f"There is no chat line {line}.")
    return message


def report_file(*, reporter, about: str, reason, note=None, line=None, account=None) -> Report:
    """File a report by `reporter` about a chat line (`line`, its id), a name or a player
    (`account`, found by the way in). A bad reason, note or line is a 400 that names it; beyond
    the account's rate, a 429; nothing is written then."""
    reason = _reason(reason)
    note = _note(note)
    if about == Report.About.LINE:
        message = chat_line(line)
        writer = message.player.user if message.player is not None else None
        if writer is not None and writer.pk == reporter.pk:
            raise GameError("You cannot report yourself.")
        fields = {"line": message, "account": writer, "name": message.name}
    elif about in (Report.About.NAME, Report.About.PLAYER):
        if account.pk == reporter.pk:
            raise GameError("You cannot report yourself.")
        fields = {"account": account, "name": account.get_username()}
    else:
        raise GameError('A report names a "line", a "name" or a "player".')
    limits.check("reports", f"account:{reporter.pk}")
    return Report.objects.create(reporter=reporter, about=about, reason=reason, note=note, **fields)


#: Who a report of the word filter's is by, for the moderators.
WORD_FILTER = "the word filter"


def report_filtered(message: ChatMessage, words: list[str]) -> Report:
    """File the word filter's report of a line it hid (`words`: the blocked words it says), for
    the moderators to look at like any other: no reporter, no rate."""
    writer = message.player.user if message.player is not None else None
    said = ", ".join(words)
    return Report.objects.create(
        reporter=None,
        about=Report.About.LINE,
        reason=Report.Reason.ABUSE,
        note=f"Hidden by the word filter (it says: {said})."[:NOTE_MAX],
        line=message,
        account=writer,
        name=message.name,
    )


def report_json(report: Report) -> dict:
    """A report as its reporter is told it (the moderators' view adds its context)."""
    return {
        "id": report.pk,
        "about": report.about,
        "line": report.line_id,
        "name": report.name,
        "reason": report.reason,
        "note": report.note,
        "created": report.created.isoformat().replace("+00:00", "Z"),
        "open": report.closed is None,
    }


# -- moderators ----------------------------------------------------------------------------------

MODERATORS = "moderators"
MINUTES_MIN = 30  # half an hour
MINUTES_MAX = 525_600  # a year
REASON_MAX = 500
NOT_MODERATOR = "Only moderators may do this."


def is_moderator(user) -> bool:
    """Whether `user` is a moderator: staff, or a member of the moderators group."""
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    return user.is_staff or user.groups.filter(name=MODERATORS).exists()


def check_moderator(user) -> None:
    if not is_moderator(user):
        raise Forbidden(NOT_MODERATOR)


def iso(moment: datetime.datetime | None) -> str | None:
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z") if moment else None


def _why(reason, what: str = "reason") -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise GameError(f"Say why: a {what} of 1 to {REASON_MAX} characters.")
    reason = reason.strip()
    if len(reason) > REASON_MAX or "\x00" in reason:
        raise GameError(f"A {what} is plain text of at most {REASON_MAX} characters.")
    return reason


def log_write(*, moderator, action: str, target: str, reason: str, detail: str = "", report=None):
    """Write one action in the moderation log (never edited afterwards)."""
    return ModerationLogEntry.objects.create(
        moderator=moderator,
        moderator_name=moderator.get_username(),
        action=action,
        target=target[:300],
        detail=detail[:600],
        reason=reason,
        report=report,
    )


def log_json(entry: ModerationLogEntry) -> dict:
    return {
        "id": entry.pk,
        "moderator": entry.moderator_name,
        "action": entry.action,
        "target": entry.target,
        "detail": entry.detail,
        "reason": entry.reason,
        "report": entry.report_id,
        "at": iso(entry.created),
    }


def log_entries(limit: int = 200) -> list[ModerationLogEntry]:
    return list(ModerationLogEntry.objects.order_by("-id")[:limit])


# -- sanctions -----------------------------------------------------------------------------------


class Sanctioned(Forbidden):
    """A muted account's chat or a banned account's play, refused: why and until when."""

    def __init__(self, sanction: Sanction, *, who: str | None = None):
        what = "muted from chat" if sanction.kind == Sanction.Kind.MUTE else "banned from playing"
        until = sanction.until.astimezone(datetime.UTC)
        subject = f"{who} is" if who else "You are"
        super().__init__(
            f"{subject} {what} until {until:%Y-%m-%d %H:%M} UTC by a moderator: {sanction.reason}"
        )
        self.until = iso(sanction.until)
        self.code = sanction.kind


def active(user_id: int | None, kind: str) -> Sanction | None:
    """The account's sanction of `kind` in force now (the one that lasts longest), or None."""
    if user_id is None:
        return None
    return (
        Sanction.objects.filter(user_id=user_id, kind=kind, until__gt=timezone.now())
        .order_by("-until")
        .first()
    )


def sanctions_of(user_id: int | None) -> list[Sanction]:
    """The account's sanctions in force now (for its pages' notice)."""
    if user_id is None:
        return []
    now = timezone.now()
    return list(Sanction.objects.filter(user_id=user_id, until__gt=now).order_by("kind", "-until"))


def check_mute(user_id: int | None) -> None:
    """Refuse a muted account's chat (services.chat_post)."""
    sanction = active(user_id, Sanction.Kind.MUTE)
    if sanction is not None:
        raise Sanctioned(sanction)


def _ban_key(player_id: int) -> str:
    return f"moderation:ban:player:{player_id}"


def _ban_name_key(name: str) -> str:
    return f"moderation:ban:name:{name_key(name)}"


def check_ban(player_id: int | None) -> None:
    """Refuse a banned account's joins, tables and moves (services.join, services.move). Read
    from the cache (shared by every process with Redis), not the database: a move is served
    on the event loop, and this is one look-up as the rate limits' are."""
    if player_id is not None:
        _check_held(_ban_key(player_id))


def check_ban_name(name: str | None) -> None:
    """Refuse the plain-text protocol's requests under a name that is a banned account's (its
    name, or a name its players play under): over the protocol a player is its name. Read from
    the cache, as `check_ban`."""
    if name:
        _check_held(_ban_name_key(name))


def _check_held(key: str) -> None:
    try:
        held = cache.get(key)
    except Exception as exc:
        if unavailable(exc) is None:
            raise
        # Redis not answering: a move's own rate limit answers 503 next; a join through the API
        # has read the ban from the database (check_ban_account), and play goes on meanwhile.
        return
    if held is not None and held[0] > timezone.now().timestamp():
        sanction = Sanction(kind=Sanction.Kind.BAN, reason=held[1])
        sanction.until = datetime.datetime.fromtimestamp(held[0], tz=datetime.UTC)
        raise Sanctioned(sanction)


def may_be_banned(player_ids, user_ids) -> tuple[set[int], set[int]]:
    """Among `player_ids`, the players whose ban the cache holds, and among `user_ids`, the
    accounts with a ban in the database (a read of each for all: `check_ban` and
    `check_ban_account` say the rest of them, one by one)."""
    keys = {_ban_key(player_id): player_id for player_id in player_ids}
    try:
        held = cache.get_many(list(keys))
    except Exception as exc:
        if unavailable(exc) is None:
            raise
        held = {}  # as `_check_held`: the database's bans are read below
    banned = Sanction.objects.filter(
        user_id__in=list(user_ids), kind=Sanction.Kind.BAN, until__gt=timezone.now()
    ).values_list("user_id", flat=True)
    return {keys[key] for key in held}, set(banned)


def check_ban_account(user_id: int | None) -> None:
    """Refuse a banned account's new table (read from the database: a request's thread). A
    ban found here that the cache forgot (a restarted Redis) is held there again, so that its
    moves are refused again from then on."""
    sanction = active(user_id, Sanction.Kind.BAN)
    if sanction is not None:
        _hold_again(sanction)
        raise Sanctioned(sanction)


def _hold_again(sanction: Sanction) -> None:
    try:
        _hold_ban(sanction)
    except Exception as exc:
        if unavailable(exc) is None:
            raise


def _ban_keys(user_id: int) -> list[str]:
    """The cache's keys of an account's ban: each of its players', and each name it plays
    under (the plain-text protocol's players are names)."""
    players = list(Player.objects.filter(user_id=user_id).values_list("pk", "name"))
    user = get_user_model().objects.filter(pk=user_id).first()
    names = {name for _, name in players}
    if user is not None:
        names.add(user.get_username())
    return [_ban_key(pk) for pk, _ in players] + [_ban_name_key(name) for name in sorted(names)]


def _hold_ban(sanction: Sanction) -> None:
    seconds = (sanction.until - timezone.now()).total_seconds()
    held = (sanction.until.timestamp(), sanction.reason)
    for key in _ban_keys(sanction.user_id):
        cache.set(key, held, timeout=max(int(seconds) + 1, 1))


def hold_ban_of_new_player(sender, instance: Player, created: bool, **kwargs) -> None:
    """A player made for an account that is banned (the account's first game, or a new name
    after the ban) holds the account's ban in the cache too: the moves of its seats are
    checked there (`check_ban`). Most new players have no account or no ban: one read."""
    if not created or instance.user_id is None:
        return
    sanction = active(instance.user_id, Sanction.Kind.BAN)
    if sanction is not None:  # Redis not answering: the player is made all the same
        _hold_again(sanction)


def _minutes(minutes) -> int:
    if isinstance(minutes, bool) or not isinstance(minutes, int):
        raise GameError(
            f"Minutes are a whole number from {MINUTES_MIN} to {MINUTES_MAX}, not {minutes!r}."
        )
    if not MINUTES_MIN <= minutes <= MINUTES_MAX:
        raise GameError(
            f"A mute or a ban lasts {MINUTES_MIN} minutes to a year ({MINUTES_MAX} minutes), "
            f"not {minutes}."
        )
    return minutes


def sanction_give(*, moderator, user, kind: str, minutes, reason, report=None) -> Sanction:
    """Mute `user` from chat or ban it from playing for `minutes`, logged with why."""
    check_moderator(moderator)
    minutes = _minutes(minutes)
    reason = _why(reason)
    if user.pk == moderator.pk:
        raise GameError("A moderator cannot mute or ban themselves.")
    with transaction.atomic():
        sanction = Sanction.objects.create(
            user=user,
            kind=kind,
            until=timezone.now() + datetime.timedelta(minutes=minutes),
            reason=reason,
            by=moderator,
        )
        log_write(
            moderator=moderator,
            action=kind,
            target=user.get_username(),
            detail=f"for {minutes} minutes, until {iso(sanction.until)}",
            reason=reason,
            report=report,
        )
    if kind == Sanction.Kind.BAN:
        _hold_ban(sanction)
    return sanction


def sanction_lift(*, moderator, user, kind: str, reason) -> list[Sanction]:
    """Lift `user`'s mute or ban before its time, logged with why: from now its chat or play is
    taken again, in every process (a ban's cache entries, shared with Redis, are dropped in
    the same transaction: a cache that does not answer leaves the ban as it was, a 503). Not
    muted or banned now: a 409 that says so."""
    check_moderator(moderator)
    reason = _why(reason)
    name = user.get_username()
    what = "muted" if kind == Sanction.Kind.MUTE else "banned"
    with transaction.atomic():
        now = timezone.now()
        lifted = list(
            Sanction.objects.select_for_update()
            .filter(user=user, kind=kind, until__gt=now)
            .order_by("-until")
        )
        if not lifted:
            raise Conflict(f"{name} is not {what} now: there is nothing to lift.")
        was = lifted[0].until
        Sanction.objects.filter(pk__in=[s.pk for s in lifted]).update(until=now)
        log_write(
            moderator=moderator,
            action=f"un{kind}",
            target=name,
            detail=f"lifted early; it was until {iso(was)}",
            reason=reason,
        )
        if kind == Sanction.Kind.BAN:
            keys = _ban_keys(user.pk)
            try:
                cache.delete_many(keys)
            except Exception as exc:
                raise (unavailable(exc) or exc) from exc
    for sanction in lifted:
        sanction.until = now
    return lifted


def sanctions_in_force() -> list[Sanction]:
    """Every mute and ban in force now, the soonest to end first (the moderation page's list,
    each with its early lift)."""
    return list(
        Sanction.objects.filter(until__gt=timezone.now())
        .select_related("user")
        .order_by("until", "id")
    )


def sanction_json(sanction: Sanction) -> dict:
    return {
        "name": sanction.user.get_username(),
        "kind": sanction.kind,
        "until": iso(sanction.until),
        "reason": sanction.reason,
    }


# -- lines and reports ---------------------------------------------------------------------------


def line_delete(*, moderator, line, reason, report=None) -> ChatMessage:
    """Delete a chat line: it says REMOVED_TEXT wherever it is shown from now on (the log keeps
    what it said), and every page showing it live is told."""
    check_moderator(moderator)
    reason = _why(reason)
    message = chat_line(line)
    if message.removed:
        raise Conflict(f"Chat line {message.pk} was removed already.")
    said = message.text
    where = f"game {message.game_id}" if message.game_id else "the lobby"
    with transaction.atomic():
        message.text = REMOVED_TEXT
        message.removed = True
        message.save(update_fields=["text", "removed"])
        log_write(
            moderator=moderator,
            action=ModerationLogEntry.Action.DELETE,
            target=f"line {message.pk} by {message.name} in {where}",
            detail=said,
            reason=reason,
            report=report,
        )
        chat = selectors.chat_json(message)
        if message.game_id is None:
            announced = {"type": "lobby.chat", "chat": chat, "writer": None}
            transaction.on_commit(lambda: realtime.publish_lobby(announced))
        else:
            announced = {"type": "game.chat", "game": message.game_id, "chat": chat, "writer": None}
            transaction.on_commit(lambda: realtime.publish(announced))
    return message


def report_close(*, moderator, report_id, note) -> Report:
    """Close an open report with a note (what was done, or why nothing)."""
    check_moderator(moderator)
    note = _why(note, "note")
    report = Report.objects.filter(pk=report_id).first() if isinstance(report_id, int) else None
    if report is None:
        raise NotFound(f"There is no report {report_id}.")
    if report.closed is not None:
        raise Conflict(f"Report {report.pk} was closed already.")
    with transaction.atomic():
        report.closed = timezone.now()
        report.closed_by = moderator
        report.closed_note = note
        report.save(update_fields=["closed", "closed_by", "closed_note"])
        log_write(
            moderator=moderator,
            action=ModerationLogEntry.Action.CLOSE,
            target=f"report {report.pk} ({report.about} {report.name})",
            reason=note,
            report=report,
        )
    return report


CONTEXT_LINES = 3  # lines shown before and after a reported one


def report_context(report: Report) -> dict:
    """A report for the moderators: what it is about, with the lines around a reported line and
    the game it was in."""
    body = report_json(report)
    body["reporter"] = report.reporter.get_username() if report.reporter_id else WORD_FILTER
    body["account"] = report.account.get_username() if report.account_id else None
    if report.line_id is not None:
        line = report.line
        around = ChatMessage.objects.filter(game_id=line.game_id)
        before = list(around.filter(id__lt=line.pk).order_by("-id")[:CONTEXT_LINES])[::-1]
        after = list(around.filter(id__gt=line.pk).order_by("id")[:CONTEXT_LINES])
        body["context"] = {
            "game": line.game_id,
            "before": [selectors.chat_json(m) for m in before],
            "line": selectors.chat_json(line),
            "after": [selectors.chat_json(m) for m in after],
        }
    else:
        body["context"] = None
    return body


def reports_open() -> list[Report]:
    return list(
        Report.objects.filter(closed__isnull=True)
        .select_related("reporter", "account", "line")
        .order_by("id")
    )
