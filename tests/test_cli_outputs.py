"""A command's outputs are written together (review stop 28, r6 F5): all of them replaced,
or none; a failed write leaves the earlier files untouched and no temporary file, exits 2
naming the path and the fix; a rename failing after another (rare) exits 74 naming what was
replaced; unwritable targets are refused before any spend. In-process (``main(argv)``)."""

import argparse
import errno
import json
import os
import pathlib
import signal

import pytest

import privcut
import privcut.cli
import privcut.datasets
import privcut.files
import privcut.graph
from privcut.cli import PARTIAL_WRITE, USAGE_ERROR, main

OLD = {"h.txt": "old graph\n", "h.json": "old report\n", "c.tsv": "old partition\n"}


def setup(tmp_path, old=True):
    """A small edge list and the synthesize command writing h.txt, h.json and c.tsv (the
    partition bought with --private-communities), with earlier outputs if ``old``."""
    edges = tmp_path / "g.txt"
    edges.write_text("".join(f"{i} {j}\n" for i in range(12) for j in range(i + 1, 12, 3)))
    if old:
        for name, text in OLD.items():
            (tmp_path / name).write_text(text)
    return [
        "synthesize",
        str(edges),
        "--epsilon",
        "1",
        "--seed",
        "0",
        "--quiet",
        "-o",
        str(tmp_path / "h.txt"),
        "--report",
        str(tmp_path / "h.json"),
        "--private-communities",
        "--communities-out",
        str(tmp_path / "c.tsv"),
    ]


def contents(tmp_path) -> dict[str, str]:
    """Every file in the folder but the input (temporary files included)."""
    return {p.name: p.read_text() for p in sorted(tmp_path.iterdir()) if p.name != "g.txt"}


def run(argv, capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return exit_info.value.code, err


def test_success_writes_every_output_and_no_temporary_file(tmp_path):
    assert main(setup(tmp_path)) == 0
    written = contents(tmp_path)
    assert sorted(written) == ["c.tsv", "h.json", "h.txt"]
    assert written["h.txt"].startswith("# privcut synthetic graph")
    assert json.loads(written["h.json"])["communities"] is not None
    assert written["c.tsv"].startswith("# node\tcommunity\n")


@pytest.mark.parametrize("old", [True, False])
@pytest.mark.parametrize("failing", ["h.json", "c.tsv"])
def test_a_failing_later_write_leaves_no_new_output(tmp_path, capsys, monkeypatch, old, failing):
    def full(path, data):
        if path.name.startswith(f".{failing}."):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return write(path, data)

    write = pathlib.Path.write_bytes  # the text outputs are written straight into the stage
    monkeypatch.setattr(pathlib.Path, "write_bytes", full)
    status, err = run(setup(tmp_path, old), capsys)
    assert status == USAGE_ERROR
    option = {"h.json": "--report", "c.tsv": "--communities-out"}[failing]
    assert f"{option} {tmp_path / failing}: cannot be written (No space left on device)" in err
    assert f"no output was written or replaced: free space in {tmp_path}" in err
    assert contents(tmp_path) == (OLD if old else {})


def test_a_failing_first_write_touches_nothing(tmp_path, capsys, monkeypatch):
    def denied(path, *arguments, **options):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr("privcut.datasets.write_edge_array", denied)
    status, err = run(setup(tmp_path), capsys)
    assert status == USAGE_ERROR
    assert f"--output {tmp_path / 'h.txt'}: cannot be written (Permission denied)" in err
    assert f"make {tmp_path} writable, or give another path" in err
    assert contents(tmp_path) == OLD


def failing_replace(monkeypatch, calls: int):
    """Make the ``calls``-th ``os.replace`` of a commit fail (those inside the atomic
    writes of the temporary files, onto a ``.tmp`` name, pass)."""
    replace, seen = os.replace, []

    def flaky(source, target):
        if not str(target).endswith(".tmp"):
            seen.append(target)
            if len(seen) == calls:
                raise OSError(errno.EIO, "Input/output error", str(source))
        return replace(source, target)

    monkeypatch.setattr(os, "replace", flaky)


def test_a_failing_first_rename_touches_nothing(tmp_path, capsys, monkeypatch):
    failing_replace(monkeypatch, 1)
    status, err = run(setup(tmp_path), capsys)
    assert status == USAGE_ERROR and f"--output {tmp_path / 'h.txt'}: cannot be written" in err
    assert contents(tmp_path) == OLD


def test_a_failing_later_rename_names_what_was_replaced(tmp_path, capsys, monkeypatch):
    failing_replace(monkeypatch, 2)
    status, err = run(setup(tmp_path), capsys)
    assert status == PARTIAL_WRITE
    assert f"cannot replace {tmp_path / 'h.json'} (Input/output error)" in err
    assert f"replaced with this release: {tmp_path / 'h.txt'};" in err
    assert f"NOT replaced (older content or absent): {tmp_path / 'h.json'}, " in err
    written = contents(tmp_path)
    assert sorted(written) == ["c.tsv", "h.json", "h.txt"]  # no temporary file left
    assert written["h.txt"] != OLD["h.txt"]
    assert {written["h.json"], written["c.tsv"]} == {OLD["h.json"], OLD["c.tsv"]}


def test_the_cuts_output_goes_through_the_same_path(tmp_path, capsys, monkeypatch):
    edges, queries, output = tmp_path / "g.txt", tmp_path / "q.txt", tmp_path / "a.json"
    edges.write_text("1 2\n2 3\n")
    queries.write_text("1, 2 3\n")
    output.write_text("old answers\n")
    failing_replace(monkeypatch, 1)
    argv = ["cuts", str(edges), "--queries", str(queries), "--epsilon", "1", "-o", str(output)]
    status, err = run(argv, capsys)
    assert status == USAGE_ERROR and f"--output {output}: cannot be written" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "g.txt", "q.txt"]
    assert output.read_text() == "old answers\n"


@pytest.mark.parametrize("option", ["-o", "--report", "--communities-out"])
def test_unwritable_targets_are_refused_before_any_spend(tmp_path, capsys, monkeypatch, option):
    def spent(*arguments, **options):
        raise AssertionError("the budget was spent before the outputs were checked")

    monkeypatch.setattr(privcut, "synthetic_graph", spent)
    monkeypatch.setattr(privcut.graph, "answer_cuts", spent)
    argv = setup(tmp_path, old=False)
    argv[argv.index(option) + 1] = str(tmp_path / "missing" / "x")
    status, err = run(argv, capsys)
    assert status == USAGE_ERROR and "folder" in err and "does not exist" in err
    queries = tmp_path / "q.txt"
    queries.write_text("1, 2\n")
    cuts = ["cuts", argv[1], "--queries", str(queries), "--epsilon", "1"]
    status, err = run([*cuts, "-o", str(tmp_path / "missing" / "a.json")], capsys)
    assert status == USAGE_ERROR and "does not exist" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "q.txt"]


@pytest.mark.parametrize("command", ["synthesize", "cuts"])
def test_the_help_documents_how_outputs_are_written_their_modes_and_ctrl_c(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "The outputs are written together" in help_text and "exits 74" in help_text
    assert "keeps its permission bits" in help_text and "Ctrl-C" in help_text


def test_an_output_naming_an_input_file_is_refused(tmp_path, capsys):
    argv = setup(tmp_path, old=False)
    edges, nodes = argv[1], tmp_path / "nodes.txt"
    nodes.write_text("".join(f"{i}\n" for i in range(12)))
    os.link(nodes, tmp_path / "linked.txt")  # the same file under another name
    for option, target, named, what in (
        ("-o", edges, "the input", "the private input"),
        ("--report", str(tmp_path / "linked.txt"), "--nodes", "this public input"),
        ("--communities-out", str(tmp_path / "sub" / ".." / "nodes.txt"), "--nodes", "this "),
    ):
        (tmp_path / "sub").mkdir(exist_ok=True)
        command = [*argv, "--nodes", str(nodes)]
        command[command.index(option) + 1] = target
        status, err = run(command, capsys)
        assert status == USAGE_ERROR and f"is the same file as {named}" in err
        assert f"would replace {what}" in err
    queries = tmp_path / "q.txt"
    queries.write_text("1, 2\n")
    cuts = ["cuts", edges, "--queries", str(queries), "--epsilon", "1", "-o", str(queries)]
    status, err = run(cuts, capsys)
    assert status == USAGE_ERROR and "is the same file as --queries" in err
    assert "would replace this public input" in err
    assert queries.read_text() == "1, 2\n" and nodes.read_text().startswith("0\n1\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "g.txt",
        "linked.txt",
        "nodes.txt",
        "q.txt",
        "sub",
    ]


def test_an_output_that_is_not_a_regular_file_is_refused(tmp_path, capsys):
    # e.g. --report /dev/stdout: the rename would replace the device (as root) by a file
    argv = setup(tmp_path, old=False)
    os.mkfifo(tmp_path / "pipe")
    argv[argv.index("--report") + 1] = str(tmp_path / "pipe")
    status, err = run(argv, capsys)
    assert status == USAGE_ERROR and f"--report {tmp_path / 'pipe'}: not a regular file" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "pipe"]
    assert not (tmp_path / "pipe").is_file()


def test_a_folder_fsync_failing_after_the_renames_is_reported(tmp_path, capsys, monkeypatch):
    def failing_once_renamed(folder):  # the staged writes' own fsyncs pass
        if not any(name.endswith(".tmp") for name in os.listdir(folder)):
            raise OSError(errno.EIO, "Input/output error")
        return fsync(folder)

    fsync = privcut.files.fsync_directory
    monkeypatch.setattr(privcut.files, "fsync_directory", failing_once_renamed)
    status, err = run(setup(tmp_path), capsys)
    assert status == PARTIAL_WRITE and "all outputs were replaced" in err
    assert "could not be flushed to disk (Input/output error)" in err
    assert sorted(contents(tmp_path)) == ["c.tsv", "h.json", "h.txt"]
    assert contents(tmp_path)["h.txt"] != OLD["h.txt"]


def refused_before_any_spend(monkeypatch) -> None:
    def spent(*arguments, **options):
        raise AssertionError("the budget was spent before the outputs were checked")

    monkeypatch.setattr(privcut, "synthetic_graph", spent)


@pytest.mark.parametrize("length", [230, 256])
def test_a_long_output_name_is_written_or_refused_before_any_spend(tmp_path, capsys, length):
    # review r7 F2: the staged temporary's name no longer grows with the target's, and a
    # name beyond NAME_MAX is refused by the checks, before the release
    argv = setup(tmp_path, old=False)
    name = "o" * (length - 4) + ".txt"
    argv[argv.index("--report") + 1] = str(tmp_path / name)
    if length <= 255:
        assert main(argv) == 0 and (tmp_path / name).is_file()
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        return
    with pytest.MonkeyPatch.context() as patch:
        refused_before_any_spend(patch)
        status, err = run(argv, capsys)
    assert status == USAGE_ERROR and "NAME_MAX (255 bytes); give a shorter name" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt"]


def test_the_temporary_file_probe_failing_is_refused_before_any_spend(
    tmp_path, capsys, monkeypatch
):
    # the CI runs as root: a folder refusing new files is simulated
    def refused(path, *arguments):
        if str(path).endswith(".tmp"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return create(path, *arguments)

    create = os.open
    refused_before_any_spend(monkeypatch)
    monkeypatch.setattr(os, "open", refused)
    status, err = run(setup(tmp_path, old=False), capsys)
    assert status == USAGE_ERROR and f"cannot write in {tmp_path}: Permission denied" in err


def test_an_output_that_is_a_link_or_in_a_system_folder_is_refused(tmp_path, capsys, monkeypatch):
    # review r7 F5: "-o /dev/stdout" with stdout a file would replace the link itself
    refused_before_any_spend(monkeypatch)
    argv = setup(tmp_path, old=False)
    (tmp_path / "out").symlink_to("/proc/self/fd/1")
    for target, message in (
        (tmp_path / "out", "a symbolic link (to /proc/self/fd/1)"),
        ("/dev/null", "in the system folder /dev"),
        ("/proc/self/fd/1", "in the system folder /proc"),
    ):
        argv[argv.index("-o") + 1] = str(target)
        status, err = run(argv, capsys)
        assert status == USAGE_ERROR and message in err
    assert (tmp_path / "out").is_symlink()


def test_a_sigterm_while_writing_removes_the_temporary_files(tmp_path, monkeypatch):
    # review r7 F6: the staged release is removed, then the process ends as by the signal
    # (its default action is replaced here by a record, so that pytest lives on)
    if signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        pytest.skip("SIGTERM has a handler here")
    raised = []
    monkeypatch.setattr(signal, "raise_signal", raised.append)

    def terminated(path, data):
        write(path, data)
        os.kill(os.getpid(), signal.SIGTERM)

    write = pathlib.Path.write_bytes
    monkeypatch.setattr(pathlib.Path, "write_bytes", terminated)
    with pytest.raises(SystemExit) as exit_info:
        main(setup(tmp_path))
    assert exit_info.value.code == 128 + signal.SIGTERM and raised == [signal.SIGTERM]
    assert contents(tmp_path) == OLD  # no temporary file, no output replaced
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_a_replaced_output_keeps_its_mode_and_a_new_one_follows_the_umask(tmp_path):
    # cli8: chmod 640 out.edges, then synthesize -o out.edges: still 640 (was 644)
    argv = setup(tmp_path)
    (tmp_path / "h.txt").chmod(0o640)
    (tmp_path / "h.json").unlink()
    previous = os.umask(0o027)
    try:
        assert main(argv) == 0
    finally:
        os.umask(previous)
    modes = {path.name: path.stat().st_mode & 0o777 for path in tmp_path.iterdir()}
    assert modes == {"g.txt": 0o644, "h.txt": 0o640, "h.json": 0o640, "c.tsv": 0o644}


def test_a_folder_output_gets_the_mode_mkdir_gives(tmp_path):
    # cli8: the Dask engine's Parquet folder was staged by mkdtemp, and stayed 0700
    arguments = argparse.Namespace()
    table = privcut.cli._Output("--output", str(tmp_path / "table"), write_part, folder=True)
    previous = os.umask(0o022)
    try:
        privcut.cli._write_outputs(arguments, [table])
    finally:
        os.umask(previous)
    assert (tmp_path / "table").stat().st_mode & 0o777 == 0o755
    assert arguments.replaced == (tmp_path / "table",)
    assert (tmp_path / "table" / "part.0.parquet").read_text() == "rows"


def write_part(folder: pathlib.Path) -> None:
    (folder / "part.0.parquet").write_text("rows")
