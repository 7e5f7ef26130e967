"""Connections the server holds, bounded: how many, and how long a request may take to arrive.

uvicorn holds every connection it accepts for as long as the client keeps it, and waits for a
request's headers without a time limit: 5,000 sockets sending a byte a second were all held, and at
the process's open-file limit an honest handshake timed out while the log grew by a traceback per
refused accept. :class:`BoundedH11Protocol` (uvicorn's HTTP/1.1 protocol, given to uvicorn as
``http=PROTOCOL``) closes a connection

* at once, when the server holds ``max_connections`` already (sockets of ``/ws`` sessions
  included), logging the flood once a minute with a count instead of once per connection;
* when a request's headers have not all arrived ``header_timeout`` seconds after its first byte
  (or after the connection was made).

The limits are the application's (:func:`~guessgym.serving.app.make_app`'s ``max_connections``
and ``header_timeout``), read from the app uvicorn serves, so each worker of ``--workers N``
applies them to its own connections. :func:`raise_open_file_limit` lifts the process's soft limit
on open files to what the bound needs.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

#: Import path of the protocol, what uvicorn's ``http=`` takes (a string travels to worker processes).
PROTOCOL = "guessgym.serving.transport:BoundedH11Protocol"
#: Connections a server process holds at once unless told (kept below the open-file limit).
DEFAULT_MAX_CONNECTIONS = 1000
#: Seconds a request's headers may take to arrive unless told.
DEFAULT_HEADER_TIMEOUT = 10.0
#: Open files a server process keeps for itself beside its connections (libraries, logs, caches).
RESERVED_FILES = 64
#: Seconds between two log lines about refused connections.
FLOOD_LOG_EVERY = 60.0

logger = logging.getLogger("guessgym.serving")


def limits_of(app: Any) -> tuple[int, float]:
    """``(max_connections, header_timeout)`` of the guessgym app inside ``app`` (uvicorn wraps it in
    middleware of its own); the defaults for any other app."""
    for _ in range(16):
        settings = getattr(getattr(app, "state", None), "guessgym", None)
        if isinstance(settings, dict):
            return int(settings["max_connections"]), float(settings["header_timeout"])
        app = getattr(app, "app", None)
        if app is None:
            break
    return DEFAULT_MAX_CONNECTIONS, DEFAULT_HEADER_TIMEOUT


class _Flood:
    """One server's refused connections, told to the log once per :data:`FLOOD_LOG_EVERY` seconds."""

    def __init__(self) -> None:
        self.refused = 0
        self.told_at = -FLOOD_LOG_EVERY

    def refuse(self, held: int, limit: int) -> None:
        self.refused += 1
        now = time.monotonic()
        if now - self.told_at >= FLOOD_LOG_EVERY:
            logger.warning("refusing connections: %d held, the most this server process holds is %d (%d refused "
                           "since the last such line)", held, limit, self.refused)
            self.told_at, self.refused = now, 0


class BoundedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a cap on connections and a time limit on headers (see the
    module docstring)."""

    _header_timer: asyncio.TimerHandle | None = None
    _waiting_since_cycle: Any = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.max_connections, self.header_timeout = limits_of(self.app)
        if len(self.connections) > self.max_connections:
            flood = getattr(self.config, "_guessgym_flood", None)
            if flood is None:  # one per server (its uvicorn config)
                flood = self.config._guessgym_flood = _Flood()  # type: ignore[attr-defined]
            flood.refuse(len(self.connections) - 1, self.max_connections)
            self.transport.close()
            return
        self._arm()

    def _arm(self) -> None:
        self._waiting_since_cycle = self.cycle
        self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def data_received(self, data: bytes) -> None:
        if self._header_timer is None and (self.cycle is None or self.cycle.response_complete):
            self._arm()  # the first bytes of a next request on a kept-alive connection
        super().data_received(data)
        if self.cycle is not self._waiting_since_cycle or self.transport.get_protocol() is not self:
            self._disarm()  # its headers are in (a request started, or the socket was upgraded)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return
        if self.cycle is not self._waiting_since_cycle:
            return
        self.transport.close()


def raise_open_file_limit(max_connections: int) -> int:
    """Lift this process's soft limit on open files toward its hard limit, as far as
    ``max_connections`` plus :data:`RESERVED_FILES` need; return the soft limit now (``-1`` where
    the platform has none)."""
    try:
        import resource
    except ImportError:  # not on Windows
        return -1
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = max_connections + RESERVED_FILES
    if soft != resource.RLIM_INFINITY and soft < wanted:
        new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
            soft = new
        except (ValueError, OSError):
            pass
    return int(soft)


__all__ = ["BoundedH11Protocol", "DEFAULT_HEADER_TIMEOUT", "DEFAULT_MAX_CONNECTIONS", "PROTOCOL", "RESERVED_FILES",
           "limits_of", "raise_open_file_limit"]
