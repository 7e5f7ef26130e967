"""guessgym: Wordle and Nerdle as Gymnasium environments, baselines and learned agents.

This package holds the command line only (``python -m guessgym`` or the ``guessgym`` script);
the library lives in the top-level packages :mod:`envs` (games, scoring, environments),
:mod:`agents` (the Agent protocol, the evaluation loop, results), :mod:`baselines` and
:mod:`training`. Importing it has no side effects and imports nothing heavy.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "main"]


def main(argv: list[str] | None = None) -> int:
    """Run the command line (see :mod:`guessgym.cli`)."""
    from guessgym.cli import main as cli_main

    return cli_main(argv)
