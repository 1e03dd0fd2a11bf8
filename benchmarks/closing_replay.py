"""Issue 18, the triangle-closing swaps of two trees on the same inputs, in one process.

Default sparse releases of wiki-vote (``synthetic_graph(A, eps, method="sparse",
rng=seed)``, run with the tree on ``PYTHONPATH``) record the arguments and generator
state of their ``affinity.closing_swaps`` call; the ``closing_swaps`` of each tree
(``--base`` and ``--new``: ``privcut/graph/affinity.py`` loaded from that tree, the rest
of privcut from ``PYTHONPATH``) is then replayed on every recorded call from the same
state, the trees alternated, ``--repeats`` times, the fastest kept (``time.process_time``;
run with ``OPENBLAS_NUM_THREADS=1``). Per tree: the mean seconds, the mean of ``count /
goal`` (the hub triangles reached over the goal, the count before the assortativity
swaps), how many calls reach the goal, and the eigenvector-centrality MAE of the
original's top 1% (as ``privcut.evaluate.structure``) of the swapped edges plus the fixed
ones. Seconds as a ratio against the base in the same run.

Run: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=<tree> python benchmarks/closing_replay.py --base
/work/main --new . [--graph wiki-vote] [--epsilons 0.5 1 2] [--seeds 3] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh

from privcut import synthetic_graph
from privcut.graph import sparse

sys.path.insert(0, str(Path(__file__).resolve().parent))
import social  # the harness's graphs


def _module(tree: str, name: str):
    """``privcut/graph/affinity.py`` of ``tree`` as a module of its own."""
    path = Path(tree) / "privcut" / "graph" / "affinity.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _recorded(A, epsilon: float, seed: int) -> tuple:
    """The arguments and generator state of the release's closing_swaps call."""
    calls, original = [], sparse.closing_swaps

    def closing(*args, **kwargs):
        calls.append((args, kwargs, args[5].bit_generator.state))
        return original(*args, **kwargs)

    sparse.closing_swaps = closing
    try:
        synthetic_graph(A, epsilon, method="sparse", rng=seed)
    finally:
        sparse.closing_swaps = original
    return calls[0]


def _centrality(rows: np.ndarray, columns: np.ndarray, n: int) -> np.ndarray:
    """The eigenvector centrality of the graph ``(rows, columns)`` as
    ``privcut.evaluate.structure`` computes it (leading eigenvector, unit norm)."""
    every = np.concatenate([rows, columns]), np.concatenate([columns, rows])
    graph = sp.csr_array((np.ones(2 * rows.size), every), shape=(n, n))
    start = np.sqrt(np.diff(graph.indptr)) + 1.0
    vector = eigsh(graph, k=1, which="LA", v0=start, tol=1e-8)[1][:, 0]
    vector = vector * np.sign(vector.sum())
    return vector / np.linalg.norm(vector)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True)
    parser.add_argument("--new", required=True)
    parser.add_argument("--graph", default="wiki-vote")
    parser.add_argument("--epsilons", nargs="+", type=float, default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    trees = {"base": _module(args.base, "base_affinity"), "new": _module(args.new, "new_affinity")}
    A = sp.csr_array(social.load(args.graph), dtype=float)
    n = A.shape[0]
    original = _centrality(*sp.triu(A, 1, format="coo").coords, n)
    top = np.argsort(-original, kind="stable")[: math.ceil(0.01 * n)]
    found = {name: [] for name in trees}
    for epsilon in args.epsilons:
        for seed in range(args.seeds):
            call_args, kwargs, state = _recorded(A, epsilon, seed)
            goal, fixed = call_args[4], call_args[2]
            best, out = dict.fromkeys(trees, np.inf), {}
            for _ in range(args.repeats):
                for name, module in trees.items():
                    rng = np.random.default_rng()
                    rng.bit_generator.state = state
                    start = time.process_time()
                    out[name] = module.closing_swaps(*call_args[:5], rng, *call_args[6:], **kwargs)
                    best[name] = min(best[name], time.process_time() - start)
            for name, (rows, columns, count) in out.items():
                every_rows = np.concatenate([rows, fixed // n])
                every_columns = np.concatenate([columns, fixed % n])
                mae = np.abs(_centrality(every_rows, every_columns, n) - original)[top].mean()
                found[name].append((best[name], count / goal, mae))
    print(f"{args.graph}, ε {args.epsilons}, seeds 0-{args.seeds - 1}, fastest of {args.repeats}")
    print()
    print(
        "| tree | s per call | ratio to base | count / goal | calls at the goal | centrality MAE |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    base_seconds = np.mean([row[0] for row in found["base"]])
    for name, rows in found.items():
        table = np.array(rows)
        print(
            f"| {name} | {table[:, 0].mean():.4f} | {table[:, 0].mean() / base_seconds:.2f} | "
            f"{table[:, 1].mean():.3f} | {(table[:, 1] >= 1).sum()} of {len(table)} | "
            f"{table[:, 2].mean():.4f} |"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
