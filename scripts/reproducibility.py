"""What makes a trained model differ between machines, measured: one config, one seed, many processes.

Each case trains ``--config`` (``configs/mini-nerdle.toml``; ``--steps`` environment steps, ``--set``
overrides as in ``guessgym train``) in a fresh process
whose environment variables stand in for another machine: ``ATEN_CPU_CAPABILITY`` selects
torch's kernel variant as another CPU would (DEFAULT, AVX2; AVX512 where the CPU has it),
``MKL_CBWR`` selects MKL's code branch as another processor would. It prints, per case, a digest
of the trained parameters, the greedy policy's mean guesses over every answer and the training
speed, and writes ``results/learned/reproducibility.md``. Equal digests are bitwise-equal models.

Usage (from the repository root; about a minute per case on a shared core)::

    python scripts/reproducibility.py [--steps 30000] [--out results/learned/reproducibility.md]
    python scripts/reproducibility.py --steps 0 --set clone_epochs=8 --set holdout=0.1 \
        --out results/learned/reproducibility-cloning.md     # the cloning stage (issue 27)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from guessgym.infra.atomic import atomic_write_text
from guessgym.infra.inputs import script_main

_ROOT = Path(__file__).resolve().parents[1]

#: (case, environment variables of the process, numerics, torch_threads)
CASES: list[tuple[str, dict[str, str], str, int]] = [
    ("native", {}, "native", 1),
    ("native, again", {}, "native", 1),
    ("native, ATen DEFAULT kernels (a CPU without AVX2)", {"ATEN_CPU_CAPABILITY": "default"}, "native", 1),
    ("native, MKL branch COMPATIBLE", {"MKL_CBWR": "COMPATIBLE"}, "native", 1),
    ("native, MKL branch AVX2", {"MKL_CBWR": "AVX2"}, "native", 1),
    ("native, 2 threads", {}, "native", 2),
    ("portable", {}, "portable", 1),
    ("portable, on a machine that would choose DEFAULT and COMPATIBLE",
     {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"}, "portable", 1),
    ("portable, 2 threads", {}, "portable", 2),
]

_CHILD = """
import hashlib, json, sys
from guessgym.agents.learned import load_model
from guessgym.infra.inputs import read_json
from guessgym.training.config import apply_overrides, load_config
from guessgym.training.train import train
config = apply_overrides(load_config(sys.argv[2]), json.loads(sys.argv[1]))
path = train(config)
digest = hashlib.sha256()
for key, value in sorted(load_model(path).policy.state_dict().items()):
    digest.update(key.encode())
    digest.update(value.numpy().tobytes())
final = read_json(path.parent / "final.json", "run summary")
print(json.dumps({"digest": digest.hexdigest()[:16], "mean": final["final_eval"]["mean_guesses"],
                  "win_rate": final["final_eval"]["win_rate"], "steps_per_s": final["steps_per_s"],
                  "numerics": final["numerics"]}))
"""


def run_case(variables: dict[str, str], numerics: str, threads: int, steps: int, folder: str, config: str,
             extra: list[str]) -> dict[str, object]:
    overrides = [f"total_steps={steps}", f"log_dir={json.dumps(folder)}", "eval_every=0", "checkpoint_every=0",
                 *extra, f"numerics={json.dumps(numerics)}", f"torch_threads={threads}"]
    env = {k: v for k, v in os.environ.items() if k not in ("ATEN_CPU_CAPABILITY", "MKL_CBWR")} | variables
    out = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(overrides), config], env=env, cwd=_ROOT,
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"case failed:\n{out.stderr[-3000:]}")
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=30_000)
    parser.add_argument("--out", type=Path, default=_ROOT / "results/learned/reproducibility.md")
    parser.add_argument("--config", default="configs/mini-nerdle.toml")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="a config override, as guessgym train's --set (repeatable)")
    args = parser.parse_args()
    rows = []
    machine = None
    for name, variables, numerics, threads in CASES:
        with tempfile.TemporaryDirectory() as folder:
            r = run_case(variables, numerics, threads, args.steps, folder, args.config, args.overrides)
        described = r["numerics"]
        assert isinstance(described, dict)
        machine = machine or described
        shown = " ".join(f"{k}={v}" for k, v in variables.items()) or "(none)"
        print(f"{name:66s} {r['digest']}  mean {float(r['mean']):.4f}  {r['steps_per_s']} steps/s  "
              f"[{described['aten_cpu_capability']}, MKL {described['mkl_cbwr']}]", flush=True)
        rows.append(f"| {name} | `{shown}` | {numerics} | {threads} | {described['aten_cpu_capability']} / "
                    f"{described['mkl_cbwr']} | `{r['digest']}` | {float(r['mean']):.4f} | {r['steps_per_s'] or '-'} |")
    assert machine is not None
    libraries = ", ".join(f"{k} {v}" for k, v in machine["libraries"].items())
    command_tail = "".join(f" --set {o}" for o in args.overrides)
    if args.config != "configs/mini-nerdle.toml":
        command_tail += f" --config {args.config}"
    text = "\n".join([
        "# Reproducibility of training across machines",
        "",
        f"Command: `python scripts/reproducibility.py --steps {args.steps}{command_tail}`. Machine: {machine['cpu']} "
        f"({machine['machine']}), Python {machine['python']}; {libraries}.",
        "",
        f"Every case trains `{args.config}` with seed 0 for the same number of steps, in a fresh "
        "process whose variables make torch take the code paths another CPU would take. *digest*: the first "
        "16 hex digits of a SHA-256 over the trained parameters (equal digests are bitwise-equal models); "
        "*mean*: the greedy policy's mean guesses over every answer. Speeds are noisy (a shared machine).",
        "",
        "| case | variables | numerics | threads | ATen / MKL in effect | digest | mean | steps/s |",
        "|---|---|---|---:|---|---|---:|---:|",
        *rows,
        "",
    ])
    atomic_write_text(args.out, text)
    print(f"wrote {args.out} ({platform.python_version()})")


if __name__ == "__main__":
    script_main(main)
