"""A synthetic social graph with private communities (``groups="private"``, issue 18).

Releases a synthetic copy of a graph without public groups at epsilon = 1: 0.35 of the
budget buys a partition of the nodes (one exponential-mechanism sweep in noisy-degree order),
released with the graph, and the rest measures the degrees, the degree sequence, the
clustering and the partition's block-pair counts for the sparse generator. Prints the
spends and the structure of the original and the release, with and without private
communities, and draws them side by side into one PNG: the degree distribution (the
share of nodes of degree at least k, log-log), the mean clustering of the nodes of each
degree, and the community sizes (the original's Louvain communities, the released
partition, and the release's Louvain communities).

The graph is the Wikipedia votes graph (7,115 nodes, 100,762 edges as undirected) when
``wiki-vote.edges`` is found (``--edges PATH``, else ``../shared/data/`` next to the
repository), read as undirected; otherwise (and with ``--fast``) a generated heavy-tailed
community graph (``privcut.datasets.community_graph``). The evaluation reads the private
graph: it is for judging a mechanism, never for deciding what to release.

    python examples/private_communities.py [--edges PATH] [--fast] [--output output]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp

import privcut
from privcut.datasets import community_graph
from privcut.evaluate import (
    clustering_by_degree,
    louvain,
    normalized_mutual_information,
    structure,
)

ROOT = Path(__file__).resolve().parents[1]
SHARED = [ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data"]
EPSILON = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=Path, help="an edge list 'u v' per line (directed)")
    parser.add_argument("--output", default="output", help="folder for the PNG")
    parser.add_argument("--fast", action="store_true", help="a small generated graph (tests)")
    args = parser.parse_args()
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    name, A = load(args.edges, args.fast)
    print(f"{name}: {A.shape[0]} nodes, {A.nnz // 2} edges (undirected)")
    # groups="private": the partition is bought with planning.COMMUNITY_SHARE of epsilon
    # and released with the graph (H.communities); rng fixed for a reproducible demo.
    H = privcut.synthetic_graph(A, EPSILON, groups="private", method="sparse", rng=1)
    # groups="none": the release without groups (measurements "auto" would decide to buy
    # communities on wiki-vote at epsilon 1)
    plain = privcut.synthetic_graph(A, EPSILON, method="sparse", groups="none", rng=1)
    report = H.graph["privcut"]
    print(f"released at epsilon {report['epsilon']:g}: {H.nnz // 2} edges; spends:")
    for spend in report["measurements"]:
        print(f"  {spend['name']:<26} epsilon {spend['epsilon']:.4f}")
    print(f"{report['communities']['communities']} private communities released")
    original = louvain(A)
    for label, release in (("private communities", H), ("without groups", plain)):
        found = structure(A, release, communities=original)
        print(
            f"{label:>20}: degree KL {found.degree_kl:.3f}, community NMI {found.nmi:.3f}, "
            f"transitivity RE {found.transitivity_error:.2f}, "
            f"modularity RE {found.modularity_error:.2f}"
        )
    agreement = normalized_mutual_information(original, H.communities)
    print(f"released partition vs the original's Louvain communities: NMI {agreement:.3f}")
    draw(A, H, plain, original, name, output / "private_communities.png")


def load(edges: Path | None, fast: bool) -> tuple[str, sp.csr_array]:
    """The graph's name and symmetric 0/1 CSR adjacency."""
    candidates = [edges] if edges else [folder / "wiki-vote.edges" for folder in SHARED]
    found = [path for path in candidates if path.is_file()]
    if fast or not found:
        A, _ = community_graph(2_000, 20, 20.0, seed=0, as_sparse=True)
        return "generated community graph", sp.csr_array(A)
    pairs = np.loadtxt(found[0], dtype=np.int64, comments="#", ndmin=2)
    ids, rows = np.unique(pairs[:, :2], return_inverse=True)
    rows = rows.reshape(-1, 2)
    rows = rows[rows[:, 0] != rows[:, 1]]  # self-loops dropped
    A = sp.csr_array((np.ones(len(rows)), (rows[:, 0], rows[:, 1])), shape=(ids.size,) * 2)
    A = sp.csr_array(A + A.T)  # the undirected view: an edge wherever either vote is
    A.data[:] = 1.0
    return found[0].stem, A


def draw(A, H, plain, original: np.ndarray, name: str, path: Path) -> None:
    """Original vs releases: degree distribution, clustering by degree, community sizes."""
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    styles = {  # the original wide and pale, the releases thin on top: all stay visible
        "original": dict(color="C0", linewidth=3.5, alpha=0.6),
        "private communities": dict(color="C3", linewidth=1.5, linestyle="--"),
        "without groups": dict(color="C2", linewidth=1.2, linestyle=":"),
    }
    graphs = {"original": A, "private communities": sp.csr_array(H), "without groups": plain}
    for label, graph in graphs.items():
        style = styles[label]
        counts = np.bincount(np.diff(graph.indptr))
        at_least = np.cumsum(counts[::-1])[::-1] / graph.shape[0]  # share with degree >= k
        axes[0].loglog(np.arange(1, counts.size), at_least[1:], label=label, **style)
        axes[1].loglog(*clustering_by_degree(sp.csr_array(graph)), label=label, **style)
    sizes = {
        "original (Louvain)": np.bincount(original),
        "released partition": np.bincount(H.communities),
        "release (Louvain)": np.bincount(louvain(H)),
    }
    bins = np.geomspace(1, max(s.max() for s in sizes.values()) * 1.5, 16)  # singletons first
    for (label, size), color in zip(sizes.items(), ("C0", "C3", "C1"), strict=True):
        axes[2].hist(size, bins=bins, histtype="step", linewidth=2, color=color, label=label)
    axes[0].set(
        title="Degree distribution",
        xlabel="degree k",
        ylabel="fraction of nodes with degree >= k",
    )
    axes[1].set(
        title="Clustering by degree",
        xlabel="degree (logarithmic bins)",
        ylabel="mean local clustering coefficient",
    )
    axes[2].set(
        title="Community sizes",
        xlabel="nodes in the community",
        ylabel="number of communities",
        xscale="log",
        yscale="log",
    )
    for axis in axes:
        axis.legend()
        axis.grid(True, which="major", alpha=0.3)
    fig.suptitle(f"{name}: original vs synthetic releases at epsilon = {EPSILON:g} (privcut)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
