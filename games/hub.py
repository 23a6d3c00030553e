"""How a committed change reaches everyone following its game: this process's WebSockets and
/watch long polls, and the other processes of the deployment.

Each event loop (a server process has one) has a `Hub`. Its listeners register per game; when a
change is committed in this process (`runtime.publish` -> `deliver_soon`), the hub hands it to
them at once, in one task per change, and no message crosses a queue per listener. When the
channel layer spans processes (Redis), the hub also publishes the change to the game's group
there, and it is itself the one member of that group in its process: it joins the group when
the game's first listener comes, so one message per change reaches each process whatever the
number of its sockets. The in-memory layer of the one-process default is not used at all.

A change that comes from another process brings its moves (services.change_message): when this
process knows the game's state at the version the change started from, it applies them
(`games.replay.next_state`) and knows the new state without reading the game, as a reader of
the log would; otherwise its listeners read the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import weakref
from typing import Protocol

from channels.layers import InMemoryChannelLayer, get_channel_layer

from games import runtime, selectors
from games.errors import RuleError
from games.replay import next_state
from games.rules import get_rules

log = logging.getLogger(__name__)

# How often a hub leaves the groups of games that no listener here follows any more: left at
# once, a table whose sockets all reconnect for its next game would leave and join again.
SWEEP_INTERVAL_S = 10.0


def group_name(game_id: int) -> str:
    return f"game-{game_id}"


def shared_layer():
    """The channel layer when it spans processes (Redis); None for the in-memory one."""
    layer = get_channel_layer()
    if layer is None or isinstance(layer, InMemoryChannelLayer):
        return None
    return layer


class Listener(Protocol):
    async def changed(self, message: dict) -> None:
        """Show a committed change (services.change_message); never raises for a bad client."""


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()
_hubs_guard = threading.Lock()  # threads publish while a loop makes its hub


def current() -> Hub:
    """The running event loop's hub (made on first use)."""
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        with _hubs_guard:
            hub = _hubs[loop] = Hub(loop)
    return hub


def deliver_soon(message: dict) -> bool:
    """Hand a change committed in this process to every running hub (from any thread); False
    when no event loop runs a hub here."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    else:
        current()  # a change committed on a loop is that loop's to deliver
    delivered = False
    with _hubs_guard:
        hubs = list(_hubs.items())
    for loop, hub in hubs:
        if loop is running:
            hub.local(message)
        elif loop.is_running():
            try:
                loop.call_soon_threadsafe(hub.local, message)
            except RuntimeError:  # the loop closed since: nobody listens there any more
                continue
        else:
            continue
        delivered = True
    return delivered


def forget() -> None:
    """Forget the hubs of loops that have stopped (tests run many loops)."""
    with _hubs_guard:
        for loop in [loop for loop in _hubs if not loop.is_running()]:
            _hubs.pop(loop, None)


class Hub:
    """The listeners of this event loop, by game, and the loop's membership of game groups."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.listeners: dict[int, set[Listener]] = {}
        self.layer = shared_layer()
        self.channel: str | None = None  # this hub's channel on a shared layer
        self._opening: asyncio.Task | None = None
        self.subscribed: set[int] = set()
        self._joining: dict[int, asyncio.Task] = {}
        self._leaving: dict[int, asyncio.Task] = {}
        self._tasks: set[asyncio.Task] = set()

    # -- listeners ------------------------------------------------------------------------------

    async def listen(self, game_id: int, listener: Listener) -> None:
        """Follow a game: every change committed after this returns reaches `listener`."""
        self.listeners.setdefault(game_id, set()).add(listener)
        if self.layer is not None and game_id not in self.subscribed:
            try:
                await self._join(game_id)
            except BaseException:
                self.unlisten(game_id, listener)
                raise

    def unlisten(self, game_id: int, listener: Listener) -> None:
        listeners = self.listeners.get(game_id)
        if listeners is not None:
            listeners.discard(listener)
            if not listeners:
                del self.listeners[game_id]

    # -- changes --------------------------------------------------------------------------------

    def local(self, message: dict) -> None:
        """A change committed in this process: to the listeners here, and to the other
        processes through the shared layer."""
        self._deliver(message)
        if self.layer is not None:
            self._spawn(send_change(self.layer, message))

    def remote(self, message: dict) -> None:
        """A change from the shared layer: this process's own come back too, and are skipped."""
        if message.get("origin") == runtime.ORIGIN or "game" not in message:
            return
        _follow(message)
        self._deliver(message)

    def _deliver(self, message: dict) -> None:
        listeners = self.listeners.get(message["game"])
        if listeners:
            self._spawn(_fan_out(tuple(listeners), message))

    def _spawn(self, coroutine) -> None:
        task = self.loop.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("The hub's task failed", exc_info=task.exception())

    # -- membership of the games' groups on a shared layer ------------------------------------

    async def _join(self, game_id: int) -> None:
        task = self._joining.get(game_id)
        if task is None:
            task = self._joining[game_id] = self.loop.create_task(self._subscribe(game_id))
        await asyncio.shield(task)

    async def _subscribe(self, game_id: int) -> None:
        try:
            leaving = self._leaving.get(game_id)
            if leaving is not None:
                await asyncio.shield(leaving)
            await self._open()
            await self.layer.group_add(group_name(game_id), self.channel)
            self.subscribed.add(game_id)
        finally:
            self._joining.pop(game_id, None)

    async def _open(self) -> None:
        """Make this hub's channel and start reading it (once)."""
        if self._opening is None:
            self._opening = self.loop.create_task(self._make_channel())
        await asyncio.shield(self._opening)

    async def _make_channel(self) -> None:
        try:
            self.channel = await self.layer.new_channel("hub.")
        except BaseException:
            self._opening = None  # the next listener tries again
            raise
        self._spawn(self._read())
        self._spawn(self._sweep())

    async def _read(self) -> None:
        while True:
            message = await self.layer.receive(self.channel)
            try:
                self.remote(message)
            except Exception:  # one bad message must not stop every later one
                log.exception("A change message could not be handled: %r", message)

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_INTERVAL_S)
            for game_id in list(self.subscribed):
                if game_id not in self.listeners and game_id not in self._joining:
                    self.subscribed.discard(game_id)
                    task = self.loop.create_task(self._unsubscribe(game_id))
                    self._leaving[game_id] = task

    async def _unsubscribe(self, game_id: int) -> None:
        try:
            await self.layer.group_discard(group_name(game_id), self.channel)
        except Exception:
            log.exception("Leaving the group of game %s failed", game_id)
        finally:
            self._leaving.pop(game_id, None)


async def send_change(layer, message: dict) -> None:
    """Publish a change to its game's group on the shared layer. The layer packs messages with
    msgpack, which has no integers past 64 bits (JSON has): a change whose moves hold one goes
    without its moves, and the other processes read the game."""
    group = group_name(message["game"])
    try:
        await layer.group_send(group, message)
    except (OverflowError, TypeError, ValueError):
        if message.get("moves") is None:
            raise
        await layer.group_send(group, {**message, "moves": None})


async def _fan_out(listeners: tuple[Listener, ...], message: dict) -> None:
    """Show one change to each listener in turn (an ASGI send returns at once: daphne writes
    to the socket's buffer)."""
    for listener in listeners:
        try:
            await listener.changed(message)
        except Exception:
            log.exception("A listener failed to show a change of game %s", message["game"])


def _follow(message: dict) -> None:
    """Bring this process's cached state of the game up to the change, by its moves, when the
    cache holds the game at the version the change started from."""
    moves = message.get("moves")
    head = runtime.cached_head(message["game"])
    if moves is None or head is None or head.version != message.get("from"):
        return
    rules = get_rules(head.kind)
    state = head.state
    try:
        for actor, action, at_ms, _event in moves:
            state = next_state(rules, state, actor, action, at_ms)
    except (RuleError, ValueError, TypeError, KeyError):
        log.exception("Moves of game %s did not replay; it will be read", message["game"])
        return
    runtime.remember_head(
        selectors.TableHead(
            head.pk,
            head.kind,
            message.get("is_open", head.is_open),
            message["status"],
            message["version"],
            message["deadline_ms"],
            state,
            message.get("is_default", head.is_default),
            message.get("has_computers", head.has_computers),
        )
    )


async def close_all() -> None:
    """Stop this loop's hub tasks (tests, between loops)."""
    with _hubs_guard:
        hub = _hubs.pop(asyncio.get_running_loop(), None)
    if hub is None:
        return
    for task in list(hub._tasks):
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
