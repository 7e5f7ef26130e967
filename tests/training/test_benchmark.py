"""The RL benchmark: the protocol and its anchors, the hyperparameter files, one run of every
algorithm (seeded, resumed == uninterrupted), the evaluation files under damage, rliable's report
checked against direct computation, and the command line."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
import torch as th
from fuzzing import fuzz_file, mutate_bytes, mutate_json
from scipy import stats

from guessgym.agents.optima import known_optimum
from guessgym.baselines.random_consistent import RandomConsistentAgent
from guessgym.cli import main
from guessgym.envs.game import make_game
from guessgym.evaluation.evaluate import evaluate
from guessgym.infra.inputs import InputFileError
from guessgym.training.benchmark.hyperparams import (
    ALGORITHMS,
    ZOO_ALGORITHMS,
    HyperparamsError,
    load_hyperparams,
    parse_policy_kwargs,
    shipped_path,
)
from guessgym.training.benchmark.protocol import (
    ANCHOR_SEEDS,
    REFERENCE_TIERS,
    SEEDS,
    TIERS,
    all_anchors,
    anchors_of,
    tier,
)
from guessgym.training.benchmark.report import build_report, load_runs
from guessgym.training.benchmark.runner import RunSpec, chooses_allowed_guesses, read_evaluations, run

th.set_num_threads(1)

#: micro-nerdle with a test's budget: two evaluations, a few seconds a run.
SMALL = dataclasses.replace(tier("micro-nerdle"), budget=4_000, eval_every=2_000)


# ---- the protocol -----------------------------------------------------------------------------------
def test_tiers_are_ordered_and_evaluated_up_to_their_budget() -> None:
    names = [t.name for t in TIERS]
    assert len(set(names)) == len(names) and names[:3] == ["micro-nerdle", "mini-nerdle", "wordle-100"]
    assert len(SEEDS) >= 5
    for t in TIERS:
        assert t.budget % t.eval_every == 0 and t.evaluation_steps[-1] == t.budget
    budgets = [t.budget for t in TIERS]
    assert budgets == sorted(budgets)
    with pytest.raises(ValueError, match="unknown tier 'tiny'.*micro-nerdle"):
        tier("tiny")


def test_every_tier_has_anchors_and_the_regret_scale() -> None:
    assert set(all_anchors()) == {t.name for t in TIERS}
    for t in TIERS:
        a = anchors_of(t.name)
        assert a.proven and a.optimum_mean < a.random_mean
        assert a.regret(a.optimum_mean) == pytest.approx(0.0) and a.regret(a.random_mean) == pytest.approx(1.0)


def test_anchors_of_the_smallest_tier_are_recomputed() -> None:
    """The optimum is the shipped proven tree's; the random-consistent mean is the shared loop's over
    the anchor seeds (what scripts/benchmark_anchors.py writes)."""
    t = tier("micro-nerdle")
    game = t.scored_game()
    a = anchors_of(t.name)
    assert known_optimum(game).total == a.optimum_total and len(game.answers) == a.answers
    means = [evaluate(RandomConsistentAgent(seed=s), game, seed=s).mean_guesses_with_failures for s in ANCHOR_SEEDS]
    assert np.mean(means) == pytest.approx(a.random_mean, abs=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["wordle-100", "wordle-500"])
def test_sample_tier_optima_are_proven_again(name: str) -> None:
    from guessgym.baselines.opener_search import prove

    result = prove(tier(name).scored_game())
    assert result.proven and result.total == anchors_of(name).optimum_total


def test_the_generalisation_tier_scores_only_answers_training_never_shows() -> None:
    t = tier("wordle-unseen")
    train, scored = t.training_game(), t.scored_game()
    full = make_game(t.unseen_of)
    assert not set(train.answers) & set(scored.answers)
    assert sorted(train.answers + scored.answers) == sorted(full.answers)
    assert train.guesses == scored.guesses == full.guesses


# ---- hyperparameter files -------------------------------------------------------------------------------
@pytest.mark.parametrize("algo", list(ALGORITHMS))
def test_shipped_hyperparameters_cover_every_tier_with_its_budget(algo: str) -> None:
    for t in TIERS:
        hp = load_hyperparams(algo, t.env_id)
        assert hp.n_timesteps == t.budget and hp.policy_kwargs["game"] == t.env_id
        assert hp.policy_kwargs.get("candidate_prior", 0.0) == 0.0  # no prior: learned from scratch


def test_shipped_files_are_rl_zoo3s_format() -> None:
    """What rl-zoo3 itself does with an entry: its yaml loader, and eval of policy_kwargs (here only on
    the project's own files, to show both readers agree)."""
    import yaml

    for algo in ZOO_ALGORITHMS:
        document = yaml.load(shipped_path(algo).read_text(), Loader=yaml.UnsafeLoader)  # rl-zoo3's loader
        for t in TIERS:
            entry = document[t.env_id]
            assert eval(entry["policy_kwargs"]) == parse_policy_kwargs(entry["policy_kwargs"], "x")


@pytest.mark.parametrize("text", [
    "__import__('os').system('echo hi')", "dict(game=open('/etc/passwd').read())", "dict(**x)",
    "dict(a=lambda: 1)", "dict(a=nn.ReLU)", "[1, 2]", "dict(a=", "{[1]: 2}", "dict(" * 200 + ")" * 200,
])
def test_policy_kwargs_are_literals_only(text: str) -> None:
    with pytest.raises(HyperparamsError, match="policy_kwargs") as caught:
        parse_policy_kwargs(text, "file [id]")
    assert "\n" not in str(caught.value)


def test_policy_kwargs_literals_are_read() -> None:
    assert parse_policy_kwargs("dict(game='g', net_arch=dict(pi=[64], vf=[64]), x=(1, 2), y={'a': -1.5})", "f") == {
        "game": "g", "net_arch": {"pi": [64], "vf": [64]}, "x": [1, 2], "y": {"a": -1.5}}


@pytest.mark.parametrize(("entry", "message"), [
    ("policy: os.system\n", "policy must be one of"),
    ("policy: guessgym.agents.policies.GuessQPolicy\nnormalize: true\n", "normalize is rl-zoo3 only"),
    ("policy: guessgym.agents.policies.GuessQPolicy\nlearning_rate: lin_1e-3\n", "schedule strings"),
    ("policy: guessgym.agents.policies.GuessQPolicy\nn_timesteps: .inf\n", "n_timesteps must be"),
    ("policy: guessgym.agents.policies.GuessQPolicy\nn_envs: 0\n", "n_envs must be"),
    ("policy: guessgym.agents.policies.GuessQPolicy\npolicy_kwargs: \"dict(game='guessgym/Wordle-v1')\"\n",
     "does not play"),
])
def test_bad_entries_are_refused_naming_the_key(tmp_path: Path, entry: str, message: str) -> None:
    path = tmp_path / "h.yml"
    path.write_text("guessgym/MicroNerdle-v1:\n" + "".join(f"  {line}\n" for line in entry.splitlines()))
    with pytest.raises(HyperparamsError, match=message):
        load_hyperparams("dqn", "guessgym/MicroNerdle-v1", path)


def test_yaml_that_would_run_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.yml"
    path.write_text("guessgym/MicroNerdle-v1: !!python/object/apply:os.system ['echo hi']\n")
    with pytest.raises(HyperparamsError, match="not YAML that safe_load reads"):
        load_hyperparams("ppo", "guessgym/MicroNerdle-v1", path)
    one = tmp_path / "one.yml"
    one.write_text("guessgym/MicroNerdle-v1:\n  policy: guessgym.agents.policies.GuessActorCriticPolicy\n")
    with pytest.raises(HyperparamsError, match="has no entry for guessgym/MiniNerdle-v1; it has guessgym/MicroNerdle"):
        load_hyperparams("ppo", "guessgym/MiniNerdle-v1", one)


def test_hyperparameter_files_under_damage(tmp_path: Path) -> None:
    valid = shipped_path("qrdqn").read_bytes()
    counts = fuzz_file(tmp_path / "fuzz.yml", valid,
                       lambda p: load_hyperparams("qrdqn", "guessgym/MicroNerdle-v1", p),
                       (HyperparamsError, InputFileError), [mutate_bytes], rounds=400)
    assert counts["read"] and counts["refused"]


# ---- runs ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    for algo in ALGORITHMS:
        run(RunSpec(algo, SMALL, 0, root))
    return root


@pytest.mark.parametrize("algo", list(ALGORITHMS))
def test_every_algorithm_runs_and_writes_the_protocols_record(small_runs: Path, algo: str) -> None:
    path = small_runs / "micro-nerdle" / algo / "seed-0" / "evaluations.json"
    record = read_evaluations(path, protocol_tiers=False)
    assert record["complete"] and [e["step"] for e in record["evaluations"]] == [2000, 4000]
    final = record["final"]
    guesses = np.array(final["guesses"])
    game = SMALL.scored_game()
    assert len(guesses) == len(game.answers)
    scores = np.where(guesses > 0, guesses, game.max_attempts + 1)
    assert final["mean_score"] == pytest.approx(scores.mean(), abs=1e-6)
    assert final["regret"] == pytest.approx(anchors_of("micro-nerdle").regret(scores.mean()), abs=1e-5)
    assert final["win_rate"] == pytest.approx((guesses > 0).mean(), abs=1e-6)
    assert (path.parent / "model.zip").is_file() and not (path.parent / "checkpoint").exists()
    with pytest.raises(ValueError, match="budget 4,000 is not tier micro-nerdle's 100,000"):
        read_evaluations(path)  # the report's reading: protocol budgets only


def _strip(record: dict) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "wall_s"} for e in record["evaluations"]]


class _StopAfterFirstEvaluation(threading.Event):
    """Stops a run (as Ctrl-C does) once its first evaluation is on disk."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def is_set(self) -> bool:
        return self.path.is_file() and bool(json.loads(self.path.read_text())["evaluations"])


@pytest.mark.parametrize("algo", ["maskable_ppo", "dqn"])
def test_a_resumed_run_takes_the_uninterrupted_runs_steps(small_runs: Path, tmp_path: Path, algo: str) -> None:
    whole = read_evaluations(small_runs / "micro-nerdle" / algo / "seed-0" / "evaluations.json", protocol_tiers=False)
    spec = RunSpec(algo, SMALL, 0, tmp_path)
    path = spec.run_dir / "evaluations.json"
    run(spec, stop_event=_StopAfterFirstEvaluation(path))
    stopped = read_evaluations(path, protocol_tiers=False)
    assert not stopped["complete"] and (spec.run_dir / "checkpoint" / "state.npz").is_file()
    run(spec)
    resumed = read_evaluations(path, protocol_tiers=False)
    assert resumed["resumed_at"] == [2000]
    assert _strip(resumed) == _strip(whole) and resumed["final"]["guesses"] == whole["final"]["guesses"]


def test_the_same_seed_gives_the_same_run_and_another_seed_another(small_runs: Path, tmp_path: Path) -> None:
    first = read_evaluations(small_runs / "micro-nerdle" / "a2c" / "seed-0" / "evaluations.json",
                             protocol_tiers=False)
    again = read_evaluations(run(RunSpec("a2c", SMALL, 0, tmp_path)), protocol_tiers=False)
    other = read_evaluations(run(RunSpec("a2c", SMALL, 1, tmp_path)), protocol_tiers=False)
    assert _strip(again) == _strip(first)
    assert other["final"]["guesses"] != first["final"]["guesses"]


def test_a_complete_run_is_not_run_again(small_runs: Path) -> None:
    said: list[str] = []
    run(RunSpec("ppo", SMALL, 0, small_runs), say=said.append)
    assert said and "complete" in said[0] and "nothing to do" in said[0]


def test_a_users_own_algorithm_runs_from_its_own_file(tmp_path: Path) -> None:
    """Any stable-baselines3 algorithm, named as package.module:Class, with a file in the zoo's format."""
    path = tmp_path / "mine.yml"
    path.write_text(shipped_path("a2c").read_text())
    out = run(RunSpec("stable_baselines3:A2C", SMALL, 0, tmp_path / "runs", hyperparams=path))
    record = read_evaluations(out, protocol_tiers=False)
    assert record["algo"] == "stable_baselines3:A2C" and record["complete"]
    assert out.parent == tmp_path / "runs" / "micro-nerdle" / "stable_baselines3-A2C" / "seed-0"


@pytest.mark.parametrize(("algo", "message"), [
    ("sarsa", "unknown algorithm 'sarsa'"), ("numpy:array", "not a stable-baselines3 BaseAlgorithm"),
    ("stable_baselines3:PPO", "no shipped hyperparameters"),
])
def test_bad_algorithms_are_refused_before_anything_is_written(tmp_path: Path, algo: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run(RunSpec(algo, SMALL, 0, tmp_path))
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("algo", ["ppo", "a2c"])
def test_hard_mode_needs_an_algorithm_that_takes_masks(tmp_path: Path, algo: str) -> None:
    with pytest.raises(ValueError, match="hard mode.*maskable_ppo"):
        run(RunSpec(algo, tier("wordle-hard"), 0, tmp_path))
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("algo", ["dqn", "qrdqn"])
def test_value_based_policies_choose_allowed_guesses_in_hard_mode(algo: str) -> None:
    hp = load_hyperparams(algo, tier("wordle-hard").env_id)
    assert chooses_allowed_guesses(hp.policy) and not chooses_allowed_guesses("GuessActorCriticPolicy")


def test_a_folder_holding_another_run_is_refused(small_runs: Path, tmp_path: Path) -> None:
    target = tmp_path / "micro-nerdle" / "ppo" / "seed-0"
    target.mkdir(parents=True)
    record = json.loads((small_runs / "micro-nerdle" / "ppo" / "seed-0" / "evaluations.json").read_text())
    record["hyperparams"]["gamma"] = 0.5
    (target / "evaluations.json").write_text(json.dumps(record))
    with pytest.raises(ValueError, match="holds another run"):
        run(RunSpec("ppo", SMALL, 0, tmp_path))


def test_evaluation_files_under_damage(small_runs: Path, tmp_path: Path) -> None:
    valid = (small_runs / "micro-nerdle" / "dqn" / "seed-0" / "evaluations.json").read_bytes()
    counts = fuzz_file(tmp_path / "evaluations.json", valid, lambda p: read_evaluations(p, protocol_tiers=False),
                       (ValueError, InputFileError), [mutate_bytes, mutate_json], rounds=600)
    assert counts["read"] and counts["refused"]


# ---- the report --------------------------------------------------------------------------------------------
def _record(algo: str, tier_name: str, seed: int, regrets: list[float]) -> dict:
    """A record the tier could have produced, its regret at its last evaluations as near the given ones as
    whole guesses allow (the final one recomputed from its guesses; the earliest given fills the evaluations
    before them), for checking the statistics."""
    t = tier(tier_name)
    a = anchors_of(tier_name)
    n = a.answers
    last = regrets[-1]
    total = round((a.optimum_mean + last * (a.random_mean - a.optimum_mean)) * n)
    scores = np.array([total // n + (i < total % n) for i in range(n)])
    guesses = [int(g) if g <= 6 else 0 for g in scores]
    mean = float(scores.mean())
    given = [regrets[0]] * (len(t.evaluation_steps) - len(regrets)) + [*regrets[:-1], a.regret(mean)]
    rows = [{"step": step, "mean_score": round(a.optimum_mean + r * (a.random_mean - a.optimum_mean), 6),
             "win_rate": 1.0, "regret": 0.0, "wall_s": 1.0} for step, r in zip(t.evaluation_steps, given)]
    for row in rows:
        row["regret"] = round(a.regret(row["mean_score"]), 6)
    rows[-1].update(mean_score=round(mean, 6), win_rate=round(float(np.mean([g > 0 for g in guesses])), 6),
                    regret=round(a.regret(mean), 6))
    return {"protocol": "1", "format": 1, "tier": tier_name, "budget": t.budget, "algo": algo, "seed": seed,
            "scored_answers": n, "hyperparams": {}, "resumed_at": [], "evaluations": rows, "complete": True,
            "final": {**rows[-1], "guesses": guesses}}


def _write(root: Path, record: dict) -> None:
    folder = root / record["tier"] / record["algo"] / f"seed-{record['seed']}"
    folder.mkdir(parents=True)
    (folder / "evaluations.json").write_text(json.dumps(record))


def test_the_report_matches_direct_computation(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    final = {("good", "micro-nerdle"): rng.uniform(0.0, 0.3, 5), ("good", "wordle-100"): rng.uniform(0.1, 0.4, 5),
             ("poor", "micro-nerdle"): rng.uniform(2.0, 3.0, 5), ("poor", "wordle-100"): rng.uniform(1.5, 2.5, 5)}
    for (algo, t), regrets in final.items():
        for seed, r in enumerate(regrets):
            record = _record(algo, t, seed, [r + 1.0, float(r)])
            _write(tmp_path / "runs", record)
            regrets[seed] = record["final"]["regret"]  # what whole guesses give
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    summary = build_report([tmp_path / "runs"], tmp_path / "out", reps=500)
    assert (np.random.get_state()[1] == before).all()  # rliable's global draws are seeded and put back  # noqa: NPY002
    again = build_report([tmp_path / "runs"], tmp_path / "again", reps=500, plots=False)
    assert {k: again[k] for k in ("aggregates", "profiles", "improvement", "curves")} == {
        k: summary[k] for k in ("aggregates", "profiles", "improvement", "curves")}  # the same seed, the same report
    for algo in ("good", "poor"):
        normalised = 1.0 - np.concatenate([final[(algo, "micro-nerdle")], final[(algo, "wordle-100")]])
        iqm = summary["aggregates"][algo]["iqm"]
        assert iqm["score"] == pytest.approx(stats.trim_mean(normalised, 0.25))
        assert iqm["low"] <= iqm["score"] <= iqm["high"]
        per_tier = [1.0 - final[(algo, t)].mean() for t in ("micro-nerdle", "wordle-100")]  # rliable: over tiers
        assert summary["aggregates"][algo]["median"]["score"] == pytest.approx(np.median(per_tier))
        assert summary["aggregates"][algo]["mean"]["score"] == pytest.approx(np.mean(per_tier))
    assert summary["improvement"]["good,poor"]["probability"] == pytest.approx(1.0)
    assert summary["improvement"]["poor,good"]["probability"] == pytest.approx(0.0)
    taus = np.array(summary["profiles"]["taus"])
    every = np.concatenate([final[("poor", t)] for t in ("micro-nerdle", "wordle-100")])
    assert summary["profiles"]["poor"]["share"] == pytest.approx([(every <= tau).mean() for tau in taus])
    curve = summary["curves"]["wordle-100"]["good"]
    assert curve["steps"] == list(tier("wordle-100").evaluation_steps)
    assert curve["iqm"][-1] == pytest.approx(stats.trim_mean(final[("good", "wordle-100")], 0.25))
    for name in summary["figures"]:
        assert (tmp_path / "out" / name).stat().st_size > 5_000
    assert set(summary["figures"]) == {"aggregates.png", "profiles.png", "improvement.png", "curves.png"}
    page = (tmp_path / "out" / "README.md").read_text()
    assert "| good |" in page and "![curves.png](curves.png)" in page
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["seeds"] == {"good": list(range(5)),
                                                                                    "poor": list(range(5))}


def test_the_report_refuses_what_it_cannot_compare(tmp_path: Path) -> None:
    _write(tmp_path / "a", _record("x", "micro-nerdle", 0, [0.5]))
    _write(tmp_path / "b", _record("x", "micro-nerdle", 0, [0.4]))
    with pytest.raises(ValueError, match="are the same run"):
        load_runs([tmp_path / "a", tmp_path / "b"])
    other = _record("y", "micro-nerdle", 0, [0.5])
    other["protocol"] = "0"
    _write(tmp_path / "c", other)
    with pytest.raises(ValueError, match="protocol version '0'"):
        load_runs([tmp_path / "c"])
    hostile = _record("</script><img src=x onerror=alert(1)>", "micro-nerdle", 0, [0.5])
    _write(tmp_path / "d", {**hostile, "algo": "x"})
    (tmp_path / "d" / "micro-nerdle" / "x" / "seed-0" / "evaluations.json").write_text(json.dumps(hostile))
    with pytest.raises(ValueError, match="is not an algorithm's name"):
        load_runs([tmp_path / "d"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no complete run"):
        load_runs([tmp_path / "empty"])


# ---- the command line --------------------------------------------------------------------------------------
def test_cli_tiers_and_hyperparams(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["benchmark", "tiers", "--protocol", "1"]) == 0
    out = capsys.readouterr().out
    assert all(t.name in out for t in TIERS) and "100,000" in out and out.startswith("protocol 1;")
    assert main(["benchmark", "hyperparams", "qrdqn"]) == 0
    assert Path(capsys.readouterr().out.strip()) == shipped_path("qrdqn")


def test_cli_run_refuses_bad_input_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["benchmark", "run", "--algo", "ppo", "--tier", "huge", "--seed", "0"]) == 2
    assert "invalid choice: 'huge'" in capsys.readouterr().err
    bad = tmp_path / "bad.yml"
    bad.write_text("guessgym/MicroNerdle-v1:\n  policy: os.system\n")
    code = main(["benchmark", "run", "--algo", "ppo", "--tier", "micro-nerdle", "--log-dir", str(tmp_path),
                 "--hyperparams", str(bad)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and "policy must be one of" in err


def test_cli_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for seed in range(3):
        _write(tmp_path / "runs", _record("a", "micro-nerdle", seed, [0.2 + seed / 10]))
        _write(tmp_path / "runs", _record("b", "micro-nerdle", seed, [0.9 + seed / 10]))
    assert main(["benchmark", "report", str(tmp_path / "runs"), "--out", str(tmp_path / "out"), "--reps", "200",
                 "--no-plots"]) == 0
    out = capsys.readouterr().out
    assert "| a | 0.300" in out and (tmp_path / "out" / "README.md").is_file()



# ---- the committed reference scores --------------------------------------------------------------------------
RESULTS = Path(__file__).resolve().parents[2] / "results" / "benchmark"


def test_the_reference_runs_are_complete_for_every_algorithm_tier_and_seed() -> None:
    runs = load_runs([RESULTS / "runs"])
    have = {(r["algo"], r["tier"], r["seed"]) for r in runs}
    assert have == {(a, t, s) for a in ALGORITHMS for t in REFERENCE_TIERS for s in SEEDS}
    for r in runs:
        assert r["hyperparams"] == load_hyperparams(r["algo"], tier(r["tier"]).env_id).as_dict()
        assert r["final"]["step"] == tier(r["tier"]).budget


def test_the_committed_report_is_of_the_committed_runs() -> None:
    """Every number of results/benchmark/summary.json that needs no resampling, recomputed from the runs."""
    summary = json.loads((RESULTS / "summary.json").read_text())
    runs = {(r["algo"], r["tier"], r["seed"]): r for r in load_runs([RESULTS / "runs"])}
    assert {(r["algo"], r["tier"], r["seed"]): r["regret"] for r in summary["runs"]} == {
        k: r["final"]["regret"] for k, r in runs.items()}
    for algo in ALGORITHMS:
        normalised = [1 - runs[(algo, t, s)]["final"]["regret"] for t in REFERENCE_TIERS for s in SEEDS]
        assert summary["aggregates"][algo]["iqm"]["score"] == pytest.approx(stats.trim_mean(normalised, 0.25))
    assert all((RESULTS / name).is_file() for name in summary["figures"]) and len(summary["figures"]) == 4


def test_the_readme_reference_table_is_the_committed_report() -> None:
    readme = (RESULTS.parents[1] / "README.md").read_text()
    section = readme.split("## A benchmark for RL algorithms", 1)[1].split("\n## ", 1)[0]
    table = section[section.index("\n| algorithm"):].split("\n\n", 1)[0]  # protocol 1's table, the section's first
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()
            if line.startswith("| ") and not line.startswith("| algorithm")]
    summary = json.loads((RESULTS / "summary.json").read_text())
    assert {row[0] for row in rows} == set(ALGORITHMS)
    for algo, iqm, *tiers in rows:
        assert iqm == f"{1 - summary['aggregates'][algo]['iqm']['score']:.3f}"
        for t, cell in zip(REFERENCE_TIERS, tiers, strict=True):
            regrets = [r["regret"] for r in summary["runs"] if r["algo"] == algo and r["tier"] == t]
            assert cell == f"{np.mean(regrets):.3f}"


def test_a_damaged_checkpoint_is_refused_naming_it(tmp_path: Path) -> None:
    spec = RunSpec("a2c", SMALL, 0, tmp_path)
    run(spec, stop_event=_StopAfterFirstEvaluation(spec.run_dir / "evaluations.json"))
    state = spec.run_dir / "checkpoint" / "state.json"
    document = json.loads(state.read_text())
    document["counters"]["num_timesteps"] = "many"
    state.write_text(json.dumps(document))
    with pytest.raises(ValueError, match="checkpoint: its state does not fit this run"):
        run(spec)
    (spec.run_dir / "checkpoint" / "state.npz").write_bytes(b"PK\x03\x04 not an archive")
    with pytest.raises(ValueError, match="checkpoint"):
        run(spec)


def test_checkpoint_states_under_damage(tmp_path: Path) -> None:
    """What resuming reads: state.json mutated, then loaded into a model of the run."""
    from guessgym.training.benchmark.runner import build, load_checkpoint, restore

    spec = RunSpec("dqn", SMALL, 0, tmp_path / "runs")
    run(spec, stop_event=_StopAfterFirstEvaluation(spec.run_dir / "evaluations.json"))
    model, venv = build(spec, load_hyperparams("dqn", SMALL.env_id), SMALL.training_game())
    state = spec.run_dir / "checkpoint" / "state.json"

    def read(path: Path) -> None:
        if path != state:
            state.write_bytes(path.read_bytes())
        loaded = load_checkpoint(spec.run_dir)
        if loaded is None:
            raise ValueError("no checkpoint")
        if type(loaded.get("step")) is not int:
            raise ValueError("not a step")  # what _run checks before restoring
        restore(spec.run_dir, model, venv, loaded)  # the runner's own resume

    counts = fuzz_file(tmp_path / "state.json", state.read_bytes(), read, (ValueError,), [mutate_json],
                       rounds=150)
    assert counts["read"] and counts["refused"]


def test_a_run_from_an_empty_cache_trains_on_the_threads_it_asks(tmp_path: Path) -> None:
    """Issue 73, item 4: from an empty cache, building the pattern matrix started numba's thread pool, which
    raised torch's threads from 1 to 2 after the runner set 1 (the run then diverged from its record, and ran
    at a third of the speed), while the record said 1. Now the threads are pinned with numba's pool started
    first, and the record holds the count measured once every game is built; a run from an empty cache equals
    one from a filled cache, evaluation by evaluation."""
    probe = ("import sys; sys.path.insert(0, 'tests/training'); sys.path.insert(0, 'tests')\n"
             "import torch\n"
             "from pathlib import Path\n"
             "from stable_baselines3.common.base_class import BaseAlgorithm\n"
             "from test_benchmark import SMALL\n"
             "from guessgym.training.benchmark.runner import RunSpec, run\n"
             "setup = BaseAlgorithm._setup_learn\n"
             "def counting(self, *a, **k):\n"
             "    print('threads', torch.get_num_threads(), flush=True)\n"
             "    return setup(self, *a, **k)\n"
             "BaseAlgorithm._setup_learn = counting\n"
             "run(RunSpec('ppo', SMALL, 0, Path(sys.argv[1])))\n")
    env = {**os.environ, "GUESSGYM_CACHE_DIR": str(tmp_path / "cache")}
    records = []
    for name in ("empty", "filled"):
        done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / name)], capture_output=True, text=True,
                              timeout=600, env=env, cwd=Path(__file__).resolve().parents[2])
        assert done.returncode == 0, done.stderr[-2000:]
        assert "threads 1" in done.stdout.splitlines(), done.stdout
        record = read_evaluations(tmp_path / name / "micro-nerdle" / "ppo" / "seed-0" / "evaluations.json",
                                  protocol_tiers=False)
        assert record["numerics"]["torch_threads"] == 1
        records.append(record)
    assert _strip(records[0]) == _strip(records[1]) and records[0]["final"]["guesses"] == records[1]["final"]["guesses"]
