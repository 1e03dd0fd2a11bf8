"""Issue 17 acceptance, speed and memory: a sparse release against the floor of reading the
same edge-list file into a CSR adjacency, per graph size.

Rows (each in a fresh subprocess, so its peak resident memory is its own):

- ``wiki-vote``: ``../shared/data/wiki-vote.edges`` (7,115 nodes) read as undirected
  (the file has arcs, some in both directions, which the undirected reader refuses as
  duplicates: it is read directed and symmetrised, ``(A + A.T) > 0``, inside the floor);
  skipped with a message if the file is absent. Limits: <= 2 s, <= 300 MB.
- ``1e5``: ``community_graph(10^5, GROUPS, 20)`` (10^6 edges) written to a temp edge list
  with ``write_edge_array``. Limits: <= 60 s, <= 3 GB.
- ``1e6`` (only with ``--large``): ``community_graph(10^6, GROUPS, 20)`` (10^7 edges).
  Limits: <= 10 min, <= 16 GB.

In each row's process, one step after another:

1. floor: ``read_edge_array(file)`` -> CSR (seconds; peak resident memory of the step);
2. release: ``synthetic_graph(A, 1.0, nodes=..., method="auto", rng=0)`` on that CSR
   (seconds; the step's peak, absolute and its increase over the resident memory when the
   step starts); ratio release / floor seconds (limit 10x);
3. release with public groups (community rows: the planted labels; the groups dict is built
   before the clock starts).

Peak resident memory is the kernel's VmHWM, reset before each step by writing ``5`` to
``/proc/self/clear_refs`` (so each step's peak is its own; the process's peak over all
steps is printed too). The subprocess runs with OPENBLAS_NUM_THREADS, OMP_NUM_THREADS,
MKL_NUM_THREADS = 1 for stable timings on a shared machine.

End to end (``--cli``, on by default; ``--no-cli`` skips it): ``python -m privcut
synthesize FILE --epsilon 1 -o OUT --quiet`` on the 10^6-edge file as a subprocess (wall
seconds and the child's ru_maxrss, measured by an intermediate process that starts
nothing else). ``--cli-timeout`` bounds it (default 900 s).

    python benchmarks/scale.py                 # wiki-vote, 10^5 / 10^6, CLI row
    python benchmarks/scale.py --large         # adds 10^6 nodes / 10^7 edges
    python benchmarks/scale.py --rows wiki-vote --no-cli
    python benchmarks/scale.py --small         # a quick check: 10^4 nodes / 10^5 edges
    python benchmarks/scale.py --repeat 3      # best of 3 runs per step (idle machine)
    python benchmarks/scale.py --profile --no-cli   # also cProfile each row's release
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WIKI = ROOT.parent / "shared" / "data" / "wiki-vote.edges"
if not WIKI.exists():
    WIKI = Path("/work/shared/data/wiki-vote.edges")
MIB = 2**20
LIMITS = {  # row: (nodes, average degree, seconds, MB); MB = 10^6 bytes as the issue says
    "wiki-vote": (7115, None, 2.0, 300.0),
    "1e4": (10**4, 20.0, 60.0, 3000.0),
    "1e5": (10**5, 20.0, 60.0, 3000.0),
    "1e6": (10**6, 20.0, 600.0, 16000.0),
}
RATIO = 10.0
THREADS = {v: "1" for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}


def _status(field: str) -> float:
    """A /proc/self/status memory field in MiB (VmHWM: peak resident, VmRSS: resident)."""
    status = Path("/proc/self/status").read_text()
    return int(status.split(f"{field}:")[1].split()[0]) / 1024


def _reset_peak() -> bool:
    """Reset VmHWM to the current resident size (Linux clear_refs 5); False if refused."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


REPEAT = int(os.environ.get("SCALE_REPEAT", "1"))
"""Runs of each step in a row's process (``--repeat``): best seconds, peak over all runs."""


def _step(function):
    """Run one step REPEAT times: (last result, {best seconds, peak MiB, increase MiB over
    the RSS at its start, whether the peak was reset})."""
    reset = _reset_peak()
    before = _status("VmRSS")
    best = float("inf")
    for _ in range(REPEAT):
        result = None
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    peak = _status("VmHWM")
    return result, {"seconds": best, "peak": peak, "increase": peak - before, "reset": reset}


def profile(path: str, labels_path: str | None, symmetrise: bool) -> None:
    """cProfile of the row's release (with the groups when given): top 25 by own time."""
    import cProfile
    import pstats

    import numpy as np

    from privcut import synthetic_graph
    from privcut.datasets import read_edge_array

    edges = read_edge_array(path, directed=symmetrise)
    A = (
        ((edges.adjacency + edges.adjacency.T) > 0).astype(float).tocsr()
        if symmetrise
        else (edges.adjacency)
    )
    options = {}
    if labels_path is not None:
        labels = np.load(labels_path)
        codes = labels[np.array(edges.nodes, dtype=np.int64)].tolist()
        options["groups"] = dict(zip(edges.nodes, codes, strict=True))
    profiler = cProfile.Profile()
    profiler.enable()
    synthetic_graph(A, 1.0, nodes=edges.nodes, method="auto", rng=0, **options)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=sys.stderr)
    stats.sort_stats("tottime").print_stats(25)


def run_row(path: str, labels_path: str | None, symmetrise: bool) -> dict:
    """One row in this process: the floor, the release, the release with groups."""
    import numpy as np

    from privcut import synthetic_graph
    from privcut.datasets import read_edge_array

    found = {"start": _status("VmHWM")}

    def floor():
        if symmetrise:
            edges = read_edge_array(path, directed=True)
            A = edges.adjacency
            return ((A + A.T) > 0).astype(float).tocsr(), edges.nodes
        edges = read_edge_array(path)
        return edges.adjacency, edges.nodes

    (A, nodes), found["floor"] = _step(floor)
    found["n"], found["edges"] = A.shape[0], A.nnz // 2
    H, found["release"] = _step(lambda: synthetic_graph(A, 1.0, nodes=nodes, method="auto", rng=0))
    found["method"] = H.graph["privcut"]["method"]
    found["released_edges"] = H.nnz // 2
    del H
    if labels_path is not None:
        labels = np.load(labels_path)
        groups = dict(zip(nodes, labels[np.array(nodes, dtype=np.int64)].tolist(), strict=True))
        H, found["groups"] = _step(
            lambda: synthetic_graph(A, 1.0, nodes=nodes, method="auto", groups=groups, rng=0)
        )
        found["groups"]["method"] = H.graph["privcut"]["method"]
        del H
    steps = [found[k] for k in ("floor", "release", "groups") if k in found]
    found["process_peak"] = max(step["peak"] for step in steps)  # ru_maxrss is reset too
    return found


def run_cli(path: str, out: str, timeout: float) -> dict:
    """The CLI as a child of this (fresh, otherwise idle) process: wall seconds, maxrss."""
    command = [sys.executable, "-m", "privcut", "synthesize", path, "--epsilon", "1"]
    command += ["-o", out, "--quiet"]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        code, error = done.returncode, done.stderr.strip()[-300:]
    except subprocess.TimeoutExpired:
        code, error = None, f"timed out after {timeout:g} s"
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"seconds": seconds, "peak": peak, "code": code, "error": error}


def child(arguments: list[str], repeat: int = 1) -> dict:
    """Run this script's ``--child`` mode in a fresh process; its JSON result (a profile's
    statistics, on its stderr, are printed)."""
    env = {**os.environ, **THREADS, "PYTHONPATH": str(ROOT), "SCALE_REPEAT": str(repeat)}
    done = subprocess.run(
        [sys.executable, __file__, "--child", *arguments], capture_output=True, text=True, env=env
    )
    if done.returncode != 0:
        raise RuntimeError(f"child {arguments} failed:\n{done.stderr[-2000:]}")
    if arguments[0] == "profile":
        print(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def write_graph(row: str, folder: Path, groups: int) -> tuple[Path, Path]:
    """Generate the row's community graph; write its edge list and its labels."""
    import numpy as np

    from privcut.datasets import community_graph, write_edge_array

    n, degree = LIMITS[row][:2]
    A, labels = community_graph(n, groups, degree, seed=0, as_sparse=True)
    path, labels_path = folder / f"community-{row}.edges", folder / f"labels-{row}.npy"
    write_edge_array(path, A, [str(i) for i in range(n)], header=[f"bench {row}"])
    np.save(labels_path, np.asarray(labels))
    return path, labels_path


def verdict(value: float, limit: float) -> str:
    return f"{'pass' if value <= limit else 'FAIL'} (<= {limit:g})"


def print_row(row: str, found: dict) -> None:
    _, _, seconds_limit, mb_limit = LIMITS[row]
    floor = found["floor"]
    steps = [("release", found["release"])]
    if "groups" in found:
        steps.append(("release+groups", found["groups"]))
    print(
        f"\n{row}: {found['n']:,} nodes, {found['edges']:,} edges; floor read_edge_array "
        f"{floor['seconds']:.2f} s, peak {floor['peak']:.0f} MiB "
        f"(+{floor['increase']:.0f}); process peak {found['process_peak']:.0f} MiB; "
        f"method {found['method']}"
    )
    print(
        f"{'step':<15} {'seconds':>8} {'peak MiB':>9} {'+MiB':>7} {'x floor':>8}  "
        f"{'time':<16} {'memory':<18} ratio"
    )
    for name, step in steps:
        ratio = step["seconds"] / floor["seconds"]
        megabytes = step["peak"] * MIB / 1e6
        print(
            f"{name:<15} {step['seconds']:>8.2f} {step['peak']:>9.0f} {step['increase']:>7.0f} "
            f"{ratio:>8.1f}  {verdict(step['seconds'], seconds_limit):<16} "
            f"{verdict(megabytes, mb_limit):<18} {verdict(ratio, RATIO)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="add 10^6 nodes / 10^7 edges")
    parser.add_argument("--small", action="store_true", help="quick check: 10^4 nodes only")
    parser.add_argument("--rows", nargs="*", help="row names (wiki-vote 1e4 1e5 1e6)")
    parser.add_argument("--groups", type=int, default=50, help="planted groups (default 50)")
    parser.add_argument("--no-cli", dest="cli", action="store_false", help="skip the CLI row")
    parser.add_argument("--cli-timeout", type=float, default=900.0)
    parser.add_argument("--repeat", type=int, default=1, help="runs per step, best time")
    parser.add_argument("--profile", action="store_true", help="cProfile each row's release")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        mode, *rest = arguments.child
        if mode == "profile":
            path, labels, symmetrise = rest
            profile(path, None if labels == "-" else labels, symmetrise == "1")
            print(json.dumps({}))
            return
        if mode == "row":
            path, labels, symmetrise = rest
            result = run_row(path, None if labels == "-" else labels, symmetrise == "1")
        else:
            result = run_cli(rest[0], rest[1], float(rest[2]))
        print(json.dumps(result))
        return
    rows = arguments.rows or (
        ["1e4"] if arguments.small else ["wiki-vote", "1e5"] + (["1e6"] if arguments.large else [])
    )
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    print(f"children run with {' '.join(f'{k}=1' for k in THREADS)}; MB limits are 10^6 bytes")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        cli_file = None
        for row in rows:
            if row == "wiki-vote":
                if not WIKI.exists():
                    print(f"\nwiki-vote: skipped, {WIKI} is absent")
                    continue
                spec = [str(WIKI), "-", "1"]
            else:
                path, labels = write_graph(row, folder, arguments.groups)
                spec = [str(path), str(labels), "0"]
                if row in ("1e4", "1e5"):
                    cli_file = path
            found = child(["row", *spec], arguments.repeat)
            print_row(row, found)
            if arguments.profile:
                child(["profile", *spec])
            sys.stdout.flush()
        if arguments.cli and cli_file is not None:
            out = folder / "release.edges"
            found = child(["cli", str(cli_file), str(out), str(arguments.cli_timeout)])
            status = "ok" if found["code"] == 0 else f"exit {found['code']}: {found['error']}"
            print(
                f"\nend to end: python -m privcut synthesize {cli_file.name} --epsilon 1 -o OUT "
                f"--quiet: {found['seconds']:.1f} s, child maxrss {found['peak']:.0f} MiB, "
                f"{status}"
            )
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
