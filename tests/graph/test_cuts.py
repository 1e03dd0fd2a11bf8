import networkx as nx
import numpy as np
import pytest

from privcut import GraphInputError
from privcut.graph import EdgeUniverse, check_graph, cut_queries, cut_value, rank1_queries
from privcut.linear import laplace_mechanism


def test_cut_value_equals_networkx_on_200_random_disjoint_pairs():
    rng = np.random.default_rng(0)
    for trial in range(200):
        n = int(rng.integers(2, 25))
        G = nx.gnp_random_graph(n, rng.uniform(0.05, 0.9), seed=trial)
        side = rng.integers(0, 3, n)  # 0: S, 1: T, 2: neither
        S, T = set(np.flatnonzero(side == 0)), set(np.flatnonzero(side == 1))
        assert cut_value(G, S, T) == nx.cut_size(G, S, T)


def test_overlapping_sets_count_inner_edges_twice():
    G = nx.Graph([(0, 1), (1, 2)])
    assert cut_value(G, {0, 1}, {0, 1}) == 2.0  # A[0,1] + A[1,0]
    assert cut_value(G, {0, 1, 2}, {1}) == 2.0


def test_digraph_counts_edges_from_s_to_t_only():
    D = nx.DiGraph([("a", "b"), ("b", "a"), ("b", "c")])
    assert cut_value(D, {"a"}, {"b"}) == 1.0
    assert cut_value(D, {"b"}, {"a", "c"}) == 2.0
    assert cut_value(D, {"c"}, {"a", "b"}) == 0.0


def test_weighted_cut_by_hand():
    G = nx.Graph()
    G.add_weighted_edges_from([(0, 1, 0.5), (1, 2, 0.25), (0, 2, 1.0)])
    assert cut_value(G, {0}, {1, 2}, weight="weight") == 1.5
    assert cut_value(G, {1}, {1, 2}, weight="weight") == 0.25
    assert cut_value(G, {0}, {1, 2}) == 2.0  # weight=None: every edge counts 1, as networkx
    assert cut_value(G, {0}, {1, 2}, weight="weight") == nx.cut_size(G, {0}, {1, 2}, "weight")


def test_the_karate_club_is_unweighted_by_default_as_in_networkx():
    G = nx.karate_club_graph()  # integer interaction counts in 'weight'
    S, T = set(range(17)), set(range(17, 34))
    assert cut_value(G, S, T) == nx.cut_size(G, S, T)
    with pytest.raises(GraphInputError, match=r"\[0, 1\]"):
        cut_value(G, S, T, weight="weight")


@pytest.mark.parametrize(
    ("graph", "message"),
    [
        (nx.MultiGraph([(0, 1)]), "multigraphs"),
        (nx.Graph([(0, 0)]), "self-loop"),
        (nx.Graph([(0, 1, {"weight": 1.5})]), r"weights must be numbers in \[0, 1\]"),
        (nx.Graph([(0, 1, {"weight": float("nan")})]), "weight=nan"),
        ([(0, 1)], "networkx.Graph"),
    ],
)
def test_bad_graphs_are_refused(graph, message):
    with pytest.raises(GraphInputError, match=message):
        check_graph(graph, weight="weight")


def test_unknown_nodes_raise_key_error_naming_them():
    with pytest.raises(KeyError, match="'zebra'"):
        cut_value(nx.path_graph(3), {0}, {"zebra"})


@pytest.mark.parametrize("directed", [False, True])
def test_universe_round_trip_keeps_labels_and_weights(directed):
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_weighted_edges_from([("x", "y", 0.5), ("y", "z", 1.0)])
    universe = EdgeUniverse.of(G)
    assert universe.size == (6 if directed else 3)
    H = universe.graph(universe.histogram(G, weight="weight"))
    assert set(H.nodes) == {"x", "y", "z"}
    assert nx.utils.edges_equal(H.edges(data="weight"), G.edges(data="weight"))


@pytest.mark.parametrize("directed", [False, True])
def test_cut_queries_match_cut_value_and_their_sensitivities(directed):
    rng = np.random.default_rng(1)
    G = nx.gnp_random_graph(12, 0.4, seed=1, directed=directed)
    universe = EdgeUniverse.of(G)
    queries = [
        (set(rng.choice(12, 5, replace=False)), set(rng.choice(12, 4, replace=False)))
        for _ in range(30)
    ]
    Q = cut_queries(universe, queries)
    np.testing.assert_allclose(Q @ universe.histogram(G), [cut_value(G, S, T) for S, T in queries])
    dense = Q.toarray()  # brute force: the k x m matrix, only for this small test
    assert Q.l1_sensitivity == np.abs(dense).sum(axis=0).max()
    assert Q.l2_sensitivity == pytest.approx(np.sqrt((dense**2).sum(axis=0)).max())
    y = rng.normal(size=30)
    np.testing.assert_allclose(Q.rmatmul(y), dense.T @ y)
    assert Q.integer


def test_rank1_queries_generalise_cuts_and_plug_into_mechanisms():
    G = nx.gnp_random_graph(10, 0.5, seed=2)
    universe = EdgeUniverse.of(G)
    u, v = np.linspace(0, 1, 10), np.linspace(1, 0, 10)
    Q = rank1_queries(universe, u[:, None], v[:, None])
    A = nx.to_numpy_array(G)
    assert (Q @ universe.histogram(G))[0] == pytest.approx(u @ A @ v)
    assert not Q.integer
    release = laplace_mechanism(Q, universe.histogram(G).astype(int), 1.0, rng=0)
    assert release.details["noise"] == "laplace"
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        rank1_queries(universe, 2 * u[:, None], v[:, None])
