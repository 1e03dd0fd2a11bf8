"""Ctrl-C and a closed standard stream end the command line without a traceback (cli8):
a KeyboardInterrupt anywhere is one line on stderr and status 130, with no output written
or left half-written; stdout or stderr closed by its reader ends it quietly (status 141).
In-process, ``main(argv)`` raises SystemExit(130) to its caller (cli9, review 9 F3); the
command itself (``console()``) then ends by SIGINT, its default action recorded here
instead of taken, so that pytest lives on."""

import errno
import io
import os
import pathlib
import signal
import subprocess
import sys
import threading

import pytest

import privcut
import privcut.cli
import privcut.datasets
import privcut.files
from privcut.cli import CLOSED_PIPE, INTERRUPTED, USAGE_ERROR, console, main

from .test_cli_outputs import OLD, contents, failing_replace, run, setup


def interrupt(*arguments, **options):
    raise KeyboardInterrupt


@pytest.fixture
def raised(monkeypatch) -> list[int]:
    """The signals :func:`signal.raise_signal` was asked to raise (recorded, not raised)."""
    numbers: list[int] = []
    monkeypatch.setattr(signal, "raise_signal", numbers.append)
    return numbers


def check_interrupted(raised: list[int], status: int, err: str, message: str) -> None:
    assert status == INTERRUPTED and err == f"privcut synthesize: {message}\n"
    assert raised == []  # main leaves the caller alive: SystemExit(130), no SIGINT


@pytest.mark.parametrize("step", ["reading", "release", "writing"])
def test_ctrl_c_anywhere_is_one_line_and_no_output(tmp_path, capsys, monkeypatch, raised, step):
    if step == "reading":
        monkeypatch.setattr(privcut.datasets, "read_edge_array", interrupt)
    elif step == "release":
        monkeypatch.setattr(privcut, "synthetic_graph", interrupt)
    else:  # amid the staged writes: the edge list is written, the report not yet

        def written_then_interrupted(path, data):
            write(path, data)
            raise KeyboardInterrupt

        write = pathlib.Path.write_bytes
        monkeypatch.setattr(pathlib.Path, "write_bytes", written_then_interrupted)
    status, err = run(setup(tmp_path), capsys)
    check_interrupted(raised, status, err, "interrupted; no output was written or replaced")
    assert contents(tmp_path) == OLD  # no temporary file, no output replaced


def test_a_second_ctrl_c_before_the_discard_began_leaves_no_staged_file(
    tmp_path, capsys, monkeypatch, raised
):
    # cli9: main sweeps the staged set once more (the second KeyboardInterrupt landed in
    # ReplaceTogether.__exit__, before its removals, which hold the signals, began)
    discard = privcut.files.ReplaceTogether.discard
    calls = []

    def second_ctrl_c_first(self):
        calls.append(self)
        if len(calls) == 1:
            raise KeyboardInterrupt
        discard(self)

    def written_then_interrupted(path, data):
        path.write_text(data.decode())
        raise KeyboardInterrupt

    monkeypatch.setattr(privcut.files.ReplaceTogether, "discard", second_ctrl_c_first)
    monkeypatch.setattr(pathlib.Path, "write_bytes", written_then_interrupted)
    status, err = run(setup(tmp_path), capsys)
    check_interrupted(raised, status, err, "interrupted; no output was written or replaced")
    assert contents(tmp_path) == OLD and len(calls) == 2


def test_ctrl_c_held_until_after_the_renames_says_the_outputs_were_written(
    tmp_path, capsys, monkeypatch, raised
):
    # the renames hold SIGINT and raise it again after them: the KeyboardInterrupt ends
    # the commit, with every output in place
    commit = privcut.files.ReplaceTogether.commit

    def committed_then_interrupted(self):
        commit(self)
        raise KeyboardInterrupt

    monkeypatch.setattr(privcut.files.ReplaceTogether, "commit", committed_then_interrupted)
    status, err = run(setup(tmp_path), capsys)
    names = ", ".join(str(tmp_path / name) for name in ("h.txt", "h.json", "c.tsv"))
    check_interrupted(raised, status, err, f"interrupted after the outputs were written ({names})")
    written = contents(tmp_path)
    assert sorted(written) == ["c.tsv", "h.json", "h.txt"] and written["h.txt"] != OLD["h.txt"]


def test_ctrl_c_with_a_rename_failing_names_the_mixed_set(tmp_path, capsys, monkeypatch, raised):
    commit = privcut.files.ReplaceTogether.commit

    def partial_then_interrupted(self):
        try:
            commit(self)
        except privcut.files.PartialReplaceError:
            raise KeyboardInterrupt from None  # held amid the cleanup, raised after it

    failing_replace(monkeypatch, 2)
    monkeypatch.setattr(privcut.files.ReplaceTogether, "commit", partial_then_interrupted)
    status, err = run(setup(tmp_path), capsys)
    message = (
        f"interrupted; the outputs were replaced only in part (replaced: {tmp_path / 'h.txt'}): "
        "they do not belong together, delete them all"
    )
    check_interrupted(raised, status, err, message)


@pytest.fixture
def python_sigint():
    """SIGINT at Python's own handler while the test runs (as in the command), and back."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("second", [False, True])
def test_the_command_ends_by_sigint_after_ctrl_c(
    tmp_path, capsys, monkeypatch, raised, python_sigint, second
):
    # review 9 F3: console() (the entry point, python -m privcut), not main(), ends by
    # SIGINT: after main's SystemExit(130), or a KeyboardInterrupt out of main (a second
    # Ctrl-C while it says the first)
    monkeypatch.setattr(privcut, "synthetic_graph", interrupt)
    if second:
        monkeypatch.setattr(privcut.cli, "_say", interrupt)
    monkeypatch.setattr(sys, "argv", ["privcut", *setup(tmp_path)])
    with pytest.raises(SystemExit) as exit_info:
        console()
    assert exit_info.value.code == INTERRUPTED and raised == [signal.SIGINT]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # set back
    assert contents(tmp_path) == OLD and capsys.readouterr().err.count("\n") == (not second)


def test_the_command_ignores_ctrl_c_once_main_has_ended(
    tmp_path, monkeypatch, raised, python_sigint
):
    # review 9 F7: a Ctrl-C while the interpreter shuts down after a complete release
    # ended it silently with status 130; with no thread left to join, it is ignored
    monkeypatch.setattr(threading, "enumerate", lambda: [threading.main_thread()])
    monkeypatch.setattr(sys, "argv", ["privcut", *setup(tmp_path)])
    with pytest.raises(SystemExit) as exit_info:
        console()
    assert exit_info.value.code == 0 and raised == []
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_the_command_ignores_ctrl_c_before_main_returns(tmp_path, monkeypatch, python_sigint):
    # review 10 F2: a Ctrl-C between main's return and console's ignoring it ended a
    # complete release by a silent 130; the command's main ignores it before it returns
    monkeypatch.setattr(threading, "enumerate", lambda: [threading.main_thread()])
    assert privcut.cli.main(setup(tmp_path)) == 0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # main() alone
    assert privcut.cli._run(setup(tmp_path), final=True) == 0
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_the_entry_points_are_console():
    root = pathlib.Path(privcut.__file__).parents[1]
    scripts = (root / "pyproject.toml").read_text().split("[project.scripts]\n")[1]
    assert scripts.startswith('privcut = "privcut.cli:console"\n')
    assert "console()" in (root / "privcut" / "__main__.py").read_text()


def cuts(tmp_path) -> list[str]:
    edges, queries = tmp_path / "g.txt", tmp_path / "q.txt"
    edges.write_text("1 2\n2 3\n")
    queries.write_text("1, 2 3\n")
    return ["cuts", str(edges), "--queries", str(queries), "--epsilon", "1", "--seed", "0"]


def test_a_stdout_closed_by_its_reader_ends_quietly(tmp_path, capsys, monkeypatch):
    # `privcut cuts ... | head -c 0`: the answers go to a pipe whose reader left
    reading, writing = os.pipe()
    os.close(reading)
    stdout = io.TextIOWrapper(io.FileIO(writing, "w"))
    monkeypatch.setattr(sys, "stdout", stdout)
    try:
        with pytest.raises(SystemExit) as exit_info:
            main(cuts(tmp_path))
        assert exit_info.value.code == CLOSED_PIPE and capsys.readouterr().err == ""
        # the final flush (at the interpreter's exit) goes to os.devnull: quiet
        assert os.path.samestat(os.fstat(writing), os.stat(os.devnull))
    finally:
        stdout.close()


def test_a_full_stdout_is_an_error_naming_it_and_the_fix(tmp_path, capsys, monkeypatch):
    # `privcut cuts ... > /dev/full`: the answers cannot be written; say so, not "a file"
    class Full(io.TextIOBase):
        def write(self, text):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(sys, "stdout", Full())
    status, err = run(cuts(tmp_path), capsys)
    assert status == USAGE_ERROR
    assert "cannot write to standard output" in err and "answers to a file with -o" in err


@pytest.mark.parametrize("number", [errno.ENOSPC, errno.EBADF, errno.EPIPE])
def test_a_stderr_that_cannot_be_written_changes_no_status(tmp_path, monkeypatch, number):
    # review 9 F2: `2>/dev/full`, fd 2 open read-only (EBADF), a reader gone: the summary,
    # after the commit, failed and the status became 2 ("no output was written"); before
    # the commit, an error's message is dropped and the status stays the error's
    class Unwritable(io.TextIOBase):
        def write(self, text):
            raise OSError(number, os.strerror(number))

    monkeypatch.setattr(sys, "stderr", Unwritable())
    assert main([argument for argument in setup(tmp_path) if argument != "--quiet"]) == 0
    written = contents(tmp_path)
    assert sorted(written) == sorted(OLD) and written["h.txt"] != OLD["h.txt"]
    with pytest.raises(SystemExit) as exit_info:
        main([*setup(tmp_path), "--epsilon", "-1"])
    assert exit_info.value.code == USAGE_ERROR


def test_a_broken_pipe_elsewhere_is_an_ordinary_error(tmp_path, capsys, monkeypatch):
    def broken(*arguments, **options):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(privcut.datasets, "read_edgelist", broken)
    status, err = run(cuts(tmp_path), capsys)
    assert status == USAGE_ERROR and "Broken pipe" in err


@pytest.mark.slow
def test_a_real_sigint_while_writing(tmp_path):
    # one real process: the staged file exists when SIGINT lands, and is removed
    driver = (
        "import signal, sys, time, privcut.datasets as d\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)  # even if inherited ignored\n"
        "from privcut.cli import console\n"
        "write = d.write_edge_array\n"
        "def paused(path, *a, **k):\n"
        "    write(path, *a, **k)\n"
        "    print('WRITING', flush=True)\n"
        "    time.sleep(30)\n"
        "d.write_edge_array = paused\n"
        "console()\n"
    )
    argv = setup(tmp_path)
    root = pathlib.Path(privcut.__file__).parents[1]
    environment = {**os.environ, "PYTHONPATH": str(root)}
    process = subprocess.Popen(
        [sys.executable, "-c", driver, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    try:
        assert process.stdout.readline() == "WRITING\n"
        assert len(contents(tmp_path)) == len(OLD) + 1  # the staged edge list
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == -signal.SIGINT  # status 130 in a shell
    assert err == "privcut synthesize: interrupted; no output was written or replaced\n"
    assert contents(tmp_path) == OLD


@pytest.mark.slow
def test_closed_standard_streams_end_a_release_as_open_ones_do(tmp_path):
    """`privcut ... >&- 2>&-`: the release is written and the status is 0 (review 9 F1:
    a None sys.stdout made the final flush raise after the outputs were in place)."""
    source = tmp_path / "g.edges"
    source.write_text("".join(f"{i} {i + 1}\n" for i in range(20)))
    output = tmp_path / "out.edges"
    command = [sys.executable, "-m", "privcut", "synthesize", str(source), "--epsilon", "1"]
    command += ["-o", str(output)]
    environment = dict(os.environ, PYTHONPATH=str(pathlib.Path(privcut.__file__).parents[1]))
    for closed in ({1}, {1, 2}):
        output.unlink(missing_ok=True)
        done = subprocess.run(
            command,
            env=environment,
            stdin=subprocess.DEVNULL,
            close_fds=True,
            timeout=120,
            preexec_fn=lambda closed=closed: [os.close(fd) for fd in closed],
        )
        assert done.returncode == 0 and output.exists()


def test_ctrl_c_during_the_start_up_imports_is_one_line(tmp_path):
    """Sweep 37 F13: ``import privcut`` loaded NumPy, SciPy and NetworkX (~1.5 s) before
    the command's handling of Ctrl-C existed, and a Ctrl-C then printed a traceback. The
    SIGINT is sent as soon as the process has imported part of NumPy (``-X importtime``
    reports each import as it ends): the command now imports it inside that handling."""
    command = [sys.executable, "-X", "importtime", "-m", "privcut", *setup(tmp_path)]
    root = pathlib.Path(privcut.__file__).parents[1]
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # even if ignored
    )
    try:
        for line in process.stderr:  # until one of numpy's submodules is imported
            if line.startswith("import time:") and line.split("|")[-1].strip()[:6] == "numpy.":
                break  # numpy's own import is under way
        process.send_signal(signal.SIGINT)
        _, rest = process.communicate(timeout=60)
    finally:
        process.kill()
    err = "".join(line for line in rest.splitlines(True) if not line.startswith("import time:"))
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err == "privcut synthesize: interrupted; no output was written or replaced\n"
    assert process.returncode == -signal.SIGINT and contents(tmp_path) == OLD
