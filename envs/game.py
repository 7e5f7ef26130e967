"""The immutable description of one tile-feedback guessing game, and its two factories.

A :class:`Game` is everything a solver or an environment needs to know about the rules: the
alphabet, the length, the answer list, the guess list, the number of attempts, whether hard mode
is on, and how a typed guess is validated. Wordle and Nerdle are two factories of the same thing,
so every solver and every environment works on both.

Examples:
    >>> g = wordle()
    >>> len(g.answers), len(g.guesses), g.max_attempts
    (2309, 12947, 6)
    >>> n = nerdle(6)
    >>> n.name, len(n.answers)
    ('mini-nerdle', 206)
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np

from . import wordlists
from .equations import (
    MAX_LENGTH as NERDLE_MAX_LENGTH,
)
from .equations import (
    MIN_LENGTH as NERDLE_MIN_LENGTH,
)
from .equations import (
    NERDLE_ALPHABET,
    commutative_form,
    explain_invalid_equation,
    generate_equations,
)
from .options import check_bool, check_choice, check_int
from .scoring import KERNEL_VERSION, all_green, encode, score

GameKind = Literal["wordle", "nerdle"]

NERDLE_NAMES = {5: "micro-nerdle", 6: "mini-nerdle", 7: "midi-nerdle", 8: "nerdle"}
#: The named guess vocabularies of Nerdle (besides a custom list).
NERDLE_GUESS_PRESETS = ("answers", "all")
#: The most attempts a game may have: every board row is allocated up front (per game, and per
#: game of a batch), so a limit in the billions would only end in an out-of-memory error.
MAX_ATTEMPTS_LIMIT = 1000


@dataclass(frozen=True, eq=False)
class Game:
    """One game's rules and vocabularies.

    Attributes:
        kind: ``"wordle"`` or ``"nerdle"``.
        name: a short human-readable name, e.g. ``"wordle-5-nyt"``.
        length: symbols per guess.
        alphabet: the symbols, in the order used for integer encodings (observation index
            ``k + 1`` means ``alphabet[k]``).
        answers: the possible hidden answers, in a fixed order.
        guesses: the allowed guesses (a superset of ``answers``), in a fixed order; actions index
            this tuple.
        max_attempts: guesses allowed per game.
        hard_mode: whether revealed hints must be used in later guesses.
        commutative: Nerdle only: a guess that rearranges the answer's terms or factors wins
            (:func:`~guessgym.envs.equations.commutative_form` defines which rearrangements
            count); its tiles are then all green. Off by default, as in the seed documents.
    """

    kind: GameKind
    name: str
    length: int
    alphabet: str
    answers: tuple[str, ...]
    guesses: tuple[str, ...]
    max_attempts: int = 6
    hard_mode: bool = False
    guess_vocabulary: str = field(default="custom", compare=False)
    commutative: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_attempts", check_int("max_attempts", self.max_attempts, minimum=1))
        if self.max_attempts > MAX_ATTEMPTS_LIMIT:
            raise ValueError(f"max_attempts must be at most {MAX_ATTEMPTS_LIMIT} (every board row is allocated up "
                             f"front), got {self.max_attempts:,}")
        object.__setattr__(self, "hard_mode", check_bool("hard_mode", self.hard_mode))
        object.__setattr__(self, "commutative", check_bool("commutative", self.commutative))
        if self.commutative and self.kind != "nerdle":
            raise ValueError("commutative answers are a Nerdle rule (rearranged terms of an equation); "
                             "Wordle has no such option")

    # ---- derived, computed once -------------------------------------------------------------
    @cached_property
    def guess_index(self) -> dict[str, int]:
        """Map from guess string to its action index."""
        return {w: i for i, w in enumerate(self.guesses)}

    @cached_property
    def answer_index(self) -> dict[str, int]:
        """Map from answer string to its index in :attr:`answers`."""
        return {w: i for i, w in enumerate(self.answers)}

    @cached_property
    def answer_to_guess(self) -> np.ndarray:
        """For answer ``i``, the action index that plays it."""
        gi = self.guess_index
        return np.array([gi[a] for a in self.answers], dtype=np.int64)

    @cached_property
    def guess_is_answer(self) -> np.ndarray:
        """Boolean mask over guesses: which guesses are possible answers."""
        mask = np.zeros(len(self.guesses), dtype=bool)
        mask[self.answer_to_guess] = True
        return mask

    @cached_property
    def guess_codes(self) -> np.ndarray:
        """Guesses as a ``(n_guesses, length)`` uint8 array of alphabet indices."""
        return encode(self.guesses, self.alphabet)

    @cached_property
    def answer_codes(self) -> np.ndarray:
        """Answers as a ``(n_answers, length)`` uint8 array of alphabet indices."""
        return encode(self.answers, self.alphabet)

    @cached_property
    def fingerprint(self) -> str:
        """A hash of everything that determines the pattern matrix (used as the cache key)."""
        h = hashlib.sha256()
        h.update(f"v{KERNEL_VERSION}|{self.length}|{self.alphabet}|".encode())
        if self.commutative:  # another scoring rule, another matrix (plain games keep their old key)
            h.update(b"commutative|")
        h.update("\n".join(self.guesses).encode())
        h.update(b"|")
        h.update("\n".join(self.answers).encode())
        return h.hexdigest()[:24]

    def score(self, guess: str, answer: str) -> int:
        """The pattern ``guess`` gets against ``answer`` under this game's rules (all green for a
        commutative rearrangement of the answer when :attr:`commutative` is on)."""
        if self.commutative and guess != answer and commutative_form(guess) == commutative_form(answer):
            return self.solved_pattern
        return score(guess, answer)

    @cached_property
    def commutative_wins(self) -> dict[int, np.ndarray]:
        """For each guess index that is a rearrangement of some answer other than itself, those
        answers' indices (empty unless :attr:`commutative`): where the rule changes a pattern."""
        if not self.commutative:
            return {}
        by_form: dict[str, list[int]] = {}
        for a, answer in enumerate(self.answers):
            by_form.setdefault(commutative_form(answer), []).append(a)
        wins: dict[int, np.ndarray] = {}
        for g, guess in enumerate(self.guesses):
            others = [a for a in by_form.get(commutative_form(guess), ()) if self.answers[a] != guess]
            if others:
                wins[g] = np.array(others, dtype=np.int64)
        return wins

    @property
    def solved_pattern(self) -> int:
        """The all-green pattern."""
        return all_green(self.length)

    @property
    def n_symbols(self) -> int:
        return len(self.alphabet)

    # ---- validation of typed guesses --------------------------------------------------------
    def explain_invalid_guess(self, text: str) -> str | None:
        """Why ``text`` cannot be played in this game, or ``None`` if it can.

        Wordle accepts only words of the guess list. Nerdle first checks the equation like the
        real game (syntax and truth), then that it belongs to this game's guess vocabulary.
        """
        norm = text.strip().lower() if self.kind == "wordle" else text.strip().replace(" ", "")
        if len(norm) != self.length:
            return f"{text!r} has length {len(norm)}, this game needs {self.length} symbols"
        if self.kind == "nerdle":
            reason = explain_invalid_equation(norm, allow_lone_zero=True)
            if reason is not None:
                return f"{text!r} is not a valid equation: {reason}"
        if norm not in self.guess_index:
            if self.kind == "nerdle":
                return (
                    f"{text!r} is a true equation but not in this game's guess vocabulary "
                    f"({self.guess_vocabulary!r}, {len(self.guesses)} equations); "
                    "create the game with guesses='all' to allow every valid equation"
                )
            return f"{text!r} is not in the word list ({len(self.guesses)} allowed guesses)"
        return None

    def answer_position(self, answer: int | np.integer | str) -> int:
        """The index into :attr:`answers` of ``answer`` (a string, or an index checked for range).

        Raises:
            ValueError: the answer is not in the list, or the index is out of range.
            TypeError: ``answer`` is neither a string nor an integer.
        """
        if isinstance(answer, (int, np.integer)) and not isinstance(answer, bool):
            if not 0 <= int(answer) < len(self.answers):
                raise ValueError(f"answer index {answer} is out of range; expected 0..{len(self.answers) - 1}")
            return int(answer)
        if isinstance(answer, str):
            key = self.normalize_guess(answer)
            if key not in self.answer_index:
                raise ValueError(f"answer {answer!r} is not in this game's answer list ({len(self.answers)} answers)")
            return self.answer_index[key]
        raise TypeError(f"answer must be a string or an int index, got {type(answer).__name__}")

    def normalize_guess(self, text: str) -> str:
        """The canonical spelling of a typed guess (lower case, no spaces)."""
        return text.strip().lower() if self.kind == "wordle" else text.strip().replace(" ", "")

    def replace(self, **changes: object) -> Game:
        """A copy with some fields changed (e.g. ``hard_mode=True``); derived caches are rebuilt."""
        import dataclasses

        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def __reduce__(self):  # pickle only the defining fields, not the derived caches
        return (
            Game,
            (self.kind, self.name, self.length, self.alphabet, self.answers, self.guesses,
             self.max_attempts, self.hard_mode, self.guess_vocabulary, self.commutative),
        )

    def __repr__(self) -> str:
        return (
            f"Game({self.name!r}, length={self.length}, answers={len(self.answers)}, "
            f"guesses={len(self.guesses)}, max_attempts={self.max_attempts}, hard_mode={self.hard_mode}"
            + (", commutative=True)" if self.commutative else ")")
        )


def wordle(
    length: int = 5,
    word_list: str | None = None,
    *,
    answers: wordlists.WordSource | None = None,
    guesses: wordlists.WordSource | None = None,
    max_attempts: int = 6,
    hard_mode: bool = False,
) -> Game:
    """A Wordle game.

    Args:
        length: letters per word, 3 to 9.
        word_list: ``"nyt"`` (default for length 5), ``"original"``, ``"nyt2022"``, ``"nyt2023"``
            (5 letters; see :mod:`~guessgym.envs.wordlists`) or ``"english"`` (default for other
            lengths). Ignored for the side that ``answers``/``guesses`` override.
        answers: custom answers (iterable of words or a file path, one word per line).
        guesses: custom allowed guesses; if only ``answers`` is given, the answers are also the
            guesses. Every answer must be a valid guess. ``"answers"``: the answers are the only
            guesses (a closed game, as Nerdle's default).
        max_attempts: guesses allowed per game.
        hard_mode: revealed hints must be used in later guesses.

    Raises:
        ValueError: for a bad length, preset, or a malformed list (naming the offending entry).
    """
    if not 3 <= check_int("length", length) <= 9:
        raise ValueError(f"Wordle length must be 3 to 9, got {length}")
    if word_list is not None:
        check_choice("word_list", word_list, wordlists.PRESETS)
    closed = isinstance(guesses, str) and guesses == "answers" and not os.path.exists(guesses)
    if closed:
        guesses = None if answers is not None else wordlists.preset_lists(
            word_list if word_list is not None else ("nyt" if length == 5 else "english"), length)[0]
    for what, source in (("answers", answers), ("guesses", guesses)):
        if isinstance(source, str) and source in NERDLE_GUESS_PRESETS and not os.path.exists(source):
            raise ValueError(
                f"{what}={source!r} is a Nerdle preset; Wordle's lists come from word_list "
                f"({', '.join(wordlists.PRESETS)}) or a list of words or a file path"
            )
    preset = word_list if word_list is not None else ("nyt" if length == 5 else "english")
    if answers is None and guesses is None:
        ans, gue = wordlists.preset_lists(preset, length)
        vocab = preset
    else:
        if answers is None:
            ans = wordlists.preset_lists(preset, length)[0]
        else:
            ans = wordlists.validate_words(
                wordlists.load_words(answers, "answer"), length, wordlists.WORDLE_ALPHABET, "answer"
            )
        if guesses is None:
            gue = ans if answers is not None else wordlists.preset_lists(preset, length)[1]
        else:
            gue = wordlists.validate_words(
                wordlists.load_words(guesses, "guess"), length, wordlists.WORDLE_ALPHABET, "guess"
            )
        wordlists.check_answers_are_guesses(ans, gue)
        vocab = "custom"
    if closed and answers is None:
        vocab = f"{preset}-closed"
    name = f"wordle-{length}-{vocab}" + ("-hard" if hard_mode else "")
    return Game("wordle", name, length, wordlists.WORDLE_ALPHABET, ans, gue, max_attempts, hard_mode, vocab)


def nerdle(
    length: int = 8,
    *,
    guesses: str | wordlists.WordSource = "answers",
    answers: wordlists.WordSource | None = None,
    max_attempts: int = 6,
    hard_mode: bool = False,
    commutative: bool = False,
) -> Game:
    """A Nerdle game: Micro (5), Mini (6), Midi (7) or classic (8).

    Answers are generated from the rules (see :mod:`guessgym.envs.equations`), not read from a file.

    Args:
        length: 5 to 8.
        guesses: ``"answers"`` (default: the guess vocabulary is the answer list), ``"all"``
            (every valid true equation, lone zeros allowed: 67,346 for classic), or a custom list.
        answers: a custom subset of answers (each must be a valid answer equation).
        max_attempts: guesses allowed per game.
        hard_mode: revealed hints must be used in later guesses.
        commutative: accept a rearrangement of the answer's terms or factors as a win
            (see :attr:`Game.commutative`).
    """
    if not NERDLE_MIN_LENGTH <= check_int("length", length) <= NERDLE_MAX_LENGTH:
        raise ValueError(f"Nerdle length must be 5 to 8, got {length}")
    if isinstance(guesses, str) and guesses not in NERDLE_GUESS_PRESETS and not os.path.exists(guesses):
        raise ValueError(
            f"guesses must be one of {', '.join(map(repr, NERDLE_GUESS_PRESETS))}, a list of equations or "
            f"the path of a file with one per line; got {guesses!r} (no such file)"
        )
    alphabet = NERDLE_ALPHABET
    if answers is None:
        ans = generate_equations(length)
    else:
        ans = wordlists.validate_words(
            tuple(s.replace(" ", "") for s in wordlists.load_words(answers, "answer")), length, alphabet, "answer"
        )
        for i, eq in enumerate(ans):
            reason = explain_invalid_equation(eq, allow_lone_zero=False)
            if reason is not None:
                raise ValueError(f"answer entry {i} {eq!r} is not a valid answer equation: {reason}")
    if isinstance(guesses, str) and guesses in NERDLE_GUESS_PRESETS:
        vocab = guesses
        if guesses == "answers":
            gue = ans
        else:
            gue = generate_equations(length, allow_lone_zero=True)
    else:
        vocab = "custom"
        gue = wordlists.validate_words(
            tuple(s.replace(" ", "") for s in wordlists.load_words(guesses, "guess")), length, alphabet, "guess"
        )
        for i, eq in enumerate(gue):
            reason = explain_invalid_equation(eq, allow_lone_zero=True)
            if reason is not None:
                raise ValueError(f"guess entry {i} {eq!r} is not a valid equation: {reason}")
    wordlists.check_answers_are_guesses(ans, gue)
    name = (NERDLE_NAMES[length] + ("" if answers is None else "-custom-answers")
            + ("" if vocab == "answers" else f"-{vocab}") + ("-commutative" if commutative else "")
            + ("-hard" if hard_mode else ""))
    return Game("nerdle", name, length, alphabet, ans, gue, max_attempts, hard_mode, vocab, commutative)


#: The keyword arguments that describe a game (the rest of an environment's are reward options,
#: ``matrix_cache`` and ``render_mode``).
GAME_KEYS: tuple[str, ...] = ("kind", "length", "word_list", "answers", "guesses", "max_attempts", "hard_mode",
                              "commutative", "answer_sample", "sample_seed", "held_out")


def make_game(env_id: str | None = None, /, **kwargs: Any) -> Game:
    """The one way to build a :class:`Game` from a registered id and/or game keyword arguments.

    Args:
        env_id: a registered guessgym id (``"guessgym/WordleHard-v1"``); its keyword arguments
            are the starting point, and ``kwargs`` override them. ``None``: ``kwargs`` alone.
        kwargs: ``kind`` (``"wordle"``, default, or ``"nerdle"``), ``length``, ``word_list``
            (Wordle), ``answers``, ``guesses``, ``max_attempts``, ``hard_mode``: see
            :func:`wordle` and :func:`nerdle`; ``answer_sample``, ``sample_seed`` and
            ``held_out``: see :func:`sample_answers`.

    Raises:
        ValueError: an unknown id or one that is not a guessgym environment; bad values.
        TypeError: a keyword argument that does not describe a game (the message lists those
            that do; split environment options first with :func:`split_env_options`).

    Examples:
        >>> make_game("guessgym/WordleHard-v1").name
        'wordle-5-nyt-hard'
        >>> make_game("guessgym/MiniNerdle-v1", max_attempts=4).max_attempts
        4
        >>> make_game(kind="nerdle", length=5).name
        'micro-nerdle'
    """
    unknown = sorted(set(kwargs) - set(GAME_KEYS))
    if unknown:
        raise TypeError(f"unknown game argument(s) {unknown}; a game is described by {', '.join(GAME_KEYS)}")
    if env_id is not None:
        import gymnasium as gym

        from .registration import is_guessgym_id

        if not is_guessgym_id(env_id):
            known = ", ".join(sorted(k for k in gym.registry if is_guessgym_id(k)))
            if env_id in gym.registry and str(gym.registry[env_id].entry_point).startswith("guessgym.envs.chat"):
                raise ValueError(f"{env_id} is a chat id, played in text by language models (llm:MODEL); this "
                                 f"plays a board game of one of the ids: {known}")
            if env_id in gym.registry:
                raise ValueError(f"{env_id} is not a guessgym environment "
                                 f"(entry point {gym.registry[env_id].entry_point!r}); guessgym ids: {known}")
            raise ValueError(f"unknown environment id {env_id!r}; registered guessgym ids: {known}")
        spec_kwargs = {k: v for k, v in gym.registry[env_id].kwargs.items() if k in GAME_KEYS}
        kwargs = {**spec_kwargs, **kwargs}
    return _game_from_options(**kwargs)


def split_env_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Environment keyword arguments split into the game's (:data:`GAME_KEYS`) and the rest."""
    game = {k: v for k, v in options.items() if k in GAME_KEYS}
    return game, {k: v for k, v in options.items() if k not in GAME_KEYS}


def _game_from_options(
    *,
    kind: str = "wordle",
    length: int | None = None,
    word_list: str | None = None,
    answers: Any = None,
    guesses: Any = None,
    max_attempts: int = 6,
    hard_mode: bool = False,
    commutative: bool = False,
    answer_sample: int | None = None,
    sample_seed: int = 0,
    held_out: int = 0,
) -> Game:
    check_choice("kind", kind, ("wordle", "nerdle"))
    if answer_sample is not None or held_out:
        closed = guesses == "answers" or (kind == "nerdle" and guesses is None)
        full = _game_from_options(kind=kind, length=length, word_list=word_list, answers=answers,
                                  guesses=None if closed and kind == "wordle" else guesses,
                                  max_attempts=max_attempts, hard_mode=hard_mode, commutative=commutative)
        size = len(full.answers) if answer_sample is None else answer_sample
        return sample_answers(full, size, sample_seed, closed=closed, held_out=held_out)
    check_int("sample_seed", sample_seed, minimum=0)
    if kind == "wordle":
        if check_bool("commutative", commutative):
            raise ValueError("commutative answers are a Nerdle rule (rearranged terms of an equation); "
                             "Wordle has no such option")
        return wordle(
            5 if length is None else length, word_list, answers=answers, guesses=guesses,
            max_attempts=max_attempts, hard_mode=hard_mode,
        )
    if kind == "nerdle":
        if word_list is not None:
            raise ValueError("word_list applies to Wordle only; Nerdle answers are generated from the rules")
        return nerdle(
            8 if length is None else length, guesses="answers" if guesses is None else guesses,
            answers=answers, max_attempts=max_attempts, hard_mode=hard_mode, commutative=commutative,
        )
    raise ValueError(f"kind must be 'wordle' or 'nerdle', got {kind!r}")


def sample_answers(game: Game, size: int, seed: int = 0, *, closed: bool, held_out: int = 0) -> Game:
    """``game`` with a seeded sample of ``size`` of its answers (the ``answer_sample``,
    ``sample_seed`` and ``held_out`` options): the first ``size`` of the seeded permutation
    ``numpy.random.default_rng(seed).permutation(len(game.answers))``, kept in the list's order, so a
    larger sample of the same seed holds every smaller one. ``closed``: the sample is also the guess
    list (the benchmark's small Wordle tiers); otherwise the guesses stay the game's. ``held_out``:
    the last ``held_out`` of the sample stay guesses but are not answers (the benchmark's seeded
    split: training never sees them as answers; :func:`held_out_answers` gives them back).

    Raises:
        ValueError: a size outside 1 to the number of answers, a negative seed, ``held_out`` not
            below the size.
    """
    size = check_int("answer_sample", size, minimum=1, maximum=len(game.answers))
    seed = check_int("sample_seed", seed, minimum=0)
    held_out = check_int("held_out", held_out, minimum=0, maximum=size - 1)
    order = np.random.default_rng(seed).permutation(len(game.answers))
    sample = tuple(game.answers[int(i)] for i in np.sort(order[:size]))
    answers = tuple(game.answers[int(i)] for i in np.sort(order[:size - held_out]))
    guesses = sample if closed else game.guesses
    name = (f"{game.name}-sample{size}" + (f"-seed{seed}" if seed else "") + ("-closed" if closed else "")
            + (f"-heldout{held_out}" if held_out else ""))
    return Game(game.kind, name, game.length, game.alphabet, answers, guesses, game.max_attempts, game.hard_mode,
                "answers" if closed else game.guess_vocabulary, game.commutative)


def with_answers(game: Game, answers: Sequence[str], tag: str) -> Game:
    """``game`` with only ``answers`` (some of its own, kept in its order) as answers, the same guesses and
    rules; ``tag`` ends its name.

    Raises:
        ValueError: an answer that is not one of ``game``'s, or none at all.
    """
    kept = set(answers)
    if not kept or not kept <= set(game.answers):
        raise ValueError(f"answers must be some of {game.name}'s answers")
    chosen = tuple(a for a in game.answers if a in kept)
    return Game(game.kind, f"{game.name}-{tag}{len(chosen)}", game.length, game.alphabet, chosen, game.guesses,
                game.max_attempts, game.hard_mode, game.guess_vocabulary, game.commutative)


def held_out_answers(full: Game, training: Game) -> Game:
    """``full`` (a game built with ``held_out=0``) restricted to the answers ``training`` (the same
    options with ``held_out``) leaves out, with ``training``'s guesses: the game a policy trained on
    ``training`` is scored on, every answer of it one training never saw.

    Raises:
        ValueError: ``training`` holds an answer ``full`` lacks, or leaves none out.
    """
    seen = set(training.answers)
    if not seen <= set(full.answers):
        raise ValueError(f"{training.name} holds answers {full.name} does not: not a split of it")
    unseen = tuple(a for a in full.answers if a not in seen)
    if not unseen:
        raise ValueError(f"{training.name} leaves no answer of {full.name} out")
    return Game(full.kind, f"{full.name}-held-out{len(unseen)}", full.length, full.alphabet, unseen,
                training.guesses, full.max_attempts, full.hard_mode, training.guess_vocabulary, full.commutative)


#: The fields of :func:`game_to_dict`, in order (a JSON description of a game, read back by
#: :func:`game_from_dict`).
GAME_FIELDS = ("kind", "name", "length", "alphabet", "answers", "guesses", "max_attempts", "hard_mode",
               "guess_vocabulary", "commutative")


def game_to_dict(game: Game) -> dict[str, Any]:
    """The whole game as JSON-ready values: with :func:`game_from_dict`, a game can travel in a
    file that is read without running code from it (model files, for one)."""
    return {f: list(v) if isinstance(v := getattr(game, f), tuple) else v for f in GAME_FIELDS}


def game_from_dict(data: Any) -> Game:
    """The game described by :func:`game_to_dict`, every field checked.

    Raises:
        ValueError: naming the first field that is missing, of the wrong type or inconsistent (a
            word of the wrong length or with a symbol outside the alphabet, an answer that is not a
            guess).
    """
    if not isinstance(data, dict):
        raise ValueError(f"a game description must be a JSON object, got {type(data).__name__}")
    missing = [f for f in GAME_FIELDS if f not in data]
    unknown = sorted(set(data) - set(GAME_FIELDS))
    if missing or unknown:
        raise ValueError(f"a game description needs exactly the fields {list(GAME_FIELDS)}; "
                         f"missing {missing}, unknown {unknown}")
    kind: GameKind = "wordle" if check_choice("kind", data["kind"], ["wordle", "nerdle"]) == "wordle" else "nerdle"
    for key in ("name", "alphabet", "guess_vocabulary"):
        if not isinstance(data[key], str) or not data[key]:
            raise ValueError(f"the game's {key} must be a non-empty string, got {data[key]!r}")
    length = check_int("length", data["length"], minimum=1)
    max_attempts = data["max_attempts"]  # checked by Game
    lists = {}
    for key, what in (("answers", "answer"), ("guesses", "guess")):
        words = data[key]
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            raise ValueError(f"the game's {key} must be a list of strings")
        lists[key] = wordlists.validate_words(tuple(words), length, data["alphabet"], what)
    wordlists.check_answers_are_guesses(lists["answers"], lists["guesses"])
    return Game(kind, data["name"], length, data["alphabet"], lists["answers"], lists["guesses"], max_attempts,
                check_bool("hard_mode", data["hard_mode"]), data["guess_vocabulary"],
                check_bool("commutative", data["commutative"]))
