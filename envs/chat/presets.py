"""Other suites' Wordle rules as presets of the chat environment: their reply format, what an
invalid reply costs, and their reward, so that a study can train or evaluate under a peer's rules
and compare with it reply for reply.

``ChatGuessEnv(preset="textarena")`` (or ``gymnasium.make("guessgym/WordleChat-v0",
preset="textarena")``) plays guessgym's game (its lists, its scoring, its prompts) with the
suite's reply format, invalid-reply policy and reward. The game stays guessgym's: where a suite's
own word list differs (TextArena and GEM draw answers from NLTK corpora, see the documentation's
word-list notes), a reply's reward is the suite's for the same tiles, not for the same word.

Each preset names the file it follows. Two suites are installable from the package index and are
driven side by side with their preset in the tests, reply for reply (``tests/envs/test_presets.py``):
TextArena 0.7.4 and GEM 0.1.0. The others are followed from their source, cited below.

=============  =====================================================================================
preset         the suite's rule
=============  =====================================================================================
``textarena``  TextArena 0.7.4 ``textarena/envs/Wordle/env.py``: the first ``[word]`` of a reply;
               a repeated guess is invalid; one invalid reply may be retried, a second in a row
               ends the game; reward at the end only: 1 for a win, else the last valid guess's
               (greens + yellows / 2) / length.
``gem``        GEM (gem-llm 0.1.0) ``gem/envs/game_env/wordle.py``: the last ``\\boxed{word}``; a
               reply without one ends the game with -0.1; a wrong length or a repeated guess
               loses the turn (0); each valid guess earns 0.5 / length for every position green
               for the first time, and the win 0.5 more. (GEM's registered game gives 25 turns:
               pass ``max_attempts=25`` to match it.)
``verifiers``  PrimeIntellect-ai/verifiers ``environments/wordle/wordle.py`` (commit 072aac6d), a
               rubric over TextArena's game: ``<guess>[word]</guess>``; at the end,
               ``correct_answer`` (the last reply's guess is ``[answer]``) + ``partial_answer``
               (when not correct: 0.2 per green and 0.1 per yellow of the latest feedback the
               model was shown) + ``length_bonus`` (correct / replies with a guess) + 0.2 x the
               XML format score (``verifiers/parsers/xml_parser.py``, per reply 0.4 for a guess
               field, 0.2 for spacing, 0.2 for starting with ``<guess>``, 0.2 for ending with
               ``</guess>``, averaged).
``nemo``       NVIDIA-NeMo/Gym ``resources_servers/wordle/app.py`` (commit 1271cfd3): every reply
               uses a turn; a wrong length or an unknown word costs 0.02; a valid guess that does
               not win costs 0.2 if repeated, 0.05 per known green position it changes, 0.03 if it
               uses none of the known yellow letters, 0.02 per letter already eliminated; a win
               earns 2.0 - 0.2 x (max(turns, 3) - 1) (at least 0.1 in all); a loss is 0; the
               total is paid at the end, never below 0.
``trl``        huggingface/trl ``examples/scripts/openenv/wordle.py`` (commit 1ed74783), TRL's GRPO
               example over OpenEnv's TextArena server: TextArena's game and final reward
               (``reward_correct``) + greens / 5 and yellows / 5 of the last reply's feedback
               (``reward_greens``, ``reward_yellows``) + ``reward_repetition`` of the last reply,
               (distinct guesses before - earlier uses of this one) / distinct guesses before,
               summed at the end (GRPO's default weights are 1).
=============  =====================================================================================

A preset's reward is paid on the reply that ends the game where the suite pays at the end
(TextArena, verifiers, NeMo Gym, TRL), and reply by reply where the suite does (GEM), so that a
game's return is the suite's episode reward in every case; ``info["reward_terms"]`` has the terms
when the game ends. The reward options of guessgym (``win_reward``, ``loss_reward``,
``reward_mode``, ``step_penalty``, ``invalid_penalty``) cannot be combined with a preset.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..game import Game
from .replies import ReplyFormat, delimited, delimited_spans


@dataclass(frozen=True)
class ReplyEvent:
    """A game so far as a reward rule sees it, on each reply.

    Attributes:
        ended: ``""`` while the game goes on, else ``"won"``, ``"lost"`` (every attempt used) or
            ``"aborted"`` (ended by an invalid reply, ``invalid="abort"``).
        replies: every reply of the game so far, this one last.
        kinds: for each reply, ``""`` if its guess was played, else its invalid kind
            (:data:`~guessgym.envs.chat.replies.INVALID_KINDS`).
        texts: for each reply, the guess read from it, normalised (``""`` when none was found).
        played: the played guesses so far, in order.
        tiles: their tiles, ``G``/``Y``/``B`` per symbol, in the same order.
        answer: the answer.
        length: the game's guess length.
    """

    ended: str
    replies: tuple[str, ...]
    kinds: tuple[str, ...]
    texts: tuple[str, ...]
    played: tuple[str, ...]
    tiles: tuple[str, ...]
    answer: str
    length: int

    @property
    def kind(self) -> str:
        """This reply's kind (``""``: its guess was played)."""
        return self.kinds[-1]

    @property
    def valid(self) -> bool:
        return not self.kinds[-1]


class RewardRule(Protocol):
    """What a reply earns under a suite's rules: ``(reward, terms)``; ``terms`` (a dict of named
    parts) only on the reply that ends the game, else empty."""

    def __call__(self, event: ReplyEvent) -> tuple[float, dict[str, float]]: ...


def _completion(tiles: str) -> float:
    """TextArena's share of a guess: (greens + yellows / 2) / length."""
    return (tiles.count("G") + 0.5 * tiles.count("Y")) / len(tiles)


def textarena_reward(event: ReplyEvent) -> tuple[float, dict[str, float]]:
    """TextArena 0.7.4's Wordle reward (``set_outcome`` and ``_get_percentage_completion``)."""
    if not event.ended:
        return 0.0, {}
    value = 1.0 if event.ended == "won" else (_completion(event.tiles[-1]) if event.tiles else 0.0)
    return value, {"textarena": value}


def gem_reward(event: ReplyEvent) -> tuple[float, dict[str, float]]:
    """GEM 0.1.0's Wordle reward (``LanguageGameReward`` and ``get_current_success_internal_reward``)."""
    if event.kind == "format":
        reward = -0.1
    elif event.kind:
        reward = 0.0
    else:
        before = {i for tiles in event.tiles[:-1] for i, t in enumerate(tiles) if t == "G"}
        new = sum(1 for i, t in enumerate(event.tiles[-1]) if t == "G" and i not in before)
        reward = 0.5 * new / event.length + (0.5 if event.ended == "won" else 0.0)
    return reward, ({"gem": reward} if event.ended else {})


def _guess_fields(reply: str) -> list[str]:
    """Every ``<guess>...</guess>`` field of ``reply``, stripped, left to right (what
    ``re.finditer(r"<guess>\\s*(.*?)\\s*</guess>", reply, re.DOTALL)`` finds, in linear time)."""
    return [field.strip() for field in delimited_spans(reply, "<guess>", "</guess>")]


def _has_guess_on_a_line(reply: str) -> bool:
    """``re.search(r"<guess>.*</guess>", reply)``: some line holds ``<guess>`` and, after it, ``</guess>``
    (in linear time)."""
    return any((opened := line.find("<guess>")) >= 0 and line.rfind("</guess>") >= opened + 7
               for line in reply.split("\n"))


def verifiers_guess(reply: str) -> str | None:
    """The verifiers Wordle parser's guess: the last ``<guess>`` field of the reply, and in it the
    first ``[word]`` (``None``: either is missing); linear in the reply's length."""
    outer = delimited(reply, "<guess>", "</guess>")
    if outer is None:
        return None
    found = re.search(r"\[(\w+)\]", outer.strip())
    return None if found is None else found.group(1)


def _xml_format_score(reply: str) -> float:
    """verifiers' ``XMLParser(fields=["guess"]).get_format_reward_func`` for one reply."""
    score = 0.4 if _guess_fields(reply) else 0.0
    score += 0.2  # "correct spacing": the stripped and the unstripped parse agree for one field
    text = reply.strip()
    score += 0.2 if text.startswith("<guess>") else 0.0
    score += 0.2 if text.endswith("</guess>") else 0.0
    return score


def verifiers_reward(event: ReplyEvent) -> tuple[float, dict[str, float]]:
    """The verifiers Wordle rubric, paid on the last reply."""
    if not event.ended:
        return 0.0, {}
    guesses = _guess_fields(event.replies[-1])
    correct = 1.0 if guesses and guesses[-1] == f"[{event.answer}]" else 0.0
    # the feedback the model was shown last: TextArena's end message replaces the last guess's tiles
    shown = event.tiles[:-1] if event.valid else event.tiles
    partial = 0.0 if correct or not shown else 0.2 * shown[-1].count("G") + 0.1 * shown[-1].count("Y")
    with_guess = sum(1 for reply in event.replies if _has_guess_on_a_line(reply))
    length_bonus = correct / (with_guess or 1)
    fmt = sum(_xml_format_score(r) for r in event.replies) / len(event.replies)
    terms = {"correct_answer": correct, "partial_answer": partial, "length_bonus": length_bonus,
             "format_reward": fmt}
    return correct + partial + length_bonus + 0.2 * fmt, terms


def nemo_reward(event: ReplyEvent) -> tuple[float, dict[str, float]]:
    """NeMo Gym's Wordle resources server (``submit_guess`` and ``verify``), paid on the last reply."""
    if not event.ended:
        return 0.0, {}
    total = 0.0
    greens: dict[int, str] = {}
    yellows: set[str] = set()
    eliminated: set[str] = set()
    seen: list[str] = []
    guesses = iter(zip(event.played, event.tiles))
    for kind in event.kinds:
        if kind:
            total -= 0.02  # a wrong length or an unknown word (a reply without a guess counts as one)
            continue
        guess, tiles = next(guesses)
        if tiles == "G" * event.length:
            total = max(total + 2.0 - 0.2 * (max(len(event.replies), 3) - 1), 0.1)
            break
        total -= 0.2 if guess in seen else 0.0
        total -= 0.05 * sum(1 for i, letter in greens.items() if guess[i] != letter)
        total -= 0.03 if yellows and not any(letter in guess for letter in yellows) else 0.0
        total -= 0.02 * sum(1 for letter in guess if letter in eliminated)
        greens.update((i, letter) for i, (letter, t) in enumerate(zip(guess, tiles)) if t == "G")
        yellows.update(letter for letter, t in zip(guess, tiles) if t == "Y")
        eliminated.update(letter for letter, t in zip(guess, tiles)
                          if t == "B" and letter not in greens.values() and letter not in yellows)
        seen.append(guess)
    value = max(total, 0.0) if event.ended == "won" else 0.0
    return value, {"nemo": value}


def trl_guess(reply: str) -> str | None:
    """OpenEnv's ``extract_guess``, which TRL's example applies to every reply: the first
    ``[abcde]`` (five letters), else the reply's first five letters, else ``dunno``."""
    found = re.search(r"\[([A-Za-z]{5})\]", reply)
    if found:
        return found.group(1)
    letters = re.sub(r"[^a-z]", "", reply.lower())
    return letters[:5] if len(letters) >= 5 else "dunno"


def trl_reward(event: ReplyEvent) -> tuple[float, dict[str, float]]:
    """TRL's OpenEnv Wordle example, paid on the last reply: TextArena's reward, the greens and
    yellows / 5 of the latest feedback shown (TextArena shows none for a winning guess), and the
    last reply's repetition score."""
    if not event.ended:
        return 0.0, {}
    correct, _ = textarena_reward(event)
    shown = event.tiles[:-1] if event.ended == "won" and event.valid else event.tiles
    last = shown[-1] if shown else ""
    counts: dict[str, int] = {}
    for text in event.texts[:-1]:
        counts[text] = counts.get(text, 0) + 1
    repetition = (len(counts) - counts.get(event.texts[-1], 0)) / len(counts) if counts else 0.0
    terms = {"reward_correct": correct, "reward_greens": last.count("G") / 5, "reward_yellows": last.count("Y") / 5,
             "reward_repetition": repetition}
    return sum(terms.values()), terms


@dataclass(frozen=True)
class ChatPreset:
    """A peer suite's rules: the chat options it sets and its reward.

    Attributes:
        name: the preset's name (``preset=`` of the chat environment).
        source: the file (and version or commit) the preset follows.
        reward: the suite's reward (:class:`RewardRule`).
        options: the chat options the preset sets (``reply_format``, ``invalid``, ``max_retries``,
            ``repeats``); options passed explicitly override them.
        kinds: the kinds of game (``"wordle"``, ``"nerdle"``) the suite's rules play: a Wordle
            suite's reply format reads words, never equations.
        lengths: the guess lengths its reply format reads (``None``: any).
    """

    name: str
    source: str
    reward: RewardRule
    options: Mapping[str, Any] = field(default_factory=dict)
    kinds: tuple[str, ...] = ("wordle", "nerdle")
    lengths: tuple[int, ...] | None = None

    def refusal(self, game: Game) -> str | None:
        """Why this preset cannot play ``game`` (one line), or ``None`` when it can."""
        if game.kind not in self.kinds:
            return (f"preset={self.name!r} follows a Wordle suite, whose replies carry words; it cannot play "
                    f"{game.kind.capitalize()} ({game.name}): use it on a Wordle id, or leave out the preset")
        if self.lengths is not None and game.length not in self.lengths:
            return (f"preset={self.name!r} reads guesses of {' or '.join(map(str, self.lengths))} letters; this game's "
                    f"are {game.length} ({game.name})")
        return None


_TEXTARENA_FORMAT = ReplyFormat(r"\[(\w+)\]", "put your guess in square brackets, like [{example}]", "[{guess}]",
                                first=True)

#: The presets by name (see the module docstring).
PRESETS: dict[str, ChatPreset] = {
    "textarena": ChatPreset(
        "textarena", "TextArena 0.7.4, textarena/envs/Wordle/env.py and textarena/state.py", textarena_reward,
        {"reply_format": _TEXTARENA_FORMAT, "invalid": "abort", "max_retries": 1, "repeats": "invalid"},
        kinds=("wordle",)),
    "gem": ChatPreset(
        "gem", "GEM (gem-llm 0.1.0), gem/envs/game_env/wordle.py and gem/utils/constants.py", gem_reward,
        {"reply_format": ReplyFormat(r"\\boxed{([a-zA-Z]+(?:\s+[a-zA-Z]+)*)}",
                                     "format your final answer inside \\boxed{{...}}, for example \\boxed{{{example}}}",
                                     "\\boxed{{guess}}"),
         "invalid": {"format": "abort", "length": "forfeit", "unknown": "forfeit", "repeated": "forfeit",
                     "hard_mode": "forfeit"},
         "max_retries": 0, "repeats": "invalid"}, kinds=("wordle",)),
    "verifiers": ChatPreset(
        "verifiers", "PrimeIntellect-ai/verifiers environments/wordle/wordle.py @ 072aac6d (rubric), "
        "verifiers/parsers/xml_parser.py, verifiers/envs/integrations/textarena_env.py", verifiers_reward,
        {"reply_format": ReplyFormat(None, "think step-by-step, then give your guess inside <guess>...</guess> "
                                     "tags, in square brackets, like <guess>[{example}]</guess>",
                                     "<guess>[{guess}]</guess>", reader=verifiers_guess),
         "invalid": "abort", "max_retries": 1, "repeats": "invalid"}, kinds=("wordle",)),
    "nemo": ChatPreset(
        "nemo", "NVIDIA-NeMo/Gym resources_servers/wordle/app.py @ 1271cfd3", nemo_reward,
        {"invalid": "forfeit", "repeats": "allowed"}),
    "trl": ChatPreset(
        "trl", "huggingface/trl examples/scripts/openenv/wordle.py @ 1ed74783, meta-pytorch/OpenEnv "
        "envs/textarena_env/rewards.py @ fe99f36a (over TextArena 0.7.4)", trl_reward,
        {"reply_format": ReplyFormat(None, "reply with your guess in square brackets, like [{example}]", "[{guess}]",
                                     reader=trl_guess),
         "invalid": "abort", "max_retries": 1, "repeats": "invalid"}, kinds=("wordle",), lengths=(5,)),
}


__all__ = ["PRESETS", "ChatPreset", "ReplyEvent", "RewardRule", "gem_reward", "nemo_reward", "textarena_reward",
           "trl_reward", "verifiers_guess", "verifiers_reward"]
