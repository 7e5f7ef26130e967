"""Each trainer's how-to page names the release its path is tested with, and that is the release the
tests run: the installed one for the extras, the lock's pin for integrations with an environment of
their own (issue 53: "one per framework, each with the release tested")."""

from __future__ import annotations

import importlib.metadata
import re

import pytest
from runnable import DOCS

ROOT = DOCS.parent
#: page -> (distribution, where its tested release comes from: "installed" or a lock file)
PAGES = {
    "skyrl.md": ("skyrl-gym", "installed"),
    "trl.md": ("trl", "installed"),
    "minari.md": ("minari", "installed"),
    "serve.md": ("openenv-core", "installed"),
    "verifiers.md": ("verifiers", "integrations/verifiers/requirements.lock"),
    "nemo-gym.md": ("nemo-gym", "integrations/nemo_gym/requirements.lock"),
}


def release_under_test(distribution: str, source: str) -> str:
    if source == "installed":
        try:
            return importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            pytest.skip(f"{distribution} is not installed here")
    pins = re.findall(rf"^{re.escape(distribution)}==(\S+)$", (ROOT / source).read_text(), flags=re.MULTILINE)
    assert len(pins) == 1, f"{source} pins {distribution} {len(pins)} times"
    return pins[0]


@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_page_names_the_release_its_tests_run(page: str) -> None:
    distribution, source = PAGES[page]
    release = release_under_test(distribution, source)
    text = (DOCS / "howto" / page).read_text(encoding="utf-8")
    named = {distribution, distribution.replace("-", " "), "NeMo Gym" if distribution == "nemo-gym" else ""}
    assert any(f"**{name} {release}**" in text or f"| {release}," in text for name in named if name), (
        f"{page} does not say it is tested with {distribution} {release}")

