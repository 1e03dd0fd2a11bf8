"""The cut oracle's starts on the issue-20 acceptance stream.

Graph: ``community_graph(1000, 8, 32, seed=1)`` (1,000 nodes, 16,000 edges, 8 planted
groups of 125 with heavy-tailed degrees; the issue's 30-42 departments of ~30 nodes
cannot hold 16,000 edges in this sparse generator, which refuses blocks filled beyond a
quarter). Stream at (1, 1e-6): every group pair (28 between, 8 within), every group
against the rest (8), 500 random bisections. For each of

- the oracle with today's density start (``start="density"``),
- the oracle with the measured start (``start="measured"``, with the public groups, with
  ``groups="private"`` or without groups; with groups also at ``start_share`` 0.5, 0.8),
- the sparse synthetic release ``synthetic_graph(G, 1.0, method="sparse")`` (groups given,
  private or not, as to the oracle), answering the same cuts exactly on its output,

the mean absolute error per query class over ``--runs`` seeded runs, alpha (the oracle's
promise), the updates, and in how many runs the max error stayed within alpha.

Second table: G(200, 0.5), 2,000 random cuts (|S|, |T| uniform in [1, 200]),
``max_edges = C(200, 2)`` public: mean error of each start against per-query discrete
Laplace under basic composition (scale 2 * 2000 / epsilon).

Third table: the potential bounds behind B(alpha), one run per start.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/oracle_stream.py [--runs 20]``.
"""

from __future__ import annotations

import argparse
import math
import warnings

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut import CutOracle, synthetic_graph
from privcut.datasets.generators import community_graph
from privcut.linear import OracleExhaustedWarning

CLASSES = ("group pair", "group vs rest", "bisection")


def stream(n: int, labels: np.ndarray, rng: np.random.Generator):
    """The queries as (S, T) index arrays with their class."""
    g = int(labels.max()) + 1
    members = [np.flatnonzero(labels == a) for a in range(g)]
    queries = [(members[a], members[b], 0) for a in range(g) for b in range(a, g)]
    queries += [(members[a], np.flatnonzero(labels != a), 1) for a in range(g)]
    for _ in range(500):
        order = rng.permutation(n)
        queries.append((order[: n // 2], order[n // 2 :], 2))
    return queries


def matrices(queries, n):
    S = sp.lil_array((len(queries), n))
    T = sp.lil_array((len(queries), n))
    for j, (s, t, _) in enumerate(queries):
        S[j, s], T[j, t] = 1.0, 1.0
    return sp.csr_array(S), sp.csr_array(T)


def exact(A, S, T):
    return np.asarray((S @ A).multiply(T).sum(axis=1)).ravel()


def per_class(errors, kinds):
    return [float(np.mean(errors[kinds == c])) for c in range(len(CLASSES))]


def community_table(runs: int) -> None:
    G = community_graph(1000, 8, 32, seed=1)
    n = G.number_of_nodes()
    A = nx.to_scipy_sparse_array(G, nodelist=range(n), format="csr")
    labels = np.arange(n) * 8 // n
    groups = {node: int(labels[node]) for node in range(n)}
    queries = stream(n, labels, np.random.default_rng(0))
    kinds = np.array([kind for _, _, kind in queries])
    S, T = matrices(queries, n)
    truth = exact(A, S, T)
    print(
        f"\nstream: community_graph(1000, 8, 32), {G.number_of_edges()} edges, "
        f"{len(queries)} queries, (1, 1e-6), {runs} runs"
    )
    print(
        f"{'answerer':<34} {'alpha':>8} {'updates':>8} {'within':>7} "
        + " ".join(f"{c:>14}" for c in CLASSES)
    )
    setups = {
        "oracle, measured + groups, 0.5": {
            "start": "measured",
            "groups": groups,
            "start_share": 0.5,
        },
        "oracle, measured + groups, 0.8": {
            "start": "measured",
            "groups": groups,
            "start_share": 0.8,
        },
        "oracle, density start": {"start": "density"},
        "oracle, measured start": {"start": "measured"},
        "oracle, measured start + groups": {"start": "measured", "groups": groups},
        "oracle, measured + private groups": {"start": "measured", "groups": "private"},
    }
    for name, options in setups.items():
        alphas, updates, within, means = [], [], 0, []
        for seed in range(runs):
            oracle = CutOracle(G, 1.0, 1e-6, max_queries=len(queries), rng=seed, **options)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", OracleExhaustedWarning)
                errors = np.abs(oracle.cuts((S, T)) - truth)
            alphas.append(oracle.alpha)
            updates.append(oracle.updates)
            within += bool(errors.max() <= oracle.alpha)
            means.append(per_class(errors, kinds))
        print(
            f"{name:<34} {np.mean(alphas):>8.0f} {np.mean(updates):>8.1f} {within:>4}/{runs} "
            + " ".join(f"{m:>14.1f}" for m in np.mean(means, axis=0))
        )
    synthetic = (
        ("synthetic sparse", None),
        ("synthetic sparse + groups", groups),
        ("synthetic sparse + private groups", "private"),
    )
    for name, given in synthetic:
        means = []
        for seed in range(runs):
            H = synthetic_graph(G, 1.0, method="sparse", groups=given, rng=seed)
            B = nx.to_scipy_sparse_array(H, nodelist=range(n), format="csr")
            means.append(per_class(np.abs(exact(B, S, T) - truth), kinds))
        print(
            f"{name:<34} {'':>8} {'':>8} {'':>7} "
            + " ".join(f"{m:>14.1f}" for m in np.mean(means, axis=0))
        )


def dense_table(runs: int, k: int = 2000) -> None:
    G = nx.gnp_random_graph(200, 0.5, seed=1)
    n = 200
    A = nx.to_scipy_sparse_array(G, nodelist=range(n), format="csr")
    rng = np.random.default_rng(1)
    queries = [
        (
            rng.choice(n, rng.integers(1, n + 1), replace=False),
            rng.choice(n, rng.integers(1, n + 1), replace=False),
            0,
        )
        for _ in range(k)
    ]
    S, T = matrices(queries, n)
    truth = exact(A, S, T)
    laplace = 2.0 * k / 1.0
    print(
        f"\nG(200, 0.5), {G.number_of_edges()} edges, {k} random cuts, max_edges = "
        f"{math.comb(n, 2)}, (1, 1e-6), {runs} runs; per-query Laplace mean error ~{laplace:.0f}"
    )
    print(f"{'start':<10} {'alpha':>8} {'updates':>8} {'mean err':>9} {'vs Laplace':>11}")
    for start in ("density", "measured"):
        alphas, updates, means = [], [], []
        for seed in range(runs):
            oracle = CutOracle(
                G, 1.0, 1e-6, max_queries=k, max_edges=math.comb(n, 2), start=start, rng=seed
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", OracleExhaustedWarning)
                means.append(float(np.mean(np.abs(oracle.cuts((S, T)) - truth))))
            alphas.append(oracle.alpha)
            updates.append(oracle.updates)
        mean = float(np.mean(means))
        print(
            f"{start:<10} {np.mean(alphas):>8.0f} {np.mean(updates):>8.1f} {mean:>9.1f} "
            f"{laplace / mean:>10.1f}x"
        )


def potential_table() -> None:
    """One run (seed 0) per start on the community graph: the true potential ||A - P||^2
    (dense, for this benchmark only), the public bound the oracle used, the bound without
    the potential's measurement (|E|_upper + sum P^2), B(alpha) and alpha."""
    G = community_graph(1000, 8, 32, seed=1)
    n = G.number_of_nodes()
    A = nx.to_numpy_array(G, nodelist=range(n))
    upper = np.triu_indices(n, 1)
    labels = np.arange(n) * 8 // n
    groups = {node: int(labels[node]) for node in range(n)}
    print("\npotential: community_graph(1000, 8, 32), (1, 1e-6), seed 0")
    print(
        f"{'start':<30} {'true Phi':>9} {'bound used':>10} {'|E|+sum P^2':>11} {'B':>5} "
        f"{'alpha':>7} {'eps online':>10}"
    )
    setups = {
        "density": {"start": "density"},
        "measured": {},
        "measured + groups": {"groups": groups},
        "measured + groups, 0.5": {"groups": groups, "start_share": 0.5},
        "measured + private groups": {"groups": "private"},
    }
    for name, options in setups.items():
        oracle = CutOracle(G, 1.0, 1e-6, max_queries=544, rng=0, **options)
        if oracle.start is None:
            P = np.full((n, n), oracle.edges.estimate / math.comb(n, 2))
            public = float("nan")
        else:
            P = oracle.start.start.matrix()
            public = oracle.edges.upper + oracle.start.start.squares()
        true = float(np.sum((A - P)[upper] ** 2))
        online = oracle._engine.calibration.epsilon
        print(
            f"{name:<30} {true:>9.0f} {oracle.status().potential:>10.0f} {public:>11.0f} "
            f"{oracle.max_updates:>5} {oracle.alpha:>7.0f} {online:>10.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    community_table(args.runs)
    dense_table(args.runs)
    potential_table()


if __name__ == "__main__":
    main()
