"""The sparse release with and without filtered randomized response's survivors: the
seconds it takes and the share of released edges that are true edges (precision), in
one run on ``community_graph(n, groups, 20)`` with its public groups.

Measurements: ``["edge-count", "blocks"]`` against ``["edge-count", "blocks",
"filtered-randomized-response"]`` (the latter at its fixed share, 1/4), at each epsilon.
The survivors can only raise precision as far as the posterior allows: each enters with
probability ``e^eps' r / (e^eps' r + 1 - r)``, r the model's prior.

Run: ``python benchmarks/filtered_release.py [--n 20000] [--epsilons 1 4]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from privcut import synthetic_graph
from privcut.datasets import community_graph
from privcut.graph.universe import EdgeUniverse

FILTERED = "filtered-randomized-response"


def keys(G, universe: EdgeUniverse) -> np.ndarray:
    """Sorted canonical pair keys of G's edges."""
    rows, columns, _ = universe.edge_index(G)
    rows, columns = rows.astype(np.int64), columns.astype(np.int64)
    low, high = np.minimum(rows, columns), np.maximum(rows, columns)
    return np.unique(low * universe.n + high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--groups", type=int, default=20)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 4.0])
    arguments = parser.parse_args()
    G = community_graph(arguments.n, arguments.groups, 20.0, seed=0)
    groups = G.graph["groups"]
    universe = EdgeUniverse.of(G)
    true = keys(G, universe)
    print(f"n={universe.n} edges={true.size}")
    for epsilon in arguments.epsilons:
        for names in (["edge-count", "blocks"], ["edge-count", "blocks", FILTERED]):
            start = time.perf_counter()
            H = synthetic_graph(
                G, epsilon, method="sparse", measurements=names, groups=groups, rng=0
            )
            seconds = time.perf_counter() - start
            released = keys(H, EdgeUniverse.of(H))
            precision = np.isin(released, true).mean()
            label = "with survivors" if FILTERED in names else "without"
            print(
                f"epsilon={epsilon:g} {label:15s} seconds={seconds:.2f} "
                f"edges={released.size} precision={precision:.4f}"
            )


if __name__ == "__main__":
    main()
