"""Reading and writing edge lists at scale: the columnar reader and writer against the
floor of reading the file's bytes, and against the NetworkX reader they replace.

A generated graph (``community_graph(n, 50, average_degree, as_sparse=True)``) is written
with :func:`write_edge_array` (timed), then read back: the raw bytes (the floor),
:func:`read_edge_array`, and (only at 10^6 edges) :func:`read_edgelist`. Each row runs in
its own subprocess, so its peak memory (``ru_maxrss``, minus the subprocess's baseline
after imports and after loading its input) is its own; times are wall-clock seconds in
that subprocess, best of ``--repeat``. The written file is read back and checked to give
the generated adjacency.

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
from pathlib import Path

import numpy as np
import scipy.sparse as sp


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_row(row: str, folder: str, repeat: int) -> None:
    """One row, in this (sub)process: print ``seconds baseline_MiB peak_MiB`` on stdout."""
    from privcut.datasets import read_edge_array, read_edgelist, write_edge_array

    path = Path(folder) / "graph.txt"
    if row == "write":
        with open(Path(folder) / "graph.pickle", "rb") as file:
            adjacency = pickle.load(file)
        nodes = [str(i) for i in range(adjacency.shape[0])]
    baseline = peak_mib()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
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
        best = min(best, time.perf_counter() - start)
    print(f"{best} {baseline} {peak_mib()}")


def measure(row: str, folder: str, repeat: int) -> tuple[float, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--row", row, "--folder", folder, "--repeat", str(repeat)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    seconds, baseline, peak = map(float, done.stdout.split())
    return seconds, peak - baseline


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
        print(f"{'row':<18} {'seconds':>8} {'x floor':>8} {'peak MiB':>9}")
        floor = None
        for row in rows:
            seconds, peak = measure(row, folder, repeat)
            floor = floor or seconds
            print(f"{row:<18} {seconds:>8.2f} {seconds / floor:>8.1f} {peak:>9.0f}")


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
