"""The clique strategy of Lahiri et al. 2023, sections 6.2-6.6 (easy mode only).

Each round discards the words inconsistent with what is known, joins words that share no unseen
letter (a "hard" graph, else a "soft" one sharing exactly one), finds the largest cliques (sizes
``26 // length`` down to 3) and guesses every word of the one covering the most unseen letters;
when the letters are found or no clique exists, the remaining candidates are guessed in order. The
search is a numba branch-and-bound enumeration in the paper's order that returns exactly its first
best clique; ``max_search_nodes`` bounds it.

Nerdle and hard mode are not supported (:class:`~guessgym.agents.base.UnsupportedGameError` says
why). The paper's errors and the choices made here (repeated letters, finishing without reading the
hidden word, inverted conditions in its Algorithm 3) are in the documentation's research notes
(``docs/research/clique.md``).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from numba import njit

from ..agents.base import SolverState, UnsupportedGameError
from ..envs.game import Game
from ..envs.scoring import GREY, pattern_to_list
from .common import BaselineAgent, candidate_guesses

logger = logging.getLogger(__name__)

#: The paper's hard-coded alphabet size.
ALPHABET_SIZE = 26
MIN_CLIQUE = 3


@njit(cache=True, nogil=True)
def _popcount(x: int) -> int:
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True, nogil=True)
def _has_edge(r: np.ndarray, allowed: int) -> bool:
    n = r.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            if _popcount(r[i] & r[j]) == allowed:
                return True
    return False


@njit(cache=True, nogil=True)
def _best_clique(
    r: np.ndarray, k: int, allowed: int, target: int, max_nodes: int
) -> tuple[np.ndarray, int, int, bool]:
    """First clique (lexicographic order) of size ``k`` maximising ``popcount(union of r)``.

    Vertices ``i < j`` are adjacent when ``popcount(r[i] & r[j]) == allowed``. Returns
    ``(clique, coverage, nodes, complete)``; ``coverage`` is -1 when no ``k``-clique exists.
    The search stops early when a clique reaches ``target`` (the best coverage possible).
    """
    n = r.shape[0]
    pop = np.empty(n, dtype=np.int64)
    for i in range(n):
        pop[i] = _popcount(r[i])
    cand = np.empty((k + 1, max(n, 1)), dtype=np.int64)
    ncand = np.zeros(k + 1, dtype=np.int64)
    maxpop = np.zeros(k + 1, dtype=np.int64)
    pos = np.zeros(k + 1, dtype=np.int64)
    cover = np.zeros(k + 1, dtype=np.int64)
    current = np.zeros(k, dtype=np.int64)
    best = np.full(k, -1, dtype=np.int64)
    best_cov = -1
    mp = 0
    for i in range(n):
        cand[0, i] = i
        if pop[i] > mp:
            mp = pop[i]
    ncand[0] = n
    maxpop[0] = mp
    nodes = 0
    d = 0
    while d >= 0:
        if pos[d] >= ncand[d] or ncand[d] - pos[d] < k - d:
            d -= 1
            if d >= 0:
                pos[d] += 1
            continue
        v = cand[d, pos[d]]
        nodes += 1
        if nodes > max_nodes:
            return best, best_cov, nodes, False
        current[d] = v
        newcov = cover[d] | r[v]
        if d + 1 == k:
            c = _popcount(newcov)
            if c > best_cov:
                best_cov = c
                best[:] = current
                if best_cov >= target:
                    return best, best_cov, nodes, True
            pos[d] += 1
            continue
        # bound: even k-d-1 more words of the largest coverage cannot beat the best strictly
        if best_cov >= 0 and _popcount(newcov) + (k - d - 1) * maxpop[d] <= best_cov:
            pos[d] += 1
            continue
        m = 0
        mp = 0
        rv = r[v]
        for t in range(pos[d] + 1, ncand[d]):
            u = cand[d, t]
            if _popcount(rv & r[u]) == allowed:
                cand[d + 1, m] = u
                m += 1
                if pop[u] > mp:
                    mp = pop[u]
        if m < k - d - 1 or (best_cov >= 0 and _popcount(newcov) + (k - d - 1) * mp <= best_cov):
            pos[d] += 1
            continue
        ncand[d + 1] = m
        maxpop[d + 1] = mp
        cover[d + 1] = newcov
        pos[d + 1] = 0
        d += 1
    return best, best_cov, nodes, True


def letter_masks(codes: np.ndarray) -> np.ndarray:
    """Bitmask of the symbols of each word (bit ``s`` set when symbol ``s`` occurs)."""
    masks = np.zeros(codes.shape[0], dtype=np.int64)
    for i in range(codes.shape[1]):
        masks |= np.left_shift(np.int64(1), codes[:, i].astype(np.int64))
    return masks


def popcounts(masks: np.ndarray) -> np.ndarray:
    """Number of set bits of each mask."""
    m = masks.astype(np.uint64)
    out = np.zeros(m.shape, dtype=np.int64)
    while m.any():
        out += (m & np.uint64(1)).astype(np.int64)
        m = m >> np.uint64(1)
    return out


class Tracker:
    """The paper's WordleTracker, rebuilt from a history of (guess, pattern).

    Attributes:
        found: bitmask of letters seen green or yellow.
        grey: bitmask of letters guessed but never green or yellow (absent from the answer).
        unseen: bitmask of letters never guessed.
        greens: (position, symbol) of every green tile.
        guessed: the guess indices played.
    """

    def __init__(self, game: Game, history: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> None:
        found = 0
        maybe_grey = 0
        greens: set[tuple[int, int]] = set()
        for guess, pattern in history:
            tiles = pattern_to_list(pattern, game.length)
            hit = 0
            seen = 0
            for pos, (sym, tile) in enumerate(zip(game.guess_codes[guess], tiles)):
                bit = 1 << int(sym)
                seen |= bit
                if tile != GREY:
                    hit |= bit
                if tile == 2:
                    greens.add((pos, int(sym)))
            found |= hit
            maybe_grey |= seen & ~hit
        self.found = found
        self.grey = maybe_grey & ~found
        self.unseen = ((1 << game.n_symbols) - 1) & ~(found | self.grey)
        self.greens = sorted(greens)
        self.guessed = {g for g, _ in history}

    def discarded(self, game: Game, masks: np.ndarray) -> np.ndarray:
        """Boolean mask over guesses: the paper's discarded words."""
        out = (masks & np.int64(self.grey)) != 0
        out |= (masks & np.int64(self.found)) != np.int64(self.found)
        for pos, sym in self.greens:
            out |= game.guess_codes[:, pos] != sym
        return out


class CliqueAgent(BaselineAgent):
    """Cliques of letter-disjoint words, then the candidates (Lahiri et al. 2023 6.2; easy mode).

    Keyword arguments:
        distinct_letters_only: only words with distinct letters are graph vertices, as in the
            paper's vocabulary (default True).
        max_search_nodes: node budget of one clique search (default 200,000,000).
    """

    name = "clique"

    def __init__(self, *, distinct_letters_only: bool = True, max_search_nodes: int = 200_000_000) -> None:
        super().__init__()
        self.distinct_letters_only = bool(distinct_letters_only)
        if max_search_nodes < 1:
            raise ValueError(f"max_search_nodes must be positive, got {max_search_nodes!r}")
        self.max_search_nodes = int(max_search_nodes)

    def check_game(self, game: Game) -> None:
        if game.hard_mode:
            raise UnsupportedGameError(
                "clique plays easy mode only: its clique words deliberately ignore revealed hints, "
                "which hard mode forbids (Lahiri et al. 2023 6.7)"
            )
        if game.kind != "wordle" or game.n_symbols != ALPHABET_SIZE:
            raise UnsupportedGameError(
                f"clique is defined for Wordle's 26-letter alphabet, not {game.name}: every Nerdle "
                "equation contains '=', so no two equations have disjoint unseen symbols (the "
                f"paper's graph has no edge), and with {game.n_symbols} symbols at most "
                f"{game.n_symbols} // {game.length} = {game.n_symbols // game.length} guesses could "
                "be disjoint anyway"
                + (", fewer than the minimum clique size 3" if game.n_symbols // game.length < 3 else "")
            )

    # ---- planning ------------------------------------------------------------------------------
    def _masks(self, game: Game) -> tuple[np.ndarray, np.ndarray]:
        def build() -> tuple[np.ndarray, np.ndarray]:
            masks = letter_masks(game.guess_codes)
            eligible = np.ones(len(game.guesses), dtype=bool)
            if self.distinct_letters_only:
                eligible = popcounts(masks) == game.length
            return masks, eligible

        return self.cached("masks", build)

    def plan_round(self, game: Game, history: tuple[tuple[int, int], ...]) -> tuple[int, ...] | None:
        """The clique (guess indices, in playing order) planned after ``history``, or ``None``
        when the clique phase is over."""
        rounds: dict[tuple[tuple[int, int], ...], tuple[int, ...] | None] = self.cached("rounds", dict)
        if history not in rounds:
            rounds[history] = self._plan(game, history)
        return rounds[history]

    def _plan(self, game: Game, history: tuple[tuple[int, int], ...]) -> tuple[int, ...] | None:
        tracker = Tracker(game, history)
        if bin(tracker.found).count("1") >= game.length:
            return None  # all letters found (for an answer with distinct letters)
        max_size = ALPHABET_SIZE // game.length
        if max_size < MIN_CLIQUE:
            return None
        masks, eligible = self._masks(game)
        alive = eligible & ~tracker.discarded(game, masks)
        if tracker.guessed:
            alive[list(tracker.guessed)] = False
        vertices = np.flatnonzero(alive)  # ascending guess index: the vocabulary order
        unseen = np.int64(tracker.unseen)
        restricted = masks[vertices] & unseen
        for allowed in (0, 1):  # hard graph, then the soft graph if the hard one has no edge
            keep = self._representatives(restricted, allowed, max_size)
            reps, r = vertices[keep], restricted[keep]
            if _has_edge(r, allowed):
                break
        else:
            return None
        target_cap = bin(tracker.unseen).count("1")
        pops = np.sort(popcounts(r))[::-1]
        for k in range(max_size, MIN_CLIQUE - 1, -1):
            if r.size < k:
                continue
            target = min(target_cap, int(pops[:k].sum()))
            clique, coverage, nodes, complete = _best_clique(r, k, allowed, target, self.max_search_nodes)
            if not complete:
                logger.warning(
                    "clique search for k=%d stopped after %d nodes (max_search_nodes); using the best clique found",
                    k,
                    nodes,
                )
            if coverage < 0:
                continue
            if coverage == 0:
                return None  # no clique reveals anything new: the paper's FindBestClique has no best
            return tuple(int(reps[i]) for i in clique)
        return None

    @staticmethod
    def _representatives(restricted: np.ndarray, allowed: int, k: int) -> np.ndarray:
        """Positions to keep: per class of equal restricted mask, the first words that can share a
        clique (1 when two of them are never adjacent, up to ``k`` when they always are)."""
        if restricted.size == 0:
            return np.zeros(0, dtype=np.int64)
        pops = popcounts(restricted)
        if allowed == 0:
            per_class_limit = np.where(pops == 0, k, 1)
        else:
            per_class_limit = np.where(pops == 1, k, np.where(pops == 0, 0, 1))
        order = np.argsort(restricted, kind="stable")
        sorted_masks = restricted[order]
        starts = np.r_[0, np.flatnonzero(np.diff(sorted_masks)) + 1]
        rank = np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size]))
        keep = order[rank < per_class_limit[order]]
        return np.sort(keep)

    # ---- playing -------------------------------------------------------------------------------
    def choose(self, state: SolverState) -> int:
        history = tuple(state.history)
        played = 0
        while True:
            plan = self.plan_round(state.game, history[:played])
            if plan is None:
                break
            if len(history) < played + len(plan):
                return plan[len(history) - played]
            played += len(plan)
        return int(candidate_guesses(state)[0])

    def memo_key(self, state: SolverState) -> tuple[Any, ...] | None:
        return (tuple(state.history),)
