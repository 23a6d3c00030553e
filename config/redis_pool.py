"""One pool of Redis connections per process for Django's cache (its documented ``pool_class``
option of the Redis backend).

Under ASGI Django keeps a cache object per request context (``caches`` is context-local), and
its Redis backend gives each cache object a connection pool of its own that nothing closes: each
request or event-loop task that read the cache (a move's ban, a rate limit, presence) opened a
new connection to Redis, a TCP connect and its handshake, and left the socket to the garbage
collector. Each cache object now asks this class for its pool and gets the process's one pool
for that address and those options. redis-py's pool is safe across threads, and a forked
child's pool starts afresh (redis-py checks the process id).
"""

from __future__ import annotations

import threading

import redis


class SharedConnectionPool(redis.ConnectionPool):
    """A ConnectionPool whose ``from_url`` answers the same pool for the same URL and options."""

    _pools: dict[tuple[str, str], SharedConnectionPool] = {}
    _lock = threading.Lock()

    @classmethod
    def from_url(cls, url: str, **kwargs) -> SharedConnectionPool:
        key = (url, repr(sorted(kwargs.items())))
        with cls._lock:
            pool = cls._pools.get(key)
            if pool is None:
                pool = cls._pools[key] = super().from_url(url, **kwargs)
        return pool
