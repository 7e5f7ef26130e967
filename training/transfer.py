"""The transfer protocol's split: training words, and unseen words no training game ever shows.

A policy meant to play *any* word list is judged on words it never met. :func:`transfer_split`
divides the words of the 3,158-answer list (its 14,855 allowed guesses, which hold every answer)
by a seeded draw: a share of them are *unseen*; the rest are the *training words*. A training game
may use training words only, as its answer, its candidates and its guesses
(:meth:`TransferSplit.check_training_game` refuses any other), so an unseen word never reaches the
policy during training. :func:`unseen_games` builds the evaluation lists from the unseen words
alone, in normal and hard mode; their exact optima are computed by the solver
(``scripts/transfer_lists.py``). The protocol, with the published lists the policy is also judged
on without retraining, is written out in the documentation's "Transfer protocol" page.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ..envs.game import Game, wordle

#: The list whose words are split.
SOURCE_LIST = "nyt2023"
#: The share of its words held out unseen, and the seed of the draw, unless given.
DEFAULT_UNSEEN_SHARE = 0.2
DEFAULT_SEED = 0


@dataclass(frozen=True)
class TransferSplit:
    """The words of :data:`SOURCE_LIST`, split (see the module docstring)."""

    seed: int
    unseen_share: float
    training_words: tuple[str, ...]
    unseen_words: tuple[str, ...]
    training_answers: tuple[str, ...]
    unseen_answers: tuple[str, ...]

    @cached_property
    def _unseen(self) -> frozenset[str]:
        return frozenset(self.unseen_words)

    def check_training_game(self, game: Game) -> None:
        """Refuse a training game that holds an unseen word (as an answer or a guess).

        Raises:
            ValueError: naming the first unseen word found and where.
        """
        for side, words in (("an answer", game.answers), ("a guess", game.guesses)):
            for word in words:
                if word in self._unseen:
                    raise ValueError(f"a training game holds the unseen word {word!r} as {side}; training "
                                     f"games draw from the {len(self.training_words):,} training words only")


def transfer_split(seed: int = DEFAULT_SEED, unseen_share: float = DEFAULT_UNSEEN_SHARE) -> TransferSplit:
    """The seeded split of :data:`SOURCE_LIST`'s words (the same for the same seed and share).

    Raises:
        ValueError: a share outside (0, 1).
    """
    if isinstance(unseen_share, bool) or not isinstance(unseen_share, (int, float)) or not 0 < unseen_share < 1:
        raise ValueError(f"unseen_share must be a fraction in (0, 1), the share of words held out; "
                         f"got {unseen_share!r}")
    source = wordle(word_list=SOURCE_LIST)
    words = np.array(sorted(source.guesses))
    unseen_mask = np.random.default_rng(seed).random(words.size) < unseen_share
    unseen = set(words[unseen_mask].tolist())
    answers = sorted(source.answers)
    return TransferSplit(seed, float(unseen_share), tuple(words[~unseen_mask].tolist()),
                         tuple(words[unseen_mask].tolist()), tuple(a for a in answers if a not in unseen),
                         tuple(a for a in answers if a in unseen))


#: The greedy rules of the baselines that play Wordle (the results table's "best greedy rule" is the best of them).
GREEDY = ("most-buckets", "expected-size", "pattern-entropy", "least-worst", "min-average", "position-entropy",
          "clique")
#: The shipped models compared on each list, by mode (hard mode: True); the first is the table's.
SHIPPED = {False: ("pretrained:wordle-cloned", "pretrained:wordle"),
           True: ("pretrained:wordle-hard-cloned", "pretrained:wordle-hard")}
#: How many of the policy's best guesses its one step of lookahead compares.
LOOKAHEAD_TOP_K = 5
#: The markers of the results table in the documentation's transfer page.
BEGIN, END = "<!-- results: scripts/transfer_results.py --page -->", "<!-- end of results -->"


def unseen_games(split: TransferSplit) -> dict[str, Game]:
    """The evaluation lists made of unseen words only, by name: ``unseen`` (every unseen answer,
    every unseen word allowed as a guess), ``unseen-half`` (a seeded half of the unseen answers,
    the same guesses), ``unseen-answers`` (the unseen answers, which are also the only guesses),
    each in normal and hard mode (``-hard``)."""
    rng = np.random.default_rng(split.seed + 1)
    half = sorted(rng.choice(np.array(split.unseen_answers), size=len(split.unseen_answers) // 2,
                             replace=False).tolist())
    games = {}
    for hard in (False, True):
        suffix = "-hard" if hard else ""
        games[f"unseen{suffix}"] = wordle(answers=split.unseen_answers, guesses=split.unseen_words, hard_mode=hard)
        games[f"unseen-half{suffix}"] = wordle(answers=half, guesses=split.unseen_words, hard_mode=hard)
        games[f"unseen-answers{suffix}"] = wordle(answers=split.unseen_answers, hard_mode=hard)
    return games


def results_table(data: dict[str, Any], model_sha: str) -> str:
    """The Markdown table of ``results/transfer/results.json`` (``scripts/transfer_results.py``) for the
    general policy with SHA-256 ``model_sha``: per list, the optimum, the best greedy rule, the shipped
    cloned policy, the general policy pure and with lookahead, and its move analysis."""
    general = f"general:{model_sha[:16]}"
    lookahead = f"general-lookahead-{LOOKAHEAD_TOP_K}:{model_sha[:16]}"
    rows = ["| list | answers | guesses | optimum | best greedy rule | shipped cloned | general policy | gap | "
            "+ lookahead | gap | loss per move | best moves |",
            "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"]

    def total(figures: dict[str, Any] | None) -> str:
        if not figures:
            return "-"
        lost = "" if figures["win_rate"] == 1 else f" ({100 * (1 - figures['win_rate']):.2f}% lost)"
        return f"{figures['total']:,}{lost}"

    def gap(figures: dict[str, Any] | None, best: int | None) -> str:
        if not figures or best is None:
            return "-"
        return f"{100 * (figures['total'] - best) / best:+.2f}%"

    for name, entry in data["lists"].items():
        players = entry["players"]
        optimum = entry["optimum"]
        best = optimum.get("total")
        shown = f"{best:,}" if best is not None else f">= {optimum['lower_bound']:,}"
        if best is not None and not optimum.get("proven"):
            shown += " (best known)"
        greedy = {r: players[r] for r in GREEDY if r in players and "total" in players[r]}
        rule = min(greedy, key=lambda r: greedy[r]["total"]) if greedy else None
        shipped = players.get(SHIPPED[entry["hard_mode"]][0])
        pure, ahead = players.get(general), players.get(lookahead)
        analysis = (pure or {}).get("analysis")
        rows.append(f"| `{name}` | {entry['answers']:,} | {entry['guesses']:,} | {shown} | "
                    f"{'-' if rule is None else f'{rule} {total(greedy[rule])}'} | {total(shipped)} | {total(pure)} | "
                    f"{gap(pure, best)} | {total(ahead)} | {gap(ahead, best)} | "
                    f"{'-' if not analysis else format(analysis['mean_loss_per_move'], '.4f')} | "
                    f"{'-' if not analysis else format(100 * analysis['best_move_share'], '.1f') + '%'} |")
    return "\n".join(rows)


__all__ = ["BEGIN", "DEFAULT_SEED", "DEFAULT_UNSEEN_SHARE", "END", "GREEDY", "LOOKAHEAD_TOP_K", "SHIPPED",
           "SOURCE_LIST", "TransferSplit", "results_table", "transfer_split", "unseen_games"]
