import errno
import os
import signal

import pytest

from privcut import files
from privcut.files import (
    PartialReplaceError,
    ReplaceTogether,
    open_regular,
    read_regular,
    write_atomically,
)


def test_a_write_replaces_the_file_with_the_asked_mode_and_no_leftover(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    write_atomically(target, b"new", mode=0o600)
    assert target.read_bytes() == b"new" and target.stat().st_mode & 0o777 == 0o600
    write_atomically(target, "text")
    umask = os.umask(0)
    os.umask(umask)
    assert target.read_text() == "text" and target.stat().st_mode & 0o777 == 0o666 & ~umask
    assert os.listdir(tmp_path) == ["out.txt"]


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
