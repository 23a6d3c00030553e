"""Reads: lists of games, one game as a seat sees it, the move log, exports."""

from __future__ import annotations

import datetime
from typing import NamedTuple

from django.db import connection
from django.db.models import Prefetch, Q, QuerySet, prefetch_related_objects
from django.urls import reverse

from games import ghosts, ratings, runtime, store
from games.errors import Conflict, NotFound
from games.models import (
    ONLY_YOU,
    Block,
    BotAccount,
    ChatMessage,
    Game,
    Move,
    Player,
    Rating,
    RatingChange,
    Rematch,
    Seat,
)
from games.rules import get_rules
from games.store import TableHead, head_of
from games.story import card_hiding as story_card_hiding
from games.story import withheld


def seats_with_players() -> Prefetch:
    """A game's seats with their players (whose accounts say which seats are guests', and
    which are bots')."""
    return Prefetch("seats", queryset=Seat.objects.select_related(*SEAT_PLAYER))


# What a seat is read with to show it: its player, the player's account and whether that
# account is a bot (one join each, no query more).
SEAT_PLAYER = ("player", "player__user__bot")


class Seated(NamedTuple):
    """Who reads a list of games, as what they sit at: these players' seats, these games."""

    players: tuple[int, ...] = ()
    games: tuple[int, ...] = ()


NOBODY = Seated()  # a reader who sits nowhere


def visible_to(seated: Seated = NOBODY) -> Q:
    """The games anyone may see, and the private ones where `seated` sits."""
    visible = Q(link_key="")
    if seated.players:
        visible |= Q(pk__in=Seat.objects.filter(player_id__in=seated.players).values("game_id"))
    if seated.games:
        visible |= Q(pk__in=seated.games)
    return visible


def game_list(
    *, kind: str | None = None, status: str | None = None, is_open=None, seated=NOBODY
) -> QuerySet:
    """Games newest first: anyone's, and the private games where `seated` sits."""
    games = (
        Game.objects.filter(visible_to(seated))
        .prefetch_related(seats_with_players())
        .order_by("-id")
    )
    if kind:
        games = games.filter(kind=kind)
    if status:
        games = games.filter(status=status)
    if is_open is not None:
        games = games.filter(is_open=is_open)
    return games


def with_state(game: Game) -> Game:
    """Fill in a game row read without its state, from the cache when current."""
    state = runtime.cached_state(game.pk, game.version)
    if state is None:
        version, state = Game.objects.values_list("version", "state").get(pk=game.pk)
        # Only committed data is cached: a read inside a transaction may yet be rolled back.
        if version == game.version and not connection.in_atomic_block:
            runtime.remember_head(head_of(game, state))
    game.state = state
    return game


def table_head(*, game_id: int | None = None, default: bool = False) -> TableHead | None:
    """Read one game's head (by id, or the default table) and its state, for reads only."""
    if default:
        game_id = store.read("default_id")
        if game_id is None:
            return None
    head, _row, _seats = store.read("read_head", store.ReadHead(game_id))
    # Only committed data is cached: a read inside a transaction may yet be rolled back.
    if head is not None and not connection.in_atomic_block:
        runtime.remember_head(head)
    return head


def head_from_message(message: dict, now: int) -> TableHead | None:
    """The game as a change message (services.change_message) describes it, when this process
    knows its state at that version; None (read the game) when it does not, or when a deadline
    is due (the read applies it: game_fresh)."""
    head = runtime.cached_head(message["game"])
    deadline = message.get("deadline_ms")
    if head is None or head.version != message["version"]:
        return None
    if deadline is not None and now >= deadline:
        return None
    return head


def unique_row(queryset):
    """The one row of a look-up by a unique key, or None: as ``first()`` finds it, without the
    ORDER BY that ``first()`` compiles (a third of such a query's cost on Django's thread)."""
    rows = list(queryset.order_by()[:1])
    return rows[0] if rows else None


def is_row_id(game_id) -> bool:
    """Whether a value can be a game's id: a whole number that fits a 64-bit row id (SQLite
    cannot even bind a larger one)."""
    return isinstance(game_id, int) and not isinstance(game_id, bool) and 0 < game_id < 2**63


def game_id_of(game_id) -> int:
    """A game id from a URL or a message (digits or a number), or the not-found error."""
    try:
        number = int(game_id)
    except (ValueError, TypeError, OverflowError):
        number = None
    if not is_row_id(number):
        raise NotFound(f"There is no game with id {game_id}.")
    return number


def game_head(game_id) -> TableHead:
    """The game's head (its state from the cache when current), or the not-found error."""
    head = table_head(game_id=game_id_of(game_id))
    if head is None:
        raise NotFound(f"There is no game with id {game_id}.")
    return head


def game_row(game_id) -> Game:
    """The game's row without its state (what a summary shows), or the not-found error."""
    try:
        return Game.objects.defer("state").get(pk=game_id_of(game_id))
    except Game.DoesNotExist:
        raise NotFound(f"There is no game with id {game_id}.") from None


def game_get(game_id) -> Game:
    return with_state(game_row(game_id))


def page_url(kind: str, game_id: int) -> str:
    """A game's own page: its kind's (`page`, a URL name), else the replay page."""
    return reverse(getattr(get_rules(kind), "page", "replay"), args=[game_id])


def rematch_url(game: Game) -> str | None:
    """The page of the game this finished game is being played again at, if any (a private
    one's with its key: whoever sees the old game may see the new one)."""
    known = Rematch.objects.filter(game=game).select_related("next_game").first()
    if known is None:
        return None
    return keyed_url(page_url(known.next_game.kind, known.next_game_id), known.next_game.link_key)


def keyed_url(url: str, link_key: str) -> str:
    """A page's address as a link to share: a private game's carries its key."""
    if not link_key:
        return url
    return f"{url}{'&' if '?' in url else '?'}key={link_key}"


def game_view(game: Game, *, seat_name: str | None, now: int) -> dict:
    """What a seat (None: a watcher) sees of a stored game (a Game or a head). Where the rules
    say what a seat's view adds to a watcher's (``seat_view``), the watcher's view of a version
    is drawn once and shared by every seat's, for a moment (games.runtime.rendered): the four
    seats of a table each sent the change draw one view, not four. The views share their parts
    that way: a caller reads a view (and renders it), never changes it."""
    rules = get_rules(game.kind)
    own = getattr(rules, "seat_view", None) if seat_name is not None else None
    fields = own(game.state, seat_name, now) if own is not None and game.pk else None
    if fields is None:
        return _with_ghost(game, rules.view(game.state, seat_name, now))
    key = ("watcher-view", game.pk, game.version)
    watcher = runtime.rendered(key)
    if watcher is None:
        watcher = rules.view(game.state, None, now)
        runtime.remember_rendered(key, watcher)
    # Not in the shared watcher's view: a view drawn on an event loop may lack the result.
    return _with_ghost(game, {**watcher, **fields})


def _with_ghost(game, view: dict) -> dict:
    """A ghost race's view with its ghost and, once over, the result (games.ghosts)."""
    extra = ghosts.view_fields(game.pk, game.kind, bool(view.get("over"))) if game.pk else {}
    return {**view, **extra} if extra else view


def move_reply(result, *, seat_name: str, now: int) -> dict:
    """The JSON API's answer to an accepted move (MovesView.post and games.api_fast)."""
    return {
        "outcome": result.outcome,
        "event": result.event,
        "version": result.game.version,
        "view": game_view(result.game, seat_name=seat_name, now=now),
    }


def moves_list(game: Game, *, since: int = 0) -> QuerySet:
    return Move.objects.filter(game=game, seq__gt=since).order_by("seq")


def move_json(move: Move, outcome: dict | None = None) -> dict:
    """A logged move as the API shows it, with its `outcome` as the reader may see it (by
    default the whole of it: see `outcomes_for`)."""
    return {
        "seq": move.seq,
        "actor": move.actor,
        "seat": move.seat.number if move.seat_id and move.seat else None,
        "action": move.action,
        "outcome": move.outcome if outcome is None else outcome,
        "at_ms": move.at_ms,
        "created": move.created.isoformat(),
    }


def card_hiding(game: Game):
    """The kind's ``hidden_fields`` while ``game``'s cards are hidden from everyone (a paused
    Set practice table), else None (games.story.card_hiding: its row's state is read only for
    a game whose options can hide its cards)."""
    over = game.status == Game.Status.OVER
    return story_card_hiding(game.kind, game.options, lambda: game.state, over=over)


def outcomes_for(game: Game, seat_id: int | None, *, everything: bool = False):
    """How a reader sees the outcomes of a game's moves: a function of a move, or None when
    every outcome is shown whole.

    What a move told its seat alone (a Set hint's card: its kind's `private_fields`) is that
    seat's until the game is over; anyone else, watchers included, reads the rest of the
    outcome and ``"withheld"``, the names of the fields left out. While the game's cards are
    hidden (`card_hiding`), every field naming a card is withheld from everyone. `seat_id` is
    the reader's seat at the game (None: a watcher); `everything` shows all (the admin's
    staff)."""
    private_fields = getattr(get_rules(game.kind), "private_fields", None)
    if everything or private_fields is None or game.status == Game.Status.OVER:
        return None
    hiding = card_hiding(game)

    def shown(move: Move) -> dict:
        outcome = move.outcome
        if move.seat_id is not None and move.seat_id != seat_id:
            outcome = withheld(private_fields, outcome)
        return outcome if hiding is None else withheld(hiding, outcome)

    shown.hiding = hiding  # type: ignore[attr-defined]  # moves_json withholds actions too
    return shown


def moves_json(moves, shown=None) -> list[dict]:
    """Moves as the API shows them, each outcome as `shown` (outcomes_for) lets the reader (and
    each action, while the game's cards are hidden)."""
    if shown is None:
        return [move_json(move) for move in moves]
    hiding = getattr(shown, "hiding", None)
    answer = [move_json(move, shown(move)) for move in moves]
    if hiding is not None:
        for item in answer:
            item["action"] = withheld(hiding, item["action"])
    return answer


def is_guest_seat(seat) -> bool:
    """Whether a seat is a guest's: a person's whose player has no account (a Seat, or a new
    computer's seat, never a guest)."""
    if seat.is_computer:
        return False
    return seat.player.user_id is None


def is_bot_seat(seat) -> bool:
    """Whether a seat is played by a bot: a computer's (each speed a bot account of its own),
    or a bot account's (games.bots). A Seat read with SEAT_PLAYER asks nothing more; a new
    seat the write path knows, with no player read, is a bot only if a computer's."""
    if seat.is_computer:
        return True
    player = getattr(seat, "player", None) if isinstance(seat, Seat) else None
    if player is None or player.user_id is None:
        return False
    try:
        return player.user.bot is not None
    except BotAccount.DoesNotExist:
        return False


def bot_seat_numbers(game_id: int) -> set[int]:
    """The numbers of a game's seats that bots play (is_bot_seat), in one query."""
    seats = Seat.objects.filter(game_id=game_id).filter(
        Q(is_computer=True) | Q(player__user__bot__isnull=False)
    )
    return set(seats.values_list("number", flat=True))


def seat_json(seat) -> dict:
    """A seat as the API shows it (a Seat, or a seat the write path knows: a new one has 0)."""
    return {
        "number": seat.number,
        "name": seat.name,
        "score": getattr(seat, "score", 0),
        "is_computer": seat.is_computer,
        "guest": is_guest_seat(seat),
        "bot": is_bot_seat(seat),
    }


def public_options(options: dict) -> dict:
    """Options as anyone may see them: a fixed deck shows its size, never its order."""
    if "deck" not in options:
        return options
    shown = {key: value for key, value in options.items() if key != "deck"}
    # A row stored before options were checked at creation may hold anything here.
    deck = options["deck"]
    shown["deck_size"] = len(deck) if isinstance(deck, list) else 0
    return shown


def game_badges(game: Game) -> list[str]:
    """The words a game's kind shows as badges beside its description ("practice"), for every
    list and page of the game."""
    badges = getattr(get_rules(game.kind), "badges", None)
    return badges(game.options or {}) if badges is not None else []


def rated_now(game: Game, state: dict | None = None) -> tuple[bool, str | None]:
    """Whether a game rates its players (as far as is known now: a live table created rated
    still does until something unrates it), and, for a game created rated that does not, why
    ("Tim took a hint."): games.ratings.unrated_reason, the one judge. A game not created
    rated: (False, None), and nothing is read."""
    if not game.rated:
        return False, None
    prefetch_related_objects([game], seats_with_players())
    seated = [
        ratings.Seated(seat.name, seat.player.user_id if seat.player else None, seat.is_computer)
        for seat in game.seats.all()
    ]
    why = ratings.unrated_reason(
        game.kind,
        game.options or {},
        game.state if state is None else state,
        seated,
        over=game.status == Game.Status.OVER,
    )
    return why is None, why


def game_summary(game: Game, seats: list[dict] | None = None) -> dict:
    """A game as the API lists it; `seats` (seat_json of each, by number) when known already."""
    if seats is None:
        # One query for the seats and their players (whose accounts mark guests), or none when a
        # list or an export fetched them already.
        prefetch_related_objects([game], seats_with_players())
        seats = [seat_json(seat) for seat in game.seats.all()]
    rated, unrated = rated_now(game)
    return {
        "id": game.pk,
        "kind": game.kind,
        "options": public_options(game.options),
        "status": game.status,
        "version": game.version,
        "is_open": game.is_open,
        "is_default": game.is_default,
        "rated": rated,
        "unrated": unrated,
        # Shown only to whoever may see the game: its seats, and who brought the key.
        "key": game.link_key or None,
        "seats": seats,
        "created": game.created.isoformat(),
        "updated": game.updated.isoformat(),
        "finished": game.finished.isoformat() if game.finished else None,
    }


def game_replay(
    game: Game,
    *,
    start: int = 0,
    limit: int | None = None,
    seat_id: int | None = None,
    reader: int | None = None,
) -> dict:
    """Every step of a game with the board as it was: step 0 is the deal, then one per move.

    With `limit`, only steps `start` to `start + limit - 1` are described, with the `total` and
    the `next_start` (a Set War draw has 10,001 steps); moves after the page are not read. Each
    step's board is a watcher's, and its outcome as the reader (`seat_id`) may see it; its chat
    as the account `reader` reads it (without the lines of the accounts it blocked).
    """
    shown = outcomes_for(game, seat_id)
    from games.replay import replay_states

    rules = get_rules(game.kind)
    # A game whose cards are hidden now (a paused practice table) shows no step: the one before
    # the pause holds the cards on the table.
    if card_hiding(game) is not None:
        raise Conflict("The game is paused: its replay is back when the game resumes.")
    view_of = rules.view
    if game.status == Game.Status.OVER and hasattr(rules, "replay_view"):
        # A finished game shows everything, even what its players could not see while it was
        # played (Memory's face-down cards): the kind says how.
        view_of = lambda state, actor, at: rules.replay_view(state, at)  # noqa: E731
    moves = game.moves.select_related("seat").order_by("seq")
    total = None
    if limit is not None:
        total = game.moves.count() + 1
        moves = moves[: max(start + limit - 1, 0)]
    steps = []
    for index, (move, state) in enumerate(replay_states(game, list(moves))):
        if index < start:
            continue
        at = move.at_ms if move else game.created_ms
        step = (
            move_json(move, shown(move) if shown else None)
            if move
            else {
                "seq": 0,
                "actor": "",
                "seat": None,
                "action": {"type": "start"},
                "outcome": {},
                "at_ms": at,
                "created": game.created.isoformat(),
            }
        )
        step["view"] = view_of(state, None, at)
        steps.append(step)
    body = {"game": game_summary(game), "steps": steps, "chat": replay_chat(game, reader=reader)}
    if total is not None:
        following = start + len(steps)
        body.update(
            start=start,
            limit=limit,
            total=total,
            next_start=following if following < total else None,
        )
    return body


def replay_chat(game: Game, *, reader: int | None = None) -> list[dict]:
    """A game's chat for its replay: each message with its time in ms (`at_ms`), to place it
    among the steps; as the account `reader` reads it (`chat_for`)."""
    lines = chat_log(game.pk, limit=10_000, reader=reader)
    return [{**chat_json(m), "at_ms": m.at_ms} for m in lines]


def moves_with_seats() -> Prefetch:
    """A game's whole log in order, each move with its seat (for exports of many games: one
    query for all of their moves)."""
    return Prefetch("moves", queryset=Move.objects.select_related("seat").order_by("seq"))


def game_export(
    game: Game, *, full: bool, seat_id: int | None = None, hidden_players: frozenset = frozenset()
) -> dict:
    """Everything needed to rebuild the game elsewhere: seed, options and the whole log (read
    here, or prefetched with `moves_with_seats`).

    While a game is being played its seed, deck and state would tell the cards to come, so they
    are left out unless `full` (the game is over, or staff are asking); so is what a move told
    its seat alone, but to that seat (`seat_id`: outcomes_for). The chat leaves out the lines
    of `hidden_players` (`blocked_players`: the players of the accounts the reader blocked).
    """
    data = game_summary(game)
    prefetch_related_objects([game], moves_with_seats())  # nothing more if fetched already
    data["moves"] = moves_json(game.moves.all(), outcomes_for(game, seat_id, everything=full))
    data["created_ms"] = game.created_ms
    data["chat"] = chat_export(game, hidden_players=hidden_players)
    if full:
        data.update(options=game.options, seed=game.seed, state=game.state)
    else:
        data.update(seed=None, state=None)
    return data


# -- chat -----------------------------------------------------------------------------------------

CHAT_PAGE = 200  # messages a read of the chat log answers at most


def chat_at(at_ms: int) -> str:
    """When a chat message was written, as ISO 8601 in UTC to the millisecond."""
    moment = datetime.datetime.fromtimestamp(at_ms / 1000, tz=datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def chat_json(message: ChatMessage) -> dict:
    """A chat message as the API, the sockets and the pages show it; a line the word filter
    hid (shown to its writer only) says so."""
    shown = {
        "id": message.pk,
        "name": message.name,
        "text": message.text,
        "at": chat_at(message.at_ms),
        **({"removed": True} if message.removed else {}),
    }
    if message.hidden:
        shown.update(hidden=True, note=ONLY_YOU)
    return shown


def chat_for(game_id: int | None, reader: int | None = None, viewer_id: int | None = None):
    """A game's chat (None: the lobby's) as the account `reader` (a user's id, or None) and the
    player `viewer_id` read it: without the lines of the accounts `reader` blocked
    (games.moderation), nor those the word filter hid, which only their writer reads."""
    messages = ChatMessage.objects.filter(game_id=game_id).read_by(reader)  # None: the lobby's
    if viewer_id is None:
        return messages.filter(hidden=False)
    return messages.filter(Q(hidden=False) | Q(player_id=viewer_id))


def chat_log(
    game_id: int | None,
    since_id: int | None = None,
    limit: int = CHAT_PAGE,
    *,
    reader: int | None = None,
    viewer_id: int | None = None,
) -> list:
    """A game's chat (None: the lobby's), oldest first: the first `limit` messages after the
    message `since_id` (all of them from the start when None), as `reader` and `viewer_id`
    read it (`chat_for`)."""
    messages = chat_for(game_id, reader, viewer_id)
    if since_id:
        messages = messages.filter(id__gt=since_id)
    return list(messages.order_by("id")[: max(limit, 1)])


def chat_recent(
    game_id: int | None,
    limit: int = 50,
    *,
    reader: int | None = None,
    viewer_id: int | None = None,
) -> list:
    """The latest `limit` messages of a game's chat (None: the lobby's), oldest first: what a
    page shows when it opens, as `reader` and `viewer_id` read it (`chat_for`)."""
    messages = chat_for(game_id, reader, viewer_id)
    return list(reversed(messages.order_by("-id")[:limit]))


def chat_with_games() -> Prefetch:
    """A game's whole chat in order (for exports of many games: one query for all of them)."""
    return Prefetch(
        "chat_messages", queryset=ChatMessage.objects.filter(hidden=False).order_by("id")
    )


def chat_export(game: Game, *, hidden_players: frozenset = frozenset()) -> list[dict]:
    """A game's chat as its export shows it: name, text and when, in order (read here, or
    prefetched with `chat_with_games`), without the lines of `hidden_players`."""
    prefetch_related_objects([game], chat_with_games())
    return [
        {"name": m.name, "text": m.text, "at": chat_at(m.at_ms)}
        for m in game.chat_messages.all()
        if m.player_id not in hidden_players
    ]


def blocked_players(reader: int | None) -> frozenset[int]:
    """The players of the accounts the account `reader` blocked: whose chat its exports leave
    out (read once for a download of many games; most accounts block nobody: one query)."""
    if reader is None:
        return frozenset()
    blocked = Block.objects.filter(blocker_id=reader).values("blocked_id")
    return frozenset(Player.objects.filter(user_id__in=blocked).values_list("pk", flat=True))


# -- ratings ------------------------------------------------------------------------------------


def seat_ratings_of(games) -> dict[int, dict[str, dict]]:
    """The ratings of each rated game's account seats in its mode, by game id then seat name:
    {"rating", "games"} (an account with no rated game in the mode yet: the starting rating, 0
    games). One query for any number of games; none when no game was created rated (games not
    created rated, or of a kind never rated, are left out)."""
    modes = {}
    for game in games:
        mode = ratings.mode_of(game.kind, game.options) if game.rated else None
        if mode is not None:
            modes[game.pk] = mode
    if not modes:
        return {}
    # Each account seat with each of its account's ratings (a left join: one row per mode the
    # account has a rating in, or one row of nulls), whose game's mode is picked out here.
    rows = Seat.objects.filter(game_id__in=modes, player__user__isnull=False).values_list(
        "game_id",
        "name",
        "player__user__ratings__mode",
        "player__user__ratings__mu",
        "player__user__ratings__games",
    )
    shown: dict[int, dict[str, dict]] = {game_id: {} for game_id in modes}
    for game_id, name, mode, mu, games_rated in rows:
        seats = shown[game_id]
        if mode == modes[game_id]:
            seats[name] = {"rating": ratings.shown(mu), "games": games_rated}
        elif name not in seats:
            seats[name] = {"rating": ratings.shown(ratings.MU), "games": 0}
    return shown


def seat_ratings(game: Game) -> dict[str, dict]:
    """The ratings of a rated game's account seats in its mode, by seat name (seat_ratings_of):
    one query; empty for a game not created rated, and nothing is read. Once the game has rated
    its seats, each also says what the game did: "rating" is the one right after it and
    "change" how far it moved (two queries more)."""
    shown = seat_ratings_of([game]).get(game.pk, {})
    if not shown or game.status != Game.Status.OVER:
        return shown
    moved = {
        user: (before, after)
        for user, before, after in RatingChange.objects.filter(game=game).values_list(
            "user_id", "mu_before", "mu_after"
        )
    }
    if moved:
        names = Seat.objects.filter(game=game, player__user_id__in=moved)
        for name, user in names.values_list("name", "player__user_id"):
            before, after = moved[user]
            rating = ratings.shown(after)
            shown[name] = {
                **shown[name],
                "rating": rating,
                "change": rating - ratings.shown(before),
            }
    return shown


def seats_shown(game: Game, shown_ratings: dict[str, dict]) -> list[dict]:
    """A listed game's seats as the lists show them: the name, whether a computer's or a
    guest's, and the account's rating when the game is rated (seat_ratings_of's for the game).
    The game's seats and their players are read already (seats_with_players)."""
    return [
        {
            "name": seat.name,
            "score": seat.score,
            "is_computer": seat.is_computer,
            "guest": is_guest_seat(seat),
            "bot": is_bot_seat(seat),
            "rating": shown_ratings.get(seat.name),
        }
        for seat in game.seats.all()
    ]


def leaderboard(mode: str, *, bots: bool = False) -> dict:
    """The top accounts of a rated mode with at least MIN_GAMES rated games, best first: the
    people's, or with `bots` the bots' (the built-in computers among them)."""
    if mode not in ratings.modes():
        known = ", ".join(ratings.modes())
        raise NotFound(f"There is no rated mode {mode!r}; the rated modes are {known}.")
    rows = (
        Rating.objects.filter(mode=mode, games__gte=ratings.MIN_GAMES, user__bot__isnull=not bots)
        .order_by("-mu", "user_id")
        .values_list("user__username", "mu", "games")[: ratings.TOP]
    )
    players = [
        {"name": name, "rating": ratings.shown(mu), "games": games, "bot": bots}
        for name, mu, games in rows
    ]
    return {"mode": mode, "bots": bots, "players": players}
