"""Reports of evaluation results: plots and tables.

The data (:class:`~guessgym.evaluation.results.EvaluationResult`, its statistics and its JSON)
lives in :mod:`guessgym.evaluation.results`; this module renders it: one result as Markdown
(:func:`result_markdown`; :func:`gap_text`, the *vs optimum* cell) or as a picture
(:func:`plot_histogram`), and several (:func:`leaderboard`, :func:`plot_leaderboard`,
:func:`plot_win_rate_curves`).

Plots use matplotlib with the Agg backend and are optional (the ``plots`` extra): a missing
matplotlib is a one-line ``ImportError`` naming the extra.

Examples:
    >>> from guessgym.evaluation.results import GameRecord
    >>> r = EvaluationResult("demo", "", None, "x", 6, [GameRecord("aa", 2, True), GameRecord("ab", 6, False)])
    >>> print(leaderboard([r]).splitlines()[-1])
    | 1 | demo | x | 2 | 50.00 | 2.0000 | 4.5000 | 0.000 | 2 | 2:1 3:0 4:0 5:0 6:0 X:1 | - | 0.0000 |
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..infra.atomic import atomic_path
from ..infra.optional import require
from .conduct import saved_conduct_line
from .formatting import format_gap
from .results import FAIL, EvaluationResult, format_number, format_percent, format_seconds, register_text

# Colours of the real games' statistics pages.
_BAR_GREEN = "#6aaa64"
_BAR_GREY = "#787c7e"
_BAR_FAIL = "#b0413e"


# ---- one result --------------------------------------------------------------------------------
def gap_text(result: EvaluationResult) -> str:
    """``+12 (+0.15%)``: *vs optimum*, guesses over the optimal tree's total on the same answers
    (:func:`~guessgym.evaluation.formatting.format_gap`, the one definition the training table
    uses too), or ``-`` when it is not known here (a sample of answers, whose result keeps no
    tree total, or a game without a shipped optimum); ``*`` marks an unproven optimum."""
    gap = result.gap_to_optimum
    if gap is None:
        return "-"
    return format_gap(gap[0], int(result.optimum["total"]), proven=bool(result.optimum.get("proven")))


def optimum_note(result: EvaluationResult) -> str:
    """What the "vs optimum" figure is measured against (the tree, its opener, proven or not)."""
    o = result.optimum
    status = "proven optimal over every tree" if o.get("proven") else (
        f"the best tree over {o['scope']}; not proven optimal (*): every tree needs at least {o['lower_bound']:,}")
    tree = "the optimal tree" if o.get("proven") else "the best known tree"
    return (f"vs optimum on {result.game}: total guesses minus {o['total']:,}, {tree}'s total "
            f"(opener {o['opener']}, {status}).")

def compact_distribution(result: EvaluationResult) -> str:
    """The distribution on one line, e.g. ``"2:131 3:999 4:1162 5:17 X:0"`` (zeros before
    the first non-zero bucket omitted, the failure bucket always shown)."""
    return _compact(result.distribution)

def result_markdown(result: EvaluationResult, hardest: int = 10) -> str:
    """One result as Markdown: a one-row table, the distribution, the hardest answers, and the notes
    (accounting, conduct, what *vs optimum* is measured against, games lost for another reason)."""
    lines = [f"### {result.label} on {result.game}", ""]
    if result.description:
        lines += [result.description, ""]
    # A game without an attempt limit (uncapped Absurdle) has no "X = m + 1" to count a loss as.
    uncapped = result.uncapped
    with_failures = math.nan if uncapped and result.n_failed else result.mean_guesses_with_failures
    lines += [
        "| agent | game | games | win % | mean (solved) | "
        + ("mean (all; no attempt limit)" if uncapped else f"mean (X = {result.max_attempts + 1})")
        + " | std | max | s/game |" + (" vs optimum |" if result.gap_to_optimum is not None else ""),
        "|---|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|" if result.gap_to_optimum is not None else ""),
        f"| {result.label} | {result.game} | {result.n_games} | {format_percent(result.win_rate)} | "
        f"{format_number(result.mean_guesses, 4)} | {format_number(with_failures, 4)} | "
        f"{format_number(result.std_guesses, 3)} | {result.max_guesses if result.max_guesses is not None else '-'} | "
        f"{format_seconds(result.seconds_per_game)} |" + (f" {gap_text(result)} |" if result.gap_to_optimum is not None
                                                        else ""),
        "",
        "| guesses | " + " | ".join(str(k) for k in result.distribution) + " |",
        "|---|" + "---:|" * len(result.distribution),
        "| games | " + " | ".join(str(v) for v in result.distribution.values()) + " |",
    ]
    if hardest and result.records:
        worst = result.hardest(hardest)
        shown = ", ".join(f"{r.answer} ({r.guesses if r.solved else FAIL})" for r in worst)
        lines += ["", f"Hardest answers: {shown}"]
    accounting = accounting_line(result)
    if accounting:
        lines += ["", accounting]
    conduct = saved_conduct_line(result.meta)
    if conduct:
        lines += ["", conduct]
    if result.gap_to_optimum is not None:
        lines += ["", optimum_note(result)]
    notes = sorted({r.note for r in result.records if r.note})
    if notes:
        lines += ["", "Games lost for another reason than the attempt limit: " + "; ".join(notes)]
    return "\n".join(lines)

def accounting_line(result: EvaluationResult) -> str:
    """Invalid moves by kind, turns, lost turns, tokens and latency per game, when there is any
    to report (``""`` for an agent that never made an invalid move and calls no model)."""
    parts = []
    kinds = result.invalid_by_kind
    tokens = result.tokens_per_game
    latency = result.latency_per_game
    if kinds or tokens is not None or latency is not None:
        by_kind = ", ".join(f"{kind} {n:,}" for kind, n in kinds.items()) or "none"
        parts.append(f"Invalid moves: {result.invalid_per_game:.3f} per game ({by_kind}); "
                     f"turns per game {result.turns_per_game:.3f}, retries included; turns lost {result.n_forfeits:,}")
    if tokens is not None:
        parts.append(f"tokens per game: {tokens['prompt']:,.0f} prompt, {tokens['completion']:,.0f} completion")
    if latency is not None:
        parts.append(f"model latency per game: {latency:.2f} s")
    return "; ".join(parts) + ("." if parts else "")



def _compact(dist: dict[int | str, int]) -> str:
    items = list(dist.items())
    start = 0
    while start < len(items) - 1 and items[start][1] == 0:
        start += 1
    return " ".join(f"{k}:{v}" for k, v in items[start:])


def plot_histogram(result: EvaluationResult, path: str | os.PathLike[str]) -> Path:
    """Save a PNG guess distribution in the style of the game's statistics page.

    Horizontal bars, one per number of guesses (1..max_attempts) and one ``X`` bar for
    failures, with the count printed at the end of each bar; the title names the agent and
    the game, the subtitle gives the win rate and the means.
    """
    plt = _pyplot()
    dist = result.distribution
    keys = [str(k) for k in dist]
    counts = list(dist.values())
    height = 1.2 + 0.42 * len(keys)
    fig, ax = plt.subplots(figsize=(6.4, height), dpi=110)
    peak = max(counts) if any(counts) else 1
    modal = counts.index(peak) if any(counts[:-1]) else -1
    colours = []
    for i, (k, c) in enumerate(zip(keys, counts)):
        if not c:
            colours.append(_BAR_GREY)
        elif k == FAIL:
            colours.append(_BAR_FAIL)
        else:
            colours.append(_BAR_GREEN if i == modal else "#8fbf88")
    # Short bars still show their count, as on the game's page; an empty row a grey stub half as long
    # as the shortest count's, so that a count of 0 never looks like a count of 1.
    widths = [max(c, peak * 0.035) if c else peak * 0.0175 for c in counts]
    y = list(range(len(keys)))
    ax.barh(y, widths, color=colours, height=0.78)
    for yi, (w, c) in enumerate(zip(widths, counts)):
        if w >= 0.12 * peak:  # inside the bar's end, as on the game's page
            ax.text(w - peak * 0.012, yi, f"{c:,}", va="center", ha="right", color="white",
                    fontsize=9, fontweight="bold")
        else:  # a short bar: just past its end, where the number fits
            ax.text(w + peak * 0.012, yi, f"{c:,}", va="center", ha="left", color="#333333",
                    fontsize=9, fontweight="bold")
    ax.set_yticks(y, keys)
    ax.invert_yaxis()
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_xlim(0, peak * 1.03)
    ax.tick_params(axis="y", length=0, labelsize=10)
    ax.set_ylabel("guesses")
    fig.suptitle(f"{result.label} on {result.game}", fontsize=12, fontweight="bold", x=0.02, ha="left")
    ax.set_title(
        f"{result.n_games:,} games · win {format_percent(result.win_rate)}% · "
        f"mean {format_number(result.mean_guesses, 3)} "
        f"(solved), {format_number(result.mean_guesses_with_failures, 3)} (X = {result.max_attempts + 1})",
        fontsize=9, loc="left", color="#555555",
    )
    fig.tight_layout()
    return _save(fig, path)


def _by_group(results: Iterable[EvaluationResult]) -> dict[str, list[EvaluationResult]]:
    """Results by :func:`_group`, groups in order of first appearance."""
    groups: dict[str, list[EvaluationResult]] = {}
    for r in results:
        groups.setdefault(_group(r), []).append(r)
    return groups


def _group(r: EvaluationResult) -> str:
    """Plots put results of one environment id together (variants of a game share a panel)."""
    return r.env_id or r.game


def _title(key: str, results: Sequence[EvaluationResult]) -> str:
    games = list(dict.fromkeys(r.game for r in results))
    return key if games == [key] else f"{key} ({', '.join(games)})"


# ---- several results ---------------------------------------------------------------------------
def rank(results: Iterable[EvaluationResult]) -> list[EvaluationResult]:
    """Results sorted best first: lowest mean guesses with each failure counted as
    ``max_attempts + 1`` (one score for wins and speed together), then highest win rate, then
    lowest mean over solved games, then name.

    Win rate alone first would put an agent that always wins in 3.64 guesses above one that fails
    0.6% of its games but averages 3.62 with those failures counted as 7.
    """
    def key(r: EvaluationResult) -> tuple[float, float, float, str]:
        win = r.win_rate if not math.isnan(r.win_rate) else -1.0
        mean_all = r.mean_guesses_with_failures
        mean = r.mean_guesses
        return (mean_all if not math.isnan(mean_all) else math.inf, -win,
                mean if not math.isnan(mean) else math.inf, r.label)

    return sorted(results, key=key)


def leaderboard(results: Sequence[EvaluationResult], *, by_game: bool = False) -> str:
    """A Markdown table of several results, best first (mean guesses with failures counted, then win rate).

    ``mean`` is over solved games; ``mean X=m+1`` counts failures as ``max_attempts + 1``.
    With ``by_game=True`` the rows are grouped by game (in order of first appearance), each group
    ranked on its own, which is what a comparison across two games needs.
    """
    analysed = any("analysis" in r.meta for r in results)
    header = (
        "| # | agent | game | games | win % | mean | mean X=m+1 | std | max | distribution | vs optimum | "
        + ("loss/game (best moves) | " if analysed else "") + "s/game |\n"
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---|---:|" + ("---:|" if analysed else "") + "---:|"
    )
    groups: list[list[EvaluationResult]]
    if by_game:
        order: dict[str, list[EvaluationResult]] = {}
        for r in results:
            order.setdefault(r.game, []).append(r)
        groups = [rank(g) for g in order.values()]
    else:
        groups = [rank(results)]
    rows = []
    for group in groups:
        for i, r in enumerate(group, 1):
            rows.append(
                f"| {i} | {r.label} | {r.game} | {r.n_games} | {format_percent(r.win_rate)} | "
                f"{format_number(r.mean_guesses, 4)} | {format_number(r.mean_guesses_with_failures, 4)} | "
                f"{format_number(r.std_guesses, 3)} | {r.max_guesses if r.max_guesses is not None else '-'} | "
                f"{compact_distribution(r)} | {gap_text(r)} | " + (f"{analysis_text(r)} | " if analysed else "")
                + f"{format_seconds(r.seconds_per_game)} |"
            )
    notes = [optimum_note(r) for r in results if r.gap_to_optimum is not None]
    notes = list(dict.fromkeys(notes))
    table = header + ("\n" + "\n".join(rows) if rows else "")
    return table + ("\n\n" + "\n".join(f"- {n}" for n in notes) if notes else "")


def play_table(results: Sequence[EvaluationResult]) -> list[str]:
    """How the ranked agents play (:mod:`guessgym.evaluation.conduct`, their ``meta["conduct"]``), as
    Markdown lines: shares of their guesses that repeat one, ignore a hint, use an excluded symbol or
    could no longer be the answer, games aborted by invalid replies, invalid replies per game, and
    clembench's mean speed and its closeness and strategy per guess; no lines when no result has
    them."""
    rows = [r for r in rank(results) if isinstance(r.meta.get("conduct"), dict)]
    if not rows:
        return []
    lines = ["How they play (share of guesses; `guessgym.evaluation.conduct`; clembench's scores as its Wordle "
             "scorer computes them):", "",
             "| agent | game | guesses | repeated | ignore a hint | use an excluded symbol | could not be the answer | "
             "aborted games | invalid replies per game | clembench speed | closeness per guess | strategy per guess |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        c = r.meta["conduct"]
        clem = c.get("clembench") or {}
        scores = " | ".join("-" if clem.get(k) is None else f"{clem[k]:.2f}"
                            for k in ("speed", "closeness_per_guess", "strategy_per_guess"))
        invalid = sum(rec.n_invalid for rec in r.records) / r.n_games if r.n_games else 0.0
        excluded = f"{100 * c['excluded_share']:.2f}%" if "excluded_share" in c else "-"  # saved before it was counted
        lines.append(f"| {r.label} | {r.game} | {c['guesses']:,} | {100 * c['repeated_share']:.2f}% | "
                     f"{100 * c['ignores_hints_share']:.2f}% | {excluded} | "
                     f"{100 * c['impossible_share']:.2f}% | {c['aborted']:,} | "
                     f"{invalid:.2f} | {scores} |")
    return [*lines, ""]


def analysis_text(result: EvaluationResult) -> str:
    """A result's move analysis in a cell: the mean loss per game and the share of best moves
    (:mod:`guessgym.evaluation.analysis`), or ``-`` when its moves were not analysed."""
    brief = result.meta.get("analysis")
    if not isinstance(brief, dict):
        return "-"
    return f"{brief['mean_loss_per_game']:.4f} ({100 * brief['best_move_share']:.1f}%)"


def leaderboard_report(results: Sequence[EvaluationResult], *, title: str, intro: Sequence[str] = (),
                       not_run: Sequence[tuple[str, str, str]] = (),
                       plots: tuple[str, str] | None = None) -> str:
    """A Markdown report of several results: ``title``, the ``intro`` lines, one ranked
    :func:`leaderboard` per environment (with each labelled row's note), the rows that did not run
    (``(agent, environment, status)``), and the two plots (the file names of
    :func:`plot_leaderboard` and :func:`plot_win_rate_curves`, when given)."""
    lines = [f"# {title}", "", *intro, ""]
    for env_id, rs in _by_group(results).items():
        lines += [f"## {env_id}", "", leaderboard(rs), ""]
        labelled = [r for r in rs if r.meta.get("label")]
        for r in labelled:
            note = f": {r.meta['note']}" if r.meta.get("note") else ""
            lines.append(f"* {r.label} plays game `{r.game}`{note}.")
        unjudged = [r for r in rs if r.meta.get("analysis_note")]
        for r in unjudged:  # why the loss column says "-"
            lines.append(f"* {r.label}: {str(r.meta['analysis_note']).rstrip('.')}.")
        if labelled or unjudged:
            lines.append("")
        lines += play_table(rs)
    if not_run:
        lines += ["## Not run", "", "| agent | environment | status |", "|---|---|---|"]
        for agent, env_id, status in not_run:
            lines.append(f"| {agent} | {env_id} | {_cell(status)} |")
        lines.append("")
    if results:
        if plots is not None:
            lines += ["## Plots", "", f"![guess distributions]({plots[0]})", "",
                      f"![win rate against allowed guesses]({plots[1]})", ""]
        ran = [r for r in results if not (r.meta.get("kept") or r.meta.get("included"))]
        total = sum(r.total_seconds for r in ran)
        saved = len(results) - len(ran)
        lines.append(f"Game time of this run: {total:.1f} s over {sum(r.n_games for r in ran):,} games"
                     + (f" (the {saved} saved {'row' if saved == 1 else 'rows'} not counted)." if saved else "."))
    return "\n".join(lines).rstrip() + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def plot_leaderboard(results: Sequence[EvaluationResult], path: str | os.PathLike[str]) -> Path:
    """Save a PNG heat map of the guess distributions, one panel per game.

    Each row is an agent (best first), each column a number of guesses (1..max, then X); the
    cell colour is the share of games and the cell text the count; the row label carries the win
    rate, the mean and, when the game's optimum is known, the distance from it. Unlike a table of
    means, it shows *where* the agents differ: the tail that fails and the shape of the bulk.
    """
    return _save(leaderboard_figure(results), path)


def _row_label(r: EvaluationResult) -> str:
    return (f"{r.label}  ·  {format_percent(r.win_rate)}%  ·  {format_number(r.mean_guesses, 3)}"
            + (f"  ·  {gap_text(r)} vs opt." if r.gap_to_optimum is not None else ""))


def leaderboard_figure(results: Sequence[EvaluationResult]) -> Any:
    """The figure of :func:`plot_leaderboard`, sized to its labels and counts: the label column as
    wide as the longest row label, each cell as wide as the longest count (so ``14,765`` is never
    clipped and neighbouring counts never run together)."""
    plt = _pyplot()
    import numpy as np

    if not results:
        raise ValueError("plot_leaderboard needs at least one result")
    by_game = _by_group(results)
    panels = [(game, rank(rs)) for game, rs in by_game.items()]
    heights = [max(len(rs), 1) for _, rs in panels]
    width_cols = max(max(r.max_attempts for r in rs) + 1 for _, rs in panels)
    longest_label = max(len(_row_label(r)) for _, rs in panels for r in rs)
    longest_count = max(len(f"{v:,}") for _, rs in panels for r in rs for v in r.distribution.values())
    cell_in = max(0.45, 0.085 * longest_count + 0.2)  # 8-point digits are about 0.07 inch wide
    label_in = 0.075 * longest_label + 0.3  # 9-point text
    fig_h = 0.9 + sum(0.42 * h + 0.8 for h in heights)
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(max(7.5, label_in + cell_in * width_cols + 0.4), fig_h), dpi=110,
        gridspec_kw={"height_ratios": [h + 1.6 for h in heights]}, squeeze=False,
    )
    cmap = plt.get_cmap("Greens")
    for ax, (game, rs) in zip(axes[:, 0], panels):
        cols = max(r.max_attempts for r in rs)
        labels = [str(k) for k in range(1, cols + 1)] + [FAIL]
        share = np.zeros((len(rs), cols + 1))
        counts = np.zeros((len(rs), cols + 1), dtype=np.int64)
        for i, r in enumerate(rs):
            for k, v in r.distribution.items():
                j = cols if k == FAIL else int(k) - 1
                counts[i, j] = v
                share[i, j] = v / r.n_games if r.n_games else 0.0
        ax.imshow(share, cmap=cmap, vmin=0, vmax=max(share.max(), 1e-9), aspect="auto")
        for i in range(len(rs)):
            for j in range(cols + 1):
                c = counts[i, j]
                if c == 0:
                    continue
                dark = share[i, j] > 0.55 * share.max()
                colour = "white" if dark else ("#8b1a1a" if j == cols else "#222222")
                ax.text(j, i, f"{c:,}", ha="center", va="center", fontsize=8, color=colour)
        ax.set_xticks(range(cols + 1), labels)
        ax.set_yticks(range(len(rs)), [_row_label(r) for r in rs], fontsize=9)
        ax.tick_params(length=0)
        ax.set_xticks(np.arange(-0.5, cols + 1), minor=True)
        ax.set_yticks(np.arange(-0.5, len(rs)), minor=True)
        ax.grid(which="minor", color="white", linewidth=1.5)
        ax.tick_params(which="minor", length=0)
        for side in ax.spines.values():
            side.set_visible(False)
        ax.set_title(f"{_title(game, rs)}\ngames solved in k guesses (X = failed); rows: agent · win % · mean",
                     fontsize=10, loc="right")
    fig.tight_layout()
    return fig


def plot_win_rate_curves(results: Sequence[EvaluationResult], path: str | os.PathLike[str]) -> Path:
    """Save a PNG of win rate against the number of allowed guesses ``m``, one line per result.

    The curve of :meth:`EvaluationResult.win_rate_at` (fraction solved within ``m`` guesses), as
    in the win-rate-versus-m figure of Lahiri et al. 2023; one panel per game.
    """
    plt = _pyplot()
    if not results:
        raise ValueError("plot_win_rate_curves needs at least one result")
    by_game = _by_group(results)
    most = max(len(rs) for rs in by_game.values())
    legend_rows = math.ceil(most / 2)  # the legend sits below its panel, two columns, never on the curves
    fig, axes = plt.subplots(1, len(by_game), figsize=(5.6 * len(by_game), 4.2 + 0.17 * legend_rows), dpi=110,
                             squeeze=False)
    for ax, (game, rs) in zip(axes[0], by_game.items()):
        limits = {r.max_attempts for r in rs}
        for i, (r, style) in enumerate(zip(rank(rs), curve_styles(len(rs)))):
            curve = r.win_rate_curve()
            limit = f"{r.max_attempts} allowed: " if len(limits) > 1 else ""
            # the better ranked on top, and the optimum, the reference, above all in black: its curve was
            # hidden under the next one's where they share points
            reference = r.agent == "optimal"
            ax.plot([m for m, _ in curve], [100 * w for _, w in curve], markersize=3.5,
                    linewidth=2.0 if reference else 1.4, label=f"{r.label} ({limit}{format_percent(r.win_rate)}%)",
                    zorder=3 + len(rs) if reference else 2 + len(rs) - i,
                    **({**style, "color": "black", "linestyle": "-"} if reference else style))
        top = max(r.max_attempts for r in rs)
        ax.set_xlim(0.8, top + 0.2)
        ax.set_ylim(-2, 102)
        ax.set_xticks(range(1, top + 1) if top <= 12 else range(1, top + 1, max(1, top // 12)))
        ax.set_xlabel("allowed guesses m")
        ax.set_ylabel("games solved within m guesses (%)")
        ax.set_title(_title(game, rs), fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    fig.tight_layout()
    return _save(fig, path)


def curve_styles(n: int) -> list[dict[str, str]]:
    """``n`` line styles that differ from each other in colour, line style or marker (ten colours,
    then the same colours dashed, dash-dotted and dotted, each with its own marker)."""
    colours = [f"C{i}" for i in range(10)]
    lines = ["-", "--", "-.", ":"]
    markers = ["o", "s", "^", "D", "v"]
    return [{"color": colours[i % 10], "linestyle": lines[(i // 10) % 4], "marker": markers[i % 5]}
            for i in range(n)]


#: Colours of the reference lines of a learning curve.
_REFERENCE_COLOURS = ["#222222", "#787c7e", "#3b73b5", "#b53b6e", "#3bb58a", "#8a3bb5"]


def plot_learning_curve(
    path: str | os.PathLike[str], title: str, *, rollouts: Sequence[tuple[int, float]],
    evaluations: Sequence[tuple[int, float, float | None, float]], references: dict[str, float] | None = None,
    stage_ends: Sequence[tuple[int, int]] = (),
) -> Path:
    """Save a PNG learning curve: win rate of the training rollouts and of the greedy evaluations
    against environment steps (with the training wall time on top), and the evaluations' mean
    guesses with ``references`` (label -> mean guesses: the baselines', the optimum's) as
    horizontal lines, so a curve shows at a glance how far the policy is from each.

    Args:
        rollouts: ``(step, win rate)`` of the training games (sampled policy).
        evaluations: ``(step, win rate, mean guesses or None, wall seconds)`` of the greedy policy.
        stage_ends: ``(step, answers)`` where a curriculum stage ended (dotted lines).
    """
    plt = _pyplot()
    fig, (ax_win, ax_guess) = plt.subplots(1, 2, figsize=(11, 4))
    if rollouts:
        ax_win.plot([s for s, _ in rollouts], [100 * w for _, w in rollouts], color="#bbbbbb", lw=1,
                    label="training games (sampled policy)")
    if evaluations:
        steps = [e[0] for e in evaluations]
        ax_win.plot(steps, [100 * e[1] for e in evaluations], "o-", color="#6aaa64",
                    label="greedy policy (evaluation)")
        guesses = [(e[0], e[2]) for e in evaluations if e[2] is not None]
        if guesses:
            ax_guess.plot(*zip(*guesses), "o-", color="#c9b458")
        wall = [e[3] / 60 for e in evaluations]
        if len(wall) > 1:
            import numpy as np

            top = ax_win.secondary_xaxis("top", functions=(lambda s: np.interp(s, steps, wall),
                                                           lambda m: np.interp(m, wall, steps)))
            top.set_xlabel("training wall time (minutes)")
    last = max([s for s, _ in rollouts] + [e[0] for e in evaluations] or [0])
    for end, answers in stage_ends:
        if end > last:
            break
        for ax in (ax_win, ax_guess):
            ax.axvline(end, color="#888888", ls=":", lw=1)
        ax_win.annotate(f"end of {answers}-answer stage", (end, 0.35), xycoords=("data", "axes fraction"),
                        rotation=90, fontsize=7, color="#666666", ha="right")
    ax_win.set_xlabel("environment steps")
    ax_win.set_ylabel("win rate (%)")
    ax_win.legend(loc="lower right")
    ax_win.grid(alpha=0.3)
    for (label, mean), colour in zip(sorted((references or {}).items(), key=lambda kv: kv[1]), _REFERENCE_COLOURS):
        ax_guess.axhline(mean, color=colour, ls="--", lw=1, label=f"{label} ({mean:.4f})")
    if references:
        ax_guess.legend(loc="upper right", fontsize=8)
    ax_guess.set_xlabel("environment steps")
    ax_guess.set_ylabel("mean guesses per win (greedy)")
    ax_guess.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    return _save(fig, path, dpi=110)


def plot_training_time(
    path: str | os.PathLike[str], title: str, series: Mapping[str, Sequence[tuple[float, float, float | None]]], *,
    references: dict[str, float] | None = None, note: str = "", guesses_label: str = "mean guesses per win (greedy)",
    min_win_rate: float = 0.0,
) -> Path:
    """Save a PNG comparing training methods by wall time: each series' greedy evaluations, win
    rate (left) and mean guesses per win (right) against the seconds of training that preceded
    them, with ``references`` (label -> mean guesses) as horizontal lines. What the ablations of
    a training method need: equal time, not equal steps, is the fair budget when one method
    (cloning) takes no environment steps at all.

    Args:
        series: label -> ``(seconds, win rate, mean guesses or None)`` points, in order.
        note: a line under the title (e.g. which answers the evaluations played).
        guesses_label: the right panel's axis (the points may be a gap to a reference instead).
        min_win_rate: points that win less are left out of the right panel (a mean over a few
            lucky wins says nothing, and would set its scale).
    """
    plt = _pyplot()
    fig, (ax_win, ax_guess) = plt.subplots(1, 2, figsize=(11, 4.2))
    colours = ("#6aaa64", "#c9b458", "#787c7e", "#3b6fb6", "#d1495b")
    for (label, points), colour in zip(series.items(), colours):
        if not points:
            continue
        seconds = [p[0] for p in points]
        ax_win.plot(seconds, [100 * p[1] for p in points], "o-", color=colour, label=label, ms=4)
        guesses = [(p[0], p[2]) for p in points if p[2] is not None and p[1] > 0 and p[1] >= min_win_rate]
        if guesses:
            ax_guess.plot(*zip(*guesses), "o-", color=colour, label=label, ms=4)
    for (label, mean), colour in zip(sorted((references or {}).items(), key=lambda kv: kv[1]), _REFERENCE_COLOURS):
        ax_guess.axhline(mean, color=colour, ls="--", lw=1, label=f"{label} ({mean:+.4f})")
    ax_win.set_ylabel("win rate (%)")
    ax_guess.set_ylabel(guesses_label)
    for ax in (ax_win, ax_guess):
        ax.set_xlabel("training wall time (s)")
        ax.grid(alpha=0.3)
    ax_win.legend(loc="center right", fontsize=8)
    ax_guess.legend(loc="upper right", fontsize=7)
    fig.suptitle(title + (f"\n{note}" if note else ""), fontsize=10)
    fig.tight_layout()
    return _save(fig, path, dpi=110)


# ---- helpers -----------------------------------------------------------------------------------
def _pyplot() -> Any:
    matplotlib = require("matplotlib", extra="plots", purpose="plots")
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: str | os.PathLike[str], dpi: float | None = None) -> Path:
    """Save a figure atomically as PNG and close it."""
    import matplotlib.pyplot as plt

    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format="png", **({} if dpi is None else {"dpi": dpi}))
    finally:
        plt.close(fig)
    return Path(path)


__all__ = [
    "accounting_line",
    "compact_distribution",
    "gap_text",
    "leaderboard",
    "leaderboard_report",
    "plot_histogram",
    "plot_leaderboard",
    "plot_learning_curve",
    "plot_training_time",
    "plot_win_rate_curves",
    "curve_styles",
    "optimum_note",
    "rank",
    "result_markdown",
]

register_text(to_markdown=result_markdown, gap_text=gap_text, optimum_note=optimum_note,
              compact_distribution=compact_distribution, accounting_line=accounting_line)
