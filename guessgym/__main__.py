"""``python -m guessgym``: the command line (see :mod:`guessgym.cli`)."""

from __future__ import annotations

import sys

from guessgym.cli import main

if __name__ == "__main__":  # guarded: worker processes re-import this module under another name
    sys.exit(main())
