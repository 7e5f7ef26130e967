"""Chat environments for language-model agents: a game played in conversation.

:class:`ChatGuessEnv` (registered as ``guessgym/WordleChat-v0`` and ``guessgym/NerdleChat-v0``)
is built from small parts, each replaceable: the rules in words (:func:`rules_text`), the message
templates (:class:`ChatPrompts`), the reply parser (:class:`ReplyParser`) and the tile feedback
(:class:`TileFeedback`).
"""

from __future__ import annotations

from .env import AnyText, ChatGuessEnv
from .feedback import FEEDBACK_STYLES, TileFeedback
from .prompts import TEMPLATE_FIELDS, ChatPrompts
from .replies import INVALID_KINDS, REPLY_FORMATS, ReplyParser, Verdict
from .rules import rules_text

__all__ = [
    "FEEDBACK_STYLES", "INVALID_KINDS", "REPLY_FORMATS", "TEMPLATE_FIELDS", "AnyText", "ChatGuessEnv", "ChatPrompts",
    "ReplyParser", "TileFeedback", "Verdict", "rules_text",
]
