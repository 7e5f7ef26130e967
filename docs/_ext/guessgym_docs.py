"""Pages the documentation generates from the code and the committed results when it builds.

* one page per registered environment (``environments/<Name>.md``): the Gymnasium table (action
  space, observation space, ``gymnasium.make`` call), an animated picture of a game drawn by the
  environment's own ``rgb_array`` render, and the entry point's docstring sections;
* the command-line reference (``reference/cli.md``), walked from ``guessgym``'s argument parser;
* the API reference (``reference/api/*.md``), one page per package, an ``automodule`` per module;
* the results (``results/imported/``): the committed Markdown reports of ``results/`` with their
  pictures, links to other reports kept and links to data files written as their repository path.

Every generated file is git-ignored and rewritten only when its text changes, so an incremental
build stays incremental. Nothing here is hand-maintained: a new id, option or module appears in the
next build.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import pkgutil
import re
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from sphinx.application import Sphinx

import guessgym
from guessgym.envs.families import family_of, guessgym_ids

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
#: The answer every demo game is drawn from.
DEMO_SEED = 7
#: The widest a demo picture is drawn (pixels); larger boards are scaled down.
DEMO_WIDTH = 720


# ---- writing ----------------------------------------------------------------------------------------
def write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` unless it already holds exactly that."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)


def page_name(env_id: str) -> str:
    """The page of an id: ``guessgym/Wordle-v1`` -> ``Wordle-v1``."""
    return env_id.split("/", 1)[1]


# ---- docstrings -------------------------------------------------------------------------------------
_ROLE = re.compile(r":(class|func|meth|mod|attr|data|exc|obj):`([^`]+)`")
_LITERAL = re.compile(r"``(.+?)``")


def rst_to_myst(text: str) -> str:
    """The reStructuredText of a docstring in MyST Markdown: roles and literals (the rest, headings
    and bullet lists, is written to read the same in both)."""
    text = _ROLE.sub(lambda m: "{py:" + m.group(1) + "}`" + m.group(2) + "`", text)
    return _LITERAL.sub(lambda m: "`" + m.group(1) + "`", text)


def docstring_sections(cls: type) -> list[tuple[str, str]]:
    """The ``## Section`` parts of a class docstring, in order, as (title, MyST body)."""
    doc = inspect.cleandoc(cls.__doc__ or "")
    sections: list[tuple[str, str]] = []
    title, lines = "", []
    for line in doc.splitlines():
        if line.startswith("## "):
            if title:
                sections.append((title, rst_to_myst("\n".join(lines).strip())))
            title, lines = line[3:].strip(), []
        elif title:
            lines.append(line)
    if title:
        sections.append((title, rst_to_myst("\n".join(lines).strip())))
    return sections


def summary_line(cls: type) -> str:
    """The first paragraph of a class docstring, in MyST."""
    doc = inspect.cleandoc(cls.__doc__ or "")
    return rst_to_myst(" ".join(doc.split("\n\n", 1)[0].split()))


# ---- spaces -----------------------------------------------------------------------------------------
def describe_space(space: gym.Space[Any]) -> str:
    """A space in one short line: sizes, not the arrays behind them."""
    if isinstance(space, gym.spaces.Dict):
        return "Dict(" + ", ".join(f"{key}: {describe_space(sub)}" for key, sub in space.spaces.items()) + ")"
    if isinstance(space, gym.spaces.MultiDiscrete):
        values = np.unique(space.nvec)
        each = f"{int(values[0])} values each" if len(values) == 1 else "values " + "/".join(map(str, values))
        return f"MultiDiscrete({space.nvec.size} cells, {each})"
    if isinstance(space, gym.spaces.MultiBinary):
        return f"MultiBinary({int(np.prod(space.shape))})"
    if isinstance(space, gym.spaces.Text):
        return f"{type(space).__name__}(up to {space.max_length:,} characters)"
    return repr(space)


# ---- demo games -------------------------------------------------------------------------------------
def opener(game: Any) -> str | None:
    """The opener of the game's shipped optimum (the same game in plain play), if one is known."""
    from guessgym.agents.optima import known_optimum

    optimum = known_optimum(game.replace(hard_mode=False, max_attempts=6))
    return optimum.opener if optimum is not None else None


def next_action(base: Any, obs: Any, first: bool) -> Any:
    """The demo player: the optimum's opener, then the first answer still consistent with the
    tiles (of the board with the fewest left); an index, or for a chat game the reply that plays it."""
    family = base.family
    game = base.game
    word = opener(game) if first else None
    if word is None:
        if family.text_actions:
            word = game.answers[int(base.env.candidates[0])]
        elif not (family.fixed_answer or family.adversarial):  # several boards
            left = [c for c, solved in zip(base.candidates, obs["solved"]) if not solved]
            word = game.answers[int(min(left, key=len)[0])]  # the board closest to solved
        else:
            word = game.answers[int(base.candidates[0])]
    return f"I play [{word}]" if family.text_actions else int(game.guess_index[word])


def demo_frames(env_id: str) -> tuple[list[np.ndarray], list[str], dict[str, str]]:
    """Play one game of ``env_id`` (seed :data:`DEMO_SEED`) and return the frames of its picture, the
    guesses, and what the page says about the game besides (``"refused"``: in hard mode, the guess
    the rules refused and why; ``"exchange"``: for a chat game, the text after two turns).

    The frames are the environment's own ``rgb_array`` render, the first before any guess; a chat
    game is drawn as its conversation, turn by turn (its board would be the plain game's); in hard
    mode, after the first guess whose tiles forbid one the player tries a guess the rule forbids, and that
    frame says so."""
    env = gym.make(env_id, render_mode="rgb_array")
    base = env.unwrapped
    obs, info = env.reset(seed=DEMO_SEED)
    text = base.family.text_actions
    frames, guesses, notes = [conversation_frame(obs) if text else env.render()], [], {}
    done = False
    while not done:
        forbidden = np.flatnonzero(np.asarray(info.get("action_mask", [])) == 0)
        if guesses and getattr(base.game, "hard_mode", False) and "refused" not in notes and forbidden.size:
            refused = int(forbidden[0])  # none after tiles that hint nothing (all grey): tried after the next guess
            _, _, _, _, verdict = env.step(refused)
            notes["refused"] = verdict["invalid_reason"]
            frames.append(captioned(env.render(), f"refused, {notes['refused']}"))
            continue
        action = next_action(base, obs, first=not guesses)
        obs, _, done, _, info = env.step(action)
        frames.append(conversation_frame(obs) if text else env.render())
        guesses.append(info["guess"])
        if text and len(guesses) == 2:
            notes["exchange"] = obs
    env.close()
    return frames, guesses, notes


_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"


def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.truetype(_FONT, size)
    except OSError:  # another system's fonts: Pillow's own
        return ImageFont.load_default(size=size)


def conversation_frame(transcript: str, width: int = 96) -> np.ndarray:
    """A chat game's conversation so far as a picture: the system prompt, then each turn, the
    model's replies on blue, wrapped at ``width`` characters (tile emoji left out: the letters
    ``G Y B`` beside them say the same)."""
    import textwrap

    from PIL import Image, ImageDraw

    rows: list[tuple[str, str]] = []
    role = "system"
    for line in transcript.splitlines():
        if line.startswith("### "):
            role = line[4:].strip()
            rows.append((role, line[4:].upper()))
            continue
        line = "".join(ch for ch in line if ord(ch) < 0x2000).rstrip()
        rows += [(role, part) for part in (textwrap.wrap(line, width) or [""])]
    font, step = _font(14), 18
    image = Image.new("RGB", (width * 9 + 24, step * len(rows) + 24), "white")
    draw = ImageDraw.Draw(image)
    shades = {"system": "#f3f3f3", "user": "#ffffff", "assistant": "#dbe9ff"}
    for i, (role, line) in enumerate(rows):
        y = 12 + i * step
        draw.rectangle((0, y, image.width, y + step), fill=shades.get(role, "#ffffff"))
        bold = line.isupper() and line.strip().lower() in shades
        draw.text((12, y + 1), line, fill="#6a6a6a" if bold else "#111111", font=font)
    return np.asarray(image)


def captioned(frame: np.ndarray, caption: str) -> np.ndarray:
    """``frame`` with ``caption`` in red on a band below it (wrapped to the frame's width)."""
    import textwrap

    from PIL import Image, ImageDraw

    font, step = _font(15), 20
    lines = textwrap.wrap(caption, max(20, frame.shape[1] // 9))
    image = Image.new("RGB", (frame.shape[1], frame.shape[0] + step * len(lines) + 16), "white")
    image.paste(Image.fromarray(frame), (0, 0))
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((10, frame.shape[0] + 8 + i * step), line, fill="#b0413e", font=font)
    return np.asarray(image)


def save_gif(frames: list[np.ndarray], path: Path) -> None:
    """An animated GIF of ``frames`` (padded to the largest, scaled to at most :data:`DEMO_WIDTH`)."""
    from PIL import Image

    height = max(f.shape[0] for f in frames)
    width = max(f.shape[1] for f in frames)
    scale = min(1.0, DEMO_WIDTH / width)
    images = []
    for frame in frames:
        canvas = np.full((height, width, 3), 255, dtype=np.uint8)
        canvas[: frame.shape[0], : frame.shape[1]] = frame
        image = Image.fromarray(canvas)
        if scale < 1.0:
            image = image.resize((round(width * scale), round(height * scale)), Image.Resampling.LANCZOS)
        images.append(image)
    durations = [700] * (len(images) - 1) + [2500]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.gif")
    images[0].save(tmp, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=True)
    tmp.replace(path)


# ---- environment pages ------------------------------------------------------------------------------
def environment_page(env_id: str, picture: str, guesses: list[str], notes: dict[str, str] | None = None) -> str:
    """The MyST page of one registered id."""
    spec = gym.spec(env_id)
    family = family_of(env_id)
    assert family is not None
    env = gym.make(env_id)
    base = env.unwrapped
    cls = type(base)
    game = base.game
    entry = f"{cls.__module__}.{cls.__qualname__}"
    kwargs = ", ".join(f"{k}={v!r}" for k, v in spec.kwargs.items())
    answers = f"{len(game.answers):,}"
    rows = [
        ("Action Space", f"`{describe_space(env.action_space)}`"),
        ("Observation Space", f"`{describe_space(env.observation_space)}`"),
        ("import", f'`gymnasium.make("{env_id}")`'),
        ("Entry point", "{py:class}`" + entry + "`" + (f" with `{kwargs}`" if kwargs else "")),
        ("Game", f"{game.name}: {answers} answers, {len(game.guesses):,} guesses, length {game.length}"),
        ("Family", f"{family.name} ({family.summary})" if family.summary else family.name),
        ("Render modes", ", ".join(f"`{m}`" for m in cls.metadata["render_modes"])),
    ]
    env.close()
    lines = [f"# {env_id}", "", summary_line(cls), "",
             "| | |", "|---|---|", *[f"| {name} | {value} |" for name, value in rows], "",
             *figure_lines(env_id, family, picture, guesses, notes or {})]
    for title, body in docstring_sections(cls):
        lines += [f"## {title}", "", body, ""]
    return "\n".join(lines)


def figure_lines(env_id: str, family: Any, picture: str, guesses: list[str], notes: dict[str, str]) -> list[str]:
    """The page's picture and what it shows: a game, a refused guess in hard mode, a conversation."""
    played = ", ".join(f"`{g}`" for g in guesses)
    boards = " of the board with the fewest left" if not (family.fixed_answer or family.adversarial) else ""
    if family.text_actions:
        drawn = (f"A game of `{env_id}` (`reset(seed={DEMO_SEED})`) as the model reads it, turn by turn: the "
                 f"system prompt, then each reply (blue) and the tiles it got; the replies play {played}.")
    else:
        drawn = (f"A game of `{env_id}` (`reset(seed={DEMO_SEED})`), drawn by its own `rgb_array` render; each "
                 f"guess after the opener is the first answer still consistent with the tiles{boards}: {played}.")
    if "refused" in notes:
        drawn += (f" Then the player tries a guess the hard-mode rule forbids: the environment refuses "
                  f"it without using an attempt (`info[\"invalid_action\"]`), giving the reason in "
                  f"`info[\"invalid_reason\"]`: {notes['refused']}.")
    lines = [f"```{{figure}} {picture}", f":alt: a game of {env_id}, frame by frame", "", drawn, "```", ""]
    if "exchange" in notes:
        lines += ["The observation after two turns (the text the next reply answers):", "",
                  "````text", notes["exchange"], "````", ""]
    return lines


def generate_environment_pages() -> list[str]:
    """Write every registered id's page and picture; return the page names."""
    names = []
    for env_id in guessgym_ids():
        name = page_name(env_id)
        frames, guesses, notes = demo_frames(env_id)
        save_gif(frames, DOCS / "environments" / "_pictures" / f"{name}.gif")
        write_if_changed(DOCS / "environments" / f"{name}.md",
                         environment_page(env_id, f"_pictures/{name}.gif", guesses, notes))
        names.append(name)
    write_if_changed(DOCS / "environments" / "registered.md", registered_toctree(names))
    return names


def registered_toctree(names: list[str]) -> str:
    """The table and toctree of every registered id."""
    lines = ["# Every registered id", "",
             "One page per id, generated from its environment class when the site builds.", "",
             "| id | family | game |", "|---|---|---|"]
    for env_id, name in zip(guessgym_ids(), names):
        family = family_of(env_id)
        spec = gym.spec(env_id)
        detail = ", ".join(f"{k}={v}" for k, v in spec.kwargs.items())
        lines.append(f"| [{env_id}]({name}.md) | {family.name if family else ''} | {detail} |")
    lines += ["", "```{toctree}", ":hidden:", "", *names, "```", ""]
    return "\n".join(lines)


# ---- command-line reference -------------------------------------------------------------------------
def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser, str]]:
    """(name, parser, help) of each subcommand of ``parser``, in order."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                found.append((name, sub, helps.get(name, "")))
    return found


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def option_rows(parser: argparse.ArgumentParser) -> list[str]:
    """A Markdown table of every argument of ``parser`` (not its subcommands)."""
    rows = ["| argument | meaning | default |", "|---|---|---|"]
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        names = ", ".join(action.option_strings) or action.dest
        if action.option_strings and action.nargs != 0:
            names += f" {action.metavar or action.dest.upper()}" if not isinstance(action.metavar, tuple) else ""
        if action.choices and not action.option_strings:
            names = f"{action.dest} ({', '.join(map(str, action.choices))})"
        hidden = action.default is None or action.default is argparse.SUPPRESS or action.nargs == 0
        default = "" if hidden else action.default
        help_text = (action.help or "") % {"default": action.default} if "%(" in (action.help or "") else action.help
        if action.choices and action.option_strings:
            help_text = f"{help_text or ''} (one of: {', '.join(map(str, action.choices))})".strip()
        shown = _cell(repr(default)) if default != "" else ""
        rows.append(f"| `{_cell(names)}` | {_cell(help_text or '')} | {shown} |")
    return rows


def cli_page() -> str:
    """The command-line reference: every subcommand, every option, from the parser itself."""
    from guessgym.cli import build_parser

    parser = build_parser(with_training=True)
    lines = ["# Command-line reference", "",
             "Generated from `guessgym`'s argument parser when the site builds: every command and every option. "
             "`guessgym COMMAND --help` prints the same.", "",
             "```text", parser.format_usage().strip(), "```", "", *option_rows(parser), ""]

    def walk(sub: argparse.ArgumentParser, name: str, help_text: str, depth: int) -> None:
        nonlocal lines
        lines += [f"{'#' * depth} `{name}`", "", _cell(sub.description or help_text), "",
                  "```text", sub.format_usage().strip(), "```", ""]
        if len(option_rows(sub)) > 2:
            lines += [*option_rows(sub), ""]
        if sub.epilog:
            lines += ["```text", sub.epilog.strip(), "```", ""]
        for child, child_parser, child_help in _subcommands(sub):
            walk(child_parser, f"{name} {child}", child_help, min(depth + 1, 4))

    for name, sub, help_text in _subcommands(parser):
        walk(sub, f"guessgym {name}", help_text, 2)
    return "\n".join(lines)


# ---- API reference ----------------------------------------------------------------------------------
#: The packages with a page each, in the order of the layers, top last.
API_PACKAGES = ("guessgym.infra", "guessgym.envs", "guessgym.envs.chat", "guessgym.agents", "guessgym.agents.llm",
                "guessgym.baselines", "guessgym.evaluation", "guessgym.training", "guessgym.adapters",
                "guessgym.serving", "guessgym.cli", "guessgym")


def modules_of(package: str) -> list[str]:
    """The modules directly inside ``package`` (not its subpackages), sorted; ``__main__`` left out."""
    pkg = importlib.import_module(package)
    names = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.ispkg or info.name.startswith("__"):
            continue
        names.append(f"{package}.{info.name}")
    return sorted(names)


#: Modules that only the package's own modules use (kernels, caches, codecs, helpers): documented on
#: a page of internals, apart from the public API, and free to change between releases.
INTERNAL_MODULES = frozenset({
    "guessgym.envs.answer_stream", "guessgym.envs.buckets", "guessgym.envs.candidates", "guessgym.envs.engine",
    "guessgym.envs.hosts", "guessgym.envs.mask_pool", "guessgym.envs.matrix", "guessgym.envs.options",
    "guessgym.agents.model_files", "guessgym.agents.rollout", "guessgym.agents.split_features",
    "guessgym.agents.opener_values",
    "guessgym.baselines.common", "guessgym.baselines.memo_store", "guessgym.baselines.memo_tables",
    "guessgym.baselines.search_kernels", "guessgym.baselines.worst_case_kernels",
    "guessgym.evaluation.backends", "guessgym.evaluation.episodes", "guessgym.evaluation.formatting",
    "guessgym.evaluation.record_checks",
    "guessgym.training.general_games", "guessgym.training.numerics", "guessgym.training.sb3_vec",
    "guessgym.infra.checksum", "guessgym.infra.names", "guessgym.infra.resumable_log",
})
#: Old module names kept for one release (each warns and points to its new name): not documented.
DEPRECATED_MODULES = frozenset({"guessgym.envs.kinds", "guessgym.agents.trees", "guessgym.evaluation.trees"})


def _module_sections(modules: list[str]) -> list[str]:
    lines: list[str] = []
    for module in modules:
        lines += [f"## `{module}`", "", "```{eval-rst}", f".. automodule:: {module}", "   :members:",
                  "   :show-inheritance:", "```", ""]
    return lines


def api_page(package: str) -> str:
    """One package's page: its docstring, then each public module's members (docstrings are
    reStructuredText, so the directives sit in ``eval-rst`` blocks: in a MyST block they would be
    read as Markdown); its internal modules are named with a link to their page."""
    modules = [m for m in modules_of(package) if m not in DEPRECATED_MODULES]
    public = [m for m in modules if m not in INTERNAL_MODULES]
    internal = [m for m in modules if m in INTERNAL_MODULES]
    lines = [f"# `{package}`", "", "```{eval-rst}", f".. automodule:: {package}", "```", ""]
    if internal:
        lines += [f"Internal modules ({', '.join(f'`{m.rsplit(chr(46), 1)[1]}`' for m in internal)}) are on "
                  f"[the page of internals](internals/{package}.md).", ""]
    return "\n".join(lines + _module_sections(public))


def internals_page(package: str) -> str:
    """The internal modules of ``package``: what its own modules use, free to change between releases."""
    internal = [m for m in modules_of(package) if m in INTERNAL_MODULES]
    return "\n".join([f"# `{package}` internals", "",
                      f"Used by [`{package}`](../{package}.md) itself; not a stable API: names here may change "
                      "in any release without a deprecation period.", "", *_module_sections(internal)])


def generate_api_pages() -> None:
    names, internals = [], []
    for package in API_PACKAGES:
        write_if_changed(DOCS / "reference" / "api" / f"{package}.md", api_page(package))
        names.append(package)
        if any(m in INTERNAL_MODULES for m in modules_of(package)):
            write_if_changed(DOCS / "reference" / "api" / "internals" / f"{package}.md", internals_page(package))
            internals.append(f"internals/{package}")
    write_if_changed(DOCS / "reference" / "api" / "index.md", "\n".join([
        "# API reference", "",
        "Generated from the docstrings when the site builds, one page per package, in the order of the layers "
        "(each imports only those before it; see [the architecture](../../architecture.md)). Each page "
        "shows the package's public modules; the modules it uses internally are on pages of their own, "
        "under *Internals*.", "",
        "```{toctree}", ":maxdepth: 1", "", *names, "```", "",
        "```{toctree}", ":maxdepth: 1", ":caption: Internals", "", *internals, "```", ""]))


# ---- results ----------------------------------------------------------------------------------------
#: The committed reports the site shows, as (repository path, page under results/imported/).
IMPORTED_RESULTS = (
    ("results/main/leaderboard.md", "leaderboard.md"),
    ("results/optimal/README.md", "optimal.md"),
    ("results/worst_case/README.md", "worst-case.md"),
    ("results/learned/leaderboard.md", "learned.md"),
    ("results/learned/reproducibility.md", "reproducibility.md"),
    ("results/learned/cloned/README.md", "cloned.md"),
    ("results/learned/cards/wordle.md", "card-wordle.md"),
    ("results/learned/cards/wordle-hard.md", "card-wordle-hard.md"),
    ("results/learned/cards/nerdle.md", "card-nerdle.md"),
    ("results/learned/cards/mini-nerdle.md", "card-mini-nerdle.md"),
    ("results/learned/cards/wordle-cloned.md", "card-wordle-cloned.md"),
    ("results/learned/cards/wordle-hard-cloned.md", "card-wordle-hard-cloned.md"),
    ("results/learned/cards/nerdle-cloned.md", "card-nerdle-cloned.md"),
    ("results/learned/reproducibility-cloning.md", "reproducibility-cloning.md"),
    ("results/benchmark/README.md", "rl-benchmark.md"),
    ("results/benchmark-v2/README.md", "rl-benchmark-v2.md"),
    ("results/reproductions/REPRODUCTIONS.md", "reproductions.md"),
    ("results/demos/README.md", "demos.md"),
    ("results/llm/leaderboard.md", "llm.md"),
    ("envs/data/PROVENANCE.md", "provenance.md"),
)
_LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")
_IMAGE_SUFFIXES = (".png", ".gif", ".svg", ".jpg")


def import_report(source: str, target: str, pages: dict[str, str]) -> None:
    """Copy one report into the site: images beside it, links to other imported reports kept, links
    to anything else (data files, scripts) written as the repository path they name."""
    src = ROOT / source
    out_dir = DOCS / "results" / "imported"

    def relink(match: re.Match[str]) -> str:
        bang, text, href = match.groups()
        if re.match(r"^[a-z]+:", href) or href.startswith("#"):
            return match.group(0)
        path, _, anchor = href.partition("#")
        repo_path = (src.parent / path).resolve().relative_to(ROOT).as_posix()
        if repo_path in pages:
            return f"{bang}[{text}]({pages[repo_path]}{'#' + anchor if anchor else ''})"
        if repo_path.endswith(_IMAGE_SUFFIXES) and (ROOT / repo_path).is_file():
            image = repo_path.replace("/", "__")
            write_bytes_if_changed(out_dir / "_images" / image, (ROOT / repo_path).read_bytes())
            return f"{bang}[{text}](_images/{image})"
        return f"{text} (`{repo_path}`)" if text.strip("`") != repo_path else f"`{repo_path}`"

    text = _LINK.sub(relink, src.read_text())
    write_if_changed(out_dir / target, f"<!-- imported from {source} when the site builds -->\n\n{text}")


def write_bytes_if_changed(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_bytes() != data:
        path.write_bytes(data)


def generate_results() -> None:
    pages = {source: target for source, target in IMPORTED_RESULTS}
    for source, target in IMPORTED_RESULTS:
        import_report(source, target, pages)
    benchmarks = sorted((ROOT / "results" / "benchmarks").glob("*.txt"))
    lines = ["# Benchmark outputs", "",
             "Every file of `results/benchmarks/` as committed: each starts with the command that wrote it.", ""]
    for path in benchmarks:
        lines += [f"## `{path.name}`", "", f"```{{literalinclude}} ../../../results/benchmarks/{path.name}",
                  ":language: text", "```", ""]
    write_if_changed(DOCS / "results" / "imported" / "benchmark-outputs.md", "\n".join(lines))


# ---- the favicon ------------------------------------------------------------------------------------
def generate_favicon() -> None:
    """``_static/favicon.png``: four tiles of the game's colours, drawn by the board renderer."""
    import io

    from PIL import Image

    from guessgym.envs.render import board_image

    board = board_image([("gy", "GY"), ("bg", "BG")], 2, 2, "wordle")
    buffer = io.BytesIO()
    Image.fromarray(board).resize((64, 64), Image.Resampling.LANCZOS).save(buffer, format="PNG")
    write_bytes_if_changed(DOCS / "_static" / "favicon.png", buffer.getvalue())


# ---- Sphinx -----------------------------------------------------------------------------------------
def openers_table_page() -> str:
    """The full opener table's page: each shipped table's openers with a search box; the rows are
    drawn by ``_static/openers-table.js`` from the data, which sits in the page as JSON that cannot
    end its script element (``guessgym.evaluation.viewer.script_json``)."""
    from guessgym.agents.opener_values import table_data
    from guessgym.envs.game import make_game
    from guessgym.evaluation.viewer import script_json

    data = table_data([make_game("guessgym/Wordle-v1"), make_game("guessgym/WordleHard-v1")])
    lines = ["# Every opener, searchable", "",
             "Every opener of the shipped opener tables ([how good is your opener](openers.md) says what the",
             "figures are): the total guesses over every answer with optimal play after it, exact or a proven",
             "interval, its mean, and its loss per game against the optimum. Type an opener (or its first",
             "letters) to find it; openers that cannot always win within the attempts are marked † and listed",
             "after those that can. `guessgym opener WORD` gives the same from the command line.", ""]
    for i, game in enumerate(data):
        lines += [f"## {game['game']}, {game['mode']}", "",
                  f"{len(game['rows']):,} of {game['guesses']:,} openers in the table.", "",
                  f'<div class="opener-table" data-index="{i}">',
                  f'<input type="search" class="opener-search" placeholder="an opener, e.g. crane" '
                  f'aria-label="search the openers of {game["game"]}, {game["mode"]}">',
                  '<p class="opener-count"></p>',
                  '<table class="opener-rows"><thead><tr><th>rank</th><th>opener</th><th>total</th><th>mean</th>'
                  '<th>loss per game</th></tr></thead><tbody></tbody></table>',
                  "<noscript>The table needs JavaScript; the best openers are on the openers page.</noscript>",
                  "</div>", ""]
    lines += [f'<script type="application/json" id="opener-data">{script_json(data)}</script>',
              '<script src="_static/openers-table.js"></script>', ""]
    return "\n".join(lines)


def generate(app: Sphinx) -> None:
    """Write every generated page (connected to ``builder-inited``)."""
    generate_environment_pages()
    write_if_changed(DOCS / "reference" / "cli.md", cli_page())
    write_if_changed(DOCS / "openers-table.md", openers_table_page())
    generate_api_pages()
    generate_results()


_HEADING = re.compile(r"^## (.+)$")


def headings_to_rubrics(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """Docstrings mark their sections Gymnasium's way (``## Description``); in the API reference
    they become rubrics (reStructuredText has no headings inside a docstring)."""
    converted: list[str] = []
    for line in lines:
        match = _HEADING.match(line)
        converted += [f".. rubric:: {match.group(1)}", ""] if match else [line]
    lines[:] = converted


# ---- links to repository files ----------------------------------------------------------------------
def repository_pages() -> dict[str, str]:
    """The repository files (and folders) the site shows as a page it generates: repository path ->
    page (under ``docs/``). The committed pages link to the file a generated page is made from, which
    a reader of the sources can open; the site links to the page (:func:`link_to_site_pages`)."""
    pages = {source: f"results/imported/{target}" for source, target in IMPORTED_RESULTS}
    pages["results/benchmarks"] = "results/imported/benchmark-outputs.md"
    pages["envs/registration.py"] = "environments/registered.md"  # the table of every registered id
    pages["guessgym/cli"] = "reference/cli.md"  # the parser the reference is walked from
    pages["envs/data/openers"] = "openers-table.md"  # the shipped opener tables, every row searchable
    return pages


def link_to_site_pages(app: Sphinx, docname: str, source: list[str]) -> None:
    """Rewrite a page's links to repository files that the site shows as pages into links to those
    pages (connected to ``source-read``)."""
    here = (DOCS / docname).parent
    pages = repository_pages()

    def relink(match: re.Match[str]) -> str:
        bang, text, href = match.groups()
        if bang or re.match(r"^[a-z]+:", href) or href.startswith("#"):
            return match.group(0)
        path, _, anchor = href.partition("#")
        try:
            repo_path = (here / path).resolve().relative_to(ROOT).as_posix().rstrip("/")
        except ValueError:
            return match.group(0)
        page = pages.get(repo_path)
        if page is None:
            return match.group(0)
        relative = os.path.relpath(DOCS / page, here).replace(os.sep, "/")
        return f"[{text}]({relative}{'#' + anchor if anchor else ''})"

    source[0] = _LINK.sub(relink, source[0])


def setup(app: Sphinx) -> dict[str, Any]:
    # Before Sphinx checks that html_favicon exists (its own check runs at the default priority, 500).
    app.connect("config-inited", lambda app, config: generate_favicon(), priority=400)
    app.connect("builder-inited", generate)
    app.connect("autodoc-process-docstring", headings_to_rubrics)
    app.connect("source-read", link_to_site_pages)
    return {"version": guessgym.__version__, "parallel_read_safe": True, "parallel_write_safe": True}


__all__ = ["DEMO_SEED", "cli_page", "describe_space", "docstring_sections", "generate", "import_report", "rst_to_myst"]
