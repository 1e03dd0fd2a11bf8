"""Issue 18 (speed): a release reads G once and plans on its universe. The shortcuts give
exactly what the general paths give: a :class:`CheckedAdjacency` re-read, the vectorised
partitions, ``plan_for`` and ``edge_array``'s row-major path."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from privcut import synthetic_graph
from privcut.graph import EdgeUniverse, arrays
from privcut.graph.arrays import CheckedAdjacency, edge_array, read_adjacency
from privcut.graph.partition import Partition
from privcut.graph.planning import plan_for, plan_measurements


def same_csr(a, b) -> bool:
    return all(
        np.array_equal(getattr(a, name), getattr(b, name))
        and getattr(a, name).dtype == getattr(b, name).dtype
        for name in ("data", "indices", "indptr")
    )


def test_a_checked_adjacency_is_copied_for_its_own_reading_only():
    A = sp.csr_array(nx.to_scipy_sparse_array(nx.path_graph(5), weight=None).astype(float))
    read = read_adjacency(A)
    checked, key = CheckedAdjacency.of(read.matrix, read.nodes, read.directed, None)
    again = read_adjacency(checked, nodes=key)
    assert same_csr(again.matrix, read.matrix) and again.matrix.data is not checked.data
    assert type(again.matrix) is sp.csr_array and again.nodes is key
    for weight, nodes, directed in (
        (None, key, True),  # another kind: checked again
        (None, read.nodes, False),  # an equal node tuple, not the mark's own
        ("weight", key, False),  # read as weights
    ):
        assert checked.reread(weight, nodes, directed) is None
    upper = sp.csr_array(np.triu(np.ones((3, 3)), 1))
    asymmetric, mark = CheckedAdjacency.of(upper, (0, 1, 2), True, None)
    with pytest.raises(arrays.GraphInputError, match="not symmetric"):
        read_adjacency(asymmetric, nodes=mark, directed=False)
    with pytest.raises(ValueError, match="read-only"):
        checked.data[:] = -7.0  # marked arrays cannot change after their check
    checked.data = np.full(checked.nnz, 5.0)  # replaced: the mark is dropped
    assert checked.reread(None, key, False) is None


def test_a_matrix_marked_by_hand_is_checked_by_a_release():
    """Review r7 F1: a caller's CheckedAdjacency read on the caller's own node tuple
    goes through every check."""
    nodes = tuple(range(4))
    bad = sp.csr_array(np.full((4, 4), 1000.0))  # weights above 1, self-loops, marked
    forged, _ = CheckedAdjacency.of(bad, nodes, False, "weight")
    with pytest.raises(arrays.GraphInputError):
        synthetic_graph(forged, 1.0, weight="weight", nodes=nodes, rng=0)


@pytest.mark.parametrize("sparse", [True, False])
def test_a_release_converts_and_checks_g_once(sparse, monkeypatch):
    """A sparse G goes through read_adjacency's checks once, a NetworkX G through
    EdgeUniverse.adjacency once, on the decision's path (decide, measure)."""
    G = nx.random_regular_graph(4, 1000, seed=0)
    source = nx.to_scipy_sparse_array(G, nodelist=range(1000)) if sparse else G
    target, name = (arrays, "_as_csr") if sparse else (EdgeUniverse, "adjacency")
    calls, original = [], getattr(target, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(target, name, counted)
    H = synthetic_graph(source, 1.0, method="sparse", rng=0)
    assert H.graph["privcut"]["groups_decision"] is not None and len(calls) == 1


@pytest.mark.parametrize("directed", [False, True])
def test_the_vectorised_partitions_are_partition_of(directed):
    universe = EdgeUniverse(tuple(f"v{i}" for i in range(11)), directed)
    for n in (1, 2, 11):
        part = EdgeUniverse(universe.nodes[:n], directed)
        alternate = {node: index % 2 for index, node in enumerate(part.nodes)}
        expected = Partition.of(part, alternate)
        found = Partition.alternating(n, directed)
        assert found.names == expected.names and np.array_equal(found.labels, expected.labels)
    labels = np.random.default_rng(0).integers(0, 5, universe.n) * 7
    expected = Partition.of(universe, dict(zip(universe.nodes, labels.tolist(), strict=True)))
    found = Partition.from_labels(labels, directed)
    assert found.names == expected.names and np.array_equal(found.labels, expected.labels)
    assert found.labels.dtype == expected.labels.dtype and found.directed == directed
    assert all(type(name) is int for name in found.names)


def test_plan_for_is_plan_measurements_and_refuses_another_partition():
    universe = EdgeUniverse(tuple(range(60)), False)
    groups = {v: v % 3 for v in range(60)}
    for measurements, kwargs in (
        ("auto", {}),
        (["edge-count", "degrees", "blocks"], dict(workload={"degree": 1.0, "bisection": 2})),
        ({"edge-count": 0.4, "blocks": 0.6}, dict(beta=0.1)),
    ):
        expected = plan_measurements(range(60), 0.7, measurements, groups=groups, **kwargs)
        partition = Partition.of(universe, groups)
        assert plan_for(universe, 0.7, measurements, partition=partition, **kwargs) == expected
    with pytest.raises(ValueError, match="a Partition of the universe's nodes"):
        plan_for(universe, 1.0, partition=Partition.alternating(59, False))
    with pytest.raises(TypeError, match="an EdgeUniverse"):
        plan_for(range(60), 1.0)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_edge_array_row_major_path_is_the_sorted_one(directed, dtype):
    rng = np.random.default_rng(1)
    n = 40
    rows, columns = np.nonzero(rng.random((n, n)) < 0.2)
    keep = rows != columns if directed else rows < columns
    rows, columns = rows[keep].astype(dtype), columns[keep].astype(dtype)
    shuffled = rng.permutation(rows.size)
    values = rng.random(rows.size)
    values[::7] = 0.0  # zero weights dropped
    for weights in (None, values):
        given = [array.copy() for array in (rows, columns, values)]
        fast = edge_array(rows, columns, weights, n, directed)
        assert all(map(np.array_equal, given, (rows, columns, values)))  # not modified
        pick = None if weights is None else weights[shuffled]
        slow = edge_array(rows[shuffled], columns[shuffled], pick, n, directed)
        assert same_csr(fast, slow) and fast.has_canonical_format
    empty = np.array([], dtype=dtype)
    assert edge_array(empty, empty, None, n, directed).nnz == 0


def test_the_copy_of_g_is_freed_before_the_generation(monkeypatch):
    """Issue 18 (memory): the measurements read G's marked copy itself (handed over) and
    nothing holds it afterwards, so no copy of G is alive while the graph is generated;
    the caller's G is not changed."""
    import gc

    from privcut.datasets import community_graph
    from privcut.graph.sparse import SparseGenerator

    generate, alive = SparseGenerator.generate, []

    def watched(self, *args, **kwargs):
        gc.collect()
        alive.append(sum(isinstance(o, CheckedAdjacency) for o in gc.get_objects()))
        return generate(self, *args, **kwargs)

    monkeypatch.setattr(SparseGenerator, "generate", watched)
    A, _ = community_graph(1200, 4, 6.0, seed=0, as_sparse=True)  # 1000+ nodes: a decision
    before = A.copy()
    synthetic_graph(A, 1.0, method="sparse", rng=0)
    synthetic_graph(A, 1.0, method="sparse", groups="private", rng=0)
    assert alive == [0, 0] and same_csr(A, before)
