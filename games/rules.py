"""The registry of game kinds: each kind's rules behind one small interface.

The platform calls only these methods; each kind adapts its pure engine to them:

- ``new(options, seed, now_ms) -> state``: a fresh game (options validated, errors readable);
- ``apply(state, actor, action, now_ms) -> Result``: one action by one seat (by its name);
- ``tick(state, now_ms) -> Result``: time-driven events that are due (the declare deadline);
- ``next_deadline(state) -> int | None``: when time alone will next change the game;
- ``view(state, actor, now_ms) -> dict``: what that seat (or a watcher, actor None) sees;
- ``status(state)``, ``scores(state)``: for listings and the admin.

A kind may also have (the platform asks with ``getattr``):

- ``describe(options)``, ``page``: a short description for lists, its own page's URL name;
- ``replay_page``: the URL name of its own viewer of a stored game, where the shared replay page
  (``/games/<id>/replay/``) sends it (Set War's rounds are stepped through in its viewer);
- ``rating_modes``, ``rating_mode(options)``, ``rating(options, state)``: its rated modes
  (games.ratings);
- ``rematch_options(options, seed)``: the options of a finished game played again (a new deal);
- ``dealt_options(options)``: the options of the same game dealt as it is made (a game that
  waits for its start is judged by its deal: whether anyone can play it);
- ``replay_view(state, now_ms) -> dict`` (optional): a watcher's view of one step of a finished
  game's replay, where it shows what the game hid while played (Memory's face-down cards);
  without it a replay's steps are ``view(state, None, now_ms)``;
- ``seat_view(state, actor, now_ms) -> dict | None``: the fields of `actor`'s view that differ
  from a watcher's (``view(state, actor, now_ms) == {**view(state, None, now_ms),
  **seat_view(state, actor, now_ms)}``), or None where the kind draws each seat's whole view:
  every seat's view of one version then shares one watcher's (games.selectors.game_view);
- ``private_fields(outcome) -> tuple of names``: the fields of a move's outcome that only its
  seat may read until the game is over (a Set hint's card); every way out leaves them out for
  everyone else (games.selectors.outcomes_for);
- ``story(options, moves, *, viewer, over, rated, state) -> [entry, ...]``: the game's log in
  words (games.story builds the table log from it): ``moves`` are ``(version, actor, action,
  outcome, at_ms)`` as the reader may see them (private fields already withheld), ``viewer``
  the reader's seat name (None: a watcher), ``over`` whether the game has ended, ``rated``
  whether it was created rated, ``state`` the game now; each entry is ``{"version", "at",
  "type", "actor", "text"}`` and where it helps ``"cards"``, ``"why"``, ``"points"``;
- ``ghost_sets(options, state, moves) -> [{"at_ms", "cards"}, ...]``: the sets (or whatever
  scores) of a game in the order found, each its time since the deal, from its log of ``(actor,
  outcome, at_ms)``: a kind with it has ghost races (games.ghosts: a finished solo run's are the
  ghost's, a race's are compared with them); ``run_time_fields``: its ``stats`` fields that are
  the time of a whole solo run (a profile's best runs to race);
- ``seed_for(options) -> int | None``: the seed that options fix (a day's puzzle is the same deal
  for everyone), stored as the game's seed; None leaves it random;
- ``stat_fields`` and ``stats(options, state, moves) -> {name: {field: count or [seconds]}}``:
  what each player did in a finished game, from its state and its log of ``(actor, outcome,
  at_ms)``: a count, or a list of seconds for a field whose name says "seconds" (games.profiles
  sums the counts and gives the mean and best of the seconds); None for a game left out of
  every record (profiles, the site's numbers): a Set practice table;
- ``badges(options) -> [word, ...]``: words lists show as badges beside the description
  ("practice");
- ``hides_cards(options) -> bool``, ``cards_hidden(state) -> bool`` and ``hidden_fields(outcome
  or action) -> tuple of names``: whether a game of these options can hide its cards (a Set
  practice table), whether they are hidden from everyone now (paused), and the fields of a
  move's outcome or action that name cards: while hidden, the replay of a game being played is
  refused (409), its log and export withhold those fields from everyone and its story the
  cards of every entry (games.selectors.card_hiding);
- ``private_refusal(options) -> str | None``: why a game of these options cannot be created
  open (a 400 with that sentence), or None;
- ``started(state) -> bool``: whether the game has begun for its players while its status is
  still "waiting" (a Set table's countdown to its deal): its accounts hear ``gameStart`` then,
  once (games.planning.has_started). Without it, a game begins when it is no longer waiting.

States are plain JSON-able data and the functions never mutate their input, so a rejected action
leaves the game as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from games.errors import RuleError


@dataclass(frozen=True)
class Result:
    """What one action or tick did: the new state, what to tell the actor, and whether watchers
    should wake (an "event" in the Set table protocol's sense)."""

    state: dict
    outcome: dict = field(default_factory=dict)
    event: bool = True
    # The action as the rules read it (fields they do not know dropped), which the log stores;
    # None: as it was sent.
    action: dict | None = None


class Rules(Protocol):
    kind: str
    min_seats: int
    max_seats: int | None
    # Whether seats may join while the game is being played (Set tables) or only before.
    join_while_active: bool

    def options(self, options: dict) -> dict: ...
    def new(self, *, options: dict, seed: int, now_ms: int) -> dict: ...
    def join(self, state: dict, name: str, now_ms: int) -> Result: ...
    def apply(self, state: dict, actor: str, action: dict, now_ms: int) -> Result: ...
    def tick(self, state: dict, now_ms: int) -> Result: ...
    def next_deadline(self, state: dict) -> int | None: ...
    def view(self, state: dict, actor: str | None, now_ms: int) -> dict: ...
    def status(self, state: dict) -> str: ...
    def scores(self, state: dict) -> dict[str, int]: ...
    # What a computer seat would do now (None: nothing to do); kinds without it have no computers.
    def bot_actions(self, state: dict, name: str) -> list[dict] | None: ...


_REGISTRY: dict[str, Rules] = {}


def register(rules: Rules) -> Rules:
    _REGISTRY[rules.kind] = rules
    return rules


def get_rules(kind: str) -> Rules:
    try:
        return _REGISTRY[kind]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise RuleError(f"Unknown game kind {kind!r}; known kinds: {known}.", "bad_kind") from None


def kinds() -> list[str]:
    return sorted(_REGISTRY)


def as_result(engine_result: Any) -> Result:
    """Accept an engine's own result object (state, outcome, event) as a platform Result."""
    if isinstance(engine_result, Result):
        return engine_result
    return Result(
        state=engine_result.state,
        outcome=dict(getattr(engine_result, "outcome", {}) or {}),
        event=bool(getattr(engine_result, "event", True)),
    )
