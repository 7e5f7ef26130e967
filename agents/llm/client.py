"""A client for OpenAI-compatible chat-completions servers (vLLM, llama.cpp's server, Ollama,
hosted APIs), with the failure handling an evaluation needs.

One :class:`ChatCompletionsClient` is shared by the threads of an evaluation (``httpx.Client`` is
thread-safe and pools connections up to ``concurrency``). Each :meth:`~ChatCompletionsClient.complete`
call is bounded: a deadline on each whole request (connecting, sending and reading the complete
reply: a server that trickles bytes cannot hold a request past it), and at most ``max_retries``
retries of *transient* failures
(the server unreachable or timing out, HTTP 408/409/425/429/5xx, a malformed or empty response),
with exponential backoff (``backoff * 2 ** k``, jittered, at most ``max_backoff``; a
``Retry-After`` header is honoured within that cap). A failure that a retry cannot fix (HTTP 401
or 403: credentials; 404: usually a wrong model name; any other 4xx) or a transient one that
outlasts the retries raises :class:`ModelServerError` with one message naming the server, what
happened and what to check. Nothing here waits without a bound: :meth:`~ChatCompletionsClient.cancel`
(what Ctrl-C calls) ends every request in flight within a fraction of a second.

**Credentials.** The key (``api_key`` or ``$OPENAI_API_KEY``) and any user-info in ``base_url``
(``http://user:KEY@host/v1``, sent as HTTP basic auth) are secrets: :attr:`~ChatCompletionsClient.base_url`
shows the address without them, and every message this client raises or passes on (a server's
error body that echoes the key, a transport error naming the URL) and every reply it returns (a
server that echoes the request's headers into the model's text) has them replaced by ``***``, in
every form they were sent in: as given, URL-encoded, JSON-escaped, and base64 (the basic-auth
header's ``user:password``), before any text is cut short.

**Bounds.** A response body is read up to ``max_body_bytes`` (8 MiB unless told: a reply the chat
environment accepts is at most 10 million characters, and 100,000 by default); a longer one is a
transient failure, retried and then reported, never held in memory whole.

Why httpx (the ``llm`` extra) and not ``urllib``: connection pooling across threads, separate
connect and read timeouts, and clear exception types for each transport failure.
"""

from __future__ import annotations

import base64
import json
import os
import random
import threading
import time
from collections.abc import Iterable
from typing import Any

from ..text import ModelReply

#: HTTP statuses worth a retry.
TRANSIENT_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})

#: The most retries of one request (with the longest backoff, about an hour of waiting).
MAX_RETRIES = 100
#: The most connections kept open.
MAX_CONCURRENCY = 1024
#: The largest ``max_body_bytes`` allowed.
MAX_BODY_BYTES_LIMIT = 1 << 30


class ModelServerError(RuntimeError):
    """A model-server failure that retrying will not fix; the message says what to check."""


class RequestCancelled(RuntimeError):
    """:meth:`ChatCompletionsClient.cancel` was called while the request was in flight."""


#: What replaces a secret in every message.
REDACTED = "***"

#: The largest response body read (see the module docstring).
DEFAULT_MAX_BODY_BYTES = 8 << 20


def secret_forms(secret: str) -> set[str]:
    """The forms ``secret`` may take in text that echoes it: as it is, URL-encoded (``%XX`` and
    ``+`` for spaces), JSON-escaped, and base64 (standard and URL-safe, with and without padding)."""
    from urllib.parse import quote, quote_plus

    encoded = secret.encode()
    b64 = {base64.b64encode(encoded).decode(), base64.urlsafe_b64encode(encoded).decode()}
    return {secret, quote(secret, safe=""), quote_plus(secret), json.dumps(secret)[1:-1],
            json.dumps(secret, ensure_ascii=False)[1:-1], *b64, *(f.rstrip("=") for f in b64)} - {""}


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every form (:func:`secret_forms`) of every non-empty secret replaced by
    :data:`REDACTED`, longest first."""
    forms = {f for s in secrets if s for f in secret_forms(s)}
    for secret in sorted(forms, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def split_credentials(url: str) -> tuple[str, tuple[str, str] | None]:
    """``url`` without user-info, and the ``(user, password)`` it held (``None`` if none)."""
    from urllib.parse import unquote, urlsplit, urlunsplit

    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    return urlunsplit(parts._replace(netloc=host)), (unquote(user), unquote(password))


class _Transient(Exception):
    """A failure worth another try (internal), with the server's ``Retry-After`` if it sent one."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ChatCompletionsClient:
    """Chat completions from one model on one OpenAI-compatible server.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8000/v1`` (requests go to
            ``{base_url}/chat/completions``).
        model: the model name the server serves.
        api_key: the key; ``None`` reads the environment variable ``api_key_env`` (a local server
            usually needs none).
        api_key_env: where the key is read from (default ``OPENAI_API_KEY``).
        timeout: seconds a request may take (connecting, and waiting for the whole reply).
        max_retries: retries of a transient failure per request.
        backoff, max_backoff: first and longest wait between retries, in seconds.
        concurrency: connections kept open (the evaluation's number of games in flight).
        max_body_bytes: the largest response body read (a longer one is a transient failure).

    Raises:
        ImportError: httpx is not installed (``pip install "guessgym[llm]"``).
        ValueError: a bad argument (named).
    """

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None,
                 api_key_env: str = "OPENAI_API_KEY", timeout: float = 120.0, max_retries: int = 4,
                 backoff: float = 1.0, max_backoff: float = 30.0, concurrency: int = 4,
                 max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        try:
            import httpx
        except ImportError as exc:
            raise ImportError('the LLM agent needs httpx: pip install "guessgym[llm]"') from exc
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL such as http://127.0.0.1:8000/v1, got {base_url!r}")
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a non-empty model name, got {model!r}")
        for name, value in (("timeout", timeout), ("backoff", backoff), ("max_backoff", max_backoff)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise ValueError(f"{name} must be a number of seconds >= 0, got {value!r}")
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout!r}")
        for name, value, low, high in (("max_retries", max_retries, 0, MAX_RETRIES),
                                       ("concurrency", concurrency, 1, MAX_CONCURRENCY),
                                       ("max_body_bytes", max_body_bytes, 1024, MAX_BODY_BYTES_LIMIT)):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be a whole number from {low:,} to {high:,}, got {value!r}")
        address, userinfo = split_credentials(base_url.rstrip("/"))
        key = api_key if api_key is not None else os.environ.get(api_key_env)
        self._secrets = [v for v in (key, *(userinfo or ()), ":".join(userinfo) if userinfo else "") if v]
        self.max_body_bytes = max_body_bytes
        #: The API root without user-info: what results, tables and messages show.
        self.base_url = address
        self.url = f"{self.base_url}/chat/completions"
        self.model = model
        self.api_key_env = api_key_env
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self.timeout, self.max_retries = float(timeout), max_retries
        self.backoff, self.max_backoff = float(backoff), float(max_backoff)
        self._httpx = httpx
        self._client = httpx.Client(
            headers=headers, timeout=httpx.Timeout(self.timeout), follow_redirects=False,
            auth=httpx.BasicAuth(*userinfo) if userinfo else None,
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
        )
        self._random = random.Random(0)
        self._lock = threading.Lock()
        self._cancelled = threading.Event()
        self._live: set[Any] = set()

    def redact(self, text: str) -> str:
        """``text`` without this client's secrets (the key, the URL's user-info)."""
        return redact(text, self._secrets)

    def cancel(self) -> None:
        """End every request in flight and refuse new ones (:class:`RequestCancelled`): what an
        interrupted evaluation calls so that its threads stop within a fraction of a second."""
        self._cancelled.set()
        with self._lock:
            live = list(self._live)
        for response in live:
            try:
                response.close()
            except Exception:  # closing from another thread may race the reader
                pass

    def close(self) -> None:
        self._client.close()

    def complete(self, messages: list[dict[str, str]], **sampling: Any) -> ModelReply:
        """One reply to ``messages``; ``sampling`` (temperature, max_tokens, ...) goes into the body.

        Raises:
            ModelServerError: a failure that retrying does not fix (see the module docstring).
            RequestCancelled: :meth:`cancel` was called.
        """
        body = {"model": self.model, "messages": messages, **{k: v for k, v in sampling.items() if v is not None}}
        try:
            return self._complete(json.dumps(body).encode())
        except ModelServerError as exc:  # the one place secrets leave: every failure passes here
            raise ModelServerError(self.redact(str(exc))) from None

    def _complete(self, payload: bytes) -> ModelReply:
        last = _Transient("")
        for attempt in range(self.max_retries + 1):
            if attempt:
                self._sleep(attempt, last.retry_after)
            try:
                return self._request(payload)
            except _Transient as exc:
                last = exc
        raise ModelServerError(f"the model server at {self.base_url} failed {self.max_retries + 1} times in a row "
                               f"for model {self.model!r}; last: {last}")

    # ---- one request ------------------------------------------------------------------------------
    def _request(self, payload: bytes) -> ModelReply:
        """One request under a deadline: the exchange runs in a daemon thread, and this thread
        waits for it at most ``timeout`` seconds (noticing :meth:`cancel` within 50 ms)."""
        if self._cancelled.is_set():
            raise RequestCancelled("the evaluation was interrupted")
        start = time.perf_counter()
        deadline = start + self.timeout
        box: dict[str, Any] = {}
        finished = threading.Event()

        def exchange() -> None:
            try:
                box["value"] = self._exchange(payload, deadline)
            except BaseException as exc:  # handed to the waiting thread
                box["error"] = exc
            finally:
                finished.set()

        threading.Thread(target=exchange, name="guessgym-llm-request", daemon=True).start()
        while not finished.wait(max(0.0, min(0.05, deadline - time.perf_counter()))):
            if self._cancelled.is_set():
                raise RequestCancelled("the evaluation was interrupted")
            if time.perf_counter() >= deadline:
                raise _Transient(f"no complete reply within the {self.timeout:g} s timeout")
        if "error" in box:
            error = box["error"]
            if self._cancelled.is_set():
                raise RequestCancelled("the evaluation was interrupted")
            raise error
        status, headers, body = box["value"]
        return self._reply(status, headers, body, time.perf_counter() - start)

    def _exchange(self, payload: bytes, deadline: float) -> tuple[int, Any, bytes]:
        """Send the request and read the whole reply, stopping at the deadline between chunks."""
        httpx = self._httpx
        try:
            with self._client.stream("POST", self.url, content=payload) as response:
                with self._lock:
                    self._live.add(response)
                try:
                    chunks, size = [], 0
                    too_long = _Transient(f"the response was over the {self.max_body_bytes:,} bytes read "
                                          "(max_body_bytes)")
                    declared = response.headers.get("content-length", "")
                    if declared.isdigit() and int(declared) > self.max_body_bytes:
                        raise too_long
                    for chunk in response.iter_bytes():
                        size += len(chunk)
                        if size > self.max_body_bytes:
                            raise too_long
                        chunks.append(chunk)
                        if time.perf_counter() >= deadline or self._cancelled.is_set():
                            raise _Transient(f"no complete reply within the {self.timeout:g} s timeout")
                finally:
                    with self._lock:
                        self._live.discard(response)
                return response.status_code, response.headers, b"".join(chunks)
        except httpx.TimeoutException:
            raise _Transient(f"no complete reply within the {self.timeout:g} s timeout") from None
        except httpx.TransportError as exc:
            raise _Transient(f"cannot reach {self.url} ({type(exc).__name__}: {exc}); is the server running?") from None
        except httpx.StreamError as exc:
            raise _Transient(f"the reply broke off ({type(exc).__name__})") from None

    def _reply(self, status: int, headers: Any, body: bytes, latency: float) -> ModelReply:
        """The model's reply from a complete HTTP response, or the failure it says (secrets
        redacted from both, before any text is cut)."""
        error = _error_text(body, self.redact)
        if status in TRANSIENT_STATUSES:
            raise _Transient(f"HTTP {status}: {error}", _retry_after(headers))
        if 300 <= status < 400:
            raise ModelServerError(
                f"the model server at {self.base_url} answered with a redirect (HTTP {status} to "
                f"{headers.get('location', '?')}); give that address as base_url")
        if status in (401, 403):
            raise ModelServerError(
                f"the model server at {self.base_url} refused the credentials (HTTP {status}: "
                f"{error}); check the key in ${self.api_key_env}")
        if status == 404:
            raise ModelServerError(
                f"the model server at {self.base_url} answered HTTP 404 for {self.url} ({error}): "
                f"check the model name {self.model!r}{self._served_models()} and that base_url ends with the API "
                "root (usually /v1)")
        if status >= 400:
            raise ModelServerError(f"the model server at {self.base_url} rejected the request (HTTP {status}: "
                                   f"{error})")
        try:
            data = json.loads(body)
            choice = data["choices"][0]
            text = choice["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            shown = self.redact(body.decode("utf-8", "replace"))[:200]
            raise _Transient(f"a malformed response (HTTP {status}): {shown!r}") from None
        if not isinstance(text, str):
            text = "" if text is None else str(text)
        text = self.redact(text)
        usage = data.get("usage") or {}
        if not isinstance(usage, dict):
            usage = {}
        return ModelReply(text=text, prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
                          completion_tokens=_int_or_none(usage.get("completion_tokens")), latency=latency,
                          finish_reason=choice.get("finish_reason") if isinstance(choice, dict) else None)

    def _served_models(self) -> str:
        """``" (the server lists: a, b)"`` when ``GET /models`` answers, else ``""``."""
        try:
            listed = self._client.get(f"{self.base_url}/models", timeout=min(self.timeout, 5.0)).json()["data"]
            names = [str(m["id"]) for m in listed][:10]
        except Exception:
            return ""
        return f" (the server lists: {', '.join(names)})" if names else ""

    def _sleep(self, attempt: int, retry_after: float | None) -> None:
        with self._lock:
            jitter = 0.5 + self._random.random()
        wait = self.backoff * 2 ** (attempt - 1) * jitter
        if retry_after is not None:
            wait = max(wait, retry_after)
        time.sleep(min(self.max_backoff, wait))


def _retry_after(headers: Any) -> float | None:
    value = headers.get("retry-after")
    try:
        return None if value is None else max(0.0, float(value))
    except ValueError:
        return None


def _error_text(body: bytes, clean: Any = str) -> str:
    """The server's error message (OpenAI-style ``{"error": {"message"}}``), or the start of the
    body, passed through ``clean`` (the redaction) before it is cut."""
    try:
        data = json.loads(body)
        error = data.get("error", data)
        message = error.get("message") if isinstance(error, dict) else error
        return str(clean(str(message)))[:300]
    except Exception:  # any body that is not that JSON
        return str(clean(body[:100_000].decode("utf-8", "replace")))[:300].strip() or "no message"


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


__all__ = ["DEFAULT_MAX_BODY_BYTES", "REDACTED", "TRANSIENT_STATUSES", "ChatCompletionsClient", "ModelServerError",
           "RequestCancelled", "redact", "secret_forms", "split_credentials"]
