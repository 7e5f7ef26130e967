"""The benchmark's files under a hostile or careless user (issue 72, items 5-7, 11 and 13-22): each failure
the audit found, rebuilt as a test."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("yaml", reason="the benchmark extra")
pytest.importorskip("rliable", reason="the benchmark extra")

from test_benchmark import SMALL, _record, _StopAfterFirstEvaluation, _write

from guessgym.cli import main
from guessgym.training.benchmark.hyperparams import HyperparamsError, load_hyperparams, shipped_path
from guessgym.training.benchmark.protocol import tier
from guessgym.training.benchmark.report import MAX_ALGORITHMS, build_report, load_runs
from guessgym.training.benchmark.runner import RUN_LOCK, RunSpec, read_evaluations, run

ROOT = Path(__file__).resolve().parents[2]


# ---- item 5: YAML aliases -------------------------------------------------------------------------------
def test_a_file_of_nested_aliases_is_refused_before_it_grows(tmp_path: Path) -> None:
    """A 604-byte --hyperparams file of nested aliases (gamma: *l7) grew to gigabytes when the record wrote
    every alias out. Its entry is refused once it holds over 10,000 values, counted with a stop."""
    lines = ["l0: &l0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"l{i}: &l{i} [*l{i - 1}, *l{i - 1}, *l{i - 1}, *l{i - 1}, *l{i - 1}, *l{i - 1}, *l{i - 1}, "
              f"*l{i - 1}, *l{i - 1}, *l{i - 1}]" for i in range(1, 9)]
    lines += ["guessgym/MicroNerdle-v1:", "  policy: guessgym.agents.policies.GuessQPolicy", "  gamma: *l8"]
    path = tmp_path / "aliases.yml"
    path.write_text("\n".join(lines) + "\n")
    assert path.stat().st_size < 1000
    started = time.monotonic()
    with pytest.raises(HyperparamsError, match="holds over 10,000 values once its YAML aliases are followed"):
        load_hyperparams("dqn", "guessgym/MicroNerdle-v1", path)
    assert time.monotonic() - started < 5.0
    for algo in ("ppo", "dqn"):  # the shipped files merge their shared settings with an alias: still read
        assert load_hyperparams(algo, "guessgym/MicroNerdle-v1").n_envs >= 1


# ---- item 11: one check of a run's settings -------------------------------------------------------------
@pytest.mark.parametrize(("change", "message"), [
    ({"policy_kwargs": "dict(game='guessgym/MicroNerdle-v1', net_arch=dict(pi=[65536, 65536], vf=[65536, 65536]))"},
     "holds 4,295,098,368 weights between its hidden layers, over the 33,554,432"),
    ({"policy_kwargs": "dict(game='guessgym/MicroNerdle-v1', net_arch=dict(pi=[" + "8, " * 199 + "8], vf=[8]))"},
     "at most 32 layer sizes"),
    ({"learning_rate": ".inf"}, "learning_rate must be finite"),
    ({"gamma": "-7.5"}, "gamma must be above 0 and at most 1, got -7.5"),
    ({"n_steps": "20000"}, "one rollout is 20,000 steps x 16 games = 320,000 steps, over the 10,000"),
    ({"n_epochs": "100000"}, "n_epochs must be from 1 to 100"),
])
def test_a_runs_settings_are_checked_before_anything_is_built(tmp_path: Path, change: dict[str, str],
                                                               message: str) -> None:
    """net_arch of 2 x 65,536 units (inside the per-layer bound) tried to allocate 17 GB and ended in a
    traceback; 200 hidden layers, learning_rate .inf, gamma -7.5 and a rollout 3.2x the budget were taken."""
    text = shipped_path("ppo").read_text()
    entry = text.split("guessgym/MicroNerdle-v1:\n", 1)[1].split("\n\n", 1)[0]
    for key, value in change.items():
        entry += f"\n  {key}: " + (json.dumps(value) if key == "policy_kwargs" else value)
    path = tmp_path / "h.yml"
    path.write_text(text.split("guessgym/MicroNerdle-v1:", 1)[0] + "guessgym/MicroNerdle-v1:\n" + entry + "\n")
    with pytest.raises((HyperparamsError, ValueError), match=message) as caught:
        run(RunSpec("ppo", tier("micro-nerdle"), 0, tmp_path / "runs", hyperparams=path))
    assert "\n" not in str(caught.value)
    assert not (tmp_path / "runs").exists()  # refused before a folder was made


# ---- item 6: forged or impossible records --------------------------------------------------------------
def _forged(tmp_path: Path, edit: Any) -> Path:
    record = _record("x", "micro-nerdle", 0, [0.3])
    edit(record)
    root = tmp_path / "runs"
    _write(root, record)
    return root


def _final(record: dict[str, Any], **values: Any) -> None:
    record["final"].update(values)
    record["evaluations"][-1].update({k: v for k, v in values.items() if k != "guesses"})


@pytest.mark.parametrize(("edit", "message"), [
    (lambda r: _final(r, regret=-3.0, mean_score=1.0), "mean_score 1.0 is below tier micro-nerdle's proven optimum"),
    (lambda r: _final(r, regret=0.0), "regret 0.0 is not its mean score's"),
    (lambda r: _final(r, regret=0.0, mean_score=round(374 / 127, 6), guesses=[0] * 127, win_rate=1.0),
     "final.mean_score 2.944882 is not what its guesses give"),  # the optimum's figures, every game lost
    (lambda r: r.update(evaluations=[dict(r["evaluations"][-1], step=1)], final=dict(r["final"], step=1)),
     "is evaluated once at or past each of 10,000"),
    (lambda r: r.update(scored_answers=1, final=dict(r["final"], guesses=[3])), "scored_answers 1 is not tier"),
    (lambda r: _final(r, regret=float("nan")), "regret must be finite"),
    (lambda r: _final(r, regret=float("inf")), "regret must be finite"),
    (lambda r: _final(r, mean_score=1e308), "mean_score 1e\\+308 is not a mean score of this tier"),
    (lambda r: _final(r, guesses=[9] * 127), "final.guesses holds a count over the tier's 6 attempts"),
    (lambda r: r.update(resumed_at=[[1]]), "resumed_at must list the steps"),
])
def test_forged_or_impossible_records_are_refused_naming_the_field(tmp_path: Path, edit: Any, message: str) -> None:
    """Ranked first before: a regret below the proven optimum (-3.0), a regret of 0 with every game lost, a
    "complete" run evaluated once at step 1, scored_answers 1, NaN and inf regrets, +-1e308."""
    root = _forged(tmp_path, edit)
    with pytest.raises(ValueError, match=message) as caught:
        load_runs([root])
    assert "\n" not in str(caught.value) and "evaluations.json" in str(caught.value)


def test_a_record_is_read_whole_within_its_bounds(tmp_path: Path) -> None:
    """Item 18: a record's JSON nested 990 deep ended in a traceback; a 60 MB file was read whole."""
    record = _record("x", "micro-nerdle", 0, [0.3])
    path = tmp_path / "deep" / "evaluations.json"
    path.parent.mkdir()
    for depth in (990, 100_000):  # 990 is read or refused as the stack allows; never a traceback
        path.write_text(json.dumps(record).replace('"wall_s": 1.0', '"wall_s": 1.0, "x": ' + "[" * depth + "]" * depth,
                                                   1))
        try:
            read_evaluations(path)
        except ValueError as exc:
            assert "nested too deep" in str(exc) and "\n" not in str(exc)
        else:
            assert depth < 1000
    with pytest.raises(ValueError, match="nested too deep"):
        read_evaluations(path)
    big = tmp_path / "big" / "evaluations.json"
    big.parent.mkdir()
    big.write_text(json.dumps({**record, "padding": "x" * (5 << 20)}))
    with pytest.raises(ValueError, match="over the limit of 4,194,304"):
        read_evaluations(big)


def test_a_report_of_too_many_algorithms_is_refused_at_once(tmp_path: Path) -> None:
    """Item 18: the probability of improvement bootstraps every pair; 25 algorithms took over 400 s."""
    for i in range(MAX_ALGORITHMS + 1):
        _write(tmp_path / "runs", _record(f"algo{i}", "micro-nerdle", 0, [0.3]))
    started = time.monotonic()
    with pytest.raises(ValueError, match=f"of {MAX_ALGORITHMS + 1} algorithms; a report compares at most "
                                         f"{MAX_ALGORITHMS}"):
        build_report([tmp_path / "runs"], tmp_path / "out", reps=100, plots=False)
    assert time.monotonic() - started < 30.0


# ---- item 7: a report writes only its own files ----------------------------------------------------------
def test_a_report_never_replaces_a_users_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """benchmark report --out F replaced the user's README.md, summary.json and figures in F (--out . a project's
    README). A file of a report's names that no report wrote is refused; everything else in F is left; a
    report's own earlier files are replaced."""
    for seed in range(2):
        _write(tmp_path / "runs", _record("a", "micro-nerdle", seed, [0.3]))
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("my project\n")
    (project / "notes.txt").write_text("mine\n")
    assert main(["benchmark", "report", str(tmp_path / "runs"), "--out", str(project), "--reps", "100",
                 "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert "README.md is there and guessgym did not write it" in err and err.count("\n") == 1
    assert (project / "README.md").read_text() == "my project\n" and sorted(p.name for p in project.iterdir()) == [
        "README.md", "notes.txt"]
    (project / "README.md").unlink()  # nothing of a report's names left: it writes beside the user's files
    assert main(["benchmark", "report", str(tmp_path / "runs"), "--out", str(project), "--reps", "100",
                 "--no-plots"]) == 0
    assert (project / "notes.txt").read_text() == "mine\n" and (project / "guessgym-export.json").is_file()
    assert main(["benchmark", "report", str(tmp_path / "runs"), "--out", str(project), "--reps", "100",
                 "--no-plots"]) == 0  # its own earlier report is replaced
    (project / "summary.json").unlink()
    (project / "summary.json").mkdir()
    assert main(["benchmark", "report", str(tmp_path / "runs"), "--out", str(project), "--reps", "100",
                 "--no-plots"]) == 2


def test_the_committed_report_folder_lists_the_reports_files() -> None:
    listed = json.loads((ROOT / "results" / "benchmark" / "guessgym-export.json").read_text())["files"]
    assert set(listed) == {"README.md", "summary.json", "aggregates.png", "curves.png", "improvement.png",
                           "profiles.png"}


# ---- items 13, 14, 16, 19, 22: the run's folder and its checkpoint ---------------------------------------------
def _stopped(tmp_path: Path, algo: str = "a2c") -> RunSpec:
    spec = RunSpec(algo, SMALL, 0, tmp_path / "runs")
    run(spec, stop_event=_StopAfterFirstEvaluation(spec.run_dir / "evaluations.json"))
    assert (spec.run_dir / "checkpoint" / "state.json").is_file()
    return spec


def test_a_kill_between_the_checkpoints_renames_loses_nothing(tmp_path: Path) -> None:
    """Item 13: a SIGKILL between the checkpoint's two renames restarted the run from 0 and left .old-checkpoint-*
    for good; after completion checkpoint/ was left for good."""
    spec = _stopped(tmp_path)
    steps = json.loads((spec.run_dir / "checkpoint" / "state.json").read_text())["step"]
    aside = spec.run_dir / ".old-checkpoint-deadbeef"
    os.replace(spec.run_dir / "checkpoint", aside)  # where the kill left it: moved aside, the new one not in place
    lines: list[str] = []
    run(spec, say=lines.append)
    assert any(f"resuming at step {steps:,}" in line for line in lines), lines
    assert read_evaluations(spec.run_dir / "evaluations.json", protocol_tiers=False)["resumed_at"] == [steps]
    assert sorted(p.name for p in spec.run_dir.iterdir()) == ["evaluations.json", "model.zip", RUN_LOCK]
    (spec.run_dir / "checkpoint").mkdir()  # a kill after the record was complete left it
    (spec.run_dir / ".old-checkpoint-0").mkdir()
    run(spec)
    assert sorted(p.name for p in spec.run_dir.iterdir()) == ["evaluations.json", "model.zip", RUN_LOCK]


def test_two_runs_into_one_folder_at_once_are_refused(tmp_path: Path) -> None:
    """Item 14: two runs into one folder at once (other hyperparameters) were not refused; one replaced the other."""
    from guessgym.infra.atomic import held_lock

    spec = RunSpec("a2c", SMALL, 0, tmp_path / "runs")
    with held_lock(spec.run_dir / RUN_LOCK, "test"):  # what a run holds while it runs
        probe = ("import sys; sys.path.insert(0, 'tests/training'); sys.path.insert(0, 'tests')\n"
                 "from pathlib import Path\n"
                 "from test_benchmark import SMALL\n"
                 "from guessgym.training.benchmark.runner import RunSpec, run\n"
                 f"run(RunSpec('a2c', SMALL, 0, Path({str(tmp_path / 'runs')!r})))\n")
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode != 0 and "is in use by another run (process" in done.stderr, done.stderr[-2000:]
    assert not (spec.run_dir / "evaluations.json").exists()


def test_a_folder_that_is_not_a_runs_is_not_used(tmp_path: Path) -> None:
    """Item 19: run --log-dir L deleted a user's own checkpoint/ folder at the run's path."""
    spec = RunSpec("a2c", SMALL, 0, tmp_path / "runs")
    (spec.run_dir / "checkpoint").mkdir(parents=True)
    (spec.run_dir / "checkpoint" / "mine.txt").write_text("keep me\n")
    with pytest.raises(ValueError, match="holds 'checkpoint' and no run's record"):
        run(spec)
    assert (spec.run_dir / "checkpoint" / "mine.txt").read_text() == "keep me\n"


def test_a_run_writes_nothing_in_the_temporary_folder(tmp_path: Path) -> None:
    """Item 22: every run left an empty SB3-<date> folder in the system's temporary folder."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    probe = ("import sys; sys.path.insert(0, 'tests/training'); sys.path.insert(0, 'tests')\n"
             "from pathlib import Path\n"
             "from test_benchmark import SMALL\n"
             "from guessgym.training.benchmark.runner import RunSpec, run\n"
             f"run(RunSpec('dqn', SMALL, 0, Path({str(tmp_path / 'runs')!r})))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env={**{k: v for k, v in os.environ.items() if k != "SB3_LOGDIR"},  # the suite's own
                               "TMPDIR": str(temporary)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert [p.name for p in temporary.iterdir() if p.name.startswith("SB3")] == []


def _edit_state(spec: RunSpec, edit: Any) -> None:
    path = spec.run_dir / "checkpoint" / "state.json"
    document = json.loads(path.read_text())
    edit(document)
    path.write_text(json.dumps(document))


@pytest.mark.parametrize("damage", ["deep", "step", "evaluations"])
def test_crafted_checkpoint_states_are_refused_in_one_line(tmp_path: Path, damage: str) -> None:
    """Item 16: a state.json nested 100,000 deep ended in a traceback; a step edited to the budget completed the
    run at once."""
    spec = _stopped(tmp_path)
    path = spec.run_dir / "checkpoint" / "state.json"
    if damage == "deep":
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif damage == "step":
        _edit_state(spec, lambda d: (d.update(step=SMALL.budget), d["counters"].update(num_timesteps=SMALL.budget)))
    else:
        _edit_state(spec, lambda d: d.update(evaluations=[]))  # its step no longer follows its evaluations
    with pytest.raises(ValueError, match="checkpoint") as caught:
        run(spec)
    assert "\n" not in str(caught.value)
    assert not read_evaluations(spec.run_dir / "evaluations.json", protocol_tiers=False)["complete"]


def _rewrite_arrays(spec: RunSpec, change: Any) -> None:
    path = spec.run_dir / "checkpoint" / "state.npz"
    with np.load(path, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    change(arrays)
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **arrays)
    path.write_bytes(buffer.getvalue())


def _array_key(spec: RunSpec, fragment: str) -> str:
    """The npz member of the state's array whose JSON path holds ``fragment``."""
    document = json.loads((spec.run_dir / "checkpoint" / "state.json").read_text())
    found: list[str] = []

    def walk(value: Any, here: str) -> None:
        if isinstance(value, dict):
            if "$array" in value:
                if fragment in here:
                    found.append(str(value["$array"]))
                return
            for k, v in value.items():
                walk(v, f"{here}/{k}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{here}/{i}")

    walk(document, "")
    assert found, (fragment, json.dumps(document)[:500])
    return found[0]


@pytest.mark.parametrize("damage", ["answer", "last_obs"])
def test_checkpoint_arrays_that_do_not_fit_the_run_are_refused(tmp_path: Path, damage: str) -> None:
    """Item 16: an answer index past the list and a _last_obs of another shape ended in tracebacks."""
    spec = _stopped(tmp_path)
    if damage == "answer":
        key = _array_key(spec, "engine/state")

        def change(arrays: dict[str, np.ndarray]) -> None:
            arrays[key][:, 0] = 10_000
    else:
        key = _array_key(spec, "_last_obs")

        def change(arrays: dict[str, np.ndarray]) -> None:
            arrays[key] = np.zeros((3, 3), dtype=arrays[key].dtype)
    _rewrite_arrays(spec, change)
    with pytest.raises(ValueError, match="checkpoint: its state does not fit this run") as caught:
        run(spec)
    assert "\n" not in str(caught.value)


def test_a_small_checkpoint_of_huge_arrays_is_refused_before_they_are_read(tmp_path: Path) -> None:
    """Item 16: a 2.66 MB state.npz holding 2 GiB of arrays was accepted (3.08 GB peak). A checkpoint's arrays are
    read up to what the run's model and buffer need."""
    spec = _stopped(tmp_path)
    path = spec.run_dir / "checkpoint" / "state.npz"
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("huge.npy", "w", force_zip64=True) as f:
            header = io.BytesIO()
            np.lib.format.write_array_header_2_0(header, {"descr": "<f8", "fortran_order": False,
                                                          "shape": (256 << 20,)})
            f.write(header.getvalue())
            block = bytes(1 << 20)
            for _ in range(2048):
                f.write(block)
    assert path.stat().st_size < 8 << 20
    with pytest.raises(ValueError, match="checkpoint.*over the limit of") as caught:
        run(spec)
    assert "\n" not in str(caught.value)


# ---- items 15 and 17: signals and what --algo runs ------------------------------------------------------------
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_saves_a_checkpoint_as_ctrl_c_does(tmp_path: Path) -> None:
    """Item 15: SIGTERM lost the steps since the last checkpoint with no word."""
    log = tmp_path / "runs"
    proc = subprocess.Popen([sys.executable, "-m", "guessgym", "benchmark", "run", "--algo", "a2c", "--tier",
                             "micro-nerdle", "--log-dir", str(log), "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    record = log / "micro-nerdle" / "a2c" / "seed-0" / "evaluations.json"
    deadline = time.monotonic() + 240
    while not (record.is_file() and json.loads(record.read_text())["evaluations"]):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1][-2000:]
        time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert "terminated: saving a checkpoint" in err and "stopped at a checkpoint" in out
    state = json.loads((record.parent / "checkpoint" / "state.json").read_text())
    assert state["step"] >= json.loads(record.read_text())["evaluations"][-1]["step"]


@pytest.mark.parametrize("algo", [".x:Y", "os:system", "a b:C", "x:"])
def test_an_algorithm_that_is_not_an_import_path_is_one_line(tmp_path: Path, algo: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Item 17: --algo .x:Y ended in a traceback."""
    code = main(["benchmark", "run", "--algo", algo, "--tier", "micro-nerdle", "--log-dir", str(tmp_path),
                 "--hyperparams", str(shipped_path("ppo"))])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and "algorithm" in err, err


def test_the_pages_say_what_algo_runs() -> None:
    """Item 17: --algo module:Class imports and runs a module, which neither the safety page nor the benchmark
    page said."""
    for page in ("safety.md", "rl-benchmark.md"):
        text = " ".join((ROOT / "docs" / page).read_text().split())
        assert "--algo" in text and "runs its code" in text, page


# ---- item 20: the report's default runs -------------------------------------------------------------------------
def test_report_without_runs_outside_a_checkout_says_what_to_give(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main(["benchmark", "report", "--out", "out"]) == 2
    finally:
        os.chdir(cwd)
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "results/benchmark/runs of the working folder" in err and "give RUNS" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_stops_the_reference_script_and_its_queue(tmp_path: Path) -> None:
    """Item 15: Ctrl-C did not stop scripts/benchmark_references.py: it started the next queued run."""
    log = tmp_path / "runs"
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "benchmark_references.py"), "--tier",
                             "micro-nerdle", "--algo", "a2c", "--seeds", "0", "1", "2", "--log-dir", str(log)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    record = log / "micro-nerdle" / "a2c" / "seed-0" / "evaluations.json"
    deadline = time.monotonic() + 240
    try:
        while not (record.is_file() and json.loads(record.read_text())["evaluations"]):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1][-2000:]
            time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the script and its run
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, (out, err[-2000:])
    assert "0 of 3 runs complete (stopped: the same command continues)" in out
    assert (record.parent / "checkpoint" / "state.json").is_file()
    assert not any((log / "micro-nerdle" / "a2c" / f"seed-{s}").exists() for s in (1, 2))
