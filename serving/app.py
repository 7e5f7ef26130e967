"""The server: guessgym's game in OpenEnv's protocol, served by OpenEnv's own ``create_app``.

:func:`make_app` builds the FastAPI application: OpenEnv's routes (``POST /reset``, ``POST /step``,
``GET /state``, ``GET /schema``, ``GET /metadata``, ``GET /health``, and the ``/ws`` socket on which
its ``EnvClient`` keeps one session per connection), over :class:`~.environment.GuessgymEnvironment`.
OpenEnv's ``/mcp`` routes are not served as OpenEnv makes them (they held sessions outside the
session limit): ``POST /mcp`` answers JSON-RPC with no state (no tools are listed, a session method
is refused; what OpenEnv's validator asks of it), and the ``/mcp`` socket is gone. What a shared
server needs is bounded here:

* sessions: at most ``max_sessions`` at once, and ``max_sessions_per_client`` per client address
  (one more is refused, ``CAPACITY_REACHED``); a session idle for ``idle_timeout`` seconds is ended
  (OpenEnv's reaper);
* connections: at most ``max_connections`` per server process and ``max_connections_per_client``
  per client address, room kept for addresses that hold none; every request's headers must arrive
  within ``header_timeout`` seconds and the whole request within ``request_timeout``, pipelined or
  not; what the server writes must be read within ``send_timeout`` seconds, or the connection (a
  session socket's session with it) is ended (:mod:`~guessgym.serving.transport`);
* client addresses: ``X-Forwarded-For`` is believed only from the proxies ``forwarded_allow_ips``
  names (none unless told: any local process could otherwise claim any address, and with it
  every client's share);
* input: a request body or socket message over ``max_body_bytes`` is refused (HTTP 413; the socket
  is closed, code 1009) before it is read; the bodies one client address has still arriving hold
  at most :data:`PENDING_BODIES_PER_CLIENT` times that (HTTP 429 past it); a body or message that
  is not what the protocol documents (:mod:`~guessgym.serving.guard`), an unknown answer, a step after the end are 4xx
  responses or error messages of that session alone;
* routes: only OpenEnv's protocol and ``GET /openapi.json`` (its schema, which OpenEnv's validator
  reads); FastAPI's ``/docs`` and ``/redoc`` pages are not served;
* idle sessions: the guard alone ends them, by one notion of activity (a reset or a step it lets
  through), closing the socket with its session (OpenEnv's own reaper, which counted only steps
  that succeeded, ended sessions whose socket played on beside the next client's);
* output: a game whose conversation (sent whole with every reply) could grow past
  ``max_conversation_chars`` is refused when the server starts (:class:`~.environment.GameServer`).

:data:`app` is the application of the ``GUESSGYM_SERVE_*`` environment variables (what
``openenv.yaml`` names, and what the workers of ``guessgym serve --workers N`` import).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..infra.body_limit import PENDING_BODIES_PER_CLIENT, BodyLimit
from .environment import DEFAULT_MAX_CONVERSATION_CHARS, GameNotStarted, GameServer
from .guard import SOCKET_READ_FACTOR, RequestGuard
from .models import GuessAction, GuessObservation
from .transport import (
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_SEND_TIMEOUT,
    PROTOCOL,
    WS_PROTOCOL,
    TrustedProxies,
    default_connections_per_client,
)

#: The largest request body or socket message read (bytes): a reply of the largest length a game
#: accepts, JSON-escaped, fits.
DEFAULT_MAX_BODY_BYTES = 2 << 20
#: Sessions at once unless told.
DEFAULT_MAX_SESSIONS = 64
#: Seconds a session may stay idle unless told.
DEFAULT_IDLE_TIMEOUT = 300.0
#: Routes of OpenEnv's app that guessgym replaces (``POST /mcp``: :func:`_mcp`) or does not serve
#: (FastAPI's documentation pages, which load their scripts from a CDN).
UNSERVED_ROUTES = frozenset({"/mcp", "/docs", "/docs/oauth2-redirect", "/redoc"})

def make_app(env_id: str = "guessgym/WordleChat-v0", env_kwargs: dict[str, Any] | None = None, *,
             max_sessions: int = DEFAULT_MAX_SESSIONS, idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
             max_body_bytes: int = DEFAULT_MAX_BODY_BYTES, max_sessions_per_client: int | None = None,
             max_connections: int = DEFAULT_MAX_CONNECTIONS, header_timeout: float = DEFAULT_HEADER_TIMEOUT,
             max_conversation_chars: int = DEFAULT_MAX_CONVERSATION_CHARS,
             max_connections_per_client: int | None = None, request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
             forwarded_allow_ips: str | None = None, send_timeout: float = DEFAULT_SEND_TIMEOUT) -> Any:
    """The FastAPI application serving ``env_id`` with ``env_kwargs`` (see the module docstring);
    ``max_sessions_per_client`` is ``max_sessions`` unless given (a trainer on one machine may
    use every session; a server shared by several clients sets it lower);
    ``max_connections_per_client`` is a quarter of ``max_connections`` unless given;
    ``forwarded_allow_ips`` names the proxies whose ``X-Forwarded-For`` is believed (addresses or
    networks separated by commas, or ``*``; none unless given). Every bound is per server process
    (each worker of ``--workers N`` has its own).

    Raises:
        ValueError: an id that is not a text game, options the game refuses, or a bound out of range.
        DependencyNotInstalled: openenv-core is missing (``pip install "guessgym[openenv]"``).
    """
    from ..infra.optional import require_extra

    require_extra("openenv", "guessgym serve")
    from openenv.core.env_server.http_server import create_fastapi_app
    from openenv.core.env_server.types import ConcurrencyConfig

    if type(max_sessions) is not int or not 1 <= max_sessions <= 100_000:
        raise ValueError(f"max_sessions must be a whole number from 1 to 100,000, got {max_sessions!r}")
    if not 0 < idle_timeout <= 7 * 24 * 3600:
        raise ValueError(f"idle_timeout must be seconds above 0 and at most a week, got {idle_timeout!r}")
    if type(max_body_bytes) is not int or not 1024 <= max_body_bytes <= 1 << 30:
        raise ValueError(f"max_body_bytes must be from 1,024 to {1 << 30:,}, got {max_body_bytes!r}")
    per_client = max_sessions if max_sessions_per_client is None else max_sessions_per_client
    if type(per_client) is not int or not 1 <= per_client <= max_sessions:
        raise ValueError(f"max_sessions_per_client must be a whole number from 1 to max_sessions ({max_sessions}), "
                         f"got {per_client!r}")
    if type(max_connections) is not int or not 1 <= max_connections <= 1_000_000:
        raise ValueError(f"max_connections must be a whole number from 1 to 1,000,000, got {max_connections!r}")
    connections_per_client = default_connections_per_client(max_connections) \
        if max_connections_per_client is None else max_connections_per_client
    if type(connections_per_client) is not int or not 1 <= connections_per_client <= max_connections:
        raise ValueError(f"max_connections_per_client must be a whole number from 1 to max_connections "
                         f"({max_connections}), got {connections_per_client!r}")
    if not 0 < header_timeout <= 3600:
        raise ValueError(f"header_timeout must be seconds above 0 and at most 3,600, got {header_timeout!r}")
    if not header_timeout <= request_timeout <= 3600:
        raise ValueError(f"request_timeout must be seconds from header_timeout ({header_timeout:g}) to 3,600, got "
                         f"{request_timeout!r}")
    if isinstance(send_timeout, bool) or not isinstance(send_timeout, (int, float)) or not 0 < send_timeout <= 3600:
        raise ValueError(f"send_timeout must be seconds above 0 and at most 3,600, got {send_timeout!r}")
    if forwarded_allow_ips is not None and not isinstance(forwarded_allow_ips, str):
        raise ValueError(f"forwarded_allow_ips must be addresses or networks separated by commas, or *; got "
                         f"{forwarded_allow_ips!r}")
    TrustedProxies(forwarded_allow_ips)  # each entry checked
    server = GameServer(env_id, dict(env_kwargs or {}), max_conversation_chars=max_conversation_chars)
    app = create_fastapi_app(server.environment, GuessAction, GuessObservation,
                             concurrency_config=ConcurrencyConfig(max_concurrent_envs=max_sessions,
                                                                  session_timeout=None))  # the guard ends idle ones
    app.router.routes[:] = [r for r in app.router.routes if getattr(r, "path", None) not in UNSERVED_ROUTES]
    app.router.add_route("/mcp", _mcp, methods=["POST"], include_in_schema=False)
    app.add_middleware(RequestGuard, max_sessions_per_client=per_client, idle_timeout=float(idle_timeout),
                       max_message_bytes=max_body_bytes)
    app.add_middleware(BodyLimit, limit=max_body_bytes)
    app.add_exception_handler(GameNotStarted, _no_game)
    app.add_exception_handler(ValueError, _refused)
    app.state.guessgym = {"env_id": env_id, "env_kwargs": dict(env_kwargs or {}), "max_sessions": max_sessions,
                          "idle_timeout": idle_timeout, "max_body_bytes": max_body_bytes,
                          "max_sessions_per_client": per_client, "max_connections": max_connections,
                          "max_connections_per_client": connections_per_client,
                          "header_timeout": float(header_timeout), "request_timeout": float(request_timeout),
                          "forwarded_allow_ips": forwarded_allow_ips or None,
                          "max_conversation_chars": max_conversation_chars, "send_timeout": float(send_timeout)}
    return app


async def _mcp(request: Any) -> Any:
    """``POST /mcp``: a JSON-RPC answer that holds nothing (see the module docstring)."""
    from fastapi.responses import JSONResponse

    try:
        call = json.loads(await request.body())
    except (ValueError, RecursionError):
        return JSONResponse({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
    rid = call.get("id") if isinstance(call, dict) else None
    rid = rid if isinstance(rid, (str, int)) and not isinstance(rid, bool) and len(str(rid)) <= 255 else None
    if isinstance(call, dict) and call.get("method") == "tools/list":
        return JSONResponse({"jsonrpc": "2.0", "id": rid, "result": {"tools": []}})
    refusal = "guessgym serves no MCP tools or sessions: play a game over the /ws session socket"
    return JSONResponse({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": refusal}})


async def _refused(request: Any, exc: Exception) -> Any:
    """HTTP 422 with the one-line reason for what the game refuses (an unknown answer, an option)."""
    from fastapi.responses import JSONResponse

    return JSONResponse(status_code=422, content={"detail": str(exc).splitlines()[0] if str(exc) else
                                                  type(exc).__name__})


async def _no_game(request: Any, exc: Exception) -> Any:
    """HTTP 409 for a step with no game under way: OpenEnv's HTTP ``/step`` builds a fresh
    environment for each request, so a game is played over the ``/ws`` session socket."""
    from fastapi.responses import JSONResponse

    return JSONResponse(status_code=409, content={
        "detail": f"{exc}; OpenEnv's HTTP /reset and /step are stateless (a new game each request): play a game "
                  "over the /ws session socket (openenv's EnvClient, guessgym.serving.client.GuessgymClient)"})


#: The environment variables :func:`app_from_environment` reads (``guessgym serve`` sets them).
ENVIRONMENT = {"env_id": "GUESSGYM_SERVE_ENV", "env_kwargs": "GUESSGYM_SERVE_ENV_KWARGS",
               "max_sessions": "GUESSGYM_SERVE_MAX_SESSIONS", "idle_timeout": "GUESSGYM_SERVE_IDLE_TIMEOUT",
               "max_body_bytes": "GUESSGYM_SERVE_MAX_BODY_BYTES",
               "max_sessions_per_client": "GUESSGYM_SERVE_MAX_SESSIONS_PER_CLIENT",
               "max_connections": "GUESSGYM_SERVE_MAX_CONNECTIONS", "header_timeout": "GUESSGYM_SERVE_HEADER_TIMEOUT",
               "max_conversation_chars": "GUESSGYM_SERVE_MAX_CONVERSATION_CHARS",
               "max_connections_per_client": "GUESSGYM_SERVE_MAX_CONNECTIONS_PER_CLIENT",
               "request_timeout": "GUESSGYM_SERVE_REQUEST_TIMEOUT",
               "forwarded_allow_ips": "GUESSGYM_SERVE_FORWARDED_ALLOW_IPS",
               "send_timeout": "GUESSGYM_SERVE_SEND_TIMEOUT"}
#: Set by ``guessgym serve --workers N`` to its own process id: each worker ends when that process is
#: gone (killed with SIGKILL, say), instead of serving on for ever under another parent.
SUPERVISOR = "GUESSGYM_SERVE_SUPERVISOR"


def app_from_environment() -> Any:
    """:func:`make_app` of the ``GUESSGYM_SERVE_*`` variables (defaults where unset); in a worker of
    ``guessgym serve --workers N`` (:data:`SUPERVISOR` is its parent), the worker also ends when its
    parent is gone (:func:`guessgym.infra.pool.watch_parent`), or at once if it was gone before the
    worker got this far (a slow start under load)."""
    read = {key: os.environ.get(name) for key, name in ENVIRONMENT.items()}
    supervisor = os.environ.get(SUPERVISOR, "")
    if supervisor.isdigit():
        if int(supervisor) != os.getppid():  # the supervisor was killed while this worker started
            raise SystemExit(f"guessgym serve: worker {os.getpid()} ends: its supervisor (process {supervisor}) "
                             "is gone")
        from ..infra.pool import watch_parent

        watch_parent(int(supervisor))
    per_client, connections_per_client = read["max_sessions_per_client"], read["max_connections_per_client"]
    return make_app(read["env_id"] or "guessgym/WordleChat-v0", json.loads(read["env_kwargs"] or "{}"),
                    max_sessions=int(read["max_sessions"] or DEFAULT_MAX_SESSIONS),
                    idle_timeout=float(read["idle_timeout"] or DEFAULT_IDLE_TIMEOUT),
                    max_body_bytes=int(read["max_body_bytes"] or DEFAULT_MAX_BODY_BYTES),
                    max_sessions_per_client=int(per_client) if per_client else None,
                    max_connections=int(read["max_connections"] or DEFAULT_MAX_CONNECTIONS),
                    header_timeout=float(read["header_timeout"] or DEFAULT_HEADER_TIMEOUT),
                    max_conversation_chars=int(read["max_conversation_chars"] or DEFAULT_MAX_CONVERSATION_CHARS),
                    max_connections_per_client=int(connections_per_client) if connections_per_client else None,
                    request_timeout=float(read["request_timeout"] or DEFAULT_REQUEST_TIMEOUT),
                    forwarded_allow_ips=read["forwarded_allow_ips"] or None,
                    send_timeout=float(read["send_timeout"] or DEFAULT_SEND_TIMEOUT))


def uvicorn_options(app: Any) -> dict[str, Any]:
    """The uvicorn settings every server of :func:`make_app`'s ``app`` runs with (``guessgym serve``
    and :func:`serving`): socket messages bounded like request bodies (the app's ``max_body_bytes``,
    enforced by :class:`~.guard.RequestGuard` once read; uvicorn reads up to
    :data:`~.guard.SOCKET_READ_FACTOR` times as much before it drops the connection),
    connections bounded in number and time, HTTP's and the session socket's
    (:mod:`~guessgym.serving.transport`), proxy headers
    believed only from the app's ``forwarded_allow_ips`` (uvicorn believes 127.0.0.1's unless
    told), no per-message compression (on a local network it costs more CPU than it saves), quiet
    logs."""
    settings = app.state.guessgym
    trusted = settings["forwarded_allow_ips"]
    return {"log_level": "warning", "ws_max_size": SOCKET_READ_FACTOR * settings["max_body_bytes"],
            "ws_per_message_deflate": False, "http": PROTOCOL, "ws": WS_PROTOCOL, "proxy_headers": bool(trusted),
            "forwarded_allow_ips": trusted or ""}


@contextmanager
def serving(app: Any, host: str = "127.0.0.1", port: int = 0, *, start_timeout: float = 30.0) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a thread of this process for the block; yield its base URL
    (``port=0``: a free port). For tests, benchmarks and notebooks; ``guessgym serve`` is the
    command. Stopped (its sessions closed) when the block ends.

    Raises:
        TimeoutError: the server did not start within ``start_timeout`` seconds.
    """
    import socket
    import threading
    import time

    import uvicorn

    if port == 0:
        with socket.socket() as probe:
            probe.bind((host, 0))
            port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, timeout_graceful_shutdown=2,
                                           **uvicorn_options(app)))
    thread = threading.Thread(target=server.run, name="guessgym-serve", daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise TimeoutError(f"the server on {host}:{port} did not start within {start_timeout:g} s")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(start_timeout)


def __getattr__(name: str) -> Any:
    """``app``: built on first use (``uvicorn guessgym.serving.app:app``, ``openenv.yaml``)."""
    if name == "app":
        globals()["app"] = built = app_from_environment()
        return built
    raise AttributeError(name)


__all__ = ["DEFAULT_IDLE_TIMEOUT", "DEFAULT_MAX_BODY_BYTES", "DEFAULT_MAX_SESSIONS", "ENVIRONMENT",
           "PENDING_BODIES_PER_CLIENT", "SUPERVISOR", "UNSERVED_ROUTES", "BodyLimit", "app_from_environment",
           "make_app", "serving", "uvicorn_options"]
