"""Atomic file writes: nothing half-written is ever left where a reader looks.

Every cache, result, checkpoint and report of the package is written through this module: the
data goes to a temporary file in the destination folder, is flushed to disk, and
only then renamed over the destination (``os.replace`` is atomic on one file system). If writing
fails or is interrupted, the temporary file is removed and the old destination is untouched.

Examples:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_open(folder / "note.txt", "w", encoding="utf-8") as f:
    ...     _ = f.write("done")
    >>> (folder / "note.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('done', ['note.txt'])
"""

from __future__ import annotations

import csv
import errno
import io
import os
import re
import socket
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import IO, Any


def check_replaceable(target: Path) -> None:
    """Raise ``OSError`` (naming ``target``) unless ``target`` is missing or a regular file: an
    atomic write renames over its target, so a directory, a device (``/dev/full``), a FIFO or a
    socket in its place would be replaced, not written to."""
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory; an output here must be a file name", str(target))
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise OSError(errno.EINVAL, "is not a regular file (a device, FIFO or socket): outputs go to files",
                      str(target))


@contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str = ".tmp") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; whatever is written there replaces ``path`` on a
    clean exit (flushed to disk, with the permissions a new file would get), and is deleted on an
    exception. Use it for writers that take a file name (``savefig``, ``model.save``)."""
    target = Path(path)
    check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f"{target.name}.{_owner()}.", suffix=suffix, dir=target.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # mkstemp creates 0600; give the file normal permissions
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "wb", **kwargs: Any) -> Iterator[IO[Any]]:
    """``open(path, mode)`` for writing, made atomic with :func:`atomic_path`."""
    if not mode.startswith("w"):
        raise ValueError(f"atomic_open writes a new file; mode must start with 'w', got {mode!r}")
    with atomic_path(path) as tmp, open(tmp, mode, **kwargs) as f:
        yield f


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_open(path, "w", encoding="utf-8") as f:
        f.write(text)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_open(path, "wb") as f:
        f.write(data)


def atomic_write_csv(path: str | os.PathLike[str], columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """Write a CSV (a header of ``columns``, then ``rows``; ``\\n`` line ends) to ``path`` atomically."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    atomic_write_bytes(path, text.getvalue().encode())


@contextmanager
def atomic_directory(path: str | os.PathLike[str],
                     check: Callable[[Path], None] | None = None) -> Iterator[Path]:
    """Yield a temporary folder beside ``path``; on a clean exit its files are flushed to disk and
    it takes the place of ``path`` (:func:`replace_folder`: an existing folder there is replaced
    only if ``check`` passes it, before and after it is moved aside); on an exception it is
    deleted. Temporary folders are named ``.tmp-<name>-<owner>-*`` so that
    :func:`remove_stale_temporaries` can recognise them.

    Raises:
        ValueError: ``path`` is a symbolic link or a file, or the folder there fails ``check``
            (then nothing of it is touched).
    """
    import shutil

    target = Path(os.path.normpath(path))  # o/new/../x names o/x, and creates no stray o/new
    check_not_a_link(target)
    if target.exists() and check is not None:
        check(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_own_stale_temporaries(target.parent, target.name)  # left by a writer of this folder killed part-way
    tmp = owned_temporary_folder(target.parent, target.name)
    try:
        yield tmp
        for file in tmp.rglob("*"):
            if file.is_file():
                with open(file, "rb+") as f:
                    os.fsync(f.fileno())
        fsync_dir(tmp)
        replace_folder(tmp, target, check)
        fsync_dir(target.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def check_not_a_link(path: Path, root: Path | None = None) -> None:
    """Raise ``ValueError`` if ``path``, or a folder between ``root`` and it, is a symbolic link (or
    ``path`` a file where a folder is to go): a folder written or replaced through a link would land
    outside the folder the user named."""
    top = Path(os.path.normpath(root)) if root is not None else path
    here = path
    while True:
        if here.is_symlink():
            raise ValueError(f"{here} is a symbolic link: guessgym never writes or replaces a folder through one "
                             f"(it could lead out of {top}); give the folder itself")
        if here == top or here.parent == here:
            break
        here = here.parent
    if path.exists() and not path.is_dir():
        raise ValueError(f"{path} is a file, not a folder: give a new folder or an earlier export's")


def replace_folder(staged: Path, target: Path, check: Callable[[Path], None] | None = None) -> None:
    """Move the folder ``staged`` to ``target`` (same file system), replacing the folder there only if
    ``check`` passes it (``None``: any folder). It is checked where it is, then moved aside and
    checked again, so a file put into it while the new one was being made is never deleted: the
    folder goes back and ``ValueError`` is raised. ``staged`` gets the mode of the folder it
    replaces, or a new folder's (``mkdtemp`` makes it private).

    Raises:
        ValueError: ``target`` is a symbolic link or a file, or fails ``check``.
    """
    import secrets
    import shutil

    check_not_a_link(target)
    if not target.exists():
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(staged, 0o777 & ~umask)
        os.replace(staged, target)
        return
    if check is not None:
        check(target)
    os.chmod(staged, stat.S_IMODE(os.stat(target).st_mode))
    aside = target.with_name(f".old-{target.name}-{secrets.token_hex(4)}")
    os.replace(target, aside)
    try:
        if check is not None:
            check(aside)
    except ValueError as exc:
        os.replace(aside, target)
        raise ValueError(str(exc).replace(str(aside), str(target))) from None
    os.replace(staged, target)
    shutil.rmtree(aside)


# ---- temporaries left by killed writers ----------------------------------------------------------

#: Temporary names carry their writer as ``<host>~<pid>``; a temporary of another machine is only
#: removed once it is this old (its writer cannot be asked whether it still runs).
FOREIGN_STALE_SECONDS = 24 * 3600

_OWNER = re.compile(r"(?:^|[.-])([A-Za-z0-9_]+)~(\d+)[.-]")


@contextmanager
def file_lock(path: str | os.PathLike[str], *, wait: bool = True, what: str = "") -> Iterator[None]:
    """An exclusive advisory lock on the lock file ``path`` (created if missing) for the block,
    where the OS offers one (``fcntl``): read-merge-write of a shared file by several processes.
    With ``wait=False`` a lock another process holds is refused at once (a second run into a run's
    folder would replace the first's files), and the file names the process that holds it.
    Elsewhere the block runs unlocked, and concurrent writers may drop each other's changes.

    Raises:
        ValueError: with ``wait=False``, ``what`` is in use, naming the process that holds it.
    """
    try:
        import fcntl
    except ImportError:
        yield
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError:
            f.seek(0)
            holder = f.read(64).strip()
            raise ValueError(f"{what or path} is in use by another run{f' ({holder})' if holder else ''}; wait for "
                             "it to finish, or stop it") from None
        try:
            if not wait:
                f.seek(0)
                f.truncate()
                f.write(f"process {os.getpid()} on {_host()}")
                f.flush()
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def held_lock(path: str | os.PathLike[str], what: str) -> AbstractContextManager[None]:
    """:func:`file_lock` refused at once where another process holds it (``what`` names it)."""
    return file_lock(path, wait=False, what=what)


def recover_replaced_folder(path: str | os.PathLike[str]) -> None:
    """Finish a :func:`replace_folder` of ``path`` that a kill interrupted: between its two renames the
    folder is missing and the one it replaced is aside (``.old-<name>-*``), which goes back (the new
    one may be incomplete); once the new one is in place, a folder left aside is removed."""
    import shutil

    target = Path(os.path.normpath(path))
    aside = sorted(target.parent.glob(f".old-{target.name}-*"), key=lambda p: p.lstat().st_mtime) \
        if target.parent.is_dir() else []
    for i, old in enumerate(aside):
        if old.is_symlink() or not old.is_dir():
            continue
        if not target.exists() and not target.is_symlink() and i == len(aside) - 1:
            os.replace(old, target)
        else:
            shutil.rmtree(old, ignore_errors=True)


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", socket.gethostname())[:32] or "host"


def _owner() -> str:
    return f"{_host()}~{os.getpid()}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def is_temporary(path: Path) -> bool:
    """Whether ``path`` is named like a temporary of :func:`atomic_path` or :func:`atomic_directory`."""
    return path.name.endswith(".tmp") or path.name.startswith(".tmp-")


def is_stale(path: Path, now: float | None = None) -> bool:
    """Whether the temporary ``path`` was left by a writer that no longer runs.

    A temporary of this machine is stale when its process has ended; one of another machine
    (a shared folder), or one without a writer in its name (written by guessgym < 0.3), when it
    is older than :data:`FOREIGN_STALE_SECONDS`.
    """
    match = _OWNER.search(path.name)
    if match is not None and match.group(1) == _host():
        pid = int(match.group(2))
        return pid != os.getpid() and not _alive(pid)
    try:
        age = (time.time() if now is None else now) - path.stat().st_mtime
    except OSError:
        return False
    return age > FOREIGN_STALE_SECONDS


def remove_stale_temporaries(folder: str | os.PathLike[str]) -> list[Path]:
    """Delete the temporaries in ``folder`` (not its subfolders) whose writers are gone; return them.

    Never touches a temporary that a live process on this machine is writing.
    """
    removed: list[Path] = []
    try:
        entries = list(Path(folder).iterdir())
    except OSError:
        return removed
    for path in entries:
        if is_temporary(path) and is_stale(path):
            if remove_path(path):
                removed.append(path)
    return removed


def owned_temporary_folder(parent: Path, name: str) -> Path:
    """A new private folder in ``parent`` named as this process's temporary for ``name``
    (``.tmp-<name>-<host>~<pid>-*``), which :func:`remove_own_stale_temporaries` recognises once
    the process is gone."""
    return Path(tempfile.mkdtemp(dir=parent, prefix=f".tmp-{name}-{_owner()}-"))


def remove_own_stale_temporaries(folder: Path, name: str) -> list[Path]:
    """Delete the temporaries for ``name`` in ``folder`` that a process of this machine made and
    that no live process holds (:func:`owned_temporary_folder`'s names, their writer ended); return
    them. Nothing else is touched: not another machine's, not a live writer's, not a file of the
    user's that merely looks like a temporary."""
    prefix, removed = f".tmp-{name}-{_host()}~", list[Path]()
    try:
        entries = [p for p in folder.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return removed
    for path in entries:
        match = _OWNER.search(path.name)
        if match is not None and match.group(1) == _host() and is_stale(path) and not path.is_symlink() \
                and remove_path(path):
            removed.append(path)
    return removed


def remove_path(path: Path, *, missing_ok: bool = False) -> bool:
    """Delete a file or a whole folder; whether it was removed (or, with ``missing_ok``, is gone)."""
    import shutil

    try:
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        return missing_ok
    except OSError:
        return False
    return True


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Flush a folder's entries to disk (where the platform allows it)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
