"""Sparse input and output: a square scipy.sparse adjacency with a public node list goes in
(checked once, in O(nnz)), a SyntheticArray comes out; the release equals the NetworkX
one on the same graph, node order and seed. And ``method="auto"``'s choice."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from privcut import GraphInputError, synthetic_graph
from privcut.audit import audit
from privcut.graph import EdgeUniverse, SyntheticArray
from privcut.graph.arrays import edge_array, read_adjacency
from privcut.graph.measurement import measure
from privcut.graph.planning import plan_measurements
from privcut.graph.synthetic import DENSE_MEMORY, SPARSE_NODES, dense_memory
from tests.badinput import BAD, SETTINGS, check_call


def path_array(n: int = 4) -> sp.csr_array:
    return sp.csr_array(nx.to_scipy_sparse_array(nx.path_graph(n)))


def to_array(H: nx.Graph, nodes) -> sp.csr_array:
    return sp.csr_array(nx.to_scipy_sparse_array(H, nodelist=list(nodes)))


# --- validation: each error names the problem and the fix -------------------------------


@pytest.mark.parametrize(
    ("G", "keywords", "message"),
    [
        (sp.csr_array((3, 4)), {}, "must be square"),
        (sp.csr_array(np.eye(3)), {}, "self-loops"),
        (sp.csr_array([[0.0, 1.0], [0.0, 0.0]]), {}, "not symmetric"),
        (sp.csr_array([[0.0, np.nan], [np.nan, 0.0]]), {}, "NaN or infinite"),
        (sp.csr_array([[0.0, np.inf], [np.inf, 0.0]]), {"weight": "weight"}, "NaN or infinite"),
        (sp.csr_array([[0.0, 2.0], [2.0, 0.0]]), {"weight": "weight"}, "in [0, 1]"),
        (sp.csr_array([[0.0, -0.5], [-0.5, 0.0]]), {"weight": "weight"}, "in [0, 1]"),
        (path_array(3), {"nodes": ("a", "b")}, "nodes has 2 labels"),
        (path_array(3), {"nodes": ("a", "b", "a")}, "must not repeat"),
        (path_array(3), {"nodes": "abc"}, "sequence of 3 node labels"),
        (sp.csr_array(np.array([[0, 1j], [1j, 0]])), {}, "real numbers"),
    ],
)
def test_bad_array_is_refused_with_its_fix(G, keywords, message):
    with pytest.raises(GraphInputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        EdgeUniverse.of(G, **keywords)
    with pytest.raises(GraphInputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        synthetic_graph(G, 1.0, rng=0, **keywords)


def test_fix_messages_say_what_to_do():
    for G, fix in [
        (sp.csr_array(np.eye(3)), "G.setdiag(0)"),
        (sp.csr_array([[0.0, 1.0], [0.0, 0.0]]), "directed=True"),
        (sp.csr_array([[0.0, 2.0], [2.0, 0.0]]), "weight=None"),
    ]:
        with pytest.raises(GraphInputError, match=fix.replace("(", r"\(").replace(")", r"\)")):
            read_adjacency(G, "weight")


def test_declarations_are_checked_and_refused_for_networkx():
    with pytest.raises(TypeError, match="directed must be True or False"):
        EdgeUniverse.of(path_array(), directed="yes")
    with pytest.raises(TypeError, match="non-empty str"):
        EdgeUniverse.of(path_array(), weight=1)
    for keywords in ({"nodes": range(4)}, {"directed": False}):
        with pytest.raises(GraphInputError, match="a NetworkX graph carries its own"):
            EdgeUniverse.of(nx.path_graph(4), **keywords)
        with pytest.raises(GraphInputError, match="a NetworkX graph carries its own"):
            synthetic_graph(nx.path_graph(4), 1.0, rng=0, **keywords)


def test_directed_is_declared_never_inferred():
    symmetric = path_array()
    assert EdgeUniverse.of(symmetric).directed is False
    assert EdgeUniverse.of(symmetric, directed=True).directed is True
    arcs = sp.csr_array([[0.0, 1.0], [0.0, 0.0]])
    assert EdgeUniverse.of(arcs, directed=True).adjacency(arcs).nnz == 1


def test_reading_drops_zeros_counts_nonzeros_one_and_keeps_g():
    G = sp.coo_array(([3.0, 3.0, 0.0, 0.0, 0.5, 0.5], ([0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2])))
    before = G.copy()
    universe, adjacency = EdgeUniverse.read(G, nodes=("w", "x", "y", "z"))
    assert universe.nodes == ("w", "x", "y", "z") and universe.directed is False
    assert adjacency.format == "csr" and adjacency.nnz == 4
    assert sorted(adjacency.data.tolist()) == [1.0] * 4
    weighted = read_adjacency(sp.csr_array(G.toarray() / 4.0), "weight").matrix
    assert sorted(weighted.data.tolist()) == [0.125, 0.125, 0.75, 0.75]
    assert (G != before).nnz == 0  # the caller's array is untouched
    assert (universe.adjacency(G) != adjacency).nnz == 0


@pytest.mark.parametrize("kind", ["csr", "csc", "coo", "lil", "dok", "matrix"])
def test_every_format_reads_the_same(kind):
    A = path_array(5)
    G = sp.csr_matrix(A) if kind == "matrix" else A.asformat(kind)
    assert (EdgeUniverse.of(G).adjacency(G) != A).nnz == 0


def test_edge_index_and_histogram_of_an_array_match_networkx():
    G = nx.gnp_random_graph(12, 0.3, seed=2)
    A = to_array(G, range(12))
    universe = EdgeUniverse.of(A)
    assert universe == EdgeUniverse.of(G)
    rows, columns, values = universe.edge_index(A)
    assert (rows < columns).all() and values.tolist() == [1.0] * G.number_of_edges()
    assert sorted(zip(rows.tolist(), columns.tolist(), strict=True)) == sorted(G.edges)
    assert np.array_equal(universe.histogram(A), universe.histogram(G))


def test_measure_reads_the_array_with_its_declared_nodes():
    G = nx.gnp_random_graph(15, 0.3, seed=4, directed=True)
    nodes = tuple(range(15))
    plan = plan_measurements(nodes, 1.0, ["edge-count", "degrees"], directed=True)
    from_graph = measure(G, plan, rng=3)
    from_array = measure(to_array(G, nodes), plan, nodes=nodes, directed=True, rng=3)
    for one, two in zip(from_graph.records, from_array.records, strict=True):
        assert np.array_equal(one.values, two.values)
    assert from_array.universe == from_graph.universe


# --- releases: sparse in, sparse out, equal to NetworkX in ----------------------------


def releases(G, keywords):
    """The NetworkX release of G and the array release of its adjacency (same nodes in
    G's canonical order, same seed)."""
    nodes = EdgeUniverse.of(G).nodes
    A = to_array(G, nodes)
    H = synthetic_graph(G, 1.0, rng=7, **keywords)
    return H, synthetic_graph(A, 1.0, nodes=nodes, directed=G.is_directed(), rng=7, **keywords)


@pytest.mark.parametrize(
    "keywords",
    [
        {"method": "dense"},
        {"method": "dense", "rounding": None},
        {"method": "sparse"},
        {"method": "sparse", "measurements": ["edge-count", "degree-sequence"]},
        {"method": "dense", "groups": "by-block"},
        {"method": "sparse", "groups": "by-block"},
    ],
)
@pytest.mark.parametrize("directed", [False, True])
def test_array_release_equals_the_networkx_release(keywords, directed):
    G = nx.gnp_random_graph(24, 0.2, seed=11, directed=directed)
    G = nx.relabel_nodes(G, {v: f"n{v:02d}" for v in G})
    if keywords.get("groups") == "by-block":
        keywords = {**keywords, "groups": {v: int(v[1:]) // 8 for v in G}}
    H, K = releases(G, keywords)
    assert isinstance(K, SyntheticArray) and isinstance(K, sp.csr_array)
    assert K.shape == (24, 24) and K.nodes == EdgeUniverse.of(G).nodes
    assert K.graph["privcut"] == H.graph["privcut"]
    assert (to_array(H, K.nodes) != K).nnz == 0
    if not directed:
        assert (K != K.T).nnz == 0


def test_weighted_array_release_equals_the_networkx_release():
    G = nx.gnp_random_graph(24, 0.3, seed=3)
    rng = np.random.default_rng(0)
    for u, v in G.edges:
        G.edges[u, v]["weight"] = float(rng.integers(1, 5)) / 4.0
    A = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(24), weight="weight"))
    keywords = dict(method="dense", rounding=None, weight="weight", rng=1)
    H, K = synthetic_graph(G, 1.0, **keywords), synthetic_graph(A, 1.0, **keywords)
    assert K.graph["privcut"] == H.graph["privcut"]
    expected = sp.csr_array(nx.to_scipy_sparse_array(H, nodelist=range(24), weight="weight"))
    assert np.allclose((expected - K).toarray(), 0.0, atol=0.0)


def test_synthetic_array_keeps_scipy_working_and_documents_derived_arrays():
    K = synthetic_graph(path_array(10), 1.0, method="sparse", rng=0)
    assert K.format == "csr" and K.graph["privcut"]["method"] == "sparse"
    assert K.nodes == tuple(range(10))
    for derived in (K.copy(), K + K, K * 2.0, K[:5], K @ K, K.astype(np.int8)):
        assert sp.issparse(derived)
        assert getattr(derived, "graph", {}) == {} and getattr(derived, "nodes", None) is None
    assert (K.copy() != K).nnz == 0 and K.sum() == (K + K).sum() / 2


def test_a_20000_node_array_is_released_sparsely():
    n = 20_000
    rng = np.random.default_rng(5)
    rows = rng.integers(0, n, 60_000)
    columns = rng.integers(0, n, 60_000)
    keep = rows != columns
    A = edge_array(rows[keep], columns[keep], None, n, False)
    A.data[:] = 1.0
    K = synthetic_graph(A, 1.0, method="sparse", rng=0)
    assert isinstance(K, SyntheticArray) and K.shape == (n, n) and len(K.nodes) == n
    assert K.graph["privcut"]["method"] == "sparse" and (K != K.T).nnz == 0
    assert K.diagonal().sum() == 0.0 and set(np.unique(K.data).tolist()) == {1.0}


def test_array_input_builds_no_networkx_graph(monkeypatch):
    calls = []
    original = nx.Graph.__init__

    def counting(self, *args, **kwargs):
        calls.append(type(self).__name__)
        original(self, *args, **kwargs)

    large, small = path_array(50), path_array(30)  # built before counting
    monkeypatch.setattr(nx.Graph, "__init__", counting)
    synthetic_graph(large, 1.0, method="sparse", rng=0)
    synthetic_graph(small, 1.0, method="dense", rng=0)
    assert calls == []
    nx.path_graph(3)
    assert calls == ["Graph"]  # the count sees graphs built


# --- method="auto" ----------------------------------------------------------------------


def test_auto_is_the_default_and_chooses_at_the_memory_threshold():
    assert dense_memory(SPARSE_NODES) <= DENSE_MEMORY < dense_memory(SPARSE_NODES + 1)
    G = path_array(40)
    budget = dense_memory(40)
    at = synthetic_graph(G, 1.0, memory=budget, rng=0).graph["privcut"]
    assert at["method"] == "dense" and "method 'auto': dense" in at["mechanism"]
    above = synthetic_graph(G, 1.0, memory=budget - 1, rng=0).graph["privcut"]
    assert above["method"] == "sparse" and "method 'auto': sparse" in above["mechanism"]
    assert "MB budget" in above["mechanism"] and "40 nodes" in above["mechanism"]
    named = synthetic_graph(G, 1.0, memory=budget, measurements=None, rng=0).graph["privcut"]
    assert named["method"] == "dense" and "randomized response requested" in named["mechanism"]
    explicit = synthetic_graph(G, 1.0, method="dense", memory=budget, rng=0).graph["privcut"]
    assert explicit["method"] == "dense" and "method 'auto'" not in explicit["mechanism"]
    for dense in (dict(measurements=None), dict(method="dense")):  # refused above the budget
        with pytest.raises(ValueError, match="memory budget: use method='sparse'"):
            synthetic_graph(G, 1.0, memory=budget - 1, rng=0, **dense)


@pytest.mark.parametrize("memory", [0, -1.0, float("nan"), "2GB", True])
def test_bad_memory_is_refused(memory):
    with pytest.raises((TypeError, ValueError), match="memory"):
        synthetic_graph(path_array(), 1.0, memory=memory, rng=0)


# --- privacy: the array path is audited; a data-dependent node order is caught ---------


PLAN = ["edge-count", "blocks"]
"""The audited plan: the array path and its node order are what is under test here (the
degree measurements are audited in test_degree_sequence.py); the short plan keeps it fast."""


def array_release(order_by_degree: bool = False):
    """``mechanism(A, rng)`` for the audit: the sparse release of the array A (6 nodes, two
    public groups) as its released node order and block-pair edge counts. With
    ``order_by_degree`` (the broken twin), the caller lists the rows by degree: a node
    order that is not public, which the release's ``.nodes`` then reveals."""
    labels = np.array([0, 0, 0, 1, 1, 1])

    def mechanism(A, rng):
        nodes = tuple(range(6))
        if order_by_degree:
            order = np.argsort(-np.asarray(A.sum(axis=1)).ravel(), kind="stable")
            A, nodes = A[order][:, order], tuple(int(i) for i in order)
        groups = {node: int(labels[node]) for node in nodes}
        K = synthetic_graph(
            A, 1.0, nodes=nodes, groups=groups, method="sparse", measurements=PLAN, rng=rng
        )
        coo = sp.triu(K).tocoo()
        ends = labels[np.asarray(K.nodes)]
        blocks = np.bincount(ends[coo.row] * 2 + ends[coo.col], minlength=4)
        return (K.nodes, tuple(blocks.tolist()))

    return mechanism


@pytest.mark.slow
def test_array_release_passes_its_audit_and_catches_a_private_node_order():
    G = nx.path_graph(6)
    neighbour = G.copy()
    neighbour.add_edge(0, 4)
    pair = (to_array(G, range(6)), to_array(neighbour, range(6)))
    correct = audit(array_release(), pair, 1.0, samples=500, rng=0)
    broken = audit(array_release(order_by_degree=True), pair, 1.0, samples=150, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


def test_generated_array_default_converts_the_graph_like_the_fast_paths():
    from privcut.graph.generation import DenseGenerated, Generated
    from privcut.records import Bound, SolverSummary

    universe = EdgeUniverse(("b", "a", "c"), True)
    values = np.array([1.0, 0.0, 0.5, 0.0, 1.0, 0.25])
    done = DenseGenerated(
        universe, values, False, "example", SolverSummary(None, 0, 0, True), Bound.none(), {}
    )
    fast, slow = done.array(), Generated.array(done)
    assert (fast != slow).nnz == 0 and fast.nnz == 4
    rows, columns = universe.pair_index()
    assert np.array_equal(fast[rows, columns], values)


ARRAYS = {
    "path": lambda: path_array(5),
    "directed arcs": lambda: sp.csr_array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
    "coo with explicit zeros": lambda: sp.coo_array(([0.0, 0.0], ([0, 1], [1, 0])), (3, 3)),
    "halves": lambda: sp.csr_array([[0.0, 0.5, 0.0], [0.5, 0.0, 0.5], [0.0, 0.5, 0.0]]),
    "empty": lambda: sp.csr_array((0, 0)),
    "one node": lambda: sp.csr_array((1, 1)),
    "not square": lambda: sp.csr_array((2, 3)),
    "loop": lambda: sp.csr_array(np.eye(3)),
    "nan": lambda: sp.csr_array([[0.0, np.nan], [np.nan, 0.0]]),
    "huge": lambda: sp.csr_array([[0.0, 1e300], [1e300, 0.0]]),
    "spmatrix": lambda: sp.lil_matrix(path_array(4)),
}


def maybe(*valid):
    return st.one_of(st.sampled_from(valid), st.sampled_from(BAD))


@SETTINGS
@given(data=st.data())
def test_bad_array_input_gets_a_privcut_error(data):
    keywords = data.draw(
        st.fixed_dictionaries(
            dict(
                G=st.sampled_from(sorted(ARRAYS)).map(lambda name: ARRAYS[name]()),
                epsilon=maybe(1.0),
                nodes=maybe(None, (0, 1, 2), ("a", "b", "c", "d", "e"), [[1], [2], [3]]),
                directed=maybe(None, False, True),
                memory=maybe(None, 1e9, 1.0),
                method=maybe("auto", "sparse"),
                weight=maybe(None, "weight"),
                rng=st.just(0),
            )
        ),
        label="kwargs",
    )
    check_call(synthetic_graph, **keywords)
