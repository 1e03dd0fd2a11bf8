"""Reading a NetworkX graph into privcut's CSR adjacency: ``EdgeUniverse.adjacency``
against ``networkx.to_scipy_sparse_array`` (which it replaced) in the same process, and
against the floor of iterating G's edges once.

Every release reads G this way, so this is the first step of the sparse path. Graphs:
``community_graph(n, 50, 20)`` (average degree 20).

Run: ``python benchmarks/adjacency.py [--sizes 10000 100000]``.
"""

from __future__ import annotations

import argparse
import time

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.datasets import community_graph
from privcut.graph.universe import EdgeUniverse


def seconds(function, *arguments) -> tuple[float, object]:
    start = time.perf_counter()
    result = function(*arguments)
    return time.perf_counter() - start, result


def networkx_adjacency(G: nx.Graph, universe: EdgeUniverse) -> sp.csr_array:
    return sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=list(universe.nodes)))


def edge_count(G: nx.Graph) -> int:
    return sum(1 for _ in G.edges())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**4, 10**5])
    arguments = parser.parse_args()
    print("    nodes      edges  iterate edges  adjacency  networkx  networkx/adjacency")
    for n in arguments.sizes:
        G = community_graph(n, 50, 20.0, seed=0)
        universe = EdgeUniverse.of(G)
        floor, _ = seconds(edge_count, G)
        ours, A = seconds(universe.adjacency, G)
        theirs, B = seconds(networkx_adjacency, G, universe)
        assert (A != B).nnz == 0 and np.isclose(A.sum(), B.sum())
        print(
            f"{n:>9,} {G.number_of_edges():>10,} {floor:>14.2f} {ours:>10.2f} "
            f"{theirs:>9.2f} {theirs / ours:>19.1f}x"
        )


if __name__ == "__main__":
    main()
