#!/usr/bin/env python
"""A screenshot of the game viewer of the main job's results, for the results folder.

Usage::

    python scripts/viewer_screenshot.py [--folder results/main] [--answer crane]

Writes ``FOLDER/report.html`` from every result in the folder (with the move analyses beside them,
as ``guessgym report`` does), opens it in headless Chromium, filters to one answer with two agents
side by side, and saves ``FOLDER/viewer.png``. Needs the docs extra (playwright) and Debian's chromium.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default=str(ROOT / "results" / "main"))
    parser.add_argument("--answer", default="crane")
    parser.add_argument("--agent", default="least-worst", help="the agent shown (its row is clicked)")
    parser.add_argument("--compare", default="optimal", help="the agent beside it")
    parser.add_argument("--game", default="wordle-5-nyt", help="the game of the agent's row")
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
        page = browser.new_page(viewport={"width": 1200, "height": 1250})
        page.goto(html.resolve().as_uri())
        rows = page.locator("#board-table tbody tr").filter(has_text=args.game)
        rows.filter(has_text=args.agent).first.click()
        page.select_option("#compare", label=args.compare)
        page.fill("#filter", args.answer)
        out = folder / "viewer.png"
        page.screenshot(path=str(out))
        browser.close()
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
