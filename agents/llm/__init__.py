"""Language-model agents over OpenAI-compatible servers (the ``llm`` extra: httpx)."""

from __future__ import annotations

from .agent import DEFAULT_BASE_URL, LLMAgent
from .client import ChatCompletionsClient, ModelServerError

__all__ = ["DEFAULT_BASE_URL", "ChatCompletionsClient", "LLMAgent", "ModelServerError"]
