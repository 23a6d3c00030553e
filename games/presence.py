"""Who is online in the lobby, and who is here at each table: each open socket, in Django's
cache (shared by every process when REDIS_URL selects Redis; this process's memory by default).

Each socket is one entry, so a player with two lobby tabs stays online until both are closed:
its name (None for a visitor who has chosen none: counted as a guest watching, never named),
the address of its account's profile (None for a guest), and when it was last seen. A socket
refreshes its entry every ``LOBBY_HEARTBEAT_S`` and removes it when it closes; an entry not
refreshed for ``LOBBY_PRESENCE_TTL_S`` (a server that died with its sockets) is dropped.

A table counts the sockets that hold one of its seats (a browser's or a token client's), by
seat name; watchers are not counted. The lobby's entries share one cache key, and each table's
share one of their own, read, changed and written back, one change at a time in a process:
two sockets of two processes that arrive in the same instant may lose one entry, which that
socket's next heartbeat writes again.
"""

from __future__ import annotations

import math
import threading
import time
import uuid

from django.conf import settings
from django.core.cache import cache

KEY = "lobby-online"


def table_key(game_id: int) -> str:
    """The entries of a game's sockets that hold a seat: who is here at that table."""
    return f"table-here-{game_id}"


def ttl() -> float:
    return float(settings.LOBBY_PRESENCE_TTL_S)


def _fresh(entries: dict | None, now: float) -> dict:
    if not isinstance(entries, dict):
        return {}
    return {
        member: entry for member, entry in entries.items() if now - entry.get("seen", 0) <= ttl()
    }


def shown(entries: dict) -> dict:
    """The online list as the lobby shows it: the names (each once, in name order, with the
    account's profile address or None) and how many guests with no name watch."""
    names: dict[str, str | None] = {}
    guests = 0
    for entry in entries.values():
        name = entry.get("name")
        if name is None:
            guests += 1
        elif names.get(name) is None:
            names[name] = entry.get("url")
    online = [{"name": name, "url": names[name]} for name in sorted(names, key=str.casefold)]
    return {"online": online, "guests": guests}


def _write(key: str, entries: dict) -> None:
    # Whole seconds, and at least 1: Redis rounds a timeout down, and 0 would drop the key at
    # once (entries older than the presence time are skipped as they are read anyway).
    cache.set(key, entries, timeout=math.ceil(ttl() * 2) + 1)


# Each change reads the entries, changes them and writes them back: one at a time in a process
# (sockets arriving together run on several threads), so none is lost there.
_changing = threading.Lock()


def _arrive(key: str, member: str, entry: dict) -> dict:
    with _changing:
        now = time.time()
        entries = _fresh(cache.get(key), now)
        entries[member] = {**entry, "seen": now}
        _write(key, entries)
    return entries


def _leave(key: str, member: str) -> dict:
    with _changing:
        entries = _fresh(cache.get(key), time.time())
        if entries.pop(member, None) is not None:
            _write(key, entries)
    return entries


def lobby_online() -> dict:
    """Who is online in the lobby now (`shown`)."""
    return shown(_fresh(cache.get(KEY), time.time()))


def lobby_arrive(member: str, name: str | None, url: str | None) -> dict:
    """Count a lobby socket as online (or say it is still there); who is online now."""
    return shown(_arrive(KEY, member, {"name": name, "url": url}))


def lobby_leave(member: str) -> dict:
    """A lobby socket closed; who is online now."""
    return shown(_leave(KEY, member))


def _here(entries: dict) -> list[str]:
    return sorted({entry["name"] for entry in entries.values()}, key=str.casefold)


def table_here(game_id: int) -> list[str]:
    """The seats of a game with a socket open now, by name (a player with two tabs once)."""
    return _here(_fresh(cache.get(table_key(game_id)), time.time()))


def table_arrive(game_id: int, member: str, name: str) -> list[str]:
    """Count a seat's socket as here (or say it still is); who is here now."""
    return _here(_arrive(table_key(game_id), member, {"name": name}))


def table_leave(game_id: int, member: str) -> list[str]:
    """A seat's socket closed; who is here now."""
    return _here(_leave(table_key(game_id), member))


def tables_with_someone_here(game_ids) -> set[int]:
    """The games among `game_ids` with a seat's socket open now (one cache read for all)."""
    keys = {table_key(game_id): game_id for game_id in game_ids}
    now = time.time()
    return {
        keys[key] for key, entries in cache.get_many(list(keys)).items() if _fresh(entries, now)
    }


STREAMS_KEY = "event-streams-by-process"
"""The accounts' open event streams (accounts.events), shared by every process: one entry a
process, the accounts of its open streams. (The key is not the one of the earlier format, one
entry a stream: during a rolling deploy an old process reads neither format's entries wrongly;
each lists the streams of its own kind of process until the deploy ends.)"""

# This process's entry among STREAMS_KEY's, and its open streams (member: account id). A
# stream's arrival, its heartbeat and its end change the process's list here; the shared value
# is written when the list of accounts changes, and otherwise at most every half heartbeat to
# keep the entry fresh. Each of 400 streams rewrote its own entry of the one value at each of
# its heartbeats: 20 reads and writes of a value of 400 entries a second (bench/bench_arena.py).
PROCESS = uuid.uuid4().hex
_streams: dict[str, int] = {}
_streams_written: dict = {"users": None, "at": 0.0}
_streams_guard = threading.Lock()


def _write_streams(*, refresh: bool) -> None:
    """Write this process's entry when its accounts changed (or, with `refresh`, when it was
    written longer than half a heartbeat ago); remove it once no stream is open here."""
    with _streams_guard:
        users = sorted(set(_streams.values()))
        now = time.time()
        unchanged = users == _streams_written["users"]
        if unchanged and not (
            refresh and now - _streams_written["at"] >= settings.LOBBY_HEARTBEAT_S / 2
        ):
            return
        if users:
            _arrive(STREAMS_KEY, PROCESS, {"users": users})
        else:
            _leave(STREAMS_KEY, PROCESS)
        _streams_written.update(users=users, at=now)


def stream_arrive(member: str, user_id: int) -> None:
    """Count an account's event stream as open (or say it still is)."""
    with _streams_guard:
        _streams[member] = user_id
    _write_streams(refresh=True)


def stream_leave(member: str) -> None:
    """An account's event stream ended."""
    with _streams_guard:
        _streams.pop(member, None)
    _write_streams(refresh=False)


def streams_open() -> set[int]:
    """The accounts (their ids) with an event stream open now, in any process."""
    entries = _fresh(cache.get(STREAMS_KEY), time.time()).values()
    return {user for entry in entries for user in entry.get("users", ())}
