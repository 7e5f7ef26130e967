"""Running the code of a documentation page as written: every ``python`` and ``bash`` block, in order.

Python blocks share one namespace per page (as a reader pasting them into one session would);
bash blocks run with ``bash -euo pipefail`` in the same folder. A block fenced as ``text`` or
written as a ``{code-block}`` directive is shown, not run. ``$GUESSGYM_REPO`` is the checkout, for
pages that copy a shipped file (``configs/``).

A bash block is bounded by the work it does, not by the clock: each of its processes may use
``cpu_seconds`` of CPU (``ulimit -t``; a machine busy with other work stretches a block's wall time,
not its CPU time), and the wall clock only guards against a block that waits for ever
(:data:`WALL_FACTOR` times as long).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: A bash block's wall-clock bound, in multiples of its CPU bound: only a block that hangs meets it.
WALL_FACTOR = 6
_FENCE = re.compile(r"^```(python|bash)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


@dataclass(frozen=True)
class Block:
    """One runnable block of a page."""

    language: str
    code: str
    line: int


def runnable_blocks(page: Path) -> list[Block]:
    """The ``python`` and ``bash`` fenced blocks of ``page``, in order, with their first line."""
    text = page.read_text(encoding="utf-8")
    return [Block(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 2) for m in _FENCE.finditer(text)]


@contextlib.contextmanager
def working_directory(path: Path):  # type: ignore[no-untyped-def]
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def run_page(page: Path, folder: Path, *, cpu_seconds: float = 300.0) -> None:
    """Run every block of ``page`` in ``folder``; raise AssertionError naming the block that failed
    (a bash block's processes each bounded to ``cpu_seconds`` of CPU, see the module docstring)."""
    namespace: dict[str, object] = {"__name__": "__docs__"}
    env = {**os.environ, "GUESSGYM_REPO": str(ROOT), "MPLBACKEND": "Agg"}
    where = page.relative_to(ROOT)
    for block in runnable_blocks(page):
        if block.language == "python":
            with working_directory(folder):
                try:
                    exec(compile(block.code, f"{where}:{block.line}", "exec"), namespace)
                except Exception as exc:
                    raise AssertionError(f"{where}, python block at line {block.line}: "
                                         f"{type(exc).__name__}: {exc}") from exc
        else:
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", f"ulimit -t {int(cpu_seconds)}\n{block.code}"],
                                  cwd=folder, env=env, capture_output=True, text=True,
                                  timeout=WALL_FACTOR * cpu_seconds)
            over = " (a process used more than its CPU bound)" if done.returncode in (
                -signal.SIGXCPU, 128 + signal.SIGXCPU, -signal.SIGKILL, 128 + signal.SIGKILL) else ""
            assert done.returncode == 0, (f"{where}, bash block at line {block.line} exited {done.returncode}{over}:\n"
                                          f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
