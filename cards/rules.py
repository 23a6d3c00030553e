"""The Set table as a game kind: two rule sets ("declare" and "classic") behind one interface.

The platform keeps states as JSON-able dicts; the engine works on typed, frozen states
(`cards.engine.table.TableState`). This adapter converts at the boundary: a dict it is given is
read with `TableState.from_json`, a state it returns is drawn with `TableState.to_json`. The
platform passes back the very dict it was given by the last move, so a dict this adapter returns
is a `StoredState`, the JSON form carrying its typed state: a move on the newest state of a game
reads nothing, and only the parts the move changed are drawn again. A dict read elsewhere (from
the database) is read once and its typed state remembered by the dict's id (`table_state`).
"""

from __future__ import annotations

import hmac
import logging
import random
import threading
from collections import OrderedDict

from django.conf import settings
from django.utils import timezone

from cards import insights
from cards.engine.bot import set_table_actions
from cards.engine.card import all_cards
from cards.engine.classic import ClassicRules
from cards.engine.deck import new_deck
from cards.engine.errors import SetError
from cards.engine.fast import shuffled_codes
from cards.engine.table import ClassicState, DeclareRules, TableState
from cards.engine.table.memory import PRIVATE_FIELDS as MEMORY_PRIVATE
from cards.engine.table.modes import MODES
from cards.engine.table.race import RACE_TARGETS, race_result
from cards.story import table_story
from games.errors import RuleError
from games.rules import Result, register

logger = logging.getLogger(__name__)

RULE_SETS = {"declare": DeclareRules(), "classic": ClassicRules()}


class StoredState(dict):
    """A state as the platform stores it (its JSON form, a plain dict to every reader and
    serialiser) with the typed state it is the form of, ``typed``, so the next move on it needs
    no reading and no look-up. Like every state, it is never changed in place."""

    __slots__ = ("typed",)

    typed: TableState


def stored(state: TableState, like: tuple[TableState, dict] | None = None) -> StoredState:
    """Return the JSON form of ``state`` carrying ``state`` (see `TableState.to_json` for
    ``like``)."""
    data = StoredState(state.to_json(like=like))
    data.typed = state
    return data


# The typed state of each dict read lately that this adapter did not return, by the dict's id
# (the platform reads a game once, then passes the same dict until its first move): an entry
# holds the dict itself, so its id cannot be given to another dict while the entry is kept. As
# many as games.runtime keeps heads (a server follows some hundreds of games); the oldest entry
# goes first.
_KEEP = 1024
_known: OrderedDict[int, tuple[dict, TableState]] = OrderedDict()
_known_guard = threading.Lock()


def remember(data: dict, state: TableState) -> None:
    """Remember that ``data`` is the JSON form of ``state`` (neither ever changes)."""
    with _known_guard:
        _known[id(data)] = (data, state)
        _known.move_to_end(id(data))
        if len(_known) > _KEEP:
            _known.popitem(last=False)


def table_state(data: dict) -> TableState:
    """Return the typed state of a stored Set table state (read once, then remembered).

    States are never changed in place (the platform's rules contract), so the typed state of a
    dict seen before is still its own.
    """
    if type(data) is StoredState:
        return data.typed
    entry = _known.get(id(data))
    if entry is not None and entry[0] is data:
        return entry[1]
    try:
        state = TableState.from_json(data)
    except SetError as error:
        raise RuleError(str(error), getattr(error, "code", "bad_state")) from None
    remember(data, state)
    return state


def _stored(state: TableState, before: TableState, before_data: dict) -> dict:
    """Return the JSON form of ``state``, the result of a move on ``before`` (``before_data``)."""
    if state is before:
        return before_data
    return stored(state, (before, before_data))


#: The ways to play a classic table (its ``mode`` option), as pages and lists name them.
MODE_NAMES = {key: mode.title for key, mode in MODES.items()}

#: How many cards a game deals in all, as the lobby's form offers it (label, cards or None: the
#: whole deck); a quick game ends after a few sets.
LENGTHS = {"full": ("Whole deck", None), "quick": ("Quick: 18 cards", 18)}


#: The form's "Race to" choices: off, or a Set-N race (cards.engine.table.race).
RACES = {"off": "Off", **{str(n): f"{n} sets" for n in RACE_TARGETS}}


def table_options(
    *,
    rules: str,
    mode: str,
    attributes: int,
    length: str,
    seed: int,
    practice: bool = False,
    race: str = "off",
) -> dict:
    """The options of a table as the lobby's form chooses them (not checked: `SetTable.options`
    checks them): a quick game deals the first cards of a shuffle from `seed`; a puzzle deals
    its own 12 cards, so it has no length; a practice table says so; a race (``race``, "off" or
    its N) ends at its N-th set."""
    options = {"rules": rules, "attributes": attributes}
    if mode != "normal":
        options["mode"] = mode
    if practice:
        options["practice"] = True
    if race != "off":
        options["race"] = int(race)
    size = LENGTHS[length][1]
    if size is not None and size < 3**attributes and mode != "puzzle":
        options["deck"] = shuffled_texts(mode, attributes, seed)[:size]
    return options


def shuffled_texts(mode: str, attributes: int, seed: int) -> list[str]:
    """The protocol texts of a table's deck shuffled from ``seed``: the mode's own deck (a 4Set
    mode's four values an attribute), or the deck of ``attributes``."""
    rules = MODES.get(mode) or MODES["normal"]
    if rules.values == 3:
        return [card.protocol for card in new_deck(rules.attributes or attributes, rng=seed)]
    cards = all_cards(rules.attributes or attributes, rules.values)
    return [cards[code].protocol for code in shuffled_codes(len(cards), random.Random(seed))]


# What the rules read of each action: the log keeps that, not whatever else was sent.
ACTION_FIELDS = {
    "pick": ("type", "row", "col"),
    "claim": ("type", "cards", "positions"),  # Memory claims board places
    "reveal": ("type", "position"),
    "end_left": ("type", "seat"),
}


class SetTable:
    kind = "set"
    page = "table"  # a game's own page (a URL name)
    min_seats = 1
    max_seats = None
    join_while_active = True

    def engine(self, state_or_options: dict):
        name = state_or_options.get("rules", "declare")
        if isinstance(name, str) and name in RULE_SETS:
            return RULE_SETS[name]
        shown = repr(name) if len(repr(name)) <= 40 else repr(name)[:37] + "..."
        raise RuleError(
            f"The rules option must be 'declare' or 'classic'; got {shown}.", "bad_option"
        )

    def options(self, options: dict) -> dict:
        """Return the table's options checked, bounded and in canonical form (what is stored).

        Every reader of a stored game (lists, pages, replays, the next move) trusts them, so
        anything else is refused here, once, with a message naming the option: unknown keys,
        wrong types, null, a deck that is not a list of distinct cards, and numbers out of range
        (``declare_ms`` and ``away_ms`` at most a day, ``MAX_CLOCK_MS``; ``board_size`` at most the
        whole deck).
        """
        if not isinstance(options, dict):
            raise RuleError(
                "Set table options are a JSON object: rules, attributes, deck, board_size, "
                "away_ms, declare_ms, mode, day, start, practice, favour, race.",
                "bad_option",
            )
        # A table opens waiting for its players, unless it says to deal at once (solitaire,
        # computers, the text protocol's tables); a day's puzzle is dealt to everyone at once.
        # Stored explicitly: a game stored without it was dealt when made (the engine's default).
        if "start" not in options:
            options = {**options, "start": "now" if "day" in options else "wait"}
        # A ghost race names the recorded game it races (games.ghosts deals it as that game
        # was dealt); the engine never sees it.
        ghost = options.get("ghost")
        if "ghost" in options:
            if not isinstance(ghost, int) or isinstance(ghost, bool) or not 1 <= ghost < 2**63:
                raise RuleError(
                    f"The ghost option is the id of a finished solo game to race; got "
                    f"{ghost!r:.40}.",
                    "bad_option",
                )
            options = {k: v for k, v in options.items() if k != "ghost"}
        # A mode is a way to play the classic table, so it implies the classic rules; so does
        # practice (its pause and hints are the classic table's), and so do favour (a deal
        # that favours kinds of set, for practice too) and a race.
        practised = options.get("practice", False) is not False
        classic = "mode" in options or practised or "favour" in options or "race" in options
        rules = options.get("rules", "classic" if classic else "declare")
        if rules == "declare" and options.get("mode", "normal") != "normal":
            raise RuleError(
                "The mode option is for classic tables; a declare table plays the card game "
                "itself.",
                "bad_option",
            )
        if rules == "declare" and "race" in options:
            raise RuleError(
                "A race is played at a classic table (claims of three cards at once), not a "
                "declare table.",
                "bad_option",
            )
        if rules == "declare" and practised:
            raise RuleError(
                "Practice is played at classic tables (select three cards to claim them): leave "
                'out "rules": "declare", or the practice option.',
                "bad_option",
            )
        engine = self.engine({"rules": rules})
        try:
            given = {k: v for k, v in options.items() if k != "rules"}
            if rules == "declare" and given.get("mode") == "normal":
                del given["mode"]
            if rules == "declare" and "practice" in given:  # false: no practice, said outright
                del given["practice"]
            cleaned = engine.clean_options(given)
        except SetError as error:
            raise RuleError(str(error), getattr(error, "code", "bad_option")) from None
        day = cleaned.get("day")
        if day is not None and day > timezone.localdate().isoformat():
            raise RuleError(
                f"The daily puzzle of {day} is not out yet; today is "
                f"{timezone.localdate().isoformat()}.",
                "bad_option",
            )
        return {"rules": rules, **cleaned, **({"ghost": ghost} if ghost is not None else {})}

    def seed_for(self, options: dict) -> int | None:
        """The seed of a day's puzzle: the same deal for everyone that day, drawn from the
        server's secret key and the date, so no one can work out a day's cards before it."""
        day = options.get("day")
        if not isinstance(day, str):
            return None
        digest = hmac.new(settings.SECRET_KEY.encode(), f"set-puzzle:{day}".encode(), "sha256")
        return int.from_bytes(digest.digest()[:8], "big") >> 2  # fits a signed 64-bit column

    def new(self, *, options: dict, seed: int, now_ms: int) -> dict:
        engine_options = {k: v for k, v in options.items() if k not in ("rules", "ghost")}
        return stored(
            self.engine(options).new_state(options=engine_options, seed=seed, now_ms=now_ms)
        )

    def join(self, state: dict, name: str, now_ms: int) -> Result:
        return self.apply(state, name, {"type": "join"}, now_ms)

    def apply(self, state: dict, actor: str, action: dict, now_ms: int) -> Result:
        typed = table_state(state)
        result = RULE_SETS[typed.rules].apply(typed, actor, action, now_ms)
        fields = ACTION_FIELDS.get(action.get("type"), ("type",))
        read = {key: action[key] for key in fields if key in action}
        return Result(_stored(result.state, typed, state), result.outcome, result.event, read)

    def tick(self, state: dict, now_ms: int) -> Result:
        typed = table_state(state)
        result = RULE_SETS[typed.rules].tick(typed, now_ms)
        return Result(_stored(result.state, typed, state), result.outcome, result.event)

    def next_deadline(self, state: dict) -> int | None:
        typed = table_state(state)
        return RULE_SETS[typed.rules].next_deadline(typed)

    def view(self, state: dict, actor: str | None, now_ms: int) -> dict:
        typed = table_state(state)
        return RULE_SETS[typed.rules].view(typed, actor, now_ms)

    def replay_view(self, state: dict, now_ms: int) -> dict:
        """A watcher's view of one step of a finished game's replay: everything shown (Memory's
        face-down cards too, `cards.engine.table.memory`)."""
        typed = table_state(state)
        if typed.rules == "classic":
            return ClassicRules.view(typed, None, now_ms, shown=True)
        return RULE_SETS[typed.rules].view(typed, None, now_ms)

    def seat_view(self, state: dict, actor: str, now_ms: int) -> dict | None:
        """What `actor`'s view adds to a watcher's (None: the rule set draws each seat's whole;
        see games.rules)."""
        typed = table_state(state)
        own = getattr(RULE_SETS[typed.rules], "seat_view", None)
        return None if own is None else own(typed, actor, now_ms)

    def status(self, state: dict) -> str:
        """ "waiting" until the cards are dealt and someone sits, "active", then "over"."""
        typed = table_state(state)
        if typed.over:
            return "over"
        return "active" if typed.players and not typed.waiting else "waiting"

    def started(self, state: dict) -> bool:
        """Whether the table has begun for its players: its countdown to the deal runs, or it
        is dealt (see games.rules)."""
        return table_state(state).starts_ms is not None or self.status(state) != "waiting"

    def scores(self, state: dict) -> dict[str, int]:
        return table_state(state).scores.copy()  # a read-only view's copy: a dict

    def describe(self, options: dict) -> str:
        """A short description for lists: rule set, attributes, deck.

        Options are checked when a game is created (`options`); a row stored before that check
        still gets a description, not an error, since the lobby lists every game.
        """
        mode = options.get("mode")
        named = MODE_NAMES.get(mode) if mode != "normal" else None
        parts = [named or str(options.get("rules", "declare")).capitalize()]
        if isinstance(options.get("day"), str):
            parts = [f"Daily puzzle of {options['day']}"]
        if isinstance(options.get("ghost"), int):
            parts.insert(0, f"Ghost race of #{options['ghost']}")
        if options.get("attributes") in (3, 4, 5):
            parts.append(f"{options['attributes']} attributes")
        if isinstance(options.get("deck"), list) and options["deck"] and mode != "puzzle":
            parts.append(f"{len(options['deck'])} cards")
        if isinstance(options.get("race"), int):
            parts.append(f"Set-{options['race']} race")
        return ", ".join(parts)

    def badges(self, options: dict) -> list[str]:
        """The words lists show as badges beside a table's description: "practice"."""
        return ["practice"] if options.get("practice") is True else []

    def hides_cards(self, options: dict) -> bool:
        """Whether a table of these options can hide its cards: a practice table (its pause)."""
        return options.get("practice") is True

    def cards_hidden(self, state: dict) -> bool:
        """Whether the table's cards are hidden from everyone now: a paused practice table."""
        practice = table_state(state).practice
        return practice is not None and practice.paused

    def hidden_fields(self, outcome: dict) -> tuple[str, ...]:
        """The fields of a move's outcome (or action) that name cards, withheld from everyone
        while a paused practice table hides them: a claim's cards (those of a wrong claim are
        still on the board), their positions and why lines, a hint, "show me" and their
        message."""
        return ("cards", "positions", "why", "hint", "show", "message")

    def private_refusal(self, options: dict) -> str | None:
        """Why a table of these options cannot be open (listed, anyone may join), or None: a
        practice table is private, for a learner or a class that shares its link."""
        if options.get("practice") is True:
            return (
                "A practice table is private: create it without open, and share its link with "
                "whoever should join."
            )
        return None

    def bot_actions(self, state: dict, name: str) -> list[dict] | None:
        return set_table_actions(table_state(state), name)

    def private_fields(self, outcome: dict) -> tuple[str, ...]:
        """The fields of a move's outcome that only its seat may read while the game is being
        played: a hint's card (a practice table's cards), the sets "show me" drew, and the
        message that names them. How many sets there are, or that a hint was asked, is
        anyone's."""
        if outcome.get("action") == "reveal":  # Memory: the card turned up is its player's
            return MEMORY_PRIVATE
        if outcome.get("action") in ("hint", "show"):
            return ("hint", "show", "message")
        return ()

    def story(self, options: dict, moves, **reader) -> list[dict]:
        """The table's log in words: sets with their cards, wrong claims with why, hints,
        counts, timeouts, joins, the end (cards.story)."""
        return table_story(options, moves, **reader)

    def rematch_options(self, options: dict, seed: int) -> dict:
        """The options of the same table played again: a chosen deck (a quick game's first
        cards of a shuffle) is dealt again from the new seed, as many cards as before; a ghost
        race played again on a new deal is no race (its ghost found sets on another deal)."""
        options = {k: v for k, v in options.items() if k != "ghost"}
        if options.get("mode") == "puzzle":
            # Another puzzle: the day's puzzle again would be the same board.
            return {k: v for k, v in options.items() if k not in ("day", "deck")}
        deck = options.get("deck")
        if not isinstance(deck, list):
            return options
        attributes = options.get("attributes", 4)
        mode = options.get("mode", "normal")
        return {**options, "deck": shuffled_texts(mode, attributes, seed)[: len(deck)]}

    def dealt_options(self, options: dict) -> dict:
        """The options of the same table dealt when made (what a waiting table's deal is)."""
        return {**options, "start": "now"}

    # Each rule set and number of attributes is a mode of its own: a 27-card game is not the
    # 81-card one, and declaring is not claiming. The standard deck of 4 attributes has the
    # short name.
    rating_modes = {
        "set-classic": "Set classic",
        "set-declare": "Set declare",
        "set-classic-3": "Set classic, 3 attributes",
        "set-declare-3": "Set declare, 3 attributes",
        "set-classic-5": "Set classic, 5 attributes",
        "set-ultra": "UltraSet",
        "set-chain": "Set-Chain",
        # The fork's modes, each on its own deck and board (cards.engine.table.modes), each
        # rated apart; a fixed puzzle keeps best times instead.
        **{f"set-{key}": mode.title for key, mode in MODES.items() if mode.attributes},
    }

    def unrated_options(self, options: dict) -> str | None:
        """Why a table of these options cannot be rated, in a sentence, or None when it can: a
        chosen deck or board size is not like the games it would be compared with, and a puzzle
        has its best times per day instead."""
        attributes = options.get("attributes", 4)
        mode = options.get("mode", "normal")
        if options.get("practice") is True:
            return "A practice table is not rated: it has a pause and hints for learning."
        if "ghost" in options:
            return "A ghost race is not rated: its ghost shows the sets it found."
        if mode == "puzzle":
            return "A puzzle is not rated: it keeps its best times instead."
        if "race" in options:
            return "A race is not rated: it keeps its best times instead."
        if "favour" in options:
            return "A table that deals some kinds of set more often is not rated."
        if "deck" in options:
            count = len(options["deck"]) if isinstance(options["deck"], list) else 0
            return f"A quick game ({count} cards) is not rated: a rated game deals the whole deck."
        if "board_size" in options:
            return "A table with a chosen board size is not rated."
        own_deck = mode in MODES and MODES[mode].attributes is not None
        if mode != "normal" and not own_deck and attributes != 4:
            return f"{MODE_NAMES.get(mode, mode)} is rated with 4 attributes only."
        return None

    def rating_mode(self, options: dict) -> str | None:
        """The mode a table of these options is rated in, or None (`unrated_options` says
        why)."""
        if self.unrated_options(options) is not None:
            return None
        attributes = options.get("attributes", 4)
        mode = options.get("mode", "normal")
        if mode != "normal":
            return f"set-{mode}"
        return f"set-{options.get('rules', 'declare')}{'' if attributes == 4 else f'-{attributes}'}"

    def play_now_options(self, mode: str, players: int) -> dict | None:
        """The options of a Play now table of a rated `mode` (games.pool), for `players`; None
        for a mode this kind has not. The whole deck, as a rated table deals it."""
        if mode not in self.rating_modes:
            return None
        name = mode.removeprefix("set-")
        rules, _, attributes = name.partition("-")
        if rules in RULE_SETS and (attributes or "4").isdigit():
            options = {"rules": rules, "attributes": int(attributes or 4)}
        else:
            own = MODES[name].attributes if name in MODES else None
            options = {"rules": "classic", "attributes": own or 4, "mode": name}
        return options if self.rating_mode(self.options(options)) == mode else None

    #: What unrates a table created rated once it is played (`unrated_state`), for people.
    unrated_by = "A hint taken makes a rated table unrated, for everyone at it."

    def option_choices(self) -> list[tuple[dict, dict]]:
        """Every choice of the lobby's form for a new table, as (its fields as the form sends
        them, the options they make): the platform checks each with `options` and asks whether
        it can be rated (games.option_rules), so the form offers only what the server takes."""
        return [
            (
                {"rules": rules, "mode": mode, "attributes": str(attributes), "length": length},
                table_options(rules=rules, mode=mode, attributes=attributes, length=length, seed=0),
            )
            for rules in RULE_SETS
            for mode in MODE_NAMES
            for attributes in (3, 4, 5)
            for length in LENGTHS
        ]

    def unrated_state(self, state: dict) -> str | None:
        """Why a table created rated will not rate any more, in a sentence, or None: a hint
        taken (a hinted set found, too) unrates it for everyone."""
        typed = table_state(state)
        hinted = [name for name, tally in typed.tally.items() if tally.hints or tally.hinted]
        if not hinted:
            return None
        if len(hinted) == 1:
            return f"{hinted[0]} took a hint."
        return f"{', '.join(hinted[:-1])} and {hinted[-1]} took hints."

    # What `stats` counts, as a profile names it: counts are summed over games, lists of
    # seconds give their mean and best.
    stat_fields = {
        "games_won": "Games won",
        "sets_found": "Sets found",
        "wrong_claims": "Wrong claims",
        "seconds_per_set": "Seconds per set",
        "solitaire_seconds": "Solitaire time (seconds)",
        "puzzle_seconds": "Puzzle time (seconds)",
        **{f"race_{n}_seconds": f"Set-{n} race, alone (seconds)" for n in RACE_TARGETS},
    }

    #: The `stats` fields that are the time of a whole solo run (profiles' best runs to race).
    run_time_fields = ("solitaire_seconds", "puzzle_seconds")

    def stats(self, options: dict, state: dict, moves) -> dict[str, dict] | None:
        """What each player did at a finished table, for profiles and the site's numbers; None
        for a practice table, which is left out of every record.

        ``moves`` are the table's log as ``(actor, outcome, at_ms)``, in order. Per player:

        - ``games_won``: 1 when they had the best score at a table of two or more;
        - ``sets_found`` and ``wrong_claims``: the tally (wrong picks or claims, and declare
          timeouts);
        - ``seconds_per_set``: for each set they found, the seconds since the table's previous
          set, or since its first move;
        - ``solitaire_seconds``: a solitaire game's time, from its first move to its last (one
          player at a classic table of the standard deck, with no hint);
        - ``puzzle_seconds``: a puzzle played alone with no hint: from its deal to its last set;
        - ``race_<N>_seconds``: a Set-N race played alone with no hint: from its deal to its
          N-th set (`race_seconds`). At a race of two or more, ``games_won`` goes to its winner
          (a tie of sets to the earlier last set).
        """
        if options.get("practice") is True:
            return None
        typed = table_state(state)
        found: dict[str, list[float]] = {name: [] for name in typed.scores}
        start = previous = None
        last = None
        for actor, outcome, at_ms in moves:
            start = at_ms if start is None else start
            last = at_ms
            if outcome.get("claim") == "set" or outcome.get("pick") == "set":
                found.setdefault(actor, []).append((at_ms - (previous or start)) / 1000)
                previous = at_ms
        best = max(typed.scores.values(), default=None)
        race = race_result(typed) if isinstance(typed, ClassicState) else None
        race_time = self.race_seconds(options, state)
        # A ghost race is no record: its ghost shows the sets of the same deal as it finds them.
        solitaire = (
            "ghost" not in options
            and len(typed.scores) == 1
            and typed.rules == "classic"
            and self.rating_mode(options) == "set-classic"
            and not any(tally.hinted for tally in typed.tally.values())
            and start is not None
        )
        puzzle = self.puzzle_seconds(options, state)
        stats = {}
        for name, score in typed.scores.items():
            tally = typed.tally.get(name)
            won = name == race["winner"] if race else score == best
            stats[name] = {
                "games_won": int(len(typed.scores) > 1 and won),
                "sets_found": tally.sets if tally else 0,
                "wrong_claims": tally.wrong + tally.timeouts if tally else 0,
                "seconds_per_set": found.get(name, []),
                "solitaire_seconds": [(last - start) / 1000] if solitaire else [],
                "puzzle_seconds": [] if puzzle is None else [puzzle],
                **{
                    f"race_{n}_seconds": [race_time] if race_time and n == options["race"] else []
                    for n in RACE_TARGETS
                },
            }
        return stats

    def race_record(self, options: dict) -> bool:
        """Whether a race of these options can set a record: the standard game (4 attributes,
        the whole deck, the standard board), so that every time on a board compares."""
        return (
            "race" in options
            and options.get("attributes", 4) == 4
            and "deck" not in options
            and "board_size" not in options
        )

    def race_seconds(self, options: dict, state: dict) -> float | None:
        """A Set-N race's time, from its deal to its N-th set, when it is a record: the standard
        game (`race_record`), played alone with no hint (hints cost nothing at a race, so a
        hinted time would be no record; a race with others has each player's sets, not one
        player's time); else None."""
        typed = table_state(state)
        if not self.race_record(options) or not isinstance(typed, ClassicState):
            return None
        result = race_result(typed)
        if (
            result is None
            or result["ms"] is None
            or len(typed.scores) != 1
            or any(tally.hints or tally.hinted for tally in typed.tally.values())
        ):
            return None
        return result["ms"] / 1000

    def insight_figures(
        self, options: dict, seed: int, created_ms: int, moves
    ) -> dict[str, dict] | None:
        """Each player's claims at a finished table, for their insights (`cards.insights`):
        None for a table that does not count. ``moves``: ``(actor, action, outcome, at_ms)``."""
        try:
            return insights.game_figures(self.engine(options), options, seed, created_ms, moves)
        except (SetError, KeyError, ValueError):
            # The log is the truth and replays (a test checks it for every kind); a game that
            # would not is left out of insights rather than breaking a profile.
            logger.exception("insights: the log of a %s table did not replay", options)
            return None

    def insights(self, games: list[dict]) -> dict:
        """One player's insights from their figures at their last games, newest first."""
        return insights.summarise(games)

    def puzzle_seconds(self, options: dict, state: dict) -> float | None:
        """A puzzle's time, from its deal to its last set, when it counts: found alone and
        with no hint (profiles and the daily puzzle's best times); else None."""
        typed = table_state(state)
        if (
            options.get("practice") is True
            or options.get("mode") != "puzzle"
            or "ghost" in options
            or len(typed.scores) != 1
            or typed.ended_ms is None
            or any(tally.hinted for tally in typed.tally.values())
        ):
            return None
        return (typed.ended_ms - (typed.started_ms or typed.created_ms)) / 1000

    def ghost_sets(self, options: dict, state: dict, moves) -> list[dict]:
        """The sets found at a table, in the order found: each one's time since the deal
        (``at_ms``) and its cards, from its log of ``(actor, outcome, at_ms)`` (games.ghosts:
        a recorded run's sets are its ghost's, a race's are compared with them)."""
        start = table_state(state).started_ms or 0
        return [
            {"at_ms": at_ms - start, "cards": list(outcome.get("cards", ()))}
            for _actor, outcome, at_ms in moves
            if outcome.get("claim") == "set" or outcome.get("pick") == "set"
        ]

    def rating(self, options: dict, state: dict) -> tuple[str, dict[str, int]] | None:
        """The mode a finished table is rated in and each player's rank (0 first, equal scores
        tie), or None when it cannot be rated: a hint taken, or options of no mode."""
        mode = self.rating_mode(options)
        typed = table_state(state)
        if mode is None or self.unrated_state(state) is not None:
            return None
        # Who left the game (end_left) ranks last, behind everyone who stayed, whatever the score.
        left = set(getattr(typed, "left", ()))
        stayed = {name: score for name, score in typed.scores.items() if name not in left}
        ordered = sorted(set(stayed.values()), reverse=True)
        ranks = {name: ordered.index(score) for name, score in stayed.items()}
        ranks.update(dict.fromkeys(left, len(ordered)))
        return mode, ranks


register(SetTable())
