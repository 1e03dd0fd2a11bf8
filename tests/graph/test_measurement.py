import dataclasses

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from privcut.audit import audit, neighbouring_graphs
from privcut.graph import EdgeUniverse, noisy_graph
from privcut.graph.measurement import (
    WEIGHT_GRID,
    Measurement,
    Measurements,
    measure,
    statistic,
)
from privcut.graph.partition import Partition
from privcut.graph.planning import plan_measurements
from privcut.privacy import Noise
from privcut.records import Spend


def measured_graph(G, groups, names, epsilon, seed, partition=None):
    universe = EdgeUniverse.of(G)
    plan = plan_measurements(
        universe.nodes, epsilon, names, groups=groups, directed=G.is_directed()
    )
    if partition is None and groups:
        partition = Partition.of(universe, groups)
    return measure(G, plan, partition=partition, rng=np.random.default_rng(seed))


def test_one_record_per_measurement_looked_up_by_name():
    G = nx.gnp_random_graph(12, 0.3, seed=0)
    groups = {v: v % 3 for v in G}
    shares = {"edge-count": 0.1, "degrees": 0.2, "blocks": 0.6, "randomized-response": 0.1}
    measured = measured_graph(G, groups, shares, 1.0, 0)
    assert [record.name for record in measured.records] == list(shares)
    assert all(isinstance(record, Measurement) for record in measured.records)
    assert measured.get("degrees").values.shape == (12,)
    assert measured.get("degrees").sensitivity == 2.0
    assert measured.get("blocks").values.shape == (measured.partition.size,)
    assert measured.get("randomized-response").values.shape == (12, 12)
    assert measured.get("nothing") is None
    assert [record.name for record in measured.low_dimensional] == list(shares)[:3]
    spends = measured.spends()
    assert all(isinstance(spend, Spend) for spend in spends)
    assert [spend.share for spend in spends] == pytest.approx(list(shares.values()))
    assert measured.sampler_tv == pytest.approx(
        sum(record.noise.tv_bound(record.draws) for record in measured.records)
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        measured.records[0].name = "other"


def test_randomized_response_is_the_noisy_graph():
    """The measurement step draws randomized response as noisy_graph does (same draws)."""
    G = nx.gnp_random_graph(15, 0.3, seed=1)
    measured = measured_graph(G, None, ["randomized-response"], 1.0, 5)
    noisy = noisy_graph(G, 1.0, rng=np.random.default_rng(5))
    assert np.array_equal(measured.noisy.matrix, noisy.matrix)
    assert measured.noisy.sampler_tv == noisy.sampler_tv
    again = Measurements.from_noisy(noisy, measured.plan)
    assert np.array_equal(again.noisy.matrix, noisy.matrix)
    assert again.spends() == measured.spends()


def test_weights_are_read_only_when_named():
    G = nx.path_graph(5)
    nx.set_edge_attributes(G, 0.5, "weight")
    plan = plan_measurements(range(5), 1.0, ["edge-count"])
    weighted = plan_measurements(range(5), 1.0, ["edge-count"], weight="weight")
    assert plan.noise[0].integer and not weighted.noise[0].integer
    value = measure(G, plan, rng=0).get("edge-count").values[0]
    assert value == int(value)
    G[0][1]["weight"] = 3.0
    measure(G, plan, rng=0)  # ignored
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        measure(G, weighted, rng=0)


def test_blocks_need_their_partition():
    G = nx.path_graph(6)
    plan = plan_measurements(range(6), 1.0, ["blocks"], groups={v: v % 2 for v in G})
    with pytest.raises(ValueError, match="partition"):
        measure(G, plan, rng=0)


def repeated(measurement, plan, coordinates):
    """``measurement`` of ``plan``'s release at ``coordinates``, as a vectorised audit's
    mechanism (``size`` measurements, one per row)."""

    def mechanism(graph, rng, size):
        rows = [measure(graph, plan, rng=rng).get(measurement).values for _ in range(size)]
        return np.array([row[coordinates] for row in rows]).astype(int)

    return mechanism


@pytest.mark.slow
def test_randomized_response_measurement_passes_its_audit_and_catches_too_little_noise():
    """The whole release's data-touching step (everything after it is post-processing),
    audited vectorised on the pair the neighbours differ in: the bulk of the release's
    audit (test_synthetic keeps one whole-release audit for leaks after noising). The
    broken twin is the plan for 2 epsilon (its noise calibrated for twice the epsilon the
    audit holds it to), passed in as the plan, which measure uses."""
    G = nx.path_graph(5)
    pair = (G, next(neighbouring_graphs(G, pairs=[(0, 2)])))
    plan = plan_measurements(range(5), 1.0, ["randomized-response"])
    broken_plan = plan_measurements(range(5), 2.0, ["randomized-response"])
    mechanism, broken = (repeated("randomized-response", p, (0, 2)) for p in (plan, broken_plan))
    # 400 samples each: at seeds 0-9 the correct one's p >= 0.17, the twin's <= 7e-10
    correct = audit(mechanism, pair, 1.0, samples=400, vectorized=True, rng=0)
    broken = audit(broken, pair, 1.0, samples=400, vectorized=True, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


@pytest.mark.slow
def test_degree_measurement_passes_its_audit_and_catches_sensitivity_one():
    """An undirected edge raises two degrees: calibrating the degrees for sensitivity 1
    doubles their privacy loss. The broken twin is a plan with that noise: the plan for
    2 epsilon, whose degree noise has scale 2 / 2 = 1 / 1."""
    G = nx.path_graph(5)
    pair = (G, next(neighbouring_graphs(G, pairs=[(0, 2)])))
    plan = plan_measurements(range(5), 1.0, {"degrees": 1.0})
    broken_plan = plan_measurements(range(5), 2.0, {"degrees": 1.0})
    assert broken_plan.noise[0] == Noise.for_laplace(1.0, 1.0, integer=True, coordinates=2)
    mechanism, broken = (repeated("degrees", p, [0, 2]) for p in (plan, broken_plan))
    correct = audit(mechanism, pair, 1.0, samples=750, vectorized=True, rng=0)
    broken = audit(broken, pair, 1.0, samples=750, vectorized=True, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


class DoubledPartition(Partition):
    """The broken twin: sums a within-group undirected pair from both A[i, j] and A[j, i]
    (sensitivity 2 for within-group pairs, calibrated for 1)."""

    def block_sums(self, matrix):
        sums = np.asarray(self.indicator.T @ (matrix @ self.indicator))
        return sums[self.blocks]


@pytest.mark.slow
def test_block_measurement_passes_its_audit_and_catches_double_counted_blocks():
    """The multi-measurement release's data-touching step on an edge-flip pair inside a
    group; the statistic is the noisy count of that group's block. The broken partition
    is passed in as the measurement's partition."""
    G, groups = nx.path_graph(8), {v: int(v >= 6) for v in range(8)}
    pair = (G, next(neighbouring_graphs(G, pairs=[(0, 2)])))
    universe = EdgeUniverse.of(G)
    honest = Partition.of(universe, groups)
    doubled = DoubledPartition(honest.labels, honest.names, honest.directed)
    shares = {"edge-count": 0.02, "degrees": 0.02, "blocks": 0.94, "randomized-response": 0.02}

    def block(partition):
        def mechanism(graph, rng):
            measured = measured_graph(graph, groups, shares, 1.0, rng, partition)
            return int(measured.get("blocks").values[0])

        return mechanism

    correct = audit(block(honest), pair, 1.0, samples=150, selection_samples=150, rng=0)
    broken = audit(block(doubled), pair, 1.0, samples=250, selection_samples=150, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


@pytest.mark.parametrize(
    "noise",
    [
        Noise.for_laplace(100.0, 1.0, integer=True),  # far less noise than epsilon 1 needs
        Noise.for_laplace(1.0, 1.0, integer=True),  # integer noise on real weights
    ],
)
def test_a_plan_whose_noise_is_not_its_calibration_is_refused(noise):
    """A hand-built plan cannot make measure release a statistic with less noise than the
    epsilon it records, nor integer noise (which keeps a real weight's fractional part)
    on a weighted graph: the plan refuses it when built."""
    plan = plan_measurements(range(4), 1.0, ["edge-count"], weight="w")
    with pytest.raises(ValueError, match="calibrated noise"):
        dataclasses.replace(plan, noise=(noise,))


def test_weighted_measurements_carry_the_weight_rounding_into_their_bounds():
    """Weights are rounded to WEIGHT_GRID before the statistics are computed: each value
    may move by WEIGHT_GRID / 2 per vertex pair it sums, and the count bound widens by
    that much (0/1 graphs have no such slack)."""
    G = nx.path_graph(6)
    nx.set_edge_attributes(G, 0.3, "w")
    groups = {v: v // 3 for v in G}
    universe = EdgeUniverse.of(G)
    partition = Partition.of(universe, groups)
    names = {"edge-count": 0.4, "degrees": 0.3, "blocks": 0.3}
    weighted = plan_measurements(range(6), 1.0, names, groups=groups, weight="w")
    measured = measure(G, weighted, partition=partition, rng=0)
    half = WEIGHT_GRID / 2.0
    assert measured.get("edge-count").slack.tolist() == [15 * half]
    assert measured.get("degrees").slack.tolist() == [5 * half] * 6
    assert measured.get("blocks").slack.tolist() == (partition.pairs * half).tolist()
    estimate = measured.get("edge-count").count_estimate(universe)
    assert estimate.slack == 15 * half
    plain = plan_measurements(range(6), 1.0, names, groups=groups)
    unweighted = measure(G, plain, partition=partition, rng=0)
    assert all(record.slack is None for record in unweighted.records)
    assert unweighted.get("blocks").count_estimate(universe).slack == 0.0


def test_degree_sums_are_the_row_sums():
    """The degrees of a CSR of 1.0 entries (counted per row, duplicates included) and of
    any other adjacency (summed) are ``sum(axis=1)``'s floats."""
    rng = np.random.default_rng(0)
    rows, columns = rng.integers(0, 30, 200), rng.integers(0, 30, 200)
    for data in (np.ones(200), rng.random(200), rng.integers(0, 2, 200).astype(float)):
        coo = sp.coo_array((data, (rows, columns)), shape=(30, 30))
        order = np.argsort(rows, kind="stable")
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=30))])
        raw = sp.csr_array((data[order], columns[order], indptr), shape=(30, 30))  # duplicates
        for A in (coo.tocsr(), raw, sp.csr_matrix(coo), coo):
            expected = np.asarray(A.sum(axis=1)).ravel()
            got = statistic("degrees", A, None, False)
            assert got.dtype == expected.dtype and np.array_equal(got, expected)
