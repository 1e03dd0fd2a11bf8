"""Reading and writing edge lists at scale: the columnar reader and writer against the
floor of reading the file's bytes, and against the NetworkX reader they replace.

A generated graph (``community_graph(n, 50, average_degree, as_sparse=True)``) is written
with :func:`write_edge_array` (timed), then read back: the raw bytes (the floor),
:func:`read_edge_array`, and (only at 10^6 edges) :func:`read_edgelist`. Each row runs in
its own subprocess: wall-clock seconds, best of ``--repeat``; then one more run under
``tracemalloc`` for the peak of Python and NumPy allocations during the row ("traced";
pandas' C parser buffers are not traced), and the subprocess's peak resident memory
(VmHWM) after the timed runs, with its value before them (after imports and loading the
input). The written file is read back and checked to give the generated adjacency.

Run: ``python benchmarks/reading.py`` (10^5 nodes, 10^6 edges); ``--large`` adds 10^6
nodes and 10^7 edges.
"""

from __future__ import annotations

import argparse
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.sparse as sp


def peak_mib() -> float:
    """This process's peak resident memory: VmHWM (reset by exec, unlike ``ru_maxrss``,
    which a child inherits from the parent that started it)."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return int(status.split("VmHWM:")[1].split()[0]) / 1024


def run_row(row: str, folder: str, repeat: int) -> None:
    """One row, in this (sub)process: print ``seconds baseline_MiB peak_MiB`` on stdout."""
    from privcut.datasets import read_edge_array, read_edgelist, write_edge_array

    path = Path(folder) / "graph.txt"
    if row == "write":
        with open(Path(folder) / "graph.pickle", "rb") as file:
            adjacency = pickle.load(file)
        nodes = [str(i) for i in range(adjacency.shape[0])]

    def once() -> None:
        if row == "bytes":
            with open(path, "rb") as file:
                while file.read(1 << 25):
                    pass
        elif row == "read_edge_array":
            read_edge_array(path)
        elif row == "read_edgelist":
            read_edgelist(path)
        else:
            write_edge_array(Path(folder) / "written.txt", adjacency, nodes, header=["bench"])

    baseline = peak_mib()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        once()
        best = min(best, time.perf_counter() - start)
    peak = peak_mib()
    tracemalloc.start()
    once()
    traced = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    print(f"{best} {baseline} {peak} {traced}")


def measure(row: str, folder: str, repeat: int) -> tuple[float, ...]:
    done = subprocess.run(
        [sys.executable, __file__, "--row", row, "--folder", folder, "--repeat", str(repeat)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    return tuple(map(float, done.stdout.split()))


def case(n: int, degree: float, repeat: int, networkx: bool) -> None:
    from privcut.datasets import community_graph, read_edge_array, write_edge_array

    adjacency, _ = community_graph(n, 50, degree, seed=0, as_sparse=True)
    edges = adjacency.nnz // 2
    with tempfile.TemporaryDirectory() as folder:
        with open(Path(folder) / "graph.pickle", "wb") as file:
            pickle.dump(adjacency, file)
        nodes = [str(i) for i in range(n)]
        write_edge_array(Path(folder) / "graph.txt", adjacency, nodes, header=["bench"])
        size = (Path(folder) / "graph.txt").stat().st_size
        back = read_edge_array(Path(folder) / "graph.txt")
        order = np.argsort(np.array(nodes, dtype=object))
        assert back.nodes == tuple(np.array(nodes, dtype=object)[order])
        assert (back.adjacency != sp.csr_array(adjacency)[order][:, order]).nnz == 0
        rows = ["bytes", "read_edge_array"] + (["read_edgelist"] if networkx else []) + ["write"]
        print(f"\n{n:,} nodes, {edges:,} edges, file {size / 2**20:.1f} MiB, best of {repeat}")
        print(
            f"{'row':<16} {'seconds':>8} {'x bytes':>8} {'x reader':>8} {'traced MiB':>10} "
            f"{'maxrss MiB':>10} {'(before)':>8}"
        )
        times = {}
        for row in rows:
            seconds, baseline, peak, traced = times[row] = measure(row, folder, repeat)
            print(
                f"{row:<16} {seconds:>8.3f} {seconds / times['bytes'][0]:>8.1f} "
                f"{seconds / times.get('read_edge_array', (seconds,))[0]:>8.2f} "
                f"{traced:>10.0f} {peak:>10.0f} {baseline:>8.0f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="add 10^6 nodes, 10^7 edges")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--row", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.row:
        run_row(arguments.row, arguments.folder, arguments.repeat)
        return
    case(10**5, 20.0, arguments.repeat, networkx=True)
    if arguments.large:
        case(10**6, 20.0, 1, networkx=False)


if __name__ == "__main__":
    main()
