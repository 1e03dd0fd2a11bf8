import numpy as np
import pytest

from privcut.datasets import planted_partition
from privcut.graph import EdgeUniverse
from privcut.graph.fitting import fit_targets
from privcut.graph.measurement import measure
from privcut.graph.partition import Partition
from privcut.graph.planning import plan_measurements


def measured_graph(G, groups, names, epsilon, seed):
    universe = EdgeUniverse.of(G)
    plan = plan_measurements(
        universe.nodes, epsilon, names, groups=groups, directed=G.is_directed()
    )
    partition = Partition.of(universe, groups) if groups else None
    return measure(G, plan, partition=partition, rng=np.random.default_rng(seed))


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
        clipped.append(np.clip(measured.get("blocks").values, 0, None).sum() - truth)
        fitted.append(fit_targets(measured).blocks.sum() - truth)
    assert abs(np.mean(fitted)) < abs(np.mean(clipped)) / 3
