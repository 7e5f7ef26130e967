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
    """Linear from the optimum (0) to random play (1), logarithmic above (only where a value is
    above 1): both ends readable, the logarithmic part shaded and labelled so the change of scale is
    seen, not guessed."""
    limit = max(top, 1.0) * 1.3
    if top > 1.0:
        getattr(ax, f"set_{axis}scale")("symlog", linthresh=1.0, linscale=2.0)
        span = ax.axvspan if axis == "x" else ax.axhspan
        span(1.0, limit, color="0.93", zorder=0, linewidth=0)
        where = (1.02, 0.99) if axis == "x" else (0.01, 1.04)
        transform = ax.get_xaxis_transform() if axis == "x" else ax.get_yaxis_transform()
        ax.text(*where, "log scale", transform=transform, fontsize=8, color="0.35",
                ha="left", va="top" if axis == "x" else "bottom", rotation=0)
    ticks = [t for t in (0, 0.25, 0.5, 0.75, 1, 2, 4, 8, 16, 32) if t <= limit]
    getattr(ax, f"set_{axis}ticks")(ticks, [f"{t:g}" for t in ticks])
    getattr(ax, f"set_{axis}lim")(-0.05, limit)


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
            # the interval's ends as caps and the estimate as a marker: seen even where the interval has no width
            ax.errorbar(point, i, xerr=[[point - low], [high - point]], fmt="o", color="black", markersize=4,
                        capsize=5, elinewidth=1.2)
        ax.axvline(0, color="grey", linestyle=":", linewidth=1)
        ax.axvline(1, color="grey", linestyle="--", linewidth=1)
        _regret_axis(ax, max(1 - aggs[a][metric]["low"] for a in algos), "x")
        ax.set_title({"iqm": "IQM", "median": "median", "mean": "mean"}[metric])
        ax.set_xlabel("normalised regret")
        ax.set_yticks(range(len(algos)), algos)
    axes[0].invert_yaxis()  # algorithms top to bottom in name order, as in the tables
    fig.suptitle(f"Final regret over tiers {', '.join(summary['aggregated_tiers'])} and seeds "
                 "(95% stratified-bootstrap intervals; 0 optimum, 1 random-consistent)", fontsize=10)
    fig.tight_layout()
    return fig


def _profiles(summary: dict[str, Any], plt: Any) -> Any:
    prof = summary["profiles"]
    taus = np.array(prof["taus"])
    algos = sorted(k for k in prof if k != "taus")
    colours = _colours(algos)
    fig, ax = plt.subplots(figsize=(7.5, 4))
    for algo in algos:
        ax.plot(taus, prof[algo]["share"], color=colours[algo], label=algo, linewidth=1.8)
        ax.fill_between(taus, prof[algo]["low"], prof[algo]["high"], color=colours[algo], alpha=0.2)
    ax.axvline(1, color="grey", linestyle="--", linewidth=1)
    _regret_axis(ax, float(taus[-1]) / 1.3, "x")
    ax.set_xlabel("normalised regret τ (1 = random-consistent)")
    ax.set_ylabel("share of runs with regret ≤ τ")
    ax.set_ylim(0, 1.02)
    ax.set_title("Performance profiles (95% intervals)", fontsize=10)
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)  # beside: covers no curve
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
    fig, ax = plt.subplots(figsize=(1.6 * len(algos) + 2.5, 1.3 * len(algos) + 1.5))
    image = ax.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    for i, x in enumerate(algos):
        for j, y in enumerate(algos):
            if x != y:
                p = pairs[f"{x},{y}"]
                ax.text(j, i, f"{p['probability']:.2f}\n[{p['low']:.2f}, {p['high']:.2f}]", ha="center",
                        va="center", fontsize=9, color="white" if abs(p["probability"] - 0.5) > 0.3 else "black")
    ax.set_xticks(range(len(algos)), algos, rotation=30, ha="right", fontsize=10)
    ax.set_yticks(range(len(algos)), algos, fontsize=10)
    ax.set_xlabel("Y: the algorithm compared against (column)", fontsize=10)
    ax.set_ylabel("X: the algorithm (row)", fontsize=10)
    ax.set_title("P(X improves on Y): a run of X has lower regret than one of Y\n(95% intervals in brackets)",
                 fontsize=10)
    bar = fig.colorbar(image, ax=ax, shrink=0.8)
    bar.set_label("P(X improves on Y); 0.5: neither", fontsize=10)
    fig.tight_layout()
    return fig


def _steps(value: float) -> str:
    """A step count as a tick label: 0, 50k, 1.5M."""
    if abs(value) >= 1e6:
        return f"{value / 1e6:g}M"
    return f"{value / 1e3:g}k" if abs(value) >= 1e3 else f"{value:g}"


def _curves(summary: dict[str, Any], plt: Any) -> Any:
    """Per tier, the IQM over seeds against environment steps (with its interval) and each seed's own
    curve (thin), and below, each seed's curve against its wall-clock seconds."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    curves = summary["curves"]
    if not curves:
        return None
    tiers = list(curves)
    algos = sorted({a for t in tiers for a in curves[t]})
    colours = _colours(algos)
    fig, axes = plt.subplots(2, len(tiers), figsize=(max(4.4 * len(tiers), 6.5), 7.0), squeeze=False)
    for k, tier in enumerate(tiers):
        by_steps, by_wall = axes[0][k], axes[1][k]
        top = max(max(max(c["high"]), *(max(t["regret"]) for t in c.get("traces", []))) for c in curves[tier].values())
        for algo, c in sorted(curves[tier].items()):
            steps = np.array(c["steps"])
            for trace in c.get("traces", []):
                by_steps.plot(steps, trace["regret"], color=colours[algo], linewidth=0.6, alpha=0.35)
                by_wall.plot(trace["wall_s"], trace["regret"], color=colours[algo], linewidth=0.8, alpha=0.6)
            by_steps.plot(steps, c["iqm"], color=colours[algo], label=f"{algo} ({c['seeds']} seeds)", linewidth=1.8)
            by_steps.fill_between(steps, c["low"], c["high"], color=colours[algo], alpha=0.2)
        for ax in (by_steps, by_wall):
            ax.axhline(1, color="grey", linestyle="--", linewidth=1)
            ax.axhline(0, color="grey", linestyle=":", linewidth=1)
            _regret_axis(ax, top)
        by_steps.set_title(tier, fontsize=10)
        by_steps.xaxis.set_major_locator(MaxNLocator(5, integer=True))
        by_steps.xaxis.set_major_formatter(FuncFormatter(lambda value, _: _steps(value)))
        by_steps.set_xlabel("environment steps")
        by_steps.set_ylabel("regret: IQM over seeds, and each seed")
        by_wall.set_xlabel("wall-clock seconds of the run")
        by_wall.set_ylabel("regret: each seed")
    axes[0][-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    fig.suptitle("Learning curves (95% intervals of the IQM; thin lines: single seeds; dashed: random-consistent, "
                 "dotted: the optimum)", fontsize=10)
    fig.tight_layout()
    return fig


__all__ = ["FIGURES", "draw_all"]
