"""The research documents the baselines come from, as references a reader can look up.

Each baseline's docstring cites its source by the short name here (``Pawson 2023``); the docs'
research notes list the full references (generated from :data:`SOURCES`) and, for each, the
document of the project's research material it was read from.

Examples:
    >>> SOURCES["lahiri2023"].short
    'Lahiri et al. 2023'
    >>> SOURCES["lahiri2023"].address
    'https://arxiv.org/abs/2305.14756'
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """One research document.

    Attributes:
        short: how docstrings and tables cite it (``"Pawson 2023"``).
        reference: authors, title, kind of document, date.
        address: where it can be read (``""``: no public address is known; the project's copy is read).
        document: the file of the project's research material it was read from.
    """

    short: str
    reference: str
    address: str
    document: str


#: Every source, by key.
SOURCES: dict[str, Source] = {
    "pawson2023": Source(
        "Pawson 2023",
        "Richard Pawson, *Wordle Solver*: an investigation documented as an AQA A-level Computer Science "
        "NEA project (C#, functional style), January 2023",
        "", "wordle_minimax_solver.txt"),
    "lahiri2023": Source(
        "Lahiri et al. 2023",
        "Aditya Lahiri, Naigam Shah, Shivaank Agarwal, Vignesh Nandakumar, *Deterministic Algorithmic "
        "Approaches to Solve Generalised Wordle*, arXiv:2305.14756 [cs.DS], May 2023",
        "https://arxiv.org/abs/2305.14756", "generalised_wordle_greedy_clique.txt"),
    "jain2024": Source(
        "Jain et al. 2024",
        "Mayank Jain, Jonathan Mulyawan Woenardi, Jash Gautam Makhija, Shashi Dhanasekar, Yudhir Gala, "
        "*Nerdle: like Wordle, but for nerds*, course project report, 15 March 2024",
        "", "nerdle_min_average_report.txt"),
    "luque2022": Source(
        "Luque, Jo and Warner 2022",
        "Devin Luque, Eunseo Jo, Murphy Warner, *Nerdle Final Project Report*, course project report, 4 May 2022",
        "", "nerdle_unique_chars_greedy.txt"),
    "nerdle-entropy-blog": Source(
        "the Nerdle entropy blog post",
        "an unsigned, undated blog post on solving Nerdle by per-position character entropy, then by "
        "feedback-pattern entropy (after 3Blue1Brown's Wordle video)",
        "", "nerdle_entropy_blog.txt"),
}


def sources_markdown() -> str:
    """The references as a Markdown list (the docs' research notes show it)."""
    lines = []
    for source in SOURCES.values():
        where = f" <{source.address}>" if source.address else " No public address is known to the project."
        lines.append(f"- **{source.short}**: {source.reference}.{where} Read from the project's "
                     f"research document `{source.document}`.")
    return "\n".join(lines)


__all__ = ["SOURCES", "Source", "sources_markdown"]
