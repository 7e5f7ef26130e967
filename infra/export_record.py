"""What an export wrote, recorded in its folder, so that a later export replaces only that.

An export's folder may be replaced whole by the next export to the same place, and a folder is
the user's until shown otherwise: a folder holding the user's own ``manifest.json``, ``train.jsonl``
and ``datasets/raw/big.bin`` passed a check that read names, and lost ``big.bin``. Each guessgym
export (``export-demos``, as JSON lines or as Minari datasets) writes :data:`EXPORT_MARKER` into
its folder last, listing every file it wrote; :func:`check_earlier_export` passes a folder only if
that list is there and names every file in the folder (a file added since, or a folder with no
list, is someone else's and is never replaced).

An output of fixed names written into a folder that holds other things (``guessgym benchmark
report`` writes ``README.md``, ``summary.json`` and figures beside the runs it reads) is held to
the same list, by name: :func:`check_own_files` passes the folder if none of those names is there,
or each one that is was listed by the earlier output, and :func:`mark_own_files` lists them; a
user's own ``README.md`` (``--out .`` in a project) is never replaced.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .inputs import read_json

#: The file in each export's folder that lists what the export wrote.
EXPORT_MARKER = "guessgym-export.json"


def listing(folder: Path) -> list[str]:
    """Every file and link under ``folder`` (relative, sorted); a link is listed, never followed."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_symlink() or not p.is_dir())


def mark_export(folder: Path, made_by: str, **fields: Any) -> None:
    """Write :data:`EXPORT_MARKER` into ``folder``: what made it, ``fields``, and every file in it."""
    mark_own_files(folder, made_by, [name for name in listing(folder) if name != EXPORT_MARKER], **fields)


def check_earlier_export(folder: Path, advice: str = "move it away or export to another --out") -> None:
    """Refuse ``folder`` unless a guessgym export wrote it and nothing was added since: its
    :data:`EXPORT_MARKER` lists every file in it.

    Raises:
        ValueError: naming the folder, what makes it someone else's, and ``advice``.
    """
    if folder.is_symlink() or not folder.is_dir():
        raise ValueError(f"{folder} is {'a symbolic link' if folder.is_symlink() else 'a file'}, not a folder "
                         f"guessgym exported: {advice}")
    listed = _listed(folder)
    if listed is None:
        raise ValueError(f"{folder} holds no list of an earlier guessgym export ({EXPORT_MARKER}), so guessgym "
                         f"did not write it and will not replace it: {advice}")
    found = [name for name in listing(folder) if name != EXPORT_MARKER]
    others = sorted(set(found) - set(listed))
    if others:
        raise ValueError(f"{folder} holds {others[0]!r}{f' and {len(others) - 1:,} more' if others[1:] else ''}, "
                         f"which the earlier guessgym export there did not write: {advice}")


def _listed(folder: Path) -> list[str] | None:
    """The files :data:`EXPORT_MARKER` in ``folder`` lists (``None``: no readable list there)."""
    marker = folder / EXPORT_MARKER
    try:  # read as any input: a FIFO or a device there is refused, not waited on
        if marker.is_symlink():
            return None
        listed = read_json(marker, "export list", max_bytes=16 << 20)["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return listed if isinstance(listed, list) and all(isinstance(f, str) for f in listed) else None


def check_own_files(folder: Path, names: list[str], advice: str) -> None:
    """Refuse to write the files ``names`` into ``folder`` where one of them is there and was not
    listed by the earlier guessgym output there (see the module docstring); a name that is a folder
    or a link is refused too.

    Raises:
        ValueError: naming the folder, the file and ``advice``.
    """
    if not folder.exists() and not folder.is_symlink():
        return
    if folder.is_symlink() or not folder.is_dir():
        raise ValueError(f"{folder} is {'a symbolic link' if folder.is_symlink() else 'a file'}, not a folder: "
                         f"{advice}")
    present = [n for n in [*names, EXPORT_MARKER] if (folder / n).exists() or (folder / n).is_symlink()]
    if not present or present == [EXPORT_MARKER]:
        return
    listed = _listed(folder)
    for name in present:
        path = folder / name
        if name != EXPORT_MARKER and (listed is None or name not in listed):
            raise ValueError(f"{path} is there and guessgym did not write it (no {EXPORT_MARKER} there lists it), so "
                             f"it will not be replaced: {advice}")
        if path.is_symlink() or not path.is_file():
            raise ValueError(f"{path} is not a file guessgym wrote: {advice}")


def mark_own_files(folder: Path, made_by: str, files: list[str], **fields: Any) -> None:
    """List ``files`` (names in ``folder``) as what ``made_by`` wrote there, with ``fields``, in
    :data:`EXPORT_MARKER` (written atomically)."""
    from .atomic import atomic_write_bytes

    document = {"made_by": made_by, **fields, "files": sorted(files)}
    atomic_write_bytes(folder / EXPORT_MARKER, (json.dumps(document, indent=1) + "\n").encode())


__all__ = ["EXPORT_MARKER", "check_earlier_export", "check_own_files", "listing", "mark_export", "mark_own_files"]
