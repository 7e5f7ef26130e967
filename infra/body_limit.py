"""Request bodies bounded before they are read: one ASGI middleware for every server guessgym
runs (the OpenEnv server of :mod:`guessgym.serving.app` and NeMo Gym's resources server of
:mod:`guessgym.adapters.nemo_gym`); it imports nothing of either framework.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

#: The bodies one client address may have still arriving, in request bodies of the largest size.
PENDING_BODIES_PER_CLIENT = 8

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class BodyLimit:
    """ASGI middleware refusing an HTTP request body over ``limit`` bytes with 413, by its
    ``Content-Length`` or as it streams in (the socket's messages are bounded by the server's
    ``ws_max_size``), and a body that would take its client address's bodies still arriving past
    :data:`PENDING_BODIES_PER_CLIENT` times ``limit`` with 429 (200 connections each holding back the last bytes of a
    2 MiB body took a server from 342 to 746 MiB). The refusal is sent by this middleware, whatever the
    app makes of a body that ended (FastAPI's own body parser answered 400), and closes the connection,
    so the rest of the body is never read. A session socket the client closed first, or that the
    server ended (a client that did not read), ends quietly (OpenEnv's endpoint sends to it again,
    which raises): no traceback in the log for each such client."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], limit: int) -> None:
        self.app = app
        self.limit = limit
        self.pending_per_client = PENDING_BODIES_PER_CLIENT * limit
        #: Bytes of bodies still arriving (read by the app, the request not yet answered), by client address.
        self.pending: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            import starlette.websockets

            names = ("WebSocketDisconnect", "WebSocketDisconnected")
            gone = tuple(getattr(starlette.websockets, n) for n in names if hasattr(starlette.websockets, n))
            try:
                await self.app(scope, receive, send)
            except gone:  # the client went, or its connection was ended (a client that did not read)
                pass
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            await self._refuse(send, 413, f"the request body is over {self.limit:,} bytes")
            return
        client = (scope.get("client") or ("?", 0))[0]
        seen = 0
        refused = False

        async def bounded() -> Message:
            nonlocal seen, refused
            message = await receive()
            if message["type"] == "http.request" and not refused:
                size = len(message.get("body", b""))
                seen += size
                held = self.pending[client] = self.pending.get(client, 0) + size
                why = ((413, f"the request body is over {self.limit:,} bytes") if seen > self.limit else
                       (429, f"this client has {held:,} bytes of request bodies arriving, over the "
                             f"{self.pending_per_client:,} one client may have; send fewer at once")
                       if held > self.pending_per_client else None)
                if why is not None:  # answered here, whatever the app does with a body it never gets
                    refused = True
                    await self._refuse(send, *why)
                    return {"type": "http.disconnect"}
            return message

        async def unless_refused(message: Message) -> None:
            if not refused:
                await send(message)

        try:
            await self.app(scope, bounded, unless_refused)
        except Exception:
            if not refused:
                raise  # the app's own failure; after a refusal, its complaint that the body ended is moot
        finally:
            left = self.pending.get(client, 0) - seen
            if left > 0:
                self.pending[client] = left
            else:
                self.pending.pop(client, None)

    async def _refuse(self, send: Send, status: int, reason: str) -> None:
        """Answer ``status`` with ``reason`` and close the connection (the rest of the body is not read)."""
        body = json.dumps({"detail": reason}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


__all__ = ["PENDING_BODIES_PER_CLIENT", "BodyLimit"]
