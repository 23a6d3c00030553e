"""The Set pages: the lobby (the site's home), a Set table, and solitaire.

Views only turn forms into service calls and choose what the templates show. The game itself is
played in the browser (static/js/table.js) over the WebSocket ``/ws/games/<id>/`` and the JSON
API; the browser's session names its player, which is how the socket and the API know the seat.

Bad input never raises: a form comes back with a message naming what was wrong (status 400), or,
when it was sent from a table page, the message is shown there after a redirect.
"""

from __future__ import annotations

import random
from urllib.parse import urlsplit

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from cards.engine.card import deck_table
from cards.engine.table.modes import MODES as MODE_RULES
from cards.rules import LENGTHS, MODE_NAMES, RACES, table_options
from games import (
    limits,
    manners,
    moderation,
    option_rules,
    pool,
    presence,
    ratings,
    selectors,
    services,
)
from games import lobby as lobby_lists
from games.auth import reader_account_id, session_player, session_player_save, table_maker
from games.errors import GameError
from games.models import Game, Player
from games.pages import (
    FormError,
    _choice,
    _clean_name,
    _describe,
    _int_choice,
    _safe_next,
    form_status,
    game_or_404,
    game_row,
    game_url,
    live_page_context,
    with_query,
)
from games.rules import get_rules

RULE_SETS = {
    "declare": ("Declare", (3, 4)),
    "classic": ("Classic", (3, 4, 5)),
}
MODES = MODE_NAMES  # the ways to play a classic table, as the form names them
SPEEDS = ("slow", "medium", "fast")
MAX_COMPUTERS = 3
FORM_DEFAULTS = {
    "rules": "classic",
    "attributes": "4",
    "visibility": "open",
    "computers": "0",
    "speed": "medium",
    "length": "full",
    "mode": "normal",
    "race": "off",
}
# The choice fields whose combinations the server's option rules judge (games.option_rules).
CHOICE_FIELDS = ("rules", "mode", "attributes", "length")
#: What the "Set-10 race" button chooses: the card game itself, the whole deck, no computer, and
#: a private table (its waiting room: start alone, or share the link and race on one deal).
RACE_PRESET = {
    "rules": "classic",
    "mode": "normal",
    "attributes": "4",
    "length": "full",
    "race": "10",
    "computers": "0",
    "visibility": "private",
}


def _form_data(data) -> dict:
    """The form as sent, with what a "Play now" button (its ``preset``) makes of it, over the
    folded options as they are: a table with a computer opponent (one, unless more were chosen;
    not rated, since a rated table seats accounts only), or a private table whose link a friend
    follows."""
    sent = {key: data.get(key) or "" for key in data}
    if sent.get("preset") == "computer":
        if sent.get("computers", "0") == "0":
            sent["computers"] = "1"
        sent.pop("rated", None)
    elif sent.get("preset") == "friend":
        sent["visibility"] = "private"
    elif sent.get("preset") == "race":
        sent.update(RACE_PRESET)
        sent.pop("rated", None)
    return {key: value for key, value in sent.items() if value}


def _choice_rules(fields: dict) -> dict:
    """The server's rules for this choice of the form (games.option_rules)."""
    choices = option_rules.option_rules()["kinds"][Game.Kind.SET]["choices"]
    return next(choice for choice in choices if choice["fields"] == fields)


def _table_form(data, *, rated: bool = False) -> dict:
    """Read the "new Set table" form into game options; raise FormError naming a bad field.

    The choice is checked against the same option rules the form is sent (games.option_rules):
    a combination the server refuses, or a rated table that could not rate, is named beside the
    control that makes it so."""
    rules = _choice(data, "rules", tuple(RULE_SETS), "rule set", "classic")
    label, attribute_counts = RULE_SETS[rules]
    attributes = _int_choice(
        data, "attributes", attribute_counts, f"number of attributes for {label.lower()}", 4
    )
    visibility = _choice(data, "visibility", ("open", "private"), "visibility", "open")
    computers = _int_choice(
        data, "computers", range(MAX_COMPUTERS + 1), "number of computer opponents", 0
    )
    speed = _choice(data, "speed", SPEEDS, "computer speed", "medium")
    length = _choice(data, "length", tuple(LENGTHS), "game length", "full")
    mode = _choice(data, "mode", tuple(MODES), "way to play", "normal")
    practice = data.get("practice") == "on"
    race = _choice(data, "race", tuple(RACES), "race", "off")
    # Kinds of set to deal more often ("differ-1,differ-3"): a profile's practice button.
    favour = [key.strip() for key in (data.get("favour") or "").split(",") if key.strip()]
    fields = {"rules": rules, "mode": mode, "attributes": str(attributes), "length": length}
    choice = _choice_rules(fields)
    if not choice["accepted"]:
        raise FormError(choice["refused"], "mode" if mode != "normal" else "attributes")
    if rated and not choice["rated"]:
        raise FormError(f"{choice['unrated']} Untick Rated, or choose another game.", "rated")
    if rated and computers > 1:
        raise FormError(ratings.ONE_COMPUTER, "computers")
    seed = random.SystemRandom().randrange(2**62)
    options = table_options(
        rules=rules,
        mode=mode,
        attributes=attributes,
        length=length,
        seed=seed,
        practice=practice,
        race=race,
    )
    if favour:
        options["favour"] = favour
    if race != "off":
        # The server's own sentences: a race is the card game's, at a classic table, unrated.
        try:
            get_rules(Game.Kind.SET).options(options)
        except GameError as error:
            raise FormError(error.message, "race") from None
        if rated:
            unrated = get_rules(Game.Kind.SET).unrated_options(options)
            raise FormError(f"{unrated} Untick Rated, or Race to.", "rated")
    if practice:
        # The server's own sentences: a practice table is classic, unrated and private (the
        # form's visibility gives way to it).
        set_rules = get_rules(Game.Kind.SET)
        try:
            set_rules.options(options)
        except GameError as error:
            raise FormError(error.message, "practice") from None
        if rated:
            unrated = set_rules.unrated_options(options)
            raise FormError(f"{unrated} Untick Rated, or Practice.", "rated")
        visibility = "private"
    return {
        "options": options,
        "seed": seed,
        "is_open": visibility == "open",
        "computers": computers,
        "speed": speed,
    }


def _lobby_context(request, **extra) -> dict:
    player = session_player(request)
    # The live and the idle tables as the lobby socket pushes them (games.lobby: one reader).
    lists = lobby_lists.lobby_tables(player)
    context = {
        "player": player,
        "tables": lists["tables"],
        "idle": lists["idle"],
        "idle_minutes": lobby_lists.idle_minutes(),
        **presence.lobby_online(),
        "finished": lists["finished"],
        "rule_sets": [(key, label, counts) for key, (label, counts) in RULE_SETS.items()],
        "speeds": SPEEDS,
        "lengths": [(key, label) for key, (label, _size) in LENGTHS.items()],
        "races": list(RACES.items()),
        # Each way to play with its one-line description ("Junior — 27 cards of ..."; the page's
        # script names a choice by the part before the dash).
        "modes": [(key, f"{title} \u2014 {MODE_RULES[key].blurb}") for key, title in MODES.items()],
        "computer_counts": range(MAX_COMPUTERS + 1),
        # The rules of the form's options, as the server judges them (the page's script offers
        # only what they allow: static/js/lib/option_rules.js).
        "option_rules": option_rules.option_rules()["kinds"][Game.Kind.SET],
        # Play now's pools: where this visitor waits, how many wait where (games.pool; the
        # lobby socket pushes the counts, static/js/pages/pool.js renders them).
        "pool_state": pool.pool_state(player),
        # What ticking Practice turns off, in the server's words (cards.rules.SetTable).
        "practice_notes": {
            "unrated": get_rules(Game.Kind.SET).unrated_options({"practice": True}),
            "private": get_rules(Game.Kind.SET).private_refusal({"practice": True}),
        },
        # The lobby's chat: its latest lines (escaped by the template), and who may write.
        "lobby_chat": [
            selectors.chat_json(m)
            for m in selectors.chat_recent(
                None,
                reader=reader_account_id(request),
                viewer_id=player.pk if player else None,
            )
        ],
        "chat_max": services.CHAT_MAX_LENGTH,
        # Why this visitor may not write there yet (games.manners), shown instead of the input.
        "lobby_chat_refusal": manners.lobby_chat_refusal(player),
        "form": dict(FORM_DEFAULTS),
        "errors": {},
        "options_open": False,
    }
    context.update(extra)
    return context


NAME_REFUSED = "lobby_name_refused"  # the session's [message, name as typed] after a refusal
# The session's {"form", "errors"} after a refused new table: the lobby shows them beside the
# controls, the address back at the lobby (post, redirect, get).
TABLE_REFUSED = "lobby_table_refused"


@require_GET
def lobby(request):
    """The home page: play now, the live tables, the folded options of a new table, who is
    online, the chat and the finished games."""
    context = _lobby_context(request)
    refused = request.session.pop(NAME_REFUSED, None)
    if refused is not None:
        context["errors"]["name"], context["name_value"] = refused
    table = request.session.pop(TABLE_REFUSED, None)
    if table is not None:
        context["form"].update(table["form"])
        context["errors"].update(table["errors"])
        context["options_open"] = table.get("open", True)
    return render(request, "lobby.html", context)


@require_POST
def name_set(request):
    """Choose or change the session's player name, then go back where the form was sent from."""
    target = _safe_next(request, reverse("home"))
    try:
        name = _clean_name(request.POST.get("name"), request)
    except FormError as error:
        # Post, redirect, get: the address bar stays on the page the form was on, which shows
        # the message (the lobby beside the field, with the name as typed, whole).
        if target == reverse("home"):
            request.session[NAME_REFUSED] = [str(error), request.POST.get("name") or ""]
        else:
            messages.error(request, str(error))
        return redirect(target)
    player = session_player_save(request, name)
    if "join=1" not in urlsplit(target).query:
        # A table's invite says "You joined as ..." itself, once: not twice on a phone's screen.
        messages.success(request, f"You play as {player.name}.")
    return redirect(target)


# Where a refusal of the server's (a GameError's code) is shown in the form.
ERROR_FIELDS = {"not_rated": "rated"}


@require_POST
def table_create(request):
    """Create a Set table, seat its creator and its computer opponents, and open it.

    A refused form goes back to the lobby (post, redirect, get: the address is the lobby's,
    never /play/new), its message beside the control that caused it, which has the focus; a
    visitor over the rate limit gets the lobby at once, with a 429."""
    form = _form_data(request.POST)  # shown again, whole
    data = {**FORM_DEFAULTS, **form}
    rated = request.user.is_authenticated and data.get("rated") == "on"
    try:
        if request.POST.get("name") is not None:
            name = _clean_name(request.POST.get("name"), request)
        else:
            player = session_player(request)
            if player is None:
                raise FormError("Choose your name first: it is asked once, here.", "name")
            name = player.name
        table = _table_form(data, rated=rated)
        limits.check_join(request)
        player = session_player_save(request, name)
        moderation.check_ban(player.pk)  # before the table is made: a banned account makes none
        # A table of its creator and computers is dealt at once; friends wait for the Start. A
        # rated one seats its computer before the deal (a rated game takes no seat once
        # started), then its creator starts it.
        start = "now" if table["computers"] and not rated else "wait"
        game = services.game_create(
            kind=Game.Kind.SET,
            options={**table["options"], "start": start},
            seed=table["seed"],
            is_open=table["is_open"],
            rated=rated,
            maker=table_maker(request),
        )
        host = services.game_join(game_id=game.pk, player=player, name=player.name)
        for _ in range(table["computers"]):
            services.seat_add_computer(game_id=game.pk, speed=table["speed"])
        if rated and table["computers"]:
            services.move_submit(game_id=game.pk, seat=host, action={"type": "start"})
    except (FormError, GameError) as error:
        if isinstance(error, GameError):
            message, field = error.message, ERROR_FIELDS.get(getattr(error, "code", None))
        else:
            message, field = str(error), error.field
        field = field or "table"
        if field == "name":
            field = "play_name"  # the form's one name box, at its top
        if isinstance(error, (limits.RateLimited, manners.TooManyTables)):
            context = _lobby_context(request, errors={field: message}, options_open=True)
            context["form"].update(form)
            return render(request, "lobby.html", context, status=form_status(error))
        # The folded options open for a message beside one of them.
        opened = field not in ("play_name", "table") or "preset" not in form
        request.session[TABLE_REFUSED] = {
            "form": form,
            "errors": {field: message},
            "open": opened,
        }
        return redirect(reverse("home") + ("#new-table" if opened else "#play-now"))
    return redirect("table", game_id=game.pk)


def _table_context(request, game: Game, *, solitaire: bool = False) -> dict:
    context = live_page_context(request, game)
    game = context["game"]
    view = context["view"]
    # A ghost race is played alone, against the clock, as solitaire is.
    ghost = game.options.get("ghost")
    solitaire = solitaire or ghost is not None
    context["config"].update(
        rules=view.get("rules"),
        solitaire=solitaire,
        started_ms=game.created_ms,
        # The page draws and names cards from these and presses the keys the help shows.
        deck=deck_table(view.get("attributes", 4), base=view.get("values", 3)),
        keys=BOARD_KEYS,
        # A rated table asks before a hint (a hint makes the game unrated for everyone).
        rated=bool(game.rated),
        # How long a seat's page may be closed before the others may end the game ("End the
        # game: X left", the end_left action; the rules judge by the seat's last request too).
        away_ms=game.state.get("away_ms") if isinstance(game.state, dict) else None,
        # The table log is the game's story (GET, and the socket's "story" frames, ?story=1).
        story_url=reverse("game-story", args=[game.pk]),
    )
    context["config"]["ws_url"] += "&story=1"
    daily = view.get("mode") == "puzzle" and "day" in game.options
    context["config"]["puzzle_day"] = game.options.get("day") if daily else None
    return {
        **context,
        "solitaire": solitaire,
        "daily": daily,
        "ghost": view.get("ghost"),
        # "Race this run" once it is over: a table of one person's.
        "solo_run": [seat.is_computer for seat in game.seats.all()] == [False],
        "description": _describe(game),
        "key_layouts": [(key, name) for key, (name, _rows) in KEY_LAYOUTS.items()],
        "key_rows": [" ".join(row) for row in KEY_LAYOUTS["qwerty"][1]],
    }


# A card's key mirrors its place: its row of cards on a row of keys, its column on a column of
# keys (the first row of cards 1 2 3 4..., the next Q W E R..., then A S D F...). Keys are
# matched by where they are on the keyboard (KeyboardEvent.code), so they mirror the board on
# any keyboard; a layout only names them, as its keys are printed.
KEY_CODES = [
    [f"Digit{n}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)],
    [f"Key{c}" for c in "QWERTYUIOP"],
    [*(f"Key{c}" for c in "ASDFGHJKL"), "Semicolon"],
    [*(f"Key{c}" for c in "ZXCVBNM"), "Comma", "Period", "Slash"],
]
KEY_LAYOUTS = {
    "qwerty": ("QWERTY", ["1234567890", "qwertyuiop", "asdfghjkl;", "zxcvbnm,./"]),
    "azerty": ("AZERTY", ["1234567890", "azertyuiop", "qsdfghjklm", "wxcvbn,;:!"]),
    "qwertz": ("QWERTZ", ["1234567890", "qwertzuiop", "asdfghjklö", "yxcvbnm,.-"]),
    "dvorak": ("Dvorak", ["1234567890", "',.pyfgcrl", "aoeuidhtns", ";qjkxbmwvz"]),
}
BOARD_KEYS = {
    "codes": KEY_CODES,
    "layouts": {key: {"name": name, "rows": rows} for key, (name, rows) in KEY_LAYOUTS.items()},
}


def replay_config(options: dict) -> dict:
    """What a Set replay page needs beyond the views: the words and drawings of its deck."""
    mode = MODE_RULES.get(options.get("mode", "normal")) or MODE_RULES["normal"]
    attributes = mode.attributes or options.get("attributes")
    return {"deck": deck_table(attributes if attributes in (3, 4, 5) else 4, base=mode.values)}


@require_GET
def table_page(request, game_id: int):
    """The Set table: cards, scores and the live game; ``?join=1`` seats the visitor."""
    game = game_or_404(request, game_id)
    if game.kind != Game.Kind.SET:
        return redirect(with_query(request, game_url(game)))
    return render(request, "table.html", _table_context(request, game))


@require_http_methods(["GET", "POST"])
def solitaire(request):
    """Start a solitaire game: one seat at a classic table, a whole deck against the clock."""
    player = session_player(request)
    context = {"player": player, "attribute_counts": RULE_SETS["classic"][1], "errors": {}}
    if request.method == "GET":
        context["mine"] = _solitaire_games(player)
        return render(request, "solitaire.html", context)
    try:
        name = None
        if request.POST.get("name") is not None or player is None:
            name = _clean_name(request.POST.get("name"), request)
        attributes = _int_choice(
            request.POST, "attributes", RULE_SETS["classic"][1], "number of attributes", 4
        )
        limits.check_join(request)
        if name is not None:
            player = session_player_save(request, name)
        game = services.game_create(
            kind=Game.Kind.SET,
            options={"rules": "classic", "attributes": attributes, "start": "now"},
        )
        services.game_join(game_id=game.pk, player=player, name=player.name)
    except (FormError, GameError) as error:
        context["errors"]["solitaire"] = (
            error.message if isinstance(error, GameError) else str(error)
        )
        context["player"] = session_player(request)
        context["mine"] = _solitaire_games(context["player"])
        return render(request, "solitaire.html", context, status=form_status(error))
    return redirect("solitaire-game", game_id=game.pk)


def _solitaire_games(player: Player | None) -> list[dict]:
    if player is None:
        return []
    games = (
        Game.objects.filter(kind=Game.Kind.SET, seats__player=player, options__rules="classic")
        .prefetch_related("seats")
        .order_by("-id")[:10]
    )
    return [game_row(game, player) for game in games if len(game.seats.all()) == 1]


@require_GET
def solitaire_game(request, game_id: int):
    """Play a solitaire game: the classic table with a clock, "How many sets?" and "Show one"."""
    game = game_or_404(request, game_id)
    if game.kind != Game.Kind.SET:
        return redirect(with_query(request, game_url(game)))
    return render(request, "table.html", _table_context(request, game, solitaire=True))
