"""What the server lets in, checked before OpenEnv's handlers see it.

OpenEnv's server answers a malformed request with HTTP 500 and a traceback, and ends a socket's
session on a message it cannot read (a binary frame, a JSON array, nesting 100,000 deep, a seed of
5,000 digits, a lone surrogate). :class:`RequestGuard` stands in front of it and turns each into an
error of that request or message alone:

* HTTP ``POST /reset`` and ``/step``: a body that is not a JSON object of the documented fields
  (:func:`check_http_body`) is answered ``422`` with a one-line ``detail``;
* the ``/ws`` socket: a message that is not a JSON object of a documented type
  (:func:`check_socket_message`) is answered with OpenEnv's error message (``{"type": "error",
  "data": {"message", "code"}}``) and the session plays on;
* sessions: one client (by its address) holds at most ``max_sessions_per_client`` sockets; one more
  is answered ``CAPACITY_REACHED`` like the server's own limit; a socket that sends no reset or step
  for ``idle_timeout`` seconds is closed (code 1001), as OpenEnv's reaper ends its session, so an idle
  socket holds neither a session nor its client's share.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

#: uvicorn reads socket messages of up to this many times the guard's bound (see :class:`RequestGuard`).
SOCKET_READ_FACTOR = 4

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: The largest seed a reset takes (what numpy's generators take whole, 64 bits).
MAX_SEED = 2**64 - 1
#: The longest episode id, answer text or request id (characters).
MAX_ID_CHARS = 255
#: A reset's fields: OpenEnv's (seed, episode_id) and guessgym's answer.
RESET_FIELDS = frozenset({"seed", "episode_id", "answer"})
#: An action's fields (:class:`~guessgym.serving.models.GuessAction` and OpenEnv's metadata).
ACTION_FIELDS = frozenset({"message", "metadata"})
#: An HTTP step's fields (OpenEnv's ``StepRequest``).
STEP_FIELDS = frozenset({"action", "timeout_s", "request_id"})
#: The socket's message types guessgym serves (OpenEnv's; its ``mcp`` type is not served).
SOCKET_TYPES = frozenset({"reset", "step", "state", "close"})


class BadRequest(ValueError):
    """A request or message the server does not take; its text says what and what is allowed."""

    def __init__(self, message: str, code: str = "VALIDATION_ERROR") -> None:
        super().__init__(message)
        self.code = code


def parse_object(raw: str | bytes) -> dict[str, Any]:
    """The JSON object of a request body or socket message.

    Raises:
        BadRequest: not UTF-8 JSON, nested too deep, a number too long to read, not an object, or
            a string holding a lone surrogate (which no reply could carry back).
    """
    try:
        value = json.loads(raw)
    except RecursionError:
        raise BadRequest("the JSON is nested too deep", "INVALID_JSON") from None
    except ValueError as exc:  # JSONDecodeError, a number over Python's digit limit, bad UTF-8
        raise BadRequest(f"not valid JSON: {str(exc).splitlines()[0][:200]}", "INVALID_JSON") from None
    if not isinstance(value, dict):
        raise BadRequest(f"a JSON object was expected, got {type(value).__name__}")
    if not (raw.isascii() and ("\\u" not in raw if isinstance(raw, str) else b"\\u" not in raw)):
        _check_strings(value)  # ASCII JSON without a \u escape cannot hold a surrogate: most messages
    return value


def _check_strings(value: Any) -> None:
    """Raise :class:`BadRequest` if any string (key or value) of ``value`` cannot be encoded as UTF-8."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise BadRequest("a string holds a lone surrogate (\\ud800-\\udfff), which is not text") from None
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _unknown(given: Any, allowed: frozenset[str], what: str) -> None:
    extra = sorted(set(given) - allowed)
    if extra:
        raise BadRequest(f"{what} takes {', '.join(sorted(allowed))}; got {', '.join(map(repr, extra[:5]))}")


def check_reset(data: Any) -> None:
    """A reset's parameters: ``seed`` a whole number from 0 to 2**64 - 1 (not ``true``), ``episode_id``
    a string, ``answer`` an answer's text or index; each may be null or left out."""
    if not isinstance(data, dict):
        raise BadRequest(f"a reset's data is an object, got {type(data).__name__}")
    _unknown(data, RESET_FIELDS, "a reset")
    seed = data.get("seed")
    if seed is not None and (type(seed) is not int or not 0 <= seed <= MAX_SEED):
        raise BadRequest(f"seed must be a whole number from 0 to 2**64 - 1, got {json.dumps(seed)[:40]}")
    episode = data.get("episode_id")
    if episode is not None and (not isinstance(episode, str) or len(episode) > MAX_ID_CHARS):
        raise BadRequest(f"episode_id must be a string of at most {MAX_ID_CHARS} characters")
    answer = data.get("answer")
    if answer is not None and not (isinstance(answer, str) and len(answer) <= MAX_ID_CHARS) and \
            not (type(answer) is int and 0 <= answer <= MAX_SEED):
        raise BadRequest("answer must be an answer of the game, as its text or its index")


def check_action(data: Any) -> None:
    """An action: ``{"message": "the reply"}`` (and OpenEnv's optional ``metadata`` object)."""
    if not isinstance(data, dict):
        raise BadRequest(f"an action is an object {{'message': 'the reply'}}, got {type(data).__name__}")
    _unknown(data, ACTION_FIELDS, "an action")
    if not isinstance(data.get("message"), str):
        raise BadRequest("an action's message is the reply, a string")
    if not isinstance(data.get("metadata", {}), dict):
        raise BadRequest("an action's metadata is an object")


def check_socket_message(message: dict[str, Any]) -> None:
    """A message of the ``/ws`` session socket: ``reset`` (with optional ``data``), ``step`` (its
    ``data`` the action), ``state`` or ``close``."""
    kind = message.get("type")
    if kind not in SOCKET_TYPES:
        raise BadRequest(f"the message type must be one of {', '.join(sorted(SOCKET_TYPES))}, got "
                         f"{json.dumps(kind)[:40]}", "UNKNOWN_TYPE")
    _unknown(message, frozenset({"type", "data"}), "a message")
    if kind == "reset":
        check_reset(message.get("data") or {})
    elif kind == "step":
        check_action(message.get("data"))


def check_http_body(path: str, body: bytes) -> None:
    """The body of ``POST /reset`` (reset parameters; may be empty) or ``POST /step`` (``action``,
    and OpenEnv's optional ``timeout_s`` and ``request_id``)."""
    if path == "/reset":
        if body.strip():
            check_reset(parse_object(body))
        return
    request = parse_object(body)
    _unknown(request, STEP_FIELDS, "a step")
    check_action(request.get("action"))
    timeout = request.get("timeout_s")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not math.isfinite(timeout) or timeout <= 0):
        raise BadRequest("timeout_s must be a number of seconds above 0")
    rid = request.get("request_id")
    if rid is not None and (not isinstance(rid, str) or len(rid) > MAX_ID_CHARS):
        raise BadRequest(f"request_id must be a string of at most {MAX_ID_CHARS} characters")


def error_message(message: str, code: str, **extra: Any) -> str:
    """OpenEnv's socket error message (what its ``EnvClient`` reads as an error)."""
    return json.dumps({"type": "error", "data": {"message": message, "code": code, **extra}})


class RequestGuard:
    """ASGI middleware checking requests and messages before OpenEnv's app (module docstring).

    Args:
        app: the application behind it.
        max_sessions_per_client: sockets one client address may hold at once.
        idle_timeout: seconds after which a socket with no reset or step is closed.
        max_message_bytes: the largest socket message taken; a larger one closes the socket with
            code 1009 once it has been read whole (uvicorn reads up to :data:`SOCKET_READ_FACTOR`
            times as much), so the close reaches the client instead of being lost to a reset
            connection (uvicorn's own limit closes with unread data pending, and 1 in 10 clients
            saw no close frame).
    """

    CHECKED_POSTS = frozenset({"/reset", "/step"})

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], max_sessions_per_client: int,
                 idle_timeout: float, max_message_bytes: int) -> None:
        self.app = app
        self.max_sessions_per_client = max_sessions_per_client
        self.idle_timeout = idle_timeout
        self.max_message_bytes = max_message_bytes
        self.sessions: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._socket(scope, receive, send)
        elif scope["type"] == "http" and scope.get("method") == "POST" and scope.get("path") in self.CHECKED_POSTS:
            await self._post(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def _too_large(self, message: Message) -> bool:
        text, data = message.get("text"), message.get("bytes")
        if text is not None:
            if len(text) * 4 <= self.max_message_bytes:  # no character takes more than 4 bytes
                return False
            return len(text) > self.max_message_bytes or \
                len(text.encode("utf-8", "surrogatepass")) > self.max_message_bytes
        return data is not None and len(data) > self.max_message_bytes

    async def _post(self, scope: Scope, receive: Receive, send: Send) -> None:
        chunks = []
        while True:  # the body's size is bounded by BodyLimit, in front of this middleware
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        try:
            check_http_body(scope["path"], body)
        except BadRequest as exc:
            payload = json.dumps({"detail": str(exc)}).encode()
            await send({"type": "http.response.start", "status": 422,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(payload)).encode())]})
            await send({"type": "http.response.body", "body": payload})
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = (scope.get("client") or ("?", 0))[0]
        held = self.sessions.get(client, 0)
        if scope.get("path") == "/ws" and held >= self.max_sessions_per_client:
            await receive()  # websocket.connect
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": error_message(
                f"this client holds {held} sessions, the most one client may hold on this server",
                "CAPACITY_REACHED", active_sessions=held, max_sessions=self.max_sessions_per_client)})
            await send({"type": "websocket.close", "code": 1008})
            return
        self.sessions[client] = held + 1

        loop = asyncio.get_running_loop()
        idle_until = loop.time() + self.idle_timeout

        async def checked() -> Message:
            nonlocal idle_until
            while True:
                try:
                    message = await asyncio.wait_for(receive(), timeout=max(idle_until - loop.time(), 0.0))
                except asyncio.TimeoutError:
                    await send({"type": "websocket.close", "code": 1001, "reason": "idle for too long"})
                    return {"type": "websocket.disconnect", "code": 1001}
                if message["type"] != "websocket.receive":
                    return message
                if self._too_large(message):
                    await send({"type": "websocket.close", "code": 1009,
                                "reason": f"messages are at most {self.max_message_bytes:,} bytes"})
                    return {"type": "websocket.disconnect", "code": 1009}
                try:
                    if message.get("text") is None:
                        raise BadRequest("messages are JSON text; a binary frame is not read", "INVALID_JSON")
                    parsed = parse_object(message["text"])
                    check_socket_message(parsed)
                except BadRequest as exc:
                    await send({"type": "websocket.send", "text": error_message(str(exc), exc.code)})
                    continue
                if parsed["type"] in ("reset", "step"):  # what OpenEnv's reaper counts as activity
                    idle_until = loop.time() + self.idle_timeout
                return message

        try:
            await self.app(scope, checked, send)
        finally:
            left = self.sessions[client] - 1
            if left:
                self.sessions[client] = left
            else:
                del self.sessions[client]


__all__ = ["ACTION_FIELDS", "BadRequest", "MAX_SEED", "RESET_FIELDS", "RequestGuard", "SOCKET_TYPES",
           "check_action", "check_http_body", "check_reset", "check_socket_message", "error_message",
           "parse_object"]
