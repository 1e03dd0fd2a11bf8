"""Issue 18, speed: the release pipeline's fixed overheads around the numeric kernels.

For each graph of ``benchmarks/social.py`` (default wiki-vote, gnutella, LFR 5k), one
cProfile run over ``--seeds`` default sparse releases (``synthetic_graph(A, 1.0,
method="sparse", rng=seed)``, no groups) after one warm-up release; prints, per release,
how many times each pipeline function ran and its cumulative seconds (profiling adds a
per-call overhead: compare trees run back to back, not with unprofiled timings). The
functions: reading G (``read_adjacency``, ``EdgeUniverse.read`` and ``.of``,
``communities.read_graph``), planning (``plan_measurements``, ``plan_for``), the
partitions (``Partition.of``, ``stand_in_groups``), the decision (``decide_groups``,
``decision_budget``), the output (``SparseRelease.array``, ``edge_array``), the report
and bounds, and for scale ``measure`` and the whole ``synthetic_graph``. A function a tree
does not have shows 0 calls.

Run: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=<tree> python benchmarks/pipeline_overheads.py
[--graphs gnutella lfr] [--seeds 10]``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from pathlib import Path

from privcut import synthetic_graph

sys.path.insert(0, str(Path(__file__).resolve().parent))
import social  # the harness's graphs

FUNCTIONS = (
    ("arrays.py", "read_adjacency"),
    ("universe.py", "read"),
    ("universe.py", "of"),
    ("communities.py", "read_graph"),
    ("planning.py", "plan_measurements"),
    ("planning.py", "plan_for"),
    ("partition.py", "of"),
    ("private_groups.py", "stand_in_groups"),
    ("private_groups.py", "decide_groups"),
    ("private_groups.py", "decision_budget"),
    ("sparse.py", "array"),
    ("arrays.py", "edge_array"),
    ("report.py", "of"),
    ("bounds.py", "release_bounds"),
    ("measurement.py", "measure"),
    ("synthetic.py", "synthetic_graph"),
)


def profile(A, seeds: int) -> dict[str, tuple[float, float]]:
    """Calls and cumulative seconds per release of each function in :data:`FUNCTIONS`."""
    synthetic_graph(A, 1.0, method="sparse", rng=0)  # warm caches and imports
    profiler = cProfile.Profile()
    profiler.enable()
    for seed in range(seeds):
        synthetic_graph(A, 1.0, method="sparse", rng=seed)
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    found = {}
    for suffix, name in FUNCTIONS:
        calls = seconds = 0.0
        for (path, _, function), (_, primitive, _, cumulative, _) in stats.items():
            if path.endswith(suffix) and function == name:
                calls, seconds = calls + primitive, seconds + cumulative
        found[f"{suffix[:-3]}.{name}"] = (calls / seeds, seconds / seeds)
    return found


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=social.DEFAULT_GRAPHS)
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args(argv)
    found = {}
    for name in args.graphs:
        A = social.load(name)
        if A is not None:
            found[name] = profile(A, args.seeds)
    print(f"{args.seeds} seeds, epsilon 1; per release: calls, cumulative ms (cProfile)")
    print()
    print("| function | " + " | ".join(found) + " |")
    print("|---|" + "---:|" * len(found))
    for function in next(iter(found.values()), {}):
        cells = " | ".join(
            f"{found[name][function][0]:g}x {1e3 * found[name][function][1]:.2f}" for name in found
        )
        print(f"| {function} | {cells} |")


if __name__ == "__main__":
    main(sys.argv[1:])
