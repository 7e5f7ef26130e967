"""The refutation benchmark's presets name real openers of their games and the totals the proofs
refute against (a typo would only surface after a minute of matrix loading, or never)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from guessgym.envs.game import make_game

ROOT = Path(__file__).resolve().parents[2]


def load_bench_refute(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The benchmark as a module; the path entries it adds for its sibling imports end with the test."""
    monkeypatch.setattr(sys, "path", [str(ROOT / "benchmarks"), *sys.path])
    spec = importlib.util.spec_from_file_location("bench_refute", ROOT / "benchmarks" / "bench_refute.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BEST = {  # the records the proofs start from
    "wordle": "results/optimal/records/wordle-nyt-salet.json",
    "wordle-nyt2023": "results/optimal/records/wordle-nyt2023-tarse.json",
    "nerdle-all": "results/optimal/records/nerdle-all-top20.json",
}


@pytest.mark.parametrize("name", sorted(BEST))
def test_each_preset_refutes_real_openers_against_the_recorded_best(name: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    games = load_bench_refute(monkeypatch).GAMES
    env_id, kwargs, bound, openers = games[name]
    record = json.loads((ROOT / BEST[name]).read_text(encoding="utf-8"))
    game = make_game(env_id, **kwargs)
    assert (game.fingerprint, bound) == (record["fingerprint"], record["total"])  # the same lists, the same best
    assert [w for w in openers if w not in game.guess_index] == []
    assert len(set(openers)) == len(openers) >= 5
