import math

import networkx as nx
import numpy as np
import pytest

from privcut.datasets import planted_partition
from privcut.graph import EdgeUniverse
from privcut.graph.bounds import class_bounds, edge_count_upper, split_beta, trivial_bound
from privcut.graph.fitting import fit_targets
from privcut.graph.generation import Generated
from privcut.graph.measurement import measure
from privcut.graph.partition import Partition
from privcut.graph.planning import plan_measurements
from privcut.records import Bound, SolverSummary


def measured_graph(G, groups, names, epsilon, seed):
    universe = EdgeUniverse.of(G)
    plan = plan_measurements(
        universe.nodes, epsilon, names, groups=groups, directed=G.is_directed()
    )
    partition = Partition.of(universe, groups) if groups else None
    return measure(G, plan, partition=partition, rng=np.random.default_rng(seed))


class Statistics(Generated):
    """A release known only by its statistics (the interface the bounds read, without a
    pair vector): block counts and degrees."""

    def __init__(self, blocks, degrees):
        self.blocks, self.released_degrees = blocks, degrees
        self.mechanism, self.solver = "statistics", SolverSummary(None, 0, 0, True)
        self.bound, self.terms, self.timings = Bound.none(), {}, {}

    @property
    def edge_count(self):
        return float(self.blocks.sum())

    def block_sums(self, partition):
        return self.blocks

    def degrees(self):
        return self.released_degrees

    def graph(self):
        raise NotImplementedError


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
        bounds = class_bounds(measured, Statistics(released, targets.degrees), 0.1)
        first, second = partition.blocks
        errors = {
            "within-group": np.abs(released - truth)[first == second].max(),
            "between-group": np.abs(released - truth)[first != second].max(),
            "group-vs-rest": max(abs((released - truth)[ids].sum()) for ids in partition.rest()),
            "degree": np.abs(targets.degrees - degrees).max(),
        }
        failures += any(errors[c] > bounds[c].bound for c in errors)
    assert failures <= 8  # each class fails with probability <= 0.1


@pytest.mark.parametrize(
    "names",
    [
        ["edge-count"],
        ["degrees"],
        ["randomized-response"],
        {"edge-count": 0.3, "blocks": 0.3, "degrees": 0.2, "randomized-response": 0.2},
    ],
)
@pytest.mark.parametrize("directed", [False, True])
def test_edge_count_upper_bound_holds_from_every_measurement(names, directed):
    """Issue 16: every measurement bounds the true edge count from above (randomized
    response through its matrix sum), so every release has a trivial bound."""
    G = planted_partition(3, 6, 0.5, 0.1, seed=4)
    groups = G.graph["groups"] if isinstance(names, dict) else None
    if directed:
        G = nx.DiGraph(G)
    truth, failures, runs = G.number_of_edges(), 0, 60
    for seed in range(runs):
        measured = measured_graph(G, groups, names, 0.5, seed)
        upper = edge_count_upper(measured, 0.2)
        failures += upper < truth
        trivial = trivial_bound(measured, 0.0, 0.2)
        assert trivial.bound == pytest.approx((1 if directed else 2) * max(0.0, upper))
        assert trivial.source.startswith("edge count")
    assert failures <= 0.2 * runs + 3 * math.sqrt(0.2 * runs)


def test_beta_is_split_between_the_own_and_the_trivial_bound():
    own, count = split_beta(0.1)
    assert own + count == pytest.approx(0.1)
