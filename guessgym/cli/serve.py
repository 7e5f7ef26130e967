"""``guessgym serve``: the chat games in OpenEnv's environment protocol (:mod:`guessgym.serving`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from .common import PROG, UsageError, parse_kwargs, positive_seconds, whole_number


def cmd_serve(args: argparse.Namespace) -> int:
    from ..infra.optional import require_extra

    require_extra("openenv", "guessgym serve")
    import uvicorn

    from ..serving.app import ENVIRONMENT, make_app, uvicorn_options

    kwargs = parse_kwargs(args.env_kwargs, "--env-kwargs")
    if args.preset is not None:
        kwargs["preset"] = args.preset
    settings = {"max_sessions": args.max_sessions, "idle_timeout": args.idle_timeout,
                "max_body_bytes": args.max_body_bytes}
    try:
        app = make_app(args.env, kwargs, **settings)  # every option checked before the port is taken
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc).splitlines()[0]) from None
    print(f"{PROG} serve: {args.env} {json.dumps(kwargs) if kwargs else ''} at http://{args.host}:{args.port} "
          f"(OpenEnv: /ws session socket, /reset, /step, /state, /schema, /health; at most {args.max_sessions} "
          f"sessions{f' per worker, {args.workers} workers' if args.workers > 1 else ''}; Ctrl-C stops)",
          file=sys.stderr, flush=True)
    options: dict[str, Any] = {"host": args.host, "port": args.port, "timeout_graceful_shutdown": 5,
                               **uvicorn_options(app)}
    if args.workers > 1:  # each worker builds the app from the environment variables
        os.environ.update({ENVIRONMENT["env_id"]: args.env, ENVIRONMENT["env_kwargs"]: json.dumps(kwargs),
                           **{ENVIRONMENT[k]: str(v) for k, v in settings.items()}})
        uvicorn.run("guessgym.serving.app:app_from_environment", factory=True, workers=args.workers, **options)
    else:
        uvicorn.run(app, **options)
    return 0


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
    p.add_argument("--workers", type=whole_number(1, 64), default=1,
                   help="server processes sharing the port (default: %(default)s)")
    p.set_defaults(func=cmd_serve)
