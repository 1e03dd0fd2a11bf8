"""What a synthetic release preserves of a social graph's structure.

Releases a synthetic copy of a graph given as a ``scipy.sparse`` adjacency (the release is
a ``SyntheticArray``: sparse in, sparse out) at epsilon = 1 with the defaults, prints
``privcut.evaluate.structure`` (degrees, triangles, clustering, assortativity, modularity
of public groups, the most central nodes) for the original and the release side by side,
and draws both into one PNG: the degree distribution (the share of nodes of degree at
least k, log-log), the mean clustering of the nodes of each degree, and the eigenvector
centralities in rank order.

The graph is the Wikipedia votes graph (7,115 nodes, 100,762 edges as undirected) when
``wiki-vote.edges`` is found (``--edges PATH``, else ``../shared/data/`` next to the
repository), read as undirected; otherwise (and with ``--fast``) a generated heavy-tailed
community graph (``privcut.datasets.community_graph``) of ``--nodes`` nodes, whose groups
are public. The evaluation reads the private graph: it is for judging a mechanism, never
for deciding what to release.

    python examples/structure_of_a_release.py [--edges PATH] [--nodes 20000] [--fast]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh

import privcut
from privcut.datasets import community_graph
from privcut.evaluate import clustering_by_degree, structure

ROOT = Path(__file__).resolve().parents[1]
SHARED = [ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=Path, help="an edge list 'u v' per line (directed)")
    parser.add_argument("--nodes", type=int, default=20_000, help="generated graph's size")
    parser.add_argument("--output", default="output", help="folder for the PNG")
    parser.add_argument("--fast", action="store_true", help="a small generated graph (tests)")
    args = parser.parse_args()
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    name, A, nodes, groups = load(args.edges, 2_000 if args.fast else args.nodes, args.fast)
    print(f"{name}: {A.shape[0]} nodes, {A.nnz // 2} edges (undirected)")
    # The sparse generator, which method="auto" (the default) picks above a memory budget,
    # named so that the small --fast graph takes it too; public groups (if any) measured
    # as block counts; rng fixed for a reproducible demo; measurements="auto".
    public = None if groups is None else dict(zip(nodes, groups.tolist(), strict=True))
    H = privcut.synthetic_graph(A, 1.0, nodes=nodes, groups=public, method="sparse", rng=1)
    report = H.graph["privcut"]
    print(f"released at epsilon 1 by the {report['method']} generator: {H.nnz // 2} edges")
    found = structure(A, H, nodes=nodes, groups=groups)  # H's nodes are matched by label
    print_comparison(found)
    draw(A, H, found, name, output / "structure_of_a_release.png")


def load(edges: Path | None, n: int, fast: bool):
    """The graph's name, symmetric CSR adjacency, node labels and public groups (or None)."""
    candidates = [edges] if edges else [folder / "wiki-vote.edges" for folder in SHARED]
    found = [path for path in candidates if path.is_file()]
    if fast or not found:
        A, labels = community_graph(n, 20, 20.0, seed=0, as_sparse=True)
        return "generated community graph", A, list(range(n)), labels
    pairs = np.loadtxt(found[0], dtype=np.int64, comments="#", ndmin=2)
    ids, rows = np.unique(pairs[:, :2], return_inverse=True)
    rows = rows.reshape(-1, 2)
    rows = rows[rows[:, 0] != rows[:, 1]]  # self-loops dropped
    A = sp.csr_array((np.ones(len(rows)), (rows[:, 0], rows[:, 1])), shape=(ids.size,) * 2)
    A = sp.csr_array(A + A.T)  # the undirected view: an edge wherever either vote is
    A.data[:] = 1.0
    return found[0].stem, A, ids.tolist(), None


def print_comparison(found) -> None:
    """The two graphs' statistics side by side, then the comparisons."""
    original, release = found.original.to_dict(), found.release.to_dict()
    print(f"{'statistic':>20} {'original':>10} {'release':>10}")
    for key in ("edges", "max_degree", "triangles", "transitivity", "average_clustering"):
        print(f"{key:>20} {original[key]:>10.4g} {release[key]:>10.4g}")
    for key in ("assortativity", "modularity"):
        if original[key] is not None:
            print(f"{key:>20} {original[key]:>10.3f} {release[key]:>10.3f}")
    print(
        f"degree KL {found.degree_kl:.3f}; top {found.top} most central nodes shared: "
        f"{found.centrality_jaccard:.0%} (Jaccard); centrality rank correlation "
        f"{found.centrality_spearman:.3f}"
    )


def centrality(A: sp.csr_array) -> np.ndarray:
    """Eigenvector centralities (the leading eigenvector, unit norm), largest first."""
    start = np.sqrt(np.diff(A.indptr)) + 1.0
    vector = eigsh(A, k=1, which="LA", v0=start, tol=1e-8)[1][:, 0]
    vector = np.abs(vector) / np.linalg.norm(vector)
    return np.sort(vector)[::-1]


def draw(A: sp.csr_array, H: sp.csr_array, found, name: str, path: Path) -> None:
    """Original vs release: degree distribution, clustering by degree, centralities."""
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    styles = {  # the original wide and pale, the release dashed on top: both stay visible
        "original": dict(color="C0", linewidth=3.5, alpha=0.6),
        "release": dict(color="C3", linewidth=1.5, linestyle="--"),
    }
    markers = {"original": "o", "release": "x"}
    lowest = np.inf
    for label, graph in (("original", A), ("release", sp.csr_array(H))):
        style = styles[label]
        counts = np.bincount(np.diff(graph.indptr))
        at_least = np.cumsum(counts[::-1])[::-1] / graph.shape[0]  # share with degree >= k
        degrees = np.arange(1, counts.size)
        axes[0].loglog(degrees, at_least[1:], label=label, **style)
        axes[1].loglog(*clustering_by_degree(graph), label=label, marker=markers[label], **style)
        values = centrality(graph)
        axes[2].loglog(np.arange(1, values.size + 1), values, label=label, **style)
        lowest = min(lowest, values[0] * 1e-3)
    axes[0].set(
        title=f"Degree distribution (KL {found.degree_kl:.2f})",
        xlabel="degree k",
        ylabel="fraction of nodes with degree >= k",
    )
    axes[1].set(
        title="Clustering by degree",
        xlabel="degree (logarithmic bins)",
        ylabel="mean local clustering coefficient",
    )
    axes[2].set(
        title=f"Eigenvector centrality (top {found.top}: {found.centrality_jaccard:.0%} shared)",
        xlabel="rank of the node (most central first)",
        ylabel="eigenvector centrality",
        ylim=(lowest, None),
    )
    for axis in axes:
        axis.legend()
        axis.grid(True, which="major", alpha=0.3)
    fig.suptitle(f"{name}: original vs synthetic release at epsilon = 1 (privcut)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
