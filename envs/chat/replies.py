"""Reading a guess out of a language model's free-text reply, and saying what was wrong with it.

A reply is read in two steps. :meth:`ReplyParser.extract` finds the guess by the reply format:
the last ``[...]`` (``"brackets"``, the default), the last ``<guess>...</guess>`` (``"tags"``),
the last ``\\boxed{...}`` (``"boxed"``), the whole reply (``"plain"``) or the last match of a user's
regular expression with one group.
:meth:`ReplyParser.parse` then normalises it (whitespace removed anywhere, surrounding quotes,
backticks, asterisks and a final full stop dropped, Wordle in lower case) and checks it. Every
invalid reply gets one of :data:`INVALID_KINDS` and a message addressed to the model:

* ``"format"``: no guess in the required format (or a reply over ``max_reply_chars``);
* ``"length"``: a guess of the wrong length;
* ``"unknown"``: a word not in the list, or an equation that is not valid and true (or not in
  this game's accepted equations);
* ``"hard_mode"``: a playable guess that ignores revealed hints (found by the environment, which
  knows the hints; :meth:`ReplyParser.hard_mode_message` words it).

Examples:
    >>> from guessgym.envs.game import wordle
    >>> parser = ReplyParser(wordle())
    >>> parser.parse("Let me think... [Crane]").guess
    'crane'
    >>> verdict = parser.parse("I will guess crane")
    >>> verdict.kind, verdict.message
    ('format', 'No guess found: end your reply with your guess in square brackets, like [crane].')
    >>> parser.parse("[cranes]").kind, parser.parse("[xyzzy]").kind
    ('length', 'unknown')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

from ..equations import explain_invalid_equation
from ..game import Game
from .prompts import check_field_widths

#: The kinds of invalid reply, in the order the checks find them.
INVALID_KINDS = ("format", "length", "unknown", "repeated", "hard_mode")

#: The longest reply read unless told otherwise; no sensible reply is longer.
DEFAULT_MAX_REPLY_CHARS = 100_000
#: The largest ``max_reply_chars`` allowed: every reply has a bound (a reply is kept in the
#: conversation, and a reader's work grows with it).
MAX_REPLY_CHARS_LIMIT = 10_000_000
#: What ends an over-long reply as the conversation keeps it (see :meth:`ReplyParser.kept`).
CUT_MARK = " [... reply cut: over the length allowed]"


@dataclass(frozen=True)
class ReplyFormat:
    """Where a reply carries its guess, how the prompt asks for it, and how a reply is written.

    Attributes:
        pattern: a regular expression with one group, the guess (``None``: the whole reply).
        instruction: how the prompt asks for the format; ``{example}`` marks an example guess.
        template: a reply carrying ``{guess}`` (``None``: replies cannot be written, as for a
            user's own expression).
        first: the first match of ``pattern`` is the guess (default: the last).
        within: a regular expression with one group searched first (its last match): ``pattern``
            is then looked for inside that group only (a guess inside tags).
        reader: a function from the reply to the guess text (``None``: none found), used instead
            of ``pattern`` and ``within`` for a rule no expression states (a preset's own reader).
        delimiters: ``(open, close)``: ``pattern`` is ``open(.*?)close`` with these literal texts,
            and is read by :func:`delimited` in linear time (a regular expression search for the
            last match takes quadratic time on a reply of many ``open`` and no ``close``).
    """

    pattern: str | None
    instruction: str
    template: str | None = None
    first: bool = False
    within: str | None = None
    reader: Callable[[str], str | None] | None = None
    delimiters: tuple[str, str] | None = None


#: The named reply formats.
REPLY_FORMATS: dict[str, ReplyFormat] = {
    "brackets": ReplyFormat(r"\[([^\[\]]*)\]", "end your reply with your guess in square brackets, like [{example}]",
                            "[{guess}]"),
    "tags": ReplyFormat(r"<guess>(.*?)</guess>",
                        "end your reply with your guess between guess tags, like <guess>{example}</guess>",
                        "<guess>{guess}</guess>", delimiters=("<guess>", "</guess>")),
    "plain": ReplyFormat(None, "reply with your guess alone, like {example}", "{guess}"),
    # the answer format of math-tuned models (and of verifiers' and GEM's parsers)
    "boxed": ReplyFormat(r"\\boxed\{([^{}]*)\}",
                         "end your reply with your guess in \\boxed{{}}, like \\boxed{{{example}}}",
                         "\\boxed{{guess}}"),
}

_STRIP = "\"'`*."


@dataclass(frozen=True)
class Verdict:
    """What a reply says: the guess and its action, or why it cannot be played.

    Attributes:
        action: the index of the guess in ``game.guesses`` (``None`` if invalid).
        guess: the normalised guess text (``None`` when none was found).
        kind: ``""`` for a playable guess, else one of :data:`INVALID_KINDS`.
        message: what is wrong, addressed to the model (``""`` for a playable guess).
    """

    action: int | None
    guess: str | None
    kind: str = ""
    message: str = ""

    @property
    def valid(self) -> bool:
        return not self.kind


class ReplyParser:
    """Extracts and checks guesses in replies for one game (see the module docstring).

    Args:
        game: the game whose guesses are accepted.
        reply_format: ``"brackets"``, ``"tags"``, ``"boxed"``, ``"plain"``, a regular expression
            (string or compiled) with exactly one group, whose last match in the reply is the guess,
            or a :class:`ReplyFormat` (a peer suite's own rule, :mod:`~guessgym.envs.chat.presets`).
        max_reply_chars: longer replies are format errors (1 to :data:`MAX_REPLY_CHARS_LIMIT`;
            every reply has a bound, so ``None`` is refused).
        instruction: how the prompt asks for the format, with ``{example}``; required for a
            custom expression (the named formats have their own).
        avoid: words the example guess must not be (:func:`example_guess`).

    Raises:
        ValueError: an unknown format name, an expression without exactly one group, a custom
            expression without ``instruction``, or ``max_reply_chars`` not from 1 to
            :data:`MAX_REPLY_CHARS_LIMIT`.
    """

    def __init__(self, game: Game, reply_format: str | re.Pattern[str] | ReplyFormat = "brackets",
                 max_reply_chars: int = DEFAULT_MAX_REPLY_CHARS, instruction: str | None = None,
                 avoid: Collection[str] = ()) -> None:
        self.game = game
        if isinstance(reply_format, ReplyFormat):
            spec, self.format_name = reply_format, "preset"
        elif isinstance(reply_format, str) and reply_format in REPLY_FORMATS:
            spec, self.format_name = REPLY_FORMATS[reply_format], reply_format
        elif isinstance(reply_format, (str, re.Pattern)):
            self.format_name = "custom"
            if instruction is None:
                raise ValueError(
                    "a custom reply_format needs instruction=, the sentence that asks the model for it "
                    "(with {example}), e.g. 'end your reply with GUESS: {example}'"
                )
            spec = ReplyFormat(reply_format if isinstance(reply_format, str) else reply_format.pattern, "")
        else:
            raise ValueError(f"reply_format must be one of {sorted(REPLY_FORMATS)} or a regular expression "
                             f"with one group, got {reply_format!r}")
        self.spec = spec
        self._regex: re.Pattern[str] | None = None
        self._within: re.Pattern[str] | None = None
        if spec.pattern is not None:
            self._regex = reply_format if isinstance(reply_format, re.Pattern) else _compile(spec.pattern)
            if self._regex.groups != 1:
                raise ValueError(f"reply_format {spec.pattern!r} must have exactly one group (the guess), "
                                 f"it has {self._regex.groups}")
        if spec.within is not None:
            self._within = _compile(spec.within)
        default_instruction = spec.instruction
        if (isinstance(max_reply_chars, bool) or not isinstance(max_reply_chars, int)
                or not 1 <= max_reply_chars <= MAX_REPLY_CHARS_LIMIT):
            raise ValueError(f"max_reply_chars must be a whole number of characters from 1 to "
                             f"{MAX_REPLY_CHARS_LIMIT:,} (every reply has a bound), got {max_reply_chars!r}")
        self.max_reply_chars = max_reply_chars
        self.example = example_guess(game, avoid)
        template = instruction if instruction is not None else default_instruction
        if not isinstance(template, str):
            raise ValueError(f"reply_instruction must be text with {{example}}, got {type(template).__name__}")
        check_field_widths(template, "instruction")
        try:
            self.instruction = template.format(example=self.example)
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(f"instruction {template!r} may use only the field {{example}}: {exc!r}") from None
        self._wordle = game.kind == "wordle"
        self._unit = "letters" if self._wordle else "symbols"
        self._no_guess = f"No guess found: {self.instruction}."

    def reply_for(self, guess: str) -> str:
        """A reply this parser reads as ``guess`` (``[crane]``, ``<guess>crane</guess>``, ``\\boxed{crane}``,
        ``crane``, or a preset's own form).

        Raises:
            ValueError: the format is a custom regular expression, whose replies cannot be written
                without knowing what it expects.
        """
        if self.spec.template is None:
            raise ValueError(f"replies for a custom reply_format cannot be written; use one of {sorted(REPLY_FORMATS)}")
        return self.spec.template.replace("{guess}", guess)

    def extract(self, reply: str) -> str | None:
        """The raw guess text of ``reply`` by the format (``None``: the format is not followed)."""
        if self.spec.reader is not None:
            return self.spec.reader(reply)
        if self._within is not None:
            outer = _match(self._within, reply, first=False)
            if outer is None:
                return None
            reply = outer
        if self._regex is None:
            return reply
        if self.spec.delimiters is not None:
            return delimited(reply, *self.spec.delimiters, first=self.spec.first)
        return _match(self._regex, reply, first=self.spec.first)

    def kept(self, reply: str) -> str:
        """``reply`` as the conversation keeps it: whole, or, when it is longer than
        ``max_reply_chars`` (a format error), its first ``max_reply_chars`` characters and
        :data:`CUT_MARK`, so an over-long reply is not sent back to the model every turn nor kept
        whole in a transcript. Cutting a cut reply gives it back unchanged, so a transcript replays."""
        if len(reply) <= self.max_reply_chars:
            return reply
        return reply[: self.max_reply_chars] + CUT_MARK

    def normalize(self, text: str) -> str:
        """Whitespace removed, surrounding quotes/backticks/asterisks/full stop dropped, Wordle lower case."""
        text = "".join(text.split()).strip(_STRIP)
        return text.lower() if self._wordle else text

    def parse(self, reply: str) -> Verdict:
        """The verdict on ``reply`` (a string; anything else is a format error)."""
        if not isinstance(reply, str):
            return Verdict(None, None, "format", f"The reply must be text. {self._no_guess}")
        if len(reply) > self.max_reply_chars:
            return Verdict(None, None, "format", f"Your reply is longer than the {self.max_reply_chars:,} characters "
                                                 f"allowed. {self._no_guess}")
        raw = self.extract(reply)
        if raw is None:
            return Verdict(None, None, "format", self._no_guess)
        guess = self.normalize(raw)
        action = self.game.guess_index.get(guess)
        if action is not None:
            return Verdict(action, guess)
        if not guess:
            return Verdict(None, None, "format", f"The guess is empty. {self._no_guess}")
        if len(guess) != self.game.length:
            return Verdict(None, guess, "length",
                           f"'{guess}' has {len(guess)} {self._unit}; a guess needs exactly {self.game.length}.")
        if self._wordle:
            return Verdict(None, guess, "unknown", f"'{guess}' is not in the word list.")
        reason = explain_invalid_equation(guess, allow_lone_zero=True)
        if reason is not None:
            return Verdict(None, guess, "unknown", f"'{guess}' is not a valid true equation: {reason}.")
        return Verdict(None, guess, "unknown", f"'{guess}' is a true equation but not one this game accepts "
                                               f"(its {len(self.game.guesses):,} equations: see the rules).")

    @staticmethod
    def hard_mode_message(reason: str) -> str:
        """The environment's hard-mode rejection, addressed to the model."""
        return reason[0].upper() + reason[1:] + "." if reason else "This guess breaks hard mode."


def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern, re.DOTALL)
    except re.error as exc:
        raise ValueError(f"reply_format {pattern!r} is not a valid regular expression: {exc}") from None


def _match(regex: re.Pattern[str], text: str, *, first: bool) -> str | None:
    """The group of the first or the last match of ``regex`` in ``text`` (``None``: no match)."""
    if first:
        found = regex.search(text)
        return None if found is None else found.group(1)
    last = None
    for last in regex.finditer(text):  # noqa: B007  (the last match is the one wanted)
        pass
    return None if last is None else last.group(1)


def delimited_spans(text: str, start: str, end: str) -> Iterator[str]:
    """What lies between each ``start`` and the next ``end`` in ``text``, left to right without
    overlap (what ``re.finditer`` finds for ``start(.*?)end`` with DOTALL), in one pass: linear in
    the text, where the regular expression is quadratic on many ``start`` and no ``end``."""
    at = 0
    while (opened := text.find(start, at)) >= 0 and (closed := text.find(end, opened + len(start))) >= 0:
        yield text[opened + len(start):closed]
        at = closed + len(end)


def delimited(text: str, start: str, end: str, *, first: bool = False) -> str | None:
    """The first or the last of :func:`delimited_spans` (``None`` when there is none)."""
    found = None
    for found in delimited_spans(text, start, end):  # noqa: B007  (the last one is wanted)
        if first:
            break
    return found


def example_guess(game: Game, avoid: Collection[str] = ()) -> str:
    """A fixed guess to show the format with: a well-known opener when the game has it, else the
    first guess that is not a possible answer (so the example does not hint at the answer); never
    a word of ``avoid`` (a demonstration's test answers) unless every guess is one."""
    for word in ("crane", "slate", "9*8-7=65", "3*4-5=7", "12/3=4", "2*3=6"):
        if word in game.guess_index and word not in avoid:
            return word
    not_answers = [g for g, is_answer in zip(game.guesses, game.guess_is_answer) if not is_answer]
    allowed = [g for g in (not_answers or list(game.guesses)) if g not in avoid]
    return (allowed or not_answers or list(game.guesses))[0]


__all__ = ["CUT_MARK", "DEFAULT_MAX_REPLY_CHARS", "INVALID_KINDS", "MAX_REPLY_CHARS_LIMIT", "REPLY_FORMATS",
           "ReplyFormat", "ReplyParser", "Verdict", "delimited", "delimited_spans", "example_guess"]
