"""``privcut synthesize`` end to end from a file: the issue-17 case of 10^5 nodes and 10^6
edges (``--large``: 10^6 nodes, 10^7 edges), against reading the same file into a CSR
adjacency with the same columnar reader (the floor: a release must at least read G).

A generated graph (``community_graph(n, 50, average_degree, as_sparse=True)``) is written
with :func:`write_edge_array`. Each row runs as its own process (``python -m privcut.cli
synthesize FILE --epsilon 1 --seed 0 --quiet -o OUT --report R``, and a process that only
calls :func:`read_edge_array`), which imports first and then times the call: its
wall-clock seconds, best of ``--repeat``, the whole process's seconds (with Python's start
and the imports), and the process's peak resident memory (``ru_maxrss`` of the finished
child). The release is read back and checked to hold every
node of the input.

Run: ``python benchmarks/synthesize_cli.py`` (10^5 nodes, 10^6 edges); ``--large``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import sys, time
import privcut.graph.sparse
from privcut.cli import main
from privcut.datasets import read_edge_array
start = time.perf_counter()
if sys.argv[1] == "read":
    read_edge_array(sys.argv[2])
else:
    assert main(sys.argv[2:]) == 0
print(time.perf_counter() - start)
"""
"""A row's process: imports first, then the timed call (its seconds on stdout)."""


def timed(arguments: list[str]) -> tuple[float, float, float]:
    """Run a row in a child process: (seconds after the imports, the whole process's
    seconds, its peak RSS in MiB)."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, *arguments], env=environment, stdout=subprocess.PIPE
    )
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    total = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{arguments} failed with status {status}")
    return float(output), total, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="10^6 nodes, 10^7 edges")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--method", default="auto", choices=["auto", "sparse"])
    arguments = parser.parse_args()
    n = 10**6 if arguments.large else 10**5
    sys.path.insert(0, str(ROOT))
    from privcut.datasets import community_graph, read_edge_array, write_edge_array

    with tempfile.TemporaryDirectory() as folder:
        graph, output, report = (Path(folder) / name for name in ("g.txt", "h.txt", "r.json"))
        adjacency, _ = community_graph(n, 50, 20, seed=0, as_sparse=True)
        write_edge_array(graph, adjacency, [str(i) for i in range(n)])
        edges = adjacency.nnz // 2
        size = graph.stat().st_size / 2**20
        print(f"{n} nodes, {edges} edges, file {size:.0f} MiB; best of {arguments.repeat}")
        command = ["synthesize", str(graph), "--epsilon", "1", "--seed", "0", "--quiet"]
        command += ["--method", arguments.method, "-o", str(output), "--report", str(report)]
        rows = {"read_edge_array": ["read", str(graph)], "privcut synthesize": ["cli", *command]}
        results = {}
        print(f"  {'row':<20} {'seconds':>8} {'process':>8} {'peak MiB':>9}")
        for name, row in rows.items():
            runs = [timed(row) for _ in range(arguments.repeat)]
            results[name] = [min(run[k] for run in runs) for k in range(2)]
            results[name].append(max(run[2] for run in runs))
            seconds, process, peak = results[name]
            print(f"  {name:<20} {seconds:8.2f} {process:8.2f} {peak:9.0f}")
        released = json.loads(report.read_text())
        back = read_edge_array(output)
        assert len(back.nodes) == n and back.adjacency.nnz // 2 == released["edge_count"]
        ratio = results["privcut synthesize"][0] / results["read_edge_array"][0]
        print(
            f"  release / read: {ratio:.1f}x; method {released['method']}, "
            f"{released['edge_count']:.0f} edges released"
        )


if __name__ == "__main__":
    main()
