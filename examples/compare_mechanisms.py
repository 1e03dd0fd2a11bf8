"""Six ways to answer the same cut queries on the same graph at the same privacy.

A planted-partition graph stands in for a private social graph with public groups; the
queries are every between-group cut and every group against the rest. Compared, each
at epsilon = 1 (delta = 1e-6 where a mechanism needs it): randomized response (the
noisy graph's cuts), the synthetic graph of GRU12 Lemma 6.2, the synthetic graph that
also measures the groups' block counts (``measurements="auto"``), the Iterative
Construction mechanism, workload answering (`answer_cuts`, strategy chosen without the
data), and per-query Laplace noise. Prints a table and draws a bar chart to a PNG.

    python examples/compare_mechanisms.py [--fast]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import privcut
from privcut.datasets import planted_partition
from privcut.evaluate import cut_errors

EPSILON, DELTA = 1.0, 1e-6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="output", help="folder for the PNG")
    parser.add_argument("--fast", action="store_true", help="a smaller graph (for tests)")
    args = parser.parse_args()
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    groups, size = (5, 20) if args.fast else (10, 40)
    G = planted_partition(groups, size, 0.3, 0.02, seed=2)  # stands in for a private graph
    members = [{v for v, g in G.graph["groups"].items() if g == b} for b in range(groups)]
    everyone = set(G.nodes)
    queries = [(a, b) for i, a in enumerate(members) for b in members[i + 1 :]]
    queries += [(group, everyone - group) for group in members]
    releases = {
        "randomized response": lambda: privcut.noisy_graph(G, EPSILON, rng=1),
        "synthetic graph (LP)": lambda: privcut.synthetic_graph(G, EPSILON, rounding=None, rng=1),
        "synthetic graph (blocks + LP)": lambda: privcut.synthetic_graph(
            G, EPSILON, measurements="auto", groups=G.graph["groups"], rng=1
        ),
        "iterative construction": lambda: privcut.iterative_construction(
            G, EPSILON, DELTA, distinguisher="noisy-graph", rng=1
        ),
    }
    rows = []  # (mechanism, absolute errors, seconds)
    for name, release in releases.items():
        start = time.perf_counter()
        H = release()
        # evaluation only (reads the private graph): G unweighted, each release read with
        # its fractional weights (release_weight="weight", the default)
        errors = cut_errors(G, H, queries)
        rows.append((name, errors, time.perf_counter() - start))
    truth = np.array([privcut.cut_value(G, S, T) for S, T in queries])  # evaluation only
    for name, strategy, delta in (
        ("workload answering", "auto", DELTA),
        ("per-query Laplace", "per-query", 0.0),
    ):
        start = time.perf_counter()
        answers = privcut.answer_cuts(G, queries, EPSILON, delta=delta, strategy=strategy, rng=1)
        errors = np.abs(answers.values - truth)
        rows.append((f"{name} ({answers.strategy})", errors, time.perf_counter() - start))
    print(f"{G.number_of_nodes()} nodes, {G.number_of_edges()} edges, {len(queries)} queries")
    print(f"{'mechanism':<38} {'mean error':>10} {'max error':>10} {'seconds':>8}")
    for name, errors, seconds in rows:
        print(f"{name:<38} {errors.mean():>10.1f} {errors.max():>10.1f} {seconds:>8.2f}")
    figure, axis = plt.subplots(figsize=(9, 4))
    names = [name for name, _, _ in rows]
    axis.bar(names, [errors.mean() for _, errors, _ in rows], color="tab:blue", label="mean")
    axis.scatter(names, [errors.max() for _, errors, _ in rows], color="k", zorder=3, label="max")
    axis.set_yscale("log")
    axis.set_ylabel("absolute error (edges)")
    axis.set_title(f"{len(queries)} group cuts, epsilon = {EPSILON:g}")
    axis.tick_params(axis="x", labelrotation=20)
    axis.legend(loc="upper center")
    figure.tight_layout()
    figure.savefig(output / "compare_mechanisms.png", dpi=100)
    print(f"wrote {output / 'compare_mechanisms.png'}")


if __name__ == "__main__":
    main()
