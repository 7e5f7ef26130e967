"""A client for OpenAI-compatible chat-completions servers (vLLM, llama.cpp's server, Ollama,
hosted APIs), with the failure handling an evaluation needs.

One :class:`ChatCompletionsClient` is shared by the threads of an evaluation (``httpx.Client`` is
thread-safe and pools connections up to ``concurrency``). Each :meth:`~ChatCompletionsClient.complete`
call is bounded: a request timeout, and at most ``max_retries`` retries of *transient* failures
(the server unreachable or timing out, HTTP 408/409/425/429/5xx, a malformed or empty response),
with exponential backoff (``backoff * 2 ** k``, jittered, at most ``max_backoff``; a
``Retry-After`` header is honoured within that cap). A failure that a retry cannot fix (HTTP 401
or 403: credentials; 404: usually a wrong model name; any other 4xx) or a transient one that
outlasts the retries raises :class:`ModelServerError` with one message naming the server, what
happened and what to check. Nothing here waits without a bound.

Why httpx (the ``llm`` extra) and not ``urllib``: connection pooling across threads, separate
connect and read timeouts, and clear exception types for each transport failure.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from typing import Any

from ..text import ModelReply

#: HTTP statuses worth a retry.
TRANSIENT_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class ModelServerError(RuntimeError):
    """A model-server failure that retrying will not fix; the message says what to check."""


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

    Raises:
        ImportError: httpx is not installed (``pip install "guessgym[llm]"``).
        ValueError: a bad argument (named).
    """

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None,
                 api_key_env: str = "OPENAI_API_KEY", timeout: float = 120.0, max_retries: int = 4,
                 backoff: float = 1.0, max_backoff: float = 30.0, concurrency: int = 4) -> None:
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
        for name, value in (("max_retries", max_retries), ("concurrency", concurrency)):
            if isinstance(value, bool) or not isinstance(value, int) or value < (0 if name == "max_retries" else 1):
                raise ValueError(f"{name} must be an integer >= {0 if name == 'max_retries' else 1}, got {value!r}")
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.model = model
        self.api_key_env = api_key_env
        key = api_key if api_key is not None else os.environ.get(api_key_env)
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self.timeout, self.max_retries = float(timeout), max_retries
        self.backoff, self.max_backoff = float(backoff), float(max_backoff)
        self._httpx = httpx
        self._client = httpx.Client(
            headers=headers, timeout=httpx.Timeout(self.timeout),
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
        )
        self._random = random.Random(0)
        self._lock = threading.Lock()

    def close(self) -> None:
        self._client.close()

    def complete(self, messages: list[dict[str, str]], **sampling: Any) -> ModelReply:
        """One reply to ``messages``; ``sampling`` (temperature, max_tokens, ...) goes into the body.

        Raises:
            ModelServerError: a failure that retrying does not fix (see the module docstring).
        """
        body = {"model": self.model, "messages": messages, **{k: v for k, v in sampling.items() if v is not None}}
        payload = json.dumps(body)
        last = _Transient("")
        for attempt in range(self.max_retries + 1):
            if attempt:
                self._sleep(attempt, last.retry_after)
            start = time.perf_counter()
            try:
                return self._request(payload, start)
            except _Transient as exc:
                last = exc
        raise ModelServerError(f"the model server at {self.base_url} failed {self.max_retries + 1} times in a row "
                               f"for model {self.model!r}; last: {last}")

    # ---- one request ------------------------------------------------------------------------------
    def _request(self, payload: str, start: float) -> ModelReply:
        httpx = self._httpx
        try:
            response = self._client.post(self.url, content=payload)
        except httpx.TimeoutException:
            raise _Transient(f"no answer within the {self.timeout:g} s timeout") from None
        except httpx.TransportError as exc:
            raise _Transient(f"cannot reach {self.url} ({type(exc).__name__}: {exc}); is the server running?") from None
        latency = time.perf_counter() - start
        status = response.status_code
        if status in TRANSIENT_STATUSES:
            raise _Transient(f"HTTP {status}: {_error_text(response)}", _retry_after(response))
        if status in (401, 403):
            raise ModelServerError(
                f"the model server at {self.base_url} refused the credentials (HTTP {status}: "
                f"{_error_text(response)}); check the key in ${self.api_key_env}")
        if status == 404:
            raise ModelServerError(
                f"the model server at {self.base_url} answered HTTP 404 for {self.url} ({_error_text(response)}): "
                f"check the model name {self.model!r}{self._served_models()} and that base_url ends with the API "
                "root (usually /v1)")
        if status >= 400:
            raise ModelServerError(f"the model server at {self.base_url} rejected the request (HTTP {status}: "
                                   f"{_error_text(response)})")
        try:
            data = response.json()
            choice = data["choices"][0]
            text = choice["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise _Transient(f"a malformed response (HTTP {status}): {response.text[:200]!r}") from None
        if not isinstance(text, str):
            text = "" if text is None else str(text)
        usage = data.get("usage") or {}
        return ModelReply(text=text, prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
                          completion_tokens=_int_or_none(usage.get("completion_tokens")), latency=latency,
                          finish_reason=choice.get("finish_reason"))

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


def _retry_after(response: Any) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return None if value is None else max(0.0, float(value))
    except ValueError:
        return None


def _error_text(response: Any) -> str:
    """The server's error message (OpenAI-style ``{"error": {"message"}}``), or the start of the body."""
    try:
        data = response.json()
        error = data.get("error", data)
        message = error.get("message") if isinstance(error, dict) else error
        return str(message)[:300]
    except Exception:
        return response.text[:300].strip() or "no message"


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


__all__ = ["TRANSIENT_STATUSES", "ChatCompletionsClient", "ModelServerError"]
