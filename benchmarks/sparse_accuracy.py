"""Issue 17 acceptance, accuracy of the sparse generator.

(a) ``--part dense`` -- on the multi-measurement benchmark's 1000-node graphs
(``benchmarks/multi.py``'s ``build``: planted partitions of 20 groups x 50 nodes, "dense"
p_in 0.3 / p_out 0.02 and "sparse" 0.05 / 0.002, seed 0; its workloads: WorkloadClasses
with the planted groups and 1000 random bisections, rng 0), the sparse generator against
the dense one with the SAME measurements, shares and groups: the sparse generator's default
plan ``MEASUREMENTS`` (edge count, degrees, degree sequence, block counts), passed
explicitly to both ``synthetic_graph(G, eps, method="dense"|"sparse", measurements=...,
groups=...)``, the same rng seed for both. Per workload class, the mean absolute error
averaged over ``--seeds`` releases, and sparse / dense (acceptance: <= 1.2 on the group
workloads and bisections). ``--plans auto``: each method with its own
``measurements="auto"`` instead (the dense plan adds randomized response, which the sparse
generator refuses), the stricter reading of "the dense generator's errors".

(b) ``--part scale`` -- ``community_graph(10^5, GROUPS, 20)`` (10^6 edges) released with
``method="sparse"`` and the planted labels as public groups. Compared:

- between-group MAE of the release against the block counts' own noise: E|X| for one
  discrete Laplace draw X at the scale the report's "blocks" measurement used (its share of
  epsilon, sensitivity 1): ``2 q / (1 - q^2)``, ``q = exp(-1/scale)`` (checked here
  against 10^6 draws of ``privcut.privacy.discrete_laplace``). Acceptance: <= 1.5x.
- random-bisection MAE against a noisy edge count's error: answering each bisection
  (S, T) by ``(m + X) |S| |T| / pairs`` with X discrete Laplace at the FULL epsilon
  (``WorkloadClasses.single_purpose_errors(eps)["bisection"]``, same graph, same
  bisections), i.e. E|cut(S, T) - m_noisy p| with p = |S||T|/pairs, which is mostly the
  spread of the true cuts around m p (the graph's structure), the noise adding little.
  Acceptance: <= 1.5x.

The release is a ``SyntheticArray`` (a CSR array), which ``WorkloadClasses.errors`` does not
accept yet (it takes NetworkX graphs or a NoisyGraph): its answers are computed here with
the public pieces the class uses itself (``Partition.block_sums``, ``group_answers``,
``privcut.graph.cuts.cut_sums``) and passed to ``errors`` as a dict.

    python benchmarks/sparse_accuracy.py                       # both parts, eps 1, 3 seeds
    python benchmarks/sparse_accuracy.py --part dense --epsilons 0.5 1 2 --seeds 3
    python benchmarks/sparse_accuracy.py --part dense --plans auto   # dense adds RR
    python benchmarks/sparse_accuracy.py --part scale --n 100000 --bisections 200
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from multi import GRAPHS, WORKLOADS, build

from privcut import synthetic_graph
from privcut.datasets import community_graph
from privcut.evaluate import WorkloadClasses
from privcut.graph.cuts import cut_sums
from privcut.privacy import discrete_laplace

MEASUREMENTS = {"edge-count": 0.05, "degrees": 0.05, "degree-sequence": 0.1, "blocks": 0.8}
"""The sparse generator's own plan with groups (its measurements="auto" on these graphs)."""


def dense_vs_sparse(seeds: int, epsilons: list[float], plan: str) -> None:
    """Part (a): ``plan`` "same" passes MEASUREMENTS to both methods; "auto" lets each use
    its own ``measurements="auto"`` (the dense one adds randomized response)."""
    measurements = MEASUREMENTS if plan == "same" else "auto"
    what = f"same measurements {MEASUREMENTS}" if plan == "same" else 'each its own "auto" plan'
    print(f"\n(a) {what}, groups given, {seeds} seeds")
    print("graph   eps   workload          dense   sparse  sparse/dense  <=1.2")
    for graph in GRAPHS:
        G = build(graph)
        groups = G.graph["groups"]
        work = WorkloadClasses(G, groups, bisections=1000, rng=0)
        for epsilon in epsilons:
            totals = {m: dict.fromkeys(WORKLOADS, 0.0) for m in ("dense", "sparse")}
            seconds = dict.fromkeys(totals, 0.0)
            for seed in range(seeds):
                for method in totals:
                    start = time.perf_counter()
                    H = synthetic_graph(
                        G,
                        epsilon,
                        method=method,
                        measurements=measurements,
                        groups=groups,
                        rng=seed,
                    )
                    seconds[method] += time.perf_counter() - start
                    errors = work.errors(H)
                    for w in WORKLOADS:
                        totals[method][w] += errors[w] / seeds
            for w in WORKLOADS:
                dense, sparse = totals["dense"][w], totals["sparse"][w]
                ratio = sparse / dense
                print(
                    f"{graph:<7} {epsilon:<5g} {w:<15} {dense:>7.2f} {sparse:>8.2f} "
                    f"{ratio:>13.2f}  {'pass' if ratio <= 1.2 else 'FAIL'}"
                )
            print(
                f"{'':14}(seconds per release: dense {seconds['dense'] / seeds:.1f}, "
                f"sparse {seconds['sparse'] / seeds:.2f})"
            )
            sys.stdout.flush()


def sparse_answers(work: WorkloadClasses, H: sp.sparray) -> dict[str, np.ndarray]:
    """A CSR release's answers to every class (H in the same node order as the truth)."""
    H = sp.csr_array(H)
    found = {"degree": np.asarray(H.sum(axis=1)).ravel()}
    found |= work.group_answers(work.partition.block_sums(H))
    sides = work.sides.T
    found["bisection"] = cut_sums(H, sides, ~sides)
    return found


def expected_absolute(scale: float) -> float:
    """E|X| for X discrete Laplace, P(x) ~ exp(-|x| / scale)."""
    q = np.exp(-1.0 / scale)
    return 2.0 * q / (1.0 - q * q)


def at_scale(n: int, groups: int, seeds: int, epsilons: list[float], bisections: int) -> None:
    A, labels = community_graph(n, groups, 20.0, seed=0, as_sparse=True)
    planted = dict(enumerate(np.asarray(labels).tolist()))
    work = WorkloadClasses(A, planted, bisections=bisections, rng=0)
    print(
        f"\n(b) community_graph({n:,}, {groups}, 20): {A.nnz // 2:,} edges, method sparse, "
        f"planted groups public, {bisections} bisections, {seeds} seeds"
    )
    print(
        "eps   blocks eps  scale  E|noise| (drawn)  between MAE  ratio <=1.5 | bisection MAE"
        "  edge-count MAE  ratio <=1.5 | within MAE  g-vs-rest MAE"
    )
    for epsilon in epsilons:
        found = dict.fromkeys(("between-group", "within-group", "group-vs-rest", "bisection"), 0.0)
        baseline, share = 0.0, None
        for seed in range(seeds):
            H = synthetic_graph(A, epsilon, method="sparse", groups=planted, rng=seed)
            report = H.graph["privcut"]
            (blocks,) = [m for m in report["measurements"] if m["name"] == "blocks"]
            share = share or (blocks["epsilon"], blocks["scale"])
            errors = work.errors(sparse_answers(work, H))
            for c in found:
                found[c] += errors[c] / seeds
            single = work.single_purpose_errors(epsilon, rng=1000 + seed)
            baseline += single["bisection"] / seeds
        noise = expected_absolute(share[1])
        drawn = float(np.mean(np.abs(discrete_laplace(share[1], 10**6, rng=0))))
        between, bisection = found["between-group"], found["bisection"]
        print(
            f"{epsilon:<5g} {share[0]:>10.3f} {share[1]:>6.3f} {noise:>9.3f} ({drawn:.3f}) "
            f"{between:>11.3f} {between / noise:>6.2f} {_ok(between / noise)} | "
            f"{bisection:>13.1f} {baseline:>15.1f} {bisection / baseline:>6.2f} "
            f"{_ok(bisection / baseline)} | {found['within-group']:>10.2f} "
            f"{found['group-vs-rest']:>14.2f}"
        )
        sys.stdout.flush()


def _ok(ratio: float) -> str:
    return "pass" if ratio <= 1.5 else "FAIL"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["dense", "scale", "both"], default="both")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument(
        "--plans",
        nargs="+",
        choices=["same", "auto"],
        default=["same"],
        help='part (a): "same" measurements for both methods, or each one\'s "auto" plan',
    )
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0])
    parser.add_argument("--n", type=int, default=10**5, help="nodes of part (b)")
    parser.add_argument("--groups", type=int, default=50, help="planted groups of part (b)")
    parser.add_argument("--bisections", type=int, default=200, help="bisections of part (b)")
    arguments = parser.parse_args()
    print(f"load: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if arguments.part in ("dense", "both"):
        for plan in arguments.plans:
            dense_vs_sparse(arguments.seeds, arguments.epsilons, plan)
    if arguments.part in ("scale", "both"):
        at_scale(
            arguments.n, arguments.groups, arguments.seeds, arguments.epsilons, arguments.bisections
        )
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
