"""Before/after timing of the sparse generator's block-pair draw, in one process.

The "before" generator is privcut/graph/sparse.py at a git revision (default
``637f39f``, before the block pairs were vectorised), loaded as a module and swapped into
``privcut.graph.synthetic.GENERATORS["sparse"]``; "after" is the working tree's. Each cell
is the best of ``--repeats`` releases ``synthetic_graph(A, 1.0, groups=..., method="sparse",
rng=0)`` on ``community_graph(n, groups, 20, seed=0, as_sparse=True)``.

Run: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/sparse_blocks.py``
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from privcut.datasets import community_graph
from privcut.graph import synthetic
from privcut.graph.synthetic import synthetic_graph


def baseline(revision: str):
    """The sparse module at ``revision``, loaded under another name."""
    text = subprocess.run(
        ["git", "show", f"{revision}:privcut/graph/sparse.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "sparse_before.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("sparse_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["sparse_before"] = module
    spec.loader.exec_module(module)
    return module


def timed(A, groups, repeats: int) -> float:
    """The best wall time of ``repeats`` releases."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        synthetic_graph(A, 1.0, groups=groups, method="sparse", rng=0)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--revision", default="637f39f")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    generators = {"before": baseline(args.revision).SparseGenerator}
    generators["after"] = synthetic.GENERATORS["sparse"]
    cells = [(100_000, 500, True), (100_000, 50, True), (100_000, 50, False), (10_000, 50, True)]
    print("| nodes | groups | edges | before (s) | after (s) | speed-up |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n, count, grouped in cells:
        A, labels = community_graph(n, count, 20, seed=0, as_sparse=True)
        groups = dict(enumerate(labels.tolist())) if grouped else None
        seconds = {}
        for name, generator in generators.items():
            synthetic.GENERATORS["sparse"] = generator
            seconds[name] = timed(A, groups, args.repeats)
        synthetic.GENERATORS["sparse"] = generators["after"]
        label = count if grouped else "none"
        print(
            f"| {n:,} | {label} | {A.nnz // 2:,} | {seconds['before']:.2f} | "
            f"{seconds['after']:.2f} | {seconds['before'] / seconds['after']:.1f}x |",
            flush=True,
        )


if __name__ == "__main__":
    main()
