"""Release packaging: the wheel's contents and metadata, and a core-only install that works.

* The wheel holds one top-level package, ``guessgym`` (nothing named ``envs``, ``agents``,
  ``baselines`` or ``training`` that would shadow other distributions), its type marker and every
  word list; its core requirements are the light ones (no torch).
* A fresh virtual environment with the wheel and its core dependencies only (pip resolves them
  from the package index, as a user's install does) runs the README quickstart, ``guessgym list``
  and a small ``guessgym evaluate``; learned agents fail with one line naming the ``train`` extra;
  ``import envs`` fails.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from filelock import FileLock
from integration_venvs import without_python_paths

ROOT = Path(__file__).resolve().parents[2]
CORE = {"gymnasium", "numpy", "numba", "pillow", "tqdm"}
HEAVY = {"torch", "stable-baselines3", "sb3-contrib", "tensorboard", "matplotlib", "ray"}


def readme_quickstart() -> str:
    """The first Python block after the README's Quickstart heading."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Quickstart"):]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match is not None, "the README's Quickstart has no python block"
    return match.group(1)


def _build_wheel(out: Path) -> Path:
    done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    wheels = list(out.glob("guessgym-*.whl"))
    assert len(wheels) == 1
    return wheels[0]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built once per run: two workers building at once share setuptools' ``build/``
    folder in the checkout and break each other's build."""
    pytest.importorskip("build", reason="the build package is in the test extra")
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return _build_wheel(tmp_path_factory.mktemp("dist"))
    shared = tmp_path_factory.getbasetemp().parent / "dist"
    with FileLock(str(shared) + ".lock", timeout=900):
        if shared.is_dir() and len(wheels := list(shared.glob("guessgym-*.whl"))) == 1:
            return wheels[0]
        shared.mkdir(exist_ok=True)
        return _build_wheel(shared)


def test_wheel_contents_and_metadata(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(metadata_name).decode())
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"guessgym"}
    for name in ("guessgym/py.typed", "guessgym/envs/engine.py", "guessgym/envs/chat/env.py",
                 "guessgym/agents/registry.py", "guessgym/agents/llm/client.py",
                 "guessgym/baselines/minimax.py", "guessgym/training/train.py", "guessgym/cli/__init__.py",
                 "guessgym/evaluation/evaluate.py", "guessgym/infra/pool.py",
                 "guessgym/evaluation/viewer_assets/viewer.js", "guessgym/evaluation/viewer_assets/viewer.html",
                 "guessgym/envs/data/PROVENANCE.md", "guessgym/envs/data/english/SCOWL-COPYRIGHT.txt"):
        assert name in names, name
    for words in ("answers_2309.txt", "allowed_12947.txt", "answers_2315.txt", "allowed_12972.txt"):
        assert f"guessgym/envs/data/wordle/{words}" in names
    from guessgym.agents.pretrained import available

    for model in available():  # the shipped models and their cards
        assert {f"guessgym/agents/pretrained/{model}.zip", f"guessgym/agents/pretrained/{model}.json"} <= set(names)
    for size in (50, 70):
        for length in range(3, 10):
            assert f"guessgym/envs/data/english/scowl{size}/len{length}.txt" in names
    requires = metadata.get_all("Requires-Dist") or []
    core = {re.split(r"[<>=!~; \[]", r)[0].lower() for r in requires if "extra ==" not in r}
    assert core == CORE
    assert not core & HEAVY
    extras = set(metadata.get_all("Provides-Extra") or [])
    assert {"train", "plots", "ray", "llm", "trl", "docs", "dev", "test", "all"} <= extras
    assert metadata["Version"] == __import__("guessgym").__version__  # one place: guessgym/__init__.py
    assert metadata["License-Expression"] == "MIT"  # the code's licence; the word lists keep theirs
    licence = next(n for n in names if n.endswith(".dist-info/licenses/LICENSE"))
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read(licence).decode().startswith("MIT License")


def test_the_citation_file_names_the_licence_and_version() -> None:
    """CITATION.cff (GitHub's and Zenodo's citation format) agrees with the package metadata."""
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    fields = dict(line.split(": ", 1) for line in text.splitlines() if re.match(r"^[a-z-]+: ", line))
    assert fields["cff-version"] == "1.2.0" and fields["license"] == "MIT"
    assert fields["version"].strip('"') == __import__("guessgym").__version__


def test_the_release_metadata_passes_twine_check(wheel: Path) -> None:
    """The release is ``python -m build && python -m twine check --strict dist/*`` (docs/install.md)."""
    pytest.importorskip("twine", reason="the dev extra (in the test extra) has twine")
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(wheel)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "PASSED" in done.stdout, done.stdout + done.stderr


def test_core_only_install_runs_the_quickstart_and_the_cli(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    own = without_python_paths()
    install = subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(wheel)],
                             capture_output=True, text=True, timeout=900, env=own)
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True,
                            env=own, timeout=120)
    installed = {line.split("==")[0].lower() for line in listed.stdout.splitlines()}
    assert not installed & HEAVY, f"a core install pulled {sorted(installed & HEAVY)}"

    work = tmp_path / "work"  # not the checkout: only the installed package can be imported
    work.mkdir()
    cache = {"GUESSGYM_CACHE_DIR": str(tmp_path / "cache"), "PATH": str(env_dir / "bin")}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(argv), cwd=work, capture_output=True, text=True, timeout=900, env=cache)

    quick = run(str(python), "-c", readme_quickstart())
    assert quick.returncode == 0, quick.stderr[-3000:]
    assert "YYBBG 26" in quick.stdout
    assert "3.5548" in quick.stdout  # least-worst's mean over every Wordle answer

    listing = run(str(env_dir / "bin" / "guessgym"), "list")
    assert listing.returncode == 0, listing.stderr
    assert "guessgym/Nerdle-v1" in listing.stdout and "least-worst" in listing.stdout

    evaluated = run(str(env_dir / "bin" / "guessgym"), "evaluate", "--env", "guessgym/MicroNerdle-v1",
                    "--agent", "expected-size", "--answers", "20", "--no-progress")
    assert evaluated.returncode == 0, evaluated.stderr
    assert "| expected-size | micro-nerdle | 20 | 100.00 |" in evaluated.stdout

    model = work / "model.zip"
    model.write_bytes(b"not a model")
    learned = run(str(env_dir / "bin" / "guessgym"), "evaluate", "--env", "guessgym/MicroNerdle-v1",
                  "--agent", f"model:{model}", "--no-progress")
    assert learned.returncode == 2
    assert learned.stderr.count("\n") == 1 and 'pip install "guessgym[train]"' in learned.stderr

    shipped = run(str(env_dir / "bin" / "guessgym"), "pretrained")  # the cards need no torch
    assert shipped.returncode == 0 and "pretrained:mini-nerdle" in shipped.stdout, shipped.stderr
    pretrained = run(str(env_dir / "bin" / "guessgym"), "evaluate", "--agent", "pretrained:mini-nerdle",
                     "--no-progress")
    assert pretrained.returncode == 2
    assert pretrained.stderr.count("\n") == 1 and 'pip install "guessgym[train]"' in pretrained.stderr
    # The command the message names works for a package that is on no index: pip takes the
    # installed guessgym as satisfying "guessgym[train]" and would fetch only the extra's packages.
    extra = run(str(python), "-m", "pip", "install", "--dry-run", "--no-deps", "--no-index", "guessgym[train]")
    assert extra.returncode == 0 and "Requirement already satisfied: guessgym[train]" in extra.stdout, extra.stderr

    for name in ("envs", "agents", "baselines", "training"):
        shadow = run(str(python), "-c", f"import {name}")
        assert shadow.returncode != 0 and "ModuleNotFoundError" in shadow.stderr, name
