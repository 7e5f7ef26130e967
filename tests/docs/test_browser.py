"""The built site in a real browser: headless Chromium (Debian's package) driven by Playwright.

The site is served on 127.0.0.1 by a server the test starts and stops (the search page fetches
pages, which a browser refuses over ``file://``). On the index, an environment page and the search
page: no console error, no failed request, no broken image, no dead internal link; the search finds
the environment. Screenshots go to the test's temporary folder (``scripts/docs_screenshots.py``
writes the committed ones).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))

from site_server import CHROMIUM_ARGS, chromium_path, serve  # docs/_ext, added above

# every test of the built site runs on one worker, which builds it once, while the others run the rest
# (the second worker sat 86 s waiting on the first's build)
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("docs-site")]

@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The site over HTTP on 127.0.0.1, stopped after the module's tests."""
    with serve(site) as address:
        yield address


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    if executable is None:
        pytest.skip("no Chromium (apt-get install chromium; .ci/run installs it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the docs extra installs playwright")
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, timeout=60_000)
        try:
            yield instance
        finally:
            instance.close()


def visit(browser: Any, url: str, screenshot: Path) -> dict[str, Any]:
    """Open ``url``; return its console errors, failed requests, broken images and internal links."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(30_000)
    errors: list[str] = []
    failed: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.on("response", lambda response: failed.append(f"{response.status} {response.url}")
            if response.status >= 400 else None)
    page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
    broken = page.eval_on_selector_all("img", "imgs => imgs.filter(i => !i.complete || i.naturalWidth === 0)"
                                              ".map(i => i.src)")
    links = page.eval_on_selector_all("a[href]", "as => as.map(a => a.href)")
    page.screenshot(path=str(screenshot), full_page=False)
    report = {"page": page, "errors": errors, "failed": failed, "broken": broken, "links": links}
    return report


def check_links(browser: Any, origin: str, links: list[str]) -> list[str]:
    """The internal links (and anchors) among ``links`` that lead nowhere."""
    request = browser.new_context().request
    dead = []
    for link in sorted(set(links)):
        if not link.startswith(origin):
            continue
        address, _, anchor = link.partition("#")
        response = request.get(address)
        if response.status != 200:
            dead.append(f"{link}: HTTP {response.status}")
        elif anchor and address.endswith(".html") and f'id="{anchor}"' not in response.text():
            dead.append(f"{link}: no such anchor")
    return dead


@pytest.mark.parametrize("path", ["index.html", "environments/Wordle-v1.html", "environments/Quordle-v0.html"])
def test_page_loads_cleanly(browser: Any, served: str, path: str, tmp_path: Path) -> None:
    shot = tmp_path / (path.replace("/", "_") + ".png")
    report = visit(browser, f"{served}/{path}", shot)
    assert not report["errors"], f"console errors on {path}: {report['errors']}"
    assert not report["failed"], f"failed requests on {path}: {report['failed']}"
    assert not report["broken"], f"broken images on {path}: {report['broken']}"
    assert check_links(browser, served, report["links"]) == []
    assert report["page"].locator("figure img").count() >= 1
    assert shot.stat().st_size > 10_000


def test_search_finds_an_environment(browser: Any, served: str, tmp_path: Path) -> None:
    shot = tmp_path / "search.png"
    report = visit(browser, f"{served}/search.html?q=Absurdle", shot)
    page = report["page"]
    page.wait_for_selector("#search-results li", timeout=30_000)
    results = page.eval_on_selector_all("#search-results li a", "as => as.map(a => a.href)")
    page.screenshot(path=str(shot), full_page=False)
    assert any(link.endswith("environments/Absurdle-v0.html") for link in results), results
    assert not report["errors"], f"console errors on the search page: {report['errors']}"
    assert not report["failed"], report["failed"]
    assert check_links(browser, served, report["links"]) == []


@pytest.mark.parametrize("path", ["reference/cli.html", "environments/WordleHard-v1.html"])
def test_long_table_cells_wrap_instead_of_scrolling(browser: Any, served: str, path: str, tmp_path: Path) -> None:
    """Option descriptions of hundreds of characters (the command-line reference), a long space in
    code (an environment's table): each table fits the page's content column (no sideways
    scrolling), and no cell is wider than a reading column."""
    report = visit(browser, f"{served}/{path}", tmp_path / "page.png")
    page = report["page"]
    widest_cell = page.eval_on_selector_all("table.docutils td", "cells => Math.max(...cells.map(c => c.offsetWidth))")
    overflowing = page.eval_on_selector_all(
        ".table-wrapper", "ws => ws.filter(w => w.scrollWidth > w.clientWidth + 1).length")
    assert widest_cell <= 36 * 16 + 40
    assert overflowing == 0


def test_the_opener_table_finds_an_opener_and_the_openers_page_draws_its_picture(
        browser: Any, served: str, tmp_path: Path) -> None:
    """Issue 52: every opener of the shipped tables, searchable in the browser."""
    report = visit(browser, f"{served}/openers-table.html", tmp_path / "openers-table.png")
    page = report["page"]
    normal, hard = page.locator(".opener-table").nth(0), page.locator(".opener-table").nth(1)
    assert normal.locator("tbody tr").count() == 200  # the first rows, until the reader types
    assert "Showing 200 of 12,947" in normal.locator(".opener-count").inner_text()
    assert normal.locator("tbody tr").first.locator("td").all_inner_texts()[:3] == ["1", "salet", "7,897"]
    normal.locator(".opener-search").fill("CRANE")
    cells = [row.locator("td").all_inner_texts() for row in normal.locator("tbody tr").all()]
    assert ["crane", "7,907", "3.4244", "0.0043"] in [c[1:] for c in cells]
    hard.locator(".opener-search").fill("trace")
    marked = [row.locator("td").all_inner_texts() for row in hard.locator("tbody tr").all()]
    assert any(c[0] == "\u2020" and c[1] == "trace" and c[4] == "" for c in marked)  # apart: no rank, no loss
    normal.locator(".opener-search").fill("<img src=x>")
    assert normal.locator(".opener-count").inner_text() == "No opener matches."
    page.screenshot(path=str(tmp_path / "openers-table-search.png"), full_page=False)
    assert not report["errors"] and not report["failed"], (report["errors"], report["failed"])
    assert check_links(browser, served, report["links"]) == []
    openers = visit(browser, f"{served}/openers.html", tmp_path / "openers.png")
    assert not openers["broken"] and not openers["errors"] and not openers["failed"]
    assert openers["page"].locator("img[src*='openers-values']").count() == 1
    assert check_links(browser, served, openers["links"]) == []
