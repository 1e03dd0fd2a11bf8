"""Evaluation of sparse graphs and releases: the same numbers as for NetworkX graphs."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import privcut
from privcut import GraphInputError
from privcut.datasets import community_graph, planted_partition
from privcut.evaluate import (
    WorkloadClasses,
    cut_errors,
    max_cut_error,
    random_cuts,
    structure,
    structure_of,
)
from privcut.graph import SyntheticArray
from privcut.graph.universe import canonical_order


def assert_same(found, expected):
    """Two records equal up to float rounding (sums taken in another node order)."""
    found, expected = (x.to_dict() if hasattr(x, "to_dict") else x for x in (found, expected))
    if isinstance(expected, dict):
        assert found.keys() == expected.keys()
        for key in expected:
            assert_same(found[key], expected[key])
    elif isinstance(expected, float):
        assert found == pytest.approx(expected, rel=1e-12, abs=1e-12, nan_ok=True)
    else:
        assert found == expected


def labelled(G):
    """G with string labels (so that a node's label is not its row)."""
    return nx.relabel_nodes(G, {v: f"v{v}" for v in G})


def as_sparse(G, order):
    """G's adjacency with its rows in ``order`` (a list of labels)."""
    return sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=order, weight="weight"))


@pytest.fixture
def pair():
    """A graph G, a fractional release-like H, and both as sparse in shuffled orders."""
    G = labelled(planted_partition(4, 15, 0.4, 0.05, seed=0))
    H = labelled(planted_partition(4, 15, 0.3, 0.1, seed=1))
    for u, v in list(H.edges)[::3]:
        H[u][v]["weight"] = 0.5  # a fractional release's edges
    rng = np.random.default_rng(0)
    G_order, H_order = list(rng.permutation(list(G))), list(rng.permutation(list(H)))
    return G, H, (as_sparse(G, G_order), G_order), (as_sparse(H, H_order), H_order)


def test_cut_errors_and_max_cut_error_are_the_same_for_sparse_input(pair):
    G, H, (A, G_order), (B, H_order) = pair
    cuts = random_cuts(G, 50, rng=0)
    expected = cut_errors(G, H, cuts)
    sparse = dict(nodes=G_order, release_nodes=H_order)
    np.testing.assert_allclose(cut_errors(A, B, cuts, **sparse), expected)
    np.testing.assert_allclose(cut_errors(G, B, cuts, release_nodes=H_order), expected)
    np.testing.assert_allclose(cut_errors(A, H, cuts, nodes=G_order), expected)
    counted = cut_errors(G, H, cuts, release_weight=None)
    assert not np.allclose(counted, expected)
    np.testing.assert_allclose(cut_errors(A, B, cuts, release_weight=None, **sparse), counted)
    worst = max_cut_error(G, H, rng=0)
    assert max_cut_error(A, B, rng=0, **sparse).lower == pytest.approx(worst.lower)


def test_workload_classes_are_the_same_for_sparse_input(pair):
    G, H, (A, G_order), (B, H_order) = pair
    groups = G.graph["groups"]
    groups = {f"v{v}": group for v, group in groups.items()}
    work = WorkloadClasses(G, groups, bisections=30, rng=0)
    canonical = list(work.universe.nodes)
    A_canonical = as_sparse(G, canonical)
    sparse = WorkloadClasses(A_canonical, groups, bisections=30, rng=0, nodes=canonical)
    by_row = WorkloadClasses(
        A_canonical, [groups[v] for v in canonical], bisections=30, rng=0, nodes=canonical
    )
    for other in (sparse, by_row):
        assert other.truth.keys() == work.truth.keys()
        for name in work.truth:
            np.testing.assert_array_equal(other.truth[name], work.truth[name])
    expected = work.errors(H)
    assert sparse.errors(B, release_nodes=H_order) == expected
    assert work.errors(B, release_nodes=H_order) == expected
    assert work.errors(H, release_weight=None) == sparse.errors(
        B, release_weight=None, release_nodes=H_order
    )
    assert random_cuts(A_canonical, 5, rng=3, nodes=canonical) == random_cuts(G, 5, rng=3)
    # in a shuffled order the degrees follow the labels, the bisections the row order
    shuffled = WorkloadClasses(A, groups, bisections=30, rng=0, nodes=G_order)
    shuffled_errors = shuffled.errors(B, release_nodes=H_order)
    for name in ("degree", "within-group", "between-group", "group-vs-rest"):
        assert shuffled_errors[name] == pytest.approx(expected[name])


def test_structure_is_the_same_for_sparse_input(pair):
    G, H, (A, G_order), (B, H_order) = pair
    groups = {f"v{v}": group for v, group in G.graph["groups"].items()}
    expected = structure(G, H, groups=groups, top=0.1)
    canonical = list(canonical_order(G))  # a NetworkX G's order
    A_canonical = as_sparse(G, canonical)
    found = structure(
        A_canonical, B, groups=groups, nodes=canonical, release_nodes=H_order, top=0.1
    )
    assert_same(found, expected)
    assert_same(structure(G, B, groups=groups, release_nodes=H_order, top=0.1), expected)
    assert_same(structure_of(A, nodes=G_order, groups=groups), structure_of(G, groups=groups))
    # a shuffled G changes only the tie-breaking among equally central nodes
    shuffled = structure(A, B, groups=groups, nodes=G_order, release_nodes=H_order, top=0.1)
    assert_same(shuffled.original, expected.original)
    assert_same(shuffled.release, expected.release)
    assert shuffled.degree_kl == expected.degree_kl
    assert shuffled.centrality_spearman == pytest.approx(expected.centrality_spearman)


def test_a_synthetic_array_release_carries_its_nodes():
    G = labelled(planted_partition(3, 20, 0.4, 0.05, seed=2))
    order = sorted(G, reverse=True)
    A = as_sparse(G, order)
    H = privcut.synthetic_graph(A, 1.0, nodes=order, rng=0)
    assert isinstance(H, SyntheticArray) and H.nodes == tuple(order)
    # the same release as a NetworkX graph on the labels
    graph = nx.relabel_nodes(nx.from_scipy_sparse_array(H), dict(enumerate(H.nodes)))
    graph.add_nodes_from(H.nodes)
    cuts = random_cuts(G, 40, rng=0)
    np.testing.assert_allclose(cut_errors(A, H, cuts, nodes=order), cut_errors(G, graph, cuts))
    work = WorkloadClasses(G, bisections=20, rng=0)
    assert work.errors(H) == work.errors(graph)
    assert_same(structure(A, H, nodes=order), structure(G, graph))
    # H given to another order's rows still matches by label (its .nodes are used)
    reversed_G = as_sparse(G, order[::-1])
    assert_same(structure(reversed_G, H, nodes=order[::-1]).release, structure(G, graph).release)


def test_a_directed_sparse_graph_is_read_as_declared():
    G = labelled(nx.gnp_random_graph(25, 0.2, seed=4, directed=True))
    H = labelled(nx.gnp_random_graph(25, 0.2, seed=5, directed=True))
    order = sorted(G)
    A, B = as_sparse(G, order), as_sparse(H, order)
    cuts = random_cuts(G, 30, rng=0)
    expected = cut_errors(G, H, cuts)
    found = cut_errors(A, B, cuts, nodes=order, directed=True, release_nodes=order)
    np.testing.assert_allclose(found, expected)
    with pytest.raises(GraphInputError, match="not symmetric"):
        cut_errors(A, B, cuts, nodes=order, release_nodes=order)  # declared undirected
    work = WorkloadClasses(G, bisections=10, rng=0)
    assert work.errors(B, release_nodes=order) == work.errors(H)


def test_max_cut_error_refuses_a_graph_too_large_for_its_dense_difference():
    A = sp.csr_array((20_001, 20_001))
    with pytest.raises(ValueError, match="DENSE_NODES"):
        max_cut_error(A, A)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (
            lambda G, A: cut_errors(G, G, [({"v0"}, {"v1"})], release_nodes=list(G)),
            "drop release_nodes",
        ),
        (lambda G, A: cut_errors(G, A, [({0}, {1})]), "same node set"),
        (lambda G, A: cut_errors(A, A, [({0}, {1})], release_nodes=list("abcd")), "same node set"),
        (lambda G, A: cut_errors(A, A[:3, :3], [({0}, {1})]), "3 rows"),
        (lambda G, A: cut_errors(A, 2 * A, [({0}, {1})]), "release_weight"),
        (lambda G, A: cut_errors(G, G, [({"v0"}, {"v1"})], nodes=list(G)), "nodes"),
        (lambda G, A: WorkloadClasses(A, [0, 1]), "2 entries"),
        (lambda G, A: WorkloadClasses(A.toarray()), "scipy.sparse"),
        (lambda G, A: random_cuts(A, 2, nodes=[0, 0, 1, 2]), "repeat"),
        (lambda G, A: structure(A, privcut.graph.noisy_graph(G, 1.0, rng=0)), "H must be"),
    ],
)
def test_bad_input(call, match):
    G = labelled(nx.path_graph(4))
    with pytest.raises(GraphInputError, match=match):
        call(G, sp.csr_array(nx.to_scipy_sparse_array(nx.path_graph(4))))


def test_a_sparse_release_of_twenty_thousand_nodes_is_evaluated():
    A, labels = community_graph(20_000, 10, 10.0, seed=0, as_sparse=True)
    H = privcut.synthetic_graph(A, 1.0, measurements=["edge-count", "degrees"], rng=0)
    assert isinstance(H, SyntheticArray)
    work = WorkloadClasses(A, labels, bisections=20, rng=0)
    errors = work.errors(H, release_weight=None)
    found = structure(A, H, groups=labels)
    assert set(errors) == {"degree", "within-group", "between-group", "group-vs-rest", "bisection"}
    assert found.original.nodes == found.release.nodes == 20_000
    assert found.original.edges == A.nnz // 2 and found.release.edges == H.nnz // 2
    assert np.isfinite(found.degree_kl) and 0.0 <= found.centrality_jaccard <= 1.0
