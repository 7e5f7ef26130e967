"""The texts of a chat game, as templates a user can replace.

A :class:`ChatPrompts` holds one ``str.format`` template per message the environment writes.
Each template may use only its own fields (listed in :data:`TEMPLATE_FIELDS`); a template with
another field is refused when the environment is built, with the fields it may use, not in the
middle of an evaluation.

==============  ==========================================================================
template        fields
==============  ==========================================================================
``system``      ``rules`` (:func:`~guessgym.envs.chat.rules.rules_text`), ``reply_format``
                (the parser's instruction), ``attempts``, ``length``
``first_turn``  ``attempts``, ``length``
``feedback``    ``attempt``, ``attempts``, ``guess``, ``tiles``, ``words``, ``status`` (the
                guesses left, or the ``won``/``lost`` line when the game ends)
``invalid``     ``message`` (what was wrong), ``consequence`` (a retry, a lost turn, or the
                ``lost`` line when that was the last turn)
``won``         ``attempt``, ``attempts``, ``answer``
``lost``        ``attempts``, ``answer``
==============  ==========================================================================

Examples:
    >>> prompts = ChatPrompts(first_turn="Go: {attempts} tries.")
    >>> prompts.render("first_turn", attempts=6, length=5)
    'Go: 6 tries.'
    >>> ChatPrompts(won="Won with {score}!")
    Traceback (most recent call last):
    ...
    ValueError: the won template uses {score}; it may use {attempt}, {attempts}, {answer}
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, fields
from typing import Any

#: The fields each template may use.
TEMPLATE_FIELDS: dict[str, tuple[str, ...]] = {
    "system": ("rules", "reply_format", "attempts", "length"),
    "first_turn": ("attempts", "length"),
    "feedback": ("attempt", "attempts", "guess", "tiles", "words", "status"),
    "invalid": ("message", "consequence"),
    "won": ("attempt", "attempts", "answer"),
    "lost": ("attempts", "answer"),
}


#: A value of the real type for each field (what a template is tried with when it is checked).
SAMPLE_VALUES: dict[str, Any] = {"rules": "the rules", "reply_format": "[guess]", "attempts": 6, "length": 5,
                                 "attempt": 1, "guess": "crane", "tiles": "G Y B B G", "words": "green, ...",
                                 "status": "5 guesses left", "message": "unknown word", "consequence": "try again",
                                 "answer": "crane"}


#: The widest a template's field may be padded (``{rules:>80}``): a width or precision is a size
#: to allocate, and ``{rules:>3000000000}`` would take 3 GB.
MAX_FIELD_WIDTH = 1_000


def check_field_widths(template: str, what: str) -> None:
    """Refuse a format string ``template`` (``what`` it is, for the message) one of whose fields has a
    width or precision over :data:`MAX_FIELD_WIDTH`, or that is not a format string at all.

    Raises:
        ValueError: naming the template and the limit.
    """
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(f"the {what} {template!r} is not a valid format string: {exc}") from None
    for _, _, spec, _ in parsed:
        if spec and any(int(n) > MAX_FIELD_WIDTH for n in re.findall(r"\d+", spec)):
            raise ValueError(f"the {what} {_short(template)} pads a field wider than {MAX_FIELD_WIDTH:,} characters "
                             f"({{...:{_short(spec)}}}); use a width up to {MAX_FIELD_WIDTH:,}")
        if spec:
            check_field_widths(spec, what)


def _short(text: str) -> str:
    return repr(text) if len(text) <= 60 else repr(text[:57] + "...")


def _fields(template: str) -> list[str]:
    """Every replacement field of ``template``, those nested in format specs included
    (``"{rules:{width}}"`` uses ``rules`` and ``width``)."""
    found: list[str] = []
    for _, field_name, spec, _ in string.Formatter().parse(template):
        if field_name is not None:
            found.append(field_name)
        if spec:
            found.extend(_fields(spec))
    return found


@dataclass(frozen=True)
class ChatPrompts:
    """The templates of a chat game (the defaults are plain and complete; see the module docstring)."""

    system: str = "{rules}\n\nReply format: you may think first, then {reply_format}. One guess per reply."
    first_turn: str = "Make your first guess ({attempts} guesses available)."
    feedback: str = "Guess {attempt} of {attempts}: {guess}\n{tiles}\n({words})\n{status}"
    invalid: str = "Invalid reply: {message} {consequence}"
    won: str = "Solved on guess {attempt}: the answer is {answer}."
    lost: str = "Out of guesses: the answer was {answer}."

    def __post_init__(self) -> None:
        for name, allowed in TEMPLATE_FIELDS.items():
            template = getattr(self, name)
            if not isinstance(template, str):
                raise ValueError(f"the {name} template must be a string, got {type(template).__name__}")
            shown = ", ".join("{" + a + "}" for a in allowed)
            check_field_widths(template, f"{name} template")
            try:
                used = _fields(template)
            except ValueError as exc:
                raise ValueError(f"the {name} template {template!r} is not a valid format string: {exc}") from None
            for used_field in used:
                if used_field not in allowed:  # exact names only: no {rules.__class__}, no {guess[0]}
                    raise ValueError(f"the {name} template uses {{{used_field}}}; it may use {shown}")
            try:  # a trial with values of the real types: "{attempts:>3}" passes, "{rules:d}" does not
                template.format(**{k: SAMPLE_VALUES[k] for k in allowed})
            except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
                raise ValueError(f"the {name} template {template!r} cannot be filled in ({exc}); it may use "
                                 f"{shown}") from None

    @classmethod
    def from_value(cls, value: ChatPrompts | dict[str, str] | None) -> ChatPrompts:
        """``value`` as prompts: the defaults for None, a dict of templates overriding them."""
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        if isinstance(value, dict):
            unknown = sorted(set(value) - {f.name for f in fields(cls)})
            if unknown:
                raise ValueError(f"unknown prompt template(s) {unknown}; templates: {list(TEMPLATE_FIELDS)}")
            return cls(**value)
        raise ValueError(f"prompts must be a ChatPrompts, a dict of templates or None, got {type(value).__name__}")

    def render(self, name: str, **values: Any) -> str:
        """The message of template ``name`` with ``values``."""
        template: str = getattr(self, name)
        return template.format(**values)


__all__ = ["MAX_FIELD_WIDTH", "SAMPLE_VALUES", "TEMPLATE_FIELDS", "ChatPrompts", "check_field_widths"]
