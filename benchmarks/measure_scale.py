"""Issue 18 at scale, the measurement side: the kernels of the measurement step (and the
reading before it) of a base tree against this tree's, on one large graph, in one process.

The graph is a scale row of ``benchmarks/social.py`` (``--graph community-1e6``:
``community_graph(10^6, 50, 20, seed=0)``, 10^6 nodes, 10^7 edges). Each kernel gets the
same inputs in both trees (the base tree's module file loaded under another name; what it
imports from privcut comes from this tree):

- ``read``: ``arrays.read_adjacency`` of the graph (the reading and checks);
- ``corners``: ``clustering.projected_corners`` at cap 64, a fixed salt and, as the
  priority, the degrees plus discrete Laplace noise of scale 20 (the release's noisy
  degrees at a small epsilon);
- ``blocks``: ``partition.Partition.block_sums`` of the checked CSR over 300 random groups;
- ``moment``: ``assortativity.clipped_moment`` at cap 64 and centre 20 (the
  ``"assortativity"`` statistic; before it, the joint-degree counts over noisy log classes).

For each: CPU seconds (``time.process_time``, median over ``--repeats``, the trees
alternated), the traced peak memory of one call (``tracemalloc``, which sees NumPy's and
scipy's buffers; the inputs excluded) and whether the outputs are identical.

Run: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/measure_scale.py --base
/work/main [--graph community-1e6] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

from privcut.graph import arrays, assortativity, clustering, partition
from privcut.privacy import Noise

sys.path.insert(0, str(Path(__file__).resolve().parent))
import social  # the harness's graphs
from step_ab import base_module  # a base tree's module beside this one


def _kernels(module: dict, A, checked, noisy: np.ndarray, labels: np.ndarray) -> dict:
    """Each kernel as a call of the given modules' functions on the same inputs."""
    groups = module["partition"].Partition.from_labels(labels, False)
    return {
        "read": lambda: module["arrays"].read_adjacency(A).matrix,
        "corners": lambda: module["clustering"].projected_corners(checked, 64, 12345, noisy),
        "blocks": lambda: groups.block_sums(checked),
        "moment": lambda: module["assortativity"].clipped_moment(checked, 64, 20),
    }


def _same(first, second) -> bool:
    parts = ("data", "indices", "indptr")
    if hasattr(first, "indptr"):
        return all(np.array_equal(getattr(first, p), getattr(second, p)) for p in parts)
    return first.dtype == second.dtype and np.array_equal(first, second)


def _peak(call) -> float:
    """The traced peak MiB of one call above what was allocated before it."""
    tracemalloc.start()
    call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the baseline tree (e.g. main)")
    parser.add_argument("--graph", default="community-1e6")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    names = ("arrays", "clustering", "partition", "assortativity")
    base = {name: base_module(args.base, name) for name in names}
    new = {"arrays": arrays, "clustering": clustering, "partition": partition}
    new["assortativity"] = assortativity
    A = social.load(args.graph)
    checked = arrays.read_adjacency(A).matrix
    rng = np.random.default_rng(0)
    degrees = np.diff(checked.indptr).astype(float)
    noisy = Noise.for_laplace(0.1, 2.0, integer=True).add(degrees, rng=rng).astype(float)
    labels = rng.integers(0, 300, A.shape[0])
    runs = {
        tree: _kernels(modules, A, checked, noisy, labels)
        for tree, modules in (("base", base), ("new", new))
    }
    print(f"{args.graph}: {A.shape[0]:,} nodes, {A.nnz // 2:,} edges")
    print("| kernel | base s | new s | base / new | base peak MiB | new peak MiB | same |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for kernel in runs["base"]:
        seconds = {"base": [], "new": []}
        outputs = {}
        for _ in range(args.repeats):
            for tree in ("base", "new"):
                start = time.process_time()
                outputs[tree] = runs[tree][kernel]()
                seconds[tree].append(time.process_time() - start)
        del outputs["base"]
        peaks = {tree: _peak(runs[tree][kernel]) for tree in ("base", "new")}
        same = _same(runs["base"][kernel](), outputs["new"])
        base_s, new_s = np.median(seconds["base"]), np.median(seconds["new"])
        print(
            f"| {kernel} | {base_s:.3f} | {new_s:.3f} | {base_s / new_s:.2f} | "
            f"{peaks['base']:.0f} | {peaks['new']:.0f} | {same} |",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
