"""Reading a file that a user named, without waiting forever and without surprises.

Every file format guessgym reads (trees, word lists, configs, saved results, model zips,
checkpoint states) comes through :func:`read_input`: a missing file, a directory, or anything that
is not a regular file (a FIFO or a device would block a read, or never end) is refused with one
message naming the path, before it is opened; a file over the size limit is refused too.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

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


__all__ = ["InputFileError", "MAX_INPUT_BYTES", "read_input"]
