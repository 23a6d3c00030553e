"""Ratings: an account's skill per rated mode, moved by each rated game when it ends.

A game is rated when it was created with ``rated`` and, when it ends, every seat is an
account's (no guests, no account twice: a computer sits as its speed's bot account,
games.bots, and is rated as one) and its rules count it (``rating``: the
mode and each seat's rank; hints, for one, make a Set table unrated). What can be rated is said
before a game starts, and kept: a game created rated with options that are never rated is
refused (`options_refusal`), a table created rated seats accounts only (`seat_refusal`), and
once something unrates a game, `unrated_reason` says what, which its JSON and pages show
instead of "rated". The kinds say which modes
they have (``rating_modes``, with their names for people) and which one a game's options are
(``rating_mode``); Set War has none.

Ratings are openskill's Plackett-Luce model, which ranks 2 to 8 players (or more) at once with
ties, on a scale where a new account starts at 1500 (sigma 500). The rating shown is the
estimate `mu`, rounded.

The rating is written by `rate_ended`, a part of the job that writes the game's last move
(services.commit): in the same transaction, so a game rates once or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

from games import store
from games.models import Game
from games.rules import get_rules, kinds

MU = 1500.0
SIGMA = 500.0
MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=SIGMA / 2, tau=MU / 300)
MIN_GAMES = 5  # rated games an account needs to appear on a leaderboard
TOP = 100


def mode_names() -> dict[str, str]:
    """Every rated mode of the registered kinds, in their order, with its name for people."""
    found: dict[str, str] = {}
    for kind in kinds():
        found.update(getattr(get_rules(kind), "rating_modes", {}))
    return found


def modes() -> list[str]:
    """Every rated mode of the registered kinds, in their order."""
    return list(mode_names())


def can_rate(kind: str) -> bool:
    return bool(getattr(get_rules(kind), "rating_modes", ()))


def mode_of(kind: str, options: dict) -> str | None:
    """The mode a game of these options is rated in (None: none)."""
    rating_mode = getattr(get_rules(kind), "rating_mode", None)
    return rating_mode(options) if rating_mode is not None else None


def shown(mu: float) -> int:
    """The rating as people read it."""
    return round(mu)


@dataclass(frozen=True)
class Seated:
    """A seat as a rating needs it: its name at the game and whose it is."""

    name: str
    user_id: int | None
    is_computer: bool


@dataclass(frozen=True)
class Rated:
    """One account's rating before and after a game (a row of RatingChange)."""

    user_id: int
    rank: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    games: int  # rated games in this mode, this one counted


# Why a seat is refused at a table created rated: it seats accounts only, each once.
GUEST_REFUSED = (
    "This table is rated: only players signed in to an account sit at it. Log in or sign up "
    "to play, or watch."
)
COMPUTER_REFUSED = (
    "This table is rated: only accounts sit at it, and this computer has none (the computer "
    "of each speed plays as its own bot account, once a table)."
)
RATED_SEATS = (
    "A rated table seats accounts only (no guests; a computer plays as its speed's bot "
    "account), each once, and rates when two or more have played."
)
RATED_MIN_PLAYERS = 2
TWICE_REFUSED = "This table is rated: an account sits at it once."
ONE_COMPUTER = (
    "This table is rated: one computer at most sits at it (the computer plays as its speed's "
    "bot account, and an account sits at a rated table once)."
)


def options_refusal(kind: str, options: dict) -> str | None:
    """Why a game of this kind and these (checked) options cannot be rated, in a sentence; None
    when it can. A game created rated with such options is refused (services.create)."""
    rules = get_rules(kind)
    if not getattr(rules, "rating_modes", None):
        return f"{Game.Kind(kind).label} games are never rated."
    why = getattr(rules, "unrated_options", None)
    found = why(options) if why is not None else None
    if found is None and mode_of(kind, options) is None:
        found = "A game of these options is not rated."
    return found


def seat_refusal(*, user_id: int | None, is_computer: bool, seated_users) -> str | None:
    """Why a seat cannot sit at a table created rated (None: it can): a guest (no account), a
    computer with no account (the built-in ones sit as their speed's bot account), or an
    account seated there already (`seated_users`: a second computer of one speed, too)."""
    if user_id is None:
        return COMPUTER_REFUSED if is_computer else GUEST_REFUSED
    if user_id in set(seated_users):
        return TWICE_REFUSED
    return None


def unrated_reason(
    kind: str, options: dict, state: dict, seats: list[Seated], *, over: bool
) -> str | None:
    """Why a game created rated will not rate (or, `over`, did not), in a sentence a player
    reads ("Tim took a hint."); None while it still rates. The one judge of whether a game
    created rated is rated: its JSON, its pages and `standing` (which rates it) all ask here."""
    found = options_refusal(kind, options)  # refused at creation: only for rows made before
    if found is not None:
        return found
    for seat in seats:
        if seat.user_id is None:  # a guest, or a computer seated before computers had accounts
            return f"{seat.name} has no account: a rated game seats accounts only."
    users = [seat.user_id for seat in seats]
    if len(set(users)) != len(users):
        return "One account sat at two seats."
    why = getattr(get_rules(kind), "unrated_state", None)
    found = why(state) if why is not None else None
    if found is not None:
        return found
    if over and len(seats) < RATED_MIN_PLAYERS:
        who = f"Only {seats[0].name} played" if seats else "Nobody played"
        return f"{who}: a rated game needs two players or more."
    return None


def standing(kind: str, options: dict, state: dict, seats: list[Seated]):
    """The mode of a finished game and each account's rank, or None when it is not rated
    (`unrated_reason` says why)."""
    if unrated_reason(kind, options, state, seats, over=True) is not None:
        return None
    rating = getattr(get_rules(kind), "rating", None)
    found = rating(options, state) if rating is not None else None
    if found is None:
        return None
    mode, ranks = found
    if set(ranks) != {seat.name for seat in seats}:
        return None
    return mode, {seat.user_id: ranks[seat.name] for seat in seats}


def rate(ranks: dict[int, int], current: dict[int, tuple[float, float, int]]) -> list[Rated]:
    """The new ratings of accounts ranked `ranks` (0 first, equal: a tie), from their
    `current` (mu, sigma, games) (a new account starts at MU, SIGMA)."""
    users = sorted(ranks)
    before = [current.get(user, (MU, SIGMA, 0)) for user in users]
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma, _ in before]
    after = MODEL.rate(teams, ranks=[ranks[user] for user in users])
    return [
        Rated(user, ranks[user], mu, sigma, team[0].mu, team[0].sigma, games + 1)
        for user, (mu, sigma, games), team in zip(users, before, after, strict=True)
    ]


def rate_ended(game_id: int, kind: str, state: dict):
    """A part of a job (services.commit), once the change that ends a game is written: rate
    the game if it is rated. Its value: the ratings written (empty: not rated)."""
    rated, options, seats = yield store.ReadRated(game_id)
    if not rated:
        return []
    found = standing(kind, options, state, [Seated(*seat) for seat in seats])
    if found is None:
        return []
    mode, ranks = found
    current = yield store.ReadRatings(mode, tuple(sorted(ranks)), (MU, SIGMA))
    changes = rate(ranks, current)
    written = yield store.WriteRatings(game_id, mode, tuple(changes))
    return changes if written else []
