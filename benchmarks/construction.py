"""The Iterative Construction mechanism (issue 7) against randomized response.

For G(n, p), n in {16, 200, 1000}, p in {0.05, 0.3}, and a two-block planted partition
(p_in = 0.5, p_out = 0.05; n in {200, 1000}), epsilon = 1, delta = 1e-6: each
distinguisher's synthetic graph (Frieze–Kannan IDC, weighted) and the randomized-
response synthetic graph of ``synthetic_graph`` (rounding=None) at the same total
privacy. Columns: the worst cut error (exact for n = 16, else privcut's certified
interval, shown as found value), the mean absolute error on 1000 random cuts and on
1000 random rank-1 queries (u, v uniform in [0, 1]^V), rounds / updates, seconds,
and the measured F(epsilon0) of the distinguisher: over the rounds, the largest gap
between the worst cut of A - H_t (cut norm, exact or best found) and the discrepancy
of the cut it proposed, next to |V| / epsilon0 (Cor. 7.4's remark asks for
F = O~(|V| / epsilon)). The instrumentation reads the private graph: evaluation only.

Run: ``python benchmarks/construction.py [--sizes 16 200 1000]``.
"""

from __future__ import annotations

import argparse
import time

import networkx as nx
import numpy as np

from privcut import iterative_construction, synthetic_graph
from privcut.evaluate import cut_errors, max_cut_error, random_cuts
from privcut.graph import EdgeUniverse, cut_norm
from privcut.graph.construction import ExactSearch, Exponential, NoisyGraphSearch, PowerMethod

EPSILON, DELTA = 1.0, 1e-6
DISTINGUISHERS = {
    kind.name: kind for kind in (PowerMethod, Exponential, NoisyGraphSearch, ExactSearch)
}


def measured(kind, adjacency, record):
    """``kind`` instrumented: each round it records how far its cut is from the worst cut
    of ``A - H_t`` (reading the private graph: evaluation only) and epsilon0."""

    class Measured(kind):
        def __call__(self, construction, epsilon0, generator):
            u, v = super().__call__(construction, epsilon0, generator)
            residual = adjacency - construction.matrix()
            best = cut_norm(residual, certify=False, rng=0).value
            record["gaps"].append(best - abs(u @ residual @ v))
            record["epsilon0"] = epsilon0
            return u, v

    return Measured


def rank1_errors(G, H, k, rng):
    universe = EdgeUniverse.of(G)
    difference = universe.adjacency(H, "weight").toarray() - universe.adjacency(G).toarray()
    U, V = rng.random((k, universe.n)), rng.random((k, universe.n))
    return np.abs(np.einsum("kn,kn->k", U @ difference, V))


def row(name, G, H, seconds, rng, extra=""):
    cuts = random_cuts(G, 1000, rng=rng)
    worst = max_cut_error(G, H, rng=0)  # H read with its weights (release_weight="weight")
    mean = np.mean(cut_errors(G, H, cuts))
    print(
        f"  {name:<13} {worst.lower:>9.0f} {mean:>9.1f} "
        f"{np.mean(rank1_errors(G, H, 1000, rng)):>9.1f} {seconds:>6.1f}  {extra}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 200, 1000])
    args = parser.parse_args()
    graphs = [
        (f"G({n}, {p})", nx.gnp_random_graph(n, p, seed=1)) for n in args.sizes for p in (0.05, 0.3)
    ]
    graphs += [
        (
            f"planted 2 x {n // 2} (0.5, 0.05)",
            nx.planted_partition_graph(2, n // 2, 0.5, 0.05, seed=1),
        )
        for n in args.sizes
        if n >= 200
    ]
    for name, G in graphs:
        n = G.number_of_nodes()
        adjacency = EdgeUniverse.of(G).adjacency(G).toarray()
        print(f"\n{name}, {G.number_of_edges()} edges, epsilon = 1, delta = 1e-6")
        print(
            f"  {'method':<13} {'max cut':>9} {'mean cut':>9} {'mean r1':>9} "
            f"{'s':>6}  rounds/updates, F measured vs |V|/eps0"
        )
        start = time.perf_counter()
        H = synthetic_graph(G, EPSILON, measurements=["randomized-response"], rounding=None, rng=1)
        row("rand. resp.", G, H, time.perf_counter() - start, np.random.default_rng(2))
        for distinguisher in ("power-method", "exponential", "noisy-graph", "exact"):
            record = {"gaps": []}
            kind = measured(DISTINGUISHERS[distinguisher], adjacency, record)
            start = time.perf_counter()
            H = iterative_construction(
                G, EPSILON, DELTA, distinguisher=kind, allow_nonprivate=True, rng=1
            )
            seconds = time.perf_counter() - start
            report = H.graph["privcut"]
            extra = (
                f"{report['rounds']}/{report['updates']}, F {max(record['gaps']):.0f} vs "
                f"{n / record['epsilon0']:.0f}; alpha {report['alpha']:.0f}"
            )
            row(distinguisher, G, H, seconds, np.random.default_rng(2), extra)


if __name__ == "__main__":
    main()
