"""Protocol 2 of the RL benchmark: the held-out split of every Wordle tier, anchors that know the tier's
whole list (and the uniform-random one beside them), learning-signal aids declared from the settings, a
run of each kind of algorithm, version 1 and 2 never mixed, and its report."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import torch as th

from guessgym.agents.rollout import play_batched
from guessgym.baselines.random_consistent import RandomConsistentAgent
from guessgym.cli import main
from guessgym.evaluation.evaluate import evaluate
from guessgym.training.benchmark.hyperparams import ALGORITHMS, HyperparamsError, load_hyperparams
from guessgym.training.benchmark.protocol import (
    AIDS,
    ANCHOR_SEEDS,
    LATEST_VERSION,
    PROTOCOLS,
    aids_of,
    anchors_of,
    check_version,
    protocol,
)
from guessgym.training.benchmark.records import check_record
from guessgym.training.benchmark.report import build_report
from guessgym.training.benchmark.runner import RunSpec, read_evaluations, run

th.set_num_threads(1)

V2 = protocol("2")
WORDLE_TIERS = [t for t in V2.tiers if t.name.startswith("wordle")]


# ---- the protocol ---------------------------------------------------------------------------------------------
def test_versions_and_tiers() -> None:
    assert LATEST_VERSION == "2" and set(PROTOCOLS) == {"1", "2"}
    assert [t.name for t in V2.tiers] == ["micro-nerdle", "mini-nerdle", "wordle-500", "wordle", "wordle-hard",
                                          "wordle-unseen"]
    assert all(t.version == "2" and t.budget % t.eval_every == 0 for t in V2.tiers)
    assert all(len(t.seeds) == 10 for t in V2.tiers if "nerdle" in t.name)
    assert all(len(t.seeds) >= 5 for t in V2.tiers)
    assert protocol("1").tier("wordle-500").budget != V2.tier("wordle-500").budget  # same name, another tier
    with pytest.raises(ValueError, match="unknown protocol version '3'; the versions are 1, 2"):
        protocol("3")
    with pytest.raises(ValueError, match="reads versions '1', '2'"):
        check_version("9", "x.json")


@pytest.mark.parametrize("t", WORDLE_TIERS, ids=lambda t: t.name)
def test_every_wordle_tier_is_scored_on_answers_training_never_draws(t) -> None:  # type: ignore[no-untyped-def]
    train, scored, full = t.training_game(), t.scored_game(), t.full_game()
    assert t.scored == "unseen" and scored.answers and not set(train.answers) & set(scored.answers)
    assert sorted(train.answers + scored.answers) == sorted(full.answers)
    assert train.guesses == scored.guesses == full.guesses and train.hard_mode == full.hard_mode
    hp = load_hyperparams("ppo" if not train.hard_mode else "maskable_ppo", t.env_id)
    assert hp.n_timesteps == t.budget and hp.policy_kwargs["game"] == t.unseen_of  # the policy knows the whole list


def test_anchors_know_the_whole_list_and_have_the_uniform_anchor() -> None:
    for t in V2.tiers:
        a = anchors_of(t.name, "2")
        assert a.answers == len(t.scored_game().answers) and a.proven
        assert a.optimum_mean < a.random_mean < a.uniform_mean <= t.training_game().max_attempts + 1
        assert a.guess_worth == pytest.approx(a.regret(a.optimum_mean + 1 / a.answers))


def test_the_wordle_500_anchors_are_recomputed() -> None:
    """What scripts/benchmark_anchors.py --protocol 2 writes: the whole list's optimal tree on the scored answers,
    random-consistent over the whole list's candidates, and a uniformly random allowed guess."""
    from guessgym.baselines.opener_search import prove

    t = V2.tier("wordle-500")
    full, scored = t.full_game(), t.scored_game()
    a = anchors_of("wordle-500", "2")
    tree = prove(full).tree
    assert sum(len(tree.paths[w]) for w in scored.answers) == a.optimum_total
    chosen = [full.answers.index(w) for w in scored.answers]
    means = [evaluate(RandomConsistentAgent(seed=s), full, answers=chosen, seed=s).mean_guesses_with_failures
             for s in ANCHOR_SEEDS]
    assert np.mean(means) == pytest.approx(a.random_mean, abs=1e-6)
    rng = np.random.default_rng(0)

    def uniform(obs: dict[str, np.ndarray]) -> np.ndarray:
        allowed = [np.flatnonzero(row) for row in obs["action_mask"].astype(bool)]
        return np.array([rng.choice(x) if x.size else 0 for x in allowed], dtype=np.int64)

    first = play_batched(uniform, full, np.array(chosen))
    assert 6.5 < np.where(first > 0, first, 7).mean() < 7.0  # one seed of the twenty: near a sure loss


# ---- aids ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("policy_kwargs", "env_kwargs", "aids"), [
    ({}, {}, []),
    ({"candidate_prior": 0.0}, {"reward_mode": "sparse"}, []),
    ({"candidate_prior": 10.5}, {}, ["candidate-prior"]),
    ({"candidate_prior": "0"}, {}, ["candidate-prior"]),  # a record's odd value is never taken as none
    ({"split_features": True}, {"reward_mode": "shaped"}, ["split-prior", "shaped-reward"]),
])
def test_aids_are_read_from_the_settings(policy_kwargs: dict, env_kwargs: dict, aids: list[str]) -> None:
    assert aids_of(policy_kwargs, env_kwargs) == aids and set(aids) <= set(AIDS)


def test_the_shipped_settings_declare_the_candidate_prior_on_the_big_tiers_only() -> None:
    for algo in ALGORITHMS:
        for t in V2.tiers:
            hp = load_hyperparams(algo, t.env_id)
            expected = ["candidate-prior"] if t.name in ("wordle", "wordle-hard", "wordle-unseen") else []
            assert aids_of(hp.policy_kwargs, hp.env_kwargs) == expected, (algo, t.name)


def test_env_kwargs_take_reward_settings_only(tmp_path: Path) -> None:
    path = tmp_path / "h.yml"
    entry = "guessgym/Wordle500Train-v0:\n  policy: guessgym.agents.policies.GuessActorCriticPolicy\n"
    path.write_text(entry + "  env_kwargs: {reward_mode: shaped}\n")
    assert load_hyperparams("ppo", "guessgym/Wordle500Train-v0", path).env_kwargs == {"reward_mode": "shaped"}
    path.write_text(entry + "  env_kwargs: {hard_mode: true}\n")
    with pytest.raises(HyperparamsError, match="env_kwargs hard_mode is not a reward setting"):
        load_hyperparams("ppo", "guessgym/Wordle500Train-v0", path)
    path.write_text(entry + "  env_kwargs: {reward_mode: dense}\n")
    with pytest.raises(HyperparamsError, match="reward_mode must be one of"):
        load_hyperparams("ppo", "guessgym/Wordle500Train-v0", path)
    path.write_text(entry + "  policy_kwargs: \"dict(game='guessgym/MicroNerdle-v1')\"\n")
    with pytest.raises(HyperparamsError, match="does not play guessgym/Wordle500Train-v0's guesses"):
        load_hyperparams("ppo", "guessgym/Wordle500Train-v0", path)


# ---- runs ---------------------------------------------------------------------------------------------------------
SMALL = dataclasses.replace(V2.tier("wordle-500"), budget=4_000, eval_every=2_000)


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_a_run_is_scored_on_the_held_out_answers_and_declares_its_aids(tmp_path: Path, algo: str) -> None:
    path = run(RunSpec(algo, SMALL, 0, tmp_path))
    record = read_evaluations(path, protocol_tiers=False)
    assert record["protocol"] == "2" and record["aids"] == [] and record["complete"]
    assert record["scored_answers"] == 100 == len(record["final"]["guesses"])
    assert record["hyperparams_file"] == f"guessgym benchmark hyperparams {algo}"  # the same on every machine
    a = anchors_of("wordle-500", "2")
    scores = np.array([g if g > 0 else 7 for g in record["final"]["guesses"]])
    assert record["final"]["regret"] == pytest.approx(a.regret(scores.mean()), abs=1e-5)
    forged = {**record, "aids": ["candidate-prior"]}
    with pytest.raises(ValueError, match="aids .* is not what its settings use \\(none\\)"):
        check_record(forged, "x", protocol_tiers=False)
    hidden = json.loads(json.dumps(record))
    hidden["hyperparams"]["policy_kwargs"]["candidate_prior"] = 3.0
    with pytest.raises(ValueError, match="every learning-signal aid"):
        check_record(hidden, "x", protocol_tiers=False)


def test_a_version_1_folder_is_not_continued_as_version_2(tmp_path: Path) -> None:
    v1 = dataclasses.replace(protocol("1").tier("micro-nerdle"), budget=2_000, eval_every=1_000)
    run(RunSpec("a2c", v1, 0, tmp_path))
    v2 = dataclasses.replace(V2.tier("micro-nerdle"), budget=2_000, eval_every=1_000)
    with pytest.raises(ValueError, match="holds another run \\(a2c on micro-nerdle of protocol 1"):
        run(RunSpec("a2c", v2, 0, tmp_path))


def test_a_policy_may_know_the_training_answers_or_the_whole_list_only(tmp_path: Path) -> None:
    path = tmp_path / "h.yml"
    path.write_text("guessgym/WordleTrain-v0:\n  policy: guessgym.agents.policies.GuessActorCriticPolicy\n"
                    "  n_timesteps: 1000000\n  policy_kwargs: \"dict(game='guessgym/WordleHalf-v0')\"\n")
    with pytest.raises(ValueError, match="is not what a policy of tier wordle may know"):
        run(RunSpec("ppo", V2.tier("wordle"), 0, tmp_path / "runs", hyperparams=path))


# ---- the report -----------------------------------------------------------------------------------------------------
def _record(algo: str, seed: int, total: int, aids: list[str]) -> dict:
    """A complete wordle-500 record of protocol 2 whose scored answers took ``total`` guesses in all."""
    t = V2.tier("wordle-500")
    a = anchors_of("wordle-500", "2")
    scores = [total // a.answers + (i < total % a.answers) for i in range(a.answers)]
    guesses = [s if s <= 6 else 0 for s in scores]
    mean = float(np.mean(scores))
    rows = [{"step": s, "mean_score": round(mean, 6), "win_rate": round(float(np.mean([g > 0 for g in guesses])), 6),
             "regret": round(a.regret(mean), 6), "wall_s": 1.0} for s in t.evaluation_steps]
    settings = {"policy_kwargs": {"candidate_prior": 10.5} if aids else {}}
    return {"protocol": "2", "format": 1, "tier": "wordle-500", "budget": t.budget, "algo": algo, "seed": seed,
            "scored_answers": a.answers, "hyperparams": settings, "aids": aids, "resumed_at": [],
            "evaluations": rows, "complete": True, "final": {**rows[-1], "guesses": guesses}}


def _write(root: Path, record: dict) -> None:
    folder = root / record["tier"] / record["algo"] / f"seed-{record['seed']}"
    folder.mkdir(parents=True)
    (folder / "evaluations.json").write_text(json.dumps(record))


def test_the_report_shows_raw_scores_first_the_anchors_and_the_aids(tmp_path: Path) -> None:
    for seed in range(3):
        _write(tmp_path / "runs", _record("plain", seed, 330 + seed, []))
        _write(tmp_path / "runs", _record("helped", seed, 310 + seed, ["candidate-prior"]))
    summary = build_report([tmp_path / "runs"], tmp_path / "out", reps=200, plots=False)
    assert summary["protocol"] == "2"
    page = (tmp_path / "out" / "README.md").read_text()
    assert "wordle-500: mean guesses, win rate, regret" in summary["table"]
    assert "| plain | " in summary["table"] and "3.310, 100.0%, 0.810" in summary["table"]
    assert "| helped | candidate-prior |" in page and "| plain | none |" in page
    a = anchors_of("wordle-500", "2")
    assert f"| {a.uniform_mean:.4f} | {a.guess_worth:.4f} |" in page
    assert {(r["algo"], tuple(r["aids"])) for r in summary["runs"]} == {("plain", ()), ("helped", ("candidate-prior",))}


def test_versions_are_never_reported_together(tmp_path: Path) -> None:
    from test_benchmark import _record as v1_record  # a record version 1's tier could have produced

    _write(tmp_path / "runs" / "two", _record("x", 0, 330, []))
    _write(tmp_path / "runs" / "one", v1_record("x", "micro-nerdle", 0, [0.5]))
    with pytest.raises(ValueError, match="never reported together"):
        build_report([tmp_path / "runs"], tmp_path / "out", reps=200, plots=False)


def test_cli_tiers_default_to_the_latest_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["benchmark", "tiers"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("protocol 2;") and "uniform" in out and "WordleTrain-v0" in out and "1 guess" in out


def test_a_record_whose_policy_knew_another_game_is_refused(tmp_path: Path) -> None:
    record = _record("x", 0, 330, [])
    check_record(record, "x")
    record["hyperparams"]["policy_kwargs"]["game"] = "guessgym/Wordle-v1"
    with pytest.raises(ValueError, match="its policy knew the game 'guessgym/Wordle-v1'"):
        check_record(record, "x")


# ---- the committed reference scores of protocol 2 ------------------------------------------------------------------
RESULTS = Path(__file__).resolve().parents[2] / "results" / "benchmark-v2"


def test_the_committed_runs_are_complete_for_their_tiers_algorithms_and_seeds() -> None:
    """Each algorithm with committed runs on a tier has them on every reference seed, with the shipped
    settings, and is one of the tier's reference algorithms (scripts/benchmark_references.py's table:
    MaskablePPO on hard mode only); a reference algorithm whose table is not finished has no runs here yet."""
    from guessgym.training.benchmark.references import takes_part
    from guessgym.training.benchmark.report import load_runs

    runs = load_runs([RESULTS / "runs"])
    for name in sorted({r["tier"] for r in runs}):
        t = V2.tier(name)
        algos = {r["algo"] for r in runs if r["tier"] == name}
        assert algos <= {a for a in ALGORITHMS if takes_part(V2, t, a)}, name
        have = {(r["algo"], r["seed"]) for r in runs if r["tier"] == name}
        assert have == {(a, s) for a in algos for s in t.seeds}, name
    for r in runs:
        assert r["hyperparams"] == load_hyperparams(r["algo"], V2.tier(r["tier"]).env_id).as_dict()
        assert r["hyperparams_file"] == f"guessgym benchmark hyperparams {r['algo']}"


def test_the_committed_report_and_readme_table_are_of_the_committed_runs() -> None:
    from scipy import stats

    from guessgym.training.benchmark.report import load_runs

    summary = json.loads((RESULTS / "summary.json").read_text())
    runs = {(r["algo"], r["tier"], r["seed"]): r for r in load_runs([RESULTS / "runs"])}
    assert summary["protocol"] == "2" and {(r["algo"], r["tier"], r["seed"]): r["regret"] for r in summary["runs"]} == {
        k: r["final"]["regret"] for k, r in runs.items()}
    tiers = summary["aggregated_tiers"]
    for algo in {k[0] for k in runs}:
        normalised = [1 - r["final"]["regret"] for (a, t, _), r in runs.items() if a == algo and t in tiers]
        assert summary["aggregates"][algo]["iqm"]["score"] == pytest.approx(stats.trim_mean(normalised, 0.25))
    readme = (RESULTS.parents[1] / "README.md").read_text()
    table = readme[readme.index("| algorithm (protocol 2)"):].split("\n\n", 1)[0]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()[2:]]
    assert {row[0] for row in rows} == {k[0] for k in runs}
    for algo, iqm, *cells in rows:
        assert iqm == f"{1 - summary['aggregates'][algo]['iqm']['score']:.3f}"
        for t, cell in zip(tiers, cells, strict=True):
            finals = [r["final"] for (a, tt, _), r in runs.items() if a == algo and tt == t]
            assert cell == (f"{np.mean([f['mean_score'] for f in finals]):.3f}, "
                            f"{np.mean([f['win_rate'] for f in finals]):.1%}, "
                            f"{np.mean([f['regret'] for f in finals]):.3f}")


def test_which_algorithms_have_reference_runs_on_a_tier() -> None:
    from guessgym.training.benchmark.references import takes_part

    hard, plain = V2.tier("wordle-hard"), V2.tier("wordle")
    assert [a for a in ALGORITHMS if takes_part(V2, hard, a)] == ["dqn", "maskable_ppo", "qrdqn"]
    assert [a for a in ALGORITHMS if takes_part(V2, plain, a)] == ["ppo", "a2c", "dqn", "qrdqn"]
    assert takes_part(protocol("1"), protocol("1").tier("micro-nerdle"), "maskable_ppo")  # version 1 ran it everywhere


def test_the_protocol_page_table_is_the_protocol() -> None:
    """docs/rl-benchmark-v2.md's table of tiers: every id, budget, interval, seed count and anchor as the code has
    them (anchors-v2.json, what `guessgym benchmark tiers` prints)."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "rl-benchmark-v2.md").read_text()
    table = page.split("## Tiers", 1)[1].split("\n\n")[1]
    rows = [[c.strip().strip("`") for c in line.strip("|").split("|")] for line in table.splitlines()
            if line.startswith("| `")]
    assert [r[0] for r in rows] == [t.name for t in V2.tiers]
    for (name, env_id, scored, budget, every, seeds, opt, rnd, uni, worth), t in zip(rows, V2.tiers, strict=True):
        a = anchors_of(name, "2")
        assert f"guessgym/{env_id}" == t.env_id and scored.startswith(f"{a.answers:,}")
        assert (budget, every, seeds) == (f"{t.budget:,}", f"{t.eval_every:,}", str(len(t.seeds)))
        assert (opt, rnd, uni, worth) == (f"{a.optimum_mean:.4f}", f"{a.random_mean:.4f}", f"{a.uniform_mean:.4f}",
                                          f"{a.guess_worth:.4f}")
