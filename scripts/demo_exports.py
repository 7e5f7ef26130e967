"""The expert demonstrations of Wordle and classic Nerdle, in both formats, and their page.

Runs ``guessgym export-demos`` for each of :data:`EXPORTS` into ``results/demos/<name>/`` and writes
``results/demos/README.md``: per export its command, counts, mean guesses, sizes, time, and whether
every file has the same SHA-256 as in the manifest the folder held before. The data files are not
committed (tens of megabytes); the manifests are, so a rerun can be checked byte for byte.

Usage (from the repository root; about 2 minutes once the optimum's states are in the cache)::

    python scripts/demo_exports.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from guessgym.cli import main as guessgym  # noqa: E402
from guessgym.infra.atomic import atomic_write_text  # noqa: E402

#: (folder, export-demos arguments)
EXPORTS = (
    ("wordle-messages", ["--env", "guessgym/Wordle-v1", "--rationale", "thinking"]),
    ("wordle-tools", ["--env", "guessgym/Wordle-v1", "--format", "tools"]),
    ("nerdle-messages", ["--env", "guessgym/Nerdle-v1", "--rationale", "thinking"]),
    ("nerdle-tools", ["--env", "guessgym/Nerdle-v1", "--format", "tools"]),
)


def main() -> int:
    out = ROOT / "results" / "demos"
    lines = ["# Expert demonstrations", "",
             "Made by `python scripts/demo_exports.py`: the optimal tree's game on every answer of Wordle and classic",
             "Nerdle, as chat messages (with the exact-state rationale in `<think>` tags) and as tool calls, split by",
             "answer (seed 0, 90% train). The data files are not committed; each `manifest.json` is, with the",
             "SHA-256 of every file, so a rerun of the command can be checked byte for byte.", "",
             "| export | command | train games | test games | mean guesses (train, test) | MB | s | bytes as before |",
             "|---|---|---:|---:|---|---:|---:|---|"]
    for name, argv in EXPORTS:
        folder = out / name
        command = ["export-demos", *argv, "--out", str(folder.relative_to(ROOT)), "--no-progress"]
        before = folder / "manifest.json"
        earlier = json.loads(before.read_text())["files"] if before.is_file() else None
        started = time.perf_counter()
        if guessgym(command) != 0:
            return 1
        seconds = time.perf_counter() - started
        manifest = json.loads((folder / "manifest.json").read_text())
        size = sum((folder / f).stat().st_size for f in manifest["files"]) / 1e6
        counts, means = manifest["counts"], manifest["mean_guesses"]
        lines.append(f"| [{name}]({name}/manifest.json) | `{manifest['command']}` | {counts['train']['games']:,} | "
                     f"{counts['test']['games']:,} | {means['train']}, {means['test']} | {size:.1f} | {seconds:.0f} | "
                     f"{'-' if earlier is None else 'same' if earlier == manifest['files'] else 'DIFFERENT'} |")
    lines += ["", "Times are wall-clock seconds on the machine that ran the script, with the optimum's states already",
              "in the cache (`guessgym compare` or `guessgym analyze` put them there). *bytes as before*: whether",
              "every file's SHA-256 equals the manifest the folder held before this run (`-`: there was none)."]
    atomic_write_text(out / "README.md", "\n".join(lines) + "\n")
    print(f"wrote {out / 'README.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
