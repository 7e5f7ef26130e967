"""Connections the server holds, bounded: how many, how many one client holds, and how long a
request may take to arrive.

uvicorn holds every connection it accepts for as long as the client keeps it, and waits for a
request's headers and body without a time limit: 5,000 sockets sending a byte a second were all
held, and at the process's open-file limit an honest handshake timed out while the log grew by a
traceback per refused accept; ten sockets trickling a body a byte every two seconds held every
connection of a ``--max-connections 10`` server for as long as they liked. :class:`BoundedH11Protocol`
(uvicorn's HTTP/1.1 protocol, given to uvicorn as ``http=PROTOCOL``) closes a connection

* at once, when the server holds ``max_connections`` already (sockets of ``/ws`` sessions
  included), or when its client address holds ``max_connections_per_client`` (an address that
  reopened each connection as it was closed took every one; a trusted proxy's own address is not
  held to the share, the clients behind it are by their sessions), logging the flood once a minute
  with a count instead of once per connection;
* when a request's headers have not all arrived ``header_timeout`` seconds after its first byte
  (or after the connection was made), or the whole request, headers and body, has not arrived
  ``request_timeout`` seconds after it (a body with no end, chunked or with a ``Content-Length``
  never reached).

The limits are the application's (:func:`~guessgym.serving.app.make_app`'s), read from the app
uvicorn serves, so each worker of ``--workers N`` applies them to its own connections.
:func:`raise_open_file_limit` lifts the process's soft limit on open files to what the bound needs.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

#: Import path of the protocol, what uvicorn's ``http=`` takes (a string travels to worker processes).
PROTOCOL = "guessgym.serving.transport:BoundedH11Protocol"
#: Connections a server process holds at once unless told (kept below the open-file limit).
DEFAULT_MAX_CONNECTIONS = 1000
#: Seconds a request's headers may take to arrive unless told.
DEFAULT_HEADER_TIMEOUT = 10.0
#: Seconds a whole request, headers and body, may take to arrive unless told (a 2 MiB body at 1 Mbit/s
#: takes 17).
DEFAULT_REQUEST_TIMEOUT = 30.0
#: Open files a server process keeps for itself beside its connections (libraries, logs, caches).
RESERVED_FILES = 64
#: Seconds between two log lines about refused connections.
FLOOD_LOG_EVERY = 60.0

logger = logging.getLogger("guessgym.serving")


def default_connections_per_client(max_connections: int) -> int:
    """The connections one client address may hold unless told: half the server's, so that no one
    address can take them all."""
    return max(1, max_connections // 2)


class TrustedProxies:
    """The addresses (``192.0.2.1``, ``10.0.0.0/8``; ``*``: every address) whose ``X-Forwarded-For``
    the server believes, what uvicorn's ``forwarded_allow_ips`` takes.

    Raises:
        ValueError: an entry that is neither an address, a network nor ``*``.
    """

    def __init__(self, spec: str | None) -> None:
        import ipaddress

        self.spec = spec or ""
        self.everyone = False
        self.networks: list[Any] = []
        for item in (x.strip() for x in self.spec.split(",") if x.strip()):
            if item == "*":
                self.everyone = True
                continue
            try:
                self.networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                raise ValueError(f"forwarded_allow_ips takes addresses or networks separated by commas, or *; got "
                                 f"{item[:60]!r}") from None

    def __bool__(self) -> bool:
        return self.everyone or bool(self.networks)

    def __contains__(self, host: object) -> bool:
        import ipaddress

        if self.everyone:
            return True
        try:
            address = ipaddress.ip_address(str(host))
        except ValueError:
            return False
        return any(address in network for network in self.networks)


@dataclass(frozen=True)
class Limits:
    """What a server's connections are held to (the app's settings, see the module docstring)."""

    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_connections_per_client: int = default_connections_per_client(DEFAULT_MAX_CONNECTIONS)
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    trusted: TrustedProxies = field(default_factory=lambda: TrustedProxies(None))


def limits_of(app: Any) -> Limits:
    """The :class:`Limits` of the guessgym app inside ``app`` (uvicorn wraps it in middleware of its
    own); the defaults for any other app."""
    for _ in range(16):
        settings = getattr(getattr(app, "state", None), "guessgym", None)
        if isinstance(settings, dict):
            return Limits(int(settings["max_connections"]), int(settings["max_connections_per_client"]),
                          float(settings["header_timeout"]), float(settings["request_timeout"]),
                          TrustedProxies(settings["forwarded_allow_ips"]))
        app = getattr(app, "app", None)
        if app is None:
            break
    return Limits()


class _Flood:
    """One server's refused connections, told to the log once per :data:`FLOOD_LOG_EVERY` seconds."""

    def __init__(self) -> None:
        self.refused = 0
        self.told_at = -FLOOD_LOG_EVERY

    def refuse(self, why: str) -> None:
        self.refused += 1
        now = time.monotonic()
        if now - self.told_at >= FLOOD_LOG_EVERY:
            logger.warning("refusing connections: %s (%d refused since the last such line)", why, self.refused)
            self.told_at, self.refused = now, 0


class BoundedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with caps on connections, in all and per client address, and
    time limits on a request's headers and on the whole request (see the module docstring)."""

    _timer: asyncio.TimerHandle | None = None
    _waiting_since_cycle: Any = None
    _started = 0.0
    _body_phase = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        limits = getattr(self.config, "_guessgym_limits", None)
        if limits is None:  # one per server (its uvicorn config)
            limits = self.config._guessgym_limits = limits_of(self.app)  # type: ignore[attr-defined]
        self.limits: Limits = limits
        refused = self._refusal()
        if refused:
            flood = getattr(self.config, "_guessgym_flood", None)
            if flood is None:
                flood = self.config._guessgym_flood = _Flood()  # type: ignore[attr-defined]
            flood.refuse(refused)
            self.transport.close()
            return
        self._arm()

    def _refusal(self) -> str:
        """Why this new connection is refused (``""``: it is not)."""
        limits = self.limits
        held = len(self.connections) - 1
        if held >= limits.max_connections:
            return f"{held} held, the most this server process holds is {limits.max_connections}"
        host = self.client[0] if self.client else None
        if host is None or host in limits.trusted:
            return ""
        mine = sum(1 for c in self.connections if c is not self and (getattr(c, "client", None) or ("",))[0] == host)
        if mine >= limits.max_connections_per_client:
            return (f"{host} holds {mine}, the most one client address holds is "
                    f"{limits.max_connections_per_client}")
        return ""

    def _arm(self) -> None:
        """A request begins: its headers are due in ``header_timeout`` seconds, all of it in
        ``request_timeout``."""
        self._waiting_since_cycle = self.cycle
        self._started = self.loop.time()
        self._body_phase = False
        due = min(self.limits.header_timeout, self.limits.request_timeout)
        self._timer = self.loop.call_later(due, self._too_slow)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def data_received(self, data: bytes) -> None:
        if self._timer is None and (self.cycle is None or self.cycle.response_complete):
            self._arm()  # the first bytes of a next request on a kept-alive connection
        super().data_received(data)
        if self._timer is None:
            return
        if self.transport.get_protocol() is not self:
            self._disarm()  # upgraded to a socket: its messages are the guard's to bound
        elif self.cycle is not self._waiting_since_cycle:  # its headers are in
            if not self.cycle.more_body:
                self._disarm()  # and its body: the whole request arrived
            elif not self._body_phase:  # the body is due by the request's own deadline
                self._body_phase = True
                self._timer.cancel()
                left = self._started + self.limits.request_timeout - self.loop.time()
                self._timer = self.loop.call_later(max(left, 0.0), self._too_slow)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _too_slow(self) -> None:
        self._timer = None
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return
        if self.cycle is self._waiting_since_cycle or (self.cycle is not None and self.cycle.more_body):
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


__all__ = ["BoundedH11Protocol", "DEFAULT_HEADER_TIMEOUT", "DEFAULT_MAX_CONNECTIONS", "DEFAULT_REQUEST_TIMEOUT",
           "PROTOCOL", "RESERVED_FILES", "Limits", "TrustedProxies", "default_connections_per_client", "limits_of",
           "raise_open_file_limit"]
