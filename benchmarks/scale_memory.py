"""Issue 18 (memory): the peak resident memory of one default release, by step, and the
attempt at 10^7 nodes.

One process: ``community_graph(N, 50, 20, seed=0, as_sparse=True)`` (O(n + |E|) memory),
its CSR indices narrowed to int32 (what ``read_edge_array`` gives), the generator's
temporaries freed; then ``synthetic_graph(A, 1.0, method="auto", rng=0)`` (the default
release, no groups) with a thread that reads VmRSS every 20 ms and keeps, per step (the
release's privcut frames 3 to 5 deep), the largest resident size seen, and the stack at
the overall peak. With ``--limit GIB`` the process stops itself (exit 3) when the resident
size passes the limit, after printing how far the release got (the step and the peak so
far). Absolute MiB; the input's share is printed before the release.

    python benchmarks/scale_memory.py --nodes 1e6
    python benchmarks/scale_memory.py --nodes 1e7 --limit 18
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import threading
import time
import traceback
from pathlib import Path


def rss() -> float:
    """Resident MiB of this process."""
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=float, default=1e6)
    parser.add_argument("--limit", type=float, default=None, help="GiB: stop past it")
    parser.add_argument("--steps", type=int, default=25, help="steps listed")
    arguments = parser.parse_args()
    import numpy as np

    from privcut import synthetic_graph
    from privcut.datasets import community_graph

    n = int(arguments.nodes)
    start = time.perf_counter()
    A, labels = community_graph(n, 50, 20, seed=0, as_sparse=True)
    del labels
    A.indices = A.indices.astype(np.int32)
    A.indptr = A.indptr.astype(np.int32 if A.nnz < 2**31 else np.int64)
    made = time.perf_counter() - start
    base = rss()
    print(
        f"n={n:,}: {A.nnz // 2:,} edges drawn in {made:.0f} s; "
        f"resident {base:.0f} MiB with the input"
    )
    sys.stdout.flush()
    main_id = threading.main_thread().ident
    per: dict[str, float] = collections.defaultdict(float)
    peak: list = [0.0, [], ""]
    done = threading.Event()
    limit = None if arguments.limit is None else arguments.limit * 1024

    def sample() -> None:
        while not done.is_set():
            resident = rss()
            frame = sys._current_frames().get(main_id)
            stack = [] if frame is None else traceback.extract_stack(frame)
            names = [
                f"{Path(f.filename).name}:{f.lineno} {f.name}"
                for f in stack
                if "privcut" in f.filename
            ]
            key = " > ".join(name.split(" ")[1] for name in names[2:5])
            per[key] = max(per[key], resident)
            if resident > peak[0]:
                peak[:] = [resident, names, key]
            if limit is not None and resident > limit:
                report(f"STOPPED: resident {resident:.0f} MiB passed the limit {limit:.0f} MiB")
                sys.stdout.flush()
                os._exit(3)
            time.sleep(0.02)

    def report(head: str) -> None:
        print(head)
        print(f"peak resident {peak[0]:.0f} MiB (+{peak[0] - base:.0f} over the input), at:")
        for name in peak[1]:
            print(f"    {name}")
        print(f"{'MiB':>8} {'+MiB':>7}  step (largest resident size seen in it)")
        for key, value in sorted(per.items(), key=lambda kv: -kv[1])[: arguments.steps]:
            print(f"{value:8.0f} {value - base:+7.0f}  {key}")

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    start = time.perf_counter()
    H = synthetic_graph(A, 1.0, method="auto", rng=0)
    seconds = time.perf_counter() - start
    done.set()
    thread.join()
    report(f"release: {seconds:.1f} s, {H.nnz // 2:,} edges released")


if __name__ == "__main__":
    main()
