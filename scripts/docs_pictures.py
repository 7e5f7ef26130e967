#!/usr/bin/env python
"""The committed pictures of the documentation: the README's board and screenshots of the site.

Usage::

    python scripts/docs_pictures.py             # the board, then build the site and screenshot it
    python scripts/docs_pictures.py --no-site   # the board only

Writes ``docs/_static/wordle-game.gif`` (a game of ``guessgym/Wordle-v1`` drawn by its own
``rgb_array`` render, the same demo game as its page) and, from a fresh build served on
127.0.0.1 and opened in headless Chromium, ``docs/_static/screenshots/index.png`` and
``docs/_static/screenshots/wordle-v1.png``. Needs the docs extra and Debian's chromium.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import guessgym_docs  # noqa: E402  (from docs/_ext, added above)
from site_server import CHROMIUM_ARGS, chromium_path, serve  # noqa: E402

STATIC = ROOT / "docs" / "_static"
PAGES = {"index.png": "index.html", "wordle-v1.png": "environments/Wordle-v1.html"}


def board() -> Path:
    frames, guesses, _ = guessgym_docs.demo_frames("guessgym/Wordle-v1")
    out = STATIC / "wordle-game.gif"
    guessgym_docs.save_gif(frames, out)
    print(f"{out.relative_to(ROOT)}: {len(frames)} frames, guesses {' '.join(guesses)}")
    return out


def screenshots() -> None:
    from playwright.sync_api import sync_playwright

    chromium = chromium_path()
    if chromium is None:
        raise SystemExit("no Chromium: apt-get install chromium")
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "html"
        subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(ROOT / "docs"),
                        str(site)], check=True, cwd=ROOT, timeout=900)
        with serve(site) as address, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, timeout=60_000)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            for name, path in PAGES.items():
                page.goto(f"{address}/{path}", wait_until="networkidle")
                page.wait_for_timeout(5_000)  # the game's picture plays to its last frame
                out = STATIC / "screenshots" / name
                out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(out))
                print(f"{out.relative_to(ROOT)}: {path}")
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-site", action="store_true", help="draw the board only")
    args = parser.parse_args()
    board()
    if not args.no_site:
        screenshots()


if __name__ == "__main__":
    main()
