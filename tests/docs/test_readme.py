"""The README is a front door: short, every link leads somewhere, and its leaderboard rows are the
committed report's."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_a_front_door_of_about_12_kb() -> None:
    assert len(README.encode()) <= 12_500


def test_every_link_and_picture_of_the_readme_exists() -> None:
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README) + re.findall(r'<img src="([^"]+)"', README)
    assert len(targets) > 10
    for target in targets:
        if target.startswith(("http://", "https://")):
            continue
        assert (ROOT / target).exists(), f"the README links to {target}, which does not exist"


def test_the_readme_leaderboard_rows_are_the_committed_reports() -> None:
    report = (ROOT / "results" / "main" / "leaderboard.md").read_text(encoding="utf-8")
    sections = dict(zip(["Wordle", "Nerdle"], re.split(r"^## guessgym/Nerdle-v1", report, flags=re.M)))
    rows = [line for line in README.splitlines() if line.startswith("| ") and "100.00" in line]
    assert len(rows) >= 5
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        for game, (win, mean, gap) in (("Wordle", cells[1:4]), ("Nerdle", cells[6:9])):
            pattern = rf"\| {re.escape(win)} \| {re.escape(mean)} \| [^|]+ \|[^\n]* \| {re.escape(gap)} \|"
            assert re.search(pattern, sections[game]), f"{game} row {cells} is not in results/main/leaderboard.md"


def test_every_exact_optimum_of_the_readme_is_a_proven_record() -> None:
    table = README.split("## The exact optima", 1)[1].split("\n## ", 1)[0]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()
            if line.startswith("| ") and not line.startswith("| game")]
    records = [json.loads(p.read_text()) for p in (ROOT / "results" / "optimal" / "records").glob("*.json")]
    proven = {(r["answers"], r["opener"], r["total"], f"{r['mean']:.4f}", r["max"])
              for r in records if r.get("proven") and r.get("scope") == "every opener"}
    assert len(rows) >= 7
    for game, answers, _, opener, total, longest in rows:
        figure, mean = re.fullmatch(r"([\d,]+) \(([\d.]+)\)", total).groups()  # type: ignore[union-attr]
        key = (int(answers.replace(",", "")), opener.lower(), int(figure.replace(",", "")), mean, int(longest))
        assert key in proven, f"README row {game!r}: {key} is no record proven over every opener"


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    command = next(line.strip() for line in README.splitlines()
                   if line.startswith("pip install") and "[test]" in line and "pytest" in line)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == command


def test_a_ci_job_runs_the_slow_tests_the_readmes_command_leaves_out() -> None:
    command = next(line.strip() for line in README.splitlines()
                   if line.startswith("pip install") and "[test]" in line and "pytest" in line)
    slow = (ROOT / ".ci" / "run-slow").read_text(encoding="utf-8").strip().splitlines()
    assert slow[-1] == f"{command} -m slow" and os.access(ROOT / ".ci" / "run-slow", os.X_OK)
