"""Connections the server holds, bounded: how many, how many one client holds, how long a request
may take to arrive, and how long a response may wait for its client to read it.

uvicorn holds every connection it accepts for as long as the client keeps it, waits for a
request's headers and body without a time limit, and waits without one for a client to read what
it was sent: 5,000 sockets sending a byte a second were all held; ten sockets trickling a body a
byte every two seconds held every connection of a ``--max-connections 10`` server; ten that
pipelined requests and never read their responses held theirs for ever, and so did a ``/ws``
client that stopped reading (its session with it). :class:`BoundedH11Protocol` (uvicorn's
HTTP/1.1 protocol, given to uvicorn as ``http=PROTOCOL``) and :class:`BoundedWebSocketProtocol`
(its session socket, ``ws=WS_PROTOCOL``) close a connection

* at once, when its client address holds ``max_connections_per_client`` (a quarter of the
  server's unless told), or when the server holds ``max_connections`` already (sockets of ``/ws``
  sessions included), unless the client's address holds none: then an idle connection (no request
  arriving or answered on it, which HTTP lets a server close) of the address that holds the most
  is closed to make room, so a new client is served however many addresses fill the server (two
  addresses reopening idle connections took every one); a proxy named in ``forwarded_allow_ips``
  is not held to the share (``*`` names no proxy: every address is held to it); refusals are
  logged once a minute with a count;
* when a request's headers have not all arrived ``header_timeout`` seconds after the server began
  waiting for them (its first byte, the connection made, or the response before it written, for a
  request pipelined behind another), or the whole request, headers and body, has not arrived
  ``request_timeout`` seconds after that: every request's arrival is bounded, however it comes;
* when what the server writes to it has waited ``send_timeout`` seconds on a client that does not
  read (the connection's write buffer over its high-water mark, and shrunk by less than
  :data:`MIN_SEND_PROGRESS` bytes, all that time): the connection is aborted, its buffer dropped,
  so a response or socket message that cannot be delivered ends the connection, and a ``/ws``
  session with it.

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

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

#: Import path of the HTTP protocol, what uvicorn's ``http=`` takes (a string travels to worker processes).
PROTOCOL = "guessgym.serving.transport:BoundedH11Protocol"
#: Import path of the session socket's protocol, what uvicorn's ``ws=`` takes.
WS_PROTOCOL = "guessgym.serving.transport:BoundedWebSocketProtocol"
#: Connections a server process holds at once unless told (kept below the open-file limit).
DEFAULT_MAX_CONNECTIONS = 1000
#: Seconds a request's headers may take to arrive unless told.
DEFAULT_HEADER_TIMEOUT = 10.0
#: Seconds a whole request, headers and body, may take to arrive unless told (a 2 MiB body at 1 Mbit/s
#: takes 17).
DEFAULT_REQUEST_TIMEOUT = 30.0
#: Seconds what the server writes may wait for a client that does not read, unless told.
DEFAULT_SEND_TIMEOUT = 30.0
#: Bytes a client must take of a full write buffer every ``send_timeout`` seconds to keep its connection.
MIN_SEND_PROGRESS = 64 << 10
#: Open files a server process keeps for itself beside its connections (libraries, logs, caches).
RESERVED_FILES = 64
#: Seconds between two log lines about refused connections.
FLOOD_LOG_EVERY = 60.0

logger = logging.getLogger("guessgym.serving")


def default_connections_per_client(max_connections: int) -> int:
    """The connections one client address may hold unless told: a quarter of the server's, so that
    no one address, nor two, can take them all."""
    return max(1, max_connections // 4)


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

    def names_proxy(self, host: object) -> bool:
        """Whether ``host`` is a proxy these addresses name (``*`` names none: it believes every
        address's header but exempts no address from the per-client connection share)."""
        if not self.networks:
            return False
        import ipaddress

        try:
            address = ipaddress.ip_address(str(host))
        except ValueError:
            return False
        return any(address in network for network in self.networks)

    def __contains__(self, host: object) -> bool:
        """Whether ``host``'s ``X-Forwarded-For`` is believed (every address's with ``*``)."""
        return self.everyone or self.names_proxy(host)


@dataclass(frozen=True)
class Limits:
    """What a server's connections are held to (the app's settings, see the module docstring)."""

    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_connections_per_client: int = default_connections_per_client(DEFAULT_MAX_CONNECTIONS)
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    trusted: TrustedProxies = field(default_factory=lambda: TrustedProxies(None))
    send_timeout: float = DEFAULT_SEND_TIMEOUT


def limits_of(app: Any) -> Limits:
    """The :class:`Limits` of the guessgym app inside ``app`` (uvicorn wraps it in middleware of its
    own); the defaults for any other app."""
    for _ in range(16):
        settings = getattr(getattr(app, "state", None), "guessgym", None)
        if isinstance(settings, dict):
            return Limits(int(settings["max_connections"]), int(settings["max_connections_per_client"]),
                          float(settings["header_timeout"]), float(settings["request_timeout"]),
                          TrustedProxies(settings["forwarded_allow_ips"]), float(settings["send_timeout"]))
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


try:  # the ioctl that tells a socket's bytes not yet taken by its peer (Linux)
    import termios

    _OUTQ: int | None = getattr(termios, "TIOCOUTQ", None)
except ImportError:  # not on Windows
    _OUTQ = None


def _limits(config: Any, app: Any) -> Limits:
    """The limits of the server of ``config`` (read from its app once, kept on the config)."""
    limits = getattr(config, "_guessgym_limits", None)
    if limits is None:
        limits = config._guessgym_limits = limits_of(app)
    return limits


class _SendDeadline:
    """What both protocols share: a connection whose client does not read what it was sent is
    aborted (a close would wait for the buffer to drain, which it never does). Once the write buffer
    passes its high-water mark, every ``send_timeout`` seconds it must have shrunk by
    :data:`MIN_SEND_PROGRESS` bytes (or below its low-water mark, when writing resumes): a client
    that reads a large reply slowly keeps its connection, one that stops reading loses it."""

    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    limits: Limits
    _send_timer: asyncio.TimerHandle | None = None
    _send_backlog = 0

    def pause_writing(self) -> None:
        super().pause_writing()  # type: ignore[misc]
        if self._send_timer is None:
            self._send_backlog = self._unread()
            self._send_timer = self.loop.call_later(self.limits.send_timeout, self._not_read)

    def _unread(self) -> int:
        """Bytes written to the client and not yet taken by it: the transport's buffer and, where the
        system says (Linux's ``TIOCOUTQ``), the socket's own queue, which holds megabytes on loopback
        (a client reading steadily drains that first, the transport's buffer only after)."""
        backlog = self.transport.get_write_buffer_size()
        sock = self.transport.get_extra_info("socket")
        if sock is not None and _OUTQ is not None:
            import array
            import fcntl

            queued = array.array("i", [0])
            try:
                fcntl.ioctl(sock.fileno(), _OUTQ, queued, True)
                backlog += queued[0]
            except OSError:
                pass
        return backlog

    def resume_writing(self) -> None:
        self._stop_send_deadline()
        super().resume_writing()  # type: ignore[misc]

    def _stop_send_deadline(self) -> None:
        if self._send_timer is not None:
            self._send_timer.cancel()
            self._send_timer = None

    def _not_read(self) -> None:
        self._send_timer = None
        if self.transport.is_closing():
            return
        backlog = self._unread()
        if backlog <= self._send_backlog - MIN_SEND_PROGRESS:  # it reads, if slowly: another window
            self._send_backlog = backlog
            self._send_timer = self.loop.call_later(self.limits.send_timeout, self._not_read)
            return
        logger.info("closing a connection whose client has not read what it was sent for %g s",
                    self.limits.send_timeout)
        self.transport.abort()


class BoundedH11Protocol(_SendDeadline, H11Protocol):
    """uvicorn's HTTP/1.1 protocol with caps on connections, in all and per client address, and
    time limits on each request's arrival and on a client's reading (see the module docstring)."""

    _timer: asyncio.TimerHandle | None = None
    #: What the timed request is: _HEAD while its headers arrive, then its cycle while its body does.
    _timing: Any = None
    _started = 0.0
    _due = 0.0
    _HEAD = object()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.limits = _limits(self.config, self.app)
        refused = self._refusal()
        if refused:
            self._flood().refuse(refused)
            self.connections.discard(self)  # not held: the next connection's count is not to include it
            self.transport.close()
            return
        self._watch(waiting=True)

    def _refusal(self) -> str:
        """Why this new connection is refused (``""``: it is not)."""
        limits = self.limits
        held = len(self.connections) - 1
        host = self.client[0] if self.client else None
        mine = 0 if host is None else sum(1 for c in self.connections
                                          if c is not self and (getattr(c, "client", None) or ("",))[0] == host)
        if held >= limits.max_connections and not (host is not None and mine == 0 and self._make_room(host)):
            return f"{held} held, the most this server process holds is {limits.max_connections}"
        if host is not None and mine >= limits.max_connections_per_client and not limits.trusted.names_proxy(host):
            return (f"{host} holds {mine}, the most one client address holds is "
                    f"{limits.max_connections_per_client}")
        return ""

    def _make_room(self, newcomer: str) -> bool:
        """Close an idle connection (no request arriving or answered on it) of the address that holds
        the most, two at least, for ``newcomer``, an address that holds none; whether one was closed."""
        by_host: dict[str, list[Any]] = {}
        for c in self.connections:
            client = getattr(c, "client", None)
            if c is not self and client:
                by_host.setdefault(client[0], []).append(c)
        for host, held in sorted(by_host.items(), key=lambda item: -len(item[1])):
            if len(held) < 2:
                break
            idle = [c for c in held if isinstance(c, BoundedH11Protocol) and c._idle()]
            if host != newcomer and idle:
                victim = idle[0]
                self.connections.discard(victim)
                victim.transport.close()
                self._flood().refuse(f"closed an idle connection of {host}, which holds {len(held)}, for {newcomer}, "
                                     "which held none")
                return True
        return False

    def _idle(self) -> bool:
        """Whether nothing is arriving or being answered on this connection (HTTP allows closing it)."""
        return (not self.transport.is_closing() and self.transport.get_protocol() is self
                and (self.cycle is None or self.cycle.response_complete) and not self.conn.trailing_data[0]
                and self.conn.their_state is h11.IDLE)

    def _flood(self) -> _Flood:
        flood = getattr(self.config, "_guessgym_flood", None)
        if flood is None:
            flood = self.config._guessgym_flood = _Flood()  # type: ignore[attr-defined]
        return flood

    def _arriving(self, waiting: bool) -> tuple[str, Any]:
        """What of a request is arriving: ``("head", None)``, ``("body", cycle)``, or ``("", None)``
        (nothing: the connection idle between requests, whose wait is uvicorn's keep-alive timeout,
        or a request whole whose response is under way, bounded by the send deadline)."""
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return "", None  # closed, or upgraded to a socket: the socket's messages are the guard's to bound
        cycle = self.cycle
        if cycle is not None and cycle.more_body and not cycle.response_complete:
            return "body", cycle
        if cycle is not None and cycle.response_complete and self.conn.their_state is h11.SEND_BODY:
            return "body", cycle  # answered early (a 413): the rest of its body is still read
        if cycle is not None and not cycle.response_complete:
            return "", None
        if waiting or self.conn.trailing_data[0]:
            return "head", None
        return "", None

    def _watch(self, waiting: bool = False) -> None:
        """Time the request now arriving: its headers are due ``header_timeout`` seconds after the
        server began waiting for it, all of it ``request_timeout`` seconds after."""
        phase, cycle = self._arriving(waiting)
        if not phase:
            self._timing = None
            self._disarm()
            return
        current = self._HEAD if phase == "head" else cycle
        if self._timing is not current and not (self._timing is self._HEAD and phase == "body"):
            self._started = self.loop.time()  # a new request: a first byte, or one pipelined behind an answer
        self._timing = current
        limits = self.limits
        due = self._started + (min(limits.header_timeout, limits.request_timeout) if phase == "head"
                               else limits.request_timeout)
        if self._timer is None or due != self._due:
            self._disarm()
            self._due = due
            self._timer = self.loop.call_at(due, self._too_slow)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch(waiting=bool(data))

    def on_response_complete(self) -> None:
        super().on_response_complete()  # handles any request pipelined behind this one
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._stop_send_deadline()
        super().connection_lost(exc)

    def _too_slow(self) -> None:
        self._timer = None
        phase, _ = self._arriving(False)
        if phase:
            self.transport.close()


class BoundedWebSocketProtocol(_SendDeadline, WebSocketsSansIOProtocol):
    """uvicorn's session-socket protocol whose messages a client must read: one that waits
    ``send_timeout`` seconds for a client that does not read ends the connection, and with it the
    session, whose slot is free again (see the module docstring)."""

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self.limits = _limits(self.config, self.app)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_send_deadline()
        super().connection_lost(exc)


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


__all__ = ["BoundedH11Protocol", "BoundedWebSocketProtocol", "DEFAULT_HEADER_TIMEOUT", "DEFAULT_MAX_CONNECTIONS",
           "DEFAULT_REQUEST_TIMEOUT", "DEFAULT_SEND_TIMEOUT", "MIN_SEND_PROGRESS", "PROTOCOL", "RESERVED_FILES",
           "WS_PROTOCOL", "Limits", "TrustedProxies", "default_connections_per_client", "limits_of",
           "raise_open_file_limit"]
