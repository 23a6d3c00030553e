"""Django's Redis cache, as the scaled-out site uses it: one pool of connections per process."""

from __future__ import annotations

import contextvars
import os

import pytest
from django.core.cache import caches
from django.test import override_settings

REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"


def redis_answers() -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5).ping())
    except redis.RedisError:
        return False


@pytest.mark.skipif(not redis_answers(), reason="no Redis at REDIS_URL")
def test_each_requests_cache_uses_the_processes_one_pool_of_redis_connections():
    """Under ASGI each request (and each task on the event loop) has a cache object of its own:
    each once opened a connection of its own to Redis, a connect and a handshake per move."""
    from django.conf import settings

    cache = {**settings.CACHES["default"]}
    if cache["BACKEND"] != "django.core.cache.backends.redis.RedisCache":  # as config.settings
        cache = {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "test-redis-pool",
            "OPTIONS": {"pool_class": "config.redis_pool.SharedConnectionPool"},
        }

    def one_request() -> tuple:
        used = caches["default"]
        used.set("pool-check", 1)
        assert used.get("pool-check") == 1
        return used, used._cache._get_connection_pool(False)  # kept: ids are not reused

    with override_settings(CACHES={"default": cache}):
        answers = [contextvars.Context().run(one_request) for _ in range(5)]
    assert len({id(used) for used, _ in answers}) == 5  # a cache object per request
    pools = {id(pool) for _, pool in answers}
    assert len(pools) == 1, "each request's cache made a pool (and a connection) of its own"
