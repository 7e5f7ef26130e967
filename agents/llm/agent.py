"""The language-model agent: a :class:`~guessgym.agents.text.TextAgent` backed by any
OpenAI-compatible chat-completions server."""

from __future__ import annotations

from typing import Any

from ..text import ModelReply, TextAgent
from .client import DEFAULT_MAX_BODY_BYTES, ChatCompletionsClient

#: Where a local server (vLLM, llama.cpp, Ollama's OpenAI API) usually listens.
DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"


class LLMAgent(TextAgent):
    """A language model served over an OpenAI-compatible chat-completions API.

    Args:
        model: the model name on the server (``guessgym evaluate --agent llm:MODEL``).
        base_url: the API root (default ``http://127.0.0.1:8000/v1``).
        temperature, top_p, max_tokens, seed: sampling settings sent with every request
            (``None``: the server's default); ``temperature`` defaults to 0.
        extra_body: more fields for every request body (e.g. ``{"stop": ["\\n\\n"]}``).
        api_key_env: the environment variable holding the key (default ``OPENAI_API_KEY``;
            the key itself is never stored in results or transcripts).
        timeout, max_retries, backoff, max_backoff, concurrency, max_body_bytes: see
            :class:`~guessgym.agents.llm.client.ChatCompletionsClient`.
    """

    def __init__(self, model: str, base_url: str = DEFAULT_BASE_URL, *, temperature: float | None = 0.0,
                 top_p: float | None = None, max_tokens: int | None = None, seed: int | None = None,
                 extra_body: dict[str, Any] | None = None, api_key_env: str = "OPENAI_API_KEY",
                 timeout: float = 120.0, max_retries: int = 4, backoff: float = 1.0, max_backoff: float = 30.0,
                 concurrency: int = 4, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        self.client = ChatCompletionsClient(base_url, model, api_key_env=api_key_env, timeout=timeout,
                                            max_retries=max_retries, backoff=backoff, max_backoff=max_backoff,
                                            concurrency=concurrency, max_body_bytes=max_body_bytes)
        self.model = model
        self.name = f"llm:{model}"
        self.concurrency = concurrency
        if extra_body is not None and not isinstance(extra_body, dict):
            raise ValueError(f"extra_body must be a dict of request fields, got {extra_body!r}")
        self.sampling: dict[str, Any] = {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens,
                                         "seed": seed, **(extra_body or {})}

    def reply(self, messages: list[dict[str, str]]) -> ModelReply:
        return self.client.complete(messages, **self.sampling)

    def describe(self) -> str:
        return f"language model {self.model!r} at {self.client.base_url}"

    def config(self) -> dict[str, Any]:
        """The model and its sampling settings (not the server address: the same model served
        elsewhere, or on another port after a restart, continues the same evaluation)."""
        return {"agent": self.name, "model": self.model,
                "sampling": {k: v for k, v in self.sampling.items() if v is not None}}

    def cancel(self) -> None:
        self.client.cancel()

    def close(self) -> None:
        self.client.close()


__all__ = ["DEFAULT_BASE_URL", "LLMAgent"]
