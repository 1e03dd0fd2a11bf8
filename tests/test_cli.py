import errno
import io
import json
import os
import shutil
import subprocess
import sys

import pytest

import privcut
import privcut.datasets
from privcut.cli import main
from tests.auditing import float_sampler_slack


def test_version_flag(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"privcut {privcut.__version__}"


def test_help_lists_the_demo(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "demo" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--help"], ["--version"], [], ["cuts", "--help"]])
def test_help_and_version_on_a_full_stdout_are_an_error(argv, capsys, monkeypatch):
    """``privcut --help > /dev/full``: argparse dropped the failed write and exited 0."""

    class Full(io.TextIOBase):
        def write(self, text):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(sys, "stdout", Full())
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert "cannot write to standard output: No space left" in capsys.readouterr().err


def test_demo_releases_a_synthetic_karate_club_with_its_guarantee_and_errors(capsys):
    assert main(["demo", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert privcut.__version__ in out and "synthetic_graph" in out
    assert "(1, 0)-DP for edge-level neighbours" in out
    assert "slack" not in out  # exact samplers: none to state (it printed "0.0e+00")
    claimed = float(out.split("<= ")[1].split()[0])
    lower, upper = (float(v) for v in out.split("lies in [")[1].split("]")[0].split(", "))
    assert 0 < lower <= upper <= claimed
    karate = out.split("Davis southern women")[0].split("karate club")[1]
    assert "measurements='auto'" in karate and "budget split without looking at the data" in karate
    bisection = float(karate.split("bisection      error <= ")[1].split()[0])
    arbitrary = float(karate.split("arbitrary-cut  error <= ")[1].split()[0])
    assert 0 < bisection <= arbitrary and round(arbitrary, 1) == claimed
    groups = out.split("Davis southern women")[1]
    claimed = float(groups.split("women-events cut within ")[1].split()[0])
    measured = float(groups.split("women-events error ")[1].split(",")[0])
    assert "blocks" in groups and measured <= claimed


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
    assert report["epsilon"] == 1.0 and len(report["values"]) == len(report["queries"]) == 2
    assert report["queries"][0] == {"S": ["1", "2"], "T": ["3", "4"]}
    assert report["expected_error"][0] > 0
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    queries_json = tmp_path / "q.json"
    queries_json.write_text('[{"S": [1], "T": [2, 3]}, [["2"], ["4"]]]')
    assert main(["cuts", str(edges), "--queries", str(queries_json), "--epsilon", "1"]) == 0
    assert len(json.loads(capsys.readouterr().out)["values"]) == 2


def test_the_cuts_json_is_the_releases_to_dict(tmp_path, capsys):
    import json

    from privcut.datasets import read_edgelist
    from privcut.graph import answer_cuts

    edges = tmp_path / "g.txt"
    edges.write_text("1 2 0\n2 3 1\n3 4 1\n1 3 1\n")
    queries = tmp_path / "q.txt"
    queries.write_text("1 2, 3 4\n1, 2 3 4\n")
    arguments = ["cuts", str(edges), "--queries", str(queries), "--epsilon", "1", "--seed", "4"]
    assert main(arguments) == 0
    printed = json.loads(capsys.readouterr().out)
    workload = [(["1", "2"], ["3", "4"]), (["1"], ["2", "3", "4"])]
    expected = answer_cuts(read_edgelist(edges), workload, 1.0, rng=4).to_dict()
    assert printed == json.loads(json.dumps(expected))  # the third column ignored


def test_cuts_refuses_weight_before_reading_anything(tmp_path, capsys):
    """Sweep 37 F8: the cut-query release answers 0/1 graphs, so ``cuts --weight`` (which
    its help no longer lists) is refused up front, naming the fix, even before the
    input is read."""
    argv = ["cuts", str(tmp_path / "absent.txt"), "--queries", str(tmp_path / "absent.q")]
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--epsilon", "1", "--weight", "w"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "cuts does not take --weight" in err
    assert "drop --weight" in err and err.count("\n") == 1
    with pytest.raises(SystemExit):
        main(["cuts", "--help"])
    assert "--weight" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("queries", "message"),
    [("1 2 3\n", "expected 'S nodes, T nodes'")],
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


def test_synthesize_writes_an_edge_list_and_a_report(tmp_path, capsys):
    import json

    import networkx as nx

    from privcut.datasets import read_edgelist

    edges = tmp_path / "g.txt"
    edges.write_text("".join(f"{u} {v}\n" for u, v in nx.gnp_random_graph(30, 0.3, seed=1).edges()))
    nodes = tmp_path / "nodes.txt"
    nodes.write_text("".join(f"{i}\n" for i in range(32)))  # 30 and 31 have no edges
    output, report = tmp_path / "out" / "h.txt", tmp_path / "h.json"
    output.parent.mkdir()
    arguments = ["synthesize", str(edges), "--epsilon", "2", "--seed", "0", "--nodes", str(nodes)]
    assert main([*arguments, "-o", str(output), "--report", str(report)]) == 0
    details = json.loads(report.read_text())
    assert details["epsilon"] == 2.0 and details["delta"] == 0.0 and details["rounding"] == "random"
    assert set(details["solver"]) == {"objective", "iterations", "cuts", "converged"}
    assert all(set(b) == {"bound", "source"} for b in details["workload_bounds"].values())
    assert details["workload_bounds"]["arbitrary-cut"]["bound"] == details["cut_error_bound"]
    H = read_edgelist(output)
    assert set(H.nodes) <= {str(i) for i in range(32)} and H.number_of_edges() > 0
    assert "cut_error_bound" in output.read_text().splitlines()[0]
    err = capsys.readouterr().err
    assert "wrote" in err and "(2, 0)-DP" in err
    for name, bound in details["workload_bounds"].items():
        assert f"{name:<14} error <= {bound['bound']:.6g} ({bound['source']})" in err
    weighted = tmp_path / "w.txt"
    assert main([*arguments, "-o", str(weighted), "--rounding", "none", "--quiet"]) == 0
    assert all(0.0 < w <= 1.0 for _, _, w in read_edgelist(weighted).edges(data="weight"))
    assert [p.name for p in tmp_path.rglob(".*")] == []


def test_synthesize_reads_the_third_column_only_with_weight(tmp_path):
    """--weight ATTR reads the edge list's third column as ATTR and releases it (grid
    noise); without it the graph is unweighted, as NetworkX's weight=None."""
    import json

    edges = tmp_path / "g.txt"
    edges.write_text("".join(f"{i} {j} 0.5\n" for i in range(8) for j in range(i + 1, 8)))
    arguments = ["synthesize", str(edges), "--epsilon", "1", "--seed", "0", "--quiet"]
    reports = {}
    for extra in ([], ["--weight", "strength"]):
        report = tmp_path / "r.json"
        assert (
            main([*arguments, *extra, "-o", str(tmp_path / "h.txt"), "--report", str(report)]) == 0
        )
        reports[bool(extra)] = json.loads(report.read_text())
    assert {m["noise"] for m in reports[False]["measurements"]} == {"discrete_laplace"}
    assert {m["noise"] for m in reports[True]["measurements"]} == {"laplace"}


def test_a_third_column_without_weight_is_ignored(tmp_path, capsys):
    """Sweep 37 F7: a SNAP ``u v timestamp`` file is read unweighted, as the help says,
    by both commands; with ``synthesize --weight`` the column must be a weight."""
    edges = tmp_path / "g.txt"
    edges.write_text("".join(f"{i} {i + 1} {1217567877 + i}\n" for i in range(6)))
    plain = tmp_path / "p.txt"
    plain.write_text("".join(f"{i} {i + 1}\n" for i in range(6)))
    queries = tmp_path / "q.txt"
    queries.write_text("0 1, 2 3\n")
    outputs = {}
    for name, path in (("ts", edges), ("plain", plain)):
        argv = ["synthesize", str(path), "--epsilon", "1", "--seed", "0", "--quiet"]
        assert main([*argv, "-o", str(tmp_path / f"{name}.out")]) == 0
        outputs[name] = (tmp_path / f"{name}.out").read_text()
        assert main(["cuts", str(path), "--queries", str(queries), "--epsilon", "1"]) == 0
        assert '"values"' in capsys.readouterr().out
    assert outputs["ts"] == outputs["plain"]
    with pytest.raises(SystemExit) as exit_info:
        main([*argv[:1], str(edges), *argv[2:], "--weight", "w", "-o", str(tmp_path / "w")])
    assert exit_info.value.code == 2 and "outside [0, 1]" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "extra", "message"),
    [
        ("1 2\n2\n", [], "g.txt:2: expected"),
        ("1 2\n1 1\n", [], "self-loop"),
        ("1 2\n", ["--nodes", "NODES"], "not in the node list"),
        ("1 2\n", ["--epsilon", "0"], "epsilon"),
        ("1 2\n", ["--nodes", "MISSING"], "cannot read"),
    ],
)
def test_synthesize_reports_bad_input_before_writing(tmp_path, capsys, content, extra, message):
    edges = tmp_path / "g.txt"
    edges.write_text(content)
    (tmp_path / "nodes.txt").write_text("1\n")
    extra = [
        {"NODES": str(tmp_path / "nodes.txt"), "MISSING": str(tmp_path / "no.txt")}.get(a, a)
        for a in extra
    ]
    output = tmp_path / "h.txt"
    with pytest.raises(SystemExit) as exit_info:
        main(["synthesize", str(edges), "--epsilon", "1", "-o", str(output), *extra])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not output.exists()


def test_synthesize_reads_a_bundled_dataset(tmp_path, capsys):
    from privcut.datasets import read_edgelist

    output = tmp_path / "davis.csv"
    assert main(["synthesize", "--dataset", "davis", "--epsilon", "1", "-o", str(output)]) == 0
    H = read_edgelist(output)
    assert "Evelyn Jefferson" in H and H.number_of_nodes() <= 32
    for arguments, message in (
        (["--dataset", "enron"], "bundled graph name must be one of"),
        ([str(output), "--dataset", "davis"], "not both"),
        ([], "give an input edge list or --dataset"),
    ):
        with pytest.raises(SystemExit):
            main(["synthesize", *arguments, "--epsilon", "1", "-o", str(tmp_path / "x.txt")])
        assert message in capsys.readouterr().err


def test_synthesize_with_public_groups_reports_bounds_per_class(tmp_path, capsys):
    import json

    from privcut.datasets import planted_partition, read_edgelist

    G = planted_partition(4, 10, 0.5, 0.05, seed=3)
    edges, groups = tmp_path / "g.txt", tmp_path / "groups.txt"
    edges.write_text("".join(f"{u} {v}\n" for u, v in G.edges()))
    groups.write_text(
        "# node group\n" + "".join(f"{v},{g}\n" for v, g in G.graph["groups"].items())
    )
    output, report = tmp_path / "h.txt", tmp_path / "h.json"
    command = ["synthesize", str(edges), "--epsilon", "1", "--seed", "0", "--groups", str(groups)]
    assert main([*command, "-o", str(output), "--report", str(report)]) == 0
    details = json.loads(report.read_text())
    assert [m["name"] for m in details["measurements"]][-1] == "randomized-response"
    assert "between-group" in details["workload_bounds"]
    err = capsys.readouterr().err
    assert "between-group" in err and "blocks" in err
    assert read_edgelist(output).number_of_edges() > 0


@pytest.mark.parametrize(
    ("groups", "extra", "message"),
    [
        ("0 a\n1\n", [], "groups.txt:2: expected 'node group'"),
        ("0 a\n0 b\n", [], "listed twice"),
        ("0 a\n", [], "no group for"),
        ("0 a\n1 a\n2 b\n", ["--measurements", "edge-count,blocs"], "unknown measurement"),
        ("0 a\n1 a\n2 b\n", ["--measurements", "edge-count"], "add blocks to --measurements"),
    ],
)
def test_synthesize_reports_bad_groups_before_writing(tmp_path, capsys, groups, extra, message):
    edges, path = tmp_path / "g.txt", tmp_path / "groups.txt"
    edges.write_text("0 1\n1 2\n")
    path.write_text(groups)
    output = tmp_path / "h.txt"
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "synthesize",
                str(edges),
                "--epsilon",
                "1",
                "-o",
                str(output),
                "--groups",
                str(path),
                *extra,
            ]
        )
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not output.exists()


def test_a_failed_output_write_leaves_no_temporary_file(tmp_path):
    edges = tmp_path / "g.txt"
    edges.write_text("1 2\n2 3\n")
    queries = tmp_path / "q.txt"
    queries.write_text("1, 2 3\n")
    (tmp_path / "out").mkdir()  # -o names a folder: the rename onto it fails
    arguments = ["cuts", str(edges), "--queries", str(queries), "--epsilon", "1", "--seed", "0"]
    with pytest.raises((OSError, SystemExit)):
        main([*arguments, "-o", str(tmp_path / "out")])
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["g.txt", "out", "q.txt"]


def test_written_edge_lists_read_back_with_odd_labels(tmp_path):
    from privcut.datasets import read_edgelist

    edges = tmp_path / "edges.csv"
    edges.write_text('"#a",b\n"x y","#a"\nb,"q""r"\n"%c",b\n')
    nodes = tmp_path / "nodes.txt"
    nodes.write_text('# the public node set\n"#a"\nb\nx y\nq"r\n"%c"\n')
    out = tmp_path / "out.txt"
    argv = ["synthesize", str(edges), "--nodes", str(nodes), "--epsilon", "5", "--seed", "3"]
    assert main([*argv, "-o", str(out), "--rounding", "none", "--quiet"]) == 0
    assert sorted(read_edgelist(out).nodes) == ["#a", "%c", "b", 'q"r', "x y"]


def test_a_node_list_line_like_a_comment_is_refused_not_dropped(tmp_path, capsys):
    edges = tmp_path / "edges.txt"
    edges.write_text("a b\n")
    nodes = tmp_path / "nodes.txt"
    nodes.write_text("a\nb\n#tag\n")
    argv = ["synthesize", str(edges), "--nodes", str(nodes), "--epsilon", "1"]
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "-o", str(tmp_path / "out.txt")])
    assert exit_info.value.code == 2
    assert "ambiguous" in capsys.readouterr().err
    assert not (tmp_path / "out.txt").exists()


def test_sweep37_f3_a_void_delta_is_said_in_the_headline_and_summary(tmp_path, capsys, monkeypatch):
    """Sweep 37 F3: at epsilon 25 the samplers' slack makes delta 1, which the headline
    "(25, 0)-DP" hid (and the demo printed a delta of 16)."""
    float_sampler_slack(monkeypatch)
    output = tmp_path / "h.txt"
    arguments = ["synthesize", "--dataset", "karate", "--epsilon", "25", "--seed", "0"]
    assert main([*arguments, "-o", str(output)]) == 0
    void = "(25, 1.0e+00)-DP with the integer samplers' slack; delta 1 guarantees nothing"
    assert void in output.read_text().splitlines()[0] and void in capsys.readouterr().err
    arguments = ["synthesize", "--dataset", "karate", "--epsilon", "1", "--seed", "0"]
    assert main([*arguments, "-o", str(output)]) == 0
    # review 38 F5: a slack, however small, is stated, rounded up
    karate = privcut.datasets.load("karate")
    slack = privcut.cli.rounded_up(
        privcut.synthetic_graph(karate, 1.0, rng=0).graph["privcut"]["effective_delta"]
    )
    stated = f"(1, 0)-DP ((1, {slack})-DP with the integer samplers' slack)"
    assert stated in output.read_text().splitlines()[0] and stated in capsys.readouterr().err


def test_review38_f4_a_void_delta_from_a_tiny_epsilon_says_raise_epsilon(
    tmp_path, capsys, monkeypatch
):
    """Review 38 F4: at a tiny epsilon the slack comes from the huge noise scale, so the
    way out of delta 1 is a larger epsilon, not the smaller one the message advised."""
    float_sampler_slack(monkeypatch)
    arguments = ["synthesize", "--dataset", "karate", "--epsilon", "2e-11", "--seed", "1"]
    arguments += ["--measurements", "randomized-response", "-o", str(tmp_path / "h.txt")]
    assert main(arguments) == 0
    err = capsys.readouterr().err
    assert "delta 1 guarantees nothing: raise epsilon" in err and "smaller epsilon" not in err


def test_review38_f5_the_stated_delta_is_rounded_up():
    assert (
        privcut.cli.rounded_up(1.049e-3) == "1.1e-03" and privcut.cli.rounded_up(1.0) == "1.0e+00"
    )
    assert (
        privcut.cli.rounded_up(9.96e-7) == "1.0e-06" and privcut.cli.rounded_up(2.1e-9) == "2.1e-09"
    )


def test_review38_f1_cuts_on_an_empty_edge_list_answers_like_its_neighbour(tmp_path, capsys):
    """Review 38 F1: without --nodes the public node set is the edge list's nodes and the
    queries'; an empty edge list was refused (fewer than 2 nodes) while its one-edge
    neighbour, on the same public nodes, was answered: the exit status told them apart."""
    (tmp_path / "q.txt").write_text("a b, c d\na, b c\n")
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "one.txt").write_text("a b\n")
    for edges in ("empty.txt", "one.txt"):
        argv = ["cuts", str(tmp_path / edges), "--queries", str(tmp_path / "q.txt")]
        assert main([*argv, "--epsilon", "1", "--seed", "1", "-o", str(tmp_path / "r")]) == 0
        assert json.loads((tmp_path / "r").read_text())["epsilon"] == 1


def test_the_cuts_strategies_are_the_library_s():
    # sweep 37 F13: spelled out in the command line, to keep its start light
    from privcut.graph.workloads import STRATEGIES

    assert privcut.cli.CUT_STRATEGIES == STRATEGIES
