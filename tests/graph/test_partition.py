import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from privcut.graph import EdgeUniverse
from privcut.graph.partition import Partition


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
    # a CSR's entries read in place, a COO's and the dense matrix's: the same sums
    matrix = universe.adjacency(G)
    ends = np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr)), matrix.indices
    matrix.data = ((ends[0] + ends[1]) % 5 + 1) * ((ends[0] * ends[1]) % 3 + 1) / 7  # symmetric
    dense = partition.block_sums(matrix.toarray())
    assert np.array_equal(partition.block_sums(matrix), partition.block_sums(sp.coo_array(matrix)))
    assert np.allclose(partition.block_sums(matrix), dense)


def test_partition_refuses_incomplete_or_foreign_groups():
    universe = EdgeUniverse.of(nx.path_graph(4))
    with pytest.raises(ValueError, match="no group for 1 node"):
        Partition.of(universe, {0: 0, 1: 0, 2: 1})
    with pytest.raises(ValueError, match="not in the graph"):
        Partition.of(universe, {0: 0, 1: 0, 2: 1, 3: 1, 9: 1})
    with pytest.raises(TypeError, match="mapping"):
        Partition.of(universe, [0, 0, 1, 1])
