"""The sparse generator with many groups (issue 17): the block pairs are drawn together
(segment operations), every block pair's integer count still kept exactly, with no
repeated pairs and no self-loops, and the dealt degrees met."""

import numpy as np
import pytest

from privcut.datasets.generators import community_graph
from privcut.graph import EdgeUniverse
from privcut.graph.fitting import fit_targets
from privcut.graph.measurement import measure
from privcut.graph.partition import Partition
from privcut.graph.planning import plan_measurements
from privcut.graph.sparse import SparseGenerator, stub_degrees


def _released(n, groups, directed, seed=0):
    mixing = 0.6 if n // groups < 20 else 0.1  # groups of 10 hold few within pairs
    degree = 4 if n // groups < 20 else 12
    G = community_graph(n, groups, degree, mixing=mixing, directed=directed, seed=seed)
    labels = {node: node * groups // n for node in G}
    universe = EdgeUniverse.of(G)
    partition = Partition.of(universe, labels)
    names = ["edge-count", "blocks", "degrees"]
    plan = plan_measurements(universe.nodes, 1.0, names, groups=labels, directed=directed)
    measured = measure(G, plan, partition=partition, rng=seed)
    targets = fit_targets(measured)
    generator = SparseGenerator()
    done = generator.generate(measured, targets, generator.options(), np.random.default_rng(seed))
    counts = generator.counts(measured, targets, np.random.default_rng(seed))
    return measured, targets, done, counts


@pytest.mark.parametrize(
    ("n", "groups", "directed"),
    [(3000, 300, False), (3000, 300, True), (4000, 40, False), (4000, 40, True)],
)
def test_many_groups_keep_every_block_count_exactly(n, groups, directed):
    # 300 groups of 10: every block pair is small (enumerated); 40 groups of 100: every
    # block pair pairs its dealt stubs, all 820 (1600 directed) of them together
    measured, targets, done, counts = _released(n, groups, directed)
    assert counts.size == (groups * groups if directed else groups * (groups + 1) // 2)
    assert (counts > 0).sum() > 100
    assert np.array_equal(done.block_sums(measured.partition), counts)
    keys = done.rows.astype(np.int64) * n + done.columns
    assert np.unique(keys).size == keys.size  # no repeated pairs
    assert np.all(done.rows != done.columns)  # no self-loops
    if not directed:
        assert np.all(done.rows < done.columns)
    if groups == 40:  # every block pair took stubs: the dealt degrees are met but where
        # the last step drew by weight (a few, as before the block pairs were drawn together)
        members = [np.flatnonzero(measured.partition.labels == a) for a in range(groups)]
        first, second = measured.partition.blocks
        dealt = stub_degrees(targets.degrees, members, first, second, counts, n)
        unmatched = done.terms["unmatched"]
        assert done.solver.iterations == 0 and unmatched < 0.06 * counts.sum()
        assert np.abs(done.degrees() - dealt).sum() <= 4 * unmatched
