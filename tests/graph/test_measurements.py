import itertools
import math
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

from privcut.audit import audit, neighbouring_graphs
from privcut.datasets import planted_partition
from privcut.graph import EdgeUniverse
from privcut.graph import measurements as measurements_module
from privcut.graph.measurements import (
    Partition,
    class_bounds,
    fit_targets,
    measure,
    plan_measurements,
)
from privcut.privacy import Noise

GROUPS = {v: v // 10 for v in range(40)}


def brute_block_sums(G, groups, directed):
    sums = {}
    for u, v in G.edges():
        key = (groups[u], groups[v]) if directed else tuple(sorted((groups[u], groups[v])))
        sums[key] = sums.get(key, 0) + 1
    return sums


@pytest.mark.parametrize("directed", [False, True])
def test_partition_blocks_match_a_brute_force_count(directed):
    G = nx.gnp_random_graph(23, 0.3, seed=1, directed=directed)
    groups = {v: "abc"[v % 3] for v in G}
    universe = EdgeUniverse.of(G)
    partition = Partition.of(universe, groups)
    sums = partition.block_sums(universe.adjacency(G))
    expected = brute_block_sums(G, groups, directed)
    first, second = partition.blocks
    for k, (a, b) in enumerate(zip(first, second, strict=True)):
        key = (partition.names[a], partition.names[b])
        assert sums[k] == expected.get(key, 0)
    assert partition.pairs.sum() == universe.size
    rows, columns = universe.pair_index()
    assert np.array_equal(np.bincount(partition.block_of(rows, columns)), partition.pairs)


def test_partition_refuses_incomplete_or_foreign_groups():
    universe = EdgeUniverse.of(nx.path_graph(4))
    with pytest.raises(ValueError, match="no group for 1 node"):
        Partition.of(universe, {0: 0, 1: 0, 2: 1})
    with pytest.raises(ValueError, match="not in the graph"):
        Partition.of(universe, {0: 0, 1: 0, 2: 1, 3: 1, 9: 1})
    with pytest.raises(TypeError, match="mapping"):
        Partition.of(universe, [0, 0, 1, 1])


@pytest.mark.parametrize("epsilon", [0.1, 0.3, 1.0, 2.0, 7.3])
@pytest.mark.parametrize(
    "measurements",
    ["auto", ["edge-count", "randomized-response"], ["degrees", "blocks", "edge-count"]],
)
def test_shares_sum_to_epsilon_exactly(epsilon, measurements):
    groups = GROUPS if measurements == "auto" or "blocks" in measurements else None
    plan = plan_measurements(range(40), epsilon, measurements, groups=groups)
    assert math.fsum(plan.epsilons) == epsilon
    assert sum(Fraction(e) for e in plan.epsilons) - Fraction(epsilon) <= Fraction(epsilon) * 2**-52
    for name, eps, noise in zip(plan.measurements, plan.epsilons, plan.noise, strict=True):
        assert noise.scale == pytest.approx(measurements_module.SENSITIVITY[name] / eps)
        assert noise.kind == "discrete_laplace"


def test_plan_reads_public_values_only_and_is_deterministic():
    one = plan_measurements(range(1000), 1.0, groups={v: v // 50 for v in range(1000)})
    two = plan_measurements(list(range(1000)), 1.0, groups={v: v // 50 for v in range(1000)})
    assert one.epsilons == two.epsilons and one.measurements == two.measurements
    assert set(one.predicted) == {
        "within-group",
        "between-group",
        "group-vs-rest",
        "bisection",
        "arbitrary-cut",
    }
    blocks = one.noise_of("blocks")
    assert one.predicted["between-group"] == pytest.approx(blocks.mean_absolute)


def test_degrees_have_sensitivity_two():
    plan = plan_measurements(range(10), 1.0, {"degrees": 0.5, "edge-count": 0.5})
    assert plan.noise_of("degrees").scale == 4.0 and plan.noise_of("edge-count").scale == 2.0


def test_more_weight_on_a_class_moves_budget_to_its_measurement():
    groups = {v: v // 50 for v in range(1000)}
    group_heavy = plan_measurements(
        range(1000),
        1.0,
        groups=groups,
        workload={"between-group": 4, "bisection": 1, "arbitrary-cut": 1},
    )
    cut_heavy = plan_measurements(
        range(1000),
        1.0,
        groups=groups,
        workload={"between-group": 1, "bisection": 1, "arbitrary-cut": 4},
    )
    share = lambda plan, name: plan.epsilons[plan.measurements.index(name)]  # noqa: E731
    assert share(group_heavy, "blocks") > share(cut_heavy, "blocks")
    assert share(group_heavy, "randomized-response") < share(cut_heavy, "randomized-response")


def test_split_beats_other_splits_on_its_objective():
    """The chosen split's weighted log error is at most that of any split on a grid."""
    groups = {v: v // 50 for v in range(1000)}
    plan = plan_measurements(
        range(1000), 1.0, ["edge-count", "blocks", "randomized-response"], groups=groups
    )
    shape = measurements_module._Shape(1000, False, True, tuple([50] * 20))
    names = ("edge-count", "blocks", "randomized-response")
    shares = dict.fromkeys(names, 1e-12) | {
        n: e for n, e in zip(plan.measurements, plan.epsilons, strict=True)
    }
    chosen = measurements_module._objective(
        np.log([shares[n] for n in names]), names, plan.workload, 1.0, shape
    )
    for a, b in itertools.product(np.linspace(0.05, 0.9, 18), repeat=2):
        if a + b < 0.99:
            other = measurements_module._objective(
                np.log([a, b, 1 - a - b]), names, plan.workload, 1.0, shape
            )
            assert chosen <= other + 1e-6


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"measurements": ["blocks"]}, ValueError, "needs groups"),
        ({"measurements": ["edge-count"], "groups": GROUPS}, ValueError, "add it to measurements"),
        ({"measurements": ["edges"]}, ValueError, "distinct names"),
        ({"measurements": []}, ValueError, "distinct names"),
        ({"measurements": "blocks"}, ValueError, "'auto' or a list"),
        ({"measurements": {"edge-count": 0.5, "randomized-response": 0.6}}, ValueError, "sum to 1"),
        ({"workload": {"cliques": 1.0}}, ValueError, "unknown workload class"),
        ({"workload": {"within-group": 1.0}}, ValueError, "not answered"),
        ({"workload": {"bisection": -1.0}}, ValueError, ">= 0"),
        ({"workload": {"bisection": 0.0}}, ValueError, "positive weight"),
        ({"workload": [("bisection", 1.0)]}, TypeError, "mapping"),
    ],
)
def test_bad_plans_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        plan_measurements(range(40), 1.0, **kwargs)


def test_mean_absolute_matches_sampling():
    rng = np.random.default_rng(0)
    for noise in (
        Noise("discrete_laplace", 0.7),
        Noise("laplace", 2.0),
        Noise("gaussian", 1.5),
        Noise("discrete_gaussian", 2.0),
    ):
        draws = noise.sample(200_000, rng=rng)
        assert np.mean(np.abs(draws)) == pytest.approx(noise.mean_absolute, rel=0.02)


def measured_graph(G, groups, names, epsilon, seed):
    universe = EdgeUniverse.of(G)
    plan = plan_measurements(
        universe.nodes, epsilon, names, groups=groups, directed=G.is_directed()
    )
    partition = Partition.of(universe, groups) if groups else None
    return measure(G, universe, plan, partition, True, np.random.default_rng(seed))


@pytest.mark.parametrize("directed", [False, True])
def test_fitted_targets_are_consistent_and_in_their_boxes(directed):
    G = planted_partition(4, 10, 0.5, 0.05, seed=2)
    if directed:
        G = G.to_directed()
    groups = G.graph["groups"]
    for seed in range(5):
        measured = measured_graph(G, groups, ["edge-count", "degrees", "blocks"], 0.5, seed)
        targets = fit_targets(measured)
        partition = measured.partition
        assert np.all((targets.blocks >= 0) & (targets.blocks <= partition.pairs))
        assert targets.total == pytest.approx(targets.blocks.sum())
        assert np.all((targets.degrees >= 0) & (targets.degrees <= 39))
        n = 40
        halves = [targets.degrees[:n], targets.degrees[n:]] if directed else [targets.degrees]
        first, second = partition.blocks
        expected = (
            [np.bincount(first, targets.blocks), np.bincount(second, targets.blocks)]
            if directed
            else [np.bincount(first, targets.blocks) + np.bincount(second, targets.blocks)]
        )
        for half, sums in zip(halves, expected, strict=True):
            assert np.bincount(partition.labels, half) == pytest.approx(sums)


def test_edge_count_corrects_the_clipping_bias_of_sparse_blocks():
    """Clipping noisy sparse block counts at 0 inflates their sum; fitting them to the
    measured edge count removes most of it."""
    G = planted_partition(20, 20, 0.05, 0.002, seed=0)
    groups, truth = G.graph["groups"], G.number_of_edges()
    clipped, fitted = [], []
    for seed in range(10):
        measured = measured_graph(G, groups, {"edge-count": 0.5, "blocks": 0.5}, 0.5, seed)
        clipped.append(np.clip(measured.values["blocks"], 0, None).sum() - truth)
        fitted.append(fit_targets(measured).blocks.sum() - truth)
    assert abs(np.mean(fitted)) < abs(np.mean(clipped)) / 3


def test_class_bounds_hold():
    G = planted_partition(5, 12, 0.4, 0.05, seed=3)
    groups = G.graph["groups"]
    universe = EdgeUniverse.of(G)
    partition = Partition.of(universe, groups)
    truth = partition.block_sums(universe.adjacency(G))
    degrees = np.array([d for _, d in G.degree(universe.nodes)], dtype=float)
    failures = 0
    for seed in range(40):
        measured = measured_graph(G, groups, ["degrees", "blocks"], 1.0, seed)
        targets = fit_targets(measured)
        released = np.rint(targets.blocks)
        bounds = class_bounds(measured, released, targets.degrees, 0.1)
        first, second = partition.blocks
        errors = {
            "within-group": np.abs(released - truth)[first == second].max(),
            "between-group": np.abs(released - truth)[first != second].max(),
            "group-vs-rest": max(abs((released - truth)[ids].sum()) for ids in partition.rest()),
            "degree": np.abs(targets.degrees - degrees).max(),
        }
        failures += any(errors[c] > bounds[c]["bound"] for c in errors)
    assert failures <= 8  # each class fails with probability <= 0.1


@pytest.mark.slow
def test_degree_measurement_passes_its_audit_and_catches_sensitivity_one(monkeypatch):
    """An undirected edge raises two degrees: calibrating the degrees for sensitivity 1
    doubles their privacy loss."""
    G = nx.path_graph(5)
    pair = (G, next(neighbouring_graphs(G, pairs=[(0, 2)])))

    def degrees(graph, rng):
        measured = measured_graph(graph, None, {"degrees": 1.0}, 1.0, rng)
        return tuple(measured.values["degrees"][[0, 2]].astype(int))

    correct = audit(degrees, pair, 1.0, samples=4000, rng=0)
    monkeypatch.setitem(measurements_module.SENSITIVITY, "degrees", 1.0)
    broken = audit(degrees, pair, 1.0, samples=4000, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3
