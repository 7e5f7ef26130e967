"""Worker pools: Ctrl-C, or ``kill PID``, ends a process-pool run at once, with one line and no worker
tracebacks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from signals import sigint_default

SCRIPT = '''
import sys, time
from guessgym.infra.inputs import script_main
from guessgym.infra.pool import run_tasks

def setup():
    return None

def slow(state, task):
    print("started", flush=True)
    time.sleep(120)  # a long task: an opener of a proof
    return task

def main():
    for _ in run_tasks(slow, [1, 2], setup=setup, backend="process", n_jobs=1):
        pass

if __name__ == "__main__":
    script_main(main)
'''


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and signals are POSIX")
@pytest.mark.parametrize(("how", "status", "word"), [("ctrl-c", 130, "interrupted"), ("kill", 143, "terminated")])
def test_ctrl_c_or_kill_ends_a_process_pool_at_once_with_one_line(tmp_path: Path, how: str, status: int,
                                                                  word: str) -> None:
    """Issue 28: stopping a proof with Ctrl-C printed a KeyboardInterrupt traceback from each
    worker and waited for the running task. Now the parent ends its workers and says one line. A
    proof started in the background ignores Ctrl-C (the shell's rule), so ``kill PID`` (SIGTERM to
    the parent alone) must stop it the same way."""
    script = tmp_path / "long_run.py"
    script.write_text(SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, cwd=tmp_path, preexec_fn=sigint_default)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "started"  # a worker is inside its task
        started = time.monotonic()
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)  # what the terminal sends to the whole group
        else:
            os.kill(proc.pid, signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
        elapsed = time.monotonic() - started
        time.sleep(0.5)
        group = subprocess.run(["pgrep", "-a", "-g", str(proc.pid)], capture_output=True, text=True).stdout
        workers = [line for line in group.splitlines() if "<defunct>" not in line]  # ended, not yet reaped
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == status, stderr
    assert elapsed < 30  # not the 120 s the task would take
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert stderr.strip().splitlines() == [
        f"long_run.py: {word} (what was finished is saved; the same command continues)"]
    assert workers == []  # no worker left running its task


ORPHAN_SCRIPT = '''
import os
import time
from guessgym.infra.pool import run_tasks

def setup():
    return None

def slow(state, task):
    os.write(1, b"started\\n")  # one write: the two workers' lines never interleave (print may write twice)
    time.sleep(120)
    return task

if __name__ == "__main__":
    for _ in run_tasks(slow, [1, 2, 3, 4], setup=setup, backend="process", n_jobs=2):
        pass
'''


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and signals are POSIX")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_workers_end_when_their_parent_is_killed(tmp_path: Path, how: signal.Signals) -> None:
    """Issue 40, item 10: ``worst-case --jobs 2`` killed by SIGKILL, or by SIGTERM where nothing
    handles it, left both workers and the resource tracker running for ever, blocked on a pipe.
    Each worker now watches its parent and ends itself once it is gone; then the tracker ends too."""
    script = tmp_path / "orphans.py"
    script.write_text(ORPHAN_SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, start_new_session=True, cwd=tmp_path)
    try:
        assert proc.stdout is not None
        assert [proc.stdout.readline().strip() for _ in range(2)] == ["started", "started"]  # both workers busy
        os.kill(proc.pid, how)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 20
        while True:
            group = subprocess.run(["pgrep", "-a", "-g", str(proc.pid)], capture_output=True, text=True).stdout
            left = [line for line in group.splitlines() if "<defunct>" not in line]
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    finally:
        try:  # whatever is left of the group, so a failure leaves nothing running
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert left == [], left


def _state() -> None:
    return None


def _sum_chunk(state: None, task: tuple[list[int], int]) -> tuple[int, int]:
    chunk, bound = task
    return sum(chunk), bound


def test_settle_in_chunks_builds_each_task_when_taken_and_stops_when_told() -> None:
    """The proofs' driver: a chunk's task sees the state its predecessors' outcomes left (the bound),
    and once ``settled`` says stop, no chunk is started."""
    from guessgym.infra.pool import settle_in_chunks

    seen: list[tuple[int, int]] = []
    bound = 100

    def settled(result: tuple[int, int]) -> bool:
        nonlocal bound
        seen.append(result)
        bound = min(bound, result[0])
        return result[0] < 30

    settle_in_chunks(list(range(20)), 3, lambda chunk: (chunk, bound), _sum_chunk, settled, setup=_state)
    assert seen == [(3, 100), (12, 3), (21, 3), (30, 3)]  # chunks 0-2, 3-5, 6-8, 9-11; 12-19 never started
