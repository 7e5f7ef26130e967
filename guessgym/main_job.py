"""The main comparison: every baseline on Wordle and classic Nerdle, over every answer.

This module is the one place that says *what* the main job runs (:data:`MAIN_JOB`), so the
command line (``guessgym compare``), the README and the reproduction scripts all refer to the same
list. :func:`run_main_job` runs it and :func:`write_report` writes the tables and plots.

It sits above both :mod:`guessgym.agents` and :mod:`guessgym.baselines`: the list of baselines
is :data:`guessgym.baselines.BASELINES` itself, and agents are built through the agent registry
(:func:`guessgym.agents.registry.make_agent`), so nothing here repeats either. An agent that
raises :class:`~guessgym.agents.base.UnsupportedGameError` for a game is reported as "not
applicable" with its reason instead of stopping the job.

Run it with ``guessgym compare`` (``--quick`` for a seeded sample of answers).
"""

from __future__ import annotations

import contextlib
import logging
import math
import platform
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .agents.base import Agent, UnsupportedGameError
from .agents.registry import make_agent as make_registered_agent
from .baselines import BASELINES
from .baselines.move_values import StateValues, ValuesTimedOut
from .envs.matrix import PatternMatrix
from .envs.registration import SUPERSEDED, V1_CHANGE
from .evaluation.analysis import Analysis, analyze, check_analysable, game_of_result, load_analysis, rules_key
from .evaluation.conduct import conduct_summary
from .evaluation.evaluate import Backend, evaluate
from .evaluation.report import leaderboard_report, plot_histogram, plot_leaderboard, plot_win_rate_curves
from .evaluation.results import EvaluationResult
from .evaluation.viewer import write_viewer
from .infra.atomic import atomic_write_text
from .infra.names import file_slug
from .infra.optional import DependencyNotInstalled

logger = logging.getLogger(__name__)

WORDLE = "guessgym/Wordle-v1"
NERDLE = "guessgym/Nerdle-v1"

#: Answers per game in a ``--quick`` run.
QUICK_SAMPLE = 100


def _frozen(d: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    return MappingProxyType(dict(d or {}))


@dataclass(frozen=True)
class Entry:
    """One evaluation of the main job.

    Attributes:
        env_id: registered environment id.
        agent: baseline name (``guessgym.baselines.BASELINES`` key).
        agent_kwargs: keyword arguments for the baseline.
        env_kwargs: keyword arguments for the environment (e.g. a larger guess vocabulary).
        label: shown after the agent name in tables and plots when the row differs from the
            plain (env, agent) pair, so nobody mistakes a variant for the standard game.
        note: why the variant exists (printed under the table).
        max_attempts: override the attempt limit (``None``: the game's own, 6).
        parallel: worth running in worker processes (expensive searches); cheap agents run
            serially because starting workers would cost more than it saves.
        included: a saved result given to the job (``--include``), not run by it: written under a
            name of its own, never over the file of the job's entry of the same game and agent.
    """

    env_id: str
    agent: str
    agent_kwargs: Mapping[str, Any] = field(default_factory=_frozen)
    env_kwargs: Mapping[str, Any] = field(default_factory=_frozen)
    label: str = ""
    note: str = ""
    max_attempts: int | None = None
    parallel: bool = False
    included: bool = False

    @property
    def slug(self) -> str:
        """A file-name stem unique within the job, e.g. ``"Nerdle-v1__unique-chars__guesses-all"``."""
        parts = [self.env_id.split("/")[-1], self.agent] + [f"{k}-{v}" for k, v in sorted(self.env_kwargs.items())]
        parts += [f"{k}-{v}" for k, v in sorted(self.agent_kwargs.items())]
        if self.max_attempts is not None:
            parts.append(f"m{self.max_attempts}")
        if self.included:
            parts.append("included")
        return file_slug(*parts)

    def describe(self) -> str:
        extra = ""
        if self.agent_kwargs:
            extra += " " + " ".join(f"{k}={v}" for k, v in self.agent_kwargs.items())
        if self.env_kwargs:
            extra += " [env: " + " ".join(f"{k}={v}" for k, v in self.env_kwargs.items()) + "]"
        if self.max_attempts is not None:
            extra += f" [max {self.max_attempts} guesses]"
        return f"{self.agent}{extra} on {self.env_id}"


#: The baselines, in the order of :data:`guessgym.baselines.BASELINES`.
BASELINE_NAMES: tuple[str, ...] = tuple(BASELINES)

#: Searches over the whole guess list at each decision: run in worker processes.
EXPENSIVE: frozenset[str] = frozenset(
    {"least-worst", "expected-size", "most-buckets", "min-average", "pattern-entropy", "clique"}
)

_UNIQUE_CHARS_NERDLE = Entry(
    NERDLE, "unique-chars", env_kwargs=_frozen({"guesses": "all"}), label="guesses=all",
    note=("its fixed second opener 0+12/3=4 has a lone zero, so it is a valid guess only in "
          "nerdle(8, guesses=\"all\") (67,346 guesses); the 17,723 answers are the classic ones"),
)


def _main_job() -> tuple[Entry, ...]:
    entries: list[Entry] = []
    for env_id in (WORDLE, NERDLE):
        for name in BASELINE_NAMES:
            if env_id == NERDLE and name == "unique-chars":
                # Its fixed second opener 0+12/3=4 has a lone zero: only nerdle(8, guesses="all")
                # allows it as a guess. Answers are unchanged (the 17,723 classic equations).
                entries.append(_UNIQUE_CHARS_NERDLE)
                continue
            entries.append(Entry(env_id, name, parallel=name in EXPENSIVE))
    return tuple(entries)


#: What ``guessgym compare`` runs, in order.
MAIN_JOB: tuple[Entry, ...] = _main_job()


@dataclass
class Outcome:
    """What became of one entry: a result, "not applicable" (with the reason), or an error."""

    entry: Entry
    result: EvaluationResult | None = None
    not_applicable: str = ""
    error: str = ""
    analysis: Analysis | None = None
    #: The files :func:`write_entry` wrote for it (none yet: :func:`write_report` writes them).
    files: list[Path] = field(default_factory=list)


MakeAgent = Callable[[str, dict[str, Any]], Agent]
ProgressFactory = Callable[[Entry], tuple[Callable[[int, int], None], Callable[[], None]]]


def select_entries(
    entries: Sequence[Entry], agents: Sequence[str] | None = None, envs: Sequence[str] | None = None
) -> list[Entry]:
    """Entries restricted to some agent names and/or env ids (``None``: no restriction).

    Raises:
        ValueError: naming a requested agent or env that is not in the job.
    """
    if agents:
        unknown = sorted(set(agents) - {e.agent for e in entries})
        if unknown:
            known = sorted({e.agent for e in entries})
            raise ValueError(f"agent(s) {unknown} are not in the main job; choose from {known}")
    if envs:
        unknown = sorted(set(envs) - {e.env_id for e in entries})
        if unknown:
            known = sorted({e.env_id for e in entries})
            raise ValueError(f"env(s) {unknown} are not in the main job; choose from {known}")
    return [e for e in entries if (not agents or e.agent in agents) and (not envs or e.env_id in envs)]


def _from_registry(name: str, kwargs: dict[str, Any]) -> Agent:
    agent = make_registered_agent(name, **kwargs)
    if not isinstance(agent, Agent):
        raise TypeError(f"the main job plays baselines and learned agents; {name!r} is a text agent")
    return agent


def run_main_job(
    make_agent: MakeAgent = _from_registry,
    entries: Sequence[Entry] = MAIN_JOB,
    *,
    n_jobs: int = 2,
    sample: int | None = None,
    seed: int = 0,
    progress: ProgressFactory | None = None,
    on_outcome: Callable[[Outcome], None] | None = None,
    backend: Backend = "auto",
    ray_address: str | None = None,
    analyse: bool = True,
    memo_dir: str | Path | None = None,
    notice: Callable[[str], None] | None = None,
    included: Sequence[Outcome] = (),
    analysis_budget: float | None = None,
) -> list[Outcome]:
    """Evaluate every entry; never stops on one agent's failure.

    Args:
        make_agent: builds an agent from its name and keyword arguments (default: the agent
            registry); it may raise ``KeyError``/``ValueError`` for a name it does not know
            (reported as not applicable).
        entries: what to run (default: :data:`MAIN_JOB`).
        n_jobs: worker processes for the entries marked ``parallel`` (others run serially).
        sample: a seeded sample of this many answers per game instead of every answer.
        seed: seed of the sample and of randomised agents.
        progress: ``progress(entry) -> (callback(done, total), close())`` for a progress bar per
            entry.
        on_outcome: called after each entry (e.g. to print a line as the job goes); an error it
            raises is logged, never the end of the job.
        backend, ray_address: passed to :func:`~guessgym.evaluation.evaluate.evaluate` for parallel entries.
        analyse: judge every move of every game against optimal play
            (:mod:`guessgym.evaluation.analysis`): the games' guesses are recorded, the analysis is
            the outcome's ``analysis`` and its headline figures the result's ``meta["analysis"]``;
            a game the analysis cannot judge gets ``meta["analysis_note"]`` instead.
        memo_dir: where the analysis keeps solved states between runs (``None``: in memory).
        notice: told when the analysis solves an opener's tree (seconds, once per opener).
        analysis_budget: seconds of solving the analysis of one entry may take; past them the
            moves left are judged by bounds and the row says so (``None``: :data:`ANALYSIS_BUDGET`).
        included: saved results given to the job (:func:`included_outcome`): not re-run, but their
            moves are analysed like the others' when they hold their games' guesses.
    """
    budget = ANALYSIS_BUDGET if analysis_budget is None else analysis_budget
    outcomes: list[Outcome] = []
    values: dict[tuple[str, bool, int, bool, str], StateValues] = {}  # one per game: shared by the agents
    for entry in entries:
        outcome = Outcome(entry)
        try:
            agent = make_agent(entry.agent, dict(entry.agent_kwargs))
        except (KeyError, ValueError, ImportError) as exc:
            outcome.not_applicable = f"agent not available: {exc}"
        else:
            jobs = n_jobs if entry.parallel else 1
            callback, close = (None, lambda: None)
            if progress is not None:
                callback, close = progress(entry)
            try:
                result = evaluate(
                    agent, entry.env_id, env_kwargs=dict(entry.env_kwargs), sample=sample, seed=seed,
                    max_attempts=entry.max_attempts,
                    n_jobs=jobs, backend=backend if jobs > 1 else "serial", ray_address=ray_address,
                    progress=callback or False, record_guesses=analyse,
                )
                result.meta["label"] = entry.label
                result.meta["note"] = entry.note
                result.meta["agent_kwargs"] = dict(entry.agent_kwargs)
                result.meta["slug"] = entry.slug
                outcome.result = result
                if analyse:
                    _analyse(outcome, values, memo_dir, notice, budget)
            except UnsupportedGameError as exc:
                outcome.not_applicable = str(exc) or type(exc).__name__
            except Exception as exc:  # one broken agent must not lose the others' hours of work
                logger.error("%s failed:\n%s", entry.describe(), traceback.format_exc())
                outcome.error = f"{type(exc).__name__}: {exc}"
            finally:
                close()
        outcomes.append(outcome)
        _tell(on_outcome, outcome)
    for outcome in included:
        if analyse and outcome.result is not None and all(r.played is not None for r in outcome.result.records):
            with contextlib.suppress(ValueError, UnsupportedGameError):  # a saved result of a kind without them
                outcome.result.meta.setdefault("conduct", conduct_summary(game_of_result(outcome.result),
                                                                         outcome.result.records))
            _analyse(outcome, values, memo_dir, notice, budget)
        outcomes.append(outcome)
        _tell(on_outcome, outcome)
    return outcomes


def _tell(on_outcome: Callable[[Outcome], None] | None, outcome: Outcome) -> None:
    """``on_outcome(outcome)``; its error is logged: a report line must never cost the results."""
    if on_outcome is None:
        return
    try:
        on_outcome(outcome)
    except Exception:
        logger.error("reporting %s failed:\n%s", outcome.entry.describe(), traceback.format_exc())


#: The main job analyses the moves of an agent whose games open with at most this many guesses (each
#: opener's tree is solved once); a randomised agent's games are left to ``guessgym analyze``.
MAX_OPENERS = 10
#: Seconds the main job gives the analysis of one agent's games unless told (``guessgym compare
#: --analysis-budget``): the states its moves reach may be slow to solve (the clique strategy's), and
#: past the budget the agent's row says so, the moves left judged by bounds.
ANALYSIS_BUDGET = 90.0


def _analyse(outcome: Outcome, values: dict[tuple[str, bool, int, bool, str], StateValues],
             memo_dir: str | Path | None, notice: Callable[[str], None] | None,
             budget: float | None = None) -> None:
    """Judge the outcome's moves (see :func:`run_main_job`), sharing ``values`` by game.

    Whatever happens, the states solved are kept: in ``values`` for the next agent of the same
    game, and in ``memo_dir`` for the next run (a state is in the memo only once its search
    finished, so a budget that ran out leaves nothing wrong there), so a rerun goes on from them.
    With a ``memo_dir``, ``values`` holds one game at a time: an entry of another game replaces it
    (the solved states come back from the memo on disk).
    """
    result = outcome.result
    assert result is not None
    budget = ANALYSIS_BUDGET if budget is None else budget
    state_values: StateValues | None = None
    try:
        game = game_of_result(result)
        check_analysable(game)
        key = rules_key(game)
        if key not in values:
            if memo_dir is not None:
                # one game's values in memory at a time (each holds its game's transposed pattern
                # matrix, up to 2.4 GB): another game's were saved when its entry ended and come
                # back from the memo on disk if a later entry needs them; so do the other games'
                # pattern matrices (from the disk cache)
                values.clear()
                PatternMatrix.clear_memory(keep=game)
            values[key] = StateValues(game, cache_dir=memo_dir)
        state_values = values[key]
        outcome.analysis = analyze(result, values=state_values, notice=notice, max_openers=MAX_OPENERS,
                                   time_budget=budget)
        if state_values.spent:  # past the budget the moves left were judged by bounds: no exact figures
            summary = outcome.analysis.summary(mistakes=0)
            low, high = summary["bounded_loss_per_game"]
            unjudged = summary["unjudged_games"]
            not_judged = (f", and the moves of {unjudged:,} of the {unjudged + summary['games']:,} games were not "
                          f"judged (the bounds' {budget:g} s ran out too)") if unjudged else ""
            result.meta["analysis_note"] = (
                f"moves not all analysed exactly: solving took more than {budget:g} s, "
                f"{summary['bounded_moves']:,} moves were judged by bounds (they lose "
                f"{low:.3f} to {'?' if high is None else f'{high:.3f}'} guesses per game){not_judged}; rerun with a "
                "larger --analysis-budget (what was solved is kept), or guessgym analyze --time-budget SECONDS")
        else:
            result.meta["analysis"] = outcome.analysis.brief()
    except ValuesTimedOut:
        result.meta["analysis_note"] = (f"moves not analysed: solving its states took more than {budget:g} s; "
                                        "rerun with a larger --analysis-budget (what was solved is kept)")
    except (UnsupportedGameError, ValueError) as exc:
        result.meta["analysis_note"] = f"moves not analysed: {exc}"
    finally:
        if state_values is not None:
            state_values.save()


def same_scope(result: EvaluationResult, sample: int | None, seed: int) -> bool:
    """Whether ``result`` evaluated the answers a run with ``sample`` and ``seed`` evaluates."""
    if "sample" not in result.meta or result.meta["sample"] != sample:
        return False
    return sample is None or result.meta.get("seed") == seed


def earlier_outcomes(out_dir: Path, replaced: set[str], sample: int | None, seed: int) -> list[Outcome]:
    """The results in ``out_dir`` left by earlier runs of the same scope, except the ``replaced`` stems.

    A partial run (``--agents``/``--envs``) thus adds to a complete leaderboard instead of
    replacing it; each kept row is labelled *earlier run*, with its file and date under the table.
    Files of another scope (a sample where this run covers every answer, or the reverse) stay on
    disk but out of the table.
    """
    kept: list[Outcome] = []
    for path in sorted(out_dir.glob("*.json")):
        if path.stem in replaced:
            continue
        try:
            result = EvaluationResult.from_json(path)
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not an evaluation result
        if not same_scope(result, sample, seed):
            continue
        label, note = result.meta.get("label") or "", result.meta.get("note") or ""
        result.meta["label"] = f"{label}, earlier run" if label else "earlier run"
        # the file says where the row comes from; its date would be the checkout's, not the run's
        kept_from = f"kept from {path.name}, not re-run by this command"
        result.meta["note"] = f"{note}; {kept_from}" if note else kept_from
        result.meta["kept"] = True
        kept.append(saved_outcome(result))
    return kept


def saved_outcome(result: EvaluationResult, included: bool = False) -> Outcome:
    """A saved result as a row of the leaderboard, under its ``meta`` label and note."""
    entry = Entry(result.env_id or result.game, result.agent, label=result.meta["label"], note=result.meta["note"],
                  included=included)
    return Outcome(entry, result=result)


def included_outcome(path: str | Path) -> Outcome:
    """A saved result given to the job (e.g. a learned agent's, written by
    ``scripts/train_results.py``) as a row of the leaderboard, labelled so nobody mistakes it for
    a run of this job.

    Raises:
        ValueError: ``path`` is not a readable evaluation result (named).
    """
    try:
        result = EvaluationResult.from_json(path)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a readable evaluation result ({exc})") from None
    label = str(result.meta.get("label") or "")  # a result written by compare has label ""
    result.meta["label"] = label if "saved result" in label else f"{label}, saved result" if label else "saved result"
    result.meta["note"] = str(result.meta.get("note") or "") or f"read from {path}, not re-run by this job"
    result.meta["included"] = True
    if result.env_id in SUPERSEDED and "sample" in result.meta and result.meta["sample"] is None:
        # an evaluation of every answer fixes each episode's answer: the version bump left it unchanged
        old, result.env_id = result.env_id, SUPERSEDED[result.env_id]
        result.meta["note"] += f" (measured on {old}; {V1_CHANGE})"
    return saved_outcome(result, included=True)


def write_entry(outcome: Outcome, out_dir: str | Path) -> list[Path]:
    """Write one entry's files into ``out_dir`` as soon as it finishes (its result's JSON, its move
    analysis ``.analysis.json.gz`` and its histogram), so that a run stopped part-way has written
    every entry it finished; return them (also kept as the outcome's ``files``). Nothing for an
    entry without a result (an earlier run's file of it stays)."""
    if outcome.result is None:
        return []
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = outcome.entry.slug
    files = [out / f"{stem}.json"]
    outcome.result.to_json(files[0])
    if outcome.analysis is not None:
        files.append(out / f"{stem}.analysis.json.gz")
        outcome.analysis.to_json(files[-1])
    try:
        files.append(plot_histogram(outcome.result, out / f"{stem}.png"))
    except DependencyNotInstalled:
        pass  # reported once, with the leaderboard's plots
    outcome.files = files
    return files


def write_report(
    outcomes: Sequence[Outcome], out_dir: str | Path, *, command: str = "guessgym compare",
    sample: int | None = None, seed: int = 0, keep_earlier: bool = True,
) -> dict[str, Path]:
    """Write each result's files not yet written (:func:`write_entry`), then ``leaderboard.md``,
    ``leaderboard.png``, ``win_rate.png`` and the game viewer ``report.html``
    (:mod:`guessgym.evaluation.viewer`) into ``out_dir``; return the report's paths by kind (the
    entries' are each outcome's ``files``).

    With ``keep_earlier`` (the default), results already in ``out_dir`` of the same scope that this
    run did not replace stay in the leaderboard (see :func:`earlier_outcomes`): a partial run never
    shrinks a complete table. An entry that failed keeps its earlier result file.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for o in outcomes:
        if not o.files:
            write_entry(o, out)
    if keep_earlier:
        replaced = {o.entry.slug for o in outcomes if o.result is not None}
        outcomes = [*outcomes, *earlier_outcomes(out, replaced, sample, seed)]
    results = [o.result for o in outcomes if o.result is not None]
    if results:
        try:
            written["leaderboard_png"] = plot_leaderboard(results, out / "leaderboard.png")
            written["win_rate_png"] = plot_win_rate_curves(results, out / "win_rate.png")
        except DependencyNotInstalled as exc:  # the tables matter more than the pictures
            logger.warning("no plots: %s", exc)
    text = report_markdown(outcomes, command=command, sample=sample, seed=seed)
    atomic_write_text(out / "leaderboard.md", text)
    written["leaderboard_md"] = out / "leaderboard.md"
    viewed = [o for o in outcomes if o.result is not None]
    analyses = {i: o.analysis for i, o in enumerate(viewed) if o.analysis is not None}
    for i, o in enumerate(viewed):  # kept rows: their analysis from the earlier run, if it is there
        saved = out / f"{o.entry.slug}.analysis.json.gz"
        if i not in analyses and o.result is not None and o.result.meta.get("kept") and saved.is_file():
            with contextlib.suppress(ValueError):
                analyses[i] = load_analysis(saved)
    written["report_html"] = write_viewer([o.result for o in viewed if o.result is not None], out / "report.html",
                                          analyses=analyses, title="guessgym main job")
    return written


def report_markdown(outcomes: Sequence[Outcome], *, command: str = "guessgym compare",
                    sample: int | None = None, seed: int = 0) -> str:
    """The Markdown report: one ranked table per environment, then the rows that did not run
    (rendered by :func:`guessgym.evaluation.report.leaderboard_report`)."""
    results = [o.result for o in outcomes if o.result is not None]
    scope = "every answer" if sample is None else f"a seeded sample of {sample} answers per game (seed {seed})"
    kept = sum(bool(r.meta.get("kept")) for r in results)
    ran = len(outcomes) - kept
    origin = (f"Produced by `{command}` ({ran} {'entry' if ran == 1 else 'entries'}; {kept} more "
              f"{'row' if kept == 1 else 'rows'}, marked *earlier run*, kept from earlier runs in this "
              "folder)" if kept else f"Produced by `{command}`")
    intro = [
        f"{origin} over {scope}; Python {platform.python_version()}.",
        "Ranked by *mean X=m+1*, then win rate. *mean* is over solved games; *mean X=m+1* counts",
        "each failure as max_attempts + 1 guesses. *distribution*: games solved in k guesses, X = failed.",
        "*s/game*: wall-clock seconds per game including the agent's search (memoised solvers pay",
        "for the shared part of their decision tree in the first games).",
    ]
    if any("analysis" in r.meta for r in results):
        intro += [
            "*loss/game (best moves)*: every move judged against optimal play (`guessgym analyze`): the guesses",
            "each game lost to its moves in expectation, and the share of moves that were best; per move in",
            "`<entry>.analysis.json.gz`. Over every answer it equals *vs optimum* divided by the games",
            "for an agent that plays one strategy (the tiles' luck averages out).",
        ]
    not_run = [(o.entry.agent, o.entry.env_id,
                f"not applicable: {o.not_applicable}" if o.not_applicable else f"error: {o.error}")
               for o in outcomes if o.result is None]
    return leaderboard_report(results, title="Baselines leaderboard", intro=intro, not_run=not_run,
                              plots=("leaderboard.png", "win_rate.png"))


def elapsed(start: float) -> str:
    """``"1 min 23 s"`` since ``start`` (a ``time.perf_counter()`` value)."""
    s = time.perf_counter() - start
    m, s = divmod(int(math.ceil(s)), 60)
    return f"{m} min {s} s" if m else f"{s} s"


__all__ = [
    "BASELINE_NAMES",
    "EXPENSIVE",
    "Entry",
    "MAIN_JOB",
    "NERDLE",
    "Outcome",
    "QUICK_SAMPLE",
    "WORDLE",
    "earlier_outcomes",
    "report_markdown",
    "run_main_job",
    "same_scope",
    "select_entries",
    "write_entry",
    "write_report",
]
