"""The tournaments' pages: /tournaments/ (running, upcoming, finished) and /tournaments/<id>/
(the live standings, pushed by /ws/tournaments/<id>/; join, pause, leave; a countdown; the
podium once finished). The page renders from the very object the API and the socket send."""

from __future__ import annotations

import datetime

from django.http import Http404
from django.middleware.csrf import get_token
from django.shortcuts import render

from games import tournament_reads, tournaments
from games.errors import NotFound


def tournaments_page(request):
    """The lists, with the recurring arenas made ahead when due."""
    tournaments.arenas_ensure()
    lists = tournament_reads.tournament_list()
    for rows in lists.values():
        for row in rows:
            starts = datetime.datetime.fromisoformat(row["starts_at"])
            row["starts_label"] = f"{starts:%-d %b %Y, %H:%M} UTC"
    return render(
        request,
        "tournaments.html",
        {
            "running": lists["running"],
            "upcoming": lists["upcoming"],
            "finished": lists["finished"],
        },
    )


def tournament_page(request, tournament_id: int):
    try:
        tournament = tournaments.tick(tournaments.tournament_of(tournament_id))
    except NotFound as error:
        raise Http404(str(error)) from None
    state = tournament_reads.tournament_detail(tournament, viewer=request.user)
    config = {
        "state": state,
        "signed_in": request.user.is_authenticated,
        "csrf": get_token(request),
        "socket": f"/ws/tournaments/{tournament.pk}/",
    }
    return render(request, "tournament.html", {"tournament": state, "config": config})
