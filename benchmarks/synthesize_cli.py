"""``privcut synthesize`` end to end from a file: the issue-17 case of 10^5 nodes and 10^6
edges (``--large``: 10^6 nodes, 10^7 edges), against reading the same file into a CSR
adjacency with the same columnar reader (the floor: a release must at least read G).

A generated graph (``community_graph(n, 50, average_degree, as_sparse=True)``) is written
with :func:`write_edge_array`. Each row runs as its own process (``python -m privcut.cli
synthesize FILE --epsilon 1 --seed 0 --quiet -o OUT --report R``, and a process that only
calls :func:`read_edge_array`; both times include starting Python and the imports):
wall-clock seconds, best of ``--repeat``, and the peak resident memory of the process
(``ru_maxrss`` of the finished child). The release is read back and checked to hold every
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
READ = "import sys; from privcut.datasets import read_edge_array; read_edge_array(sys.argv[1])"


def timed(command: list[str]) -> tuple[float, float]:
    """Run ``command`` as a child process: (wall-clock seconds, its peak RSS in MiB)."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    process = subprocess.Popen(command, env=environment)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{command} failed with status {status}")
    return seconds, usage.ru_maxrss / 1024


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
        command = [sys.executable, "-m", "privcut.cli", "synthesize", str(graph)]
        command += ["--epsilon", "1", "--seed", "0", "--quiet", "--method", arguments.method]
        command += ["-o", str(output), "--report", str(report)]
        rows = {
            "read_edge_array": [sys.executable, "-c", READ, str(graph)],
            "privcut synthesize": command,
        }
        results = {}
        for name, row in rows.items():
            runs = [timed(row) for _ in range(arguments.repeat)]
            results[name] = (min(s for s, _ in runs), max(m for _, m in runs))
            print(f"  {name:<20} {results[name][0]:7.2f} s  peak {results[name][1]:7.0f} MiB")
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
