"""Cut workloads, the cut oracle and the cut evaluations on large sparse graphs: time and
traced peak memory (tracemalloc, which sees numpy's and scipy's buffers) of each sparse
path, against the floor of reading G into its CSR adjacency in the same run; and, at the
smaller size, the former dense "workload" strategy (the Laplace mechanism on the O(n^2)
pair histogram) against the sparse one, whose seeded answers it must equal.

Graphs: ``community_graph(n, 10, 10)``. Workloads: the 45 cuts between 10 public groups
(10 blocks) and 6 uniformly random cuts (some 4,000 blocks).

Run: ``python benchmarks/cut_queries_scale.py [--sizes 20000 100000] [--dense 5000]``.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from privcut.datasets import community_graph
from privcut.evaluate import WorkloadClasses, cut_errors
from privcut.graph import CutOracle, EdgeUniverse, cut_queries
from privcut.graph.workloads import answer_cuts
from privcut.linear import laplace_mechanism


def measured(function) -> tuple[float, float, object]:
    """Seconds and traced peak bytes of one call, and its result."""
    tracemalloc.start()
    start = time.perf_counter()
    result = function()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak, result


def workloads(n: int, seed: int = 0):
    size = n // 10
    groups = [set(range(size * b, size * b + size if b < 9 else n)) for b in range(10)]
    between = [(a, b) for i, a in enumerate(groups) for b in groups[i + 1 :]]
    rng = np.random.default_rng(seed)
    draws = rng.random((6, 2, n)) < 0.5
    scattered = [
        (set(np.flatnonzero(s).tolist()), set(np.flatnonzero(t).tolist())) for s, t in draws
    ]
    return between, scattered


def oracle_session(G, queries):
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=len(queries), rng=0)
    return [oracle.cut(S, T) for S, T in queries]


def report(label: str, seconds: float, peak: float, floor: float) -> None:
    print(f"  {label:<34} {seconds:7.2f} s  {seconds / floor:6.1f}x read  {peak / 1e6:8.0f} MB")


def sparse_paths(n: int) -> None:
    G = community_graph(n, 10, 10.0, seed=0)
    universe = EdgeUniverse.of(G)
    floor, peak, _ = measured(lambda: universe.adjacency(G))
    print(f"n = {n}, |E| = {G.number_of_edges()}; dense float64 n x n: {8e-9 * n * n:.1f} GB")
    report("read G into CSR (floor)", floor, peak, floor)
    between, scattered = workloads(n)
    for name, queries, strategies in (
        ("groups", between, ("auto", "blocks", "per-query", "workload")),
        ("random", scattered, ("auto", "per-query", "workload")),
    ):
        for strategy in strategies:
            seconds, peak, _ = measured(
                lambda q=queries, s=strategy: answer_cuts(G, q, 1.0, strategy=s, rng=0)
            )
            report(f"answer_cuts {name} {strategy}", seconds, peak, floor)
    seconds, peak, _ = measured(lambda: oracle_session(G, (between + scattered)[:20]))
    report("CutOracle frieze-kannan, 20 cuts", seconds, peak, floor)
    queries = between + scattered
    seconds, peak, _ = measured(lambda: cut_errors(G, G, queries, release_weight=None))
    report(f"cut_errors, {len(queries)} cuts", seconds, peak, floor)
    groups = {v: min(9, v // (n // 10)) for v in G}
    seconds, peak, _ = measured(
        lambda: WorkloadClasses(G, groups, bisections=10, rng=0).errors(G, release_weight=None)
    )
    report("WorkloadClasses, 10 bisections", seconds, peak, floor)


def dense_against_sparse(n: int) -> None:
    G = community_graph(n, 10, 10.0, seed=0)
    universe = EdgeUniverse.of(G)
    _, scattered = workloads(n)

    def dense():
        return laplace_mechanism(
            cut_queries(universe, scattered), universe.histogram(G), 1.0, rng=0
        )

    old_seconds, old_peak, old = measured(dense)
    seconds, peak, new = measured(
        lambda: answer_cuts(G, scattered, 1.0, strategy="workload", rng=0)
    )
    assert np.array_equal(old.answers, new.raw), "the sparse release must equal the dense one"
    print(f"n = {n}, 6 random cuts, strategy 'workload' (same seeded answers):")
    print(f"  dense pair histogram  {old_seconds:7.2f} s  {old_peak / 1e6:8.0f} MB")
    print(f"  sparse cut sums       {seconds:7.2f} s  {peak / 1e6:8.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--dense", type=int, default=5_000)
    arguments = parser.parse_args()
    if arguments.dense:
        dense_against_sparse(arguments.dense)
    for n in arguments.sizes:
        sparse_paths(n)


if __name__ == "__main__":
    main()
