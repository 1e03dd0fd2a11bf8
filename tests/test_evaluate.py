import networkx as nx
import numpy as np
import pytest

import privcut
from privcut import GraphInputError
from privcut.evaluate import (
    WorkloadClasses,
    clustering_by_degree,
    cut_errors,
    max_cut_error,
    random_cuts,
)
from privcut.graph import cut_value, noisy_graph


def test_cut_errors_match_cut_values():
    G = nx.gnp_random_graph(15, 0.3, seed=0)
    H = nx.gnp_random_graph(15, 0.3, seed=1)
    cuts = random_cuts(G, 20, rng=0)
    expected = [abs(cut_value(H, S, T) - cut_value(G, S, T)) for S, T in cuts]
    np.testing.assert_allclose(cut_errors(G, H, cuts), expected)


def test_max_cut_error_is_exact_for_small_graphs():
    G, H = nx.complete_graph(6), nx.empty_graph(6)
    result = max_cut_error(G, H)
    assert result.lower == result.upper == 30.0
    assert result.method == "exact"


def test_max_cut_error_interval_contains_the_truth_for_larger_graphs():
    G = nx.gnp_random_graph(60, 0.3, seed=2)
    noisy = noisy_graph(G, 1.0, rng=0)
    result = max_cut_error(G, noisy, rng=0)
    assert result.lower <= result.upper
    assert result.lower == pytest.approx(cut_errors(G, noisy, [(result.S, result.T)])[0])


def test_node_sets_must_match():
    with pytest.raises(GraphInputError, match="same node set"):
        cut_errors(nx.path_graph(3), nx.path_graph(4), [({0}, {1})])


def test_random_cuts_are_reproducible_and_use_labels():
    G = nx.relabel_nodes(nx.path_graph(5), dict(zip(range(5), "abcde", strict=True)))
    assert random_cuts(G, 4, rng=1) == random_cuts(G, 4, rng=1)
    assert all(S <= set("abcde") and T <= set("abcde") for S, T in random_cuts(G, 4, rng=1))


def test_a_fractional_release_of_karate_is_read_with_its_own_weights():
    """G (karate: integer interaction counts under "weight") is read unweighted, the
    release H (rounding=None: weights in [0, 1] under "weight") with its weights."""
    G = nx.karate_club_graph()
    H = privcut.synthetic_graph(G, 1.0, rounding=None, rng=0)
    assert any(0.0 < w < 1.0 for _, _, w in H.edges(data="weight"))
    cuts = random_cuts(G, 20, rng=0)
    truth = np.array([cut_value(G, S, T) for S, T in cuts])
    weighted = np.array([cut_value(H, S, T, weight="weight") for S, T in cuts])
    counted = np.array([cut_value(H, S, T) for S, T in cuts])
    assert not np.allclose(weighted, counted)
    np.testing.assert_allclose(cut_errors(G, H, cuts), np.abs(weighted - truth))
    np.testing.assert_allclose(cut_errors(G, H, cuts, release_weight=None), np.abs(counted - truth))
    worst = max_cut_error(G, H, rng=0)
    assert worst.lower == pytest.approx(cut_errors(G, H, [(worst.S, worst.T)])[0])
    assert worst.lower >= np.abs(weighted - truth).max() - 1e-9
    degrees = np.array([H.degree(v, weight="weight") - G.degree(v) for v in G])
    work = WorkloadClasses(G, bisections=10, rng=0)
    assert work.errors(H)["degree"] == pytest.approx(np.abs(degrees).mean())
    with pytest.raises(GraphInputError, match=r"weights must be numbers in \[0, 1\]"):
        cut_errors(G, H, cuts, weight="weight")  # G's counts are not weights in [0, 1]
    with pytest.raises(GraphInputError, match="release_weight=None"):
        cut_errors(G, G, cuts)  # nor as a release's
    np.testing.assert_allclose(cut_errors(G, G, cuts, release_weight=None), 0.0)
    assert max(work.errors(G, release_weight=None).values()) == 0.0


def test_a_rounded_release_counts_each_edge_once_whatever_release_weight():
    G = nx.karate_club_graph()
    H = privcut.synthetic_graph(G, 1.0, rng=0)
    cuts = random_cuts(G, 20, rng=1)
    np.testing.assert_allclose(cut_errors(G, H, cuts), cut_errors(G, H, cuts, release_weight=None))


def test_single_purpose_errors_need_groups_and_are_seeded():
    G = nx.path_graph(6)
    with pytest.raises(ValueError, match="groups"):
        WorkloadClasses(G, None, bisections=5, rng=0).single_purpose_errors(1.0, rng=0)
    work = WorkloadClasses(G, {v: v // 3 for v in G}, bisections=5, rng=0)
    assert work.single_purpose_errors(1.0, rng=3) == work.single_purpose_errors(1.0, rng=3)
    with pytest.raises(privcut.PrivacyParameterError):
        work.single_purpose_errors(0.0, rng=0)


def test_clustering_by_degree_matches_networkx_per_bin():
    G = nx.powerlaw_cluster_graph(400, 4, 0.5, seed=3)
    centres, means = clustering_by_degree(G, bins=8)
    local, degree = nx.clustering(G), dict(G.degree)
    edges = np.unique(np.geomspace(2, max(degree.values()) + 1, 8).astype(int))
    expected = {}
    for node, d in degree.items():
        b = int(np.digitize(d, edges))
        if d >= 2 and 0 < b < edges.size:
            expected.setdefault(b, []).append(local[node])
    assert means == pytest.approx([np.mean(expected[b]) for b in sorted(expected)])
    assert centres.size == len(expected) and np.all(np.diff(centres) > 0)
    A = nx.to_scipy_sparse_array(G, format="csr")
    assert clustering_by_degree(A, bins=8)[1] == pytest.approx(means)
    assert clustering_by_degree(nx.path_graph(2))[0].size == 0
