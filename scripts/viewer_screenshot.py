#!/usr/bin/env python
"""Screenshots of the game viewer of the main job's results, for the results folder.

Usage::

    python scripts/viewer_screenshot.py [--folder results/main]

Writes ``FOLDER/report.html`` from every result in the folder (with the move analyses beside them,
as ``guessgym report`` does), opens it in headless Chromium and, for each of :data:`SHOTS`, clicks
an agent's row, puts a second agent beside it, filters to one answer and saves the page:
``viewer.png`` (Wordle, least-worst and the optimum on CRANE) and ``viewer-nerdle.png`` (classic
Nerdle, the learned policy and the optimum, with its loss by move). Needs the docs extra
(playwright) and Debian's chromium.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

from site_server import CHROMIUM_ARGS, chromium_path  # noqa: E402  (docs/_ext, added above)

from guessgym.cli import main as guessgym  # noqa: E402

#: (file, game of the row, agent of the row, agent beside it, answer)
SHOTS = (
    ("viewer.png", "wordle-5-nyt", "least-worst", "optimal", "crane"),
    ("viewer-nerdle.png", "nerdle", "learned-maskable_ppo", "optimal", "3*8-9=15"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default=str(ROOT / "results" / "main"))
    args = parser.parse_args()
    folder = Path(args.folder)
    results = sorted(str(p) for p in folder.glob("*.json"))
    html = folder / "report.html"
    if guessgym(["report", *results, "--html", str(html), "--title", "guessgym main job"]) != 0:
        raise SystemExit(1)
    from playwright.sync_api import sync_playwright

    chromium = chromium_path()
    if chromium is None:
        raise SystemExit("no Chromium: apt-get install chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, timeout=60_000)
        for name, game, agent, compare, answer in SHOTS:
            page = browser.new_page(viewport={"width": 1200, "height": 1250})
            errors: list[str] = []
            page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
            page.goto(html.resolve().as_uri())
            rows = page.locator("#board-table tbody tr").filter(has_text=game)
            rows.filter(has_text=agent).first.click()
            page.select_option("#compare", label=compare)
            page.fill("#filter", answer)
            if page.locator(".game .board").count() != 2 or errors:
                raise SystemExit(f"{name}: the boards of {agent} and {compare} on {answer} are not shown ({errors})")
            page.screenshot(path=str(folder / name))
            page.close()
            print(f"wrote {folder / name}")
        browser.close()


if __name__ == "__main__":
    main()
