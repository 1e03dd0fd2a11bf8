import networkx as nx
import numpy as np
import pytest

from privcut import GraphInputError
from privcut.evaluate import cut_errors, max_cut_error, random_cuts
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
