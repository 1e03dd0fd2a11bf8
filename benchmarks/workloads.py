"""Cut workloads on a planted-partition graph: time, error and predicted error per strategy.

The graph has 20 blocks of 50 nodes (p_in 0.3, p_out 0.02); the workload is the 190
block-pair cuts plus the 20 block-vs-rest cuts, epsilon = 1 (delta = 0, and 1e-6).
For each strategy: seconds per call (first call, then the median of later calls on
the analysed workload), mean absolute error after the consistency step, and the
measured RMS error before it against the predicted one, over ``--seeds`` releases.

Run: ``python benchmarks/workloads.py``.
"""

from __future__ import annotations

import argparse
import time

import networkx as nx
import numpy as np

from privcut.graph import EdgeUniverse, cut_value
from privcut.graph.workloads import STRATEGIES, CutWorkload, answer_cuts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    args = parser.parse_args()
    G = nx.planted_partition_graph(20, 50, 0.3, 0.02, seed=0)
    groups = [set(range(50 * b, 50 * b + 50)) for b in range(20)]
    queries = [(a, b) for i, a in enumerate(groups) for b in groups[i + 1 :]]
    queries += [(group, set(G) - group) for group in groups]
    truth = np.array([cut_value(G, S, T) for S, T in queries])
    print(
        f"{G.number_of_nodes()} nodes, {G.number_of_edges()} edges, {len(queries)} cuts, "
        f"{args.seeds} seeds"
    )
    for delta in (0.0, 1e-6):
        start = time.perf_counter()
        chosen = answer_cuts(G, queries, 1.0, delta=delta, rng=0)
        first = time.perf_counter() - start
        print(
            f"\ndelta={delta}: auto picks {chosen.strategy!r} ({first:.2f} s for the first "
            f"call, analysis included)"
        )
        print(
            f"{'strategy':<12} {'s/call':>7} {'MAE':>9} {'RMS raw':>9} {'predicted':>9} "
            f"{'ratio':>6}"
        )
        workload = CutWorkload.of(EdgeUniverse.of(G), queries)
        for strategy in STRATEGIES:
            seconds, absolute, raw = [], [], []
            for seed in range(args.seeds):
                start = time.perf_counter()
                answers = answer_cuts(G, workload, 1.0, delta=delta, strategy=strategy, rng=seed)
                seconds.append(time.perf_counter() - start)
                absolute.append(np.abs(answers.values - truth).mean())
                raw.append(answers.raw - truth)
            measured = float(np.sqrt(np.mean(np.square(raw))))
            predicted = float(np.sqrt(np.mean(answers.expected_error**2)))
            print(
                f"{strategy:<12} {np.median(seconds):7.3f} {np.mean(absolute):9.2f} "
                f"{measured:9.2f} {predicted:9.2f} {measured / predicted:6.3f}"
            )


if __name__ == "__main__":
    main()
