"""The columnar edge-list reader and writer against the NetworkX reader and the CLI's
writer: same nodes, same adjacency in the same order, same bytes, same refusals."""

import json

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privcut.cli
from privcut.datasets import edges as edges_module
from privcut.datasets import read_edge_array, read_edgelist, write_edge_array
from privcut.exceptions import GraphInputError
from privcut.graph.universe import EdgeUniverse
from tests.badinput import SETTINGS, check_call


def same(edges, G, weight=None):
    """The EdgeArray equals G read through EdgeUniverse: nodes, order, adjacency."""
    universe = EdgeUniverse.of(G)
    expected = universe.adjacency(G, weight)
    expected.sum_duplicates()
    assert edges.nodes == universe.nodes
    assert edges.directed == G.is_directed()
    A = edges.adjacency
    assert isinstance(A, sp.csr_array) and A.has_canonical_format
    assert A.shape == expected.shape
    assert np.array_equal(A.indptr, expected.indptr)
    assert np.array_equal(A.indices, expected.indices)
    assert np.array_equal(A.data, expected.data)


def outcome(reader, path):
    try:
        return reader(path)
    except GraphInputError as error:
        assert str(path) in str(error)
        return error


def check_equivalent(path, directed=False):
    for weight in (None, "weight"):
        G = outcome(lambda p, w=weight: read_edgelist(p, directed=directed, weight=w), path)
        edges = outcome(lambda p, w=weight: read_edge_array(p, directed=directed, weight=w), path)
        if isinstance(G, GraphInputError):
            assert isinstance(edges, GraphInputError), (path.read_bytes(), G)
        else:
            assert not isinstance(edges, GraphInputError), (path.read_bytes(), edges)
            same(edges, G, weight)


LABELS = [
    "1",
    "2",
    "10",
    "a",
    "b",
    "#t",
    "x y",
    'q"',
    "é",
    "a,b",
    "%",
    "",
    " ",
    "\u00a0z",
    "\x1f",
    "\ufeffa",
    "c\x0bd",
    "\u2003",
]
WEIGHTS = ["", "0.5", "1", "0", "2", "nan", "x", "1e-3", "0.0_1", " 0.25"]


CLEAN_LABELS = [str(i) for i in range(25)] + ["a", "é", "b#2", "x%", "NA", "nan", "1.0", "null"]
CLEAN_WEIGHTS = ["", "", "0.5", "1", "0", "1e-3", ".25"]


@st.composite
def edge_files(draw):
    """Edge lists in every form read_edgelist knows, valid and not: half of them drawn
    from valid labels, weights and comments only (mostly readable), half from anything."""
    clean = draw(st.booleans())
    labels, weights = (CLEAN_LABELS, CLEAN_WEIGHTS) if clean else (LABELS, WEIGHTS)
    kinds = ["ws", "ws", "csv", "csv", "comment", "nodes"] + ([] if clean else ["raw"])
    comments = ["# c", "#", "%% x", "# 1 2"] + ([] if clean else ["#a b", "%x"])
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(kinds))
        u, v = draw(st.sampled_from(labels)), draw(st.sampled_from(labels))
        w = draw(st.sampled_from(weights))
        if kind == "ws":
            lines.append(" ".join(field for field in (u, v, w) if field))
        elif kind == "csv":
            quoted = [
                '"' + f.replace('"', '""') + '"' if draw(st.booleans()) else f for f in (u, v)
            ]
            lines.append(",".join(quoted + ([w] if w else [])))
        elif kind == "comment":
            lines.append(draw(st.sampled_from(comments)))
        elif kind == "nodes":
            lines.append("# nodes: " + json.dumps(draw(st.lists(st.sampled_from(labels)))))
        else:
            lines.append(draw(st.text(alphabet=' \t,#%"ab1.\r', max_size=8)))
    ending = draw(st.sampled_from(["\n", "\r\n", ""]))
    return ending.join(lines) + draw(st.sampled_from(["", "\n"]))


FIXTURE = [HealthCheck.function_scoped_fixture]


@settings(max_examples=100, deadline=None, suppress_health_check=FIXTURE)
@given(text=edge_files(), directed=st.booleans())
def test_reads_what_read_edgelist_reads(tmp_path, text, directed):
    path = tmp_path / "g.txt"
    path.write_text(text, encoding="utf-8", newline="")
    check_equivalent(path, directed)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=FIXTURE)
@given(text=edge_files(), directed=st.booleans())
def test_reads_what_read_edgelist_reads_many(tmp_path, text, directed):
    path = tmp_path / "g.txt"
    path.write_text(text, encoding="utf-8", newline="")
    check_equivalent(path, directed)


@settings(max_examples=40, deadline=None, suppress_health_check=FIXTURE)
@given(text=edge_files())
def test_small_chunks_read_the_same(tmp_path, monkeypatch, text):
    """Chunk boundaries (here every few bytes) change nothing."""
    path = tmp_path / "g.txt"
    path.write_text(text, encoding="utf-8", newline="")
    G = outcome(read_edgelist, path)
    monkeypatch.setattr(edges_module, "CHUNK_BYTES", 5)
    edges = outcome(lambda p: read_edge_array(p, weight="weight"), path)
    if isinstance(G, GraphInputError):
        assert isinstance(edges, GraphInputError)
    else:
        same(edges, G, "weight")


@pytest.mark.parametrize(
    "text, message",
    [
        ("1 2\n2 2\n", "self-loop '2'"),
        ("1 2\n2 1\n", "duplicate edge"),
        ("1 2\n3 4 1.5\n", "outside [0, 1]"),
        ("1 2\n3 4 x\n", "weight 'x' is not a number"),
        ("# c\n#a b\n", ":2: '#a b' is ambiguous"),
        ("1 2\n1 2 3 4\n", ":2: expected 'u v'"),
        ("1,2\n3,\n", ":2: expected 'u v'"),
        ("# c\na,b, ", ":2: expected 'u v'"),  # a blank last field (hypothesis found it)
        ('1,2\n"a b" c\n', ":2: weight 'c'"),
    ],
)
def test_refusals_name_the_file_and_the_problem(tmp_path, text, message):
    path = tmp_path / "g.txt"
    path.write_text(text)
    with pytest.raises(GraphInputError, match=None) as error:
        read_edge_array(path, weight="weight")
    assert str(path) in str(error.value) and message in str(error.value)


@pytest.mark.parametrize("chunk", [1 << 25, 5])
def test_a_duplicate_edge_names_both_lines_and_the_directed_fix(tmp_path, monkeypatch, chunk):
    """Sweep 37 F11: both readers name the lines; an undirected list holding both
    directions suggests reading it as directed."""
    monkeypatch.setattr(edges_module, "CHUNK_BYTES", chunk)
    path = tmp_path / "g.txt"
    path.write_text("# votes\n10 6\n6 7\n\n6 10\n")
    for reader in (read_edge_array, read_edgelist):
        with pytest.raises(GraphInputError) as error:
            reader(path)
        message = str(error.value)
        assert message.startswith(f"{path}:5: duplicate edge ('6', '10'): line 2 lists")
        assert "read the file as directed (directed=True)" in message
        assert reader(path, directed=True).directed if reader is read_edge_array else True
    path.write_text('a,b\r\nb,c\r\n"a",b\r\n')
    for reader in (read_edge_array, read_edgelist):
        for directed in (False, True):
            with pytest.raises(GraphInputError) as error:
                reader(path, directed=directed)
            assert str(error.value) == (
                f"{path}:3: duplicate edge ('a', 'b'), also on line 1; remove one of them"
            )


def test_a_third_column_is_any_number_without_weight(tmp_path):
    """Sweep 37 F7: without ``weight`` the graph is unweighted and a third column (a SNAP
    timestamp) need only be a number; with it, a weight in [0, 1]."""
    path = tmp_path / "g.txt"
    path.write_text("# u v timestamp\n0 1 1217567877\n1 2 -3.5\n")
    edges = read_edge_array(path)
    assert edges.nodes == ("0", "1", "2") and set(edges.adjacency.data) == {1.0}
    G = read_edgelist(path, weight=None)
    assert sorted(G.edges()) == [("0", "1"), ("1", "2")] and not G.edges["0", "1"]
    for reader in (read_edge_array, read_edgelist):
        with pytest.raises(GraphInputError, match="outside"):
            reader(path, weight="weight")
    path.write_text("0 1 1217567877\n1 2 noon\n")
    for reader in (read_edge_array, read_edgelist):
        with pytest.raises(GraphInputError, match=r"g.txt.*weight 'noon' is not a number"):
            reader(path, weight=None)


def test_not_utf8_is_refused(tmp_path):
    path = tmp_path / "g.txt"
    path.write_bytes(b"1 2\n\xff 3\n")
    with pytest.raises(GraphInputError, match="not UTF-8 text"):
        read_edge_array(path)


def test_directed_keeps_both_arcs_and_refuses_a_repeated_arc(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("b a\na b\n")
    edges = read_edge_array(path, directed=True)
    assert edges.directed and edges.adjacency.toarray().tolist() == [[0, 1], [1, 0]]
    path.write_text("b a\nb a\n")
    with pytest.raises(GraphInputError, match="duplicate edge"):
        read_edge_array(path, directed=True)


def test_node_order_follows_the_labels_not_the_edges(tmp_path):
    """The same edge set in two line orders gives the same nodes and adjacency."""
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("z y\nc d\nm a\n")
    second.write_text("m a\nc d\ny z\n")
    one, two = read_edge_array(first), read_edge_array(second)
    assert one.nodes == two.nodes == ("a", "c", "d", "m", "y", "z")
    assert (one.adjacency != two.adjacency).nnz == 0


def test_a_public_node_list_orders_the_nodes_and_adds_isolated_ones(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text('# nodes: ["q"]\n1 2\n')
    edges = read_edge_array(path, nodes=["2", "q", "lonely", "1"])
    assert edges.nodes == ("2", "q", "lonely", "1")
    assert edges.adjacency.toarray().tolist()[0] == [0, 0, 0, 1]
    with pytest.raises(GraphInputError, match=r"\['1'\] are not in the node list"):
        read_edge_array(path, nodes=["2", "q"])
    with pytest.raises(GraphInputError, match=r"\['q'\] are not in the node list"):
        read_edge_array(path, nodes=["1", "2"])
    with pytest.raises(GraphInputError, match="more than once"):
        read_edge_array(path, nodes=["1", "2", "1"])
    with pytest.raises(TypeError, match="str labels"):
        read_edge_array(path, nodes=[1, 2])


def test_bad_arguments_are_refused_before_reading(tmp_path):
    missing = tmp_path / "missing.txt"
    with pytest.raises(TypeError, match="directed"):
        read_edge_array(missing, directed="yes")
    with pytest.raises(TypeError, match="weight"):
        read_edge_array(missing, weight=1)
    with pytest.raises(FileNotFoundError):
        read_edge_array(missing)


def test_progress_bar_counts_the_bytes(tmp_path, capsys):
    path = tmp_path / "g.txt"
    path.write_bytes("".join(f"{i} {i + 1}\r\n" for i in range(100, 200)).encode())
    read_edge_array(path, progress=True)
    assert "900/900" in capsys.readouterr().err


def reference_edge_list(H, report: dict) -> str:
    """The command line's edge-list text as its NetworkX writer built it before
    ``write_edge_array`` replaced it (kept here as the writer's reference): the guarantee,
    ``# nodes:`` for isolated nodes, then H's edges in H's order, bare or as CSV."""

    def plain(label):
        return (
            bool(label)
            and label[0] not in "#%"
            and not any(c.isspace() or c in ',"' for c in label)
        )

    def field(label):
        return label if plain(label) else '"' + label.replace('"', '""') + '"'

    guarantee = f"({report['epsilon']:g}, {report['delta']:g})-DP"
    if report.get("effective_delta", 0.0) > report["delta"]:  # review 38 F5: slack stated
        slack = privcut.cli.rounded_up(report["effective_delta"])
        guarantee += f" (({report['epsilon']:g}, {slack})-DP with the integer samplers' slack)"
    lines = [
        f"# privcut synthetic graph: {guarantee}, "
        f"edge-level; cut_error_bound {report['cut_error_bound']:.6g} "
        f"(probability {1 - report['beta']:g})",
    ]
    isolated = [str(node) for node in H.nodes if H.degree(node) == 0]
    if isolated:
        lines.append("# nodes: " + json.dumps(isolated))
    weighted = report["rounding"] is None
    bare = all(plain(str(node)) for node in H.nodes)
    for u, v, weight in H.edges(data="weight"):
        fields = [str(u), str(v)] + ([f"{weight:.6g}"] if weighted else [])
        lines.append(" ".join(fields) if bare else ",".join(map(field, fields)))
    return "\n".join(lines) + "\n"


def synthetic(n, directed, seed, weighted, labels):
    """A graph as the synthetic release builds it: canonical nodes, pairs in order."""
    rng = np.random.default_rng(seed)
    universe = EdgeUniverse(tuple(labels[:n]), directed)
    histogram = np.where(rng.random(universe.size) < 0.3, rng.random(universe.size), 0.0)
    if weighted:
        return universe.graph(histogram)
    return universe.unweighted_graph(np.flatnonzero(histogram))


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    "labels", [list(range(12)), [f"n{i}" for i in range(12)], ["#a", "b c", 'q"', "d,e"] * 3]
)
def test_writer_matches_the_cli_byte_for_byte(tmp_path, directed, weighted, labels):
    if len(set(labels)) < len(labels):
        labels = [f"{label}{i}" for i, label in enumerate(labels)]
    H = synthetic(12, directed, 3, weighted, labels)
    report = {"epsilon": 1.0, "delta": 0.0, "cut_error_bound": 12.5, "beta": 0.05}
    report["rounding"] = None if weighted else "threshold"
    expected = reference_edge_list(H, report)
    nodes = list(H.nodes)
    adjacency = sp.csr_array(nx.to_scipy_sparse_array(H, nodelist=nodes, weight="weight"))
    path = tmp_path / "out.txt"
    header = [expected.splitlines()[0][2:]]
    write_edge_array(path, adjacency, nodes, header=header, weighted=weighted, directed=directed)
    assert path.read_text() == expected
    back = read_edge_array(path, directed=directed, weight="weight" if weighted else None)
    order = [str(node) for node in nodes]
    assert sorted(back.nodes) == sorted(order)
    permutation = [order.index(label) for label in back.nodes]
    original = adjacency[permutation][:, permutation]
    if weighted:
        assert np.allclose(back.adjacency.toarray(), original.toarray(), rtol=1e-5, atol=1e-6)
    else:
        assert (back.adjacency != (original != 0)).nnz == 0


def test_writer_lists_isolated_nodes_and_keeps_explicit_zeros(tmp_path):
    A = sp.csr_array((np.array([0.0, 0.0]), (np.array([0, 1]), np.array([1, 0]))), shape=(3, 3))
    path = tmp_path / "out.txt"
    write_edge_array(path, A, ["a", "b", "c"], weighted=True)
    assert path.read_text() == '# nodes: ["c"]\na b 0\n'
    back = read_edge_array(path, weight="weight")
    assert back.adjacency.nnz == 2 and back.nodes == ("a", "b", "c")


def test_writer_refuses_bad_input_and_leaves_the_target(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old\n")
    asymmetric = sp.csr_array(np.array([[0.0, 1.0], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="symmetric"):
        write_edge_array(path, asymmetric, ["a", "b"])
    with pytest.raises(ValueError, match="one label per row"):
        write_edge_array(path, asymmetric, ["a"], directed=True)
    with pytest.raises(ValueError, match="distinct"):
        write_edge_array(path, asymmetric, [1, "1"], directed=True)
    with pytest.raises(ValueError, match="line breaks"):
        write_edge_array(path, asymmetric, ["a", "b"], header=["x\ny"], directed=True)
    with pytest.raises(TypeError, match=r"scipy\.sparse"):
        write_edge_array(path, np.zeros((2, 2)), ["a", "b"])
    assert path.read_text() == "old\n" and len(list(tmp_path.iterdir())) == 1


def test_writer_blocks_join_seamlessly(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    G = nx.gnm_random_graph(50, 200, seed=1)
    nodes = sorted(G)
    A = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=nodes))
    A.data = rng.random(A.nnz)
    A = sp.csr_array((A + A.T) / 2)
    whole, blocked = tmp_path / "whole.txt", tmp_path / "blocked.txt"
    write_edge_array(whole, A, nodes, weighted=True)
    monkeypatch.setattr(edges_module, "BLOCK_EDGES", 7)
    write_edge_array(blocked, A, nodes, weighted=True)
    assert whole.read_bytes() == blocked.read_bytes()
    assert whole.read_text().count("\n") == 200


MALFORMED = ["1 2", "1 1", "#a b", "# nodes: [1]", "# nodes: 3", "1,2,nan", "1 2 5", 'a,"b']
MALFORMED += ["é ß", "\x00 1", "1 2 3 4", "% x", "1\t2", "\u2028 1", "", "\ufeff1 2"]
EDGE = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))


@SETTINGS
@given(
    content=st.one_of(
        st.binary(max_size=40),
        st.lists(
            st.sampled_from([*MALFORMED]),
            max_size=5,
        ).map(lambda lines: "\n".join(lines).encode()),
    ),
    directed=st.booleans(),
    weight=st.sampled_from([None, "weight", 3]),
    nodes=st.sampled_from([None, ["1", "2"], ["1", "1"], [1, 2], "12"]),
)
def test_malformed_files_and_arguments_get_a_clear_error(
    tmp_path_factory, content, directed, weight, nodes
):
    path = tmp_path_factory.mktemp("edges") / "edges.txt"
    path.write_bytes(content)
    check_call(read_edge_array, path, directed=directed, weight=weight, nodes=nodes)


@SETTINGS
@given(
    adjacency=st.sampled_from(
        [sp.csr_array(np.eye(2)), sp.csr_array(np.ones((2, 3))), np.zeros((2, 2)), None, EDGE]
    ),
    nodes=st.sampled_from([["a", "b"], ["a"], [1, "1"], 5]),
    header=st.sampled_from([(), ["x"], "x", ["a\nb"], [3]]),
)
def test_bad_writer_arguments_get_a_clear_error(tmp_path_factory, adjacency, nodes, header):
    path = tmp_path_factory.mktemp("out") / "edges.txt"
    check_call(write_edge_array, path, adjacency, nodes, header=header)


@pytest.mark.parametrize(
    "text",
    [
        "7 007\n1 2\n",  # 007 is not 7: read as text
        "99999999999999999999 1\n3 4\n",  # beyond int64: read as text
        "3 10\n2 3 1\n10 2 0\n",  # decimal labels, integer weights
        "3 10\n2 3 0.5\n",
        "1 2\n2 1\n",
        "1 1\n",
        "0 1\n1 20\n",
        "# SNAP header\n# FromNodeId ToNodeId\n1 2\n2 30\n",  # a header, then decimals
        '# nodes: ["4", "x"]\n1 2\n"a b",2\n',
    ],
)
def test_decimal_labels_are_read_as_integers_only_when_exact(tmp_path, text):
    path = tmp_path / "g.txt"
    path.write_text(text)
    check_equivalent(path)
    check_equivalent(path, directed=True)


def test_decimal_and_text_chunks_share_one_label_table(tmp_path, monkeypatch):
    path = tmp_path / "g.txt"
    path.write_text("1 2\n2 3\n# c\n3 a\n10 1\n")
    monkeypatch.setattr(edges_module, "CHUNK_BYTES", 4)
    check_equivalent(path)


def test_writer_into_a_missing_folder_names_the_given_path(tmp_path):
    """Sweep 37 F22: the error names the caller's path and its folder, not the
    temporary file's name; nothing is left behind."""
    adjacency = sp.csr_array(np.array([[0, 1], [1, 0]]))
    target = tmp_path / "absent" / "g.txt"
    with pytest.raises(FileNotFoundError) as error:
        write_edge_array(target, adjacency, ["a", "b"])
    assert error.value.filename == str(target) and ".tmp" not in str(error.value)
    assert f"folder {target.parent} does not exist" in str(error.value)
    (tmp_path / "file").write_text("")
    with pytest.raises(NotADirectoryError, match="is not a folder") as error:
        write_edge_array(tmp_path / "file" / "g.txt", adjacency, ["a", "b"])
    assert error.value.filename == str(tmp_path / "file" / "g.txt")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["file"]
