"""File names made from free text: one rule for every file the package names after what it holds."""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[^A-Za-z0-9_.=+-]+")


def file_slug(*parts: str) -> str:
    """The non-empty parts joined by ``__``, every run of characters other than letters, digits and
    ``_.=+-`` replaced by ``_``.

    Examples:
        >>> file_slug("Nerdle-v1", "unique-chars", "guesses-all")
        'Nerdle-v1__unique-chars__guesses-all'
        >>> file_slug("a b", "", "c/d?")
        'a_b__c_d_'
    """
    return _UNSAFE.sub("_", "__".join(p for p in parts if p))


__all__ = ["file_slug"]
