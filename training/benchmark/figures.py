"""The report's figures, drawn from its summary (matplotlib, no display needed).

Every figure shows the regret (0: the proven optimum, 1: the random-consistent baseline; lower is
better), converted back from the normalised score rliable computed on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

#: The figures a report draws (file names), in the order the page shows them.
FIGURES = ("aggregates.png", "profiles.png", "improvement.png", "curves.png")

#: One colour per algorithm, in name order (matplotlib's colour-blind-safe "tab10" cycle).
_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")


def _regret_axis(ax: Any, top: float, axis: str = "y") -> None:
    """Linear from the optimum (0) to random play (1), logarithmic above: both ends readable."""
    getattr(ax, f"set_{axis}scale")("symlog", linthresh=1.0, linscale=2.0)
    ticks = [t for t in (0, 0.25, 0.5, 0.75, 1, 2, 4, 8, 16) if t <= max(top, 1.0) * 1.5]
    getattr(ax, f"set_{axis}ticks")(ticks, [f"{t:g}" for t in ticks])
    getattr(ax, f"set_{axis}lim")(-0.05, max(top, 1.0) * 1.3)


def _colours(algos: list[str]) -> dict[str, str]:
    return {a: _COLOURS[i % len(_COLOURS)] for i, a in enumerate(sorted(algos))}


def draw_all(summary: dict[str, Any], out: Path) -> list[str]:
    """Draw every figure into ``out``; return their file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drawers = dict(zip(FIGURES, (_aggregates, _profiles, _improvement, _curves), strict=True))
    names = []
    for name, draw in drawers.items():
        fig = draw(summary, plt)
        if fig is None:
            continue
        fig.savefig(out / name, dpi=110, bbox_inches="tight")
        plt.close(fig)
        names.append(name)
    return names


def _aggregates(summary: dict[str, Any], plt: Any) -> Any:
    aggs = summary["aggregates"]
    algos = sorted(aggs)
    colours = _colours(algos)
    fig, axes = plt.subplots(1, 3, figsize=(11, 0.5 * len(algos) + 1.6), sharey=True)
    for ax, metric in zip(axes, ("iqm", "median", "mean")):
        for i, algo in enumerate(algos):
            a = aggs[algo][metric]
            low, high, point = 1 - a["high"], 1 - a["low"], 1 - a["score"]
            ax.barh(i, high - low, left=low, height=0.6, color=colours[algo], alpha=0.75)
            ax.plot([point, point], [i - 0.3, i + 0.3], color="black", linewidth=1.5)
        ax.axvline(0, color="grey", linestyle=":", linewidth=1)
        ax.axvline(1, color="grey", linestyle="--", linewidth=1)
        _regret_axis(ax, max(1 - aggs[a][metric]["low"] for a in algos), "x")
        ax.set_title({"iqm": "IQM", "median": "median", "mean": "mean"}[metric])
        ax.set_xlabel("normalised regret")
        ax.set_yticks(range(len(algos)), algos)
    fig.suptitle(f"Final regret over tiers {', '.join(summary['aggregated_tiers'])} and seeds "
                 "(95% stratified-bootstrap intervals; 0 optimum, 1 random-consistent)", fontsize=10)
    fig.tight_layout()
    return fig


def _profiles(summary: dict[str, Any], plt: Any) -> Any:
    prof = summary["profiles"]
    taus = np.array(prof["taus"])
    algos = sorted(k for k in prof if k != "taus")
    colours = _colours(algos)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for algo in algos:
        ax.plot(taus, prof[algo]["share"], color=colours[algo], label=algo, linewidth=1.8)
        ax.fill_between(taus, prof[algo]["low"], prof[algo]["high"], color=colours[algo], alpha=0.2)
    ax.axvline(1, color="grey", linestyle="--", linewidth=1)
    _regret_axis(ax, float(taus[-1]) / 1.3, "x")
    ax.set_xlabel("normalised regret τ (1 = random-consistent)")
    ax.set_ylabel("share of runs with regret ≤ τ")
    ax.set_ylim(0, 1.02)
    ax.set_title("Performance profiles (95% intervals)", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def _improvement(summary: dict[str, Any], plt: Any) -> Any:
    pairs = summary["improvement"]
    algos = sorted(summary["aggregates"])
    if len(algos) < 2:
        return None
    grid = np.full((len(algos), len(algos)), np.nan)
    for i, x in enumerate(algos):
        for j, y in enumerate(algos):
            if x != y:
                grid[i, j] = pairs[f"{x},{y}"]["probability"]
    fig, ax = plt.subplots(figsize=(1.2 * len(algos) + 2, 1.0 * len(algos) + 1.2))
    image = ax.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    for i, x in enumerate(algos):
        for j, y in enumerate(algos):
            if x != y:
                p = pairs[f"{x},{y}"]
                ax.text(j, i, f"{p['probability']:.2f}\n[{p['low']:.2f}, {p['high']:.2f}]", ha="center",
                        va="center", fontsize=7, color="white" if abs(p["probability"] - 0.5) > 0.3 else "black")
    ax.set_xticks(range(len(algos)), algos, rotation=30, ha="right")
    ax.set_yticks(range(len(algos)), algos)
    ax.set_xlabel("Y")
    ax.set_ylabel("X")
    ax.set_title("P(X improves on Y): a run of X has lower regret than one of Y", fontsize=10)
    fig.colorbar(image, ax=ax, shrink=0.8)
    fig.tight_layout()
    return fig


def _curves(summary: dict[str, Any], plt: Any) -> Any:
    curves = summary["curves"]
    if not curves:
        return None
    tiers = list(curves)
    algos = sorted({a for t in tiers for a in curves[t]})
    colours = _colours(algos)
    fig, axes = plt.subplots(1, len(tiers), figsize=(4.2 * len(tiers), 3.6), squeeze=False)
    for ax, tier in zip(axes[0], tiers):
        for algo, c in sorted(curves[tier].items()):
            steps = np.array(c["steps"])
            ax.plot(steps, c["iqm"], color=colours[algo], label=f"{algo} ({c['seeds']})", linewidth=1.6)
            ax.fill_between(steps, c["low"], c["high"], color=colours[algo], alpha=0.2)
        ax.axhline(1, color="grey", linestyle="--", linewidth=1)
        ax.axhline(0, color="grey", linestyle=":", linewidth=1)
        _regret_axis(ax, max(max(c["high"]) for c in curves[tier].values()))
        ax.set_title(tier, fontsize=10)
        ax.set_xlabel("environment steps")
        ax.set_ylabel("IQM regret over seeds")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Learning curves (95% intervals; dashed: random-consistent, dotted: the optimum)", fontsize=10)
    fig.tight_layout()
    return fig


__all__ = ["FIGURES", "draw_all"]
