"""Request and response shapes of the games API (explicit; no rules in here)."""

from __future__ import annotations

from rest_framework import serializers

from games.kinds import kinds
from games.models import Game

NAME_HELP = "1 to 40 letters, digits or underscores (the Set protocol's player name)."


class GameCreateRequest(serializers.Serializer):
    kind = serializers.ChoiceField(choices=[])
    options = serializers.DictField(
        required=False,
        default=dict,
        help_text=(
            "Rule options of the kind. Set: `rules` (`declare` or `classic`), `attributes` "
            "(3 or 4 for declare; 3, 4 or 5 for classic). Square Game: `players` (2 to 4). "
            "Set War games are created with POST /api/setwar/."
        ),
    )
    open = serializers.BooleanField(
        default=False, help_text="Open tables are also reachable over the plain-text protocol."
    )
    seed = serializers.IntegerField(
        required=False, min_value=0, max_value=2**62, help_text="Shuffle seed (random if omitted)."
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = kinds()


class SeatOut(serializers.Serializer):
    number = serializers.IntegerField()
    name = serializers.CharField()
    score = serializers.IntegerField()
    is_computer = serializers.BooleanField()


class GameOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    options = serializers.DictField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    version = serializers.IntegerField()
    is_open = serializers.BooleanField()
    is_default = serializers.BooleanField()
    seats = SeatOut(many=True)
    created = serializers.DateTimeField()
    updated = serializers.DateTimeField()
    finished = serializers.DateTimeField(allow_null=True)


class GameDetailOut(GameOut):
    view = serializers.DictField(
        help_text="The game as the requesting seat (or a watcher) sees it."
    )
    seat = SeatOut(allow_null=True, help_text="The requesting seat, if any.")
    watching = serializers.IntegerField(
        help_text="How many /watch long polls wait on this game in the answering server process."
    )


class JoinRequest(serializers.Serializer):
    name = serializers.RegexField(r"^[A-Za-z0-9_]{1,40}$", help_text=NAME_HELP)


class ComputerRequest(serializers.Serializer):
    speed = serializers.ChoiceField(
        choices=["slow", "medium", "fast"],
        default="medium",
        help_text="How quickly the computer finds a set: about 12, 7 or 3.5 seconds.",
    )


class JoinOut(serializers.Serializer):
    token = serializers.CharField(help_text="Send as 'Authorization: Token <token>' to act.")
    seat = SeatOut()
    game = GameOut()


class ActionRequest(serializers.Serializer):
    type = serializers.CharField(
        help_text=(
            "The action. Set declare tables: declare, pick (row, col), add, hint, count, look. "
            "Set classic tables: claim (cards: 3 card texts), hint, count. Square Game: place "
            "(piece, permutation, x, y) or pass."
        )
    )

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError("An action is a JSON object.")
        super().to_internal_value(data)  # checks `type`
        return dict(data)


class ActionOut(serializers.Serializer):
    outcome = serializers.DictField()
    event = serializers.BooleanField()
    version = serializers.IntegerField()
    view = serializers.DictField()


class MoveOut(serializers.Serializer):
    seq = serializers.IntegerField()
    actor = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True)
    action = serializers.DictField()
    outcome = serializers.DictField()
    at_ms = serializers.IntegerField()
    created = serializers.DateTimeField()


class ReplayStepOut(MoveOut):
    view = serializers.DictField(help_text="What a watcher saw right after this step.")


class ReplayQuery(serializers.Serializer):
    start = serializers.IntegerField(required=False, default=0, min_value=0)
    limit = serializers.IntegerField(required=False, default=200, min_value=1, max_value=1000)


class ReplayOut(serializers.Serializer):
    game = GameOut()
    steps = ReplayStepOut(many=True)
    start = serializers.IntegerField(required=False, help_text="With paging: the first step.")
    limit = serializers.IntegerField(required=False, help_text="With paging: steps per page.")
    total = serializers.IntegerField(required=False, help_text="With paging: how many steps.")
    next_start = serializers.IntegerField(
        required=False, allow_null=True, help_text="With paging: the next page's start, or null."
    )


class ExportOut(GameOut):
    seed = serializers.IntegerField(allow_null=True, help_text="Null while the game is played.")
    created_ms = serializers.IntegerField()
    state = serializers.DictField(allow_null=True, help_text="Null while the game is played.")
    moves = MoveOut(many=True)
