"""Filtered randomized response (issue 17): equal in law to thresholded full randomized
response, audited with a broken twin, linear in the graph at scale, and bad input refused
before any noise."""

import math
import time
import tracemalloc

import networkx as nx
import numpy as np
import pytest
from scipy.stats import chi2_contingency

from privcut import GraphInputError, PrivacyParameterError
from privcut.audit import audit, neighbouring_graphs
from privcut.graph import EdgeUniverse, FilteredNoisyGraph, filtered_randomized_response
from privcut.graph.filtered import (
    default_threshold,
    filtered_pairs,
    pair_ends,
    pair_indices,
    survival_probability,
    uniform_non_edges,
)
from privcut.privacy import Noise, discrete_laplace
from privcut.privacy.noise import geometric

EPSILON = 0.5
DRAWS = 10_000
TINY = {
    False: nx.Graph([(0, 1), (1, 2), (2, 3)]),  # 6 pairs, 3 edges
    True: nx.DiGraph([(0, 1), (2, 1), (3, 2)]),  # 12 ordered pairs, 3 edges
}


def edge_positions(G):
    universe = EdgeUniverse.of(G)
    rows, columns = np.array([(universe.index()[u], universe.index()[v]) for u, v in G.edges]).T
    if not universe.directed:
        rows, columns = np.minimum(rows, columns), np.maximum(rows, columns)
    return universe, np.sort(pair_indices(rows, columns, universe.n, universe.directed))


def thresholded_full(universe, edges, theta, draws, rng):
    """The specification: discrete Laplace on every pair, then keep the pairs >= theta;
    each draw as a vector over pairs with ``theta - 1`` for a pair not kept."""
    truth = np.zeros(universe.size, dtype=np.int64)
    truth[edges] = 1
    noisy = truth + discrete_laplace(1.0 / EPSILON, size=(draws, universe.size), rng=rng)
    return np.where(noisy >= theta, noisy, theta - 1)


def as_vectors(release, universe, theta, draws, rng):
    generator = np.random.default_rng(rng)
    vectors = np.full((draws, universe.size), theta - 1, dtype=np.int64)
    for row in vectors:
        positions, values = release(generator)
        assert np.all(np.diff(positions) > 0) and np.all(values >= theta)
        row[positions] = values
    return vectors


def _edge_values(universe, edges, epsilon, theta, draws, generator):
    """``draws`` rows of the twins' common part: the edges' noisy values where kept,
    ``theta - 1`` elsewhere, and the non-edges' positions."""
    noise = Noise.for_laplace(epsilon, 1.0, integer=True)
    values = 1 + noise.sample((draws, edges.size), rng=generator)
    vectors = np.full((draws, universe.size), theta - 1, dtype=np.int64)
    vectors[:, edges] = np.where(values >= theta, values, theta - 1)
    return vectors, np.setdiff1d(np.arange(universe.size), edges)


def _uniform_subsets(k, size, generator):
    """A uniform ``k[r]``-subset of ``range(size)`` for each row r, as a boolean mask (the
    ranks of a uniform random permutation, kept below k)."""
    ranks = generator.random((k.size, size)).argsort(axis=1).argsort(axis=1)
    return ranks < k[:, None]


def _survivor_values(mask, theta, generator):
    tail = theta + geometric(1.0 / EPSILON, mask.shape, rng=generator)
    return np.where(mask, tail, theta - 1)


def k_over_all_pairs(universe, edges, epsilon, theta, draws, generator):
    """Broken twin: K ~ Binomial(N, p) instead of Binomial(N - m, p) (``draws`` releases at
    once, as vectors)."""
    vectors, free = _edge_values(universe, edges, epsilon, theta, draws, generator)
    k = generator.binomial(universe.size, survival_probability(epsilon, theta), size=draws)
    k = np.minimum(k, free.size)
    vectors[:, free] = _survivor_values(_uniform_subsets(k, free.size, generator), theta, generator)
    return vectors


def placed_among_all_pairs(universe, edges, epsilon, theta, draws, generator):
    """Broken twin: the K survivors placed among all pairs (an edge hit keeps its own value;
    ``draws`` releases at once, as vectors)."""
    vectors, free = _edge_values(universe, edges, epsilon, theta, draws, generator)
    k = generator.binomial(free.size, survival_probability(epsilon, theta), size=draws)
    placed = _uniform_subsets(k, universe.size, generator)[:, free]
    vectors[:, free] = _survivor_values(placed, theta, generator)
    return vectors


def two_sample_p(a, b):
    """Chi-square two-sample test of two samples of a categorical statistic (rare cells
    pooled so every cell has at least 10 draws in all)."""
    categories, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    table = np.zeros((2, categories.size))
    np.add.at(table, (np.repeat([0, 1], [len(a), len(b)]), codes), 1)
    rare = table.sum(axis=0) < 10
    table = np.column_stack([table[:, ~rare], table[:, rare].sum(axis=1)])
    table = table[:, table.sum(axis=0) > 0]
    return 1.0 if table.shape[1] < 2 else float(chi2_contingency(table)[1])


def smallest_p(vectors, reference, theta):
    """Bonferroni-corrected smallest p-value over the statistics: the kept set (as a
    bitmask), the number kept, and each pair's value (clipped at theta + 4)."""
    weights = 2 ** np.arange(vectors.shape[1])
    tests = [
        two_sample_p((vectors >= theta) @ weights, (reference >= theta) @ weights),
        two_sample_p((vectors >= theta).sum(1), (reference >= theta).sum(1)),
    ]
    for j in range(vectors.shape[1]):
        tests.append(
            two_sample_p(
                np.minimum(vectors[:, j], theta + 4), np.minimum(reference[:, j], theta + 4)
            )
        )
    return min(1.0, min(tests) * len(tests))


CASES = [(False, "enumerate", 1), (False, "reject", 2), (True, "enumerate", 2), (True, "reject", 1)]


def check_exactness(directed, placement, theta, draws):
    universe, edges = edge_positions(TINY[directed])
    reference = thresholded_full(universe, edges, theta, draws, rng=1)

    def correct(generator):
        return filtered_pairs(universe, edges, EPSILON, theta, generator, placement=placement)

    p_value = smallest_p(as_vectors(correct, universe, theta, draws, 2), reference, theta)
    assert p_value >= 0.01, p_value
    for twin in (k_over_all_pairs, placed_among_all_pairs):
        vectors = twin(universe, edges, EPSILON, theta, draws, np.random.default_rng(3))
        p_value = smallest_p(vectors, reference, theta)
        assert p_value <= 1e-6, (twin.__name__, p_value)


@pytest.mark.slow
@pytest.mark.parametrize(("directed", "placement", "theta"), CASES)
def test_filtered_release_is_distributed_as_thresholded_randomized_response(
    directed, placement, theta
):
    check_exactness(directed, placement, theta, DRAWS)


def test_filtered_release_matches_thresholded_randomized_response_quickly():
    check_exactness(False, "reject", 2, 3000)


@pytest.mark.parametrize("directed", [False, True])
def test_public_function_runs_the_tested_core(directed):
    G = TINY[directed]
    universe, edges = edge_positions(G)
    for seed in range(20):
        release = filtered_randomized_response(G, EPSILON, threshold=1, rng=seed)
        positions, values = filtered_pairs(universe, edges, EPSILON, 1, seed)
        found = pair_indices(release.rows, release.columns, universe.n, directed)
        assert np.array_equal(found, positions) and np.array_equal(release.values, values)
        assert release.values.dtype == np.int64
        if not directed:
            assert np.all(release.rows < release.columns)


def test_output_does_not_depend_on_insertion_order():
    edges = [(3, 7), (0, 5), (2, 9), (1, 4), (6, 8)]
    one = nx.Graph(edges)
    two = nx.Graph()
    two.add_nodes_from(range(10))
    two.add_edges_from(reversed(edges))
    a = filtered_randomized_response(one, 1.0, threshold=1, rng=5)
    b = filtered_randomized_response(two, 1.0, threshold=1, rng=5)
    assert a.nodes == b.nodes == tuple(range(10))
    for field in ("rows", "columns", "values"):
        assert np.array_equal(getattr(a, field), getattr(b, field))


def edges_only(G, rng, size):
    """Broken twin: noise the edges and keep those above the threshold, no non-edges
    (``size`` releases at once)."""
    universe, edges = edge_positions(G)
    noise = Noise.for_laplace(1.0, 1.0, integer=True)
    vectors = np.zeros((size, universe.size))
    values = 1 + noise.sample((size, edges.size), rng=rng)
    vectors[:, edges] = np.where(values >= 1, values, 0)
    return vectors


@pytest.mark.slow
def test_filtered_release_passes_its_audit_and_catches_dropping_non_edges():
    G = nx.Graph([(0, 1), (1, 2)])
    G.add_node(3)
    neighbour = next(neighbouring_graphs(G, pairs=[(0, 2)]))
    universe = EdgeUniverse.of(G)

    def released(graph, rng):
        release = filtered_randomized_response(graph, 1.0, rng=rng)
        assert release.threshold == 1
        vector = np.zeros(universe.size)  # theta - 1 = 0 for a pair not kept
        positions = pair_indices(release.rows, release.columns, universe.n, False)
        vector[positions] = release.values
        return vector

    correct = audit(released, (G, neighbour), 1.0, samples=1500, rng=0)
    assert correct.p_value >= 0.01, correct
    broken = audit(edges_only, (G, neighbour), 1.0, samples=1500, vectorized=True, rng=0)
    assert broken.p_value <= 1e-3, broken


def test_default_threshold_is_the_smallest_meeting_the_expected_size():
    for epsilon, pairs, size in [(1.0, 10**6, 1000.0), (0.1, 12_497_500, 50_000.0), (3.0, 6, 1.0)]:
        theta = default_threshold(epsilon, pairs, size)
        assert theta >= 1 and pairs * survival_probability(epsilon, theta) <= size
        assert theta == 1 or pairs * survival_probability(epsilon, theta - 1) > size
    G = nx.path_graph(50)
    release = filtered_randomized_response(G, 1.0, rng=0)
    assert release.expected_size == 500.0
    assert release.threshold == default_threshold(1.0, math.comb(50, 2), 500.0)
    assert release.expected_non_edges <= 500.0
    assert filtered_randomized_response(G, 1.0, expected_size=5.0, rng=0).threshold > 1


def test_report_sparse_matrix_and_cut():
    G = nx.karate_club_graph()
    release = filtered_randomized_response(G, 0.5, threshold=2, rng=1)
    assert isinstance(release, FilteredNoisyGraph)
    report = release.to_dict()
    assert report["delta"] == 0.0 and report["threshold"] == 2 and report["n"] == 34
    assert report["pairs"] == math.comb(34, 2) and report["kept"] == release.values.size
    assert report["sampler_tv"] == Noise("discrete_laplace", 2.0).tv_bound(math.comb(34, 2))
    dense = release.to_sparse().toarray()
    assert np.array_equal(dense, dense.T) and np.all(np.diag(dense) == 0)
    assert np.count_nonzero(dense) == 2 * release.values.size
    S, T = range(0, 20), range(10, 34)
    assert release.cut(S, T) == dense[np.ix_(list(S), list(T))].sum()
    directed = filtered_randomized_response(nx.gn_graph(30, seed=1), 0.5, threshold=2, rng=1)
    matrix = directed.to_sparse().toarray()
    assert directed.cut(range(5), range(30)) == matrix[:5].sum()


def test_scale_is_linear_and_never_dense():
    n = 5000
    G = nx.fast_gnp_random_graph(n, 10 / (n - 1), seed=1)
    m, pairs = G.number_of_edges(), math.comb(n, 2)
    tracemalloc.start()
    start = time.perf_counter()
    release = filtered_randomized_response(G, 1.0, rng=0)
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert elapsed < 2.0, elapsed
    assert peak < n * n * 8 / 10, peak  # n x n floats would be 200 MB
    theta = release.threshold
    expected = m * survival_probability(1.0, theta - 1) + (pairs - m) * survival_probability(
        1.0, theta
    )
    assert abs(release.values.size - expected) < 6 * math.sqrt(expected), (release.values.size,)


BAD = [
    dict(epsilon=0.0),
    dict(epsilon=math.nan),
    dict(epsilon=-1.0),
    dict(epsilon="1"),
    dict(threshold=0),
    dict(threshold=1.5),
    dict(threshold=True),
    dict(threshold=2**60),
    dict(expected_size=0.0),
    dict(expected_size=-3.0),
    dict(expected_size=math.inf),
    dict(expected_size="10"),
    dict(weight="weight"),
]


@pytest.mark.parametrize("bad", BAD, ids=[str(b) for b in BAD])
def test_bad_input_raises_before_any_noise(bad):
    kwargs = dict(epsilon=1.0) | bad
    generator = np.random.default_rng(0)
    state = generator.bit_generator.state
    epsilon = kwargs.pop("epsilon")
    with pytest.raises((PrivacyParameterError, TypeError, ValueError)) as caught:
        filtered_randomized_response(nx.path_graph(4), epsilon, rng=generator, **kwargs)
    assert generator.bit_generator.state == state
    with pytest.raises(type(caught.value)):  # checked before G is even looked at
        filtered_randomized_response(None, epsilon, rng=generator, **kwargs)
    with pytest.raises(GraphInputError):
        filtered_randomized_response(nx.Graph(), 1.0, rng=generator)


@pytest.mark.parametrize("directed", [False, True])
def test_rejection_placement_is_uniform_over_non_edges(directed):
    n, k, runs = 40, 60, 3000
    pairs = n * (n - 1) if directed else n * (n - 1) // 2
    generator = np.random.default_rng(7)
    edges = np.sort(generator.choice(pairs, size=pairs // 8, replace=False))
    counts = np.zeros(pairs)
    for _ in range(runs):
        chosen = uniform_non_edges(edges, pairs, k, n, directed, generator, "reject")
        assert chosen.size == k and np.all(np.diff(chosen) > 0)
        counts[chosen] += 1
    assert not counts[edges].any()
    free = np.setdiff1d(np.arange(pairs), edges)
    expected = runs * k / free.size
    statistic = float(((counts[free] - expected) ** 2 / expected).sum())
    # chi-square with free.size - 1 degrees of freedom (slightly conservative: a fixed-size
    # sample makes the counts negatively correlated); p >= 1e-3 needs about df + 3.1 sqrt(2 df)
    assert statistic < free.size - 1 + 3.1 * math.sqrt(2 * (free.size - 1)), statistic


@pytest.mark.parametrize("n", [2, 3, 17, 10**6, 3 * 10**7])
def test_pair_positions_round_trip(n):
    for directed in (False, True):
        pairs = n * (n - 1) if directed else n * (n - 1) // 2
        index = np.unique(
            np.r_[0, 1, pairs - 2, pairs - 1, np.arange(0, pairs, max(pairs // 997, 1))]
        )
        index = index[(index >= 0) & (index < pairs)]
        rows, columns = pair_ends(index, n, directed)
        assert np.all(rows != columns) and np.all((0 <= rows) & (columns < n))
        assert directed or np.all(rows < columns)
        assert np.array_equal(pair_indices(rows, columns, n, directed), index)
    if n < 50:
        for directed in (False, True):
            rows, columns = EdgeUniverse(tuple(range(n)), directed).pair_index()
            assert np.array_equal(pair_indices(rows, columns, n, directed), np.arange(rows.size))
