"""``guessgym serve``: the chat games in OpenEnv's environment protocol (:mod:`guessgym.serving`)."""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from typing import Any

from .common import PROG, UsageError, parse_kwargs, positive_seconds, whole_number

#: The serving defaults, as the help states them (guessgym.serving's own, which a test holds equal;
#: not imported here, where openenv-core may be missing).
DEFAULT_MAX_CONNECTIONS = 1000
DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_REQUEST_TIMEOUT = 30.0
DEFAULT_SEND_TIMEOUT = 30.0
DEFAULT_MAX_CONVERSATION_CHARS = 8_000_000


def cmd_serve(args: argparse.Namespace) -> int:
    from ..infra.optional import require_extra

    check_port_free(args.host, args.port)  # what the user typed is checked before anything is imported or built
    require_extra("openenv", "guessgym serve")
    import uvicorn

    from ..serving.app import ENVIRONMENT, SUPERVISOR, make_app, uvicorn_options
    from ..serving.transport import RESERVED_FILES, raise_open_file_limit

    kwargs = parse_kwargs(args.env_kwargs, "--env-kwargs")
    if args.preset is not None:
        kwargs["preset"] = args.preset
    settings = {"max_sessions": args.max_sessions, "idle_timeout": args.idle_timeout,
                "max_body_bytes": args.max_body_bytes, "max_sessions_per_client": args.max_sessions_per_client,
                "max_connections": args.max_connections, "header_timeout": args.header_timeout,
                "max_conversation_chars": args.max_conversation_chars,
                "max_connections_per_client": args.max_connections_per_client,
                "request_timeout": args.request_timeout, "forwarded_allow_ips": args.forwarded_allow_ips,
                "send_timeout": args.send_timeout}
    try:
        app = make_app(args.env, kwargs, **settings)  # every option checked before the port is taken
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc).splitlines()[0]) from None
    files = raise_open_file_limit(args.max_connections)
    if 0 <= files < args.max_connections + RESERVED_FILES:
        raise UsageError(f"--max-connections {args.max_connections}: this process may open {files:,} files (ulimit "
                         f"-n), and a server keeps {RESERVED_FILES} for itself; give at most "
                         f"{max(files - RESERVED_FILES, 1):,}")
    bounds = app.state.guessgym
    per = " per worker" if args.workers > 1 else ""
    print(f"{PROG} serve: {args.env} {json.dumps(kwargs) if kwargs else ''} at http://{args.host}:{args.port} "
          f"(OpenEnv: /ws session socket, /reset, /step, /state, /schema, /health; at most {args.max_sessions} "
          f"sessions and {bounds['max_sessions_per_client']} per client address{per}"
          f"{f', {args.workers} workers' if args.workers > 1 else ''}; Ctrl-C stops)", file=sys.stderr, flush=True)
    options: dict[str, Any] = {"host": args.host, "port": args.port, "timeout_graceful_shutdown": 5,
                               **uvicorn_options(app)}
    if args.workers > 1:  # each worker builds the app from the environment variables
        os.environ.update({ENVIRONMENT["env_id"]: args.env, ENVIRONMENT["env_kwargs"]: json.dumps(kwargs),
                           **{ENVIRONMENT[k]: str(v) for k, v in settings.items() if v is not None},
                           SUPERVISOR: str(os.getpid())})
        from ..serving.workers import run_workers

        run_workers(uvicorn.Config("guessgym.serving.app:app_from_environment", factory=True, workers=args.workers,
                                   **options))
    else:
        uvicorn.run(app, **options)
    return 0


def check_port_free(host: str, port: int) -> None:
    """Fail in one line, before anything is printed, if ``host:port`` cannot be listened on (in use,
    or an address of another machine)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        raise UsageError(f"--host {host}: not an address of this machine ({exc.strerror or exc})") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds it
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRNOTAVAIL:
                raise UsageError(f"--host {host}: not an address of this machine ({exc.strerror or exc}); give one "
                                 "of its own addresses, 127.0.0.1 or 0.0.0.0 (every address)") from None
            what = "is in use" if exc.errno == errno.EADDRINUSE else f"cannot be listened on ({exc.strerror or exc})"
            raise UsageError(f"--port {port}: {host}:{port} {what}; give another --port") from None


def register(sub: Any) -> None:
    """Add this module's commands to the subparsers ``sub``."""
    p = sub.add_parser(
        "serve", help="serve a chat game in OpenEnv's protocol (for verifiers, NeMo Gym, SkyRL, TRL)",
        description="An HTTP and WebSocket server speaking OpenEnv's environment protocol, one game per session "
                    "(the /ws socket OpenEnv's EnvClient uses; /reset, /step, /state, /schema, /health): text in, "
                    "text out, rewards and invalid-reply rules exactly as the in-process chat environment gives "
                    "them. Needs the openenv extra.",
    )
    p.add_argument("--env", default="guessgym/WordleChat-v0",
                   help="a chat id, or a plain id played in conversation (default: %(default)s)")
    p.add_argument("--env-kwargs", nargs="+", metavar="KV", help="game and chat options, e.g. hard_mode=True")
    p.add_argument("--preset", help="a peer suite's rules: textarena, gem, verifiers, nemo or trl")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: %(default)s, this machine)")
    p.add_argument("--port", type=whole_number(1, 65535), default=8000, help="(default: %(default)s)")
    p.add_argument("--max-sessions", type=whole_number(1, 100_000), default=64,
                   help="sessions at once (one more is refused); per worker (default: %(default)s)")
    p.add_argument("--idle-timeout", type=positive_seconds, default=300.0, metavar="SECONDS",
                   help="end a session idle this long (default: %(default)s)")
    p.add_argument("--max-body-bytes", type=whole_number(1024, 1 << 30), default=2 << 20,
                   help="the largest request or socket message (default: %(default)s)")
    p.add_argument("--max-sessions-per-client", type=whole_number(1, 100_000), metavar="N",
                   help="sessions one client address may hold at once, per worker (default: --max-sessions; a server "
                        "shared by several clients sets it lower)")
    p.add_argument("--max-connections", type=whole_number(1, 1_000_000), default=DEFAULT_MAX_CONNECTIONS,
                   help="connections a server process holds at once, sessions' sockets included; more are closed at "
                        "once (default: %(default)s)")
    p.add_argument("--max-connections-per-client", type=whole_number(1, 1_000_000), metavar="N",
                   help="connections one client address may hold at once, per worker (default: a quarter of "
                        "--max-connections; a full server closes an idle one of the address that holds the most for an "
                        "address that holds none); a proxy named by "
                        "--forwarded-allow-ips is not held to it")
    p.add_argument("--header-timeout", type=positive_seconds, default=DEFAULT_HEADER_TIMEOUT, metavar="SECONDS",
                   help="close a connection whose request headers have not all arrived in this time "
                        "(default: %(default)s)")
    p.add_argument("--request-timeout", type=positive_seconds, default=DEFAULT_REQUEST_TIMEOUT, metavar="SECONDS",
                   help="close a connection whose whole request, headers and body, has not arrived in this time "
                        "(default: %(default)s)")
    p.add_argument("--send-timeout", type=positive_seconds, default=DEFAULT_SEND_TIMEOUT, metavar="SECONDS",
                   help="end a connection (a session socket's session with it) whose client has not taken 64 KiB "
                        "of what it was sent, its buffer full, in this time (default: %(default)s)")
    p.add_argument("--forwarded-allow-ips", metavar="ADDRESSES",
                   help="believe X-Forwarded-For (the client's address, for the per-client bounds) only from these "
                        "proxies: addresses or networks separated by commas, or * (every address's header believed, "
                        "and every address, proxies too, held to the per-client connection share; default: from "
                        "none)")
    p.add_argument("--max-conversation-chars", type=whole_number(10_000, 1_000_000_000),
                   default=DEFAULT_MAX_CONVERSATION_CHARS, metavar="N",
                   help="refuse to serve a game whose conversation, sent whole with every reply, could grow past "
                        "this many characters (default: %(default)s)")
    p.add_argument("--workers", type=whole_number(1, 64), default=1,
                   help="server processes sharing the port (default: %(default)s)")
    p.set_defaults(func=cmd_serve)
