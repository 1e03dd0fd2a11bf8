"""Multi-measurement synthetic graphs (issue 10): accuracy per workload, time and memory.

Accuracy (default): planted partitions of 20 groups x 50 nodes, dense (p_in 0.3,
p_out 0.02) and sparse (0.05, 0.002), epsilon 0.5, 1, 2, groups given. For each of four
workloads -- all between-group cuts, all within-group edge counts, each group vs the rest,
1000 random balanced bisections -- the mean absolute error of

- the released graph (``synthetic_graph(..., measurements="auto", groups=...)``, rounded),
- the best single-purpose answer at the same total epsilon (block counts for the group
  workloads, one noisy edge count scaled by |S||T|/pairs for bisections),
- randomized response at the full epsilon (the noisy matrix's cut sums),

averaged over ``--seeds`` releases (MAE of each mechanism averaged, then the ratio).
``--no-groups``: the same graphs released with ``measurements="auto"`` and no groups,
bisections against randomized response. ``--speed``: time and peak traced memory of the
plain and the multi-measurement release at n = 1000 in the same process.

    python benchmarks/multi.py [--seeds 5] [--no-groups] [--speed]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from privcut import synthetic_graph
from privcut.datasets import planted_partition
from privcut.evaluate import WorkloadClasses
from privcut.graph import noisy_graph

GRAPHS = {"dense": (0.3, 0.02), "sparse": (0.05, 0.002)}
EPSILONS = (0.5, 1.0, 2.0)
WORKLOADS = ("between-group", "within-group", "group-vs-rest", "bisection")
"""The issue's four workloads (WorkloadClasses also answers degrees)."""


def build(graph: str):
    """The benchmark's graph by name (a key of GRAPHS): 20 groups x 50 nodes, seed 0."""
    p_in, p_out = GRAPHS[graph]
    return planted_partition(20, 50, p_in, p_out, seed=0)


def accuracy(seeds: int, groups: bool) -> None:
    header = "graph   eps   workload        release   single  ratio      RR  below RR"
    print(header if groups else "graph   eps   bisections: release       RR  RR/release")
    for graph in GRAPHS:
        G = build(graph)
        work = WorkloadClasses(G, G.graph["groups"], bisections=1000, rng=0)
        for epsilon in EPSILONS if groups else (1.0,):
            totals = {name: dict.fromkeys(WORKLOADS, 0.0) for name in ("release", "single", "rr")}
            for seed in range(seeds):
                rng = np.random.default_rng(seed)
                options = {"groups": G.graph["groups"]} if groups else {}
                H = synthetic_graph(G, epsilon, measurements="auto", rng=rng, **options)
                found = {
                    "release": work.errors(H),
                    "single": work.single_purpose_errors(epsilon, rng),
                    "rr": work.errors(noisy_graph(G, epsilon, rng=rng)),
                }
                for name, errors in found.items():
                    for w in WORKLOADS:
                        totals[name][w] += errors[w] / seeds
            if not groups:
                release, rr = totals["release"]["bisection"], totals["rr"]["bisection"]
                print(f"{graph:<7} {epsilon:<5g} {release:>20.1f} {rr:>8.1f} {rr / release:>10.1f}")
                continue
            for w in WORKLOADS:
                release, single, rr = (totals[k][w] for k in ("release", "single", "rr"))
                print(
                    f"{graph:<7} {epsilon:<5g} {w:<15} {release:>7.2f} {single:>8.2f} "
                    f"{release / single:>6.2f} {rr:>7.1f} {release < rr!s:>9}"
                )


def speed(repeats: int = 3) -> None:
    """Median seconds of ``repeats`` releases (after one warm-up) and peak traced memory of
    one more, each against randomized response alone in the same process."""
    G = planted_partition(20, 50, 0.3, 0.02, seed=0)
    groups = G.graph["groups"]
    releases = {
        "randomized response": {"measurements": None},
        "auto, groups": {"measurements": "auto", "groups": groups},
        "auto, no groups": {"measurements": "auto"},
        "degrees + blocks + RR": {
            "measurements": ["degrees", "blocks", "randomized-response"],
            "groups": groups,
        },
    }
    synthetic_graph(G, 1.0, measurements=None, rng=0)
    print("release                     seconds  (ratio)  peak MiB  (ratio)")
    base = None
    for name, options in releases.items():
        times = []
        for seed in range(repeats):
            start = time.perf_counter()
            synthetic_graph(G, 1.0, rng=seed, **options)
            times.append(time.perf_counter() - start)
        tracemalloc.start()
        synthetic_graph(G, 1.0, rng=repeats, **options)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        seconds = float(np.median(times))
        base = base or (seconds, peak)
        print(
            f"{name:<26} {seconds:>8.2f} ({seconds / base[0]:>5.2f}x) {peak:>8.0f} "
            f"({peak / base[1]:.2f}x)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--no-groups", action="store_true")
    parser.add_argument("--speed", action="store_true")
    arguments = parser.parse_args()
    if arguments.speed:
        speed()
    else:
        accuracy(arguments.seeds, not arguments.no_groups)


if __name__ == "__main__":
    main()
