"""The command line releases functions of noise and public data only (issue 15): the
written edge list's order and orientation follow the public node set (leak 3), and
``privcut cuts`` never reveals whether a node has edges (leak 4)."""

import json

import numpy as np
import pytest

from privcut.cli import main

NODES = "abcdef"


def write(path, text):
    path.write_text(text)
    return str(path)


def synthesize(tmp_path, edges, seed):
    graph = write(tmp_path / "g.txt", edges)
    nodes = write(tmp_path / "nodes.txt", "\n".join(NODES) + "\n")
    output, report = tmp_path / "h.txt", tmp_path / "h.json"
    arguments = ["synthesize", graph, "--nodes", nodes, "--epsilon", "1", "--seed", str(seed)]
    assert main([*arguments, "-o", str(output), "--report", str(report), "--quiet"]) == 0
    return output.read_text(), report.read_text()


def edge_lines(text):
    return [line.split() for line in text.splitlines() if not line.startswith("#")]


def test_synthesize_writes_the_same_bytes_whatever_the_edge_order(tmp_path):
    """G1 = {a-b, c-d} listed as given and reversed (order and orientation): one output
    and one report (which holds no timings)."""
    for seed in range(5):
        given = synthesize(tmp_path, "a b\nc d\n", seed)
        assert synthesize(tmp_path, "d c\nb a\n", seed) == given
        assert not {"seconds", "timings"} & set(json.loads(given[1]))
        lines = edge_lines(given[0])
        assert lines == sorted(lines) and all(u < v for u, v in lines)


@pytest.mark.slow
def test_synthesize_orientation_does_not_reveal_an_edge(tmp_path):
    """The issue's repro: G2 = G1 + 'f a'. The old CLI wrote the pair (e, f) as 'f e' only
    when f came before e in the edge list, i.e. when f had an edge. Every written line of
    either graph follows the public node order; (e, f) is written at 4 and 5 of the 20
    seeds. (This replaces an audit at 150 samples, which caught the old CLI only at
    p = 0.002-0.007, not reliably below 1e-3.)"""
    written_e_f = {}
    for edges in ("a b\nc d\n", "a b\nc d\nf a\n"):
        for seed in range(20):
            lines = edge_lines(synthesize(tmp_path, edges, seed)[0])
            assert lines == sorted(lines) and all(u < v for u, v in lines)
            written_e_f[edges] = written_e_f.get(edges, 0) + (["e", "f"] in lines)
    assert min(written_e_f.values()) >= 1, written_e_f  # the check bites on both graphs


def cuts(tmp_path, edges, queries, nodes=None):
    graph = write(tmp_path / "g.txt", edges)
    query_file = write(tmp_path / "q.txt", queries)
    arguments = ["cuts", graph, "--queries", query_file, "--epsilon", "1", "--seed", "0"]
    if nodes is not None:
        arguments += ["--nodes", write(tmp_path / "nodes.txt", "\n".join(nodes) + "\n")]
    return main(arguments)


@pytest.mark.parametrize("nodes", [None, NODES])
@pytest.mark.parametrize("edges", ["a b\nc d\n", "a b\nc d\nf a\n"])
def test_cuts_answers_a_query_on_a_node_without_edges(tmp_path, capsys, edges, nodes):
    """f has degree 0 in the first graph and 1 in the second: both answer, no error."""
    assert cuts(tmp_path, edges, "f, a b\ne, f\n", nodes) == 0
    report = json.loads(capsys.readouterr().out)
    assert [query["S"] for query in report["queries"]] == [["f"], ["e"]]
    assert len(report["values"]) == 2 and all(np.isfinite(report["values"]))


def test_cuts_refuses_a_node_outside_the_node_list_whatever_the_edges(tmp_path, capsys):
    errors = []
    for edges in ("a b\nc d\n", "a b\nc d\nf a\n"):
        with pytest.raises(SystemExit) as exit_info:
            cuts(tmp_path, edges, "f, z\n", NODES)
        errors.append((exit_info.value.code, capsys.readouterr().err))
    assert errors[0] == errors[1]
    assert errors[0][0] == 2 and "'z'" in errors[0][1] and "node list" in errors[0][1]


def test_cuts_refuses_an_edge_outside_the_node_list(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cuts(tmp_path, "a b\nc z\n", "a, b\n", NODES)
    assert exit_info.value.code == 2 and "not in the node list" in capsys.readouterr().err
