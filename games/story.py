"""A game's story: its table log, told from the move log by its kind's rules, with the chat.

Every reader (a reload, a late joiner, a spectator) gets the whole story from the stored log, so
nothing a page was told is lost. Each entry::

    {"id": "v12" | "v12.1" | "c7", "version": 12 | None, "at": epoch ms, "type": "set" | ...,
     "actor": "ann" | None, "text": "ann found a set.", "cards": [{card, digits, code}, ...],
     "why": ["color: red, red, green — two alike, one different"], "points": 1 | None}

and a chat line also has ``"name"`` and ``"chat"`` (its text). A move told in several entries
(a move after a declare timeout) numbers them ``v<version>``, ``v<version>.1``...

What a move told its seat alone (a Set hint's card: the kind's ``private_fields``) is withheld
from every other reader until the game is over, as the move log does (selectors.outcomes_for).
Only reads here: selectors and the sockets call them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from django.db.models import Q

from games.models import ONLY_YOU, ChatMessage, Game, Move
from games.rules import get_rules


class StoryMove(NamedTuple):
    """One logged move as a kind's ``story`` hook reads it."""

    version: int
    actor: str
    action: dict
    outcome: dict
    at_ms: int


def withheld(private_fields: Callable[[dict], Iterable[str]], outcome) -> dict:
    """An outcome without the fields its seat alone may read, naming them in ``"withheld"``
    (the same outcome when there are none)."""
    if not isinstance(outcome, dict):
        return outcome
    hidden = [name for name in private_fields(outcome) if name in outcome]
    if not hidden:
        return outcome
    kept = {name: value for name, value in outcome.items() if name not in hidden}
    return {**kept, "withheld": hidden}


def entries_of(
    kind: str,
    options: dict,
    moves: Iterable[StoryMove],
    *,
    viewer: str | None,
    over: bool,
    rated: bool = False,
    state: dict | None = None,
) -> list[dict]:
    """The story entries of ``moves`` for the reader ``viewer`` (a seat's name, None: a
    watcher), in log order."""
    rules = get_rules(kind)
    private = getattr(rules, "private_fields", None)
    moves = list(moves)
    if private is not None and not over:
        moves = [
            move
            if not move.actor or move.actor == viewer
            else move._replace(outcome=withheld(private, move.outcome))
            for move in moves
        ]
    hook = getattr(rules, "story", None)
    if hook is None:
        told = [
            {
                "version": move.version,
                "at": move.at_ms,
                "type": "join",
                "actor": move.actor,
                "text": f"{move.actor} joined.",
            }
            for move in moves
            if move.action.get("type") == "join"
        ]
    else:
        told = hook(options, moves, viewer=viewer, over=over, rated=rated, state=state)
    entries = _numbered(told)
    # While the game's cards are hidden from everyone (a paused practice table), no entry shows
    # one, nor a why line that would describe it.
    if state is not None and card_hiding(kind, options, lambda: state, over=over) is not None:
        entries = [{**entry, "cards": [], "why": []} for entry in entries]
    return entries


def card_hiding(
    kind: str, options: dict, state: Callable[[], dict], *, over: bool
) -> Callable[[dict], Iterable[str]] | None:
    """The kind's ``hidden_fields`` while a game's cards are hidden from everyone (a paused Set
    practice table: every field naming a card is withheld from every reader), else None. The
    game's ``state()`` is read only when its options can hide its cards (``hides_cards``)."""
    rules = get_rules(kind)
    hides = getattr(rules, "hides_cards", None)
    if over or hides is None or not hides(options or {}):
        return None
    return rules.hidden_fields if rules.cards_hidden(state()) else None


def _numbered(told: list[dict]) -> list[dict]:
    """Give each entry its id and every field of the shape (defaults where a hook said none)."""
    seen: dict[int, int] = {}
    entries = []
    for entry in told:
        version = entry["version"]
        n = seen.get(version, 0)
        seen[version] = n + 1
        entries.append(
            {
                "id": f"v{version}" if n == 0 else f"v{version}.{n}",
                "version": version,
                "at": entry["at"],
                "type": entry["type"],
                "actor": entry.get("actor"),
                "text": entry["text"],
                "cards": entry.get("cards") or [],
                "why": entry.get("why") or [],
                "points": entry.get("points"),
            }
        )
    return entries


def chat_entry(message: ChatMessage) -> dict:
    """A chat line as a story entry (its id ``c<id>``, as the sockets' chat messages have)."""
    entry = {
        "id": f"c{message.pk}",
        "version": None,
        "at": message.at_ms,
        "type": "chat",
        "actor": message.name,
        "text": f"{message.name}: {message.text}",
        "cards": [],
        "why": [],
        "points": None,
        "name": message.name,
        "chat": message.text,
    }
    if message.hidden:
        entry.update(hidden=True, note=ONLY_YOU)
    return entry


def in_time_order(entries: list[dict]) -> list[dict]:
    """Entries by time; at the same ms a move before chat, moves in log order."""
    return sorted(
        entries,
        key=lambda e: (e["at"], e["version"] is None, e["version"] or int(e["id"][1:] or 0)),
    )


def moves_after(game_id: int, since: int = 0, upto: int | None = None) -> list[StoryMove]:
    """The game's logged moves after version ``since`` (up to ``upto``), oldest first."""
    moves = Move.objects.filter(game_id=game_id, seq__gt=since)
    if upto is not None:
        moves = moves.filter(seq__lte=upto)
    rows = moves.order_by("seq").values_list("seq", "actor", "action", "outcome", "at_ms")
    return [StoryMove(*row) for row in rows]


CHAT_LIMIT = 10_000  # chat lines a story carries at most (as a replay)


def game_story(
    game: Game,
    *,
    state: dict,
    version: int,
    viewer: str | None,
    since: int = 0,
    reader: int | None = None,
) -> dict:
    """The story of ``game`` (its row: kind, options, rated, status) at ``version`` with
    ``state``, as ``viewer`` may read it: ``{"game", "version", "entries"}``, chat included
    (all of it when ``since`` is 0; else only the moves after that version), without the lines
    of the accounts ``reader`` (a user's id) blocked."""
    over = game.status == Game.Status.OVER
    moves = moves_after(game.pk, since, version)
    entries = entries_of(
        game.kind,
        game.options,
        moves,
        viewer=viewer,
        over=over,
        rated=game.rated,
        state=state,
    )
    if since == 0:
        # A line the word filter hid is its writer's only (a seat's name is unique at a game).
        shown = Q(hidden=False) | Q(name=viewer) if viewer else Q(hidden=False)
        messages = ChatMessage.objects.filter(shown, game_id=game.pk).read_by(reader)
        messages = messages.order_by("id")[:CHAT_LIMIT]
        entries += [chat_entry(message) for message in messages]
    return {"game": game.pk, "version": version, "entries": in_time_order(entries)}
