"""Structural statistics at scale (privcut.evaluate.structure, structure_of) checked against
NetworkX's own implementations, and the heavy-tailed community graph generator
(privcut.datasets.community_graph)."""

from __future__ import annotations

import math
import time

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from privcut import GraphInputError
from privcut.datasets import community_graph, load, planted_partition
from privcut.evaluate import GraphStructure, StructureComparison, structure, structure_of


def _directed() -> nx.DiGraph:
    G = nx.gnp_random_graph(60, 0.08, seed=3, directed=True)
    G.graph["groups"] = {v: v % 3 for v in G}
    return G


def _karate() -> nx.Graph:
    G = nx.karate_club_graph()
    G.graph["groups"] = {v: G.nodes[v]["club"] for v in G}
    return G


GRAPHS = {
    "karate": _karate,
    "planted": lambda: planted_partition(4, 20, 0.4, 0.05, seed=0),
    "directed": _directed,
    "community": lambda: community_graph(300, 3, 8.0, seed=1),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_statistics_match_networkx(name):
    G = GRAPHS[name]()
    groups = G.graph["groups"]
    U = G.to_undirected() if G.is_directed() else G  # the undirected view
    found = structure_of(G, groups=groups)
    assert found.nodes == U.number_of_nodes() and found.edges == U.number_of_edges()
    assert found.triangles == sum(nx.triangles(U).values()) // 3
    assert found.transitivity == pytest.approx(nx.transitivity(U), abs=1e-12)
    assert found.average_clustering == pytest.approx(nx.average_clustering(U), abs=1e-12)
    assert found.assortativity == pytest.approx(nx.degree_assortativity_coefficient(U), abs=1e-9)
    communities = [{v for v in U if groups[v] == g} for g in set(groups.values())]
    expected = nx.community.modularity(U, communities, weight=None)
    assert found.modularity == pytest.approx(expected, abs=1e-12)
    assert list(found.degree_histogram) == nx.degree_histogram(U)
    assert found.max_degree == max(d for _, d in U.degree())


def test_triangles_per_node_in_chunks(monkeypatch):
    """Chunking the sparse products (a tiny MAX_PRODUCT) changes nothing."""
    G = GRAPHS["community"]()
    whole = structure_of(G)
    monkeypatch.setattr("privcut.evaluate.MAX_PRODUCT", 10)
    assert structure_of(G) == whole
    assert whole.triangles == sum(nx.triangles(G).values()) // 3


@pytest.mark.parametrize("name", ["karate", "planted", "community"])
def test_centrality_matches_networkx(name):
    """The top sets equal NetworkX's eigenvector centrality's (connected graphs)."""
    G = GRAPHS[name]()
    G = G.subgraph(max(nx.connected_components(G), key=len)).copy()
    ours = structure(G, G, release_weight=None, top=0.2)
    centrality = nx.eigenvector_centrality_numpy(G)
    order = sorted(G)  # structure reads nodes in canonical (sorted) order
    values = np.array([centrality[v] for v in order])
    # node order[i] renamed order[i - 1]: B's centrality at index i - 1 is G's at i
    B = nx.relabel_nodes(G, dict(zip(order, np.roll(order, 1).tolist(), strict=True)))
    shifted = structure(G, B, release_weight=None, top=0.2)
    top = set(np.argsort(-values, kind="stable")[: ours.top].tolist())
    rolled = {(i - 1) % len(order) for i in top}
    assert rolled != top
    assert ours.centrality_jaccard == 1.0 and ours.centrality_spearman == pytest.approx(1.0)
    expected = len(top & rolled) / len(top | rolled)
    assert shifted.centrality_jaccard == pytest.approx(expected)


def test_identical_graphs_compare_equal():
    G = load("karate")
    found = structure(G, G.copy(), release_weight=None)
    assert isinstance(found, StructureComparison) and isinstance(found.original, GraphStructure)
    assert found.degree_kl == 0.0 and found.original == found.release
    assert found.top == 1 and found.centrality_jaccard == 1.0
    assert found.to_dict()["original"]["triangles"] == 45


def test_degree_kl_by_hand():
    G = nx.path_graph(4)  # degrees 1, 2, 2, 1: p = (0, 1/2, 1/2)
    H = nx.star_graph(3)  # degrees 3, 1, 1, 1: q = (0, 3/4, 0, 1/4)
    e = np.finfo(float).eps
    expected = 0.5 * math.log((0.5 + e) / (0.75 + e)) + 0.5 * math.log((0.5 + e) / e)
    assert structure(G, H, release_weight=None).degree_kl == pytest.approx(expected)
    reverse = 0.75 * math.log((0.75 + e) / (0.5 + e)) + 0.25 * math.log((0.25 + e) / e)
    assert structure(H, G, release_weight=None).degree_kl == pytest.approx(reverse)


def test_sparse_input_equals_networkx_input():
    G = planted_partition(4, 20, 0.4, 0.05, seed=0)
    H = planted_partition(4, 20, 0.3, 0.1, seed=1)
    labels = [G.graph["groups"][v] for v in sorted(G)]
    A, B = (sp.csr_array(nx.to_scipy_sparse_array(X, nodelist=sorted(X))) for X in (G, H))
    from_graphs = structure(G, H, groups=G.graph["groups"], release_weight=None)
    from_arrays = structure(A, B, groups=labels)
    assert from_graphs == from_arrays
    upper = sp.triu(A, format="csr")  # a directed graph, read as its undirected view
    assert structure_of(upper, directed=True) == structure_of(A)


def test_the_pattern_ignores_weights():
    G = nx.path_graph(4)
    H = nx.path_graph(4)
    H[0][1]["weight"] = 0.25  # a fractional release's edge counts as an edge
    H[2][3]["weight"] = 0.0  # a weight 0 is no edge
    found = structure(G, H)
    assert found.release.edges == 2 and found.original.edges == 3


def test_empty_and_tiny_graphs():
    for G in (nx.Graph(), nx.empty_graph(1), nx.empty_graph(5), nx.path_graph(2)):
        found = structure(G, G, release_weight=None)
        assert found.degree_kl == 0.0
        assert found.original.triangles == 0 and found.original.transitivity == 0.0
    assert math.isnan(structure_of(nx.empty_graph(3)).assortativity)
    assert math.isnan(structure_of(nx.cycle_graph(5)).assortativity)  # every degree 2
    assert structure_of(nx.Graph()).to_dict()["degree_histogram"] == []


@pytest.mark.parametrize(
    ("G", "H", "kwargs", "match"),
    [
        (nx.path_graph(3), nx.path_graph(4), {}, "same node set"),
        (nx.path_graph(["a", "b", "c"]), sp.csr_array((3, 3)), {}, "same node set"),
        (sp.csr_array((3, 3)), sp.csr_array((4, 4)), {}, "same node set"),
        (sp.csr_array((3, 3)), sp.csr_array((3, 3)), {"release_nodes": "abc"}, "nodes must"),
        (sp.triu(sp.csr_array(np.ones((3, 3))), k=1), sp.csr_array((3, 3)), {}, "not symmetric"),
        (sp.csr_array((2, 3)), sp.csr_array((2, 3)), {}, "square"),
        (sp.csr_array(np.eye(3)), sp.csr_array((3, 3)), {}, "self-loops"),
        (sp.csr_array((2, 2)), sp.csr_array(2 * np.ones((2, 2)) - 2 * np.eye(2)), {}, r"\[0, 1\]"),
        (np.zeros((3, 3)), np.zeros((3, 3)), {}, "scipy.sparse"),
        (nx.path_graph(3), [(0, 1)], {}, "H must be"),
        (sp.csr_array((3, 3)), sp.csr_array((3, 3)), {"groups": [0, 1]}, "2 entries"),
        (nx.path_graph(3), nx.path_graph(3), {"groups": {0: "a"}}, "no group"),
    ],
)
def test_bad_input(G, H, kwargs, match):
    with pytest.raises(GraphInputError, match=match):
        structure(G, H, **kwargs)


def test_bad_options():
    G = nx.path_graph(3)
    with pytest.raises(ValueError, match="top"):
        structure(G, G, top=0.0)
    with pytest.raises(GraphInputError, match="release_weight"):
        H = nx.path_graph(3)
        H[0][1]["weight"] = 2.0
        structure(G, H)


@pytest.fixture(scope="module")
def hundred_thousand_nodes():
    """community_graph(10^5, 20, 20.0, seed=0) as a sparse array and its labels: built once
    for the two tests that read it (neither changes it)."""
    return community_graph(10**5, 20, 20.0, seed=0, as_sparse=True)


@pytest.mark.slow
def test_structure_at_a_million_edges_takes_seconds(hundred_thousand_nodes):
    """10^5 nodes, 10^6 edges: seconds (no timed assertion; the benchmark records it)."""
    A, labels = hundred_thousand_nodes
    B, _ = community_graph(10**5, 20, 20.0, seed=1, as_sparse=True)
    start = time.perf_counter()
    found = structure(A, B, groups=labels)
    assert time.perf_counter() - start < 120
    assert found.original.edges == 10**6 and 0 <= found.centrality_jaccard <= 1


def test_structure_at_a_hundred_thousand_edges_runs():
    A, labels = community_graph(10**4, 10, 20.0, seed=0, as_sparse=True)
    found = structure_of(A, groups=labels)
    assert found.edges == 10**5 and found.triangles > 0 and found.modularity > 0.5


# The generator.


def test_community_graph_is_heavy_tailed_with_the_asked_degree_and_mixing():
    G = community_graph(20000, 10, 12.0, mixing=0.2, seed=0)
    degrees = np.array([d for _, d in G.degree()])
    groups = G.graph["groups"]
    assert degrees.mean() == pytest.approx(12.0, rel=0.1)
    assert degrees.max() > 10 * degrees.mean()
    between = sum(groups[u] != groups[v] for u, v in G.edges())
    assert between / G.number_of_edges() == pytest.approx(0.2, rel=0.1)
    assert sorted(set(groups.values())) == list(range(10))
    assert np.bincount(list(groups.values())).tolist() == [2000] * 10


def test_community_graph_per_node_mixing_and_exponent():
    A, labels = community_graph(20000, 10, 12.0, mixing=0.3, seed=1, as_sparse=True)
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    leaving = np.bincount(rows, weights=labels[rows] != labels[A.indices], minlength=20000)
    degree = np.diff(A.indptr)
    share = leaving[degree >= 10] / degree[degree >= 10]
    assert np.median(share) == pytest.approx(0.3, abs=0.05)
    steep = community_graph(20000, 10, 12.0, exponent=4.0, seed=1, as_sparse=True)[0]
    assert np.diff(steep.indptr).max() < degree.max()  # a larger exponent, a lighter tail


def test_community_graph_is_reproducible_and_sparse_matches_networkx():
    G = community_graph(500, 5, 6.0, seed=7)
    assert nx.utils.graphs_equal(G, community_graph(500, 5, 6.0, seed=7))
    assert set(G.edges) != set(community_graph(500, 5, 6.0, seed=8).edges)
    A, labels = community_graph(500, 5, 6.0, seed=7, as_sparse=True)
    assert (A != A.T).nnz == 0 and A.diagonal().sum() == 0 and A.nnz == 2 * G.number_of_edges()
    assert (abs(A - nx.to_scipy_sparse_array(G, nodelist=range(500)))).nnz == 0
    assert labels.tolist() == [G.graph["groups"][v] for v in range(500)]


def test_community_graph_directed():
    G = community_graph(2000, 4, 5.0, directed=True, seed=0)
    assert G.is_directed() and G.number_of_edges() == 10000
    assert nx.number_of_selfloops(G) == 0
    A, _ = community_graph(2000, 4, 5.0, directed=True, seed=0, as_sparse=True)
    assert A.nnz == 10000


def test_community_graph_one_group_and_no_edges():
    G = community_graph(100, 1, 4.0, mixing=0.0, seed=0)
    assert G.number_of_edges() == 200 and set(G.graph["groups"].values()) == {0}
    assert community_graph(10, 2, 0.0, seed=0).number_of_edges() == 0


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(n=0), ValueError, "n must"),
        (dict(n=10.0), TypeError, "n must"),
        (dict(groups=0), ValueError, "groups must"),
        (dict(groups=101), ValueError, "groups must"),
        (dict(average_degree=-1.0), ValueError, "average_degree"),
        (dict(average_degree=60.0), ValueError, "average_degree"),
        (dict(exponent=2.0), ValueError, "exponent"),
        (dict(mixing=1.5), ValueError, "mixing"),
        (dict(groups=1, mixing=0.5), ValueError, "mixing must be 0"),
        (dict(directed=1), TypeError, "directed"),
        (dict(as_sparse="yes"), TypeError, "as_sparse"),
        (dict(seed=-1), ValueError, "seed"),
        (dict(seed=1.5), TypeError, "seed"),
    ],
)
def test_community_graph_bad_input(kwargs, error, match):
    arguments = dict(n=100, groups=4, average_degree=4.0, seed=0) | kwargs
    with pytest.raises(error, match=match):
        community_graph(**arguments)


@pytest.mark.slow
def test_community_graph_at_a_hundred_thousand_nodes(hundred_thousand_nodes):
    """10^5 nodes, average degree 20 (10^6 edges): seconds, no timed assertion."""
    A, labels = hundred_thousand_nodes
    assert A.nnz == 2 * 10**6 and labels.max() == 19
    G = community_graph(10**5, 20, 20.0, seed=0)
    assert G.number_of_edges() == 10**6
