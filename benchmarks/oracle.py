"""The interactive cut oracle (issue 6): accuracy against its promise, and throughput.

Accuracy: G(200, 0.5) (the issue's graph), a two-block planted partition, and G(200, 0.5)
with the public bound max_edges = C(200, 2) instead of a noisy count (so the hypothesis
starts empty and must learn by updates); epsilon = 1, delta = 1e-6, 5000 random cut queries
(|S|, |T| uniform in [1, 200]) per run, 20 seeded runs, for each construction and calibration:
the promised alpha, the worst and mean error, and in how many runs the worst error
stayed within alpha; against per-query discrete Laplace under basic composition
(scale 5000 * 2 / epsilon; its mean absolute error is about the scale).
Throughput: 1000 nodes, ~16,000 edges, random half/half cuts: queries per second of
the Frieze–Kannan oracle against the exact non-private ``networkx.cut_size`` in the
same process.

Run: ``python benchmarks/oracle.py [--runs 20] [--queries 5000]``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import networkx as nx
import numpy as np

from privcut import CutOracle
from privcut.graph import EdgeUniverse
from privcut.linear import OracleExhaustedWarning


def accuracy(name: str, G: nx.Graph, max_edges: float | None, runs: int, k: int) -> None:
    A = EdgeUniverse.of(G).adjacency(G)
    laplace_scale = k * 2.0 / 1.0
    source = "noisy edge count" if max_edges is None else f"max_edges = {max_edges}"
    print(f"\naccuracy: {name}, {G.number_of_edges()} edges, {source}, {k} queries x {runs} runs")
    print(
        f"{'idc':<23} {'calibration':<11} {'alpha':>9} {'max err':>8} {'mean err':>9} "
        f"{'within':>7} {'updates':>8} {'vs Laplace':>10}"
    )
    for idc in ("frieze-kannan", "multiplicative-weights"):
        for calibration in ("tight", "paper"):
            alphas, maxima, means, updates = [], [], [], []
            for seed in range(runs):
                rng = np.random.default_rng(10_000 + seed)
                oracle = CutOracle(
                    G,
                    1.0,
                    1e-6,
                    idc=idc,
                    max_queries=k,
                    max_edges=max_edges,
                    calibration=calibration,
                    rng=seed,
                )
                errors = np.empty(k)
                for q in range(k):
                    S = rng.choice(200, rng.integers(1, 201), replace=False)
                    T = rng.choice(200, rng.integers(1, 201), replace=False)
                    u, v = np.zeros(200), np.zeros(200)
                    u[S], v[T] = 1.0, 1.0
                    errors[q] = abs(oracle.cut(S, T) - u @ (A @ v))
                alphas.append(oracle.alpha)
                maxima.append(errors.max())
                means.append(errors.mean())
                updates.append(oracle.updates)
            within = sum(m <= a for m, a in zip(maxima, alphas, strict=True))
            print(
                f"{idc:<23} {calibration:<11} {np.mean(alphas):>9.0f} {max(maxima):>8.0f} "
                f"{np.mean(means):>9.1f} {within:>4}/{runs} {np.mean(updates):>8.1f} "
                f"{laplace_scale / np.mean(means):>9.0f}x"
            )


def throughput(k: int) -> None:
    G = nx.gnm_random_graph(1000, 16_000, seed=1)
    rng = np.random.default_rng(2)
    cuts = []
    for _ in range(k):
        order = rng.permutation(1000)
        cuts.append((order[:500], order[500:]))
    start = time.perf_counter()
    for S, T in cuts:
        nx.cut_size(G, S, T)
    exact = k / (time.perf_counter() - start)
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=k, rng=3)
    start = time.perf_counter()
    for S, T in cuts:
        oracle.cut(S, T)
    private = k / (time.perf_counter() - start)
    print(
        f"\nthroughput: 1000 nodes, 16000 edges, {k} half/half cuts: networkx.cut_size "
        f"{exact:.0f} queries/s, CutOracle (frieze-kannan, tight) {private:.0f} queries/s "
        f"({private / exact:.1f}x); {oracle.updates} updates"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--queries", type=int, default=5000)
    args = parser.parse_args()
    warnings.simplefilter("ignore", OracleExhaustedWarning)
    throughput(2000)
    gnp = nx.gnp_random_graph(200, 0.5, seed=0)
    accuracy("G(200, 0.5)", gnp, None, args.runs, args.queries)
    planted = nx.planted_partition_graph(2, 100, 0.8, 0.1, seed=0)
    accuracy(
        "planted partition 2 x 100, p_in 0.8, p_out 0.1", planted, None, args.runs, args.queries
    )
    accuracy("G(200, 0.5)", gnp, 19900, args.runs, args.queries)


if __name__ == "__main__":
    main()
