"""Issue 18, clustering: the sparse release before and after the BTER step.

``before`` is ``synthetic_graph(A, epsilon, method="sparse", measurements={"edge-count":
0.1, "degrees": 0.3, "degree-sequence": 0.6}, rng=seed)`` (the old default without
groups); ``after`` is the new default (``measurements="auto"``: edge count 0.1, degrees
0.25, degree sequence 0.5, clustering 0.15, and the BTER affinity blocks of
``privcut.graph.affinity``). Graphs as ``benchmarks/social.py`` loads them (the generated
community graph, wiki-vote and gnutella from ``shared/data``, undirected).

Metrics (``privcut.evaluate.structure`` against the original; lower is better): triangle
count RE, global clustering (transitivity) RE, degree-histogram KL, degree assortativity
RE and the release's assortativity (the original's in its own row), and seconds per
release; each cell the mean and (after +-) the sample standard
deviation over the seeds, and the ratio after / before of the means.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/clustering.py [--graphs community
wiki-vote gnutella] [--epsilons 0.5 1 2] [--seeds 3]``; with ``--retention``, only the
triangles the measurement's capped projection keeps of each graph; with ``--signal``, the
measurement's signal against its noise: per epsilon and cap, the true corners of the
capped projection per noisy-degree bin (noisy degrees and sequence drawn as the default
release draws them, seed 0), their pooled total, the noise standard deviation of one bin
(sensitivity 9 (D - 1)) and of the pooled value (6 (D - 1)) at the default share 0.15 of
epsilon, and the cap ``choose_cap`` picks from the noisy sequence. ``--exact binned`` or
``--exact pooled`` instead prints the default release's triangle and clustering RE with
the clustering measurement's noise made negligible (sensitivity 0.001) at cap 64, binned
or pooled: what the estimate does with exact corners. ``--triangle-free`` prints the
triangles of ``synthetic_graph(B, epsilon, method="sparse", groups="none", rng=seed)`` for
a triangle-free B (``networkx.bipartite.random_graph(1500, 1500, 10 / 1500, seed=1)``,
3,000 nodes, average degree 10): the triangles the clustering estimate adds, against ``before``'s
releases (no clustering measurement, no BTER step; same seeds).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from privcut import synthetic_graph
from privcut.evaluate import structure
from privcut.graph import measurement, sparse
from privcut.graph.clustering import (
    DEFAULT_CAP,
    binned_corners,
    capped_projection,
    choose_cap,
    clustering_sensitivity,
    degree_bins,
    degree_estimate,
    triangle_corners,
)
from privcut.graph.measurement import sorted_sequence
from privcut.privacy import Noise

sys.path.insert(0, str(Path(__file__).resolve().parent))
from social import load

BEFORE = {"edge-count": 0.1, "degrees": 0.3, "degree-sequence": 0.6}
METRICS = [
    ("triangle RE", "triangle_error"),
    ("clustering RE", "transitivity_error"),
    ("degree KL", "degree_kl"),
    ("assortativity RE", "assortativity_error"),
    ("assortativity (release)", "assortativity"),
    ("s / release", "seconds"),
]


def run(A: sp.csr_array, measurements, epsilon: float, seed: int) -> dict:
    """One release's metrics."""
    start = time.perf_counter()
    H = synthetic_graph(A, epsilon, method="sparse", measurements=measurements, rng=seed)
    seconds = time.perf_counter() - start
    found = structure(A, sp.csr_array(H), release_weight=None)
    row = {key: getattr(found, key) for _, key in METRICS if hasattr(found, key)}
    return row | {"seconds": seconds, "assortativity": found.release.assortativity}


def retention(A: sp.csr_array, seed: int = 0) -> tuple[int, int]:
    """Triangles of A and of the measurement's capped projection (cap
    ``DEFAULT_CAP``, each node's edges ordered by noisy degrees drawn as the default
    release at epsilon 1 draws them: discrete Laplace at 0.25 epsilon, sensitivity 2)."""
    rng = np.random.default_rng(seed)
    degrees = np.asarray(A.sum(axis=1)).ravel()
    noisy = Noise.for_laplace(0.25, 2.0, integer=True).add(degrees, rng=rng)
    salt = int(rng.integers(0, 2**63))
    projected = capped_projection(A, DEFAULT_CAP, salt, priority=noisy)
    return int(triangle_corners(A).sum()) // 3, int(triangle_corners(projected).sum()) // 3


def signal(A: sp.csr_array, name: str, epsilon: float) -> None:
    """Rows of ``--signal`` for one graph and epsilon."""
    rng = np.random.default_rng(0)
    degrees = np.asarray(A.sum(axis=1)).ravel()
    noisy = Noise.for_laplace(0.25 * epsilon, 2.0, integer=True).add(degrees, rng=rng)
    exact = sorted_sequence(degrees, None, False)
    sequence = Noise.for_laplace(0.45 * epsilon, 2.0, integer=True).add(exact, rng=rng)
    chosen = choose_cap(degree_estimate(sequence, noisy))
    for cap in (8, 16, 32, 64):
        projected = capped_projection(A, cap, 1, priority=noisy)
        corners = binned_corners(triangle_corners(projected), degree_bins(noisy), 3)
        sd = [
            np.sqrt(
                Noise.for_laplace(
                    0.15 * epsilon, clustering_sensitivity(cap, b), integer=True
                ).variance
            )
            for b in (3, 1)
        ]
        bins = " / ".join(f"{c:,.0f}" for c in corners)
        mark = " (chosen)" if cap == chosen else ""
        print(
            f"| {name} | {epsilon:g} | {cap}{mark} | {bins} | {corners.sum():,.0f} | {sd[0]:,.0f} "
            f"| {sd[1]:,.0f} | {corners.max() / sd[0]:.2f} | {corners.sum() / sd[1]:.2f} |",
            flush=True,
        )


def exact(args) -> None:
    """``--exact``: triangle and clustering RE of the default release with exact corners."""
    bins = 3 if args.exact == "binned" else 1
    measurement.choose_cap = lambda estimate: DEFAULT_CAP
    measurement.bin_count = lambda cap, epsilon: bins
    measurement.clustering_sensitivity = lambda cap, count: 1e-3
    sparse.cap_of = lambda sensitivity, count: DEFAULT_CAP  # the record's cap: 64
    print(f"| graph | ε | corners ({args.exact}, exact) | triangle RE | clustering RE |")
    print("|---|---|---|---|---|")
    for name in args.graphs:
        A = load(name)
        for epsilon in args.epsilons if A is not None else ():
            rows = [run(A, "auto", epsilon, seed) for seed in range(args.seeds)]
            triangles = cell([row["triangle_error"] for row in rows])
            clustering = cell([row["transitivity_error"] for row in rows])
            print(f"| {name} | {epsilon:g} | {args.exact} | {triangles} | {clustering} |")


def triangle_free(args) -> None:
    """``--triangle-free``: triangles of releases of a random bipartite graph."""
    import networkx as nx

    graph = nx.bipartite.random_graph(1500, 1500, 10 / 1500, seed=1)
    B = sp.csr_array(nx.to_scipy_sparse_array(graph, nodelist=range(3000), weight=None))
    B = B.astype(float)

    def triangles(H) -> int:
        M = sp.csr_array(H).astype(float)
        return round(float((M @ M).multiply(M).sum()) / 6)

    print("| ε | triangles per seed (default) | before (no clustering measurement) |")
    print("|---|---|---|")
    for epsilon in args.epsilons:
        found, without = [], []
        for seed in range(args.seeds):
            H = synthetic_graph(B, epsilon, method="sparse", groups="none", rng=seed)
            found.append(triangles(H))
            H = synthetic_graph(B, epsilon, method="sparse", measurements=BEFORE, rng=seed)
            without.append(triangles(H))
        print(f"| {epsilon:g} | {found} | {without} |", flush=True)


def cell(values: list[float]) -> str:
    """Mean +- sample sd."""
    values = np.asarray(values, dtype=float)
    return f"{values.mean():.3g} ± {values.std(ddof=1):.2g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["community", "wiki-vote", "gnutella"])
    parser.add_argument("--epsilons", nargs="+", type=float, default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--retention", action="store_true", help="triangles kept only")
    parser.add_argument("--signal", action="store_true", help="corners against noise only")
    parser.add_argument("--exact", choices=["binned", "pooled"], help="exact corners")
    parser.add_argument("--triangle-free", action="store_true", help="a bipartite graph")
    args = parser.parse_args()
    if args.triangle_free:
        triangle_free(args)
        return
    if args.exact:
        exact(args)
        return
    if args.signal:
        print(
            "| graph | ε | cap D | corners per bin (d < 4 / 4-15 / >= 16) | pooled "
            "| noise sd per bin | noise sd pooled | best bin / sd | pooled / sd |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for name in args.graphs:
            A = load(name)
            for epsilon in args.epsilons if A is not None else ():
                signal(A, name, epsilon)
        return
    if args.retention:
        print("| graph | triangles | in the capped projection | kept |")
        print("|---|---|---|---|")
        for name in args.graphs:
            A = load(name)
            if A is not None:
                total, kept = retention(A)
                print(f"| {name} | {total:,} | {kept:,} | {kept / total:.1%} |")
        return
    print("| graph | epsilon | metric | before | after | after / before |")
    print("|---|---|---|---|---|---|")
    for name in args.graphs:
        A = load(name)
        if A is None:
            continue
        original = structure(A, A, release_weight=None).original.assortativity
        print(f"| {name} | | assortativity (original) | {original:.3g} | | |")
        for epsilon in args.epsilons:
            rows = {
                label: [run(A, chosen, epsilon, seed) for seed in range(args.seeds)]
                for label, chosen in (("before", BEFORE), ("after", "auto"))
            }
            for title, key in METRICS:
                before = [row[key] for row in rows["before"]]
                after = [row[key] for row in rows["after"]]
                ratio = np.mean(after) / np.mean(before)
                print(
                    f"| {name} | {epsilon:g} | {title} | {cell(before)} | {cell(after)} "
                    f"| {ratio:.2f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
