"""Every source a baseline cites is a reference a reader can look up, listed on the research page."""

from __future__ import annotations

from pathlib import Path

from guessgym.baselines import BASELINES
from guessgym.baselines.sources import SOURCES, sources_markdown

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_research_page_lists_every_source_as_the_code_does() -> None:
    assert sources_markdown() in (DOCS / "research" / "index.md").read_text(encoding="utf-8")


def test_every_source_is_cited_and_no_docstring_names_a_file_instead() -> None:
    cited = " ".join((cls.__doc__ or "") for cls in BASELINES.values())
    for source in SOURCES.values():
        assert source.document not in cited
    assert all(any(s.short in (cls.__doc__ or "") for s in SOURCES.values())
               for name, cls in BASELINES.items() if name not in ("random-consistent", "optimal", "most-buckets"))
