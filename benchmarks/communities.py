"""Accuracy and cost of :func:`privcut.graph.private_communities` (``new``), against the
previous algorithm (``--old``: a sequential, dense-super-graph copy kept here for comparison)
and :func:`privcut.graph.sweep_communities` (``--sweep``: ``sweep`` at its defaults, and
``sweep K=k`` for each ``--labels k``).

Graphs: ``community_graph(n, 10, 20, seed=0, as_sparse=True)`` (planted communities,
heavy-tailed degrees, mixing 0.1) for ``--sizes``; wiki-vote and p2p-gnutella25 from
``shared/data`` read as undirected (``--real``); ``community_graph(5000, 20, 20)``
(``--planted``); ``benchmarks/social.py``'s LFR graph (``--lfr``); and a scale point
``community_graph(10^5, 100, 20)`` (10^6 edges, ``--scale``). Each row: one algorithm at one
epsilon over ``--seeds`` seeds (``rng=seed``): the NMI (arithmetic) of the released labels
against the Louvain partition of the original graph (networkx, seed 0; not computed for the
scale point) and against the planted labels, chance (the NMI against the first of those
references of the released labels shuffled over the nodes: same community sizes, no
information), the number of communities, the median wall time, and the peak traced memory
(tracemalloc) of one more release. A ``new/old`` line gives the ratios of the mean NMIs and
times (with ``--sweep``: of ``sweep`` against ``new``).

Run (from the worktree root)::

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/communities.py --old --real
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/communities.py --old --sizes --scale
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/communities.py --sweep --planted \
        --lfr --real --labels 4 16
"""

from __future__ import annotations

import argparse
import math
import time
import tracemalloc
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.datasets import community_graph, read_edge_array
from privcut.evaluate import normalized_mutual_information as nmi
from privcut.graph import private_communities, sweep_communities
from privcut.graph.partition import Partition
from privcut.privacy import Noise, exponential_mechanism
from privcut.privacy.random import check_random_state

HERE = Path(__file__).resolve()
DATA = next(
    (
        folder / "shared" / "data"
        for folder in HERE.parents
        if (folder / "shared" / "data").is_dir()
    ),
    HERE.parents[1] / ".." / "shared" / "data",
)


def old_private_communities(A: sp.csr_array, epsilon: float, rng: int) -> np.ndarray:
    """The previous algorithm (main c9e4a25, undirected input only): random groups of 20, a
    dense noisy super-graph (all g (g + 1) / 2 block counts, discrete Laplace at epsilon /
    2, clipped at 0), Louvain on it, and one sequential pass of exponential-mechanism
    choices at epsilon / 4 each (weights exp(epsilon s / 8))."""
    generator = check_random_state(rng)
    n = A.shape[0]
    groups = generator.permutation(n) // 20
    g = math.ceil(n / 20)
    partition = Partition(groups, tuple(range(g)), False)
    noise = Noise.for_laplace(epsilon / 2, 1.0, integer=True)
    counts = np.rint(partition.block_sums(A)).astype(np.int64)
    counts = np.maximum(noise.add(counts, rng=generator), 0)
    first, second = partition.blocks
    weights = sp.coo_array((counts, (first, second)), shape=(g, g)).tocsr().tocoo()
    positive = weights.data > 0
    graph = nx.Graph()
    graph.add_nodes_from(range(g))
    graph.add_weighted_edges_from(
        zip(
            weights.row[positive].tolist(),
            weights.col[positive].tolist(),
            weights.data[positive].tolist(),
            strict=True,
        )
    )
    seed = int(generator.integers(2**31))
    found = nx.community.louvain_communities(graph, weight="weight", seed=seed)
    of_group = np.empty(g, dtype=np.int64)
    for label, members in enumerate(sorted(found, key=min)):
        of_group[sorted(members)] = label
    labels = of_group[groups]
    k = int(labels.max()) + 1
    indptr, indices, data = A.indptr, A.indices, A.data
    for node in generator.permutation(n):
        span = slice(indptr[node], indptr[node + 1])
        scores = np.bincount(labels[indices[span]], data[span], minlength=k)
        labels[node] = exponential_mechanism(scores, epsilon / 4, 1.0, rng=generator)
    return labels


def new_private_communities(A: sp.csr_array, epsilon: float, rng: int) -> np.ndarray:
    """The library's release at its defaults."""
    return private_communities(A, epsilon, rng=rng).labels


def sweep_release(labels: int | None):
    """:func:`sweep_communities` at its defaults, or with ``labels`` labels."""

    def release(A: sp.csr_array, epsilon: float, rng: int) -> np.ndarray:
        if labels is None:
            return sweep_communities(A, epsilon, rng=rng).labels
        return sweep_communities(A, epsilon, labels=labels, rng=rng).labels

    return release


def louvain(A: sp.csr_array) -> np.ndarray:
    """Louvain (networkx, seed 0) of the original graph, as one label per node."""
    found = nx.community.louvain_communities(nx.from_scipy_sparse_array(A), seed=0)
    labels = np.empty(A.shape[0], dtype=np.int64)
    for label, members in enumerate(found):
        labels[list(members)] = label
    return labels


def undirected(name: str) -> sp.csr_array:
    """A shared/data graph read as undirected (both directions of a pair collapse)."""
    A = read_edge_array(DATA / name, directed=True).adjacency
    return sp.csr_array(((A + A.T) > 0).astype(float))


def rows(name, A, references, epsilon, seeds, algorithms) -> list[list]:
    """One result per algorithm: [name, n, epsilon, algorithm, NMIs..., k, time, MiB]."""
    results = []
    for label, release in algorithms:
        scores = {key: [] for key in references}
        sizes, times, chance = [], [], []
        shuffle = np.random.default_rng(12345)
        for seed in range(seeds):
            start = time.perf_counter()
            found = release(A, epsilon, seed)
            times.append(time.perf_counter() - start)
            sizes.append(np.unique(found).size)
            chance.append(nmi(next(iter(references.values())), shuffle.permutation(found)))
            for key, reference in references.items():
                scores[key].append(nmi(reference, found))
        tracemalloc.start()
        release(A, epsilon, seeds)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        scores["chance"] = chance
        results.append([label, scores, float(np.median(sizes)), float(np.median(times)), peak])
    line = []
    for label, scores, size, seconds, peak in results:
        cells = " | ".join(
            f"{np.mean(scores[key]):.3f} ({min(scores[key]):.3f}-{max(scores[key]):.3f})"
            if key in scores
            else "-"
            for key in ("louvain", "planted")
        )
        line.append(
            f"| {name} | {A.shape[0]} | {epsilon:g} | {label} | {cells} | "
            f"{np.mean(scores['chance']):.4f} | {size:g} | "
            f"{seconds:.2f} | {peak:.0f} |"
        )
    found = {result[0]: result for result in results}
    pair = ("sweep", "new") if "sweep" in found else ("new", "old")
    if set(pair) <= set(found):
        (_, new, _, new_time, new_peak), (_, old, _, old_time, old_peak) = (
            found[pair[0]],
            found[pair[1]],
        )
        ratios = " | ".join(
            f"x{np.mean(new[key]) / max(np.mean(old[key]), 1e-12):.1f}" if key in new else "-"
            for key in ("louvain", "planted")
        )
        line.append(
            f"| {name} | {A.shape[0]} | {epsilon:g} | {pair[0]}/{pair[1]} | {ratios} | | | "
            f"x{new_time / old_time:.2f} | x{new_peak / old_peak:.2f} |"
        )
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=None)
    parser.add_argument("--real", action="store_true", help="wiki-vote and gnutella")
    parser.add_argument("--scale", action="store_true", help="10^5 nodes, 10^6 edges")
    parser.add_argument("--old", action="store_true", help="also the previous algorithm")
    parser.add_argument("--sweep", action="store_true", help="also sweep_communities")
    parser.add_argument("--labels", type=int, nargs="*", default=[], help="sweep variants")
    parser.add_argument("--planted", action="store_true", help="community_graph(5000, 20, 20)")
    parser.add_argument("--lfr", action="store_true", help="benchmarks/social.py's LFR graph")
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    algorithms = [("new", new_private_communities)]
    if args.old:
        algorithms.insert(0, ("old", old_private_communities))
    if args.sweep:
        algorithms.append(("sweep", sweep_release(None)))
    algorithms += [(f"sweep K={k}", sweep_release(k)) for k in args.labels]
    graphs = []
    sizes = [2000, 5000] if args.sizes == [] else args.sizes or []
    for n in sizes:
        A, planted = community_graph(n, 10, 20, seed=0, as_sparse=True)
        graphs.append((f"planted {n}", A, {"louvain": louvain(A), "planted": planted}))
    if args.planted:
        A, planted = community_graph(5000, 20, 20, seed=0, as_sparse=True)
        graphs.append(("planted 5000/20", A, {"louvain": louvain(A), "planted": planted}))
    if args.lfr:
        from social import lfr_graph

        A = lfr_graph()
        graphs.append(("lfr", A, {"louvain": louvain(A)}))
    if args.real:
        for name in ("wiki-vote.edges", "p2p-gnutella25.edges"):
            A = undirected(name)
            graphs.append((name.split(".")[0], A, {"louvain": louvain(A)}))
    if args.scale:
        A, planted = community_graph(10**5, 100, 20, seed=0, as_sparse=True)
        graphs.append(("planted 10^5", A, {"planted": planted}))
    print(
        "| graph | n | epsilon | algorithm | NMI vs Louvain mean (min-max) | "
        "NMI vs planted mean (min-max) | chance NMI | communities | time s | peak MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, A, references in graphs:
        for epsilon in args.epsilons:
            for line in rows(name, A, references, epsilon, args.seeds, algorithms):
                print(line, flush=True)


if __name__ == "__main__":
    main()
