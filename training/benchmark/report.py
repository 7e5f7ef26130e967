"""The benchmark's report: rliable's aggregates and figures over saved runs.

:func:`build_report` reads every ``evaluations.json`` under the given folders (checked by
:func:`~guessgym.training.benchmark.records.check_record`: the protocol's version, tiers and
budgets only), keeps the complete runs, and computes with rliable (Agarwal et al., 2021, "Deep RL
at the Edge of the Statistical Precipice"):

* per algorithm, the interquartile mean (IQM) of the final **normalised score** ``1 − regret`` (1: the
  proven optimum, 0: the random-consistent baseline; rliable's functions take higher as better) over
  every run of every tier, and the median and mean over tiers of each tier's mean over seeds (rliable's
  definitions), with 95% stratified-bootstrap intervals;
* performance profiles: the share of runs whose regret is at most τ, with intervals;
* the probability of improvement of each algorithm over each other;
* per tier, learning curves: the IQM of the regret over seeds at each evaluation step, with intervals,
  and each seed's own curve against steps and against wall-clock seconds.

It writes ``summary.json`` (every number above, and each run's final regret and win rate),
``README.md`` (the tables, the figures, the command) and the figures as PNGs.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from importlib import resources
from itertools import permutations
from pathlib import Path
from typing import Any

import numpy as np

from ...infra.atomic import atomic_write_bytes
from ...infra.export_record import check_own_files, mark_own_files
from .figures import FIGURES, draw_all
from .protocol import Protocol, protocol

#: The most algorithms one report compares: its probability of improvement bootstraps every ordered pair, so its
#: time grows with their square (25 algorithms took over 400 s at 500 resamples).
MAX_ALGORITHMS = 12

#: The regret thresholds of the performance profiles up to 10 (fine between the optimum and random play,
#: coarser above); :func:`profile_taus` extends them past the largest regret of a report.
PROFILE_TAUS = np.concatenate([np.linspace(0.0, 1.0, 81), np.linspace(1.1, 10.0, 90)])


def profile_taus(scores: dict[str, np.ndarray]) -> np.ndarray:
    """:data:`PROFILE_TAUS`, continued in steps of 0.1 past the largest regret of ``scores`` (so every
    run's profile reaches 1 inside the figure)."""
    worst = max((float(np.max(1.0 - s)) for s in scores.values() if np.size(s)), default=0.0)
    if worst <= PROFILE_TAUS[-1]:
        return PROFILE_TAUS
    top = np.ceil(worst * 1.05 * 10) / 10
    return np.concatenate([PROFILE_TAUS, np.arange(round(PROFILE_TAUS[-1] * 10) + 1, round(top * 10) + 1) / 10])


@contextlib.contextmanager
def _seeded(seed: int) -> Iterator[None]:
    """numpy's global generator seeded for one rliable call, and restored after it: rliable 1.2's
    bootstraps draw from it (``np.random.choice``) whatever ``random_state`` they are given."""
    saved = np.random.get_state()  # noqa: NPY002
    np.random.seed(seed)  # noqa: NPY002
    try:
        yield
    finally:
        np.random.set_state(saved)  # noqa: NPY002


def default_runs() -> Path:
    """The reference runs of a checkout (``results/benchmark/runs``)."""
    return Path("results") / "benchmark" / "runs"


def version_of(runs: list[dict[str, Any]]) -> Protocol:
    """The one protocol the runs are of; a ``ValueError`` naming two runs of different versions (results of
    different versions are never reported together)."""
    first = runs[0]
    other = next((r for r in runs if r["protocol"] != first["protocol"]), None)
    if other is not None:
        raise ValueError(f"{first['path']} is of protocol {first['protocol']} and {other['path']} of protocol "
                         f"{other['protocol']}: results of different versions are never reported together; report "
                         "each version's folder on its own")
    return protocol(first["protocol"])


def load_runs(roots: list[Path]) -> list[dict[str, Any]]:
    """Every complete run under ``roots`` (each file checked; duplicates of a run refused)."""
    from .runner import read_evaluations

    files: list[Path] = []
    for root in roots:
        if root.is_file():
            files.append(root)
        elif root.is_dir():
            files += sorted(root.rglob("evaluations.json"))
        else:
            raise ValueError(f"{root}: no such file or folder of runs")
    runs: list[dict[str, Any]] = []
    seen: dict[tuple[str, str, int], Path] = {}
    for path in files:
        record = read_evaluations(path)
        key = (record["algo"], record["tier"], record["seed"])
        if key in seen:
            raise ValueError(f"{path} and {seen[key]} are the same run ({key[0]} on {key[1]}, seed {key[2]})")
        seen[key] = path
        if record["complete"]:
            runs.append({**record, "path": str(path)})
    if not runs:
        raise ValueError(f"no complete run under {', '.join(map(str, roots))} (evaluations.json with complete: true)")
    version_of(runs)
    algos = sorted({r["algo"] for r in runs})
    if len(algos) > MAX_ALGORITHMS:
        raise ValueError(f"the runs are of {len(algos)} algorithms; a report compares at most {MAX_ALGORITHMS} (every "
                         f"pair is bootstrapped): report fewer folders at a time")
    return runs


def score_matrices(runs: list[dict[str, Any]]) -> tuple[dict[str, np.ndarray], list[str], dict[str, list[int]]]:
    """Per algorithm, the ``(seeds, tiers)`` matrix of final normalised scores over the tiers every
    algorithm has, and over the seeds each algorithm has on every one of those tiers."""
    algos = sorted({r["algo"] for r in runs})
    tiers = [t.name for t in version_of(runs).tiers
             if all(any(r["tier"] == t.name and r["algo"] == a for r in runs) for a in algos)]
    if not tiers:
        raise ValueError("no tier has complete runs of every algorithm; report fewer algorithms or add runs")
    scores, seeds_of = {}, {}
    for algo in algos:
        by = {(r["tier"], r["seed"]): 1.0 - r["final"]["regret"] for r in runs if r["algo"] == algo}
        seeds = sorted(set.intersection(*[{s for (t, s) in by if t == tier} for tier in tiers]))
        scores[algo] = np.array([[by[(tier, s)] for tier in tiers] for s in seeds])
        seeds_of[algo] = seeds
    return scores, tiers, seeds_of


def aggregates(scores: dict[str, np.ndarray], reps: int, seed: int) -> dict[str, Any]:
    """IQM, median and mean of the normalised score per algorithm, with 95% stratified-bootstrap intervals."""
    from rliable import library as rly
    from rliable import metrics

    def aggregate(x: np.ndarray) -> np.ndarray:
        return np.array([metrics.aggregate_iqm(x), metrics.aggregate_median(x), metrics.aggregate_mean(x)])

    with _seeded(seed):
        point, intervals = rly.get_interval_estimates(scores, aggregate, reps=reps)
    names = ("iqm", "median", "mean")
    return {algo: {name: {"score": float(point[algo][i]), "low": float(intervals[algo][0, i]),
                          "high": float(intervals[algo][1, i])} for i, name in enumerate(names)}
            for algo in scores}


def profiles(scores: dict[str, np.ndarray], reps: int, seed: int) -> dict[str, Any]:
    """The thresholds τ (``taus``: :func:`profile_taus`) and, per algorithm, the share of runs with regret
    at most each τ, with intervals."""
    from rliable import library as rly

    taus = profile_taus(scores)
    negated = {a: -(1.0 - s) for a, s in scores.items()}  # -regret > -tau - eps  <=>  regret <= tau
    with _seeded(seed):
        point, intervals = rly.create_performance_profile(negated, -taus - 1e-12, reps=reps)
    return {"taus": taus.tolist(), **{a: {"share": point[a].tolist(), "low": intervals[a][0].tolist(),
                                          "high": intervals[a][1].tolist()} for a in scores}}


def improvements(scores: dict[str, np.ndarray], reps: int, seed: int) -> dict[str, Any]:
    """P(X > Y) of every ordered pair of algorithms (a run of X scores higher than one of Y, averaged
    over tiers), with intervals."""
    from rliable import library as rly
    from rliable import metrics

    pairs = {f"{x},{y}": (scores[x], scores[y]) for x, y in permutations(sorted(scores), 2)}
    if not pairs:
        return {}
    with _seeded(seed):
        point, intervals = rly.get_interval_estimates(pairs, metrics.probability_of_improvement, reps=reps)
    return {k: {"probability": float(np.ravel(point[k])[0]), "low": float(np.ravel(intervals[k])[0]),
                "high": float(np.ravel(intervals[k])[1])} for k in pairs}


def curves(runs: list[dict[str, Any]], reps: int, seed: int) -> dict[str, Any]:
    """Per tier and algorithm: the IQM over seeds of the regret at each evaluation step, with intervals."""
    from rliable import library as rly
    from rliable import metrics

    out: dict[str, Any] = {}
    for t in version_of(runs).tiers:
        mine = [r for r in runs if r["tier"] == t.name]
        if not mine:
            continue
        out[t.name] = {}
        for algo in sorted({r["algo"] for r in mine}):
            rows = [r for r in mine if r["algo"] == algo]
            steps = [e["step"] for e in rows[0]["evaluations"]]
            if any([e["step"] for e in r["evaluations"]] != steps for r in rows):
                raise ValueError(f"{algo} on {t.name}: runs evaluated at different steps cannot share a curve")
            regret = np.array([[e["regret"] for e in r["evaluations"]] for r in rows])[:, None, :]  # runs, 1, steps

            def iqm(x: np.ndarray) -> np.ndarray:
                return np.array([metrics.aggregate_iqm(x[..., k]) for k in range(x.shape[-1])])

            with _seeded(seed):
                point, intervals = rly.get_interval_estimates({algo: regret}, iqm, reps=reps)
            out[t.name][algo] = {"steps": steps, "iqm": point[algo].tolist(), "low": intervals[algo][0].tolist(),
                                 "high": intervals[algo][1].tolist(), "seeds": len(rows),
                                 "traces": [{"seed": r["seed"], "regret": [e["regret"] for e in r["evaluations"]],
                                             "wall_s": [e["wall_s"] for e in r["evaluations"]]}
                                            for r in sorted(rows, key=lambda r: r["seed"])]}
    return out


def _tiers_of(runs: list[dict[str, Any]]) -> list[str]:
    """The tiers the runs are on, in protocol order."""
    return [t.name for t in version_of(runs).tiers if any(r["tier"] == t.name for r in runs)]


def _table(runs: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    tiers = _tiers_of(runs)
    algos = sorted({r["algo"] for r in runs})
    head = "| algorithm | IQM regret [95% CI] | " + " | ".join(f"{t}: regret (win rate)" for t in tiers) + " |"
    lines = [head, "|" + "---|" * (2 + len(tiers))]
    for algo in algos:
        agg = summary["aggregates"].get(algo, {}).get("iqm")
        iqm = "-" if agg is None else f"{1 - agg['score']:.3f} [{1 - agg['high']:.3f}, {1 - agg['low']:.3f}]"
        cells = []
        for t in tiers:
            mine = [r for r in runs if r["algo"] == algo and r["tier"] == t]
            if not mine:
                cells.append("-")
                continue
            regret = np.array([r["final"]["regret"] for r in mine])
            wins = np.array([r["final"]["win_rate"] for r in mine])
            cells.append(f"{regret.mean():.3f} ± {regret.std(ddof=1) if len(mine) > 1 else 0:.3f} "
                         f"({wins.mean():.1%}, {len(mine)} seeds)")
        lines.append(f"| {algo} | {iqm} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _per_tier(runs: list[dict[str, Any]], cell: Callable[[list[dict[str, Any]]], str]) -> str:
    """A table of algorithms by tiers, each cell ``cell`` of that algorithm's runs on that tier ("-" for none)."""
    tiers = _tiers_of(runs)
    lines = ["| algorithm | " + " | ".join(tiers) + " |", "|" + "---|" * (1 + len(tiers))]
    for algo in sorted({r["algo"] for r in runs}):
        cells = [[r for r in runs if r["algo"] == algo and r["tier"] == t] for t in tiers]
        lines.append(f"| {algo} | " + " | ".join(cell(mine) if mine else "-" for mine in cells) + " |")
    return "\n".join(lines)


def _times(runs: list[dict[str, Any]]) -> str:
    return _per_tier(runs, lambda mine: f"{np.mean([r['final']['wall_s'] for r in mine]):.0f}")


def build_report(roots: list[Path], out: Path, *, reps: int = 2000, seed: int = 0, plots: bool = True,
                 command: str | None = None) -> dict[str, Any]:
    """Read the runs under ``roots``, compute every aggregate, write the report into ``out``;
    return the summary (with its Markdown ``table`` and the ``figures`` written)."""
    check_report_folder(out)
    runs = load_runs(roots)
    return _build_report(runs, out, reps, seed, plots, command)


#: What a report writes into its folder (it replaces these, and only where an earlier report wrote them).
REPORT_FILES = ("README.md", "summary.json", *FIGURES)


def check_report_folder(out: Path) -> None:
    """Refuse ``out`` if it holds a file of a report's names that no report wrote (a user's
    ``README.md``): a report replaces only its own files, and leaves everything else there."""
    check_own_files(out, list(REPORT_FILES), "give another --out (a new folder, or one an earlier report wrote)")


def _build_report(runs: list[dict[str, Any]], out: Path, reps: int, seed: int, plots: bool,
                  command: str | None) -> dict[str, Any]:
    spec = version_of(runs)
    scores, tiers, seeds_of = score_matrices(runs)
    later = spec.version != "1"  # version 2 on: raw scores first, the third anchor, the granularity, the aids
    anchors: dict[str, Any] = {}
    for name in sorted({r["tier"] for r in runs}):
        a = spec.anchors_of(name)
        anchors[name] = {"optimum_mean": a.optimum_mean, "random_mean": a.random_mean, "proven": a.proven}
        if later:
            anchors[name].update(answers=a.answers, uniform_mean=a.uniform_mean, guess_worth=a.guess_worth)
    summary: dict[str, Any] = {
        "protocol": spec.version, "reps": reps, "seed": seed, "aggregated_tiers": tiers,
        "seeds": seeds_of,
        "anchors": anchors,
        "aggregates": aggregates(scores, reps, seed),
        "profiles": profiles(scores, reps, seed),
        "improvement": improvements(scores, reps, seed),
        "curves": curves(runs, reps, seed),
        "runs": [{k: r[k] for k in ("algo", "tier", "seed")} | {"regret": r["final"]["regret"],
                 "win_rate": r["final"]["win_rate"], "mean_score": r["final"]["mean_score"],
                 "wall_s": r["final"]["wall_s"], "resumed_at": r["resumed_at"]}
                 | ({"aids": r["aids"]} if later else {}) for r in runs],
    }
    out.mkdir(parents=True, exist_ok=True)
    figures: list[str] = []
    if plots:
        figures = draw_all(summary, out)
    table = _scores_table(runs, summary) if later else _table(runs, summary)
    summary["table"] = table
    summary["figures"] = figures
    atomic_write_bytes(out / "summary.json", (json.dumps(summary, indent=1) + "\n").encode())
    atomic_write_bytes(out / "README.md", _page(summary, runs, command).encode())
    mark_own_files(out, "guessgym benchmark report", ["README.md", "summary.json", *figures])
    return summary


def _scores_table(runs: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    """Version 2's table: per tier the raw mean guesses and win rate first, then the regret (mean ± sd over
    seeds), and the IQM regret over the aggregated tiers."""
    tiers = _tiers_of(runs)
    head = "| algorithm | IQM regret [95% CI] | " + " | ".join(
        f"{t}: mean guesses, win rate, regret" for t in tiers) + " |"
    lines = [head, "|" + "---|" * (2 + len(tiers))]
    for algo in sorted({r["algo"] for r in runs}):
        agg = summary["aggregates"].get(algo, {}).get("iqm")
        iqm = "-" if agg is None else f"{1 - agg['score']:.3f} [{1 - agg['high']:.3f}, {1 - agg['low']:.3f}]"
        cells = []
        for t in tiers:
            mine = [r["final"] for r in runs if r["algo"] == algo and r["tier"] == t]
            if not mine:
                cells.append("-")
                continue
            regret = np.array([f["regret"] for f in mine])
            cells.append(f"{np.mean([f['mean_score'] for f in mine]):.3f}, "
                         f"{np.mean([f['win_rate'] for f in mine]):.1%}, {regret.mean():.3f} ± "
                         f"{regret.std(ddof=1) if len(mine) > 1 else 0:.3f} ({len(mine)} seeds)")
        lines.append(f"| {algo} | {iqm} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _aids_table(runs: list[dict[str, Any]]) -> str:
    """Version 2: the learning-signal aids each algorithm's runs declared, per tier (read from each record)."""
    return _per_tier(runs, lambda mine: " / ".join(sorted({", ".join(r["aids"]) or "none" for r in mine})))


def _page(summary: dict[str, Any], runs: list[dict[str, Any]], command: str | None) -> str:
    spec = protocol(summary["protocol"])
    later = spec.version != "1"
    template = resources.files(__package__ or "guessgym.training.benchmark").joinpath("data").joinpath(
        "report.md" if not later else f"report-v{spec.version}.md")
    pairs = summary["improvement"]
    algos = sorted(summary["aggregates"])
    grid = ["| P(row improves on column) | " + " | ".join(algos) + " |", "|" + "---|" * (len(algos) + 1)]
    for x in algos:
        cells = ["-" if x == y else f"{pairs[f'{x},{y}']['probability']:.2f}" for y in algos]
        grid.append(f"| {x} | " + " | ".join(cells) + " |")
    if later:
        anchors = ["| tier | scored answers | optimum (mean) | random-consistent (mean) | uniform random (mean) "
                   "| one guess in regret |", "|---|---|---|---|---|---|"]
        for t, a in summary["anchors"].items():
            anchors.append(f"| {t} | {a['answers']} | {a['optimum_mean']:.4f}{'' if a['proven'] else ' *'} "
                           f"| {a['random_mean']:.4f} | {a['uniform_mean']:.4f} | {a['guess_worth']:.4f} |")
    else:
        anchors = ["| tier | answers | optimum (mean) | random-consistent (mean) |", "|---|---|---|---|"]
        for t, a in summary["anchors"].items():
            anchors.append(f"| {t} | {spec.anchors_of(t).answers} | {a['optimum_mean']:.4f}"
                           f"{'' if a['proven'] else ' *'} | {a['random_mean']:.4f} |")
    figures = "\n\n".join(f"![{name}]({name})" for name in summary["figures"])
    default = ("guessgym benchmark report results/benchmark/runs --out results/benchmark" if not later else
               f"guessgym benchmark report results/benchmark-v{spec.version}/runs --out "
               f"results/benchmark-v{spec.version}")
    return template.read_text(encoding="utf-8").format(
        protocol=spec.version, runs=len(runs), table=summary["table"], improvement="\n".join(grid),
        anchors="\n".join(anchors), times=_times(runs), figures=figures or "(figures not drawn: --no-plots)",
        tiers=", ".join(summary["aggregated_tiers"]), reps=summary["reps"], command=command or default,
        resumed=sum(1 for r in runs if r["resumed_at"]), aids=_aids_table(runs) if later else "")


__all__ = ["FIGURES", "MAX_ALGORITHMS", "PROFILE_TAUS", "REPORT_FILES", "aggregates", "build_report",
           "check_report_folder", "curves", "default_runs", "improvements", "load_runs", "profile_taus", "profiles",
           "score_matrices", "version_of"]
