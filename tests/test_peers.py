"""Smoke tests of the peer generators in benchmarks/peers.py (PrivGraph, Top-m Filter)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from privcut.datasets import community_graph
from privcut.evaluate import normalized_mutual_information

PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "peers.py"
SPEC = importlib.util.spec_from_file_location("benchmark_peers", PATH)
peers = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(peers)


@pytest.fixture(scope="module")
def planted():
    return community_graph(300, 5, 10, seed=1, as_sparse=True)


def assert_simple_graph(out, n):
    assert isinstance(out, sp.csr_array)
    assert out.shape == (n, n)
    assert (abs(out - out.T)).nnz == 0
    assert out.diagonal().sum() == 0
    assert set(np.unique(out.data).tolist()) <= {1}


@pytest.mark.parametrize("name", ["privgraph", "top_m_filter"])
@pytest.mark.parametrize("epsilon", [0.5, 5.0])
def test_release_is_a_simple_graph(planted, name, epsilon):
    A, _ = planted
    out = getattr(peers, name)(A, epsilon, np.random.default_rng(1))
    assert_simple_graph(out, A.shape[0])
    assert out.nnz > 0


@pytest.mark.parametrize("fill", ["count", "binomial"])
def test_tmf_edge_count_near_truth_at_large_epsilon(planted, fill):
    A, _ = planted
    m = A.nnz // 2
    out = peers.top_m_filter(A, 50.0, np.random.default_rng(2), fill=fill)
    assert abs(out.nnz // 2 - m) <= 0.03 * m
    assert (out.multiply(A)).nnz // 2 >= 0.97 * m  # the threshold keeps the true edges


@pytest.mark.parametrize("n, m", [(300, 1500), (7115, 100762), (10**6, 5 * 10**6)])
@pytest.mark.parametrize("epsilon1", [0.09, 0.45, 0.9, 1.8, 5.0, 45.0])
def test_tmf_threshold_passes_m_cells_in_expectation(n, m, epsilon1):
    """The paper's condition: edges (1 + Lap) and non-edges (Lap) above theta number m."""
    theta = peers.tmf_threshold(n, m, epsilon1)

    def above(t):  # P(Lap(1 / epsilon1) > t)
        return 0.5 * np.exp(-epsilon1 * t) if t >= 0 else 1 - 0.5 * np.exp(epsilon1 * t)

    expected = (n * (n - 1) / 2 - m) * above(theta) + m * above(theta - 1)
    assert expected == pytest.approx(m, rel=1e-9)


def test_tmf_small_epsilon_mostly_random(planted):
    A, _ = planted
    out = peers.top_m_filter(A, 0.1, np.random.default_rng(3))
    kept = (out.multiply(A)).nnz // 2
    assert kept < 0.2 * (A.nnz // 2)


def test_privgraph_communities_recover_planted(planted):
    A, truth = planted
    scores, chance = [], []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        labels = peers.privgraph_partition(A, 30.0, 30.0, rng)
        scores.append(normalized_mutual_information(truth, labels))
        chance.append(normalized_mutual_information(truth, rng.permutation(labels)))
    assert np.mean(scores) > 0.15
    assert np.mean(scores) > 5 * np.mean(chance)


def test_privgraph_extract_is_accurate_at_large_epsilon(planted):
    A, truth = planted
    degrees, pairs, counts = peers.privgraph_extract(A, truth, 200.0, np.random.default_rng(4))
    rows, cols = sp.triu(A, k=1).nonzero()
    between = truth[rows] != truth[cols]
    a, b = np.minimum(truth[rows], truth[cols]), np.maximum(truth[rows], truth[cols])
    for i in range(pairs.shape[1]):
        true = np.sum(between & (a == pairs[0, i]) & (b == pairs[1, i]))
        assert abs(counts[i] - true) <= 1
    inside = np.asarray((A.multiply(truth[:, None] == truth[None, :])).sum(axis=1)).ravel()
    assert np.mean(np.abs(degrees - inside)) < 0.2


def test_privgraph_inter_edges_go_to_their_own_pair():
    """The published code's stale loop variable sent every inter edge's first end to the
    last community; each pair's edges must join that pair's two communities."""
    labels = np.repeat([0, 1, 2, 3], 50)
    degrees = np.zeros(200, dtype=np.int64)
    pairs = np.vstack(np.triu_indices(4, 1))
    wanted = {(0, 1): 40, (0, 2): 0, (0, 3): 0, (1, 2): 25, (1, 3): 0, (2, 3): 10}
    counts = np.array([wanted[(int(a), int(b))] for a, b in pairs.T])
    out = peers.privgraph_reconstruct(labels, degrees, pairs, counts, np.random.default_rng(5))
    assert_simple_graph(out, 200)
    rows, cols = sp.triu(out, k=1).nonzero()
    found = {}
    for a, b in zip(labels[rows], labels[cols], strict=True):
        key = (min(a, b), max(a, b))
        found[key] = found.get(key, 0) + 1
    assert set(found) == {pair for pair, count in wanted.items() if count}
    for pair, count in found.items():
        assert wanted[pair] - 3 <= count <= wanted[pair]  # repeats collapse, rarely


def test_norm_sub_keeps_sum_and_sign():
    rng = np.random.default_rng(6)
    values = rng.integers(-20, 40, size=200)
    out = peers.norm_sub(values)
    assert out.min() >= 0
    assert abs(int(out.sum()) - int(values.sum())) <= np.sum(out > 0) + 1


def test_bad_graph_is_refused_before_noise(planted):
    A, _ = planted
    directed = sp.triu(A, k=1).tocsr()
    for name in ("privgraph", "top_m_filter"):
        with pytest.raises(ValueError, match="symmetric"):
            getattr(peers, name)(directed, 1.0, np.random.default_rng(0))


def test_bad_epsilon_is_refused(planted):
    A, _ = planted
    with pytest.raises(ValueError, match="epsilon"):
        peers.privgraph(A, 0.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="epsilon"):
        peers.top_m_filter(A, -1.0, np.random.default_rng(0))


def test_privgraph_returns_its_partition_on_request(planted):
    A, _ = planted
    out, labels = peers.privgraph(A, 2.0, np.random.default_rng(7), communities=True)
    assert_simple_graph(out, A.shape[0])
    assert labels.shape == (A.shape[0],) and labels.min() == 0
    again = peers.privgraph(A, 2.0, np.random.default_rng(7))
    assert (abs(again - out)).nnz == 0  # the same release, the partition only added
