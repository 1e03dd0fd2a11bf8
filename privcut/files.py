"""Durable file I/O for releases and states.

The command line writes its releases, and :class:`StateFile` (the oracle's authenticated,
rollback-refusing, locked state file) its states, through the same atomic write; a
release of several files (a graph and its report) is written together through
:class:`ReplaceTogether`.

A write goes to a new temporary file in the target's folder, which is flushed and
fsynced, renamed over the target, and then the folder itself is fsynced so that
the rename survives a crash. A reader sees the old file or the new one, never a
mix. A failure before the rename removes the temporary file and leaves the target
untouched; a failure of the folder's fsync, after the rename, leaves the new
content in place (possibly not yet durable). A temporary entry is private to its
owner (a file ``0o600``, a folder ``0o700``) while it is written, and gets its final
mode just before it is renamed into place.

Reads of files that an attacker may have replaced (a FIFO would block, a device
such as ``/dev/zero`` would never end) go through :func:`read_regular`: regular
files only, opened without blocking, read up to a size limit.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import json
import os
import re
import secrets
import shutil
import signal
import stat
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from privcut.exceptions import PrivcutError

__all__ = [
    "PartialReplaceError",
    "ReplaceTogether",
    "StateFile",
    "check_replaceable",
    "fsync_directory",
    "open_atomically",
    "open_regular",
    "read_regular",
    "write_atomically",
]


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
        The new file's permissions, e.g. ``0o600`` for a secret. Default: a
        regular file's own permission bits if ``path`` is one, else those of a newly
        created file under the process's umask (see :func:`open_atomically`; the file
        is ``0o600`` until it is renamed into place).

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
    content = data.encode() if isinstance(data, str) else bytes(data)
    with open_atomically(path, mode=mode) as write:
        write(content)


@contextlib.contextmanager
def open_atomically(
    path: str | os.PathLike, *, mode: int | None = None
) -> Iterator[Callable[[bytes], None]]:
    """Stream bytes into ``path``, replacing it durably and atomically on success.

    The streaming form of :func:`write_atomically`, for content too large to hold
    whole: the ``with`` block gets a function that appends bytes to a temporary file
    in the target's folder; when the block ends without an exception, the file is
    given its final mode, fsynced, renamed over the target and the folder fsynced. An
    exception in the block (or in any of these steps before the rename) removes the
    temporary file and leaves the target untouched; the removal runs with SIGINT,
    SIGTERM and SIGHUP held (see :class:`ReplaceTogether`), so a second Ctrl-C meanwhile
    does not leave the temporary file behind.

    Permissions: the temporary file is created ``0o600`` (readable by its owner only
    while it is written, and if it is left by a crash) and given its final mode just
    before the rename: ``mode`` if given; else, if ``path`` is a regular file, its
    permission bits (``0o777``; as ``sed -i`` keeps them, and as
    :class:`ReplaceTogether` does); else ``0o666`` less the umask, as ``open`` makes a
    new file. So an atomic write into a file staged by :meth:`ReplaceTogether.path`
    keeps that file's ``0o600`` until the set is committed.

    Parameters
    ----------
    path : str or Path
        The target; its folder must exist.
    mode : int, optional
        The new file's permissions (as in :func:`write_atomically`).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = Path(folder) / "big.txt"
    ...     with open_atomically(target) as write:
    ...         for part in (b"1 2\\n", b"2 3\\n"):
    ...             write(part)
    ...     (target.read_bytes(), len(os.listdir(folder)))
    (b'1 2\\n2 3\\n', 1)
    """
    target = Path(path)
    folder = target.parent
    temporary = _temporary(target)
    descriptor = -1

    def write(content: bytes) -> None:
        view = memoryview(content)
        while view:
            view = view[os.write(descriptor, view) :]

    try:
        descriptor = _create(temporary, target)
        try:
            yield write
            os.fchmod(descriptor, _file_mode(target) if mode is None else mode)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(temporary, target)
    except BaseException as error:
        if descriptor >= 0 or not isinstance(error, OSError):  # else not created
            _remove([temporary])  # (also after a Ctrl-C just after the file was made)
        raise
    fsync_directory(folder)


def _create(temporary: Path, target: Path) -> int:
    """Create the temporary file beside ``target`` (``0o600``); an error other than the
    name being taken names ``target``, the caller's path, not the temporary name."""
    try:
        return os.open(temporary, _CREATE, 0o600)
    except FileExistsError:
        raise
    except OSError as error:
        why = error.strerror
        if isinstance(error, FileNotFoundError):
            why = f"folder {target.parent} does not exist"
        elif isinstance(error, NotADirectoryError):
            why = f"{target.parent} is not a folder"
        raise type(error)(
            error.errno, f"{why}; cannot write {target.name} there", str(target)
        ) from None


def _file_mode(target: Path) -> int:
    """The mode an atomic write gives ``target``: its permission bits if it is a regular
    file (a symbolic link is not followed), else a new file's (:func:`_new_mode`)."""
    try:
        found = os.stat(target, follow_symlinks=False).st_mode
    except FileNotFoundError:
        found = 0
    return stat.S_IMODE(found) & 0o777 if stat.S_ISREG(found) else _new_mode()


def _new_mode(folder: bool = False) -> int:
    """The mode ``open`` gives a new file (``0o666``), or ``mkdir`` a new folder
    (``0o777``), less the process's umask (:func:`_umask`). A folder's default ACL, which
    would take the umask's place for an entry made there, is not read."""
    return (0o777 if folder else 0o666) & ~_umask()


def _umask() -> int:
    """The process's umask, from ``/proc/self/status`` where the system gives it there
    (Linux); else read by setting it and setting it back at once (``os.umask``), during
    which a file that another thread creates gets a mode less ``0o077`` (more private,
    never less)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


STEM = 32
"""Characters of a target's name kept in its temporary's name (``.STEM.<16 hex>.tmp``): the
temporary's name is at most ``STEM + 22`` characters whatever the target's length, so a
target whose own name fits the folder's ``NAME_MAX`` always gets one (nested too)."""

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def _temporary(target: Path) -> Path:
    """A new temporary name beside ``target`` (not created)."""
    return target.parent / f".{target.name[:STEM]}.{secrets.token_hex(8)}.tmp"


def check_replaceable(path: str | os.PathLike, *, probe: bool = True) -> None:
    """Check, without touching it, that ``path`` can be replaced by this module's writes.

    Its name must fit the folder's ``NAME_MAX``, and (with ``probe``) a temporary file
    named as the writes name theirs must be creatable in its folder: one is created and
    removed (which changes the folder's modification time). Whether ``path`` itself is
    a file, a folder or absent is not checked.

    Raises
    ------
    OSError
        ``ENAMETOOLONG`` for a name longer than ``NAME_MAX`` bytes; else the error of
        creating the temporary file (e.g. ``EACCES``, ``EROFS``, ``ENOENT`` for a missing
        folder).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     check_replaceable(Path(folder) / "graph.txt")
    ...     try:
    ...         check_replaceable(Path(folder) / ("x" * 300))
    ...     except OSError as error:
    ...         print(error.strerror, os.listdir(folder))
    name longer than the folder's NAME_MAX (255 bytes) []
    """
    target = Path(path)
    folder = target.parent
    try:
        limit = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):  # no such setting here, or a missing folder (see below)
        limit = 255
    if len(os.fsencode(target.name)) > limit:
        message = f"name longer than the folder's NAME_MAX ({limit} bytes)"
        raise OSError(errno.ENAMETOOLONG, message, str(path))
    if probe:
        temporary = _temporary(target)
        descriptor = os.open(temporary, _CREATE, 0o600)
        try:
            os.close(descriptor)
        finally:  # a Ctrl-C here leaves no probe behind
            os.unlink(temporary)


class PartialReplaceError(OSError):
    """Some targets of a :class:`ReplaceTogether` were replaced and the others not.

    Raised by :meth:`ReplaceTogether.commit` when a rename fails after an earlier one
    succeeded, or when a folder cannot be fsynced after the renames: the files on disk
    are then a mixed set (or, with ``kept`` empty, a complete set that may not be
    durable).

    Attributes
    ----------
    replaced : tuple of Path
        The targets that hold their new content.
    kept : tuple of Path
        The targets left as they were (older content, or absent).
    """

    def __init__(
        self, error: OSError, target: Path, replaced: tuple[Path, ...], kept: tuple[Path, ...]
    ) -> None:
        super().__init__(error.errno, error.strerror, str(target))
        self.replaced = replaced
        self.kept = kept


class ReplaceTogether:
    """Write several files (or folders) and replace their targets together, as one set.

    Each target is first written in full to a new temporary entry in its own folder
    (:meth:`path` for a file, :meth:`folder` for a folder); :meth:`commit` fsyncs every
    temporary entry, and only then renames them over their targets, in the order they
    were staged, and fsyncs each folder once. A failure before the renames (in the
    writing, or in an fsync) removes every temporary entry and touches no target, so
    a reader never sees a new file beside an older one from another set. Used as a
    context manager, the set is committed when the block ends without an exception and
    discarded when it raises.

    A failure in the middle of the renames (rare: the temporary entries sit beside
    their targets) raises :class:`PartialReplaceError`, which names the targets
    replaced and those kept (:attr:`replaced` names them too, whatever the failure);
    the temporary entries not renamed are removed. The renames run with SIGINT, SIGTERM
    and SIGHUP held (in the main thread; they are raised again after the renames, all
    of them, under the handlers as they were), so Ctrl-C or a kill lands before or
    after the set is replaced, never amid it; a KeyboardInterrupt (or any exception)
    before the renames removes every temporary entry, as a failure does (with the same
    signals held while they are removed). A crash
    (power loss, SIGKILL) amid the renames can still leave a mixed set. A temporary
    entry's name keeps at most :data:`STEM` characters of its target's, so any name
    that fits ``NAME_MAX`` can be staged (:func:`check_replaceable` checks a target
    ahead).

    Permissions: while it is written, a temporary file is ``0o600`` and a temporary
    folder ``0o700`` (less the umask), so that no other user can open one, even a set
    discarded after a failure or Ctrl-C; :meth:`commit` gives each its final mode
    before it is fsynced and renamed. A new target gets the mode ``open(2)`` gives a
    file made with ``0o666``, or ``mkdir(2)`` a folder made with ``0o777``, less the
    umask (``0o644`` and ``0o755`` under umask ``022``; a default ACL is not read); a
    target that exists as a file (a folder) replaced by a file (a folder) keeps its
    permission bits (``stat.S_IMODE``, as ``sed -i`` keeps them): ``0o777`` for a
    file, so not the set-user-ID, set-group-ID or sticky bits (setting the sticky bit
    on a file fails for a user on BSD and macOS); :data:`KEPT_FOLDER_BITS` for a
    folder, which also keeps the set-group-ID bit that ``mkdir`` gives a folder made in
    a set-group-ID folder. The replaced entry is owned by the writing process's user and group
    (ownership is not copied, nor ACLs or extended attributes). Entries that the
    writer makes inside a staged folder keep the modes they are made with (the folder
    is ``0o700`` until the commit).

    Complexity: O(number of targets) system calls beyond the writing (and, for a
    folder, one fsync per entry in it).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     graph, report = Path(folder) / "h.txt", Path(folder) / "h.json"
    ...     with ReplaceTogether() as outputs:
    ...         _ = outputs.path(graph).write_text("1 2\\n")
    ...         _ = outputs.path(report).write_text("{}\\n")
    ...     (graph.read_text(), report.read_text(), sorted(os.listdir(folder)))
    ('1 2\\n', '{}\\n', ['h.json', 'h.txt'])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     graph = Path(folder) / "h.txt"
    ...     _ = graph.write_text("old")
    ...     graph.chmod(0o640)
    ...     with ReplaceTogether() as outputs:
    ...         _ = outputs.path(graph).write_text("new")
    ...     (graph.read_text(), oct(graph.stat().st_mode & 0o777))
    ('new', '0o640')
    """

    def __init__(self) -> None:
        self._staged: list[tuple[Path, Path]] = []  # (temporary, target), in order
        self._open = True
        self._done = 0  # targets renamed so far

    def __enter__(self) -> ReplaceTogether:
        return self

    def __exit__(self, kind, error, trace) -> None:
        if error is None:
            self.commit()
        else:
            self.discard()

    def path(self, target: str | os.PathLike) -> Path:
        """A new empty temporary file beside ``target`` (named as :func:`check_replaceable`
        checks), to write in full before :meth:`commit` renames it over ``target``: write
        straight into it (:meth:`commit` fsyncs it); an atomic write on it
        (:func:`write_atomically`) works too, at the cost of one more temporary file (which
        keeps the staged file's mode). Made ``0o600`` (see Permissions above)."""
        return self._stage(target, lambda temporary: os.close(os.open(temporary, _CREATE, 0o600)))

    def folder(self, target: str | os.PathLike) -> Path:
        """A new empty temporary folder beside ``target`` (named as :meth:`path` names
        a file; ``target`` must be absent or an empty folder when :meth:`commit` renames
        the folder to it), made ``0o700`` (see Permissions above)."""
        return self._stage(target, lambda temporary: os.mkdir(temporary, 0o700))

    def _stage(self, target: str | os.PathLike, make: Callable[[Path], None]) -> Path:
        """Record a new temporary entry beside ``target``, then ``make`` it: recorded
        first, so that an interruption just after it is made still removes it."""
        self._check_open()
        target = Path(target)
        temporary = _temporary(target)
        self._staged.append((temporary, target))
        try:
            make(temporary)
        except OSError:
            self._staged.pop()  # not made (a name taken, EEXIST, is not ours to remove)
            raise
        return temporary

    @property
    def replaced(self) -> tuple[Path, ...]:
        """The targets renamed so far, in order: all of them after a :meth:`commit`, none
        before it or after a failure before the renames, some after a partial one."""
        return tuple(target for _, target in self._staged[: self._done])

    def commit(self) -> None:
        """Fsync every temporary entry, give each its final mode (see Permissions), rename
        each over its target, fsync the folders.

        Raises
        ------
        OSError
            If an fsync or the first rename fails (with the target as its filename):
            every temporary entry is removed and no target is touched.
        PartialReplaceError
            If a later rename, or a folder's fsync after the renames, fails.
        """
        self._check_open()
        self._open = False
        staged, done = self._staged, 0
        try:
            for temporary, target in staged:
                _fsync_tree(temporary, target)
            for temporary, target in staged:  # after the long fsyncs: readable just before
                _fsync_entry(temporary, target, final=True)
            # an interruption lands before the renames or after them and the folders'
            # fsyncs (durable): never between (review r8 F4')
            with _signals_held():
                for temporary, target in staged:
                    try:
                        os.replace(temporary, target)
                    except OSError as error:
                        raise OSError(error.errno, error.strerror, str(target)) from None
                    done = self._done = done + 1
                for folder in dict.fromkeys(target.parent for _, target in staged):
                    fsync_directory(folder)
        except OSError as error:
            _remove(temporary for temporary, _ in staged[done:])
            if done == 0:
                raise
            targets = tuple(target for _, target in staged)
            failed = Path(error.filename) if error.filename else targets[-1]
            raise PartialReplaceError(error, failed, targets[:done], targets[done:]) from None
        except BaseException:
            _remove(temporary for temporary, _ in staged[done:])
            raise

    def discard(self) -> None:
        """Remove every temporary entry; no target is touched."""
        self._open = False
        _remove(temporary for temporary, _ in self._staged)

    def _check_open(self) -> None:
        if not self._open:
            raise ValueError("this ReplaceTogether was committed or discarded; start a new one")


HELD_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals held during :meth:`ReplaceTogether.commit`'s renames."""


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Defer :data:`HELD_SIGNALS` while the block runs: a signal that arrives is recorded
    and raised again when the block ends, under the handlers as they were. Python runs
    signal handlers in the main thread whichever thread the signal reaches, so this
    holds them for the whole process; only the main thread can set handlers, so
    nothing is held in another (nor a signal whose handler was not set from Python)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    previous = {number: signal.getsignal(number) for number in HELD_SIGNALS}
    previous = {number: handler for number, handler in previous.items() if handler is not None}
    try:
        for number in previous:
            signal.signal(number, lambda received, frame: arrived.append(received))
        yield
    finally:
        _release(previous, arrived)


def _release(previous: dict, arrived: list[int]) -> None:
    """Restore the ``previous`` handlers and raise the ``arrived`` signals again, none lost.

    The held signals are blocked first (``pthread_sigmask``, which also runs the recording
    handler for any signal that arrived just before), so none lands amid the restores;
    every restore runs whatever another signal raises; the arrived signals are raised
    while still blocked (they stay pending) and delivered together when the mask is put
    back: a SIGINT's KeyboardInterrupt cannot stop a SIGTERM after it from being delivered
    (Python runs the handlers still due at its next check). The mask is this thread's
    only: a signal sent to the process may still reach another thread that does not
    block it, and its handler then runs amid the restores (a KeyboardInterrupt there);
    the arrived signals are raised again even so, each whatever the others raise."""
    mask = getattr(signal, "pthread_sigmask", None)
    blocked = mask(signal.SIG_BLOCK, HELD_SIGNALS) if mask else None
    try:
        try:
            _restore(list(previous.items()))
        finally:
            _raise_again(list(dict.fromkeys(arrived)))
    finally:
        if mask:
            mask(signal.SIG_SETMASK, blocked)


def _raise_again(numbers: list[int]) -> None:
    """Raise each signal of ``numbers``, even when raising (or a handler run meanwhile)
    raises for an earlier one."""
    if numbers:
        try:
            signal.raise_signal(numbers[0])
        finally:
            _raise_again(numbers[1:])


def _restore(handlers: list) -> None:
    """Set each ``(signal, handler)``, even when setting an earlier one raises."""
    if handlers:
        try:
            signal.signal(*handlers[0])
        finally:
            _restore(handlers[1:])


def _fsync_tree(temporary: Path, target: Path) -> None:
    """Fsync a temporary file, or a temporary folder with every entry in it (the folder
    itself too); an error names ``target``."""
    if temporary.is_dir() and not temporary.is_symlink():
        for root, folders, files in os.walk(temporary):
            for name in (*files, *folders):
                _fsync_entry(Path(root) / name, target)
    _fsync_entry(temporary, target)


KEPT_FOLDER_BITS = 0o777 | stat.S_ISVTX
"""The mode bits a replaced folder passes on: permissions and the sticky bit, not the
set-user-ID and set-group-ID bits (the new entry belongs to the writer, not the old owner;
a folder made in a set-group-ID folder has the bit from ``mkdir`` and keeps it).
A replaced file passes on its permission bits ``0o777`` only."""


def _final_mode(temporary: Path, target: Path) -> int:
    """The mode of ``temporary`` when it replaces ``target``: the mode bits of ``target``
    if it exists as the same kind of entry (a file for a file, a folder for a folder; a
    symbolic link is not followed), else a new entry's (:func:`_new_mode`); a folder
    also keeps the set-group-ID bit ``mkdir`` gave the temporary (in a set-group-ID
    folder: entries made in it later take its group, as in any folder made there)."""
    mode = os.stat(temporary, follow_symlinks=False).st_mode
    made = stat.S_IFMT(mode)
    try:
        found = os.stat(target, follow_symlinks=False).st_mode
    except FileNotFoundError:
        found = 0
    folder = made == stat.S_IFDIR
    inherited = mode & stat.S_ISGID if folder else 0
    if stat.S_IFMT(found) != made:
        return _new_mode(folder) | inherited
    return stat.S_IMODE(found) & (KEPT_FOLDER_BITS if folder else 0o777) | inherited


def _fsync_entry(path: Path, target: Path, final: bool = False) -> None:
    """Fsync a file or folder (a folder's fsync may be unsupported: ``EINVAL``, skipped
    as :func:`fsync_directory` does), with ``final`` first giving the temporary entry
    ``path`` its final mode as it replaces ``target`` (:func:`_final_mode`; through the
    open descriptor: a mode without read permission applies after the open); an error
    names ``target``."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            if final:
                os.fchmod(descriptor, _final_mode(path, target))
            try:
                os.fsync(descriptor)
            except OSError as error:
                if error.errno != errno.EINVAL or not stat.S_ISDIR(os.fstat(descriptor).st_mode):
                    raise
        finally:
            os.close(descriptor)
    except OSError as error:
        raise OSError(error.errno, error.strerror, str(target)) from None


def _remove(entries: Iterable[Path]) -> None:
    """Remove temporary files and folders, ignoring those already gone, with
    :data:`HELD_SIGNALS` held (:func:`_signals_held`): a second Ctrl-C while a release is
    being discarded does not leave part of it behind (it is raised after)."""
    with _signals_held():
        for entry in entries:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)


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


KEY_FORMAT = "privcut-state-key/1"
RECORD_FORMAT = "privcut-state-record/2"
STATE_LIMIT = 1 << 30
"""The largest state file read, in bytes (a bound on memory, far above a real state)."""
SMALL_LIMIT = 4096
"""The largest key or record file read, in bytes."""
_WIDTH = 20
"""Digits of every number in a record, so that its size never depends on the counters."""
_TAG = re.compile(r"[0-9a-f]{64}")


def _seal(key: bytes, kind: str, content: dict) -> str:
    """``content`` as JSON with an HMAC-SHA256 tag over its format and body."""
    body = json.dumps(content, sort_keys=True)
    tag = hmac.new(key, f"{kind}\n{body}".encode(), hashlib.sha256).hexdigest()
    return json.dumps({"format": kind, "hmac": tag, "body": body})


def _corrupt(path: Path) -> PrivcutError:
    return PrivcutError(f"{path}: not a privcut state file (truncated or corrupt)")


def _unseal(path: Path, key: bytes, kind: str, limit: int) -> dict:
    """The content of a file written by :func:`_seal`; refuse a corrupt, foreign or forged
    one, and anything but a regular file of at most ``limit`` bytes."""
    try:
        document = json.loads(read_regular(path, limit))
    except FileNotFoundError:
        raise PrivcutError(f"{path}: no such file") from None
    except OSError as error:
        raise PrivcutError(f"{path}: cannot be read ({error.strerror})") from None
    except (ValueError, RecursionError):  # bad JSON or UTF-8, huge numbers, deep nesting
        raise _corrupt(path) from None
    if not isinstance(document, dict):
        raise _corrupt(path)
    if "sha256" in document and "hmac" not in document:
        raise PrivcutError(
            f"{path}: an unauthenticated state from an older privcut; it cannot be trusted "
            "(anyone could have edited it): start a new oracle"
        )
    found, tag, body = document.get("format"), document.get("hmac"), document.get("body")
    if not all(isinstance(f, str) for f in (found, tag, body)) or not _TAG.fullmatch(tag):
        raise _corrupt(path)
    if found != kind:
        raise PrivcutError(
            f"{path}: holds a {found!r}, not a {kind!r} (another kind of state, or one "
            "saved by another privcut version): open it with what saved it, or start anew"
        )
    expected = hmac.new(key, f"{kind}\n{body}".encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, tag):
        raise PrivcutError(
            f"{path}: authentication failed (HMAC mismatch): the file was altered, or was "
            "not written with this key"
        )
    try:
        content = json.loads(body)
    except (ValueError, RecursionError):
        raise _corrupt(path) from None
    if not isinstance(content, dict):
        raise _corrupt(path)
    return content


def _open_key(path: Path, key_path: Path, create: bool) -> tuple[int, bytes]:
    """Open (or, with ``create``, make: O_CREAT | O_EXCL, mode 0600) the key file and lock it
    exclusively; return the open descriptor, which holds the lock, and the key."""
    import fcntl

    made = False
    try:
        if create:
            try:
                descriptor = os.open(key_path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
                made = True
            except FileExistsError:
                pass
        if not made:
            descriptor = open_regular(key_path)  # a FIFO or device would block or never end
    except FileNotFoundError:
        raise PrivcutError(
            f"{path}: its key file {key_path} is missing; a state is authenticated by the "
            "key it was created with (pass key_path= if it is kept elsewhere; without it "
            "the state cannot be resumed)"
        ) from None
    except OSError as error:
        raise PrivcutError(f"{key_path}: cannot open the key file ({error.strerror})") from None
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise PrivcutError(
                f"{path}: another process (or another oracle in this process) holds this "
                f"state (lock on {key_path}); close it first"
            ) from None
        if made:
            key = secrets.token_bytes(32)
            os.write(descriptor, json.dumps({"format": KEY_FORMAT, "key": key.hex()}).encode())
            os.fsync(descriptor)
            fsync_directory(key_path.parent)
            return descriptor, key
        return descriptor, _read_key(descriptor, key_path)
    except BaseException:
        if made:
            key_path.unlink(missing_ok=True)
        os.close(descriptor)
        raise


def _read_key(descriptor: int, key_path: Path) -> bytes:
    mode = os.fstat(descriptor).st_mode & 0o777
    if mode & 0o077:
        raise PrivcutError(
            f"{key_path}: the key file is accessible to other users (mode {mode:o}); it must "
            f"be private: chmod 600 {key_path}"
        )
    try:
        text = os.pread(descriptor, SMALL_LIMIT + 1, 0)
        if len(text) > SMALL_LIMIT:
            raise ValueError
        document = json.loads(text)
        key = bytes.fromhex(document["key"])
        if document["format"] != KEY_FORMAT or len(key) != 32:
            raise ValueError
    except (KeyError, TypeError, ValueError, RecursionError):
        raise PrivcutError(f"{key_path}: not a privcut key file (empty or corrupt)") from None
    return key


def _count(text: object) -> int:
    """A record's number: exactly ``_WIDTH`` ASCII digits."""
    if not (isinstance(text, str) and len(text) == _WIDTH and text.isascii() and text.isdigit()):
        raise ValueError(f"a record's numbers have {_WIDTH} digits, got {text!r}")
    return int(text)


def _absolute(path: str | os.PathLike, key_path: str | os.PathLike | None) -> tuple[Path, Path]:
    """Both paths made absolute now: a later ``os.chdir`` must not move the files."""
    path = Path(os.path.abspath(path))
    return path, Path(f"{path}.key") if key_path is None else Path(os.path.abspath(key_path))


class StateFile:
    """A secret state file, authenticated, protected against rollback and held exclusively.

    Three files: the state (``path``); the key (``key_path``, default ``<path>.key``,
    32 random bytes made once with O_CREAT | O_EXCL and mode 0600, never rewritten);
    and the record (``<key_path>.record``), the number of the last save and the budget
    counters at that save. The key authenticates both the state and the record
    (HMAC-SHA256), and the state carries a random identity and a sequence number.
    Both paths are made absolute when the store is created or opened, so a later
    ``os.chdir`` does not move them.

    Order of writes: the record goes first. ``advance`` writes the record with the
    next sequence number and the counters as they will be at least (a query counted
    before its data access): a fixed-size write (every number has ``_WIDTH``
    digits), so whether it succeeds does not depend on the data. ``write`` then
    saves the state at that sequence number. Each is a durable atomic write with
    mode 0600. A state is accepted only at its record's sequence number with
    counters at least the record's: a state behind its record (a rolled-back copy,
    answers released after the last save, a crash or failed write between the two
    writes) is refused, so a data access is never left uncounted; a state ahead of
    its record cannot come from these writes (a rolled-back or replaced record) and
    is refused too.

    ``create`` refuses a path where a file exists (creating over a state would erase
    the record of the budget it spent) and claims the path with O_CREAT | O_EXCL, so
    that two stores with different keys cannot both create one state. While a
    ``StateFile`` is open it holds ``flock(LOCK_EX)`` on the key file (never replaced
    by a rename, so the lock is sound), which another process, or a second open in
    this process, cannot take; ``close``, or garbage collection, releases it. A state
    can only be opened with its own key, so the key's lock holds the state too. In a
    fork's child the store closes its copy of the lock's descriptor (the parent keeps
    the lock). Files are read only if regular (a FIFO or device is refused) and up to
    ``STATE_LIMIT`` (state) or ``SMALL_LIMIT`` (key, record) bytes.

    Threat model: whoever can read the key can forge states, and whoever can write the
    key's folder can roll the record back; keep the key (and its record) private, in a
    folder only its owner can write, e.g. outside a shared or backed-up state folder
    via ``key_path``. A state file without its key is useless; restoring the state, key
    and record together from a backup cannot be detected. The default key sits beside
    the state rather than in a per-user folder: a per-user default would be keyed by
    the state's absolute path (moving or renaming a folder would orphan the key), and
    would hide budget-bearing files where a user would not look; an explicit
    ``key_path`` gives that separation where the state's folder is shared.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "state.json"
    ...     with StateFile.create(path, "demo/1") as store:
    ...         store.advance({"queries_answered": 1})
    ...         store.write({"x": 1}, {"queries_answered": 1})
    ...     with StateFile.open(path, "demo/1")[0] as store:
    ...         store.sequence
    1
    """

    def __init__(self, path: Path, kind: str, key_path: Path, descriptor: int, key: bytes):
        self.path, self.kind, self.key_path = path, kind, key_path
        self._key = key
        self.identity = secrets.token_hex(16)
        self.sequence = 0
        self._release = weakref.finalize(self, os.close, descriptor)
        _OPEN_STORES.add(self)

    @property
    def record_path(self) -> Path:
        return self.key_path.with_name(self.key_path.name + ".record")

    @classmethod
    def create(
        cls, path: str | os.PathLike, kind: str, key_path: str | os.PathLike | None = None
    ) -> StateFile:
        """A new state at ``path``, where no file may exist: lock the key (made if
        missing), claim the path and start a record."""
        path, key_path = _absolute(path, key_path)
        if os.path.lexists(path):
            raise _exists(path)
        store = cls(path, kind, key_path, *_open_key(path, key_path, create=True))
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
            os.close(os.open(path, flags, 0o600))
        except FileExistsError:
            store.close()
            raise _exists(path) from None
        except BaseException:
            store.close()
            raise
        try:
            store._write_record({})
        except BaseException:
            path.unlink(missing_ok=True)
            store.close()
            raise
        return store

    @classmethod
    def open(
        cls, path: str | os.PathLike, kind: str, key_path: str | os.PathLike | None = None
    ) -> tuple[StateFile, dict, dict]:
        """Lock and read a saved state; return the store, the payload and its counters."""
        path, key_path = _absolute(path, key_path)
        store = cls(path, kind, key_path, *_open_key(path, key_path, create=False))
        try:
            payload, spent = store._read()
        except BaseException:
            store.close()
            raise
        return store, payload, spent

    def _read(self) -> tuple[dict, dict]:
        state = _unseal(self.path, self._key, self.kind, STATE_LIMIT)
        record = _unseal(self.record_path, self._key, RECORD_FORMAT, SMALL_LIMIT)
        try:
            return self._check(state, record)
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            raise PrivcutError(f"{self.path}: malformed state ({error!r})") from None

    def _check(self, state: dict, record: dict) -> tuple[dict, dict]:
        if state["id"] != record["id"]:
            raise PrivcutError(
                f"{self.path}: does not belong to the record {self.record_path} (another "
                "state, or the key was reused by a newer one)"
            )
        sequence = _count(record["sequence"])
        spent = {key: _count(value) for key, value in record["spent"].items()}
        behind = [k for k, v in spent.items() if state["spent"].get(k, -1) < v]
        if state["sequence"] < sequence or behind:
            raise PrivcutError(
                f"{self.path}: older than its record (save {state['sequence']} < "
                f"{sequence}): a rolled-back copy, or answers were released (or data read) "
                "after the last save; resuming it would spend again budget already spent"
            )
        if state["sequence"] > sequence:
            raise PrivcutError(
                f"{self.path}: newer than its record {self.record_path} (save "
                f"{state['sequence']} > {sequence}); a record is always written before its "
                "state, so the record was rolled back or replaced"
            )
        self.identity, self.sequence = state["id"], int(state["sequence"])
        return state["payload"], state["spent"]

    def _write_record(self, spent: dict) -> None:
        record = {
            "id": self.identity,
            "sequence": f"{self.sequence:0{_WIDTH}d}",
            "spent": {key: f"{value:0{_WIDTH}d}" for key, value in spent.items()},
        }
        write_atomically(self.record_path, _seal(self._key, RECORD_FORMAT, record), mode=0o600)

    def advance(self, spent: dict) -> None:
        """Write the record of the next save, with its counters ``spent`` (lower bounds),
        before the data are read; the state on disk is behind it until :meth:`write`."""
        self.sequence += 1
        self._write_record(spent)

    def write(self, payload: dict, spent: dict) -> None:
        """Save ``payload`` with its budget counters ``spent`` (at least the record's) as
        the save that the last :meth:`advance` announced."""
        state = {"id": self.identity, "sequence": self.sequence, "spent": spent}
        state["payload"] = payload
        write_atomically(self.path, _seal(self._key, self.kind, state), mode=0o600)

    def close(self) -> None:
        """Release the lock (idempotent)."""
        self._release()

    def __enter__(self) -> StateFile:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def _exists(path: Path) -> PrivcutError:
    return PrivcutError(
        f"{path}: a file already exists there; creating a state over it would erase the "
        "record of the budget it spent: resume it instead (CutOracle.load for an oracle), or "
        "delete it, with its key and record, to start anew"
    )


_OPEN_STORES: weakref.WeakSet = weakref.WeakSet()


def _close_in_child() -> None:
    """After a fork, in the child: drop every open store's copy of its lock descriptor (the
    parent keeps the lock)."""
    for store in list(_OPEN_STORES):
        store.close()


os.register_at_fork(after_in_child=_close_in_child)
