"""Calibration of ``measurements="auto"``'s choice to buy private communities (issue 18):
how well the release's community step (:func:`privcut.graph.sweep_communities` at
``COMMUNITY_SHARE`` of epsilon, as ``groups="private"`` runs it) recovers communities,
against epsilon x average degree, on graphs of several densities.

Graphs: ``community_graph(5000, 20, d, mixing=0.1)`` (planted, heavy-tailed degrees) and
``community_graph(5000, 20, d, mixing=0.3)`` for ``d`` in ``--degrees``; LFR graphs
(``networkx.LFR_benchmark_graph(5000, 2.5, 1.5, 0.1, average_degree=d, max_degree=100,
min_community=20)``, d in ``--lfr-degrees``; d = 10 is ``benchmarks/social.py``'s); and
wiki-vote and p2p-gnutella25 read as undirected (``--real``). Each row: one graph at one
epsilon over ``--seeds`` seeds: the NMI of the released partition against the reference
(the planted labels; Louvain of the original, networkx seed 0, for LFR and the real
graphs), the chance NMI (the released labels shuffled), their ratio, and the rule's
statistic ``epsilon * 2 m / n`` (exact here; the release reads a noisy edge count).

Run (from the worktree root)::

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python3 benchmarks/auto_groups.py --real
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.datasets import community_graph
from privcut.evaluate import normalized_mutual_information as nmi
from privcut.graph import PrivateGroups, sweep_communities

sys.path.insert(0, str(Path(__file__).resolve().parent))
from communities import louvain  # the benchmarks folder


def lfr(degree: float) -> sp.csr_array:
    """An LFR benchmark graph of 5,000 nodes at the given average degree (0/1, symmetric)."""
    G = nx.LFR_benchmark_graph(
        5_000, 2.5, 1.5, 0.1, average_degree=degree, max_degree=100, min_community=20, seed=0
    )
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    A = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(5_000), weight=None))
    return sp.csr_array((A > 0).astype(float))


def graphs(args) -> list[tuple[str, sp.csr_array, np.ndarray]]:
    """The calibration graphs with their reference partitions."""
    found = []
    for mixing in (0.1, 0.3):
        for degree in args.degrees:
            A, planted = community_graph(5000, 20, degree, mixing=mixing, seed=0, as_sparse=True)
            found.append((f"planted mix {mixing:g}", sp.csr_array(A), planted))
    for degree in args.lfr_degrees:
        A = lfr(degree)
        found.append(("lfr", A, louvain(A)))
    if args.real:
        from social import load

        for name in ("wiki-vote", "gnutella"):
            A = load(name)
            if A is not None:
                found.append((name, A, louvain(A)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--degrees", type=float, nargs="*", default=[4, 8, 16, 32])
    parser.add_argument("--lfr-degrees", type=float, nargs="*", default=[5, 10, 20])
    parser.add_argument("--real", action="store_true", help="wiki-vote and gnutella")
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.25, 0.5, 1, 2, 4])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    share = PrivateGroups().share
    print(
        "| graph | n | average degree | epsilon | epsilon x degree | NMI mean (min-max) | "
        "chance NMI | NMI / chance | communities |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, A, reference in graphs(args):
        n = A.shape[0]
        degree = A.nnz / n
        shuffle = np.random.default_rng(12345)
        for epsilon in args.epsilons:
            scores, chance, sizes = [], [], []
            for seed in range(args.seeds):
                labels = sweep_communities(A, share * epsilon, rng=seed).labels
                scores.append(nmi(reference, labels))
                chance.append(nmi(reference, shuffle.permutation(labels)))
                sizes.append(np.unique(labels).size)
            mean, luck = float(np.mean(scores)), float(np.mean(chance))
            print(
                f"| {name} | {n} | {degree:.1f} | {epsilon:g} | {epsilon * degree:.1f} | "
                f"{mean:.3f} ({min(scores):.3f}-{max(scores):.3f}) | {luck:.4f} | "
                f"{mean / max(luck, 1e-12):.0f} | {np.median(sizes):g} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
