"""Bad input to the command line: exit status 2 and one line ``privcut ...: error: ...``.

Never a traceback, and never the internal-error status 70 (a bug that the CLI only hides).
The commands run in-process (``main(argv)``) with generated arguments and files; one
subprocess run checks the whole path end to end.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import privcut
import privcut.datasets
from privcut.cli import INTERNAL_ERROR, USAGE_ERROR, main
from tests.badinput import SETTINGS, time_limit

GOOD_EDGES = b"1 2\n2 3\n3 4\n1 4\n"
FILES = {
    "edges": GOOD_EDGES,
    "not utf-8": b"\xff\xfe1 2\n",
    "empty": b"",
    "one edge": b"1 2\n",
    "ambiguous comment": b"#a b\n1 2\n",
    "self-loop": b"1 1\n",
    "weight 5": b"1 2 5\n",
    "weight nan": b"1,2,nan\n",
    "nul": b"1 \x00\n",
    "json list": b'[{"S": ["1"], "T": ["2"]}]',
    "json empty": b"[]",
    "json scalar": b"3",
    "json broken": b'[\n{"S": [1],\n',
    "json nested": b'[{"S": [[1]], "T": {"a": 1}}]',
    "queries": b"1 2, 3\n",
    "unknown node": b"1, 99\n",
    "three sides": b"1, 2, 3\n",
    "only comments": b"# nothing\n",
    "groups": b"1 a\n2 a\n3 b\n4 b\n",
    "groups twice": b"1 a\n1 b\n",
    "nodes": b"1\n2\n3\n4\n5\n",
}
"""File contents by name, written fresh for each example (also as .json for queries)."""

NUMBERS = ["1", "0.5", "0", "-1", "nan", "inf", "-inf", "1000", "1e-300", "1e400", "abc", ""]


def files():
    return st.sampled_from(sorted(FILES))


@st.composite
def commands(draw):
    """argv for one command, with ``<name>`` standing for a file written before the run."""
    command = draw(st.sampled_from(["cuts", "synthesize", "demo"]))
    argv = [command]
    if command == "demo":
        return [*argv, "--epsilon", draw(st.sampled_from(["-1", "nan", "1000", "x", "0"]))]
    epsilon = draw(st.sampled_from(NUMBERS))
    argv += [f"<{draw(files())}>", "--epsilon", epsilon]
    if command == "cuts":
        suffix = draw(st.sampled_from(["", ".json"]))
        argv += ["--queries", f"<{draw(files())}>{suffix}"]
        if draw(st.booleans()):
            argv += ["--delta", draw(st.sampled_from(NUMBERS))]
        if draw(st.booleans()):
            argv += ["--strategy", draw(st.sampled_from(["auto", "blocks", "bogus"]))]
        if draw(st.booleans()):
            argv += ["--weight", "weight"]
    else:
        argv += ["--quiet", "--measurements", draw(st.sampled_from(["auto", "degrees", "x,"]))]
        if draw(st.booleans()):
            argv += ["--groups", f"<{draw(files())}>"]
        if draw(st.booleans()):
            argv += ["--nodes", f"<{draw(files())}>"]
        if draw(st.booleans()):
            argv += ["--beta", draw(st.sampled_from(NUMBERS))]
        if draw(st.booleans()):
            argv += ["--report", draw(st.sampled_from(["<out>/r.json", "/proc/x", "<out>"]))]
        if draw(st.booleans()):
            argv += ["--weight", draw(st.sampled_from(["weight", "w"]))]
    output = draw(st.sampled_from(["<out>/o.txt", "/nonexistent/o.txt", "<out>", "/proc/o"]))
    if command == "synthesize" or draw(st.booleans()):
        argv += ["-o", output]
    if draw(st.booleans()):
        argv += ["--seed", draw(st.sampled_from(["-1", "0", "x", "1.5", str(10**30)]))]
    return argv


def _materialise(argv: list[str], folder: Path) -> list[str]:
    names = {"out": str(folder)}
    for name, content in FILES.items():
        path = folder / name.replace(" ", "_")
        path.write_bytes(content)
        names[name] = str(path)
    resolved = []
    for argument in argv:
        for name, path in names.items():
            argument = argument.replace(f"<{name}>", path)
        source = Path(argument.removesuffix(".json"))
        if argument.endswith(".json") and source.is_file() and not Path(argument).exists():
            Path(argument).write_bytes(source.read_bytes())
        resolved.append(argument)
    return resolved


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """Run ``main(argv)`` under the time limit; return (status, stdout, stderr)."""
    with time_limit():
        try:
            status = main(argv)
        except SystemExit as exit_info:
            status = exit_info.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def check_cli(argv: list[str], capsys) -> None:
    status, _, err = run_cli(argv, capsys)
    assert status != INTERNAL_ERROR, f"internal error for {argv}: {err}"
    assert "Traceback" not in err, f"traceback for {argv}: {err}"
    if status == 0:
        return
    assert status == USAGE_ERROR, f"status {status} for {argv}: {err}"
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "error: " in lines[0], f"not one error line for {argv}: {err}"


@SETTINGS
@given(argv=commands())
def test_cli_bad_input_exits_with_one_error_line(argv, capsys):
    with tempfile.TemporaryDirectory() as folder:
        check_cli(_materialise(argv, Path(folder)), capsys)


REPROS = {
    "non-UTF-8 edge list": ["cuts", "<not utf-8>", "--queries", "<queries>", "--epsilon", "1"],
    "non-UTF-8 query file": ["cuts", "<edges>", "--queries", "<not utf-8>", "--epsilon", "1"],
    "non-UTF-8 node list": [
        *("synthesize", "<edges>", "--nodes", "<not utf-8>", "--epsilon", "1", "-o", "<out>/o")
    ],
    "empty query file": ["cuts", "<edges>", "--queries", "<empty>", "--epsilon", "1"],
    "[] query file": ["cuts", "<edges>", "--queries", "<json empty>.json", "--epsilon", "1"],
    "JSON scalar query file": [
        *("cuts", "<edges>", "--queries", "<json scalar>.json", "--epsilon", "1")
    ],
    "broken JSON query file": [
        *("cuts", "<edges>", "--queries", "<json broken>.json", "--epsilon", "1")
    ],
    "cuts --seed -1": [
        *("cuts", "<edges>", "--queries", "<queries>", "--epsilon", "1", "--seed", "-1")
    ],
    "unwritable -o": [
        *("cuts", "<edges>", "--queries", "<queries>", "--epsilon", "1", "-o", "/proc/o.json")
    ],
    "-o in a missing folder": [
        *("synthesize", "<edges>", "--epsilon", "1", "-o", "/nonexistent/o.txt")
    ],
    "unwritable --report": [
        *("synthesize", "<edges>", "--epsilon", "1", "-o", "<out>/o", "--report", "/proc/r")
    ],
    "empty edge list": ["synthesize", "<empty>", "--epsilon", "1", "-o", "<out>/o.txt"],
    "--epsilon 1000": ["synthesize", "<edges>", "--epsilon", "1000", "-o", "<out>/o.txt"],
}


@pytest.mark.parametrize("name", sorted(REPROS))
def test_issue_15_cli_repros_exit_with_one_error_line(name, tmp_path, capsys):
    argv = _materialise(REPROS[name], tmp_path)
    status, _, err = run_cli(argv, capsys)
    assert status == USAGE_ERROR and err.count("\n") == 1 and "error: " in err, err
    assert "Traceback" not in err and "internal error" not in err


def test_the_messages_name_the_file_and_the_fix(tmp_path, capsys):
    expected = {
        "non-UTF-8 query file": "not UTF-8",
        "[] query file": "no queries in",
        "JSON scalar query file": "no queries in",
        "broken JSON query file": ".json:3: not valid JSON",
        "cuts --seed -1": "non-negative integer",
        "unwritable --report": "/proc/r",
        "--epsilon 1000": "at most 100",
    }
    for name, message in expected.items():
        _, _, err = run_cli(_materialise(REPROS[name], tmp_path), capsys)
        assert message in err, (name, err)


def test_an_empty_edge_list_with_public_nodes_is_a_valid_release(tmp_path, capsys):
    argv = ["synthesize", "<empty>", "--nodes", "<nodes>", "--epsilon", "1", "--quiet"]
    status, _, err = run_cli(_materialise([*argv, "-o", "<out>/o.txt"], tmp_path), capsys)
    assert status == 0, err
    H = privcut.datasets.read_edgelist(tmp_path / "o.txt")
    assert sorted(H.nodes) == ["1", "2", "3", "4", "5"]


def test_an_internal_error_is_one_line_with_its_own_status(tmp_path, capsys, monkeypatch):
    def broken(*args, **kwargs):
        return 1 / 0

    monkeypatch.setattr(privcut, "synthetic_graph", broken)
    argv = _materialise(["synthesize", "<edges>", "--epsilon", "1", "-o", "<out>/o"], tmp_path)
    status, _, err = run_cli(argv, capsys)
    assert status == INTERNAL_ERROR
    assert err.count("\n") == 1 and "internal error: ZeroDivisionError" in err
    assert "please report" in err and "Traceback" not in err


def test_end_to_end_no_traceback(tmp_path):
    argv = _materialise(REPROS["non-UTF-8 edge list"], tmp_path)
    environment = {**os.environ, "PYTHONPATH": str(Path(privcut.__file__).parents[1])}
    done = subprocess.run(
        [sys.executable, "-m", "privcut.cli", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
    )
    assert done.returncode == USAGE_ERROR
    assert done.stderr.count("\n") == 1 and "not UTF-8" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_byte_order_mark_first_is_dropped_from_every_input(tmp_path, capsys):
    """Sweep 37 F5: a BOM'd edge list, node list and query file read as without it."""
    bom = b"\xef\xbb\xbf"
    (tmp_path / "e.txt").write_bytes(bom + b"0 1\n1 2\n2 0\n")
    (tmp_path / "n.txt").write_bytes(bom + b"0\n1\n2\n")
    (tmp_path / "q.json").write_bytes(bom + b'[{"S": ["0"], "T": ["1"]}]')
    argv = ["synthesize", str(tmp_path / "e.txt"), "--epsilon", "1", "--quiet", "--seed", "0"]
    output = str(tmp_path / "o.txt")
    status, _, err = run_cli([*argv, "--nodes", str(tmp_path / "n.txt"), "-o", output], capsys)
    assert status == 0, err
    assert sorted(privcut.datasets.read_edgelist(output).nodes) == ["0", "1", "2"]
    argv = ["cuts", str(tmp_path / "e.txt"), "--queries", str(tmp_path / "q.json")]
    status, out, err = run_cli([*argv, "--epsilon", "1", "--seed", "0"], capsys)
    assert status == 0 and '"0"' in out, err


@pytest.mark.parametrize("command", ["synthesize", "cuts"])
def test_a_header_and_a_joined_byte_order_mark_are_refused(command, tmp_path, capsys):
    """Sweep 37 F23 and F5: a header ``u,v`` and a BOM inside the edge list (two files
    joined) are refused by the command line, naming the line."""
    (tmp_path / "q.txt").write_text("0, 1\n")
    argv = [command, "--epsilon", "1"]
    argv += ["-o", str(tmp_path / "o.txt")] if command == "synthesize" else []
    argv += ["--queries", str(tmp_path / "q.txt")] if command == "cuts" else []
    for text, message in (
        (b"u,v\n0,1\n1,2\n", "e.txt:1: 'u,v' looks like a header, not an edge: make a header"),
        (b"0 1\n\xef\xbb\xbf1 2\n", "e.txt:2: a byte order mark (U+FEFF, invisible)"),
    ):
        (tmp_path / "e.txt").write_bytes(text)
        status, _, err = run_cli([*argv, str(tmp_path / "e.txt")], capsys)
        assert status == USAGE_ERROR and err.count("\n") == 1 and message in err, err


def test_a_duplicate_edge_names_the_line_and_directed(tmp_path, capsys):
    """Sweep 37 F11: the CLI's message names the lines and the option --directed."""
    (tmp_path / "e.txt").write_text("10 6\n6 7\n6 10\n")
    (tmp_path / "q.txt").write_text("10, 6\n")
    for argv in (
        ["synthesize", str(tmp_path / "e.txt"), "-o", str(tmp_path / "o.txt")],
        ["cuts", str(tmp_path / "e.txt"), "--queries", str(tmp_path / "q.txt")],
    ):
        status, _, err = run_cli([*argv, "--epsilon", "1"], capsys)
        assert status == USAGE_ERROR and err.count("\n") == 1, err
        assert "e.txt:3: duplicate edge ('6', '10'): line 1 lists ('10', '6')" in err
        assert "read it with --directed" in err and "directed=True" not in err
        assert run_cli([*argv, "--epsilon", "1", "--directed"], capsys)[0] == 0


OPTION_ERRORS = {
    "unknown measurement": (["--measurements", "foo"], "unknown measurement 'foo'"),
    "blocks without groups": (["--measurements", "blocks"], "add --groups FILE"),
    "groups without blocks": (
        ["--measurements", "edge-count", "--groups", "<groups>"],
        "add blocks to --measurements",
    ),
    "private without blocks": (
        ["--measurements", "degrees", "--private-communities"],
        "--private-communities gives the partition",
    ),
    "sparse rounding none": (["--method", "sparse", "--rounding", "none"], "--rounding none"),
    "sparse oracle": (["--method", "sparse", "--oracle", "alon-naor"], "drop --oracle"),
    "dense memory": (["--memory", "1", "--method", "dense"], "needs 288 bytes on 2 nodes"),
    "dense memory nodes": (
        ["--memory", "1K", "--method", "dense", "--nodes", "<nodes>"],
        "needs 1,800 bytes on the 5 nodes of --nodes",
    ),
    "weight private": (["--weight", "w", "--private-communities"], "drop --weight"),
    "auto sparse oracle": (
        ["--measurements", "edge-count,degrees,clustering", "--oracle", "alon-naor"],
        "--method auto takes the sparse one here (--measurements names clustering",
    ),
    "auto sparse rounding": (
        ["--memory", "100", "--rounding", "none"],
        "--rounding none belongs to the dense generator, but --method auto takes the sparse",
    ),
    "auto sparse nodes": (
        ["--memory", "1K", "--oracle", "spectral", "--nodes", "<nodes>"],
        "predicted 0.0018 MB on 5 nodes > the 0.001 MB --memory budget), which uses no cut",
    ),
    "groups syntax": (["--groups", "<groups twice>"], "groups_twice:2: node '1' is listed"),
}


@pytest.mark.parametrize("name", sorted(OPTION_ERRORS))
def test_option_errors_come_before_the_edge_list_is_read(name, tmp_path, capsys, monkeypatch):
    """Sweep 37 F9, F10: errors in the options alone (and the public --groups file) come
    before the private edge list is read, in CLI terms."""

    def unread(*args, **kwargs):
        raise AssertionError("the edge list was read")

    monkeypatch.setattr(privcut.datasets, "read_edge_array", unread)
    extra, message = OPTION_ERRORS[name]
    argv = ["synthesize", "<edges>", "--epsilon", "1", "-o", "<out>/o.txt", *extra]
    status, _, err = run_cli(_materialise(argv, tmp_path), capsys)
    assert status == USAGE_ERROR and err.count("\n") == 1 and message in err, err
    assert "=" not in err  # no Python argument (weight=None, method='sparse', memory=)


@pytest.mark.parametrize("option", [["--oracle", "spectral"], ["--rounding", "none"]])
def test_dense_options_are_refused_where_auto_takes_sparse(option, tmp_path, capsys, monkeypatch):
    """Sweep 37 F23: --oracle was ignored, and --rounding none refused late in Python terms,
    where --method auto takes the sparse generator on the edge list's (public) node count;
    both are refused before the release, naming why auto takes sparse."""
    (tmp_path / "e.txt").write_text("".join(f"{i} {i + 1}\n" for i in range(150)))
    argv = ["synthesize", str(tmp_path / "e.txt"), "--epsilon", "1", "--seed", "0", "--quiet"]
    argv += ["-o", str(tmp_path / "o.txt"), "--memory", "1M", *option]
    status, _, err = run_cli(argv, capsys)
    assert status == USAGE_ERROR and err.count("\n") == 1, err
    assert "--method auto takes the sparse one here (the dense generator's predicted" in err
    assert "on 151 nodes > the 1 MB --memory budget)" in err and f"drop {option[0]}" in err
    assert not (tmp_path / "o.txt").exists()

    def reached(*arguments, **options):
        raise privcut.PrivcutError(f"the release, method {options['method']}")

    monkeypatch.setattr(privcut, "synthetic_graph", reached)
    argv[argv.index("1M")] = "2M"  # dense fits: the options are the dense generator's
    assert "error: the release, method auto\n" in run_cli(argv, capsys)[2]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["synthesize", "<edges>", "-o", ""], "--output: an empty path; give a file name"),
        (["cuts", "<edges>", "--queries", "<queries>", "-o", "-"], "without -o, cuts prints"),
        (["synthesize", "<edges>", "-o", "<out>/o", "--report", "-"], "--report -: privcut"),
        (["cuts", "<edges>", "--queries", "<out>/null.json"], "query 0 names the node null"),
        (["cuts", "<edges>", "--queries", "<out>/list.json"], "names the node [1]"),
    ],
)
def test_odd_outputs_and_query_nodes_are_refused(argv, message, tmp_path, capsys, monkeypatch):
    """Sweep 37 F23: ``-o ''``, ``-o -`` and JSON query members that are no label (null,
    a list) are refused clearly; no file named '-' is written."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "null.json").write_bytes(b'[{"S": [null], "T": ["1"]}]')
    (tmp_path / "list.json").write_bytes(b'[[["2"], [[1]]]]')
    status, _, err = run_cli(_materialise([*argv, "--epsilon", "1"], tmp_path), capsys)
    assert status == USAGE_ERROR and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--measurements", "edge-count,degree-sequence", "--weight", "w"], "without --weight"),
        (["--measurements", "edge-count,degrees,clustering", "--directed"], "without --directed"),
        (["--method", "dense", "--memory", "300"], "use --method sparse"),
        (["--measurements", "clustering"], "--measurements edge-count,degrees,clustering"),
        (["--measurements", "edge-count,assortativity"], "add 'degree-sequence' to --measur"),
        (["--measurements", "filtered-randomized-response"], "edge-count,filtered-randomized"),
    ],
)
def test_library_messages_name_cli_options(extra, message, tmp_path, capsys):
    """Sweep 37 F10: a fix the library names in Python terms is named as the CLI option."""
    argv = ["synthesize", "<edges>", "--epsilon", "1", "-o", "<out>/o.txt", *extra]
    status, _, err = run_cli(_materialise(argv, tmp_path), capsys)
    assert status == USAGE_ERROR and err.count("\n") == 1 and message in err, err
    assert "=None" not in err and "directed=" not in err and "method=" not in err
    assert "['" not in err and "to measurements" not in err
