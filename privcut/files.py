"""Durable atomic file writes, shared by the oracle's state files and the command line.

A write goes to a new temporary file in the target's folder, which is flushed and
fsynced, renamed over the target, and then the folder itself is fsynced so that
the rename survives a crash. A reader sees the old file or the new one, never a
mix; on any failure the temporary file is removed and the target is untouched.
"""

from __future__ import annotations

import errno
import os
import secrets
from pathlib import Path

__all__ = ["fsync_directory", "write_atomically"]


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
        If the file cannot be written or renamed; no temporary file is left behind.

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
