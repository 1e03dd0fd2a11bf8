"""Issue 18's acceptance harness: how much of a social graph's structure a release keeps.

Graphs (all undirected, no public groups):

- ``wiki-vote``: ``shared/data/wiki-vote.edges`` (7,115 nodes, 100,762 edges as undirected)
  read with ``read_edge_array(path, directed=True)`` and symmetrised, ``(A + A.T) > 0``;
- ``gnutella``: ``shared/data/p2p-gnutella25.edges`` (22,687 nodes, 54,705 edges), likewise;
- ``community``: a generated graph with planted communities and heavy-tailed degrees,
  ``community_graph(5_000, 25, 10.0, exponent=2.5, mixing=0.1, seed=0)``.

(``shared/data`` is the nearest such folder above this file: the project's
``../shared/data``; a graph whose file is absent is skipped with a message.)

Releases at each epsilon and seed: ``privcut`` is ``synthetic_graph(A, epsilon,
method="sparse", rng=seed)`` (default measurements, no groups); ``privgraph`` and
``top-m`` are the peers of ``benchmarks/peers.py`` (``privgraph(A, epsilon, rng)`` and
``top_m_filter(A, epsilon, rng)``, each returning a CSR adjacency), skipped with a message
when they cannot be imported.

Metrics (``privcut.evaluate.structure`` against the original; lower is better except NMI):
degree-histogram KL, community NMI (Louvain with seed 0 on both graphs), modularity RE of
the original's Louvain partition, degree-assortativity RE, eigenvector-centrality MAE of the
original's top 1%, triangle-count RE, global-clustering (transitivity) RE; seconds per
release; and cut errors (``WorkloadClasses`` with the original's Louvain communities as the
groups): mean absolute error on 200 random balanced bisections and on the cuts between
every two of the original's Louvain communities. Each cell is the mean and (after +-) the
sample standard deviation over the seeds.

Run: ``python benchmarks/social.py [--graphs wiki-vote gnutella community] [--methods
privcut privgraph top-m] [--epsilons 0.5 1 2] [--seeds 5] [--quick]``; ``--quick`` is
one seed at epsilon 1 on the generated graph only.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from privcut import synthetic_graph
from privcut.datasets import community_graph, read_edge_array
from privcut.evaluate import WorkloadClasses, louvain, structure

HERE = Path(__file__).resolve()
FILES = {"wiki-vote": "wiki-vote.edges", "gnutella": "p2p-gnutella25.edges"}
BISECTIONS = 200
METRICS = [
    ("degree KL", "degree_kl"),
    ("NMI (higher better)", "nmi"),
    ("modularity RE", "modularity_error"),
    ("assortativity RE", "assortativity_error"),
    ("centrality MAE top 1%", "centrality_mae"),
    ("triangle RE", "triangle_error"),
    ("clustering RE", "transitivity_error"),
    ("s / release", "seconds"),
    ("bisection error", "bisection"),
    ("between-community error", "between-group"),
]


def data_file(name: str) -> Path | None:
    """The nearest ``shared/data/<name>`` above this file, or None."""
    for folder in HERE.parents:
        path = folder / "shared" / "data" / name
        if path.exists():
            return path
    return None


def load(name: str) -> sp.csr_array | None:
    """The named graph as a symmetric 0/1 CSR adjacency (None if its file is absent)."""
    if name == "community":
        A, _ = community_graph(5_000, 25, 10.0, exponent=2.5, mixing=0.1, seed=0, as_sparse=True)
        return sp.csr_array(A)
    path = data_file(FILES[name])
    if path is None:
        print(f"skipping {name}: shared/data/{FILES[name]} not found", file=sys.stderr)
        return None
    A = read_edge_array(path, directed=True).adjacency
    return sp.csr_array(((A + A.T) > 0).astype(float))


def privcut_release(A: sp.csr_array, epsilon: float, rng: int) -> sp.csr_array:
    """privcut's sparse release with default measurements and no groups."""
    return synthetic_graph(A, epsilon, method="sparse", rng=rng)


def methods(names: list[str]) -> dict[str, Callable]:
    """The release functions that could be imported, by name."""
    found = {}
    if "privcut" in names:
        found["privcut"] = privcut_release
    peers = [n for n in names if n in ("privgraph", "top-m")]
    if not peers:
        return found
    sys.path.insert(0, str(HERE.parent))
    try:
        module = importlib.import_module("peers")
    except ImportError as error:
        print(f"skipping {', '.join(peers)}: benchmarks/peers.py: {error}", file=sys.stderr)
        return found
    for name, attribute in (("privgraph", "privgraph"), ("top-m", "top_m_filter")):
        if name in peers:
            if hasattr(module, attribute):
                found[name] = getattr(module, attribute)
            else:
                print(f"skipping {name}: peers.py has no {attribute}", file=sys.stderr)
    return found


def measure(A, labels, work, release: Callable, epsilon: float, seed: int) -> dict:
    """One release's metrics."""
    start = time.perf_counter()
    H = release(A, epsilon, seed)
    seconds = time.perf_counter() - start
    H = sp.csr_array(H)
    found = structure(A, H, release_weight=None, communities=labels, seed=0)
    cuts = work.errors(H, release_weight=None)
    row = {key: getattr(found, key) for _, key in METRICS if hasattr(found, key)}
    return row | {
        "seconds": seconds,
        "bisection": cuts["bisection"],
        "between-group": cuts.get("between-group", np.nan),
    }


def cell(values: list[float]) -> str:
    """Mean +- sample sd (just the mean for one value)."""
    values = np.asarray(values, dtype=float)
    if values.size == 1:
        return f"{values[0]:.3g}"
    return f"{values.mean():.3g} ± {values.std(ddof=1):.2g}"


def table(name: str, A, releases: dict, epsilons: list[float], seeds: int) -> None:
    """Print the markdown table of one graph, a line per (epsilon, method)."""
    start = time.perf_counter()
    labels = louvain(A, seed=0)
    work = WorkloadClasses(A, labels, bisections=BISECTIONS, rng=0)
    edges = A.nnz // 2
    truth = work.truth
    print(
        f"\n### {name}: {A.shape[0]:,} nodes, {edges:,} edges, "
        f"{labels.max() + 1} Louvain communities ({time.perf_counter() - start:.1f} s); "
        f"true cut values: bisection mean {truth['bisection'].mean():,.0f}, "
        f"between-community mean {truth.get('between-group', np.zeros(1)).mean():,.1f}\n"
    )
    print("| ε | method | " + " | ".join(title for title, _ in METRICS) + " |")
    print("|" + "---|" * (len(METRICS) + 2))
    for epsilon in epsilons:
        for method, release in releases.items():
            rows = [measure(A, labels, work, release, epsilon, s) for s in range(seeds)]
            cells = [cell([r[key] for r in rows]) for _, key in METRICS]
            print(f"| {epsilon:g} | {method} | " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["wiki-vote", "gnutella", "community"])
    parser.add_argument("--methods", nargs="+", default=["privcut", "privgraph", "top-m"])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="1 seed, ε = 1, community only")
    args = parser.parse_args()
    if args.quick:
        args.graphs, args.epsilons, args.seeds = ["community"], [1.0], 1
    releases = methods(args.methods)
    print(f"command: {' '.join(sys.argv)}")
    for name in args.graphs:
        A = load(name)
        if A is not None:
            table(name, A, releases, args.epsilons, args.seeds)


if __name__ == "__main__":
    main()
