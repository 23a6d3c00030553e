"""Request and response shapes of the games API (explicit; no rules in here)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import empty
from rest_framework.settings import api_settings

from games import names
from games.models import CHAT_MAX_LENGTH, Game
from games.rules import kinds
from games.schema import OneOf

NAME_HELP = (
    f"1 to {names.MAX_LENGTH} letters (of any script), digits, '_' or '-', with no spaces; "
    "compared in Unicode's NFC form."
)


# --- JSON as JSON: what the schema says is an integer or a boolean must be one ------------------


class StrictIntegerField(serializers.IntegerField):
    """An integer as JSON writes it: "7", 7.5 and true are refused, not read as numbers."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """A JSON true or false: "yes", 1 and "false" are refused, not read as booleans."""

    default_error_messages = {"invalid": "Must be true or false."}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


@extend_schema_field(
    {"type": "string", "minLength": 1, "maxLength": names.MAX_LENGTH, "pattern": r"^[\w-]+$"}
)
class NameField(serializers.CharField):
    """A player's name by the site's rule (games.names): text, never cut, in NFC form; a
    refused one is answered with the rule's own sentence."""

    def __init__(self, **kwargs):
        kwargs.setdefault("error_messages", {"blank": f"Please choose a name. {names.RULE}"})
        super().__init__(trim_whitespace=False, **kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise serializers.ValidationError(names.RULE)
        try:
            return names.check_name(super().to_internal_value(data))
        except names.BadName as error:
            raise serializers.ValidationError(str(error)) from None


class StrictChoiceField(serializers.ChoiceField):
    """One of the choices, of the choice's own JSON type: "4" is not the choice 4."""

    def to_internal_value(self, data):
        if not any(type(data) is type(choice) and data == choice for choice in self.choices):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


# --- query strings ------------------------------------------------------------------------------


class QueryValue:
    """A query parameter given empty (`?since=`) is a bad value, not a missing one.

    DRF reads an empty form or query value as "not given"; the schema says what a value must
    be, so an empty one is refused with a message naming the parameter. So is one given twice
    (`?since=1&since=2`), which DRF would read as its last value.
    """

    def get_value(self, dictionary):
        values = dictionary.getlist(self.field_name) if hasattr(dictionary, "getlist") else []
        if len(values) > 1:
            return values
        return dictionary.get(self.field_name, empty)

    def run_validation(self, data=empty):
        if isinstance(data, list):
            raise serializers.ValidationError(
                f"Give {self.field_name} once, not {len(data)} times."
            )
        return super().run_validation(data)


class QueryChoiceField(QueryValue, serializers.ChoiceField):
    pass


class QueryIntegerField(QueryValue, serializers.IntegerField):
    pass


class QueryBooleanField(QueryValue, serializers.BooleanField):
    """A query-string boolean: true or false (1 or 0 too); anything else is refused."""

    default_error_messages = {"invalid": "Must be true or false."}
    TRUE_VALUES = {"true", "True", "TRUE", "1"}
    FALSE_VALUES = {"false", "False", "FALSE", "0"}
    NULL_VALUES: set[str] = set()


class GameListQuery(serializers.Serializer):
    kind = QueryChoiceField(
        choices=Game.Kind.values, required=False, help_text="Only games of this kind."
    )
    status = QueryChoiceField(
        choices=Game.Status.values, required=False, help_text="Only games in this status."
    )
    open = QueryBooleanField(
        required=False,
        help_text=(
            "Only open games, or only games that are not open (the private ones listed are "
            "those where the reader has a seat)."
        ),
    )
    limit = QueryIntegerField(
        required=False,
        default=50,
        help_text="At most this many (default 50); below 1 reads as 1, above 200 as 200.",
    )


class MovesQuery(serializers.Serializer):
    since = QueryIntegerField(
        required=False, default=0, help_text="Only moves after this seq (default 0: all)."
    )


# --- creating a game ----------------------------------------------------------------------------


class GameCreateCommon(serializers.Serializer):
    open = StrictBooleanField(
        default=False,
        help_text=(
            "Open games are listed, and anyone may watch or join them (an open Set declare "
            "table is also reachable over the plain-text protocol). A game that is not open is "
            "private: the answer's `key` is in its link (`?key=`), and only a request with it, "
            "or one of its seats, can see or join it."
        ),
    )
    rated = StrictBooleanField(
        default=False,
        help_text=(
            "Rate the game when it ends. Only options that can be rated are accepted (else 400, "
            "code `not_rated`, naming why: a quick game's chosen deck, a puzzle...; "
            "`GET /api/options` lists which are); a rated table seats accounts only (a guest's "
            "join is a 403; a computer plays as its speed's bot account, one a table), and a "
            "hint taken unrates it (the game's `rated` turns false, `unrated` says who). Set War "
            "is never rated."
        ),
    )
    seed = StrictIntegerField(
        required=False, min_value=0, max_value=2**62, help_text="Shuffle seed (random if omitted)."
    )


class GameCreateRequest(GameCreateCommon):
    """What POST /api/games/ reads; its documented shape is GAME_CREATE_REQUEST (per kind)."""

    kind = serializers.ChoiceField(choices=[])
    options = serializers.DictField(
        required=False,
        default=dict,
        help_text=(
            "Rule options of the kind, checked and bounded by its rules when the game is "
            "created (a 400 names a bad one). Set: `rules` (`declare` or `classic`), "
            "`attributes` (3 or 4 for declare; 3, 4 or 5 for classic), `deck`, `board_size` "
            "(classic: a multiple of 3 up to the whole deck), `declare_ms` and `away_ms` (1 to "
            "86400000 ms, one day), `ghost` (a ghost race: the id of a finished solo game). "
            "Square Game: `players` (2 to 4), `save`. Set War games are created with POST "
            "/api/setwar/. A Set `practice` table (true) is private and unrated: with `open` or "
            "`rated` true the create is a 400 naming why (code `private_only` or `not_rated`)."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = kinds()


# Each game app adds the documented body of its kind here when it is ready (cards, squaregame).
CREATE_REQUESTS: dict[str, type[serializers.Serializer]] = {}

GAME_CREATE_REQUEST = OneOf(
    component_name="GameCreateRequest",
    serializers=CREATE_REQUESTS,
    resource_type_field_name="kind",
    required_fields=["kind"],
)
"""The documented body of POST /api/games/: the options depend on the kind. (Set War games are
played with POST /api/setwar/; `kind: setwar` here is a 400 that says so.)"""


class SeatOut(serializers.Serializer):
    number = serializers.IntegerField()
    name = serializers.CharField()
    score = serializers.IntegerField()
    is_computer = serializers.BooleanField()
    guest = serializers.BooleanField(
        help_text="A guest's seat: a person playing without an account (never a computer)."
    )
    bot = serializers.BooleanField(
        help_text="A bot's seat (shown BOT): a computer's (each speed is a bot account of its "
        "own) or a bot account's, which plays by program (POST /api/bot/account/upgrade)."
    )


class GameOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    options = serializers.DictField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    version = serializers.IntegerField()
    is_open = serializers.BooleanField()
    is_default = serializers.BooleanField()
    rated = serializers.BooleanField(
        help_text=(
            "Whether the game rates its players: created rated (the create body's `rated`) and "
            "nothing has unrated it since. A live table says so as far as is known now; a "
            "finished one, whether it rated. False at a game created rated that will not rate: "
            "`unrated` says why."
        )
    )
    unrated = serializers.CharField(
        allow_null=True,
        help_text=(
            "At a game created rated that does not rate, why, in a sentence for people: "
            '"Tim took a hint.", "Only Ann played: a rated game needs two players or more." '
            "null otherwise (a game not created rated, or one that rates)."
        ),
    )
    key = serializers.CharField(
        allow_null=True,
        help_text=(
            "A private game's key, shown to whoever may see it (its seats, and who brought the "
            "key): the link to share is its page with `?key=<key>`, and programs send it as "
            "`?key=` to join or read the game. null: a game anyone may see."
        ),
    )
    seats = SeatOut(many=True)
    created = serializers.DateTimeField()
    updated = serializers.DateTimeField()
    finished = serializers.DateTimeField(allow_null=True)


class GameDetailOut(GameOut):
    view = serializers.DictField(
        help_text="The game as the requesting seat (or a watcher) sees it. A ghost race's view "
        'adds `ghost` (`{"game", "player", "sets": [{"at_ms", "cards"}]}`) and, once over, '
        '`ghost_result` (`{"sets": [{"set", "you_ms", "ghost_ms", "ahead"}], "winner", "lines", '
        '"summary"}`; see the Set option `ghost`).'
    )
    seat = SeatOut(allow_null=True, help_text="The requesting seat, if any.")
    watching = serializers.IntegerField(
        help_text="How many /watch long polls wait on this game in the answering server process."
    )
    ratings = serializers.DictField(
        child=serializers.DictField(),
        help_text=(
            "At a rated game, each account seat's rating in the game's mode, by seat name: "
            '`{"rating", "games"}`. Once the game has rated them, also `"change"`, how far this '
            'game moved the rating, and "rating" is the one right after the game. Empty at '
            "other games."
        ),
    )


class OptionChoiceOut(serializers.Serializer):
    fields = serializers.DictField(
        child=serializers.CharField(),
        help_text=(
            'The form\'s fields, as it sends them: `{"rules", "mode", "attributes", "length"}`.'
        ),
    )
    accepted = serializers.BooleanField(help_text="Whether the server makes a game of it.")
    refused = serializers.CharField(allow_null=True, help_text="Why not, when it does not.")
    rated = serializers.BooleanField(help_text="Whether a game of it can be created rated.")
    unrated = serializers.CharField(
        allow_null=True, help_text="Why an accepted choice cannot be rated (null: it can)."
    )


class KindRatedRulesOut(serializers.Serializer):
    can_rate = serializers.BooleanField()
    modes = serializers.DictField(
        child=serializers.CharField(), help_text="The kind's rated modes, with their names."
    )
    never = serializers.CharField(allow_null=True, help_text="Why the kind is never rated.")
    seats = serializers.CharField(allow_null=True, help_text="Who sits at a rated table.")
    min_players = serializers.IntegerField(
        allow_null=True, help_text="How many accounts must play for the game to rate."
    )
    unrated_by = serializers.CharField(
        allow_null=True, help_text="What unrates a rated table once it is played."
    )


class KindSeatsOut(serializers.Serializer):
    min = serializers.IntegerField()
    max = serializers.IntegerField(allow_null=True, help_text="null: no limit.")


class KindRulesOut(serializers.Serializer):
    label = serializers.CharField()
    seats = KindSeatsOut()
    rated = KindRatedRulesOut()
    choices = OptionChoiceOut(many=True)


class OptionRulesOut(serializers.Serializer):
    kinds = serializers.DictField(child=KindRulesOut(), help_text="By kind: set, setwar, square.")


class LeaderboardPlayerOut(serializers.Serializer):
    name = serializers.CharField(help_text="The account's name.")
    rating = serializers.IntegerField(help_text="The rating (openskill's estimate, rounded).")
    games = serializers.IntegerField(help_text="Rated games played in this mode.")
    bot = serializers.BooleanField(help_text="Whether the account is a bot (BOT).")


class LeaderboardOut(serializers.Serializer):
    mode = serializers.CharField()
    bots = serializers.BooleanField(help_text="Whether this is the bots' board (`?bots=1`).")
    players = LeaderboardPlayerOut(many=True, help_text="The top 100, best first.")


class LeaderboardQuery(serializers.Serializer):
    bots = serializers.BooleanField(
        required=False,
        default=False,
        help_text="1: the bots' board (the built-in computers and bot accounts); "
        "0 or absent: the people's.",
    )


class JoinRequest(serializers.Serializer):
    name = NameField(help_text=NAME_HELP)


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


class RematchRequest(serializers.Serializer):
    """An empty JSON object, {}: who asks is said by the token or the session."""


class StartRequest(serializers.Serializer):
    """An empty JSON object, {} (or no body): who starts is said by the token or the session."""


class RematchOut(JoinOut):
    url = serializers.CharField(help_text="The new game's page.")


class ActionRequest(serializers.Serializer):
    type = serializers.CharField(
        help_text=(
            "The action. Set declare tables: declare, pick (row, col), add, hint, count, look. "
            "Set classic tables: claim (cards: 3 card texts), hint, count. Both: start (a "
            "waiting table's Start; before the deal other actions are a 409). Square Game: "
            "place (piece, permutation, x, y) or pass."
        )
    )

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            # Keyed like DRF's own errors: `is_valid` expects a serializer's errors as a dict.
            raise serializers.ValidationError(
                {api_settings.NON_FIELD_ERRORS_KEY: ["An action is a JSON object."]}
            )
        super().to_internal_value(data)  # checks `type`
        return dict(data)


# Each game app adds the documented shapes of its actions here when it is ready.
ACTIONS: list[type[serializers.Serializer]] = []

ACTION_REQUEST = OneOf(
    component_name="Action",
    serializers=ACTIONS,
    resource_type_field_name=None,
    required_fields=["type"],
)
"""The documented body of POST /api/games/<id>/moves: one of the actions of the game's kind.
Which of them the game takes now (and whether the cards are on the board) is the rules' to say."""


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
    outcome = serializers.DictField(
        help_text=(
            "What the move did. While the game is being played, what it told its seat alone (a "
            "Set hint's card and message) is shown to that seat only; anyone else reads the "
            'rest and `"withheld"`, the names of the fields left out. Once the game is over, '
            "the whole outcome is everyone's."
        )
    )
    at_ms = serializers.IntegerField()
    created = serializers.DateTimeField()


# --- the story ------------------------------------------------------------------------------------


class StoryCardOut(serializers.Serializer):
    card = serializers.CharField(help_text="The card's text, as the view's board cells name it.")
    digits = serializers.CharField(help_text="One digit 0-2 per attribute, in card order.")
    code = serializers.IntegerField(help_text="The digits read in base 3.")


class StoryEntryOut(serializers.Serializer):
    id = serializers.CharField(
        help_text=(
            'Unique in the game\'s story: "v<version>" (or "v<version>.<i>" for the next entries '
            'of one move) for a move, "c<id>" for a chat line (its chat message\'s id).'
        )
    )
    version = serializers.IntegerField(
        allow_null=True, help_text="The move's version (its seq in the log); null for chat."
    )
    at = serializers.IntegerField(help_text="When, in Unix ms.")
    type = serializers.CharField(
        help_text=(
            "join, leave, start, declare, set, wrong, hint, count, vote, add, timeout, end, "
            "chat; the Square Game also place and pass."
        )
    )
    actor = serializers.CharField(allow_null=True, help_text="Who did it (null: the game).")
    text = serializers.CharField(help_text="What happened, in a sentence a person reads.")
    cards = StoryCardOut(
        many=True,
        help_text=(
            "The cards of a set found, of a wrong claim, of cards added; a hint's card only for "
            "the seat that asked while the game is played (for everyone once it is over)."
        ),
    )
    why = serializers.ListField(
        child=serializers.CharField(),
        help_text=(
            "A wrong claim's reasons, one per attribute that breaks the rule "
            '("color: red, red, green — two alike, one different"); empty otherwise.'
        ),
    )
    points = serializers.IntegerField(
        allow_null=True, help_text="Points won or lost (a set, a wrong pick, a timeout)."
    )
    name = serializers.CharField(required=False, help_text="A chat line's writer.")
    chat = serializers.CharField(required=False, help_text="A chat line's text, plain.")


class StoryOut(serializers.Serializer):
    game = serializers.IntegerField()
    version = serializers.IntegerField(help_text="The game's version the story is told at.")
    entries = StoryEntryOut(many=True, help_text="In time order, chat included.")


# --- chat -----------------------------------------------------------------------------------------


@extend_schema_field(
    {"type": "string", "minLength": 1, "maxLength": CHAT_MAX_LENGTH, "pattern": r"\S"}
)
class ChatTextField(serializers.Field):
    """The text of a chat message, passed on as sent: the service checks it and names what is
    wrong (not text, empty, too long) in one sentence."""

    def validate_empty_values(self, data):
        if data is None:  # not text: the service says so, as for a number
            return (False, None)
        return super().validate_empty_values(data)

    def to_internal_value(self, data):
        return data

    def to_representation(self, value):
        return value


class ChatRequest(serializers.Serializer):
    text = ChatTextField(
        help_text=(
            f"1 to {CHAT_MAX_LENGTH} characters once stripped of spaces at either end; plain text "
            "(shown as written, never as HTML)."
        ),
    )

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError(
                {api_settings.NON_FIELD_ERRORS_KEY: ['A chat message is {"text": "..."}.']}
            )
        return super().to_internal_value(data)


class ChatOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="Increasing: read newer messages with ?since=<id>.")
    name = serializers.CharField(help_text="The writer's name (at a game, their seat's).")
    text = serializers.CharField(help_text="As written: plain text, to be shown escaped.")
    at = serializers.DateTimeField(help_text="When it was written: ISO 8601, UTC, to the ms.")
    hidden = serializers.BooleanField(
        required=False,
        help_text=(
            "Present (true) only on a line that says a word of the chat's word filter "
            "(CHAT_BLOCKED_WORDS): it is shown to its writer only, never to anyone else."
        ),
    )
    note = serializers.CharField(
        required=False, help_text='With `hidden`: "Only you can see this: ..." in words.'
    )


class ChatExportOut(serializers.Serializer):
    name = serializers.CharField()
    text = serializers.CharField()
    at = serializers.DateTimeField(help_text="ISO 8601, UTC, to the ms.")


class ReplayChatOut(ChatOut):
    at_ms = serializers.IntegerField(help_text="When it was written, in Unix ms (as steps').")


class ChatQuery(serializers.Serializer):
    since = QueryIntegerField(
        required=False,
        default=0,
        min_value=0,
        max_value=2**63 - 1,
        help_text="Only messages after the one with this id (default 0: from the first).",
    )


class ReplayStepOut(MoveOut):
    view = serializers.DictField(help_text="What a watcher saw right after this step.")


class ReplayQuery(serializers.Serializer):
    start = QueryIntegerField(
        required=False,
        default=0,
        min_value=0,
        # The page is read with an SQL LIMIT: a start beyond any game must still fit in one.
        max_value=2**31 - 1,
        help_text="The first step to return (default 0).",
    )
    limit = QueryIntegerField(
        required=False,
        default=200,
        min_value=1,
        max_value=1000,
        help_text="Steps per page (default 200, at most 1000). Without `start` and `limit`, "
        "every step is returned.",
    )


class ReplayOut(serializers.Serializer):
    game = GameOut()
    steps = ReplayStepOut(many=True)
    start = serializers.IntegerField(required=False, help_text="With paging: the first step.")
    limit = serializers.IntegerField(required=False, help_text="With paging: steps per page.")
    total = serializers.IntegerField(required=False, help_text="With paging: how many steps.")
    next_start = serializers.IntegerField(
        required=False, allow_null=True, help_text="With paging: the next page's start, or null."
    )
    chat = ReplayChatOut(
        many=True, help_text="The game's chat, oldest first, to place among the steps by time."
    )


class ExportOut(GameOut):
    seed = serializers.IntegerField(allow_null=True, help_text="Null while the game is played.")
    created_ms = serializers.IntegerField()
    state = serializers.DictField(allow_null=True, help_text="Null while the game is played.")
    moves = MoveOut(many=True)
    chat = ChatExportOut(many=True, help_text="The game's chat, oldest first.")


# --- a game's NDJSON stream -----------------------------------------------------------------------


class GameStreamLineOut(serializers.Serializer):
    """One line of ``GET /api/games/<id>/stream`` (games.follow): which fields it has depends on
    its `type`."""

    type = serializers.ChoiceField(
        choices=["gameFull", "gameState", "chatLine"],
        help_text=(
            "`gameFull` first (the game and your view of it), then `gameState` after every change "
            "and `chatLine` for every chat message."
        ),
    )
    id = serializers.IntegerField(
        required=False, help_text="gameFull: the game's id; chatLine: the message's id."
    )
    kind = serializers.CharField(required=False, help_text="gameFull: the game's kind.")
    version = serializers.IntegerField(
        required=False,
        help_text="gameFull, gameState: the game's version (moves applied) this view shows.",
    )
    seat = serializers.CharField(
        required=False,
        allow_null=True,
        help_text="gameFull: your seat's name (null: you watch).",
    )
    view = serializers.DictField(
        required=False,
        help_text=(
            "gameFull, gameState: what your seat sees (a watcher: what anyone sees), the same "
            "view as GET /api/games/<id>/ and the WebSocket's state frames."
        ),
    )
    name = serializers.CharField(required=False, help_text="chatLine: the writer's name.")
    text = serializers.CharField(required=False, help_text="chatLine: as written, plain text.")
    at = serializers.DateTimeField(required=False, help_text="chatLine: ISO 8601, UTC, to the ms.")
