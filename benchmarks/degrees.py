"""Degrees done well (issue 17): how close the sparse release's degrees are to the graph's.

For each graph, epsilon and measurement set, ``synthetic_graph(G, epsilon,
method="sparse", measurements=...)`` over several seeds, reporting the degree-histogram KL
divergence ``sum_k p_k log((p_k + e) / (q_k + e))`` (p, q the normalised degree histograms
of G and the release, padded to one length, e machine epsilon; the same formula as
:func:`privcut.evaluate.structure`'s ``degree_kl``, checked against it once per graph) and
the maximum and mean absolute error of the sorted degree sequence, and the per-node
degree MAE (mean over nodes of ``|released degree - true degree|``: the degree workload
class). With public groups it also reports the group classes: the mean absolute error of
the released between-group and within-group block counts, and the ratio of the first to
the between-group error of the noisy block counts themselves under the edge-count +
blocks plan (measured with the same seed): what the degrees cost the group workload
against the sparse default before issue 17's degrees piece.

Graphs: the 7,115-node wiki-vote graph from ``shared/data`` (the nearest such folder
above this file, the project's ``../shared/data``) read as undirected (skipped
when the file is absent) without groups, and a heavy-tailed community graph
(:func:`privcut.datasets.community_graph`, 10,000 nodes, 10 groups, average degree 20,
exponent 2.5, mixing 0.1) with and without its groups.

Run: ``python benchmarks/degrees.py [--seeds 5] [--epsilons 0.5 1 2]
[--graphs wiki community groups]``
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import networkx as nx
import numpy as np

from privcut.datasets import community_graph
from privcut.evaluate import structure
from privcut.graph.measurement import measure
from privcut.graph.partition import Partition
from privcut.graph.planning import plan_measurements
from privcut.graph.synthetic import synthetic_graph
from privcut.graph.universe import EdgeUniverse

HERE = Path(__file__).resolve()
WIKI = next(
    (
        folder / "shared" / "data" / "wiki-vote.edges"
        for folder in HERE.parents
        if (folder / "shared" / "data" / "wiki-vote.edges").exists()
    ),
    HERE.parents[1] / ".." / "shared" / "data" / "wiki-vote.edges",
)

PLAIN = {
    "edge-count+degrees": ["edge-count", "degrees"],
    "edge-count+degree-sequence": ["edge-count", "degree-sequence"],
    "edge-count 0.1, degree-sequence 0.9": {"edge-count": 0.1, "degree-sequence": 0.9},
    "auto": "auto",
}
GROUPED = {
    "edge-count+blocks": ["edge-count", "blocks"],
    "edge-count+blocks+degrees": ["edge-count", "blocks", "degrees"],
    "edge-count+blocks+degree-sequence": ["edge-count", "blocks", "degree-sequence"],
    "blocks 0.75, degrees 0.05, degree-sequence 0.15": {
        "edge-count": 0.05,
        "blocks": 0.75,
        "degrees": 0.05,
        "degree-sequence": 0.15,
    },
    "auto": "auto",
}


def degree_kl(first: np.ndarray, second: np.ndarray) -> float:
    """The issue's KL of two integer degree sequences' normalised histograms."""
    p, q = (np.bincount(d).astype(float) for d in (first, second))
    p, q = p / p.sum(), q / q.sum()
    size = max(p.size, q.size)
    p, q = np.pad(p, (0, size - p.size)), np.pad(q, (0, size - q.size))
    e = np.finfo(float).eps
    return float(np.sum(p * np.log((p + e) / (q + e))))


def wiki() -> nx.Graph:
    """wiki-vote as an undirected simple graph (both directions of a pair collapse)."""
    edges = np.loadtxt(WIKI, dtype=np.int64, ndmin=2)
    G = nx.Graph()
    G.add_edges_from(edges.tolist())
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    return G


def block_errors(G, H, labels: dict, g: int) -> tuple[float, float]:
    """Mean absolute error of H's between-group and within-group block counts."""
    counts = []
    for graph in (G, H):
        table = np.zeros((g, g))
        for u, v in graph.edges():
            a, b = sorted((labels[u], labels[v]))
            table[a, b] += 1
        counts.append(table)
    error = np.abs(counts[0] - counts[1])
    upper = np.triu_indices(g, k=1)
    return float(error[upper].mean()), float(np.diag(error).mean())


def block_noise(G, epsilon: float, labels: dict, g: int, seed: int) -> float:
    """The between-group MAE of the raw noisy block counts of the edge-count + blocks
    plan (the block counts' own noise at that default)."""
    plan = plan_measurements(list(G), epsilon, ["edge-count", "blocks"], groups=labels)
    universe = EdgeUniverse.of(G)
    measured = measure(G, plan, partition=Partition.of(universe, labels), rng=seed)
    noisy = measured.get("blocks").values
    first, second = measured.partition.blocks
    table = np.zeros((g, g))
    for u, v in G.edges():
        a, b = sorted((labels[u], labels[v]))
        table[a, b] += 1
    between = first != second
    return float(np.abs(noisy[between] - table[first[between], second[between]]).mean())


def run(name, G, configurations, epsilons, seeds, labels=None, g=0) -> list[str]:
    nodes = list(G)
    true = np.array([G.degree(v) for v in nodes])
    rows = []
    for epsilon in epsilons:
        noise = [block_noise(G, epsilon, labels, g, s) for s in range(seeds)] if labels else []
        for label, measurements in configurations.items():
            kls, maxima, means, per_node, between, within, times = [], [], [], [], [], [], []
            for seed in range(seeds):
                start = time.perf_counter()
                H = synthetic_graph(
                    G, epsilon, method="sparse", measurements=measurements, groups=labels, rng=seed
                )
                times.append(time.perf_counter() - start)
                released = np.array([H.degree(v) for v in nodes])
                kls.append(degree_kl(true, released))
                gap = np.abs(np.sort(true) - np.sort(released))
                maxima.append(gap.max())
                means.append(gap.mean())
                per_node.append(np.abs(true - released).mean())
                if labels:
                    errors = block_errors(G, H, labels, g)
                    between.append(errors[0])
                    within.append(errors[1])
            if epsilon == epsilons[0] and label == next(iter(configurations)):
                checked = structure(G, H).degree_kl
                assert abs(checked - kls[-1]) < 1e-9, (checked, kls[-1])
            groups = (
                f" {np.mean(between):.1f} | {np.mean(within):.1f} | "
                f"{np.mean(between) / np.mean(noise):.2f} |"
                if labels
                else ""
            )
            rows.append(
                f"| {name} | {epsilon:g} | {label} | {np.mean(kls):.3f} | "
                f"{', '.join(f'{k:.3f}' for k in kls)} | {np.mean(maxima):.1f} | "
                f"{np.mean(means):.2f} | {np.mean(per_node):.2f} | {np.mean(times):.2f} |{groups}"
            )
            print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    parser.add_argument("--graphs", nargs="+", default=["wiki", "community", "groups"])
    arguments = parser.parse_args()
    header = (
        "| graph | epsilon | measurements | KL mean | KL per seed | sorted max err | "
        "sorted mean err | node MAE | seconds |"
    )
    print(header)
    if "wiki" in arguments.graphs and WIKI.exists():
        run("wiki-vote", wiki(), PLAIN, arguments.epsilons, arguments.seeds)
    if "community" in arguments.graphs:
        G = community_graph(10_000, 10, 20.0, seed=0)
        labels = G.graph["groups"]
        run("community", G, PLAIN, arguments.epsilons, arguments.seeds)
    if "groups" in arguments.graphs:
        G = community_graph(10_000, 10, 20.0, seed=0)
        labels = G.graph["groups"]
        print(header + " between MAE | within MAE | between / block noise |")
        run("community+groups", G, GROUPED, arguments.epsilons, arguments.seeds, labels, 10)


if __name__ == "__main__":
    main()
