import shutil
import subprocess

import pytest

import privcut
from privcut.cli import main


def test_version_flag(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"privcut {privcut.__version__}"


def test_help_lists_the_demo(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "demo" in capsys.readouterr().out


def test_demo_prints_version_mechanisms_and_an_audit(capsys):
    assert main(["demo", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert privcut.__version__ in out
    assert "discrete_laplace" in out and "p-value" in out


def test_demo_refuses_a_bad_epsilon_before_doing_anything(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "--epsilon", "-1"])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "epsilon must be finite and > 0" in captured.err


@pytest.mark.skipif(shutil.which("privcut") is None, reason="console script not installed")
def test_console_script_is_installed():
    done = subprocess.run(["privcut", "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"privcut {privcut.__version__}"


def test_cuts_answers_a_query_file_and_writes_json_atomically(tmp_path, capsys):
    import json

    edges = tmp_path / "g.txt"
    edges.write_text("1 2\n2 3\n3 4\n1 3\n")
    queries = tmp_path / "q.txt"
    queries.write_text("1 2, 3 4\n1, 2 3 4  # second query\n")
    output = tmp_path / "answers.json"
    arguments = ["cuts", str(edges), "--queries", str(queries), "--epsilon", "1", "--seed", "0"]
    assert main([*arguments, "-o", str(output)]) == 0
    report = json.loads(output.read_text())
    assert report["epsilon"] == 1.0 and len(report["answers"]) == 2
    assert report["answers"][0]["S"] == ["1", "2"] and report["answers"][0]["expected_error"] > 0
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    queries_json = tmp_path / "q.json"
    queries_json.write_text('[{"S": [1], "T": [2, 3]}, [["2"], ["4"]]]')
    assert main(["cuts", str(edges), "--queries", str(queries_json), "--epsilon", "1"]) == 0
    assert len(json.loads(capsys.readouterr().out)["answers"]) == 2


@pytest.mark.parametrize(
    ("queries", "message"),
    [("1 2, 99\n", "not in the graph"), ("1 2 3\n", "expected 'S nodes, T nodes'")],
)
def test_cuts_reports_bad_input_clearly(tmp_path, capsys, queries, message):
    edges = tmp_path / "g.txt"
    edges.write_text("1 2\n")
    query_file = tmp_path / "q.txt"
    query_file.write_text(queries)
    with pytest.raises(SystemExit) as exit_info:
        main(["cuts", str(edges), "--queries", str(query_file), "--epsilon", "1"])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_cuts_reports_a_missing_file(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["cuts", str(tmp_path / "none.txt"), "--queries", "q.txt", "--epsilon", "1"])
    assert "cannot read" in capsys.readouterr().err
