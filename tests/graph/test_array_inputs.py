"""A square scipy.sparse adjacency with public ``nodes``/``directed`` declarations is the same
input as a NetworkX graph for answer_cuts, CutOracle (and its saved state), noisy_graph,
filtered_randomized_response and iterative_construction: built in the NetworkX path's node
order (``canonical_order``), it gives exactly the same release at the same seed; a given
node order is kept (never re-sorted); the declarations are refused for a NetworkX graph."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from privcut import GraphInputError, PrivcutError
from privcut.audit import audit
from privcut.graph import (
    CutOracle,
    CutWorkload,
    EdgeUniverse,
    SyntheticArray,
    answer_cuts,
    filtered_randomized_response,
    iterative_construction,
    noisy_graph,
)
from privcut.graph.universe import canonical_order


def labelled(G: nx.Graph) -> nx.Graph:
    """G with string labels, inserted in reverse order (so that insertion order is not the
    canonical one)."""
    H = G.__class__()
    H.add_nodes_from(f"v{i:02d}" for i in reversed(list(G)))
    H.add_edges_from((f"v{u:02d}", f"v{v:02d}") for u, v in G.edges)
    return H


UNDIRECTED = labelled(nx.gnp_random_graph(12, 0.35, seed=3))
DIRECTED = labelled(nx.gnp_random_graph(12, 0.25, seed=4, directed=True))
GRAPHS = {"undirected": UNDIRECTED, "directed": DIRECTED}


def as_array(G: nx.Graph, weight=None) -> tuple[sp.csr_array, tuple, bool]:
    """G's adjacency in the NetworkX path's node order, those labels and G's kind."""
    nodes = canonical_order(G)
    A = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=nodes, weight=weight))
    return A, nodes, G.is_directed()


def queries(nodes: tuple) -> list:
    """Three cuts on four blocks (few block pairs: the optimized strategy's search, which
    "auto" runs, stays fast)."""
    return [
        (set(nodes[:4]), set(nodes[4:])),
        (set(nodes[1:6]), set(nodes[4:])),
        ({nodes[0]}, set(nodes[1:6])),
    ]


def state(generator: np.random.Generator) -> int:
    return generator.bit_generator.state["state"]["state"]


# --- answer_cuts -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", GRAPHS)
@pytest.mark.parametrize(
    ("strategy", "delta"),
    [("per-query", 0.0), ("workload", 1e-6), ("noisy-graph", 0.0), ("blocks", 0.0), ("auto", 0.0)],
)
def test_answer_cuts_array_is_networkx(kind, strategy, delta):
    G = GRAPHS[kind]
    A, nodes, directed = as_array(G)
    workload = queries(nodes)
    expected = answer_cuts(G, workload, 1.0, delta=delta, strategy=strategy, rng=7)
    found = answer_cuts(
        A, workload, 1.0, delta=delta, strategy=strategy, nodes=nodes, directed=directed, rng=7
    )
    assert np.array_equal(found.values, expected.values)
    assert found.to_dict() == expected.to_dict()


# --- CutOracle ---------------------------------------------------------------------------

# The oracle and the construction read the data only in the rounds that update the
# hypothesis; these graphs are big enough (and the budgets large enough) for updates.
DENSE = {
    "undirected": labelled(nx.gnp_random_graph(100, 0.5, seed=1)),
    "directed": labelled(nx.gnp_random_graph(100, 0.5, seed=1, directed=True)),
}


def oracle_of(G, **options) -> CutOracle:
    """An oracle that starts empty (a public bound of every pair), so large cuts update it."""
    array = sp.issparse(G)
    n, directed = (G.shape[0], options.get("directed")) if array else (len(G), G.is_directed())
    pairs = n * (n - 1) // (1 if directed else 2)
    return CutOracle(G, 10.0, 1e-6, max_queries=6, max_edges=pairs, start="density", **options)


def ask(oracle: CutOracle, nodes: tuple) -> list[float]:
    """Cuts that update an empty start (S x V for S 70 % of V: not symmetric under node
    permutations), a cut that does not, and a fractional rank-1 query."""
    head = set(nodes[: 7 * len(nodes) // 10])
    answers = [oracle.cut(head, set(nodes)), oracle.cut(set(nodes), set(nodes))]
    answers.append(oracle.cut(set(nodes[::2]), set(nodes[1::2])))
    answers.append(oracle.rank1({nodes[0]: 0.5, nodes[3]: 1.0}, {nodes[5]: 0.25}))
    assert oracle.updates >= 1
    return answers


@pytest.mark.parametrize("kind", DENSE)
def test_cut_oracle_array_is_networkx(kind):
    G = DENSE[kind]
    A, nodes, directed = as_array(G)
    expected = oracle_of(G, rng=3)
    found = oracle_of(A, nodes=nodes, directed=directed, rng=3)
    assert ask(found, nodes) == ask(expected, nodes)
    assert found.universe == expected.universe
    assert found.status().to_dict() == expected.status().to_dict()


@pytest.mark.parametrize("kind", GRAPHS)
def test_cut_oracle_with_a_dense_hypothesis_takes_an_array(kind):
    G = GRAPHS[kind]
    A, nodes, directed = as_array(G)
    options = {"idc": "multiplicative-weights", "max_queries": 4, "rng": 3}
    expected = CutOracle(G, 1.0, 1e-6, **options)
    found = CutOracle(A, 1.0, 1e-6, nodes=nodes, directed=directed, **options)
    assert [found.cut(S, T) for S, T in queries(nodes)] == [
        expected.cut(S, T) for S, T in queries(nodes)
    ]
    assert found.status().to_dict() == expected.status().to_dict()


def _saved(G, path, **declared) -> None:
    """A saved oracle that has spent nothing on the data yet."""
    oracle_of(G, path=path, rng=0, **declared).close()


@pytest.mark.parametrize("kind", DENSE)
def test_an_array_built_oracle_resumes_from_its_saved_state(kind, tmp_path):
    """Saved from an array and loaded with the array (its nodes and kind from the state),
    with the array and its declarations, or with the NetworkX graph: every resumed
    oracle answers as the NetworkX-built one resumed."""
    G = DENSE[kind]
    A, nodes, directed = as_array(G)
    _saved(G, tmp_path / "graph.json")
    with CutOracle.load(tmp_path / "graph.json", G, rng=5) as resumed:
        expected = ask(resumed, nodes)
        status = resumed.status().to_dict()
    loads = [
        lambda path: CutOracle.load(path, A, rng=5),
        lambda path: CutOracle.load(path, A, nodes=nodes, directed=directed, rng=5),
        lambda path: CutOracle.load(path, G, rng=5),
    ]
    for number, load in enumerate(loads):
        path = tmp_path / f"copy{number}.json"
        _saved(A, path, nodes=nodes, directed=directed)
        with load(path) as resumed:
            assert resumed.universe.nodes == nodes
            assert ask(resumed, nodes) == expected, number
            assert resumed.status().to_dict() == status


def test_an_array_state_is_read_by_label_in_the_order_given_at_load(tmp_path):
    """Labels given in another order at load (the array's rows permuted alike) are matched
    by label: the resumed oracle keeps the saved order and answers alike."""
    A, nodes, _ = as_array(DENSE["undirected"])
    _saved(A, tmp_path / "a.json", nodes=nodes)
    _saved(A, tmp_path / "b.json", nodes=nodes)
    permutation = np.random.default_rng(1).permutation(len(nodes))
    shuffled = tuple(nodes[i] for i in permutation)
    B = sp.csr_array(A[permutation][:, permutation])
    with CutOracle.load(tmp_path / "a.json", A, rng=2) as resumed:
        expected = ask(resumed, nodes)
    with CutOracle.load(tmp_path / "b.json", B, nodes=shuffled, rng=2) as resumed:
        assert resumed.universe.nodes == nodes
        assert ask(resumed, nodes) == expected


def test_an_array_state_refuses_another_kind_or_node_set(tmp_path):
    A, nodes, _ = as_array(UNDIRECTED)
    path = tmp_path / "oracle.json"
    oracle = CutOracle(A, 1.0, 1e-6, max_queries=4, nodes=nodes, path=path, rng=0)
    oracle.cut(*queries(nodes)[0])
    oracle.close()
    with pytest.raises(PrivcutError, match="saved for a Graph"):
        CutOracle.load(path, A, directed=True)
    with pytest.raises(PrivcutError, match="another node set"):
        CutOracle.load(path, sp.csr_array((13, 13)))
    with pytest.raises(PrivcutError, match="another node set"):
        CutOracle.load(path, A, nodes=tuple(f"w{i}" for i in range(12)))
    with pytest.raises(GraphInputError, match="nodes and directed"):
        CutOracle.load(path, UNDIRECTED, nodes=nodes)
    with CutOracle.load(path, A) as resumed:  # nothing above spent or locked anything
        assert resumed.queries_answered == 1


# --- noisy_graph and filtered_randomized_response ----------------------------------------


@pytest.mark.parametrize("kind", GRAPHS)
@pytest.mark.parametrize("weight", [None, "weight"])
def test_noisy_graph_array_is_networkx(kind, weight):
    G = GRAPHS[kind].copy()
    for number, (u, v) in enumerate(G.edges):
        G.edges[u, v]["weight"] = (number % 5) / 4
    A, nodes, directed = as_array(G, weight)
    expected = noisy_graph(G, 1.0, weight=weight, rng=2)
    found = noisy_graph(A, 1.0, weight=weight, nodes=nodes, directed=directed, rng=2)
    assert np.array_equal(found.matrix, expected.matrix)
    assert found.nodes == expected.nodes == nodes
    assert found.report().to_dict() == expected.report().to_dict()


@pytest.mark.parametrize("kind", GRAPHS)
@pytest.mark.parametrize("threshold", [1, 2, None])
def test_filtered_randomized_response_array_is_networkx(kind, threshold):
    G = GRAPHS[kind]
    A, nodes, directed = as_array(G)
    expected = filtered_randomized_response(G, 1.0, threshold=threshold, rng=4)
    found = filtered_randomized_response(
        A, 1.0, threshold=threshold, nodes=nodes, directed=directed, rng=4
    )
    for name in ("rows", "columns", "values"):
        assert np.array_equal(getattr(found, name), getattr(expected, name)), name
    assert found.nodes == expected.nodes and found.to_dict() == expected.to_dict()


# --- iterative_construction --------------------------------------------------------------

CLIQUES = labelled(nx.disjoint_union(nx.complete_graph(15), nx.complete_graph(15)))
"""Two communities: the construction updates its hypothesis in several rounds."""


def construct(G, distinguisher="noisy-graph", **options):
    """A release that updates in rounds after the first (large budget, public edge bound)."""
    options = {"max_edges": 225.0, "rng": 1, **options}
    return iterative_construction(G, 100.0, 1e-6, distinguisher=distinguisher, **options)


@pytest.mark.parametrize(
    ("distinguisher", "rounding"),
    [("noisy-graph", None), ("noisy-graph", "random"), ("power-method", None)],
)
def test_iterative_construction_array_is_networkx(distinguisher, rounding):
    """The array release is a SyntheticArray with the NetworkX release's edges (and
    weights), nodes and report."""
    A, nodes, _ = as_array(CLIQUES)
    expected = construct(CLIQUES, distinguisher, rounding=rounding)
    found = construct(A, distinguisher, rounding=rounding, nodes=nodes)
    assert isinstance(found, SyntheticArray) and found.nodes == nodes
    assert np.array_equal(found.toarray(), nx.to_numpy_array(expected, nodelist=nodes))
    assert found.graph["privcut"] == expected.graph["privcut"]
    assert expected.graph["privcut"]["updates"] >= 2


def test_iterative_construction_refuses_a_directed_array_before_any_draw():
    A, nodes, _ = as_array(DIRECTED)
    generator = np.random.default_rng(0)
    before = state(generator)
    with pytest.raises(GraphInputError, match="undirected graphs only"):
        iterative_construction(A, 1.0, 1e-6, nodes=nodes, directed=True, rng=generator)
    assert state(generator) == before


# --- a given node order is kept ----------------------------------------------------------


def unsorted(n: int) -> tuple[tuple, dict]:
    """n labels in an order that sorting would shuffle (a canonical order would permute
    the rows, with no symmetry), and the map from the default labels range(n) to them."""
    permutation = np.random.default_rng(n).permutation(n)
    names = tuple(f"z{int(i):03d}" for i in permutation)
    return names, dict(zip(range(n), names, strict=True))


def test_a_given_node_order_is_kept_by_the_one_shot_releases():
    """Labels in a non-canonical order give exactly the numbers of the same array with the
    default labels range(n), row by row (nothing is re-sorted), under those labels."""
    A, _, _ = as_array(UNDIRECTED)
    names, rename = unsorted(A.shape[0])
    workload = [({0, 1, 2}, {5, 6, 9}), ({3}, {4, 7})]
    named = [({rename[v] for v in S}, {rename[v] for v in T}) for S, T in workload]
    plain = answer_cuts(A, workload, 1.0, strategy="blocks", rng=1)
    found = answer_cuts(A, named, 1.0, strategy="blocks", nodes=names, rng=1)
    assert np.array_equal(found.values, plain.values)
    assert found.queries == tuple(
        (tuple(rename[v] for v in S), tuple(rename[v] for v in T)) for S, T in plain.queries
    )
    noisy = noisy_graph(A, 1.0, nodes=names, rng=1)
    assert noisy.nodes == names
    assert np.array_equal(noisy.matrix, noisy_graph(A, 1.0, rng=1).matrix)
    kept = filtered_randomized_response(A, 1.0, nodes=names, rng=1)
    assert kept.nodes == names
    assert np.array_equal(kept.values, filtered_randomized_response(A, 1.0, rng=1).values)


def test_a_given_node_order_is_kept_by_the_construction_and_the_oracle():
    """As above, where the data are read in update rounds (the construction's
    noisy-graph distinguisher once re-sorted the labels of its noisy matrix)."""
    A, _, _ = as_array(CLIQUES)
    names, rename = unsorted(A.shape[0])
    H, K = construct(A, nodes=names), construct(A)
    assert H.nodes == names and np.array_equal(H.toarray(), K.toarray())
    assert K.graph["privcut"]["updates"] >= 2
    B, _, _ = as_array(DENSE["undirected"])
    names, rename = unsorted(B.shape[0])
    oracle, reference = oracle_of(B, nodes=names, rng=1), oracle_of(B, rng=1)
    assert oracle.universe.nodes == names
    answers = ask(reference, tuple(range(B.shape[0])))
    assert ask(oracle, tuple(rename[v] for v in range(B.shape[0]))) == answers


# --- the declarations describe an array: refused for a NetworkX graph ---------------------


CALLS = {
    "answer_cuts": lambda G, **d: answer_cuts(G, [({0}, {1})], 1.0, rng=0, **d),
    "CutOracle": lambda G, **d: CutOracle(G, 1.0, 1e-6, rng=0, **d),
    "noisy_graph": lambda G, **d: noisy_graph(G, 1.0, rng=0, **d),
    "filtered_randomized_response": lambda G, **d: filtered_randomized_response(G, 1.0, rng=0, **d),
    "iterative_construction": lambda G, **d: iterative_construction(G, 1.0, 1e-6, rng=0, **d),
}


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize(
    "declared", [{"nodes": range(6)}, {"directed": False}, {"nodes": range(6), "directed": False}]
)
def test_declarations_are_refused_for_a_networkx_graph(name, declared):
    G = nx.path_graph(6)
    CALLS[name](G)  # accepted without them
    with pytest.raises(GraphInputError, match=r"nodes and directed describe a scipy\.sparse"):
        CALLS[name](G, **declared)


@pytest.mark.parametrize("name", CALLS)
def test_an_asymmetric_array_needs_directed(name):
    A = sp.csr_array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    with pytest.raises(GraphInputError, match="pass directed=True"):
        CALLS[name](A)
    if name != "iterative_construction":
        CALLS[name](A, directed=True)


# --- audit: the directed array path ------------------------------------------------------


class Quartered(CutWorkload):
    """A deliberately broken twin: the workload's sensitivities divided by 4."""

    def sensitivities(self):
        l1, l2 = super().sensitivities()
        return l1 / 4.0, l2 / 4.0


@pytest.mark.slow
def test_answer_cuts_on_directed_arrays_passes_its_audit_and_a_quartered_twin_is_caught():
    """The workload strategy on labelled directed arrays one arc apart: the audit finds
    nothing; the twin calibrated to a quarter of the sensitivity is caught."""
    nodes = ("a", "b", "c", "d", "e")
    arcs = ([0, 1, 2, 3], [1, 2, 3, 4])
    base = sp.csr_array((np.ones(4), arcs), shape=(5, 5))
    neighbour = sp.csr_array((np.ones(5), (arcs[0] + [1], arcs[1] + [3])), shape=(5, 5))
    universe = EdgeUniverse.of(base, nodes=nodes, directed=True)
    workload = [({"b", "c", "d"}, {"b", "c", "d"}), ({"b"}, {"d", "e"}), ({"b", "d"}, {"a", "d"})]

    def release(kind):
        analysed = kind.of(universe, workload)
        return lambda A, rng: (
            answer_cuts(
                A, analysed, 1.0, strategy="workload", nodes=nodes, directed=True, rng=rng
            ).raw
        )

    correct = audit(release(CutWorkload), (base, neighbour), 1.0, samples=500, rng=0)
    broken = audit(release(Quartered), (base, neighbour), 1.0, samples=500, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


@pytest.mark.parametrize("release", ["noisy_graph", "iterative_construction"])
def test_dense_releases_refuse_above_the_dense_limit_before_any_draw(release):
    """Both hold n x n matrices: above DENSE_NODES they refuse from the public n alone."""
    from privcut.graph.construction import iterative_construction
    from privcut.graph.limits import DENSE_NODES

    function = {"noisy_graph": noisy_graph, "iterative_construction": iterative_construction}
    privacy = (1.0,) if release == "noisy_graph" else (1.0, 1e-6)
    n = DENSE_NODES + 1
    generator = np.random.default_rng(0)
    before = generator.bit_generator.state
    with pytest.raises(ValueError, match="synthetic_graph"):
        function[release](sp.csr_array((n, n)), *privacy, rng=generator)
    assert generator.bit_generator.state == before
