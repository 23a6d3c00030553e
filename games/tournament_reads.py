"""Arena tournaments read: the lists, a tournament with its standings page by page, a player's
games, the podium and the results, in the shapes the API, the pages and the sockets share."""

from __future__ import annotations

import datetime
from typing import NamedTuple

from django.contrib.auth import get_user_model
from django.db.models import Count, Q
from django.utils import timezone

from games import selectors, tournaments
from games.models import Game, Tournament, TournamentPlayer, TournamentScore

PAGE_SIZE = 20
Status = Tournament.Status


def status_of(tournament: Tournament, now: datetime.datetime | None = None) -> str:
    """The status as the clock says (what `tournaments.tick` writes next)."""
    now = timezone.now() if now is None else now
    if tournament.status == Status.UPCOMING and now >= tournament.starts_at:
        return Status.FINISHED if now >= tournament.ends_at else Status.RUNNING
    if tournament.status == Status.RUNNING and now >= tournament.ends_at:
        return Status.FINISHED
    return tournament.status


def summary(tournament: Tournament, now: datetime.datetime | None = None, **more) -> dict:
    """A tournament as every list and page shows it."""
    now = timezone.now() if now is None else now
    status = status_of(tournament, now)
    return {
        "id": tournament.pk,
        "url": f"/tournaments/{tournament.pk}/",
        "api_url": f"/api/tournaments/{tournament.pk}",
        "name": tournament.name,
        "kind": tournament.kind,
        "mode": tournaments.mode_of(tournament),
        "mode_name": tournaments.mode_name(tournament),
        "options": {**tournament.options, "mode": tournaments.mode_of(tournament)},
        "starts_at": tournament.starts_at.isoformat(),
        "ends_at": tournament.ends_at.isoformat(),
        "minutes": tournament.minutes,
        "rated": tournament.rated,
        "bots": tournament.bots,
        "recurring": tournament.recurring is not None,
        "status": status,
        "ended_early": tournament.ended_early,
        "made_by": tournament.made_by.get_username() if tournament.made_by else None,
        # What the countdown counts to: the start while upcoming, the end while running.
        "seconds_left": max(
            0.0,
            (
                (tournament.starts_at if status == Status.UPCOMING else tournament.ends_at) - now
            ).total_seconds(),
        )
        if status != Status.FINISHED
        else 0.0,
        **more,
    }


def tournament_list(status: str | None = None, *, limit: int = 50) -> dict[str, list[dict]]:
    """The tournaments by status (running, upcoming soonest first, finished latest first),
    each with its number of players."""
    now = timezone.now()
    rows = Tournament.objects.select_related("made_by").annotate(
        entrants=Count("players", filter=Q(players__withdrawn=False))
    )
    found: dict[str, list[dict]] = {}
    wanted = [status] if status else [Status.RUNNING, Status.UPCOMING, Status.FINISHED]
    for each in wanted:
        if each == Status.RUNNING:
            chosen = rows.filter(
                Q(status=Status.RUNNING) | Q(status=Status.UPCOMING, starts_at__lte=now),
                ends_at__gt=now,
            ).order_by("ends_at")
        elif each == Status.UPCOMING:
            chosen = rows.filter(status=Status.UPCOMING, starts_at__gt=now).order_by("starts_at")
        else:
            chosen = rows.filter(Q(status=Status.FINISHED) | Q(ends_at__lte=now)).order_by(
                "-ends_at"
            )
        found[each] = [summary(t, now, players=t.entrants) for t in chosen[:limit]]
    return found


class Ranked(NamedTuple):
    """A player as the standings show it: its rank (equal points and wins share one), its
    account and the sums of its games."""

    rank: int
    user_id: int
    name: str
    points: float
    games: int
    wins: int
    streak: int
    paused: bool
    withdrawn: bool

    on_fire = property(TournamentPlayer.on_fire.fget)  # the entry's own rule


def _ranked(tournament: Tournament) -> list[Ranked]:
    """Every player, best first: points, then wins, then who joined first; each with its rank
    (equal points and wins share a rank). Read as values, not rows: a page's sockets read all
    of them after every game's end (bench/bench_arena.py)."""
    rows = (
        TournamentPlayer.objects.filter(tournament=tournament)
        .order_by("-points", "-wins", "joined", "pk")
        .values_list(
            "user_id",
            f"user__{get_user_model().USERNAME_FIELD}",
            "points",
            "games",
            "wins",
            "streak",
            "paused",
            "withdrawn",
        )
    )
    players: list[Ranked] = []
    previous = None
    for index, row in enumerate(rows):
        key = (row[2], row[4])  # points, wins
        rank = previous[1] if previous and previous[0] == key else index + 1
        previous = (key, rank)
        players.append(Ranked(rank, *row))
    return players


def _playing(tournament: Tournament) -> dict[int, int]:
    """The game each player of the tournament sits at now (user id: game id)."""
    rows = (
        Game.objects.filter(tournament_link__tournament=tournament)
        .exclude(status=Game.Status.OVER)
        .values_list("seats__player__user_id", "pk")
    )
    return {user: game for user, game in rows if user is not None}


def player_json(player: Ranked, playing: dict[int, int]) -> dict:
    name = player.name
    return {
        "rank": player.rank,
        "name": name,
        "url": f"/u/{name}",
        "points": player.points,
        "games": player.games,
        "wins": player.wins,
        "streak": player.streak,
        "on_fire": player.on_fire,
        "paused": player.paused,
        "withdrawn": player.withdrawn,
        "playing": playing.get(player.user_id),
    }


def ranked_now(tournament: Tournament) -> tuple[list[TournamentPlayer], dict[int, int]]:
    """Every player ranked, and who plays where: what every page of the standings shows (read
    once for all the pages a tournament's sockets show, games.tournament_consumer)."""
    return _ranked(tournament), _playing(tournament)


def standings(tournament: Tournament, *, page: int = 1, ranked=None) -> dict:
    """A page of the standings (PAGE_SIZE players), the podium once finished; `ranked`: what
    `ranked_now` read (by default read now)."""
    players, playing = ranked_now(tournament) if ranked is None else ranked
    pages = max(1, -(-len(players) // PAGE_SIZE))
    page = min(max(1, page), pages)
    shown = players[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    return {
        "page": page,
        "pages": pages,
        "players": len(players),
        "standings": [player_json(p, playing) for p in shown],
        "podium": [player_json(p, playing) for p in players[:3] if p.games]
        if status_of(tournament) == Status.FINISHED
        else [],
    }


def player_games(tournament: Tournament, name: str) -> list[dict]:
    """One player's games in the tournament: each game's place, points and whether on fire."""
    rows = TournamentScore.objects.filter(
        tournament=tournament, user__username=name
    ).select_related("game")
    return [
        {
            "game": row.game_id,
            "url": selectors.page_url(row.game.kind, row.game_id),
            "place": row.place + 1,
            "placement": row.placement,
            "on_fire": row.on_fire,
            "points": row.points,
        }
        for row in rows
    ]


def tournament_detail(
    tournament: Tournament, *, page: int = 1, viewer=None, ranked=None, games_playing=None
) -> dict:
    """A tournament with a page of its standings and, for a signed-in viewer, their entry
    (`ranked` and `games_playing`: read already for other pages)."""
    body = summary(tournament, **standings(tournament, page=page, ranked=ranked))
    if games_playing is None:
        games_playing = tournaments.playing_games(tournament).count()
    body["games_playing"] = games_playing
    body["me"] = viewer_entry(tournament, viewer)
    return body


def viewer_entry(tournament: Tournament, viewer) -> dict | None:
    """A signed-in viewer's own entry in the tournament (None: not signed in, not joined)."""
    if viewer is None or not viewer.is_authenticated:
        return None
    entry = TournamentPlayer.objects.filter(tournament=tournament, user=viewer).first()
    if entry is None:
        return None
    return {
        "name": viewer.get_username(),
        "points": entry.points,
        "games": entry.games,
        "paused": entry.paused,
        "withdrawn": entry.withdrawn,
        "on_fire": entry.on_fire,
        "playing": tournaments.playing_games(tournament)
        .filter(seats__player__user=viewer)
        .values_list("pk", flat=True)
        .first(),
    }


def results(tournament: Tournament):
    """Every player, final rank first, one dict a player (the NDJSON results' lines)."""
    players = _ranked(tournament)
    playing = _playing(tournament)
    for player in players:
        yield player_json(player, playing)


def tournaments_of(user) -> list[dict]:
    """An account's tournaments, latest first, with its rank in each (a profile's list)."""
    entries = (
        TournamentPlayer.objects.filter(user=user)
        .select_related("tournament")
        .order_by("-tournament__starts_at")[:50]
    )
    found = []
    for entry in entries:
        tournament = entry.tournament
        rank = next(p.rank for p in _ranked(tournament) if p.user_id == user.pk)
        found.append(
            {
                "id": tournament.pk,
                "name": tournament.name,
                "url": f"/tournaments/{tournament.pk}/",
                "status": status_of(tournament),
                "starts_at": tournament.starts_at.isoformat(),
                "rank": rank,
                "points": entry.points,
                "games": entry.games,
            }
        )
    return found
