"""Durable atomic file writes, shared by the oracle's state files and the command line.

A write goes to a new temporary file in the target's folder, which is flushed and
fsynced, renamed over the target, and then the folder itself is fsynced so that
the rename survives a crash. A reader sees the old file or the new one, never a
mix. A failure before the rename removes the temporary file and leaves the target
untouched; a failure of the folder's fsync, after the rename, leaves the new
content in place (possibly not yet durable).

Reads of files that an attacker may have replaced (a FIFO would block, a device
such as ``/dev/zero`` would never end) go through :func:`read_regular`: regular
files only, opened without blocking, read up to a size limit.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

__all__ = ["fsync_directory", "open_regular", "read_regular", "write_atomically"]


def fsync_directory(folder: str | os.PathLike) -> None:
    """Flush a folder's entries (a rename or a new file in it) to disk.

    File systems that cannot fsync a folder (``EINVAL``) are skipped: they give
    no stronger guarantee to ask for.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     fsync_directory(folder)
    """
    descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(descriptor)
    except OSError as error:
        if error.errno != errno.EINVAL:
            raise
    finally:
        os.close(descriptor)


def write_atomically(
    path: str | os.PathLike, data: str | bytes, *, mode: int | None = None
) -> None:
    """Replace ``path`` by ``data`` durably and atomically.

    Parameters
    ----------
    path : str or Path
        The target; its folder must exist.
    data : str or bytes
        The new content (str is written as UTF-8).
    mode : int, optional
        The new file's permissions, e.g. ``0o600`` for a secret. Default: those of
        a newly created file under the process's umask.

    Raises
    ------
    OSError
        If the file cannot be written or renamed (the target is then untouched), or
        if the folder cannot be fsynced after the rename (the target then holds the
        new content); no temporary file is left behind either way.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = Path(folder) / "secret.txt"
    ...     write_atomically(target, "42\\n", mode=0o600)
    ...     (target.read_text(), oct(target.stat().st_mode & 0o777), len(os.listdir(folder)))
    ('42\\n', '0o600', 1)
    """
    target = Path(path)
    folder = target.parent
    content = data.encode() if isinstance(data, str) else bytes(data)
    temporary = folder / f".{target.name}.{secrets.token_hex(8)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(temporary, flags, 0o666 if mode is None else mode)
    try:
        try:
            if mode is not None:
                os.fchmod(descriptor, mode)  # exact, whatever the umask
            view = memoryview(content)
            while view:
                view = view[os.write(descriptor, view) :]
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    fsync_directory(folder)


def open_regular(
    path: str | os.PathLike, flags: int = os.O_RDONLY, *, follow_symlinks: bool = True
) -> int:
    """Open an existing regular file without blocking; return its descriptor.

    A FIFO, socket or device in its place (and, without ``follow_symlinks``, a
    symbolic link) is refused with an :class:`OSError` instead of blocking or
    reading without end.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     os.mkfifo(Path(folder) / "pipe")
    ...     try:
    ...         open_regular(Path(folder) / "pipe")
    ...     except OSError as error:
    ...         print(error.strerror)
    not a regular file
    """
    extra = os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        extra |= getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(path, flags | extra)
    except OSError as error:
        if error.errno == errno.ELOOP and not follow_symlinks:
            raise OSError(errno.ELOOP, "a symbolic link, not a regular file", str(path)) from None
        raise
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return descriptor


def read_regular(path: str | os.PathLike, limit: int, *, follow_symlinks: bool = False) -> bytes:
    """The content of a regular file of at most ``limit`` bytes (see :func:`open_regular`).

    Raises
    ------
    OSError
        If the file is missing, not a regular file (or a symbolic link, unless
        ``follow_symlinks``), or longer than ``limit`` bytes.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     (Path(folder) / "small").write_bytes(b"12345")
    ...     print(read_regular(Path(folder) / "small", 8))
    ...     try:
    ...         read_regular(Path(folder) / "small", 4)
    ...     except OSError as error:
    ...         print(error.strerror)
    5
    b'12345'
    longer than 4 bytes
    """
    descriptor = open_regular(path, follow_symlinks=follow_symlinks)
    try:
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(descriptor)
    if total > limit:
        raise OSError(errno.EFBIG, f"longer than {limit} bytes", str(path))
    return b"".join(chunks)
