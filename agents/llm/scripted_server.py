"""A local OpenAI-compatible chat-completions server whose "models" are scripts.

It lets the LLM agent, the evaluation loop and framework adapters be tested, and a pipeline be
dry-run, with no network and no model: :class:`ScriptedServer` listens on ``127.0.0.1`` (a free
port) in a background thread, answers ``POST /v1/chat/completions`` and ``GET /v1/models``, and
counts what it did, so a test can check an evaluation's accounting against the script exactly.

The models, by name:

* ``"solver"``: reads the tiles in the conversation and replies with a guessgym baseline's next
  guess (``least-worst`` by default), e.g. ``"My guess: [crane]"``: it plays exactly as that
  baseline does through the plain environment.
* ``"faulty"``: the same player, but each game's first replies are invalid, in this order: no
  guess in the format, an unknown word, a reply of ``long_reply`` characters; and one reply in
  each game is slow (``slow_seconds``). With ``invalid="retry"`` and ``max_retries >= 3`` every
  game ends as the solver's, with exactly those three invalid replies.
* ``"flaky"``: the solver, but the first two requests with a given conversation fail, with HTTP
  429 (``Retry-After: 0``) and then a malformed JSON body; the retries then get the reply.
* ``"broken"``: always HTTP 500.
* ``"sleepy"``: answers after ``sleepy_seconds`` (longer than a client's timeout, to test it).
* ``"rambler"``: never gives a guess in the format (every game ends lost by invalid replies).
* ``"sloppy"``: the solver, but its second reply plays its first guess again (a repeated guess,
  which ignores the first guess's tiles; an invalid reply where repeats are, ``repeats="invalid"``).
* ``"trickler"``: the solver's reply, sent one byte every ``trickle_seconds`` (each read is quick,
  the whole reply is not: a per-read timeout never fires).
* ``"echo"``: HTTP 400 whose error message repeats the request's ``Authorization`` header (a
  server that echoes the key).
* ``"mover"``: HTTP 307 to another address.
* ``"parrot"``: the solver, whose every reply also repeats the request's ``Authorization`` header,
  as sent (``Bearer KEY``, or ``Basic`` and the base64 of ``user:password``), and decoded (a
  server that echoes the credentials into the model's text).
* ``"flood"``: a well-formed reply of ``flood_chars`` characters (a model that never stops), sent
  with its ``Content-Length`` or, with ``flood_sized=False``, without (read until the connection closes).

A request with ``"stream": true`` gets its reply as server-sent events, as OpenAI streams one (the
reply in one delta, the finish reason, the usage when ``stream_options.include_usage`` asks, then
``[DONE]``); message contents given as lists of parts are read as their text. Any other model name
gets HTTP 404 with an OpenAI-style error. With ``api_key`` set, a request
without ``Authorization: Bearer <api_key>`` gets HTTP 401. Every reply reports ``usage``:
prompt tokens are the number of whitespace-separated words of the conversation, completion
tokens those of the reply (a stand-in that makes the token accounting checkable).

Examples:
    >>> from guessgym.envs.game import nerdle
    >>> with ScriptedServer(nerdle(5)) as server:
    ...     server.base_url.startswith("http://127.0.0.1:")
    True
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ...envs.game import Game
from ...envs.scoring import tiles_to_pattern

MODELS = ("solver", "faulty", "flaky", "broken", "sleepy", "rambler", "sloppy", "trickler", "echo", "mover", "parrot",
          "flood")

_FEEDBACK = re.compile(r"Guess \d+ of \d+: (\S+)\n([GYPB](?: [GYPB])*)")


class ScriptedSolver:
    """A deterministic baseline reading its game from text: every ``Guess N of M: GUESS`` line
    followed by its tiles (the chat environment's feedback) is replayed, and :meth:`next_guess`
    is the baseline's next guess. Thread-safe.

    Examples:
        >>> from guessgym.envs.game import nerdle
        >>> solver = ScriptedSolver(nerdle(5))
        >>> first = solver.next_guess("")
        >>> solver.next_guess(f"Guess 1 of 6: {first}\\nG G G G G") == first  # solved: it stays
        True
    """

    def __init__(self, game: Game, baseline: str = "least-worst") -> None:
        from ..base import CandidateAgent
        from ..registry import make_agent

        agent = make_agent(baseline)
        if not isinstance(agent, CandidateAgent):
            raise ValueError(f"the scripted solver plays a deterministic baseline; {baseline!r} is not one")
        self.game = game
        self._agent = agent
        self._lock = threading.Lock()

    def next_guess(self, text: str) -> str:
        """The baseline's guess after the guesses and tiles shown in ``text``."""
        history = [(g, tiles_to_pattern(t, self.game.length)) for g, t in _FEEDBACK.findall(text)]
        if history and history[-1][1] == self.game.solved_pattern:
            return history[-1][0]
        with self._lock:
            self._agent.begin(self.game)
            for guess, pattern in history:
                self._agent.observe(self.game.guess_index[guess], pattern)
            return self.game.guesses[self._agent.propose()]


class ScriptedServer:
    """The server (see the module docstring); a context manager that starts and stops it.

    Args:
        game: the game the scripted models play (their baseline needs it).
        baseline: the registered baseline the solver plays.
        api_key: the key requests must carry (``None``: no check).
        long_reply: length of the faulty model's over-long reply.
        slow_seconds: delay of the faulty model's slow reply; ``sleepy_seconds``: the sleepy model's.
        delay: seconds added to every reply (to keep games in flight in tests of interruption).
        trickle_seconds: the trickler's pause between bytes.
        flood_chars, flood_sized: the flood model's reply length, and whether its length is sent.
    """

    def __init__(self, game: Game, *, baseline: str = "least-worst", api_key: str | None = None,
                 long_reply: int = 5_000, slow_seconds: float = 0.2, sleepy_seconds: float = 5.0,
                 delay: float = 0.0, trickle_seconds: float = 0.5, flood_chars: int = 1 << 20,
                 flood_sized: bool = True) -> None:
        self.solver = ScriptedSolver(game, baseline)
        self.game = game
        self.api_key = api_key
        self.long_reply, self.slow_seconds = long_reply, slow_seconds
        self.sleepy_seconds, self.delay = sleepy_seconds, delay
        self.trickle_seconds = trickle_seconds
        self.flood_chars, self.flood_sized = flood_chars, flood_sized
        self._lock = threading.Lock()
        #: what the server did: requests per model, failures by kind, replies by kind
        self.counts: Counter[str] = Counter()
        self._seen: Counter[str] = Counter()
        server = self
        handler = type("Handler", (_Handler,), {"scripted": server})
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._http.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> ScriptedServer:
        self._thread = threading.Thread(target=self._http.serve_forever, name="scripted-llm-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def count(self, key: str) -> None:
        with self._lock:
            self.counts[key] += 1

    # ---- the models ----------------------------------------------------------------------------
    def solver_guess(self, messages: list[dict[str, str]]) -> str:
        """The baseline's next guess for the tiles shown in ``messages``."""
        return self.solver.next_guess("\n".join(m["content"] for m in messages if m.get("role") == "user"))

    def respond(self, model: str, messages: list[dict[str, str]],
                authorization: str = "") -> tuple[int, Any, dict[str, str]]:
        """(status, body, headers) for one request (a :class:`Trickle` body is sent byte by byte)."""
        self.count(f"requests:{model}")
        if model == "echo":
            return 400, {"error": {"message": f"bad request from {authorization!r}"}}, {}
        if model == "flood":
            data = json.dumps(_completion(model, messages, "x" * self.flood_chars)).encode()
            return 200, (data if self.flood_sized else Unsized(data)), {}
        if model == "parrot":
            decoded = ""
            if authorization.startswith("Basic "):
                import base64

                decoded = base64.b64decode(authorization[6:]).decode("utf-8", "replace")
            text = f"You sent {authorization} ({decoded}). My guess: [{self.solver_guess(messages)}]"
            return 200, _completion(model, messages, text), {}
        if model == "mover":
            return 307, {"error": {"message": "moved"}}, {"Location": "http://127.0.0.1:9/v1/chat/completions"}
        if model == "trickler":
            text = f"My guess: [{self.solver_guess(messages)}]"
            return 200, Trickle(json.dumps(_completion(model, messages, text)).encode(), self.trickle_seconds), {}
        if model == "broken":
            self.count("failures:500")
            return 500, {"error": {"message": "the scripted server is broken"}}, {}
        if model == "sleepy":
            time.sleep(self.sleepy_seconds)
        if model == "flaky":
            key = json.dumps(messages, sort_keys=True)
            with self._lock:
                seen = self._seen[key]
                self._seen[key] += 1
            if seen == 0:
                self.count("failures:429")
                return 429, {"error": {"message": "rate limited"}}, {"Retry-After": "0"}
            if seen == 1:
                self.count("failures:malformed")
                return 200, b'{"choices": [', {}
        if self.delay:
            time.sleep(self.delay)
        if model == "rambler":
            return 200, _completion(model, messages, "Let me think about this a little longer..."), {}
        earlier = [m.get("content", "") for m in messages if m.get("role") == "assistant"]
        turn = len(earlier)
        if model == "sloppy" and turn == 1:
            text = earlier[0]  # the first reply again, whatever its tiles said
            self.count("sloppy:repeat")
        elif model == "faulty" and turn < 3:
            replies = ("I would rather not say.", "[" + "z" * self.game.length + "]",
                       "x" * self.long_reply + f" [{self.solver_guess(messages)}]")
            text = replies[turn]
            self.count(f"faulty:{turn}")
        else:
            if model == "faulty" and turn == 3:
                time.sleep(self.slow_seconds)
            text = f"My guess: [{self.solver_guess(messages)}]"
        return 200, _completion(model, messages, text), {}


def _plain(message: Any) -> dict[str, str]:
    """A request message with its content as text (a list of content parts joined by their text)."""
    if not isinstance(message, dict):
        return {"role": "", "content": ""}
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return {**message, "content": content if isinstance(content, str) else ""}


def _completion(model: str, messages: list[dict[str, str]], text: str) -> dict[str, Any]:
    """A chat-completion body with ``text`` and the stand-in token counts (words)."""
    prompt_tokens = sum(len(m.get("content", "").split()) for m in messages)
    return {
        "id": "scripted", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(text.split()),
                  "total_tokens": prompt_tokens + len(text.split())},
    }


class EventStream(bytes):
    """A body sent as server-sent events (``Content-Type: text/event-stream``)."""


def _stream(body: dict[str, Any], usage: bool) -> EventStream:
    """A completion as OpenAI streams one (``"stream": true``): the reply in one delta, a chunk with
    the finish reason, the usage when ``stream_options.include_usage`` asks for it, then ``[DONE]``."""
    choice = body["choices"][0]
    base = {"id": body["id"], "object": "chat.completion.chunk", "created": body["created"], "model": body["model"]}
    chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": choice["message"]["content"]},
                                    "finish_reason": None}]},
              {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]}]
    if usage:
        chunks.append({**base, "choices": [], "usage": body["usage"]})
    return EventStream(("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode())


class Trickle(bytes):
    """A body the server sends one byte at a time, ``pause`` seconds apart."""

    pause: float

    def __new__(cls, data: bytes, pause: float) -> Trickle:
        body = super().__new__(cls, data)
        body.pause = pause
        return body


class Unsized(bytes):
    """A body sent without ``Content-Length`` (the client reads until the connection closes)."""


#: The largest request body read (a chat request holds a game's whole conversation, a few MB at most).
MAX_REQUEST_BYTES = 64 << 20
#: Seconds a request may wait between reads of its connection (a client that sends half a request).
READ_TIMEOUT = 30.0


class _Handler(BaseHTTPRequestHandler):
    scripted: ScriptedServer
    timeout = READ_TIMEOUT  # socketserver's: each read of the connection waits at most this long

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: tests read the counts, not a log

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/event-stream" if isinstance(body, EventStream) else "application/json")
        if not isinstance(body, Unsized):
            self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if isinstance(body, Trickle):
            for i in range(len(data)):
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                time.sleep(body.pause)
        else:
            self.wfile.write(data)

    def _authorised(self) -> bool:
        key = self.scripted.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self.scripted.count("failures:401")
        self._send(401, {"error": {"message": "invalid api key", "type": "invalid_request_error"}})
        return False

    def do_GET(self) -> None:
        if not self._authorised():
            return
        if self.path.rstrip("/") == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in MODELS]})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        if not self._authorised():
            return
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        declared = self.headers.get("Content-Length", "0")
        if not declared.isdigit() or int(declared) > MAX_REQUEST_BYTES:
            self._send(413, {"error": {"message": f"a request body is a Content-Length of at most "
                                                  f"{MAX_REQUEST_BYTES:,} bytes"}})
            self.close_connection = True
            return
        try:
            request = json.loads(self.rfile.read(int(declared)))
            model, messages = request["model"], request["messages"]
        except (ValueError, KeyError, TypeError):
            self._send(400, {"error": {"message": "the body must be JSON with model and messages"}})
            return
        if model not in MODELS:
            self.scripted.count("failures:404")
            self._send(404, {"error": {"message": f"The model `{model}` does not exist.", "code": "model_not_found"}})
            return
        status, body, headers = self.scripted.respond(model, [_plain(m) for m in messages],
                                                      self.headers.get("Authorization", ""))
        if request.get("stream") is True and status == 200 and isinstance(body, dict):
            options = request.get("stream_options")
            body = _stream(body, isinstance(options, dict) and options.get("include_usage") is True)
        try:
            self._send(status, body, headers)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout): nothing to answer


__all__ = ["MODELS", "ScriptedServer", "ScriptedSolver"]
