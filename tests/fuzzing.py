"""Random damage to the files guessgym reads, and the check every reader must pass under it.

:func:`fuzz_file` writes each mutation of a valid file, calls the reader, and requires one of two
outcomes: it reads, or it raises one of the reader's documented errors with a one-line message;
and the file is left as it was (a reader of a resumable log may drop a torn last line, nothing
else). Any other exception fails the test with its traceback: that is the bug to fix.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Values a structural mutation puts in place of another.
ODD_VALUES: list[Any] = [None, True, False, -1, 0, 7, 10**30, 1e308, -0.5, "x", "", "crane", "1+2=3", [], {},
                         [1, -2], {"a": 1}, {"$array": "a9"}, {"$tuple": 3}, "a" * 1000, [[[[[]]]]]]


def mutate_bytes(blob: bytes, rng: random.Random) -> bytes:
    """One to four byte edits: overwrite, delete a run, insert random bytes or a copied run."""
    data = bytearray(blob)
    for _ in range(rng.randint(1, 4)):
        if not data:
            data += bytes([rng.randrange(256)])
            continue
        kind = rng.random()
        at = rng.randrange(len(data))
        if kind < 0.4:
            data[at] = rng.randrange(256)
        elif kind < 0.65:
            del data[at:at + rng.randint(1, 64)]
        elif kind < 0.85:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        else:
            start = rng.randrange(len(data))
            data[at:at] = data[start:start + rng.randint(1, 40)]
    return bytes(data)


def mutate_lines(text: bytes, rng: random.Random) -> bytes:
    """Delete, duplicate, swap or truncate whole lines."""
    lines = text.split(b"\n")
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        kind = rng.random()
        if kind < 0.3:
            del lines[i]
        elif kind < 0.55:
            lines.insert(j, lines[i])
        elif kind < 0.8:
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
    return b"\n".join(lines)


def mutate_json_value(doc: Any, rng: random.Random) -> Any:
    """``doc`` (a parsed JSON value, changed in place where possible) with one value somewhere
    replaced, deleted, or nested deeper."""
    if not isinstance(doc, (dict, list)) or not doc:
        return rng.choice(ODD_VALUES)
    node: Any = doc
    for _ in range(rng.randint(1, 6)):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = rng.choice(keys)
        child = node[key]
        if isinstance(child, (dict, list)) and child and rng.random() < 0.6:
            node = child
            continue
        kind = rng.random()
        if kind < 0.2 and isinstance(node, dict):
            del node[key]
        elif kind < 0.3:
            node[key] = [child]
        else:
            node[key] = rng.choice(ODD_VALUES)
        break
    return doc


def mutate_jsonl(text: bytes, rng: random.Random) -> bytes:
    """A JSON-lines file with one value of one line changed."""
    lines = text.split(b"\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    i = rng.choice(filled)
    lines[i] = json.dumps(mutate_json_value(json.loads(lines[i]), rng)).encode()
    return b"\n".join(lines)


def mutate_json(text: bytes, rng: random.Random) -> bytes:
    return json.dumps(mutate_json_value(json.loads(text), rng)).encode()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fuzz_file(
    path: Path,
    valid: bytes,
    read: Callable[[Path], Any],
    errors: tuple[type[BaseException], ...],
    mutations: list[Callable[[bytes, random.Random], bytes]],
    *,
    rounds: int,
    seed: int = 0,
    may_drop_torn_line: bool = False,
) -> dict[str, int]:
    """Read ``rounds`` mutations of ``valid`` through ``read`` (see the module docstring); returns
    how many were read and how many refused (a test checks that both kinds occurred)."""
    rng = random.Random(seed)
    counts = {"read": 0, "refused": 0}
    for _ in range(rounds):
        blob = rng.choice(mutations)(valid, rng)
        path.write_bytes(blob)
        before = _digest(path)
        try:
            read(path)
            counts["read"] += 1
        except errors as exc:
            message = str(exc)
            assert message and "\n" not in message.strip(), f"not one line: {message!r}"
            assert "Traceback" not in message
            counts["refused"] += 1
        after = path.read_bytes()
        if hashlib.sha256(after).hexdigest() != before:
            torn = blob[len(after):]
            assert may_drop_torn_line and blob.startswith(after) and after.endswith(b"\n") and b"\n" not in torn, (
                f"the reader changed the file: {blob[:120]!r} -> {after[:120]!r}")
    return counts


__all__ = ["ODD_VALUES", "fuzz_file", "mutate_bytes", "mutate_json", "mutate_json_value", "mutate_jsonl",
           "mutate_lines"]
