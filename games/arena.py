"""Arena points, given in the transaction of a tournament game's last move (as ratings are).

`score_ended` is a part of the job that writes a game's last move (services.commit): when the
game was played in a tournament (games.models.TournamentGame) and is not scored yet, it ranks
the seats by the kind's rules (``rating``: each seat's rank, equal ranks a tie; a game its
rules do not rank, one where a hint was taken say, ties everyone), scores them
(games.arena_scoring: placement points, doubled for a player on fire) and writes the score rows
and the players' new points, games and streaks with the move. So a game scores once or not at
all, whatever process ends it, and a restart loses nothing.

Once committed, the tournament's followers hear ``TournamentNews`` (their sockets send the
standings again) and the functions of `after_scored` run (games.tournaments seats the players
again).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace

from games import realtime, store
from games.arena_scoring import score_game
from games.rules import get_rules

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TournamentNews:
    """A tournament's standings changed (a game scored): announced after the commit."""

    tournament_id: int
    game_id: int | None = None


def group_name(tournament_id: int) -> str:
    """The channel-layer group of a tournament's followers (its page's sockets)."""
    return f"tournament-{tournament_id}"


def ranks_of(kind: str, options: dict, state: dict, names: list[str]) -> dict[str, int]:
    """Each seat's rank at a finished game (0 first, equal: a tie), by its kind's rules; all
    tied when the rules do not rank it."""
    rating = getattr(get_rules(kind), "rating", None)
    found = rating(options, state) if rating is not None else None
    ranks = found[1] if found is not None else {}
    if set(ranks) != set(names):
        return dict.fromkeys(names, 0)
    return {name: ranks[name] for name in names}


def score_ended(game_id: int, kind: str, state: dict):
    """A part of a job (services.commit), once the change that ends a game is written: score
    the game if it was played in a tournament. Its value: the scores written (empty: none)."""
    found = yield store.ReadArena(game_id)
    if found is None:
        return []
    tournament_id, options, seats, streaks = found
    names = [name for name, user in seats if user is not None]
    users = {name: user for name, user in seats if user is not None}
    ranks = ranks_of(kind, options, state, names)
    before = {name: streaks.get(users[name], 0) for name in names}
    scores = tuple(replace(s, who=users[s.who]) for s in score_game(ranks, before))
    written = yield store.WriteArena(game_id, tournament_id, scores)
    if not written:
        return []
    yield store.Announce(TournamentNews(tournament_id, game_id))
    return list(scores)


# Run (on Django's thread) after a tournament's news is committed: games.tournaments seats
# the players of the game that ended again. A list, so the platform's lower layers import none
# of the tournaments' services.
after_scored: list[Callable[[TournamentNews], None]] = []


def changed(tournament_id: int, *, scored: bool = False) -> dict:
    """What a tournament's followers hear when it has changed: its id lets the sockets of a
    process that hear it a moment apart share one read after it (games.tournament_consumer);
    `scored`: a game's points were given (the standings moved: sent at once, where the other
    changes, a table made or a player who joined, share a frame)."""
    return {
        "type": "tournament.changed",
        "tournament": tournament_id,
        "change": uuid.uuid4().hex,
        "scored": scored,
    }


def announce(news: TournamentNews) -> None:
    """After the commit: tell the tournament's followers, and run `after_scored`."""
    message = changed(news.tournament_id, scored=True)
    realtime.publish_to(group_name(news.tournament_id), message)
    for hook in after_scored:
        try:
            hook(news)
        except Exception:  # a hook's failure must not undo what is committed
            log.exception("After tournament %s's news", news.tournament_id)
