"""Issue 18, speed: the default sparse release of two source trees, single releases
alternated between two persistent processes (one per tree), so that a busy machine's drift
falls on both alike.

Each process imports privcut from its tree (``PYTHONPATH``), loads the graphs of
``benchmarks/social.py`` once and warms up with one release; then, per graph, ``--rounds``
rounds each run one release ``synthetic_graph(A, 1, method="sparse", rng=seed)`` (seeds
0-4 in turn) in both processes, the order of the two alternating by round. The table gives
the CPU seconds per release (``time.process_time``, single-threaded with
``OPENBLAS_NUM_THREADS=1``): median (range) per tree and the median of the per-round
ratios base / new.

Run: ``python benchmarks/release_ab.py --base /work/main --new . [--rounds 60] [--graphs
wiki-vote gnutella lfr]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

WORKER = f"""
import sys, time
sys.path.insert(0, {str(HERE)!r})
import social
from privcut import synthetic_graph
graphs = {{}}
for line in sys.stdin:
    name, seed = line.split()
    if name not in graphs:
        graphs[name] = social.load(name)
        synthetic_graph(graphs[name], 1.0, method="sparse", rng=0)
    start = time.process_time()
    synthetic_graph(graphs[name], 1.0, method="sparse", rng=int(seed))
    print(time.process_time() - start, flush=True)
"""


def _worker(tree: str) -> subprocess.Popen:
    root = str(Path(tree).resolve())  # run there too: "-c" puts the working folder first
    env = dict(os.environ, PYTHONPATH=root, OPENBLAS_NUM_THREADS="1")
    command = [sys.executable, "-c", WORKER]
    return subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=root
    )


def _release(worker: subprocess.Popen, name: str, seed: int) -> float:
    worker.stdin.write(f"{name} {seed}\n")
    worker.stdin.flush()
    return float(worker.stdout.readline())


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the baseline tree (e.g. main)")
    parser.add_argument("--new", required=True, help="the tree to compare")
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--graphs", nargs="+", default=["wiki-vote", "gnutella", "lfr"])
    args = parser.parse_args(argv)
    workers = {"base": _worker(args.base), "new": _worker(args.new)}
    print(f"{args.rounds} rounds, epsilon 1; CPU seconds per release, median (range)")
    print()
    print("| graph | base | new | base / new |")
    print("|---|---:|---:|---:|")
    for name in args.graphs:
        times = {label: [] for label in workers}
        for round_ in range(args.rounds):
            order = list(workers) if round_ % 2 == 0 else list(workers)[::-1]
            for label in order:
                times[label].append(_release(workers[label], name, round_ % 5))
        base, new = np.array(times["base"]), np.array(times["new"])
        print(
            f"| {name} | {np.median(base):.3f} ({base.min():.3f}-{base.max():.3f}) | "
            f"{np.median(new):.3f} ({new.min():.3f}-{new.max():.3f}) | "
            f"{np.median(base / new):.2f} |",
            flush=True,
        )
    for worker in workers.values():
        worker.stdin.close()
        worker.wait()


if __name__ == "__main__":
    main(sys.argv[1:])
