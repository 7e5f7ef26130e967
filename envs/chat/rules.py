"""The rules of one game in words, for a language model's system prompt.

Everything stated is derived from the :class:`~guessgym.envs.game.Game` (length, attempts, list
sizes, symbols, hard mode) and the one scoring function, so the text cannot drift from what the
environment does: the repeated-symbol example is scored by :func:`~guessgym.envs.scoring.score`.
"""

from __future__ import annotations

from collections.abc import Collection

from ..game import Game
from ..scoring import pattern_to_list, score

#: The tile names and the letters the feedback uses for them, per game kind (index = tile value:
#: 0 grey/black, 1 yellow/purple, 2 green, as in :func:`~guessgym.envs.scoring.pattern_to_list`).
TILE_NAMES = {"wordle": ("grey", "yellow", "green"), "nerdle": ("black", "purple", "green")}
TILE_LETTERS = {"wordle": ("B", "Y", "G"), "nerdle": ("B", "P", "G")}
TILE_EMOJI = {"wordle": ("\u2b1b", "\U0001f7e8", "\U0001f7e9"), "nerdle": ("\u2b1b", "\U0001f7ea", "\U0001f7e9")}

#: Preferred repeated-letter examples (guess, answer); other games search their own lists.
_PREFERRED = {"wordle": (("speed", "abide"), ("sweet", "ended"))}
_EXAMPLE_CACHE: dict[tuple[str, frozenset[str]], tuple[str, str] | None] = {}


def _shows_the_rule(guess: str, answer: str) -> bool:
    """Whether scoring ``guess`` against ``answer`` marks one copy of a repeated symbol yellow and
    a later copy grey (the case the repeated-symbol rule is about)."""
    tiles = pattern_to_list(score(guess, answer), len(guess))
    for symbol in set(guess):
        marks = [t for s, t in zip(guess, tiles) if s == symbol]
        if len(marks) > 1 and 1 in marks and 0 in marks[marks.index(1) + 1 :]:
            return True
    return False


def repeated_symbol_example(game: Game, avoid: Collection[str] = ()) -> tuple[str, str] | None:
    """A (guess, answer) pair of ``game``'s lists that shows the repeated-symbol rule, or None;
    neither word is in ``avoid`` (the answers a text must not name: a demonstration's test answers).

    The search is bounded (the first 300 guesses with a repeated symbol against the first 100
    answers not avoided) and remembered per list, so a game is searched once per process."""
    avoided = frozenset(avoid)
    key = (game.fingerprint, avoided)
    if key not in _EXAMPLE_CACHE:
        found = next((pair for pair in _PREFERRED.get(game.kind, ())
                      if pair[0] in game.guess_index and pair[1] in game.answer_index
                      and not avoided.intersection(pair)), None)
        if found is None:
            repeated = [g for g in game.guesses if len(set(g)) < len(g) and g not in avoided][:300]
            answers = [a for a in game.answers if a not in avoided][:100]
            found = next(((g, a) for g in repeated for a in answers if _shows_the_rule(g, a)), None)
        _EXAMPLE_CACHE[key] = found
    return _EXAMPLE_CACHE[key]


def _example(game: Game, avoid: Collection[str]) -> str:
    pair = repeated_symbol_example(game, avoid)
    if pair is None:
        return ""
    guess, answer = pair
    tiles = pattern_to_list(score(guess, answer), game.length)
    names = TILE_NAMES[game.kind]
    marks = ", ".join(f"{symbol} {names[t]}" for symbol, t in zip(guess, tiles))
    return f' For example, guessing "{guess}" when the answer is "{answer}" gives: {marks}.'


def rearrangement_example(game: Game, avoid: Collection[str] = ()) -> tuple[str, str] | None:
    """An answer of ``game`` and a guess that wins it by the commutative rule (another spelling),
    or None; the first in the game's order whose words are not in ``avoid``."""
    for g, answers in game.commutative_wins.items():
        for a in answers:
            if game.answers[int(a)] not in avoid and game.guesses[g] not in avoid:
                return game.answers[int(a)], game.guesses[g]
    return None


def _rearrangements(game: Game, avoid: Collection[str]) -> str:
    """The commutative rule (:func:`~guessgym.envs.equations.commutative_form`) in words."""
    pair = rearrangement_example(game, avoid)
    example = f' For example, if the answer is "{pair[0]}", the guess "{pair[1]}" wins.' if pair else ""
    return (
        "Rearrangements win: a guess that rearranges the answer's equation wins the game, and all its tiles are "
        f"{TILE_NAMES['nerdle'][2]}. The left side is read as signed terms (split at + and -, the first term "
        "positive): the terms may come in any order, each keeping its sign, and within a term whose only "
        "operator is * the factors may come in any order. A term with a / is kept as written, and so is the "
        "right side." + example
    )


def rules_text(game: Game, avoid: Collection[str] = ()) -> str:
    """The complete rules of ``game`` as plain text (several short paragraphs); its examples name
    no word of ``avoid``."""
    names = TILE_NAMES[game.kind]
    letters = TILE_LETTERS[game.kind]
    symbol = "letter" if game.kind == "wordle" else "symbol"
    if game.kind == "wordle":
        intro = (
            f"You are playing Wordle. Find the hidden {game.length}-letter English word in at most "
            f"{game.max_attempts} guesses. The answer is one of {len(game.answers):,} words; every guess must "
            f"be a {game.length}-letter word from the game's list of {len(game.guesses):,} allowed words."
        )
    else:
        vocabulary = (
            "any true equation of that length" if game.guess_vocabulary == "all"
            else f"one of the game's {len(game.guesses):,} accepted equations"
        )
        intro = (
            f"You are playing Nerdle. Find the hidden equation of {game.length} symbols in at most "
            f"{game.max_attempts} guesses. The symbols are the digits 0-9 and + - * / =. An equation has "
            "exactly one '=' with a whole number on its right; on its left, two or more whole numbers joined "
            "by + - * / with no two operators in a row. Numbers have no leading zeros, and in the answer no "
            "number on the left is a lone 0. * and / are done before + and -, left to right, with exact "
            "fractions along the way (5/2*4=10 is true); dividing by zero is never true. Every guess must be "
            f"{vocabulary} ({game.length} symbols, true as written)."
        )
    tiles = (
        f"After each guess, every {symbol} gets a tile: {names[2]} ({letters[2]}) means it is in the answer at "
        f"this position; {names[1]} ({letters[1]}) means it is in the answer at another position; {names[0]} "
        f"({letters[0]}) means it is not in the answer, or not once more."
    )
    repeats = (
        f"Repeated {symbol}s: greens are marked first; then, from left to right, a {symbol} is {names[1]} while "
        f"the answer still has a copy of it that is not yet marked, and {names[0]} after that." + _example(game, avoid)
    )
    parts = [intro, tiles, repeats]
    if game.commutative:
        parts.append(_rearrangements(game, avoid))
    if game.hard_mode:
        parts.append(
            f"Hard mode is on: every green {symbol} must stay at its position in later guesses, and every "
            f"revealed {symbol} (green or {names[1]}) must be used again, at least as many times as it was revealed."
        )
    return "\n\n".join(parts)


__all__ = ["TILE_EMOJI", "TILE_LETTERS", "TILE_NAMES", "rearrangement_example", "repeated_symbol_example",
           "rules_text"]
