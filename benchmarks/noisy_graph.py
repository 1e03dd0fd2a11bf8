"""Randomized response at scale: noisy_graph on n = 10,000 nodes against NumPy's Laplace sampler.

Prints the time of ``noisy_graph`` (seeded and with the default secure randomness)
and of ``Generator.laplace`` for the same number of draws, C(n, 2), in the same
process, with their ratio; and the peak memory traced during ``noisy_graph``
against one n x n float64 matrix.

Run: ``python benchmarks/noisy_graph.py [--n 10000]``.
"""

from __future__ import annotations

import argparse
import math
import time
import tracemalloc

import networkx as nx
import numpy as np

from privcut.graph import noisy_graph


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--degree", type=float, default=10.0)
    args = parser.parse_args()
    n = args.n
    G = nx.fast_gnp_random_graph(n, args.degree / n, seed=1)
    draws = math.comb(n, 2)
    print(f"n = {n:,} nodes, {G.number_of_edges():,} edges, {draws:,} pairs")

    start = time.perf_counter()
    np.random.default_rng(0).laplace(0.0, 1.0, draws)
    baseline = time.perf_counter() - start
    print(f"numpy Generator.laplace x C(n,2):  {baseline:6.2f} s  (ratio 1.00)")
    for label, rng in (("noisy_graph, seeded PCG64", 0), ("noisy_graph, secure default", None)):
        start = time.perf_counter()
        noisy_graph(G, 1.0, rng=rng)
        seconds = time.perf_counter() - start
        print(f"{label:<33} {seconds:6.2f} s  (ratio {seconds / baseline:.2f})")

    tracemalloc.start()
    noisy_graph(G, 1.0, rng=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    matrix = n * n * 8
    print(
        f"peak traced memory {peak / 2**20:,.0f} MiB = {peak / matrix:.2f} x one n x n float64 "
        f"matrix ({matrix / 2**20:,.0f} MiB)"
    )


if __name__ == "__main__":
    main()
