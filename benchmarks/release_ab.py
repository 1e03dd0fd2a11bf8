"""Issue 18, speed: two source trees' default sparse releases timed alternately, for a
before/after ratio on a shared, loaded machine.

For each graph of ``benchmarks/social.py`` and each of ``--rounds`` rounds, runs one
subprocess per tree in turn (tree A, then tree B, with ``PYTHONPATH`` that tree): it loads
the graph, makes one warm-up release, then times ``--seeds`` releases
``synthetic_graph(A, 1.0, method="sparse", rng=seed)`` (CPU seconds, ``time.process_time``)
and reports their median. A round's two medians are taken back to back, so load from
other processes moves both; the table gives each tree's median over the rounds and the
median over the rounds of the per-round ratio B / A.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/release_ab.py <tree A> <tree B>
[--graphs gnutella lfr] [--rounds 5] [--seeds 5]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import social  # the harness's graphs

HERE = Path(__file__).resolve().parent

WORKER = """
import sys, time
import numpy as np
sys.path.insert(0, {here!r})
import social
from privcut import synthetic_graph
A = social.load({graph!r})
synthetic_graph(A, 1.0, method="sparse", rng=0)
times = []
for seed in range({seeds}):
    start = time.process_time()
    synthetic_graph(A, 1.0, method="sparse", rng=seed)
    times.append(time.process_time() - start)
print(float(np.median(times)))
"""


def median_seconds(tree: str, graph: str, seeds: int) -> float:
    """The median CPU seconds of ``seeds`` releases in a fresh process on ``tree``."""
    code = WORKER.format(here=str(HERE), graph=graph, seeds=seeds)
    env = dict(os.environ, PYTHONPATH=tree, OPENBLAS_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tree, capture_output=True, text=True
    )
    done.check_returncode()
    return float(done.stdout.split()[-1])


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--graphs", nargs="+", default=social.DEFAULT_GRAPHS)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"{args.rounds} rounds of {args.seeds} seeds, epsilon 1; CPU seconds per release")
    print()
    print("| graph | before (median of rounds) | after | after / before (median, range) |")
    print("|---|---:|---:|---:|")
    for graph in args.graphs:
        pairs = np.array(
            [
                [median_seconds(tree, graph, args.seeds) for tree in (args.before, args.after)]
                for _ in range(args.rounds)
            ]
        )
        ratios = pairs[:, 1] / pairs[:, 0]
        before, after = np.median(pairs, axis=0)
        print(
            f"| {graph} | {before:.3f} | {after:.3f} | {np.median(ratios):.2f} "
            f"({ratios.min():.2f}-{ratios.max():.2f}) |"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
