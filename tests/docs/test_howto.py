"""The how-to guides and the quickstart run as written (every python and bash block, in order)."""

from __future__ import annotations

from pathlib import Path

import pytest
from runnable import DOCS, run_page, runnable_blocks

PAGES = sorted(p for p in (DOCS / "howto").glob("*.md") if p.name != "index.md") + [DOCS / "quickstart.md",
                                                                                    DOCS / "usage.md",
                                                                                    DOCS / "analysis.md"]


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_page_runs_as_written(page: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    pytest.importorskip("torch")
    assert runnable_blocks(page), f"{page.name} has nothing to run"
    run_page(page, tmp_path)


def test_every_how_to_page_is_listed_in_the_index() -> None:
    index = (DOCS / "howto" / "index.md").read_text(encoding="utf-8")
    for page in PAGES[:-3]:
        assert f"\n{page.stem}\n" in index, f"{page.name} is not in docs/howto/index.md"
