"""Every Wordle opener's value on the nyt lists, normal and hard mode, in resumable pieces.

``run`` fills ``results/openers/<name>.jsonl`` (:mod:`guessgym.baselines.opener_table`): first every
opener's greedy interval (its proven lower bound, raised to the proof's bound from
``results/optimal/proofs/``, and a greedy tree's total), then exact totals, most promising first,
for as long as ``--hours`` allows; run it again and it goes on where it stopped. ``ship`` writes the
table into the package (``envs/data/openers/<name>.json.gz``: per guess, its lower bound and upper
total), which the move analysis reads to judge a first move at once; ``page`` writes the published
page (``docs/openers.md``: rank, total, mean, loss against the optimum) and its picture of every
opener's value (``docs/_static/openers-values.png``) and ``status`` says how far
each table has come.

Usage (from the repository root; one core each)::

    python scripts/opener_table.py run normal --hours 1.5     # or: hard; resumes
    python scripts/opener_table.py run normal --hours 8 --backend process --jobs 16    # one core each
    python scripts/opener_table.py run normal --hours 8 --backend ray --address HOST:6379  # a Ray cluster
    python scripts/opener_table.py run normal --exact 300 --certify 300   # the best 300, ranked for certain
    python scripts/opener_table.py status
    python scripts/opener_table.py ship
    python scripts/opener_table.py page
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from guessgym.agents.optima import known_optimum
from guessgym.baselines.opener_search import CHECKPOINT_FORMAT, Checkpoint
from guessgym.baselines.opener_table import (
    OpenerSolver,
    OpenerTable,
    Workers,
    certain_ranks,
    fill_exact,
    fill_greedy,
    fill_refute,
    shipped_blob,
)
from guessgym.cli.common import MAX_JOBS, whole_number
from guessgym.envs.game import Game, make_game
from guessgym.infra.atomic import atomic_write_bytes, atomic_write_text
from guessgym.infra.inputs import script_main
from guessgym.infra.pool import BACKENDS

OUT = Path("results/openers")
PACKAGE = Path("envs/data/openers")
PAGE = Path("docs/openers.md")
#: mode: (table name, env id, the proof over every opener whose bounds seed the intervals)
TABLES = {
    "normal": ("wordle-nyt", "guessgym/Wordle-v1", Path("results/optimal/proofs/wordle-nyt-proof.jsonl")),
    "hard": ("wordle-nyt-hard", "guessgym/WordleHard-v1", Path("results/optimal/proofs/wordle-nyt-hard-proof.jsonl")),
}


def proof_floors(game: Game, path: Path) -> dict[str, int]:
    """Each opener's proven lower bound from the proof's checkpoint (read only)."""
    if not path.is_file():
        return {}
    header = {"format": CHECKPOINT_FORMAT, "game": game.name, "fingerprint": game.fingerprint,
              "hard_mode": game.hard_mode, "max_attempts": game.max_attempts, "width": 0}
    record = Checkpoint(path, header, game, read_only=True)
    return {o.opener: o.lower_bound for o in record.done.values()}


def _progress(label: str) -> object:
    last = [0.0]

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] > 30 or done == total:
            last[0] = now
            print(f"{label}: {done:,}/{total:,}", flush=True)

    return show


def run(mode: str, hours: float, exact: int | None, certify: int | None, workers: Workers) -> None:
    name, env_id, proof = TABLES[mode]
    game = make_game(env_id)
    deadline = time.monotonic() + hours * 3600
    OUT.mkdir(parents=True, exist_ok=True)
    solver = OpenerSolver(game)
    with OpenerTable(game, OUT / f"{name}.jsonl") as table:
        added = fill_greedy(table, solver, floors=proof_floors(game, proof), deadline=deadline,
                            progress=_progress(f"{name} greedy"), workers=workers)  # type: ignore[arg-type]
        print(f"{name}: {added:,} greedy intervals added", flush=True)
        solved = fill_exact(table, solver, count=exact, deadline=deadline,
                            progress=_progress(f"{name} exact"), workers=workers)  # type: ignore[arg-type]
        print(f"{name}: {solved:,} openers solved exactly", flush=True)
        totals = sorted(v.upper for v in table.values.values() if v.exact and v.fits)  # ranked apart: the rest
        if certify is not None and len(totals) >= certify:
            settled = fill_refute(table, solver, totals[certify - 1], deadline=deadline,
                                  progress=_progress(f"{name} certify {certify}"),  # type: ignore[arg-type]
                                  workers=workers)
            print(f"{name}: {settled:,} openers bounded at {totals[certify - 1]:,} or solved", flush=True)
    status()


def status() -> None:
    for mode, (name, env_id, _) in TABLES.items():
        path = OUT / f"{name}.jsonl"
        if not path.is_file():
            print(f"{name}: not started (python scripts/opener_table.py run {mode})")
            continue
        game = make_game(env_id)
        values = OpenerTable(game, path, read_only=True).values.values()
        openers = len(OpenerSolver(game).order)
        exact = sum(v.exact for v in values)
        print(f"{name}: {len(values):,} of {openers:,} openers with an interval, {exact:,} exact, the best "
              f"{certain_ranks(values):,} ranked for certain")


def ship() -> None:
    PACKAGE.mkdir(parents=True, exist_ok=True)
    for mode, (name, env_id, _) in TABLES.items():
        path = OUT / f"{name}.jsonl"
        if not path.is_file():
            continue
        game = make_game(env_id)
        values = OpenerTable(game, path, read_only=True).values
        command = f"python scripts/opener_table.py run {mode}; python scripts/opener_table.py ship"
        optimum = known_optimum(game)  # proven over every opener: no tree that fits does better
        floor = optimum.lower_bound if optimum is not None else 0
        best = (optimum.opener, optimum.total) if optimum is not None and optimum.opener else None
        blob = shipped_blob(game, values, command, floor, best)
        atomic_write_bytes(PACKAGE / f"{name}.json.gz", blob)
        print(f"{PACKAGE / f'{name}.json.gz'}: {len(values):,} openers, {len(blob) / 1024:.0f} KiB")


def page() -> None:
    from guessgym.agents.opener_values import PICTURE, page_markdown

    games = [make_game(env_id) for _, env_id, _ in TABLES.values()]
    atomic_write_text(PAGE, page_markdown(games))
    print(f"wrote {PAGE}")
    picture = PAGE.parent / PICTURE
    draw_values(games, picture)
    print(f"wrote {picture}")


def draw_values(games: list[Game], path: Path) -> None:
    """How every opener's mean guesses spread, one panel per game: exact values, and the upper end
    of the openers still given as an interval, apart; the optimum marked (needs matplotlib)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from guessgym.agents.opener_values import opener_values

    shown = [(g, opener_values(g)) for g in games]
    shown = [(g, t) for g, t in shown if t is not None]
    fig, axes = plt.subplots(len(shown), 1, figsize=(8, 3.2 * len(shown)), squeeze=False)
    for ax, (game, table) in zip(axes[:, 0], shown, strict=True):
        n = len(game.answers)
        done, fits = table.upper > 0, table.always_wins
        exact = fits & (table.lower == table.upper)
        bounded = fits & ~exact
        means = table.upper / n
        bins = np.linspace(means[done].min(), np.percentile(means[done], 99.9), 60)
        ax.hist([means[exact], means[bounded], means[done & ~fits]], bins=bins, stacked=True,
                color=["#2a7ab9", "#a6c8e6", "#d9822b"],
                label=[f"exact ({exact.sum():,})", f"interval, its upper end ({bounded.sum():,})",
                       f"cannot always win in {game.max_attempts}, upper end ({(done & ~fits).sum():,})"])
        optimum = known_optimum(game)
        if optimum is not None:
            ax.axvline(optimum.total / n, color="black", linewidth=1)
            ax.annotate(f" optimum {optimum.opener} {optimum.total / n:.4f}", (optimum.total / n, 0.93),
                        xycoords=("data", "axes fraction"), fontsize=8)
        mode = "hard mode" if game.hard_mode else "normal mode"
        ax.set_title(f"{game.name}, {mode}: {done.sum():,} of {len(game.guesses):,} openers in the table", fontsize=10)
        ax.set_xlabel("mean guesses with optimal play after the opener")
        ax.set_ylabel("openers")
        ax.legend(fontsize=8, frameon=False)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
    plt.close(fig)
    atomic_write_bytes(path, buffer.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="fill a table (resumes)")
    p.add_argument("mode", choices=sorted(TABLES))
    p.add_argument("--hours", type=float, default=1.0, help="stop starting openers after this long (default: 1)")
    p.add_argument("--exact", type=int, help="solve only the best N openers that always win exactly, and those "
                   "that cannot among them (default: all, in order)")
    p.add_argument("--certify", type=int, help="then bound every other opener that always wins at the N-th best "
                   "exact total, so that the best N are ranked for certain")
    p.add_argument("--backend", choices=BACKENDS, default="serial",
                   help="where openers are computed: this process, local processes, or Ray (default: serial)")
    p.add_argument("--jobs", type=whole_number(1, MAX_JOBS), default=1,
                   help="worker processes, or CPUs of a local Ray instance")
    p.add_argument("--address", help="the Ray cluster (HOST:PORT or auto; default: a local instance)")
    sub.add_parser("status", help="how far each table has come")
    sub.add_parser("ship", help="write the tables into the package")
    sub.add_parser("page", help="write docs/openers.md from the shipped tables")
    args = parser.parse_args()
    if args.command == "run":
        if args.address and args.backend != "ray":
            parser.error("--address: only with --backend ray")
        run(args.mode, args.hours, args.exact, args.certify, Workers(args.backend, args.jobs, args.address))
    else:
        {"status": status, "ship": ship, "page": page}[args.command]()


if __name__ == "__main__":
    script_main(main)
