"""Reading a file that a user named, without waiting forever and without surprises.

Every file format guessgym reads (trees, word lists, configs, saved results, model zips,
checkpoint states) comes through :func:`read_input`: a missing file, a directory, or anything that
is not a regular file (a FIFO or a device would block a read, or never end) is refused with one
message naming the path, before it is opened; a file over the size limit is refused too.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

#: The default largest input (the largest shipped file, a model zip, is 2.3 MB).
MAX_INPUT_BYTES = 1 << 30


class InputFileError(ValueError):
    """A path that names no readable regular file of a sensible size."""


def read_input(path: str | os.PathLike[str], what: str, *, max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the regular file ``path`` (``what`` it is, for messages).

    Raises:
        FileNotFoundError: nothing at ``path``.
        InputFileError: a directory, a FIFO, a device or a socket; over ``max_bytes``; unreadable.
    """
    target = Path(path)
    try:
        info = os.stat(target)
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, f"{what} {str(target)!r} does not exist", str(target)) from None
    except OSError as exc:
        raise InputFileError(f"{what} {target}: cannot be read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputFileError(f"{what} {target} is a directory; give a file")
    if not stat.S_ISREG(info.st_mode):
        raise InputFileError(f"{what} {target} is not a regular file (a FIFO, device or socket would block "
                             "or never end); give a file")
    if info.st_size > max_bytes:
        raise InputFileError(f"{what} {target} is {info.st_size:,} bytes, over the limit of {max_bytes:,}")
    try:
        with open(target, "rb") as f:
            return f.read(max_bytes + 1)
    except OSError as exc:
        raise InputFileError(f"{what} {target}: cannot be read ({exc.strerror or exc})") from None


def gunzip(blob: bytes, what: str, *, max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """``blob`` decompressed (gzip), reading at most ``max_bytes`` of it: a small file that would
    decompress to gigabytes is refused once past the bound, never held whole.

    Raises:
        ValueError: not gzip data, or over ``max_bytes`` once decompressed (``what`` names it).
    """
    import gzip
    import io
    import zlib

    try:
        with gzip.GzipFile(fileobj=io.BytesIO(blob)) as unzipped:
            data = unzipped.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(f"{what}: not gzip-compressed data ({type(exc).__name__})") from None
    if len(data) > max_bytes:
        raise ValueError(f"{what}: over {max_bytes:,} bytes once decompressed")
    return data


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether the paths ``a`` and ``b`` name one file: the same inode where both exist (a hard
    link, a symbolic link or another spelling of the path), else the same resolved path."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_not_an_input(output: str | os.PathLike[str], option: str,
                       inputs: dict[str, str | os.PathLike[str] | None]) -> None:
    """Refuse to write ``output`` (given as ``option``) where it would replace one of ``inputs``
    (``{what it is: path}``; ``None`` paths are skipped): an output that is its own input, or a
    command's checkpoint, would lose the data it was made from.

    Raises:
        InputFileError: naming the option, the file and what it already is.
    """
    for what, path in inputs.items():
        if path is not None and same_file(output, path):
            raise InputFileError(f"{option} {output} is {what} ({path}); writing it would replace it: "
                                 "give another file")


def read_json(path: str | os.PathLike[str], what: str, *, max_bytes: int = MAX_INPUT_BYTES) -> Any:
    """The JSON value in the file ``path`` (at most ``max_bytes``); an :class:`InputFileError` naming
    the file (and the line of a syntax error) for anything else."""
    try:
        return json.loads(read_input(path, what, max_bytes=max_bytes).decode("utf-8"))
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{what} {path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except (UnicodeDecodeError, RecursionError) as exc:
        raise InputFileError(f"{what} {path}: not JSON text ({type(exc).__name__})") from None


def read_npz(path: str | os.PathLike[str], what: str, *, max_bytes: int = MAX_INPUT_BYTES,
             blob: bytes | None = None) -> dict[str, Any]:
    """The arrays of the ``.npz`` file ``path`` (or of its bytes ``blob``), decompressed only up to
    ``max_bytes`` in all: each member's size is read from the archive before any of it is
    decompressed, and an array's header must fit its member, so a small file whose arrays would
    deflate to gigabytes is refused at once, never held. No pickled object is read.

    Raises:
        InputFileError: not an ``.npz`` of plain arrays, or over ``max_bytes`` once decompressed
            (``what`` and ``path`` named).
    """
    import io
    import zipfile
    import zlib

    import numpy as np

    def refused(why: str) -> InputFileError:
        return InputFileError(f"{what} {path}: {why}")

    data = blob if blob is not None else read_input(path, what, max_bytes=max_bytes)
    arrays: dict[str, Any] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            total = sum(m.file_size for m in members)
            if total > max_bytes:
                raise refused(f"its arrays take {total:,} bytes once decompressed, over the limit of {max_bytes:,}")
            for member in members:
                if not member.filename.endswith(".npy") or member.is_dir():
                    raise refused(f"{member.filename[:80]!r} is not an array (.npy)")
                with archive.open(member) as f:  # yields at most the member's recorded size
                    version = np.lib.format.read_magic(f)
                    if version == (1, 0):
                        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
                    elif version == (2, 0):
                        shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
                    else:
                        raise refused(f"{member.filename[:80]!r}: an array format this reader does not know")
                    if dtype.hasobject:
                        raise refused(f"{member.filename[:80]!r} holds Python objects, which are never read")
                    count = 1
                    for n in shape:
                        count *= int(n)
                    size = count * dtype.itemsize
                    if size > member.file_size:
                        raise refused(f"{member.filename[:80]!r} declares {size:,} bytes of data in a member of "
                                      f"{member.file_size:,}")
                    raw = f.read(size)
                    if len(raw) != size:
                        raise refused(f"{member.filename[:80]!r} ends before its data does")
                    array = np.frombuffer(raw, dtype=dtype, count=count)
                    array = array.reshape(shape[::-1]).T if fortran else array.reshape(shape)
                    arrays[member.filename[:-4]] = array.copy()
    except InputFileError:
        raise
    except (zipfile.BadZipFile, zlib.error, ValueError, EOFError, OSError, NotImplementedError) as exc:
        said = str(exc).splitlines()[0][:120] if str(exc) else ""
        raise refused(f"not an .npz of arrays ({type(exc).__name__}: {said})") from None
    return arrays


class _Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``), raised where Ctrl-C would be so that it stops a run the same way."""


def _terminate(signum: int, frame: object) -> None:
    raise _Terminated


def script_main(main: Callable[[], int | None]) -> NoReturn:
    """Run a script's ``main`` with the command line's promise: a bad file or value is one line on
    stderr and exit status 2, Ctrl-C one line and status 130, never a traceback. ``kill PID``
    (SIGTERM) stops it as Ctrl-C does, status 143: a run in the background, where the shell makes
    it ignore Ctrl-C, still saves what it finished and ends its workers."""
    if threading.current_thread() is threading.main_thread():  # the only thread that may set handlers
        signal.signal(signal.SIGTERM, _terminate)
    try:
        code = main()
    except KeyboardInterrupt as exc:
        how = "terminated" if isinstance(exc, _Terminated) else "interrupted"
        print(f"{Path(sys.argv[0]).name}: {how} (what was finished is saved; the same command continues)",
              file=sys.stderr)
        raise SystemExit(143 if isinstance(exc, _Terminated) else 130) from None
    except (InputFileError, FileNotFoundError, ValueError, KeyError, TypeError) as exc:
        name = Path(sys.argv[0]).name
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"{name}: error: {type(exc).__name__ + ': ' if isinstance(exc, (KeyError, TypeError)) else ''}{detail}",
              file=sys.stderr)
        raise SystemExit(2) from None
    raise SystemExit(code or 0)


__all__ = ["InputFileError", "MAX_INPUT_BYTES", "check_not_an_input", "gunzip", "read_input", "read_json", "read_npz",
           "same_file", "script_main"]
