"""Issue 18 (memory): which arrays make the peak of one default release, by tracemalloc.

``community_graph(N, 50, 20, seed=0, as_sparse=True)`` (int64 CSR indices, as drawn) is
made before tracing starts, so the traced sizes are the release's own allocations (NumPy
reports its arrays' data to tracemalloc). A thread polls the traced size every 5 ms and
takes a snapshot at each new maximum (1% and 1 MiB above the last); printed: the true
traced peak, the stack at the largest snapshot, that snapshot's allocations of 64 KiB or
more grouped by their innermost three privcut lines (MiB, count), and the largest traced
size seen per step (privcut frames 3 to 5 deep). Tracing slows the release 2-3x.

    python benchmarks/memory_traced.py --nodes 1e5
    python benchmarks/memory_traced.py --nodes 1e6      # ~1 min, ~2 GB
"""

from __future__ import annotations

import argparse
import collections
import sys
import threading
import time
import traceback
import tracemalloc
from pathlib import Path

MIB = 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=float, default=1e5)
    parser.add_argument("--rows", type=int, default=25, help="rows of either table")
    arguments = parser.parse_args()
    from privcut import synthetic_graph
    from privcut.datasets import community_graph

    n = int(arguments.nodes)
    A, _ = community_graph(n, 50, 20, seed=0, as_sparse=True)
    main_id = threading.main_thread().ident
    tracemalloc.start(12)
    best: list = [0, [], None]
    per: dict[str, int] = collections.defaultdict(int)
    done = threading.Event()

    def stack() -> list[str]:
        frame = sys._current_frames()[main_id]
        return [
            f"{Path(f.filename).name}:{f.lineno} {f.name}"
            for f in traceback.extract_stack(frame)
            if "privcut" in f.filename
        ]

    def sample() -> None:
        while not done.is_set():
            current = tracemalloc.get_traced_memory()[0]
            names = stack()
            key = " > ".join(name.split(" ")[1] for name in names[2:5])
            per[key] = max(per[key], current)
            if current > best[0] * 1.01 + MIB:
                best[:] = [current, names, tracemalloc.take_snapshot()]
            time.sleep(0.005)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    start = time.perf_counter()
    synthetic_graph(A, 1.0, method="auto", rng=0)
    seconds = time.perf_counter() - start
    done.set()
    thread.join()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(
        f"n={n:,}: release {seconds:.1f} s traced; traced peak {peak / MIB:.0f} MiB; "
        f"largest snapshot {best[0] / MIB:.0f} MiB, taken in:"
    )
    for name in best[1]:
        print(f"    {name}")
    groups: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    small = 0
    for trace in best[2].traces:
        if trace.size < 1 << 16:
            small += trace.size
            continue
        frames = list(trace.traceback)[::-1]  # innermost first
        inner = [f for f in frames if "privcut" in f.filename]
        where = inner[:3] or frames[:1]
        key = " < ".join(f"{Path(f.filename).name}:{f.lineno}" for f in where)
        groups[key][0] += trace.size
        groups[key][1] += 1
    groups["(allocations below 64 KiB)"] = [small, 0]
    print(f"{'MiB':>8} {'count':>6}  allocated at (innermost privcut lines first)")
    for key, (size, count) in sorted(groups.items(), key=lambda kv: -kv[1][0])[: arguments.rows]:
        print(f"{size / MIB:8.1f} {count:6d}  {key}")
    print("largest traced MiB per step (privcut frames 3-5):")
    for key, value in sorted(per.items(), key=lambda kv: -kv[1])[: arguments.rows]:
        print(f"{value / MIB:8.0f}  {key}")


if __name__ == "__main__":
    main()
