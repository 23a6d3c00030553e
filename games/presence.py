"""Who is online in the lobby: each open lobby socket, in Django's cache (shared by every
process when REDIS_URL selects Redis; this process's memory by default).

Each socket is one entry, so a player with two lobby tabs stays online until both are closed:
its name (None for a visitor who has chosen none: counted as a guest watching, never named),
the address of its account's profile (None for a guest), and when it was last seen. A socket
refreshes its entry every ``LOBBY_HEARTBEAT_S`` and removes it when it closes; an entry not
refreshed for ``LOBBY_PRESENCE_TTL_S`` (a server that died with its sockets) is dropped.

The entries share one cache key, read, changed and written back: two sockets of two processes
that arrive in the same instant may lose one entry, which that socket's next heartbeat writes
again.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache

KEY = "lobby-online"


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


def _write(entries: dict) -> None:
    cache.set(KEY, entries, timeout=ttl() * 2)


def lobby_online() -> dict:
    """Who is online in the lobby now (`shown`)."""
    return shown(_fresh(cache.get(KEY), time.time()))


def lobby_arrive(member: str, name: str | None, url: str | None) -> dict:
    """Count a lobby socket as online (or say it is still there); who is online now."""
    now = time.time()
    entries = _fresh(cache.get(KEY), now)
    entries[member] = {"name": name, "url": url, "seen": now}
    _write(entries)
    return shown(entries)


def lobby_leave(member: str) -> dict:
    """A lobby socket closed; who is online now."""
    now = time.time()
    entries = _fresh(cache.get(KEY), now)
    if entries.pop(member, None) is not None:
        _write(entries)
    return shown(entries)
