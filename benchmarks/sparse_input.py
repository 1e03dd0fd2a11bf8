"""Sparse in, sparse out: the release of a ``scipy.sparse`` adjacency
(``synthetic_graph(A, 1.0, method="sparse")``, a SyntheticArray out, no NetworkX object)
against reading the same array (``EdgeUniverse.read``: the CSR conversion and checks,
the floor of any release of it) and against the same release from a NetworkX graph of
the same edges (NetworkX in, NetworkX out), in the same process. Peak memory of the
array release by tracemalloc (a separate run, since tracing slows it).

Graphs: ``community_graph(n, 50, 20, as_sparse=True)`` (average degree 20), the planted
groups public.

Run: ``python benchmarks/sparse_input.py [--sizes 10000 100000] [--networkx-up-to 100000]``.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import networkx as nx

from privcut import synthetic_graph
from privcut.datasets import community_graph
from privcut.graph.universe import EdgeUniverse


def seconds(function, *arguments, **keywords) -> tuple[float, object]:
    start = time.perf_counter()
    result = function(*arguments, **keywords)
    return time.perf_counter() - start, result


def peak_megabytes(function, *arguments, **keywords) -> float:
    tracemalloc.start()
    function(*arguments, **keywords)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**4, 10**5])
    parser.add_argument("--networkx-up-to", type=int, default=10**5)
    arguments = parser.parse_args()
    print(
        "    nodes      edges   read  release  release/read  peak MB  networkx in  networkx/array"
    )
    for n in arguments.sizes:
        A, labels = community_graph(n, 50, 20.0, seed=0, as_sparse=True)
        groups = dict(enumerate(labels.tolist()))
        options = dict(groups=groups, method="sparse", rng=0)
        read, _ = seconds(EdgeUniverse.read, A)
        ours, K = seconds(synthetic_graph, A, 1.0, **options)
        peak = peak_megabytes(synthetic_graph, A, 1.0, **options)
        line = (
            f"{n:>9,} {A.nnz // 2:>10,} {read:>6.2f} {ours:>8.2f} {ours / read:>13.1f}x "
            f"{peak:>8.0f}"
        )
        if n <= arguments.networkx_up_to:
            G = nx.from_scipy_sparse_array(A)
            theirs, H = seconds(synthetic_graph, G, 1.0, **options)
            assert H.graph["privcut"] == K.graph["privcut"]
            line += f" {theirs:>12.2f} {theirs / ours:>15.1f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
