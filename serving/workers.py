"""``guessgym serve --workers N``: N server processes, each listening on a socket of its own.

uvicorn's workers share one listening socket, and a worker woken by a new connection accepts every
connection waiting: sessions opened at once land unevenly (18 and 46 of 64 on two workers of the
echo environment that ``benchmarks/bench_server.py`` runs beside guessgym), and the
worker holding most of them limits the server. On Linux each worker here listens on its own socket
of the port, bound with ``SO_REUSEPORT``, and the kernel spreads new connections over the sockets
by a hash of each connection (23 to 41 of 64 in the same benchmark's rounds), whatever a worker is
doing when they arrive. The parent holds the port with a socket bound the same way that does not
listen (it gets no connections), so no other server can bind the port while this one runs.
uvicorn's own supervisor runs the workers (signals, restarts of a worker that dies): what it hands
each worker is :class:`OwnListener`, which becomes that worker's socket when the worker process
unpickles it. A worker that dies takes with it the connections its socket had queued and not yet
accepted (its sessions end with it either way); its replacement listens anew. Where
``SO_REUSEPORT`` does not spread connections (macOS gives them all to one socket; Windows has
none), the shared socket, as uvicorn makes it.
"""

from __future__ import annotations

import socket
import sys
from typing import Any, cast

#: Whether the kernel spreads a port's connections over the sockets bound with SO_REUSEPORT.
SPREADS_CONNECTIONS = sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def reuseport_socket(host: str, port: int) -> socket.socket:
    """A TCP socket of ``host:port`` bound with ``SO_REUSEPORT`` (``port`` 0: a free port), not
    listening."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                         flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def listen_on_own_socket(host: str, port: int, backlog: int) -> socket.socket:
    """A worker's listening socket of ``host:port`` (what :class:`OwnListener` unpickles to)."""
    sock = reuseport_socket(host, port)
    sock.listen(backlog)
    sock.set_inheritable(True)
    return sock


class OwnListener:
    """Handed to each worker by uvicorn's supervisor in place of a shared socket: pickled into
    the worker process (uvicorn spawns its workers), it is unpickled as a new listening socket of
    the worker's own (:func:`listen_on_own_socket`)."""

    def __init__(self, host: str, port: int, backlog: int) -> None:
        self.host, self.port, self.backlog = host, port, backlog

    def __reduce__(self) -> tuple[Any, tuple[str, int, int]]:
        return listen_on_own_socket, (self.host, self.port, self.backlog)


def run_workers(config: Any) -> None:
    """Serve ``config`` (a ``uvicorn.Config`` of an import string, ``workers`` > 1) with its
    workers until a signal stops them (see the module docstring).

    Raises:
        OSError: the port cannot be bound.
    """
    from uvicorn.supervisors import Multiprocess

    if not SPREADS_CONNECTIONS:
        Multiprocess(config, sockets=[config.bind_socket()]).run()
        return
    held = reuseport_socket(config.host, config.port)
    try:
        port = int(held.getsockname()[1])
        Multiprocess(config, sockets=[cast(socket.socket, OwnListener(config.host, port, config.backlog))]).run()
    finally:
        held.close()


__all__ = ["SPREADS_CONNECTIONS", "OwnListener", "listen_on_own_socket", "reuseport_socket", "run_workers"]
