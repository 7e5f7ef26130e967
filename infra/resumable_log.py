"""One append-only JSON-lines log, the resume point of every long run.

A log is a header line (a JSON object naming what the run is: its game, settings, format) and then
one JSON object per line, appended, flushed and synced to disk as soon as it is known. Every
resumable file of guessgym is one: the proof and opener-search checkpoints, the worst-case
checkpoints, the transcripts of language-model evaluations. The rules, in the order they apply:

1. **Nothing in a file is changed before it is known to be ours.** The header is read and
   compared first; a file that is not a log, or the log of another run, is refused with a
   :class:`LogError` naming the file and what differs, and is left byte for byte as it was.
2. **Every line is checked.** A line that is not a JSON object is refused naming the file and
   the line number; the owner checks what the row says (``parse_row``), and a row that
   contradicts the run is refused the same way.
3. **A torn last line is dropped.** A kill can leave the last line without its newline: once the
   header is known to match, that fragment is cut off (its work is done again), never anything else.
4. **One writer.** The log holds an exclusive lock on the file while open (``fcntl``, where the
   OS has it); a second run on the same file is refused at once, naming the file.
5. **A reader changes nothing.** ``read_only=True`` reads a log that a live run may be writing:
   no lock, no repair, the torn fragment simply ignored.
6. **The path still names the file.** Before each line is appended, the log checks that its path
   still names the file it holds open; a file moved away, removed or replaced under a live run
   (``git stash``, a checkout, an editor's save) stops the run with a :class:`LogError`, instead of
   rows going on into a file no path names (the file now at the path is left as it is; the rows
   before the change are in the file that was moved, and the run resumes from what is at the path).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, Generic, TypeVar

Row = TypeVar("Row")

#: The largest line read (a transcript of one long game is a few hundred kilobytes).
MAX_LINE_BYTES = 64 * 2**20


class LogError(ValueError):
    """A log that cannot be resumed: not a log, another run's, a bad line, or in use."""


def _parse_json(blob: bytes, where: str) -> Any:
    try:
        return json.loads(blob.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise LogError(f"{where} is not JSON ({type(exc).__name__})") from None


class ResumableLog(Generic[Row]):
    """An append-only JSON-lines file with a header (see the module docstring).

    Args:
        path: the file (created with its header if missing or empty).
        header: what this run writes as line 1 and expects there.
        parse_row: turns one line's object into a row, raising ``ValueError``/``TypeError``/``KeyError``
            for one that is malformed or contradicts the run (the log names the file and line).
        what: how the file is called in messages (``"checkpoint"``, ``"transcripts file"``).
        read_only: read without locking, repairing or creating anything.

    Attributes:
        rows: ``(line number, row)`` for every complete line after the header, in file order.
    """

    def __init__(self, path: str | os.PathLike[str], header: dict[str, Any], parse_row: Callable[[Any], Row], *,
                 what: str = "log", read_only: bool = False) -> None:
        self.path = Path(path)
        self._named = self.path.absolute()  # the path checked before each write, whatever the working folder
        self.header = header
        self.what = what
        self.read_only = read_only
        self.rows: list[tuple[int, Row]] = []
        self._lock = threading.Lock()
        self._handle: IO[bytes] | None = None
        if self.path.is_dir():
            raise LogError(f"{self.path} is a directory, not a {what}")
        exists = self.path.exists()
        if exists and not self.path.is_file():
            raise LogError(f"{self.path} is not a regular file, so it cannot be a {what}")
        if not exists and read_only:
            raise LogError(f"{self.path}: no such {what}")
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._handle = open(self.path, "ab")
            except OSError as exc:
                raise LogError(f"{self.path}: cannot open the {what} for appending ({exc.strerror or exc})") from None
            self._lock_file()
        try:
            self._read(parse_row)
        except BaseException:
            self.close()
            raise

    # ---- reading -------------------------------------------------------------------------------
    def _read(self, parse_row: Callable[[Any], Row]) -> None:
        try:
            data = self.path.read_bytes() if self.path.exists() else b""
        except OSError as exc:
            raise LogError(f"{self.path}: cannot read the {self.what} ({exc.strerror or exc})") from None
        if not data:
            if not self.read_only:
                self._write(self.header)
            return
        complete, _, torn = data.rpartition(b"\n")
        lines = complete.split(b"\n") if complete else []
        if not lines:  # only a torn header: written by a run killed before its first line ended
            ours = json.dumps(self.header, ensure_ascii=False).encode("utf-8")
            if not ours.startswith(torn):
                raise LogError(f"{self.path} is not a {self.what} of this run (line 1 is not its header); "
                               "give another path or move the file away")
            if not self.read_only:
                self._truncate(0)
                self._write(self.header)
            return
        found = _parse_json(lines[0], f"{self.path}: line 1")
        if not isinstance(found, dict):
            raise LogError(f"{self.path} is not a {self.what} (line 1 is not a header object); "
                           "give another path or move the file away")
        if found != self.header:
            differ = sorted(k for k in set(found) | set(self.header) if found.get(k) != self.header.get(k))
            shown = "; ".join(f"{k}: file has {_short(found.get(k))}, this run {_short(self.header.get(k))}"
                              for k in differ[:6])
            raise LogError(f"{self.path} is the {self.what} of another run ({shown}); to resume it, rerun it "
                           "unchanged, or give another path")
        for number, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            where = f"{self.path}: line {number}"
            if len(line) > MAX_LINE_BYTES:
                raise LogError(f"{where} is over {MAX_LINE_BYTES // 2**20} MiB")
            value = _parse_json(line, where)
            try:
                row = parse_row(value)
            except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
                raise LogError(f"{where} is refused: {exc}") from None
            self.rows.append((number, row))
        if torn and not self.read_only:  # a line cut short by a kill: its work is done again
            self._truncate(len(complete) + 1)

    def _truncate(self, size: int) -> None:
        assert self._handle is not None
        self._handle.flush()
        os.truncate(self.path, size)

    # ---- writing -------------------------------------------------------------------------------
    def _lock_file(self) -> None:
        try:
            import fcntl
        except ImportError:  # no advisory locks here: one writer is then the user's care
            return
        assert self._handle is not None
        try:
            fcntl.flock(self._handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._handle.close()
            self._handle = None
            raise LogError(f"{self.path} is in use by another run (it holds the {self.what}'s lock); wait for it "
                           "to finish, or give another path") from None

    def _write(self, value: dict[str, Any]) -> None:
        if self._handle is None:
            raise LogError(f"{self.path}: the {self.what} is open read-only (or closed)")
        text = (json.dumps(value, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            self._check_still_named()
            self._handle.write(text)
            self._handle.flush()
            os.fsync(self._handle.fileno())

    def _check_still_named(self) -> None:
        assert self._handle is not None
        held = os.fstat(self._handle.fileno())
        try:
            named = os.stat(self._named)
        except OSError:
            named = None
        if named is None or (named.st_dev, named.st_ino) != (held.st_dev, held.st_ino):
            change = "moved away or removed" if named is None else "replaced by another file"
            raise LogError(f"{self.path} was {change} while this run wrote to it; nothing more is written to it "
                           "(put the run's file back and run it again to resume)")

    def append(self, value: dict[str, Any]) -> None:
        """Append one row (flushed and synced before this returns)."""
        self._write(value)

    def close(self) -> None:
        """Release the file and its lock (also at garbage collection)."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> ResumableLog[Row]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


def read_header(path: str | os.PathLike[str], what: str = "log") -> dict[str, Any]:
    """The header of the log at ``path`` (its line 1), read without opening the rest, to learn
    which run a file belongs to before reading it with that header (``ResumableLog(..., read_only=True)``).

    Raises:
        LogError: no such file, or its line 1 is not a JSON object (named).
    """
    where = Path(path)
    if where.exists() and not (where.is_file() or where.is_dir()):  # opening it could block for ever
        raise LogError(f"{where} is not a regular file (a FIFO, device or socket would block or never end), so it "
                       f"is not a {what}")
    try:
        with open(where, "rb") as handle:
            first = handle.readline(MAX_LINE_BYTES + 1)
    except IsADirectoryError:
        raise LogError(f"{where} is a directory, not a {what}") from None
    except FileNotFoundError:
        raise LogError(f"{where}: no such {what}") from None
    except OSError as exc:
        raise LogError(f"{where}: cannot read the {what} ({exc.strerror or exc})") from None
    if len(first) > MAX_LINE_BYTES:
        raise LogError(f"{where}: line 1 is over {MAX_LINE_BYTES // 2**20} MiB, so it is not a {what}")
    if not first.endswith(b"\n"):
        raise LogError(f"{where} is not a {what} (no complete header line)")
    found = _parse_json(first, f"{where}: line 1")
    if not isinstance(found, dict):
        raise LogError(f"{where} is not a {what} (line 1 is not a header object)")
    return found


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


Key = TypeVar("Key")
Value = TypeVar("Value")


class OutcomeLog(Generic[Key, Value]):
    """What a long search settles item by item (each opener of a proof), by key, kept in a
    :class:`ResumableLog` when given a path (in memory only without one): the checkpoint of the
    worst-case proof and of the opener search alike.

    Args:
        path: the log file, or ``None`` for none.
        header, what, read_only: as :class:`ResumableLog`'s.
        parse: one line's object -> ``(key, value)`` (raising for a row that contradicts the run).
        to_row: ``(key, value)`` -> the object appended.

    Attributes:
        values: every settled key's value (read back, then recorded).
        lines: the file line of each value read back (named when a resumed claim proves false).
    """

    def __init__(self, path: str | os.PathLike[str] | None, header: dict[str, Any],
                 parse: Callable[[Any], tuple[Key, Value]], to_row: Callable[[Key, Value], dict[str, Any]], *,
                 what: str = "checkpoint", read_only: bool = False) -> None:
        self.values: dict[Key, Value] = {}
        self.lines: dict[Key, int] = {}
        self.to_row = to_row
        self.log: ResumableLog[tuple[Key, Value]] | None = None
        if path is None:
            return
        self.log = ResumableLog(path, header, parse, what=what, read_only=read_only)
        for number, (key, value) in self.log.rows:
            self.values[key] = value
            self.lines[key] = number

    @property
    def path(self) -> Path | None:
        return None if self.log is None else self.log.path

    def record(self, key: Key, value: Value) -> None:
        """Settle ``key`` (appended to the file at once, when there is one)."""
        self.values[key] = value
        if self.log is not None:
            self.log.append(self.to_row(key, value))

    def close(self) -> None:
        if self.log is not None:
            self.log.close()


__all__ = ["LogError", "MAX_LINE_BYTES", "OutcomeLog", "ResumableLog", "read_header"]
