"""The in-memory channel layer of the default (one-process) configuration.

Channels' InMemoryChannelLayer walks every channel and every group membership to drop expired
messages on each send and each receive: with hundreds of open WebSockets that walk costs more
than delivering the message. This layer does the same cleaning at most once a second, so a
message is dropped at most a second after its expiry (60 s) and the rest is unchanged.

It overrides `_clean_expired`, which is Channels' own and not public: requirements.txt pins
channels, and a new release should be checked against it.
"""

from __future__ import annotations

import time

from channels import layers

CLEAN_INTERVAL_S = 1.0


class InMemoryChannelLayer(layers.InMemoryChannelLayer):
    _cleaned_at = float("-inf")

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._cleaned_at >= CLEAN_INTERVAL_S:
            self._cleaned_at = now
            super()._clean_expired()
