"""The API of a public site's manners: reports and blocks for every account; the moderators'
reports, log and actions (403 for anyone else).

Views only translate: games.moderation decides; errors become 4xx JSON sentences in the one
exception handler (games.errors). A guest is a 401 that says what to send.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from accounts import moderating
from accounts.challenge_api import SIGNED_IN, AccountView
from accounts.selectors import account_named
from games import moderation, selectors
from games.errors import GameError
from games.models import REMOVED_TEXT, Report, Sanction
from games.schema import JSON_BODY, JSON_BODY_RESPONSES, error_response

REASONS_HELP = "One of: " + ", ".join(f"`{k}` ({v})" for k, v in moderation.REASONS.items()) + "."


class ReportRequest(serializers.Serializer):
    line = serializers.IntegerField(required=False, help_text="A chat line's id (its `id`).")
    name = serializers.CharField(required=False, help_text="An account whose name offends.")
    player = serializers.CharField(required=False, help_text="An account, for how it plays.")
    reason = serializers.ChoiceField(choices=list(moderation.REASONS), help_text=REASONS_HELP)
    note = serializers.CharField(
        required=False, max_length=moderation.NOTE_MAX, help_text="What the moderators should know."
    )


class ReportOut(serializers.Serializer):
    id = serializers.IntegerField()
    about = serializers.ChoiceField(choices=["line", "name", "player"])
    line = serializers.IntegerField(allow_null=True, help_text="The chat line's id, if a line.")
    name = serializers.CharField(help_text="The name reported, or the line's writer's.")
    reason = serializers.CharField()
    note = serializers.CharField()
    created = serializers.DateTimeField()
    open = serializers.BooleanField(help_text="Whether no moderator has closed it yet.")


class BlockOut(serializers.Serializer):
    blocked = serializers.CharField(help_text="The account blocked.")
    blocks = serializers.ListField(
        child=serializers.CharField(), help_text="Every account you block, in the order blocked."
    )


ABOUT = ("line", "name", "player")


class ReportView(AccountView):
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Manners"],
        summary="Report a chat line, a name or a player",
        description=(
            'Name one thing: `{"line": <a chat line\'s id>}`, `{"name": "<an account>"}` (an '
            'offensive name) or `{"player": "<an account>"}` (how it plays), with a `"reason"` '
            f'({REASONS_HELP}) and an optional `"note"` (at most {moderation.NOTE_MAX} '
            "characters). The moderators see it with its context. Each account files at most "
            "RATE_LIMIT_REPORTS reports (20 an hour by default): beyond, 429 with Retry-After."
        ),
        request=ReportRequest,
        responses={
            201: ReportOut,
            **JSON_BODY_RESPONSES,
            400: error_response(
                "The report names nothing, or more than one thing; its reason is not one of the "
                "list; there is no such chat line; you reported yourself: `detail` says which."
            ),
            **SIGNED_IN,
            404: error_response("There is no account with that name."),
            429: error_response("Too many reports from this account (RATE_LIMIT_REPORTS)."),
        },
        examples=[
            OpenApiExample("A chat line", request_only=True, value={"line": 41, "reason": "abuse"}),
            OpenApiExample(
                "A name",
                request_only=True,
                value={"name": "rude_name", "reason": "name", "note": "Spelled to insult."},
            ),
            OpenApiExample(
                "Filed",
                response_only=True,
                status_codes=["201"],
                value={
                    "id": 7,
                    "about": "line",
                    "line": 41,
                    "name": "troll",
                    "reason": "abuse",
                    "note": "",
                    "created": "2026-11-27T00:40:00.000000Z",
                    "open": True,
                },
            ),
        ],
    )
    def post(self, request):
        body = request.data
        if not isinstance(body, dict):
            raise GameError('A report is a JSON object such as {"line": 41, "reason": "spam"}.')
        named = [key for key in ABOUT if key in body]
        if len(named) != 1:
            raise GameError(
                'A report names one thing: "line" (a chat line\'s id), "name" or "player" '
                "(an account's name)."
            )
        about = named[0]
        account = None
        if about != "line":
            reason = body.get("reason")
            if not isinstance(reason, str) or reason not in moderation.REASONS:
                raise GameError(
                    f"A report's reason is one of {moderation.reasons_text()}, not {reason!r}."
                )
            if not isinstance(body[about], str):
                raise GameError(f'"{about}" is an account\'s name, a string.')
            account = account_named(body[about])
        report = moderation.report_file(
            reporter=request.user,
            about=Report.About(about),
            reason=body.get("reason"),
            note=body.get("note"),
            line=body.get("line"),
            account=account,
        )
        return Response(moderation.report_json(report), status=status.HTTP_201_CREATED)


class BlockView(AccountView):
    parser_classes = JSON_BODY

    @extend_schema(
        tags=["Manners"],
        summary="Block an account",
        description=(
            "Its chat is hidden from you everywhere (at tables, in the lobby, over the sockets, "
            "the API's chat lists and the game stream), and neither of you may challenge the "
            "other. Blocking twice changes nothing (200; 201 the first time)."
        ),
        request=None,
        responses={
            201: BlockOut,
            200: BlockOut,
            **JSON_BODY_RESPONSES,
            400: error_response("You cannot block yourself."),
            **SIGNED_IN,
            404: error_response("There is no account with that name."),
        },
        examples=[
            OpenApiExample(
                "Blocked", response_only=True, value={"blocked": "troll", "blocks": ["troll"]}
            )
        ],
    )
    def post(self, request, name: str):
        blocked = account_named(name)
        made = moderation.block_add(blocker=request.user, blocked=blocked)
        body = {"blocked": blocked.get_username(), "blocks": moderation.blocks_of(request.user)}
        return Response(body, status=status.HTTP_201_CREATED if made else status.HTTP_200_OK)

    @extend_schema(
        tags=["Manners"],
        summary="Unblock an account",
        description="Its chat is shown to you again, and challenges between you are allowed.",
        responses={
            204: None,
            **SIGNED_IN,
            404: error_response("There is no account with that name, or you have not blocked it."),
        },
    )
    def delete(self, request, name: str):
        moderation.block_remove(blocker=request.user, blocked=account_named(name))
        return Response(status=status.HTTP_204_NO_CONTENT)


# -- the moderators' ---------------------------------------------------------------------------

MODERATOR_ONLY = {403: error_response(moderation.NOT_MODERATOR)}
MOD_TAGS = ["Moderation"]


class ModeratorView(AccountView):
    """A view for moderators (the moderators group, and staff): a guest is a 401, any other
    account a 403, before anything is read or changed."""

    parser_classes = JSON_BODY

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        moderation.check_moderator(request.user)

    def body(self, request) -> dict:
        if not isinstance(request.data, dict):
            raise GameError("The body is a JSON object.")
        return request.data


class ChatLineOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    text = serializers.CharField()
    at = serializers.CharField()
    removed = serializers.BooleanField(required=False)


class ReportContextOut(serializers.Serializer):
    game = serializers.IntegerField(allow_null=True, help_text="The game; null for the lobby.")
    before = ChatLineOut(many=True)
    line = ChatLineOut()
    after = ChatLineOut(many=True)


class ModReportOut(ReportOut):
    reporter = serializers.CharField()
    account = serializers.CharField(allow_null=True, help_text="The account reported, if any.")
    context = ReportContextOut(
        allow_null=True,
        help_text=f"A line's: the {moderation.CONTEXT_LINES} lines before and after it, its game.",
    )


class LogOut(serializers.Serializer):
    id = serializers.IntegerField()
    moderator = serializers.CharField()
    action = serializers.ChoiceField(
        choices=[a.value for a in moderation.ModerationLogEntry.Action]
    )
    target = serializers.CharField()
    detail = serializers.CharField()
    reason = serializers.CharField()
    report = serializers.IntegerField(allow_null=True)
    at = serializers.DateTimeField()


class SanctionRequest(serializers.Serializer):
    minutes = serializers.IntegerField(
        min_value=moderation.MINUTES_MIN,
        max_value=moderation.MINUTES_MAX,
        help_text=f"{moderation.MINUTES_MIN} (half an hour) to {moderation.MINUTES_MAX} (a year).",
    )
    reason = serializers.CharField(max_length=moderation.REASON_MAX, help_text="Told to them.")
    report = serializers.IntegerField(required=False, help_text="The report it answers, if any.")


class SanctionOut(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=["mute", "ban"])
    until = serializers.DateTimeField()
    reason = serializers.CharField()


class ReasonRequest(serializers.Serializer):
    reason = serializers.CharField(max_length=moderation.REASON_MAX)
    report = serializers.IntegerField(required=False, help_text="The report it answers, if any.")


class NoteRequest(serializers.Serializer):
    note = serializers.CharField(max_length=moderation.REASON_MAX, help_text="What was done.")


class RenameRequest(serializers.Serializer):
    name = serializers.CharField(help_text="The new name (the site's name rule).")
    reason = serializers.CharField(max_length=moderation.REASON_MAX)
    report = serializers.IntegerField(required=False)


class RenamedOut(serializers.Serializer):
    name = serializers.CharField(help_text="The account's name now.")
    was = serializers.CharField(help_text="Its name before.")


def _report_of(body) -> Report | None:
    report_id = body.get("report")
    if report_id is None:
        return None
    report = Report.objects.filter(pk=report_id).first() if isinstance(report_id, int) else None
    if report is None:
        raise GameError(f"There is no report {report_id!r}.")
    return report


WHY = OpenApiExample("Why", request_only=True, value={"reason": "Insults in the lobby."})


class ModReportsView(ModeratorView):
    @extend_schema(
        tags=MOD_TAGS,
        summary="The open reports, with their context",
        description="Oldest first; a line's report carries the lines before and after it.",
        responses={200: ModReportOut(many=True), **SIGNED_IN, **MODERATOR_ONLY},
    )
    def get(self, request):
        return Response([moderation.report_context(r) for r in moderation.reports_open()])


class ModReportCloseView(ModeratorView):
    @extend_schema(
        tags=MOD_TAGS,
        summary="Close a report with a note",
        request=NoteRequest,
        responses={
            200: ReportOut,
            **JSON_BODY_RESPONSES,
            400: error_response("No note."),
            **SIGNED_IN,
            **MODERATOR_ONLY,
            404: error_response("There is no report with that id."),
            409: error_response("It was closed already."),
        },
        examples=[
            OpenApiExample("A note", request_only=True, value={"note": "Line removed, muted."})
        ],
    )
    def post(self, request, report_id: int):
        report = moderation.report_close(
            moderator=request.user, report_id=report_id, note=self.body(request).get("note")
        )
        return Response(moderation.report_json(report))


class ModLineDeleteView(ModeratorView):
    @extend_schema(
        tags=MOD_TAGS,
        summary="Delete a chat line",
        description=(
            f'From then on it says "{REMOVED_TEXT}" wherever it is shown (with '
            '`"removed": true`), and the pages showing it live are pushed the change. The log '
            "keeps what it said."
        ),
        request=ReasonRequest,
        responses={
            200: ChatLineOut,
            **JSON_BODY_RESPONSES,
            400: error_response("No reason, or no such chat line."),
            **SIGNED_IN,
            **MODERATOR_ONLY,
            404: error_response("The address names no chat line (its id is a number)."),
            409: error_response("It was removed already."),
        },
        examples=[WHY],
    )
    def post(self, request, line: int):
        body = self.body(request)
        message = moderation.line_delete(
            moderator=request.user, line=line, reason=body.get("reason"), report=_report_of(body)
        )
        return Response(selectors.chat_json(message))


def _sanction_schema(kind: str, what: str):
    return extend_schema(
        tags=MOD_TAGS,
        summary=f"{what.capitalize()} an account for a time",
        description=(
            f"{what.capitalize()} the account for `minutes` ({moderation.MINUTES_MIN} to "
            f"{moderation.MINUTES_MAX}, a year), with a reason it is told: its "
            + (
                "chat is refused"
                if kind == "mute"
                else "joining and creating tables and its moves are refused"
            )
            + ' with a 403 whose body says why and until when: `{"detail", "until"}` (ISO '
            "8601), and its pages show a notice."
        ),
        request=SanctionRequest,
        responses={
            201: SanctionOut,
            **JSON_BODY_RESPONSES,
            400: error_response("Minutes out of 30..525600, or no reason."),
            **SIGNED_IN,
            **MODERATOR_ONLY,
            404: error_response("There is no account with that name."),
        },
        examples=[
            OpenApiExample(
                "A day", request_only=True, value={"minutes": 1440, "reason": "Insults."}
            ),
            OpenApiExample(
                "Given",
                response_only=True,
                status_codes=["201"],
                value={
                    "name": "troll",
                    "kind": kind,
                    "until": "2026-11-28T00:40:00Z",
                    "reason": "Insults.",
                },
            ),
        ],
    )


class ModSanctionView(ModeratorView):
    kind = Sanction.Kind.MUTE

    def post(self, request, name: str):
        body = self.body(request)
        user = account_named(name)
        sanction = moderation.sanction_give(
            moderator=request.user,
            user=user,
            kind=self.kind,
            minutes=body.get("minutes"),
            reason=body.get("reason"),
            report=_report_of(body),
        )
        return Response(moderation.sanction_json(sanction), status=status.HTTP_201_CREATED)


class ModMuteView(ModSanctionView):
    kind = Sanction.Kind.MUTE

    @_sanction_schema("mute", "mute")
    def post(self, request, name: str):
        return super().post(request, name)


class ModBanView(ModSanctionView):
    kind = Sanction.Kind.BAN

    @_sanction_schema("ban", "ban")
    def post(self, request, name: str):
        return super().post(request, name)


class LiftRequest(serializers.Serializer):
    reason = serializers.CharField(
        max_length=moderation.REASON_MAX, help_text="Why it ends early (in the log)."
    )


class LiftedOut(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField(help_text='"mute" or "ban": what ended.')
    until = serializers.DateTimeField(help_text="Now: when it ended.")
    lifted = serializers.IntegerField(help_text="How many of its sanctions of this kind ended.")


def _lift_schema(kind: str):
    what = "mute" if kind == "mute" else "ban"
    gets = "chat" if kind == "mute" else "joining, creating tables and moving"
    return extend_schema(
        tags=MOD_TAGS,
        summary=f"Lift a {what} before its time",
        description=(
            f"End the account's {what} now (every one of them in force), with a reason written "
            f"in the moderation log (`un{kind}`): its {gets} is taken again at once, in every "
            "server process. 409 when it is not "
            + ("muted" if kind == "mute" else "banned")
            + " now."
        ),
        request=LiftRequest,
        responses={
            200: LiftedOut,
            **JSON_BODY_RESPONSES,
            400: error_response("No reason."),
            **SIGNED_IN,
            **MODERATOR_ONLY,
            404: error_response("There is no account with that name."),
            409: error_response(f"The account has no {what} in force."),
        },
        examples=[
            OpenApiExample(
                "Why", request_only=True, value={"reason": "Appealed: it was a misunderstanding."}
            ),
            OpenApiExample(
                "Lifted",
                response_only=True,
                status_codes=["200"],
                value={"name": "troll", "kind": kind, "until": "2026-11-27T03:10:00Z", "lifted": 1},
            ),
        ],
    )


class ModLiftView(ModeratorView):
    kind = Sanction.Kind.MUTE

    def post(self, request, name: str):
        body = self.body(request)
        user = account_named(name)
        lifted = moderation.sanction_lift(
            moderator=request.user, user=user, kind=self.kind, reason=body.get("reason")
        )
        return Response(
            {
                "name": user.get_username(),
                "kind": self.kind,
                "until": moderation.iso(lifted[0].until),
                "lifted": len(lifted),
            }
        )


class ModUnmuteView(ModLiftView):
    kind = Sanction.Kind.MUTE

    @_lift_schema("mute")
    def post(self, request, name: str):
        return super().post(request, name)


class ModUnbanView(ModLiftView):
    kind = Sanction.Kind.BAN

    @_lift_schema("ban")
    def post(self, request, name: str):
        return super().post(request, name)


class ModRenameView(ModeratorView):
    @extend_schema(
        tags=MOD_TAGS,
        summary="Rename an account with an offensive name",
        description="Its players take the new name; seats keep the name they were played under.",
        request=RenameRequest,
        responses={
            200: RenamedOut,
            **JSON_BODY_RESPONSES,
            400: error_response("A name the site's rule refuses, or no reason."),
            **SIGNED_IN,
            **MODERATOR_ONLY,
            404: error_response("There is no account with that name."),
            409: error_response("Another account has that name, or one that looks like it."),
        },
        examples=[
            OpenApiExample(
                "Rename",
                request_only=True,
                value={"name": "player_17", "reason": "An insult as a name."},
            )
        ],
    )
    def post(self, request, name: str):
        body = self.body(request)
        user = account_named(name)
        was = user.get_username()
        moderating.account_rename(
            moderator=request.user,
            user=user,
            name=body.get("name"),
            reason=body.get("reason"),
            report=_report_of(body),
        )
        return Response({"name": user.get_username(), "was": was})


class ModLogView(ModeratorView):
    @extend_schema(
        tags=MOD_TAGS,
        summary="The moderation log",
        description="Every moderator's action, newest first (the last 200): who, what, when, why.",
        responses={200: LogOut(many=True), **SIGNED_IN, **MODERATOR_ONLY},
    )
    def get(self, request):
        return Response([moderation.log_json(e) for e in moderation.log_entries()])
