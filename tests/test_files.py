import errno
import os
import pathlib
import signal
import stat
import threading

import pytest

from privcut import files
from privcut.files import (
    PartialReplaceError,
    ReplaceTogether,
    check_replaceable,
    open_regular,
    read_regular,
    write_atomically,
)


@pytest.fixture(autouse=True)
def interruptible():
    """SIGINT raising KeyboardInterrupt, as in a foreground run: a shell's background job
    (``pytest ... &``) starts with SIGINT ignored, and the tests of held signals would then
    see no KeyboardInterrupt."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_write_replaces_the_file_with_the_asked_mode_and_no_leftover(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    write_atomically(target, b"new", mode=0o600)
    assert target.read_bytes() == b"new" and target.stat().st_mode & 0o777 == 0o600
    write_atomically(target, "text")  # cli9: a replaced file keeps its mode
    assert target.read_text() == "text" and target.stat().st_mode & 0o777 == 0o600
    write_atomically(tmp_path / "new.txt", "text")
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "new.txt").stat().st_mode & 0o777 == 0o666 & ~umask
    assert sorted(os.listdir(tmp_path)) == ["new.txt", "out.txt"]


def test_a_failed_write_leaves_no_temporary_file(tmp_path):
    (tmp_path / "folder").mkdir()
    with pytest.raises(OSError):
        write_atomically(tmp_path / "folder", "text")
    with pytest.raises(OSError):
        write_atomically(tmp_path / "missing" / "out.txt", "text")
    assert os.listdir(tmp_path) == ["folder"] and os.listdir(tmp_path / "folder") == []


def test_reads_refuse_fifos_devices_symlinks_and_oversized_files_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "zero").symlink_to("/dev/zero")
    (tmp_path / "data").write_bytes(b"x" * 100)
    (tmp_path / "link").symlink_to(tmp_path / "data")
    for name in ("pipe", "zero"):
        with pytest.raises(OSError, match="not a regular file"):
            read_regular(tmp_path / name, 10, follow_symlinks=True)
    with pytest.raises(OSError, match="symbolic link"):
        read_regular(tmp_path / "link", 1000)
    with pytest.raises(OSError, match="longer than 99 bytes"):
        read_regular(tmp_path / "data", 99)
    assert read_regular(tmp_path / "link", 100, follow_symlinks=True) == b"x" * 100
    os.close(open_regular(tmp_path / "link"))


def test_replace_together_stages_files_and_folders_and_discards_on_error(tmp_path):
    graph, table = tmp_path / "h.txt", tmp_path / "table"
    graph.write_text("old")
    with pytest.raises(RuntimeError), ReplaceTogether() as outputs:
        write_atomically(outputs.path(graph), "new")
        (outputs.folder(table) / "part.0").write_text("rows")
        raise RuntimeError("a later output failed")
    assert os.listdir(tmp_path) == ["h.txt"] and graph.read_text() == "old"
    with ReplaceTogether() as outputs:
        write_atomically(outputs.path(graph), "new")
        (outputs.folder(table) / "part.0").write_text("rows")
    assert sorted(os.listdir(tmp_path)) == ["h.txt", "table"] and graph.read_text() == "new"
    assert (table / "part.0").read_text() == "rows"
    with pytest.raises(ValueError, match="start a new one"):
        outputs.path(graph)


def test_replace_together_reports_a_folder_fsync_failing_after_the_renames(tmp_path, monkeypatch):
    def failing(folder):
        raise OSError(errno.EIO, "Input/output error")

    outputs = ReplaceTogether()
    outputs.path(tmp_path / "a").write_text("a")
    outputs.path(tmp_path / "b").write_text("b")
    monkeypatch.setattr(files, "fsync_directory", failing)
    with pytest.raises(PartialReplaceError) as error:
        outputs.commit()
    assert error.value.replaced == (tmp_path / "a", tmp_path / "b") and error.value.kept == ()
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]


def test_a_signal_during_the_renames_is_delivered_after_all_of_them(tmp_path, monkeypatch):
    class Stopped(Exception):
        pass

    def stop(number, frame):
        raise Stopped

    def replace_and_signal(source, target):
        replace(source, target)
        os.kill(os.getpid(), signal.SIGTERM)  # held: not raised amid the renames

    replace = os.replace
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        outputs = ReplaceTogether()
        for name in "abc":
            outputs.path(tmp_path / name).write_text(name)
        monkeypatch.setattr(os, "replace", replace_and_signal)
        with pytest.raises(Stopped):
            outputs.commit()
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert sorted(os.listdir(tmp_path)) == ["a", "b", "c"]
    assert [(tmp_path / name).read_text() for name in "abc"] == ["a", "b", "c"]


def test_replace_together_touches_no_target_when_an_fsync_fails(tmp_path, monkeypatch):
    def failing(descriptor):
        raise OSError(errno.EIO, "Input/output error")

    (tmp_path / "b").write_text("old")
    outputs = ReplaceTogether()
    outputs.path(tmp_path / "a").write_text("a")
    outputs.path(tmp_path / "b").write_text("b")
    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(OSError) as error:
        outputs.commit()
    assert not isinstance(error.value, PartialReplaceError)
    assert error.value.filename == str(tmp_path / "a") and error.value.errno == errno.EIO
    assert os.listdir(tmp_path) == ["b"] and (tmp_path / "b").read_text() == "old"


def signalled_commit(tmp_path, monkeypatch, numbers, during=os.replace) -> None:
    """Commit one staged file; each of ``numbers`` is sent amid the renames."""

    def replace_and_signal(source, target):
        during(source, target)
        for number in numbers:
            os.kill(os.getpid(), number)

    outputs = ReplaceTogether()
    outputs.path(tmp_path / "a").write_text("a")
    monkeypatch.setattr(os, "replace", replace_and_signal)
    outputs.commit()


def test_a_sigint_held_with_a_sigterm_loses_neither(tmp_path, monkeypatch):
    # review r7 F3 (1): the KeyboardInterrupt of a SIGINT did stop a held SIGTERM
    terms = []
    previous = signal.signal(signal.SIGTERM, lambda number, frame: terms.append(number))
    try:
        with pytest.raises(KeyboardInterrupt):
            signalled_commit(tmp_path, monkeypatch, [signal.SIGINT, signal.SIGTERM])
        signal.pthread_sigmask(signal.SIG_BLOCK, [])  # runs any handler still due
        assert terms == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert (tmp_path / "a").read_text() == "a"


def test_a_sigint_amid_the_restores_leaves_every_handler_restored(tmp_path, monkeypatch):
    # review r7 F3 (2): a SIGINT landing once its handler was back left SIGTERM and SIGHUP
    # on the recording handler for good
    def restoring(number, handler):
        previous = set_handler(number, handler)
        if number == signal.SIGINT and handler is signal.default_int_handler:
            # lands amid the restores, in the main thread (which holds it blocked): a
            # process-wide os.kill could reach another thread of the test process, not
            # blocking it, and run the handler at once (cli8: the flake of this test)
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        return previous

    def marker(number, frame):
        raise AssertionError("not to run")

    set_handler = signal.signal
    previous = set_handler(signal.SIGTERM, marker)
    try:
        monkeypatch.setattr(signal, "signal", restoring)
        with pytest.raises(KeyboardInterrupt):
            signalled_commit(tmp_path, monkeypatch, [signal.SIGINT])
        monkeypatch.setattr(signal, "signal", set_handler)
        assert signal.getsignal(signal.SIGTERM) is marker
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        set_handler(signal.SIGTERM, previous)


def test_a_handler_raising_amid_the_restores_loses_no_held_signal(tmp_path, monkeypatch):
    # cli8: a SIGINT reaching another thread (not blocking it) runs its handler in the
    # main thread amid the restores; a SIGTERM held during the renames is still delivered
    def restoring(number, handler):
        previous = set_handler(number, handler)
        if number == signal.SIGINT and handler is signal.default_int_handler:
            raise KeyboardInterrupt  # as the handler would, run here
        return previous

    terms = []
    set_handler = signal.signal
    previous = set_handler(signal.SIGTERM, lambda number, frame: terms.append(number))
    try:
        monkeypatch.setattr(signal, "signal", restoring)
        with pytest.raises(KeyboardInterrupt):
            signalled_commit(tmp_path, monkeypatch, [signal.SIGTERM])
        monkeypatch.setattr(signal, "signal", set_handler)
        signal.pthread_sigmask(signal.SIG_BLOCK, [])  # runs any handler still due
        assert terms == [signal.SIGTERM]
    finally:
        set_handler(signal.SIGTERM, previous)


def test_temporary_names_do_not_grow_with_the_target_and_are_probed(tmp_path):
    # review r7 F2: a target of 250 bytes gets temporaries that fit NAME_MAX, nested too
    target = tmp_path / ("t" * 250)
    check_replaceable(target)
    with ReplaceTogether() as outputs:
        write_atomically(outputs.path(target), "x")
    assert os.listdir(tmp_path) == [target.name] and target.read_text() == "x"
    with pytest.raises(OSError) as error:
        check_replaceable(tmp_path / ("t" * 256))
    assert error.value.errno == errno.ENAMETOOLONG and os.listdir(tmp_path) == [target.name]


@pytest.fixture(params=[0o022, 0o027])
def umask(request):
    """Each test run under two umasks (restored after)."""
    previous = os.umask(request.param)
    yield request.param
    os.umask(previous)


def test_replace_together_keeps_a_target_s_mode_and_makes_new_ones_as_open_and_mkdir(
    tmp_path, umask
):
    # cli8: a replaced file or folder keeps its permission bits (not setuid or setgid); a
    # new file is 0666, a new folder 0777, less the umask. cli9 (review 9 F5, F8): staged
    # entries are private (0600, 0700) until the commit; a file's sticky bit is dropped
    kept, setuid, folder, link = (tmp_path / name for name in ("kept", "setuid", "dir", "link"))
    for path, mode in ((kept, 0o1604), (setuid, 0o4750)):
        path.write_text("old")
        path.chmod(mode)
    folder.mkdir()
    folder.chmod(0o1710)
    link.symlink_to(kept)
    outputs = ReplaceTogether()
    for target in (kept, setuid, link, tmp_path / "new"):
        write_atomically(outputs.path(target), "new")  # a nested temporary keeps 0600
    for target in (folder, tmp_path / "new-dir"):
        (outputs.folder(target) / "part.0").write_text("rows")
    staged = {p.lstat().st_mode & 0o7777 for p in tmp_path.iterdir() if p.name[0] == "."}
    assert staged == {0o600 & ~umask, 0o700 & ~umask} and outputs.replaced == ()
    outputs.commit()
    assert len(outputs.replaced) == 6
    modes = {path.name: path.lstat().st_mode & 0o7777 for path in tmp_path.iterdir()}
    assert modes == {
        "kept": 0o604,
        "setuid": 0o750,
        "link": 0o666 & ~umask,  # the link is replaced, its target's mode not taken
        "new": 0o666 & ~umask,
        "dir": 0o1710,
        "new-dir": 0o777 & ~umask,
    }
    assert (folder / "part.0").read_text() == "rows" and kept.read_text() == "new"


def test_a_folder_made_in_a_set_group_id_folder_keeps_the_bit_mkdir_gave_it(tmp_path, umask):
    # review 10 F1: the commit's mode cleared the set-group-ID bit of a new Dask folder
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o2775)
    if not shared.stat().st_mode & stat.S_ISGID:
        pytest.skip("this file system does not keep a folder's set-group-ID bit")
    old = shared / "old"
    old.mkdir()
    old.chmod(0o750)
    outputs = ReplaceTogether()
    for target in (shared / "new", old):
        (outputs.folder(target) / "part.0").write_text("rows")
    outputs.commit()
    new_mode = 0o777 & ~umask
    assert (shared / "new").stat().st_mode & 0o7777 == stat.S_ISGID | new_mode
    assert old.stat().st_mode & 0o7777 == stat.S_ISGID | 0o750


def test_an_atomic_write_is_private_while_written_and_keeps_a_file_s_mode(tmp_path, umask):
    # cli9 (review 9 F5): the temporary file is 0600 until its final mode, just before
    # the rename
    target = tmp_path / "out.txt"
    for existing, final in ((None, 0o666 & ~umask), (0o640, 0o640), (0o1755, 0o755)):
        if existing is not None:
            target.chmod(existing)
        with files.open_atomically(target) as write:
            write(b"edges")
            (temporary,) = (p for p in tmp_path.iterdir() if p.name.startswith("."))
            assert temporary.stat().st_mode & 0o7777 == 0o600 & ~umask
        assert target.stat().st_mode & 0o7777 == final and os.listdir(tmp_path) == ["out.txt"]


def test_a_second_signal_while_an_atomic_write_is_discarded_leaves_no_temporary(
    tmp_path, monkeypatch
):
    # cli9 (review 9 F4): the removal of open_atomically's temporary file holds the
    # signals, as ReplaceTogether's does: a second Ctrl-C there left the edge list behind
    arrived = []

    def signal_then_unlink(path, missing_ok=False):
        os.kill(os.getpid(), signal.SIGTERM)  # held: not raised before the removal
        unlink(path, missing_ok=missing_ok)

    unlink = pathlib.Path.unlink
    previous = signal.signal(
        signal.SIGTERM, lambda number, frame: arrived.append(os.listdir(tmp_path))
    )
    try:
        with pytest.raises(KeyboardInterrupt), files.open_atomically(tmp_path / "o.txt") as write:
            write(b"the whole edge list")
            monkeypatch.setattr(pathlib.Path, "unlink", signal_then_unlink)
            raise KeyboardInterrupt
        signal.pthread_sigmask(signal.SIG_BLOCK, [])  # runs any handler still due
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert arrived == [[]]


def test_a_keyboard_interrupt_while_staging_removes_every_temporary_entry(tmp_path):
    (tmp_path / "h.txt").write_text("old")
    with pytest.raises(KeyboardInterrupt), ReplaceTogether() as outputs:
        outputs.path(tmp_path / "h.txt").write_text("new")
        outputs.folder(tmp_path / "table")
        raise KeyboardInterrupt
    assert os.listdir(tmp_path) == ["h.txt"] and (tmp_path / "h.txt").read_text() == "old"
    assert outputs.replaced == ()


def test_a_signal_while_discarding_is_held_until_every_entry_is_removed(tmp_path, monkeypatch):
    # cli8: a second Ctrl-C amid the cleanup must not leave part of the release behind
    arrived = []

    def unlink_and_signal(path, missing_ok=False):
        unlink(path, missing_ok=missing_ok)
        if not arrived:
            os.kill(os.getpid(), signal.SIGTERM)  # held: not raised amid the removals

    def stop(number, frame):
        arrived.append(os.listdir(tmp_path))

    unlink = pathlib.Path.unlink
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        outputs = ReplaceTogether()
        for name in ("a", "b", "c"):
            outputs.path(tmp_path / name).write_text(name)
        monkeypatch.setattr(pathlib.Path, "unlink", unlink_and_signal)
        outputs.discard()
        signal.pthread_sigmask(signal.SIG_BLOCK, [])  # runs any handler still due
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert arrived == [[]]  # delivered once, after every temporary file was removed
