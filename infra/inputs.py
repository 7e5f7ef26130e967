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


def checked_input(path: str | os.PathLike[str], what: str, *, max_bytes: int = MAX_INPUT_BYTES) -> os.stat_result:
    """The status of ``path`` if it is a regular file of at most ``max_bytes`` (``what`` it is, for
    messages), checked before it is opened.

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
    return info


def read_input(path: str | os.PathLike[str], what: str, *, max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the regular file ``path`` (``what`` it is, for messages), checked by
    :func:`checked_input` first.

    Raises:
        FileNotFoundError: nothing at ``path``.
        InputFileError: a directory, a FIFO, a device or a socket; over ``max_bytes``; unreadable.
    """
    checked_input(path, what, max_bytes=max_bytes)
    try:
        with open(path, "rb") as f:
            return f.read(max_bytes + 1)
    except OSError as exc:
        raise InputFileError(f"{what} {path}: cannot be read ({exc.strerror or exc})") from None


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


#: The most members an ``.npz`` may have unless told (guessgym's own hold a few hundred at most).
MAX_NPZ_MEMBERS = 10_000
#: Bytes read from a member at a time: an array is filled in place, never held twice.
NPZ_CHUNK = 1 << 20


def read_npz(path: str | os.PathLike[str], what: str, *, max_bytes: int = MAX_INPUT_BYTES,
             blob: bytes | None = None, max_members: int = MAX_NPZ_MEMBERS,
             max_ratio: float | None = None) -> dict[str, Any]:
    """The arrays of the ``.npz`` file ``path`` (or of its bytes ``blob``), decompressed only up to
    ``max_bytes`` in all: each member's size is read from the archive before any of it is
    decompressed, and an array's header must fit its member, so a small file whose arrays would
    deflate to gigabytes is refused at once, never held. The file is read from disk as the arrays
    need it (not held whole beside them), each array filled in place :data:`NPZ_CHUNK` bytes at a
    time, so what is held is the arrays, at most ``max_bytes``, once. A file of over
    ``max_members`` members is refused before any is read; ``max_ratio``, for a kind of file that
    guessgym writes uncompressed (a memo, a checkpoint), bounds the arrays at that many times the
    file's own size (64 KiB at least), so such a file is read up to about its real size. No pickled
    object is read.

    Raises:
        InputFileError: not an ``.npz`` of plain arrays, or over one of its bounds (``what`` and
            ``path`` named).
    """
    import contextlib
    import io
    import zipfile
    import zlib

    def refused(why: str) -> InputFileError:
        return InputFileError(f"{what} {path}: {why}")

    arrays: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        if blob is not None:
            source: Any = io.BytesIO(blob)
            size_on_disk = len(blob)
        else:
            size_on_disk = checked_input(path, what, max_bytes=max_bytes).st_size
            try:
                source = stack.enter_context(open(path, "rb"))
            except OSError as exc:
                raise InputFileError(f"{what} {path}: cannot be read ({exc.strerror or exc})") from None
        limit = max_bytes if max_ratio is None else min(max_bytes, max(int(max_ratio * size_on_disk), 64 << 10))
        try:
            archive = stack.enter_context(zipfile.ZipFile(source))
            members = archive.infolist()
            if len(members) > max_members:
                raise refused(f"it has {len(members):,} members, over the {max_members:,} this kind of file holds")
            total = sum(m.file_size for m in members)
            if total > limit:
                raise refused(f"its arrays take {total:,} bytes once decompressed, over the limit of {limit:,}")
            for member in members:
                if not member.filename.endswith(".npy") or member.is_dir():
                    raise refused(f"{member.filename[:80]!r} is not an array (.npy)")
                with archive.open(member) as f:  # yields at most the member's recorded size
                    arrays[member.filename[:-4]] = _read_member(f, member, refused)
        except InputFileError:
            raise
        except (zipfile.BadZipFile, zlib.error, ValueError, EOFError, OSError, NotImplementedError) as exc:
            said = str(exc).splitlines()[0][:120] if str(exc) else ""
            raise refused(f"not an .npz of arrays ({type(exc).__name__}: {said})") from None
    return arrays


def _read_member(f: Any, member: Any, refused: Callable[[str], InputFileError]) -> Any:
    """One ``.npy`` member's array, its header checked against the member, its data read in place."""
    import numpy as np

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
    array = np.empty(count, dtype=dtype)
    into = array.view(np.uint8)  # the array's own bytes, filled in place
    done = 0
    while done < size:
        chunk = f.read(min(NPZ_CHUNK, size - done))
        if not chunk:
            raise refused(f"{member.filename[:80]!r} ends before its data does")
        into[done:done + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
        done += len(chunk)
    return array.reshape(shape[::-1]).T if fortran else array.reshape(shape)


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


__all__ = ["InputFileError", "MAX_INPUT_BYTES", "MAX_NPZ_MEMBERS", "NPZ_CHUNK", "check_not_an_input", "checked_input",
           "gunzip", "read_input", "read_json", "read_npz", "same_file", "script_main"]
