"""The SQL of every read and write of the store, written once for both databases (SQLite's
placeholders are made from these): the only module that writes games, seats and moves."""

from __future__ import annotations

from games.store.base import HEAD_COLUMNS

_SEAT_REF = "id, game_id, player_id, number, name, token, is_computer, protocol, credential"
_SEAT_BY_TOKEN = f"SELECT {_SEAT_REF} FROM games_seat WHERE token = %s"
_SEAT_BY_PLAYER = (
    f"SELECT {_SEAT_REF} FROM games_seat WHERE game_id = %s AND player_id = %s ORDER BY number"
)
# The head, and the state only when the cached one (of the version given) is not current.
_HEAD = (
    f"SELECT {', '.join(HEAD_COLUMNS)}, "
    "CASE WHEN version = %s THEN NULL ELSE state END FROM games_game WHERE id = %s"
)
_ROW = "SELECT options, is_default, created, updated, finished FROM games_game WHERE id = %s"
# A seat's last column: whether its player has an account (a join's answer says who is a guest).
_SEATS = (
    "SELECT s.id, s.number, s.name, s.score, s.is_computer, s.protocol, s.computer, "
    "p.user_id IS NOT NULL FROM games_seat s JOIN games_player p ON p.id = s.player_id "
    "WHERE s.game_id = %s ORDER BY s.number"
)
_VERSION = "SELECT version FROM games_game WHERE id = %s"
_DEFAULT = "SELECT id FROM games_game WHERE is_default"
_INSERT_GAME = (
    "INSERT INTO games_game (kind, options, seed, status, version, state, is_open, is_default, "
    "deadline_ms, has_computers, created_ms, created, updated, finished, rated, link_key, "
    "maker) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
_INSERT_PLAYER = (
    "INSERT INTO games_player (name, session_key, is_computer, created, user_id) "
    "VALUES (%s, '', %s, %s, NULL)"
)
_INSERT_SEAT = (
    "INSERT INTO games_seat (game_id, player_id, number, name, score, token, is_computer, "
    "protocol, computer, joined, credential) VALUES (%s, %s, %s, %s, 0, %s, %s, %s, %s, %s, %s)"
)
_INSERT_MOVE = (
    "INSERT INTO games_move (game_id, seq, seat_id, actor, action, outcome, at_ms, created) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)
# Ratings (games.ratings): read and written only by the job of a game's last move.
_RATED = "SELECT rated, options FROM games_game WHERE id = %s"
_IS_RATED = "SELECT rated FROM games_game WHERE id = %s"
_ACCOUNT = "SELECT user_id FROM games_player WHERE id = %s"
_SEATED_ACCOUNTS = (
    "SELECT p.user_id FROM games_seat s JOIN games_player p ON p.id = s.player_id "
    "WHERE s.game_id = %s AND p.user_id IS NOT NULL"
)
_RATED_SEATS = (
    "SELECT s.name, p.user_id, s.is_computer FROM games_seat s "
    "JOIN games_player p ON p.id = s.player_id WHERE s.game_id = %s ORDER BY s.number"
)
_UPSERT_RATING = (
    "INSERT INTO games_rating (user_id, mode, mu, sigma, games, updated) "
    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (user_id, mode) DO UPDATE SET "
    "mu = excluded.mu, sigma = excluded.sigma, games = excluded.games, updated = excluded.updated"
)


def _ratings_start(count: int) -> str:
    """A starting rating for each account that has none in the mode (one that has is left)."""
    rows = ", ".join(["(%s, %s, %s, %s, 0, %s)"] * count)
    return (
        "INSERT INTO games_rating (user_id, mode, mu, sigma, games, updated) "
        f"VALUES {rows} ON CONFLICT (user_id, mode) DO NOTHING"
    )


def _ratings_start_params(op, now) -> list:
    params: list = []
    for user_id in op.user_ids:
        params += [user_id, op.mode, *op.start, now]
    return params


def _ratings_read(count: int, *, lock: bool = False) -> str:
    """The accounts' ratings in a mode; `lock` (PostgreSQL): read locked until the job ends, so
    two games ending at once for one account do not both start from its old rating (SQLite's
    writes are one at a time already)."""
    return (
        "SELECT user_id, mu, sigma, games FROM games_rating WHERE mode = %s "
        f"AND user_id IN ({', '.join(['%s'] * count)})" + (" FOR UPDATE" if lock else "")
    )


def _rating_changes(game_id, mode, changes, now) -> tuple[str, list]:
    """The game's rating changes, none if it has any already (a retried write)."""
    rows = ", ".join(["(%s, %s, %s, %s, %s, %s, %s, %s, %s)"] * len(changes))
    params = []
    for c in changes:
        params += [game_id, c.user_id, mode, c.rank, c.mu_before, c.sigma_before]
        params += [c.mu_after, c.sigma_after, now]
    sql = (
        "INSERT INTO games_ratingchange (game_id, user_id, mode, rank, mu_before, sigma_before, "
        f"mu_after, sigma_after, created) VALUES {rows} ON CONFLICT (game_id, user_id) DO NOTHING"
    )
    return sql, params


def _rating_rows(mode, changes, now) -> list[tuple]:
    return [(c.user_id, mode, c.mu_after, c.sigma_after, c.games, now) for c in changes]


_UPDATE_SCORE = "UPDATE games_seat SET score = %s WHERE game_id = %s AND name = %s"
_UPDATE_COMPUTER = "UPDATE games_seat SET computer = %s WHERE game_id = %s AND name = %s"


def _update_game(change) -> str:
    extra = ""
    if change.ended:
        extra += ", finished = %s"
    if change.has_computers is not None:
        extra += ", has_computers = %s"
    if change.is_default is not None:
        extra += ", is_default = %s"
    return (
        "UPDATE games_game SET state = %s, version = %s, status = %s, deadline_ms = %s, "
        f"updated = %s{extra} WHERE id = %s AND version = %s"
    )


def _update_params(change, now, adapt) -> list:
    params = [adapt(change.state), change.version, change.status, change.deadline_ms, now]
    if change.ended:
        params.append(now)
    if change.has_computers is not None:
        params.append(change.has_computers)
    if change.is_default is not None:
        params.append(change.is_default)
    return [*params, change.game_id, change.from_version]


def _insert_params(game, now, adapt) -> tuple:
    return (
        game.kind,
        adapt(game.options),
        game.seed,
        game.status,
        len(game.steps),
        adapt(game.state),
        game.is_open,
        game.is_default,
        game.deadline_ms,
        False,
        game.created_ms,
        now,
        now,
        now if game.status == "over" else None,
        game.rated,
        game.link_key,
        game.maker,
    )


def _seat_params(game_id, new, now, adapt) -> tuple:
    """A new seat's row (`_INSERT_SEAT`), its player known."""
    return (
        game_id,
        new.player_id,
        new.number,
        new.name,
        new.token,
        new.is_computer,
        new.protocol,
        adapt(new.computer),
        now,
        new.credential,
    )


def _move_rows(game_id, change_or_game, first_seq, created, adapt, seat_of=lambda step: None):
    return [
        (
            game_id,
            first_seq + n,
            seat_of(step),
            step.actor,
            adapt(step.action),
            adapt(step.result.outcome),
            step.at,
            created,
        )
        for n, step in enumerate(change_or_game.steps, 1)
    ]


def _change_statement(change, now, jsonb) -> tuple[str, list]:
    """One statement: the game's row, if its version is still the planned one, and with it a
    join's player and seat, the moves, the scores and the computers' clocks (data-modifying
    CTEs run once, whether read or not; none writes if the row was not updated)."""
    sql = [f"WITH g AS ({_update_game(change)} RETURNING id)"]
    params = _update_params(change, now, jsonb)
    new = change.new_seat
    seat_id = "v.seat_id"
    if new is not None:
        if new.player_id is None:
            sql.append(
                ", p AS (INSERT INTO games_player (name, session_key, is_computer, created, "
                "user_id) SELECT %s, '', %s, %s, NULL FROM g RETURNING id)"
            )
            params += [new.name, new.is_computer, now]
            player = "p.id"
            source = "g, p"
        else:
            player, source = "%s", "g"
            params_player = [new.player_id]
        sql.append(
            ", ns AS (INSERT INTO games_seat (game_id, player_id, number, name, score, token, "
            "is_computer, protocol, computer, joined, credential) "
            f"SELECT g.id, {player}, %s, %s, 0, %s, %s, %s, %s, %s, %s "
            f"FROM {source} RETURNING id, player_id)"
        )
        if new.player_id is not None:
            params += params_player
        params += [new.number, new.name, new.token, new.is_computer, new.protocol]
        params += [jsonb(new.computer), now, new.credential]
        seat_id = "CASE WHEN v.new THEN (SELECT id FROM ns) ELSE v.seat_id END"
    if change.steps:  # (a change of the computers' clocks alone writes no move)
        rows = ", ".join(
            [
                "(%s::integer, %s::bigint, %s::boolean, %s::varchar, %s::jsonb, %s::jsonb, "
                "%s::bigint)"
            ]
            * len(change.steps)
        )
        sql.append(
            ", m AS (INSERT INTO games_move (game_id, seq, seat_id, actor, action, outcome, "
            f"at_ms, created) SELECT g.id, v.seq, {seat_id}, v.actor, v.action, v.outcome, "
            f"v.at_ms, %s FROM g, (VALUES {rows}) AS v(seq, seat_id, new, actor, action, "
            "outcome, at_ms))"
        )
        params.append(now)
    for n, step in enumerate(change.steps, 1):
        params += [
            change.from_version + n,
            None if step.seat is new else step.seat_id,
            new is not None and step.seat is new,
            step.actor,
            jsonb(step.action),
            jsonb(step.result.outcome),
            step.at,
        ]
    seats = sorted(set(change.scores) | set(change.computers))
    if seats:
        # One update of the seats: PostgreSQL applies only one of two updates of a row made
        # by one statement.
        values = ", ".join(["(%s::varchar, %s::integer, %s::jsonb)"] * len(seats))
        sql.append(
            ", s AS (UPDATE games_seat SET score = coalesce(v.score, games_seat.score), "
            "computer = coalesce(v.computer, games_seat.computer) "
            f"FROM g, (VALUES {values}) AS v(name, score, computer) "
            "WHERE games_seat.game_id = g.id AND games_seat.name = v.name)"
        )
        for name in seats:
            clock = change.computers.get(name)
            params += [name, change.scores.get(name), None if clock is None else jsonb(clock)]
    made = "(SELECT id FROM ns), (SELECT player_id FROM ns)" if new is not None else "NULL, NULL"
    sql.append(f" SELECT count(*), {made} FROM g")
    return "".join(sql), params


_JOIN_READ = (
    f"SELECT {', '.join(HEAD_COLUMNS)}, "
    "CASE WHEN version = %s THEN NULL ELSE state END, "
    "options, is_default, created, updated, finished, "
    "(SELECT coalesce(json_agg(json_build_array(s.id, s.number, s.name, s.score, s.is_computer, "
    "s.protocol, s.computer, p.user_id IS NOT NULL) ORDER BY s.number), '[]') "
    "FROM games_seat s JOIN games_player p ON p.id = s.player_id "
    "WHERE s.game_id = games_game.id) FROM games_game WHERE id = %s"
)


def _pg_insert(game, now, jsonb) -> tuple[str, list]:
    """A new game, its seats (a table made seated: their players exist) and its moves, in one
    statement; it answers the game's id, its time and its seats' ids in their order."""
    sql = f"WITH g AS ({_INSERT_GAME} RETURNING id, created)"
    params = list(_insert_params(game, now, jsonb))
    seat_id = "NULL::integer"
    if game.seats:
        # Each seat's row as `_INSERT_SEAT` takes it; its game and time are the new game's.
        rows = ", ".join(
            [
                "(%s::integer, %s::integer, %s::integer, %s::varchar, %s::varchar, %s::boolean, "
                "%s::boolean, %s::jsonb, %s::timestamptz, %s::varchar)"
            ]
            * len(game.seats)
        )
        sql += (
            ", ns AS (INSERT INTO games_seat (game_id, player_id, number, name, score, token, "
            "is_computer, protocol, computer, joined, credential) SELECT g.id, v.player, "
            "v.number, v.name, 0, v.token, v.is_computer, v.protocol, v.computer, g.created, "
            f"v.credential FROM g, (VALUES {rows}) AS v(game, player, number, name, token, "
            "is_computer, protocol, computer, joined, credential) RETURNING id, number)"
        )
        for new in game.seats:
            params += _seat_params(None, new, None, jsonb)
        seat_id = "(SELECT ns.id FROM ns WHERE ns.number = v.seat)"
    if game.steps:
        rows = ", ".join(
            ["(%s::bigint, %s::integer, %s::varchar, %s::jsonb, %s::jsonb, %s::bigint)"]
            * len(game.steps)
        )
        sql += (
            ", m AS (INSERT INTO games_move (game_id, seq, seat_id, actor, action, outcome, "
            f"at_ms, created) SELECT g.id, v.seq, {seat_id}, v.actor, v.action, v.outcome, "
            f"v.at_ms, g.created FROM g, (VALUES {rows}) AS v(seq, seat, actor, action, "
            "outcome, at_ms))"
        )
        for n, step in enumerate(game.steps, 1):
            seat = step.seat.number if game.seats and step.seat is not None else None
            params += [n, seat, step.actor, jsonb(step.action), jsonb(step.result.outcome)]
            params.append(step.at)
    seats = "(SELECT array_agg(id ORDER BY number) FROM ns)" if game.seats else "NULL"
    return sql + f" SELECT id, created, {seats} FROM g", params


def _pg_inserted(game, row) -> tuple:
    """What an insert answers (the game's id and time), its new seats' ids kept on them."""
    game_id, created, seat_ids = row
    for new, pk in zip(game.seats, seat_ids or (), strict=False):
        new.pk = pk
    return game_id, created


# Arena tournaments (games.arena): read and written only by the job of a game's last move.
_ARENA_GAME = (
    "SELECT t.tournament_id, g.options FROM games_tournamentgame t "
    "JOIN games_game g ON g.id = t.game_id WHERE t.game_id = %s AND NOT t.scored"
)
_ARENA_SCORED = "UPDATE games_tournamentgame SET scored = %s WHERE game_id = %s AND NOT scored"
_ARENA_SCORE = (
    "INSERT INTO games_tournamentscore (tournament_id, game_id, user_id, place, placement, "
    "on_fire, points, created) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)
_ARENA_PLAYER = (
    "UPDATE games_tournamentplayer SET points = points + %s, games = games + 1, "
    "wins = wins + %s, streak = %s, waiting_since = %s WHERE tournament_id = %s AND user_id = %s"
)


def _arena_streaks(count: int, *, lock: bool = False) -> str:
    """The players' streaks in a tournament; `lock` (PostgreSQL): held until the job ends."""
    return (
        "SELECT user_id, streak FROM games_tournamentplayer WHERE tournament_id = %s "
        f"AND user_id IN ({', '.join(['%s'] * count)})" + (" FOR UPDATE" if lock else "")
    )


def _arena_rows(game_id, tournament_id, scores, now) -> tuple[list, list]:
    """The score rows and the player updates of a scored game."""
    inserted = [
        (tournament_id, game_id, s.who, s.place, s.placement, s.on_fire, s.points, now)
        for s in scores
    ]
    updated = [(s.points, int(s.won), s.streak, now, tournament_id, s.who) for s in scores]
    return inserted, updated
