"""The documentation site: it builds with no warning, every registered id has its generated page
and picture, the references cover every command, option and module, and no internal link is dead."""

from __future__ import annotations

import argparse
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest
from PIL import Image

from guessgym.cli import build_parser
from guessgym.envs.families import guessgym_ids

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))


class PageLinks(HTMLParser):
    """The links, images and element ids of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.images: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        if tag == "a" and values.get("href"):
            self.hrefs.append(str(values["href"]))
        if tag == "img" and values.get("src"):
            self.images.append(str(values["src"]))


def parse(page: Path) -> PageLinks:
    links = PageLinks()
    links.feed(page.read_text(encoding="utf-8"))
    return links


# every test of the built site runs on one worker, which builds it once (test_browser.py's group)
pytestmark = pytest.mark.xdist_group("docs-site")

def test_every_registered_id_has_a_page_with_a_picture_of_a_game(site: Path) -> None:
    for env_id in guessgym_ids():
        page = site / "environments" / f"{env_id.split('/', 1)[1]}.html"
        assert page.is_file(), f"{env_id} has no page"
        html = page.read_text(encoding="utf-8")
        for heading in ("Action Space", "Observation Space", f"gymnasium.make(&quot;{env_id}&quot;)", "Description",
                        "Rewards", "Episode End", "Version History"):
            assert heading in html, f"{env_id}'s page lacks {heading!r}"
        pictures = [src for src in parse(page).images if src.endswith(".gif")]
        assert len(pictures) == 1, f"{env_id}'s page has {len(pictures)} pictures"
        with Image.open((page.parent / pictures[0]).resolve()) as gif:
            assert gif.n_frames >= 3, f"{env_id}'s picture is not a game being played"
            gif.seek(gif.n_frames - 1)
            colours = np.unique(np.asarray(gif.convert("RGB")).reshape(-1, 3), axis=0)
            assert len(colours) > 3  # coloured tiles, not a blank frame


def test_each_page_shows_its_own_game(site: Path) -> None:
    """No two ids share a picture; the chat page shows a conversation, the hard-mode page a refused guess."""
    pictures = {}
    for env_id in guessgym_ids():
        page = site / "environments" / f"{env_id.split('/', 1)[1]}.html"
        gif = next(src for src in parse(page).images if src.endswith(".gif"))
        pictures[env_id] = (page.parent / gif).resolve().read_bytes()
    assert len(set(pictures.values())) == len(pictures)
    chat = (site / "environments" / "WordleChat-v0.html").read_text(encoding="utf-8")
    assert "### assistant" in chat and "I play [" in chat and "Guess 2 of 6" in chat
    hard = (site / "environments" / "WordleHard-v1.html").read_text(encoding="utf-8")
    assert "refuses" in hard and "is not allowed" in hard


def subparsers(parser: argparse.ArgumentParser, prefix: str) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(prefix, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += subparsers(sub, f"{prefix} {name}")
    return found


def test_the_command_line_reference_has_every_command_and_every_option(site: Path) -> None:
    html = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    found = re.findall(r"<h[1-4][^>]*>(.*?)</h[1-4]>", html, re.S)
    headings = {" ".join(re.sub(r"<[^>]+>", " ", h).split()) for h in found}
    for command, parser in subparsers(build_parser(with_training=True), "guessgym"):
        assert any(h.startswith(command) for h in headings), f"no section for {command}"
        for action in parser._actions:
            for option in action.option_strings:
                assert option in html, f"{command} {option} is missing from the command-line reference"


def test_the_api_reference_documents_every_module(site: Path) -> None:
    """Every module but the deprecated names, on its package's page or on the page of its internals."""
    from guessgym_docs import API_PACKAGES, DEPRECATED_MODULES, INTERNAL_MODULES, modules_of

    for package in API_PACKAGES:
        html = (site / "reference" / "api" / f"{package}.html").read_text(encoding="utf-8")
        internals = site / "reference" / "api" / "internals" / f"{package}.html"
        if internals.is_file():
            html += internals.read_text(encoding="utf-8")
        for module in [package, *modules_of(package)]:
            if module not in DEPRECATED_MODULES:
                assert f'id="module-{module}"' in html, f"{module} is not in the API reference"
    assert all(m.rsplit(".", 1)[0] in API_PACKAGES for m in INTERNAL_MODULES | DEPRECATED_MODULES)


def test_the_research_notes_left_the_module_docstrings(site: Path) -> None:
    for page, module, phrase in (("minimax", "baselines/minimax.py", "Seed ambiguities and errors found"),
                                 ("clique", "baselines/clique.py", "Seed problems and the choices made here"),
                                 ("policies", "agents/policies.py", "Why not the default policy"),
                                 ("min-average", "baselines/min_average.py", "Seed claims and ambiguities")):
        assert phrase in (site / "research" / f"{page}.html").read_text(encoding="utf-8")
        assert phrase not in (ROOT / module).read_text(encoding="utf-8")


def test_no_internal_link_or_image_is_dead(site: Path) -> None:
    pages = {page: parse(page) for page in site.rglob("*.html")}
    dead = []
    for page, links in pages.items():
        for reference in [*links.hrefs, *links.images]:
            parts = urlsplit(reference)
            if parts.scheme or parts.netloc or reference.startswith(("mailto:", "javascript:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                dead.append(f"{page.relative_to(site)} -> {reference}")
            elif parts.fragment and target.suffix == ".html" and parts.fragment not in pages[target].ids:
                dead.append(f"{page.relative_to(site)} -> {reference} (no such anchor)")
    assert not dead, f"{len(dead)} dead links, e.g.:\n" + "\n".join(dead[:20])


def test_the_results_pages_show_the_committed_reports_and_their_pictures(site: Path) -> None:
    imported = site / "results" / "imported"
    leaderboard = (imported / "leaderboard.html").read_text(encoding="utf-8")
    assert "least-worst" in leaderboard and "3.5548" in leaderboard
    assert any(src.endswith(".png") for src in parse(imported / "leaderboard.html").images)
    outputs = (imported / "benchmark-outputs.html").read_text(encoding="utf-8")
    for output in sorted((ROOT / "results" / "benchmarks").glob("*.txt")):
        assert output.name in outputs
    assert re.search(r"53,512", (imported / "optimal.html").read_text(encoding="utf-8"))


def test_committed_pages_link_only_to_files_of_the_repository() -> None:
    """Read on their own (the repository view), the committed pages' links all lead somewhere: a
    page the site generates is linked through the repository file it is made from."""
    import subprocess

    root = ROOT
    tracked = set(subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True,
                                 check=True).stdout.split())
    folders = {str(Path(f).parent) for f in tracked} | {str(p) for f in tracked for p in Path(f).parents}
    dead = []
    for name in sorted(f for f in tracked if f.startswith("docs/") and f.endswith(".md")):
        page = root / name
        for href in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            path = href.split("#", 1)[0]
            if not path or re.match(r"^[a-z]+:", path):
                continue
            target = (page.parent / path).resolve().relative_to(root.resolve()).as_posix().rstrip("/")
            if target not in tracked and target not in folders:
                dead.append(f"{name}: {href}")
    assert dead == []


def test_the_api_reference_keeps_internals_apart(site: Path) -> None:
    from guessgym_docs import INTERNAL_MODULES

    public = (site / "reference" / "api" / "guessgym.envs.html").read_text(encoding="utf-8")
    internals = (site / "reference" / "api" / "internals" / "guessgym.envs.html").read_text(encoding="utf-8")
    for module in sorted(m for m in INTERNAL_MODULES if m.startswith("guessgym.envs.")):
        assert f'id="module-{module}"' not in public and f'id="module-{module}"' in internals, module
    assert 'id="module-guessgym.envs.env"' in public and "not a stable API" in internals
