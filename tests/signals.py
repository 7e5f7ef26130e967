"""Signal helpers for the tests that stop a child process the way a terminal would."""

from __future__ import annotations

import signal


def sigint_default() -> None:
    """In the child (``preexec_fn``): Ctrl-C's default, even when this run was started with SIGINT
    ignored (``nohup ... &``), which the child would otherwise inherit."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
