"""Accuracy and cost of :func:`privcut.graph.private_communities` on planted communities.

Each row: ``community_graph(n, groups, 20, seed=0, as_sparse=True)`` (heavy-tailed degrees,
mixing 0.1), ``private_communities(A, epsilon, rng=seed)`` for ``--seeds`` seeds; the NMI
of the released labels against the planted ones (arithmetic normalisation), the NMI of a
shuffled planted labelling (chance), the number of communities, the median wall time and
the peak traced memory of one release.

Run: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/communities.py``
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from privcut.datasets import community_graph
from privcut.evaluate import normalized_mutual_information as nmi
from privcut.graph import private_communities


def row(A, planted, epsilon: float, seeds: int) -> str:
    """One table row: NMI mean (min-max), chance, communities, time, peak memory."""
    scores, chance, sizes, times = [], [], [], []
    shuffled = np.random.default_rng(0).permutation(planted)
    for seed in range(seeds):
        start = time.perf_counter()
        found = private_communities(A, epsilon, rng=seed)
        times.append(time.perf_counter() - start)
        scores.append(nmi(planted, found.labels))
        chance.append(nmi(shuffled, found.labels))
        sizes.append(found.communities)
    tracemalloc.start()
    private_communities(A, epsilon, rng=0)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return (
        f"| {A.shape[0]} | {epsilon:g} | {np.mean(scores):.3f} ({min(scores):.3f}-"
        f"{max(scores):.3f}) | {np.mean(chance):.4f} | {np.median(sizes):g} | "
        f"{np.median(times):.2f} | {peak:.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 2.0, 4.0])
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    print("| n | epsilon | NMI mean (min-max) | chance NMI | communities | time s | peak MiB |")
    print("|---|---|---|---|---|---|---|")
    for n in args.sizes:
        A, planted = community_graph(n, args.groups, 20, seed=0, as_sparse=True)
        for epsilon in args.epsilons:
            print(row(A, planted, epsilon, args.seeds), flush=True)


if __name__ == "__main__":
    main()
