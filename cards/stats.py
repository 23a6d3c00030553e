"""The statistics page, /stats/ (issue 16, item 7): what a simulation of many Set solitaire
games shows beside the values it should approach, and the site's own numbers.

A simulation runs in a thread of the process that was asked (at most ``MAX_RUNNING`` at once
per process, at most ``MAX_GAMES`` games each); its progress and its report are kept in Django's
cache under the run's id, so any process sharing the cache (Redis) can answer for it. The page
polls ``/stats/runs/<id>`` for a ``<progress>`` bar and, when the run is done, shows the charts
that answer brings, drawn as SVG on the server (:mod:`games.charts`).

The site's numbers (games finished per day, sets found, seconds per set by mode) sum the
per-game figures of :func:`games.profiles.finished_stats` over the last ``SITE_DAYS`` days, and
are kept in the cache for ``SITE_TTL`` seconds so that the page stays cheap.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
import threading
import uuid
from collections import defaultdict
from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Count
from django.db.models.functions import TruncDate
from django.http import HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from cards.engine.fast import ATTRIBUTE_COUNTS
from cards.simulate import REPORTED_SIZES, simulate
from games import charts, profiles, ratings
from games.models import Game

logger = logging.getLogger(__name__)

GAME_CHOICES = (1_000, 10_000, 100_000)
MAX_GAMES = 100_000  # about 5 s for the 81-card deck, half a minute for the 243-card one
MAX_RUNNING = 2  # simulations running at once in one process
RUN_TTL = 60 * 60  # a run's progress and report stay this long in the cache
SITE_TTL = 60
SITE_DAYS = 30
SITE_KEY = "stats-site:1"
RUN_ID = re.compile(r"[0-9a-f]{32}")

_slots = threading.BoundedSemaphore(MAX_RUNNING)


class BadRun(ValueError):
    """A request for a simulation that cannot be run; its message says why."""


@dataclass(frozen=True)
class Reference:
    """A published value a simulated share should approach, with where it was published."""

    series: str  # its name in the chart's legend
    value: float
    odds: str  # as the source puts it
    source: str
    url: str = ""


BOOKLET = "The SET rules booklet (Set Enterprises)"
NORVIG = "Peter Norvig, “The Odds of Finding a Set in The Card Game SET”"
NORVIG_URL = "https://norvig.com/SET.html"
DURING_PLAY = "Norvig’s simulation: boards during play"
FRESH_DEAL = "Rules booklet: a fresh deal"
SIMULATED = "This simulation: boards during play"

# Only for the standard 81-card deck (4 attributes); nothing is published for 18 cards.
REFERENCES: dict[int, list[Reference]] = {
    12: [
        Reference(DURING_PLAY, 1 / 17, "16:1 against no set", NORVIG, NORVIG_URL),
        Reference(FRESH_DEAL, 1 / 34, "33:1 against no set", BOOKLET),
    ],
    15: [Reference(FRESH_DEAL, 1 / 2501, "2500:1 against no set", BOOKLET)],
    18: [],
}


def _percent(value: float) -> str:
    return f"{value * 100:.3g}%"


def _shown(value: float | None) -> str:
    """A share as the tables show it: a percentage with 3 significant digits."""
    if value is None:
        return "none looked at"
    return f"{value * 100:.3g}%" if value else "0%"


def _whole(value, *, what: str, low: int, high: int) -> int:
    """``value`` (a JSON number or a form's text) as a whole number from low to high."""
    number = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and re.fullmatch(r"\s*\d{1,12}\s*", value):
        number = int(value)
    if number is None or not low <= number <= high:
        shown = json.dumps(value) if not isinstance(value, str) else repr(value)
        raise BadRun(f"{what} must be a whole number from {low:,} to {high:,}, not {shown}.")
    return number


def run_request(data) -> tuple[int, int]:
    """The number of games and of attributes a request asks for, checked."""
    if not isinstance(data, dict):
        raise BadRun('Send an object such as {"games": 10000, "attributes": 4}.')
    if "games" not in data or data["games"] in ("", None):
        raise BadRun(f"Say how many games to play: a whole number from 1 to {MAX_GAMES:,}.")
    games = _whole(data["games"], what="The number of games", low=1, high=MAX_GAMES)
    attributes = data.get("attributes", 4)
    if attributes in ("", None):
        attributes = 4
    try:
        attributes = _whole(attributes, what="attributes", low=3, high=5)
    except BadRun:
        shown = json.dumps(attributes) if not isinstance(attributes, str) else repr(attributes)
        raise BadRun(f"A Set deck has 3, 4 or 5 attributes, not {shown}.") from None
    return games, attributes


def _key(run_id: str) -> str:
    return f"stats-run:{run_id}"


def run_start(*, games: int, attributes: int) -> dict | None:
    """Start a simulation in a thread and return its first status; None when ``MAX_RUNNING``
    are running in this process already."""
    if not _slots.acquire(blocking=False):
        return None
    run_id = uuid.uuid4().hex
    status = {
        "id": run_id,
        "status": "running",
        "games": games,
        "attributes": attributes,
        "done": 0,
    }
    cache.set(_key(run_id), status, RUN_TTL)
    try:
        threading.Thread(
            target=_run, args=(dict(status),), name=f"simulate-{run_id[:8]}", daemon=True
        ).start()
    except BaseException:
        _slots.release()
        raise
    return status


def _run(status: dict) -> None:
    """Play the run's games, keeping its progress, then its report, in the cache."""
    key = _key(status["id"])
    try:

        def progress(batch: int) -> None:
            status["done"] += batch
            cache.set(key, status, RUN_TTL)

        report = simulate(status["games"], attributes=status["attributes"], progress=progress)
        cache.set(key, {**status, "status": "done", "report": report.to_json()}, RUN_TTL)
    except Exception:
        logger.exception("the simulation %s failed", status["id"])
        failed = {**status, "status": "failed", "error": "The simulation stopped on an error."}
        cache.set(key, failed, RUN_TTL)
    finally:
        _slots.release()


def run_status(run_id: str) -> dict | None:
    """A run's status from the cache (None: no such run, or it has expired)."""
    if not RUN_ID.fullmatch(run_id):
        return None
    return cache.get(_key(run_id))


def report_context(report: dict) -> dict:
    """What the template shows of a finished run: its charts and their numbers."""
    standard = report["attributes"] == 4
    boards = []
    for size in REPORTED_SIZES:
        seen = int(report["boards_seen"].get(str(size), 0))
        empty = int(report["boards_without_set"].get(str(size), 0))
        boards.append(
            {
                "size": size,
                "seen": f"{seen:,}",
                "empty": f"{empty:,}",
                "share": report[f"p_no_set_{size}"],
                "shown": _shown(report[f"p_no_set_{size}"]),
                "references": [
                    {"ref": ref, "shown": _shown(ref.value)}
                    for ref in (REFERENCES[size] if standard else [])
                ],
            }
        )
    names = [SIMULATED]
    if standard:
        names += [DURING_PLAY, FRESH_DEAL]
    series = []
    for name in names:
        values = []
        for board in boards:
            if name == SIMULATED:
                values.append(board["share"])
            else:
                found = [r["ref"].value for r in board["references"] if r["ref"].series == name]
                values.append(found[0] if found else None)
        series.append(charts.Series(name, values=values))
    no_set_chart = charts.bar_chart(
        [f"{board['size']} cards" for board in boards],
        series,
        title="Share of boards with no set, by board size",
        description=(
            "For boards of 12, 15 and 18 cards, the share with no set in this simulation"
            + (", beside the published values" if standard else "")
            + ". The table below gives every number."
        ),
        y_format=_percent,
    )
    games = report["games"]
    leftover = [
        {
            "cards": int(left),
            "games": f"{count:,}",
            "share": count / games,
            "shown": _shown(count / games),
        }
        for left, count in sorted(report["leftover"].items(), key=lambda item: int(item[0]))
    ]
    leftover_chart = charts.bar_chart(
        [str(row["cards"]) for row in leftover],
        [charts.Series("Share of games, this simulation", values=[r["share"] for r in leftover])],
        title="Cards left on the table at the end of a game",
        description=(
            f"The share of the {games:,} simulated games that ended with each number of cards "
            "left. The table below gives every number."
        ),
        y_format=_percent,
    )
    return {
        "report": report,
        "deck_size": 3 ** report["attributes"],
        "games": f"{games:,}",
        "standard": standard,
        "boards": boards,
        "no_set_chart": no_set_chart,
        "leftover": leftover,
        "leftover_chart": leftover_chart,
        "norvig": NORVIG,
        "norvig_url": NORVIG_URL,
        "booklet": BOOKLET,
    }


def _day_label(day: datetime.date) -> str:
    return f"{day:%b} {day.day}"


def site_numbers() -> dict:
    """The site's numbers over the last ``SITE_DAYS`` days, from the cache when fresh: for at
    most ``SITE_TTL`` seconds, and only until another game ends (the newest finished game is
    part of the key), so a player who just finished a game finds it counted."""
    newest = Game.objects.filter(status=Game.Status.OVER).order_by("-pk").values("pk").first()
    key = f"{SITE_KEY}:{newest['pk'] if newest else 0}"
    numbers = cache.get(key)
    if numbers is None:
        numbers = _site_numbers()
        cache.set(key, numbers, SITE_TTL)
    return numbers


def _site_numbers() -> dict:
    today = timezone.localdate()
    first = today - datetime.timedelta(days=SITE_DAYS - 1)
    since = datetime.datetime.combine(
        first, datetime.time.min, tzinfo=timezone.get_current_timezone()
    )
    finished = Game.objects.filter(status=Game.Status.OVER, finished__gte=since)
    per_day = {
        row["day"]: row["games"]
        for row in finished.annotate(day=TruncDate("finished"))
        .values("day")
        .annotate(games=Count("id"))
    }
    days = [first + datetime.timedelta(days=offset) for offset in range(SITE_DAYS)]
    rows = list(finished.values_list("id", "kind", "options", "finished"))
    figures = profiles.finished_stats(game_id for game_id, _, _, _ in rows)
    # A game left out of every record (a practice table) is not counted either.
    unrecorded = [row for row in rows if row[0] in figures and figures[row[0]] is None]
    for _game_id, _kind, _options, finished_at in unrecorded:
        day = timezone.localdate(finished_at)
        if per_day.get(day):
            per_day[day] -= 1
    rows = [row for row in rows if row not in unrecorded]
    sets_found = 0
    seconds: dict[str, list[float]] = defaultdict(list)
    for game_id, kind, options, _finished in rows:
        for seat in (figures.get(game_id) or {}).values():
            sets_found += seat.get("sets_found", 0)
            if "seconds_per_set" in seat:
                seconds[ratings.mode_of(kind, options) or "other"] += seat["seconds_per_set"]
    names = {**ratings.mode_names(), "other": "Other (a chosen deck or board)"}
    modes = [
        {
            "mode": mode,
            "name": name,
            "sets": len(seconds[mode]),
            "mean": round(sum(seconds[mode]) / len(seconds[mode]), 1),
        }
        for mode, name in names.items()
        if seconds.get(mode)
    ]
    return {
        "first": first,
        "today": today,
        "days": [{"day": day, "games": per_day.get(day, 0)} for day in days],
        "games": len(rows),
        "sets_found": sets_found,
        "modes": modes,
    }


def site_context(numbers: dict) -> dict:
    days = numbers["days"]
    per_day_chart = charts.line_chart(
        [charts.Series("Games finished", [(i, row["games"]) for i, row in enumerate(days)])],
        title=f"Games finished per day, the last {SITE_DAYS} days",
        description=(
            f"{numbers['games']:,} games of every kind finished from "
            f"{_day_label(numbers['first'])} to {_day_label(numbers['today'])}. "
            "The table below gives each day."
        ),
        x_format=lambda x: _day_label(days[min(int(round(x)), len(days) - 1)]["day"]),
        y_format=lambda y: f"{y:g}" if y == int(y) else "",  # whole games only
    )
    seconds_chart = None
    if numbers["modes"]:
        seconds_chart = charts.bar_chart(
            [row["name"] for row in numbers["modes"]],
            [charts.Series("Mean seconds per set", values=[r["mean"] for r in numbers["modes"]])],
            title="Mean seconds per set, by mode",
            description=(
                "For each mode, the mean seconds from one set at a table to the next (or from "
                "its first move) over the sets found in the last "
                f"{SITE_DAYS} days. The table below gives every number."
            ),
            y_format=lambda y: f"{y:g} s",
        )
    return {
        "site": numbers,
        "site_days": SITE_DAYS,
        "per_day_chart": per_day_chart,
        "seconds_chart": seconds_chart,
    }


def _page(request, *, run: dict | None = None, error: str = "", form: dict | None = None):
    result = None
    if run and run["status"] == "done":
        result = render_to_string("stats_run.html", report_context(run["report"]), request)
    config = {
        "csrf": get_token(request),
        "runs_url": reverse("stats-runs"),
        "page_url": reverse("stats"),
        "run": None if run is None else {k: v for k, v in run.items() if k != "report"},
    }
    return render(
        request,
        "stats.html",
        {
            **site_context(site_numbers()),
            "config": config,
            "run": run,
            "result": result,
            "error": error,
            "form": form or {"games": str(GAME_CHOICES[1]), "attributes": "4"},
            "game_choices": [(str(choice), f"{choice:,}") for choice in GAME_CHOICES],
            "max_games": f"{MAX_GAMES:,}",
            "max_running": MAX_RUNNING,
            "attribute_choices": ATTRIBUTE_COUNTS,
        },
        status=400 if error else 200,
    )


@require_GET
def stats_page(request):
    """The statistics page; ``?run=<id>`` shows that simulation's progress or its charts."""
    run = run_status(request.GET.get("run", ""))
    return _page(request, run=run)


def _status_json(run: dict, request) -> dict:
    body = {key: value for key, value in run.items() if key != "report"}
    body["url"] = reverse("stats-run", args=[run["id"]])
    body["page"] = reverse("stats") + f"?run={run['id']}"
    if run["status"] == "done":
        body["report"] = run["report"]
        body["html"] = render_to_string("stats_run.html", report_context(run["report"]), request)
    return body


@require_POST
def runs(request):
    """Start a simulation: ``{"games": n, "attributes": 3|4|5}`` as JSON (answers 202 and the
    run's status) or from the page's form without script (redirects to the page of the run)."""
    as_json = request.content_type == "application/json"
    if as_json:
        try:
            data = json.loads(request.body or b"null")
        except (ValueError, UnicodeDecodeError):
            return JsonResponse({"detail": "The body is not JSON."}, status=400)
        except RecursionError:  # Python's json raises it, not ValueError, past ~1000 levels
            detail = "The body is not JSON: it is nested too deeply."
            return JsonResponse({"detail": detail}, status=400)
    else:
        data = request.POST.dict()
    try:
        games, attributes = run_request(data)
    except BadRun as error:
        if as_json:
            return JsonResponse({"detail": str(error)}, status=400)
        return _page(request, error=str(error), form=data)
    run = run_start(games=games, attributes=attributes)
    if run is None:
        detail = (
            f"{MAX_RUNNING} simulations are running on this server already; wait a few seconds "
            "for one to finish, then start yours."
        )
        response = (
            JsonResponse({"detail": detail}, status=429)
            if as_json
            else HttpResponse(detail, status=429, content_type="text/plain; charset=utf-8")
        )
        response["Retry-After"] = "5"
        return response
    if not as_json:
        return redirect(reverse("stats") + f"?run={run['id']}")
    response = JsonResponse(_status_json(run, request), status=202)
    response["Location"] = reverse("stats-run", args=[run["id"]])
    return response


@require_GET
def run_detail(request, run_id: str):
    """A simulation's progress; once done, its report and its charts (``html``)."""
    run = run_status(run_id)
    if run is None:
        detail = "There is no simulation with this id; a run is kept for an hour."
        return JsonResponse({"detail": detail}, status=404)
    return JsonResponse(_status_json(run, request))
