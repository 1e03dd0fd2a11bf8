"""``privcut synthesize`` at scale (issue 17): it reads the edge list with the columnar
reader into a CSR adjacency and writes with ``write_edge_array``, never building a NetworkX
graph, and releases exactly what the NetworkX path released for the same input and seed."""

import json
import sys

import networkx as nx
import numpy as np
import pytest

import privcut
from privcut.cli import main
from privcut.datasets import (
    community_graph,
    edges,
    read_edge_array,
    read_edgelist,
    read_groups,
    read_nodelist,
    write_edge_array,
)
from privcut.graph.universe import canonical_order
from tests.test_edges import reference_edge_list


def run(tmp_path, graph, *extra, seed=0):
    """Run ``synthesize`` on the file ``graph``; return (written text, report)."""
    output, report = tmp_path / "h.txt", tmp_path / "h.json"
    arguments = ["synthesize", str(graph), "--epsilon", "1", "--seed", str(seed), "--quiet"]
    assert main([*arguments, *extra, "-o", str(output), "--report", str(report)]) == 0
    return output.read_text(), json.loads(report.read_text())


def networkx_release(graph, *, nodes=None, directed=False, weight=None, groups=None, **options):
    """What the command line released before: the NetworkX graph read by read_edgelist,
    the public nodes added, released with the same options and seed, written by the old
    writer."""
    G = read_edgelist(graph, directed=directed, weight=weight or "weight")
    if nodes is not None:
        G.add_nodes_from(read_nodelist(nodes))
    groups = read_groups(groups) if groups is not None else None
    H = privcut.synthetic_graph(G, 1.0, weight=weight, groups=groups, rng=0, **options)
    report = json.loads(json.dumps(H.graph["privcut"]))
    return reference_edge_list(H, report), report


CASES = {
    "plain": ("".join(f"{u} {v}\n" for u, v in nx.gnp_random_graph(30, 0.2, seed=1).edges()), {}),
    "odd labels, public nodes": ('"#a",b\n"x y","#a"\nb,"q""r"\n"%c",b\n', {"nodes": True}),
    "directed": ("c a\na b\nb a\nd e\n", {"directed": True}),
    "weighted, unrounded": ("1 2 0.5\n2 3 1\n3 4 0.25\n4 1\n", {"weight": "w", "rounding": None}),
    "groups": ("0 1\n1 2\n2 3\n3 0\n4 5\n5 0\n", {"groups": "0 a\n1 a\n2 a\n3 b\n4 b\n5 b\n"}),
    "sparse": ("".join(f"{u} {v}\n" for u, v in nx.gnm_random_graph(60, 150, seed=2).edges()), {}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_synthesize_releases_what_the_networkx_path_released(tmp_path, name):
    text, options = CASES[name]
    graph = tmp_path / "g.csv"
    graph.write_text(text)
    extra, expected = [], dict(options)
    if expected.pop("nodes", False):
        nodes = tmp_path / "nodes.txt"
        nodes.write_text('"%c"\nb\nx y\nlonely\nq"r\n"#a"\n')  # not in canonical order
        extra += ["--nodes", str(nodes)]
        expected["nodes"] = nodes
    if expected.get("directed"):
        extra.append("--directed")
    if expected.get("weight"):
        extra += ["--weight", expected["weight"], "--rounding", "none"]
    if "groups" in expected:
        groups = tmp_path / "groups.txt"
        groups.write_text(expected["groups"])
        extra += ["--groups", str(groups)]
        expected["groups"] = groups
    if name == "sparse":
        extra += ["--method", "sparse"]
        expected["method"] = "sparse"
    written, report = run(tmp_path, graph, *extra)
    assert (written, report) == networkx_release(graph, **expected)


def test_synthesize_builds_no_networkx_graph(tmp_path, monkeypatch):
    graph = tmp_path / "g.txt"
    graph.write_text("".join(f"{u} {v}\n" for u, v in nx.gnm_random_graph(40, 80, seed=3).edges()))
    nodes = tmp_path / "nodes.txt"
    nodes.write_text("".join(f"{i}\n" for i in range(45)))
    calls = []
    original = nx.Graph.__init__

    def counting(self, *args, **kwargs):
        calls.append(type(self).__name__)
        original(self, *args, **kwargs)

    monkeypatch.setattr(nx.Graph, "__init__", counting)
    for method in ("sparse", "dense", "auto"):
        run(tmp_path, graph, "--method", method, "--nodes", str(nodes))
    run(tmp_path, graph, "--directed", "--method", "sparse")
    assert calls == []
    read_edgelist(graph)
    assert calls == ["Graph"]  # the count sees graphs built


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    """A 20,000-node heavy-tailed community graph (100,000 edges) written as an edge list
    by write_edge_array, with its nodes in a node list."""
    folder = tmp_path_factory.mktemp("large")
    adjacency, _ = community_graph(20_000, 20, 10, seed=1, as_sparse=True)
    labels = [str(i) for i in range(20_000)]
    write_edge_array(folder / "g.txt", adjacency, labels)
    (folder / "nodes.txt").write_text("\n".join(reversed(labels)) + "\n")
    return folder, adjacency


@pytest.mark.parametrize("method", ["sparse", "auto"])
def test_synthesize_releases_a_20000_node_graph_from_a_file(tmp_path, large, method):
    folder, adjacency = large
    text, report = run(tmp_path, folder / "g.txt", "--method", method)
    assert report["method"] == "sparse" and report["epsilon"] == 1.0
    assert ("method 'auto'" in report["mechanism"]) == (method == "auto")
    back = read_edge_array(tmp_path / "h.txt")
    assert back.nodes == canonical_order(str(i) for i in range(20_000))  # isolated ones too
    assert back.adjacency.nnz // 2 == report["edge_count"]
    assert abs(report["edge_count"] - adjacency.nnz // 2) < 0.01 * adjacency.nnz
    assert text.splitlines()[0].startswith("# privcut synthetic graph: (1, 0)-DP")


def test_the_output_follows_the_canonical_order_of_the_node_list(tmp_path, large):
    folder, _ = large
    given, _ = run(tmp_path, folder / "g.txt", "--method", "sparse")
    listed, _ = run(
        tmp_path, folder / "g.txt", "--method", "sparse", "--nodes", str(folder / "nodes.txt")
    )
    assert listed == given  # the node list is in reverse order: the output is not
    order = {label: i for i, label in enumerate(canonical_order(str(i) for i in range(20_000)))}
    lines = [line.split() for line in listed.splitlines() if not line.startswith("#")]
    ends = np.array([[order[u], order[v]] for u, v in lines])
    assert np.all(ends[:, 0] < ends[:, 1])  # each edge from its earlier endpoint
    keys = ends[:, 0] * len(order) + ends[:, 1]
    assert np.all(np.diff(keys) > 0)  # rows in order, each row's columns in order


def test_a_progress_bar_over_the_bytes_on_a_terminal_unless_quiet(tmp_path, monkeypatch, capsys):
    graph = tmp_path / "g.txt"
    graph.write_text("".join(f"{i} {i + 1}\n" for i in range(100, 200)))
    output = str(tmp_path / "h.txt")
    arguments = ["synthesize", str(graph), "--epsilon", "1", "--method", "sparse", "-o", output]
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(arguments) == 0  # read in one chunk: no bar
    assert "reading g.txt" not in capsys.readouterr().err
    monkeypatch.setattr(edges, "CHUNK_BYTES", 64)  # now read in 13 chunks
    assert main(arguments) == 0
    err = capsys.readouterr().err
    assert "reading g.txt" in err and "800/800" in err and "wrote" in err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)  # a log: the summary alone
    assert main(arguments) == 0
    err = capsys.readouterr().err
    assert "800/800" not in err and "reading" not in err and "wrote" in err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main([*arguments, "--quiet"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--memory", "lots"], "positive size in bytes like 8e9 or 8G, got 'lots'"),
        (["--memory", "0G"], "positive size"),
        (["--method", "fast"], "invalid choice: 'fast'"),
        (["--method", "sparse", "--measurements", "randomized-response"], "randomized"),
        (["--dataset", "karate"], "not both"),
    ],
)
def test_bad_method_and_memory_options_are_one_line_errors(tmp_path, capsys, extra, message):
    graph = tmp_path / "g.txt"
    graph.write_text("1 2\n2 3\n")
    output = tmp_path / "h.txt"
    with pytest.raises(SystemExit) as exit_info:
        main(["synthesize", str(graph), "--epsilon", "1", "-o", str(output), *extra])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err and err.count("\n") == 1
    assert not output.exists()


def test_memory_chooses_the_generator_for_auto_and_bounds_dense(tmp_path, capsys):
    graph = tmp_path / "g.txt"
    graph.write_text("".join(f"{i} {i + 1}\n" for i in range(30)))
    assert run(tmp_path, graph)[1]["method"] == "dense"
    assert run(tmp_path, graph, "--memory", "1K")[1]["method"] == "sparse"
    with pytest.raises(SystemExit) as exit_info:
        run(tmp_path, graph, "--memory", "1e3", "--method", "dense")
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "memory budget" in err and err.count("\n") == 1


def test_a_bundled_dataset_takes_the_same_path(tmp_path, capsys):
    output = tmp_path / "karate.txt"
    argv = ["synthesize", "--dataset", "karate", "--epsilon", "1", "--seed", "0"]
    assert main([*argv, "--quiet", "-o", str(output)]) == 0
    H = privcut.synthetic_graph(privcut.datasets.load("karate"), 1.0, rng=0)
    assert output.read_text() == reference_edge_list(H, H.graph["privcut"])
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--directed", "-o", str(output)])
    assert exit_info.value.code == 2 and "--directed describe" in capsys.readouterr().err
