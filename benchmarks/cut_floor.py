"""Issue 18: the floor under the cut errors of ``benchmarks/social.py``.

For a uniformly random balanced bisection (x_i = +-1 the side of node i), the cut of a graph
with edge set E is ``|E| / 2 - (1/2) sum_{ij in E} x_i x_j``, so a release with edge set
E' errs on it by ``(|E'| - |E|) / 2 - (1/2) sum_{ij in E' xor E} +-x_i x_j``: a sum over the
symmetric difference only, whose terms are uncorrelated up to O(1/n) (the balance
constraint), whatever the degrees, clustering or communities. Its mean absolute value is
``E|N(mu, sigma^2)|`` with ``mu = (|E'| - |E|) / 2`` and ``sigma^2 = |E' xor E| / 4``:
at most about ``sqrt(|E| / pi)`` for a release of the right size that shares no edge with
G, and lower only through the edges it shares. This script measures, per graph, epsilon
and method, the harness's bisection error (the same 200 bisections, ``WorkloadClasses``
with ``rng=0``) next to that prediction, the share of G's edges the release keeps, and the
between-community error (the cuts between every two of G's Louvain communities); then the
difference of privcut's mean from the better peer's with a 95% Welch interval over the
seeds (the seeds of two methods are independent releases).

Methods: ``privcut`` (``synthetic_graph(A, eps, method="sparse", rng=seed)``, the harness's
default release), ``top-m`` and ``privgraph`` (``benchmarks/peers.py``). Graphs and their
loading are ``benchmarks/social.py``'s.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/cut_floor.py [--graphs wiki-vote gnutella
lfr] [--epsilons 0.5 1 2] [--seeds 10] [--jobs 2]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy import stats

from privcut import synthetic_graph

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # the re-implemented peers
import social  # the harness's graphs and evaluation state

METHODS = {
    "privcut": lambda A, e, s: synthetic_graph(A, e, method="sparse", rng=s),
    "top-m": lambda A, e, s: peers.top_m_filter(A, e, s),
    "privgraph": lambda A, e, s: peers.privgraph(A, e, s),
}
STATE: dict[str, tuple] = {}  # graph name -> (A, upper keys, labels, work); set before fork


def predicted(m: int, released: int, differ: int) -> float:
    """``E|N(mu, sigma^2)|`` for ``mu = (released - m) / 2``, ``sigma^2 = differ / 4``."""
    mu, sigma = (released - m) / 2.0, np.sqrt(differ) / 2.0
    if sigma == 0:
        return abs(mu)
    return float(
        sigma * np.sqrt(2 / np.pi) * np.exp(-(mu**2) / (2 * sigma**2))
        + mu * (1 - 2 * stats.norm.cdf(-mu / sigma))
    )


def upper_keys(A: sp.csr_array) -> np.ndarray:
    """The sorted keys ``i n + j`` (i < j) of an undirected graph's edges."""
    upper = sp.triu(sp.csr_array(A), 1).tocoo()
    return np.sort(upper.row.astype(np.int64) * A.shape[0] + upper.col)


def modularity(keys: np.ndarray, n: int, labels: np.ndarray) -> float:
    """Newman's modularity of ``labels`` on the graph of the upper keys ``i n + j``:
    the sum over communities of ``inside / m - (volume / 2 m)^2``."""
    first, second = labels[keys // n], labels[keys % n]
    k = int(labels.max()) + 1
    inside = np.bincount(first[first == second], minlength=k)
    volume = np.bincount(first, minlength=k) + np.bincount(second, minlength=k)
    m = keys.size
    return float(np.sum(inside / m - (volume / (2 * m)) ** 2))


def run_cell(task: tuple[str, float, int]) -> tuple[str, float, int, dict]:
    """Every method's cut errors, prediction and kept edges on one (graph, eps, seed)."""
    name, epsilon, seed = task
    A, keys, labels, work = STATE[name]
    n, truth = A.shape[0], modularity(keys, A.shape[0], labels)
    rows = {}
    for method, release in METHODS.items():
        H = sp.csr_array(release(A, epsilon, seed))
        found = upper_keys(H)
        kept = np.isin(found, keys, assume_unique=True)
        shared = int(kept.sum())
        errors = work.errors(H, release_weight=None)
        rows[method] = {
            "bisection": errors["bisection"],
            "floor": predicted(keys.size, found.size, keys.size + found.size - 2 * shared),
            "kept": shared / keys.size,
            "between": errors["between-group"],
            "modularity": abs(modularity(found, n, labels) - truth) / abs(truth),
            "modularity without": abs(modularity(found[~kept], n, labels) - truth) / abs(truth),
        }
    return name, epsilon, seed, rows


def interval(a: list[float], b: list[float]) -> tuple[float, float, float]:
    """``mean(a) - mean(b)`` and its 95% Welch interval."""
    a, b = np.asarray(a), np.asarray(b)
    diff = a.mean() - b.mean()
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    dof = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    half = stats.t.ppf(0.975, dof) * np.sqrt(va + vb)
    return diff, diff - half, diff + half


def report(name: str, results: dict, epsilons: list[float]) -> None:
    """One graph's table and its differences."""
    A, keys, _, _ = STATE[name]
    m = keys.size
    print(
        f"\n### {name}: {A.shape[0]:,} nodes, {m:,} edges; sqrt(|E| / pi) = "
        f"{np.sqrt(m / np.pi):.1f}\n"
    )
    print(
        "| ε | method | bisection error | predicted from E xor E' | measured / predicted "
        "| G's edges kept | between-community error | modularity RE | modularity RE "
        "without the kept edges |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for epsilon in epsilons:
        for method in METHODS:
            rows = results[(name, epsilon)][method]
            col = {k: np.array([r[k] for r in rows]) for k in rows[0]}
            print(
                f"| {epsilon:g} | {method} | {col['bisection'].mean():.1f} ± "
                f"{col['bisection'].std(ddof=1):.1f} | {col['floor'].mean():.1f} | "
                f"{(col['bisection'] / col['floor']).mean():.3f} | {col['kept'].mean():.4f} | "
                f"{col['between'].mean():.3f} ± {col['between'].std(ddof=1):.3f} | "
                f"{col['modularity'].mean():.4f} | {col['modularity without'].mean():.4f} |"
            )
    print("\nprivcut - better peer, 95% Welch interval over the seeds (negative: privcut lower):\n")
    for epsilon in epsilons:
        cell = results[(name, epsilon)]
        parts = []
        for key, label in (
            ("bisection", "bisection"),
            ("between", "between-community"),
            ("modularity", "modularity RE"),
        ):
            means = {p: np.mean([r[key] for r in cell[p]]) for p in ("top-m", "privgraph")}
            peer = min(means, key=means.get)
            diff, low, high = interval(
                [r[key] for r in cell["privcut"]], [r[key] for r in cell[peer]]
            )
            parts.append(f"{label} vs {peer} {diff:+.3g} [{low:+.3g}, {high:+.3g}]")
        print(f"- ε = {epsilon:g}: " + "; ".join(parts))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", nargs="+", default=social.DEFAULT_GRAPHS)
    parser.add_argument("--epsilons", nargs="+", type=float, default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    print("command: benchmarks/cut_floor.py " + " ".join(sys.argv[1:]))
    for name in args.graphs:
        A = social.load(name)
        if A is None:
            print(f"skipping {name}: its file is absent", file=sys.stderr)
            continue
        _, labels, work = social.prepare(A)
        STATE[name] = (A, upper_keys(A), labels, work)
    tasks = [(g, e, s) for s in range(args.seeds) for g in STATE for e in args.epsilons]
    results: dict = {}
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        for name, epsilon, _seed, rows in pool.imap_unordered(run_cell, tasks):
            for method, row in rows.items():
                results.setdefault((name, epsilon), {}).setdefault(method, []).append(row)
    for name in STATE:
        report(name, results, args.epsilons)


if __name__ == "__main__":
    main()
