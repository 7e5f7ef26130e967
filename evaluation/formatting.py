"""How the reports write numbers: percentages, guesses and seconds, with ``-`` for a missing value."""

from __future__ import annotations

import math


def format_percent(x: float) -> str:
    """``x`` as a percentage with two decimals (``"-"`` for NaN)."""
    return "-" if math.isnan(x) else f"{100 * x:.2f}"


def format_number(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals (``"-"`` for NaN)."""
    return "-" if math.isnan(x) else f"{x:.{digits}f}"


def format_seconds(x: float) -> str:
    """Seconds: two decimals from 10 s up, four below (``"-"`` for NaN)."""
    if math.isnan(x):
        return "-"
    return f"{x:.2f}" if x >= 10 else f"{x:.4f}"


def format_gap(extra: int, base: int, *, proven: bool = True, games: int | None = None,
               pool: int | None = None) -> str:
    """*vs optimum*, the one definition: ``extra`` guesses over the optimal tree's ``base`` guesses
    on the same answers, and their percent of it: ``+12 (+0.15%)``; ``*`` marks a tree not proven
    optimal, and ``on 50 of 2,309`` a sample (``games`` of the ``pool``'s answers), whose figure
    holds for those answers only (it may be below zero: the tree is optimal over every answer, not
    on each).

    Examples:
        >>> format_gap(12, 7897), format_gap(-2, 170, games=50, pool=2309), format_gap(3, 8100, proven=False)
        ('+12 (+0.15%)', '-2 (-1.18%) on 50 of 2,309', '+3 (+0.04%)*')
    """
    text = f"{extra:+,} ({100 * extra / base:+.2f}%){'' if proven else '*'}"
    if games is not None and pool is not None and games < pool:
        text += f" on {games:,} of {pool:,}"
    return text


__all__ = ["format_gap", "format_number", "format_percent", "format_seconds"]
