"""Issue 18's structural statistics in privcut.evaluate: community NMI (Louvain on both
graphs), modularity, assortativity, triangle and clustering relative errors and the top-1%
eigenvector-centrality MAE, checked by hand and against NetworkX."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from privcut import GraphInputError
from privcut.datasets import community_graph, planted_partition
from privcut.evaluate import louvain, normalized_mutual_information, relative_error, structure


def brute_nmi(first, second) -> float:
    """NMI by the definition (Danon et al. 2005), summing over every pair of labels."""
    n = len(first)
    entropy_x = -sum((c / n) * math.log(c / n) for c in np.unique(first, return_counts=True)[1])
    entropy_y = -sum((c / n) * math.log(c / n) for c in np.unique(second, return_counts=True)[1])
    information = 0.0
    for a in set(first):
        for b in set(second):
            joint = sum(1 for x, y in zip(first, second, strict=True) if x == a and y == b) / n
            if joint:
                p = first.count(a) / n
                q = second.count(b) / n
                information += joint * math.log(joint / (p * q))
    return 2 * information / (entropy_x + entropy_y)


def test_nmi_by_hand():
    # H(X) = ln 2, H(Y) = -(3/4 ln 3/4 + 1/4 ln 1/4), H(X, Y) = 3/2 ln 2
    first, second = [0, 0, 1, 1], [0, 0, 0, 1]
    h_x = math.log(2)
    h_y = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    expected = 2 * (h_x + h_y - 1.5 * math.log(2)) / (h_x + h_y)
    assert normalized_mutual_information(first, second) == pytest.approx(expected, rel=1e-12)
    assert brute_nmi(first, second) == pytest.approx(expected, rel=1e-12)


def test_nmi_against_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(5):
        first = rng.integers(0, 4, 40).tolist()
        second = [x if rng.random() < 0.6 else int(rng.integers(0, 3)) for x in first]
        assert normalized_mutual_information(first, second) == pytest.approx(
            brute_nmi(first, second), rel=1e-10
        )


def test_nmi_of_identical_and_independent_partitions():
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 10, 20_000)
    assert normalized_mutual_information(labels, labels) == 1.0
    relabelled = (labels * 7 + 3).astype(str)  # the same partition, other labels
    assert normalized_mutual_information(labels, relabelled) == pytest.approx(1.0)
    independent = normalized_mutual_information(labels, rng.integers(0, 10, 20_000))
    assert 0 <= independent < 0.005
    assert normalized_mutual_information([0, 0, 0], [1, 1, 1]) == 1.0  # both trivial
    assert normalized_mutual_information([0, 1, 2], [0, 0, 0]) == 0.0
    with pytest.raises(ValueError, match="first and second"):
        normalized_mutual_information([0, 1], [0, 1, 2])
    with pytest.raises(TypeError, match="first"):
        normalized_mutual_information("ab", "ab")


def test_relative_error():
    assert relative_error(4, 3) == 0.25
    assert relative_error(-2.0, -1.0) == 0.5
    assert relative_error(0, 0) == 0.0 and relative_error(0, 1) == math.inf
    assert math.isnan(relative_error(math.nan, 1.0))
    with pytest.raises(TypeError, match="release"):
        relative_error(1.0, "2")


def test_relative_errors_by_hand():
    """K4 has 4 triangles and transitivity 1; K4 minus an edge has 2 triangles and
    transitivity 3 * 2 / (3 + 3 + 1 + 1) = 0.75."""
    G, H = nx.complete_graph(4), nx.complete_graph(4)
    H.remove_edge(0, 1)
    found = structure(G, H, release_weight=None)
    assert found.triangle_error == 0.5
    assert found.transitivity_error == pytest.approx(0.25)
    assert math.isnan(found.assortativity_error)  # K4's degrees are all equal
    assert found.modularity_error is None and found.nmi is None and found.communities is None


def test_statistics_match_networkx():
    G = planted_partition(4, 25, 0.4, 0.04, seed=0)
    H = planted_partition(4, 25, 0.3, 0.08, seed=1)
    groups = G.graph["groups"]
    found = structure(G, H, groups=groups, release_weight=None, top=0.1)
    for statistic, error in [
        (lambda X: sum(nx.triangles(X).values()), found.triangle_error),
        (nx.transitivity, found.transitivity_error),
        (nx.degree_assortativity_coefficient, found.assortativity_error),
    ]:
        g, h = statistic(G), statistic(H)
        assert error == pytest.approx(abs(h - g) / abs(g), rel=1e-9)
    blocks = [{v for v in G if groups[v] == k} for k in range(4)]
    g, h = nx.community.modularity(G, blocks), nx.community.modularity(H, blocks)
    assert found.modularity_error == pytest.approx(abs(h - g) / abs(g), rel=1e-9)
    # centrality MAE over G's 10 most central nodes (top = 0.1 of 100)
    first, second = nx.eigenvector_centrality_numpy(G), nx.eigenvector_centrality_numpy(H)
    chosen = sorted(G, key=lambda v: -first[v])[:10]
    expected = np.mean([abs(first[v] - second[v]) for v in chosen])
    assert found.top == 10
    assert found.centrality_mae == pytest.approx(expected, rel=1e-6)


def test_louvain_matches_networkx_and_finds_planted_cliques():
    G = nx.disjoint_union_all([nx.complete_graph(5) for _ in range(3)])
    G.add_edges_from([(0, 5), (5, 10)])
    assert louvain(G).tolist() == [0] * 5 + [1] * 5 + [2] * 5
    graph = planted_partition(5, 20, 0.3, 0.02, seed=3)
    labels = louvain(graph, seed=2)
    nodes = sorted(graph)  # the canonical order: 0..99
    # NetworkX's Louvain on the same graph built in the same order (nodes, then edges by row)
    ordered = nx.Graph()
    ordered.add_nodes_from(nodes)
    ordered.add_edges_from(sorted((min(e), max(e)) for e in graph.edges))
    expected = nx.community.louvain_communities(ordered, seed=2)
    found = {frozenset(nodes[i] for i in np.flatnonzero(labels == k)) for k in set(labels)}
    assert found == {frozenset(c) for c in expected}
    A = nx.to_scipy_sparse_array(graph, nodelist=nodes)
    assert louvain(A, seed=2).tolist() == labels.tolist()  # sparse input, the same
    assert louvain(nx.Graph()).size == 0


def test_communities_in_structure():
    G = planted_partition(4, 25, 0.4, 0.02, seed=0)
    same = structure(G, G.copy(), release_weight=None, communities=True)
    assert same.nmi == 1.0 and same.modularity_error == 0.0 and same.communities >= 4
    H = nx.gnm_random_graph(100, G.number_of_edges(), seed=1)
    found = structure(G, H, release_weight=None, communities=True, seed=0)
    labels = louvain(G, seed=0)
    blocks = [{v for v in G if labels[v] == k} for k in set(labels)]
    g, h = nx.community.modularity(G, blocks), nx.community.modularity(H, blocks)
    assert found.modularity_error == pytest.approx(abs(h - g) / g, rel=1e-9)
    expected = normalized_mutual_information(labels, louvain(H, seed=0))
    assert found.nmi == expected and found.nmi < 0.3
    # G's communities passed in: the same comparison
    assert structure(G, H, release_weight=None, communities=labels) == found
    with pytest.raises(GraphInputError, match="communities has 3 entries"):
        structure(G, H, release_weight=None, communities=[0, 1, 2])


def test_sparse_input_gives_the_same_comparison():
    A, _ = community_graph(600, 6, 8.0, seed=0, as_sparse=True)
    B, _ = community_graph(600, 6, 8.0, mixing=0.5, seed=1, as_sparse=True)
    found = structure(A, B, communities=True)
    graphs = [nx.from_scipy_sparse_array(sp.csr_array(M)) for M in (A, B)]
    assert structure(*graphs, release_weight=None, communities=True) == found
    assert 0 < found.nmi < 1 and found.modularity_error > 0
