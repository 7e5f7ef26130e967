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


__all__ = ["format_number", "format_percent", "format_seconds"]
