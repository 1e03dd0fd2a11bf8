"""Issue 19: the sparse release on Dask (distributed generation) against the in-memory
sparse release, one run.

A heavy-tailed community graph (``community_graph(n, groups, 2 m / n, seed=0,
as_sparse=True)``: n nodes, m edges, ``--groups`` public groups) is written as a Parquet
edge table (int64 columns u, v; ``--partitions`` files). Then, each in a fresh process
(spawned, so each peak RSS is its own):

- **in memory**: ``pandas.read_parquet`` -> the CSR adjacency -> ``synthetic_graph(A, eps,
  method="sparse", groups=..., rng=seed)``;
- **dask**: a ``distributed.LocalCluster(n_workers=--workers, threads_per_worker=1,
  processes=True)`` started in that process (the client and the scheduler), then
  ``synthetic_edges(dd.read_parquet(...), n, eps, groups=..., rng=seed)`` and the result
  written with ``to_parquet``. Timed in two parts: the distributed pass
  (``aggregate_edges``: the checks, the edge count, degrees and block counts, the
  duplicate shuffle) and the release (``synthetic_from_aggregates``: noise and fit in
  the client, the configuration model on the workers -- per-range deal, a shuffle to the
  targets, a shuffle on the pair key, the edges persisted -- the refused stubs finished
  in the client, the released degrees tallied) plus the write. The workers import
  privcut before the clock starts (as on a running cluster). Peak RSS of each worker process
  (``resource.getrusage`` in the worker, via ``Client.run``) and of the client process.

Both use the same seed, so the same noise and integer counts (checked: the released
edge counts are equal); the generation's draws differ (per-task streams on Dask). Time
and peak memory per process, with ratios against the in-memory release.

    OPENBLAS_NUM_THREADS=1 python benchmarks/dask_release.py --nodes 1000000 --edges 10000000
"""

from __future__ import annotations

import argparse
import importlib
import logging
import math
import multiprocessing
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def _peak_mb() -> float:
    """This process's peak resident set size in MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def write_graph(folder: Path, n: int, m: int, groups: int, partitions: int) -> int:
    """The benchmark graph as ``partitions`` Parquet files; returns its edge count."""
    from privcut.datasets import community_graph

    A, _ = community_graph(n, groups, 2.0 * m / n, seed=0, as_sparse=True)
    upper = A.tocoo()
    keep = upper.row < upper.col
    u, v = upper.row[keep].astype(np.int64), upper.col[keep].astype(np.int64)
    order = np.random.default_rng(0).permutation(u.size)  # edges in no particular order
    u, v = u[order], v[order]
    folder.mkdir()
    for k, part in enumerate(np.array_split(np.arange(u.size), partitions)):
        pd.DataFrame({"u": u[part], "v": v[part]}).to_parquet(folder / f"part.{k:04d}.parquet")
    return int(u.size)


def in_memory(folder: str, n: int, groups: int, epsilon: float, seed: int, queue) -> None:
    """The in-memory sparse release (its own process)."""
    import scipy.sparse as sp

    from privcut.graph.synthetic import synthetic_graph

    start = time.perf_counter()
    table = pd.read_parquet(folder)
    u, v = table["u"].to_numpy(), table["v"].to_numpy()
    del table
    A = sp.csr_array(
        (np.ones(2 * u.size), (np.concatenate([u, v]), np.concatenate([v, u]))), shape=(n, n)
    )
    del u, v
    read = time.perf_counter() - start
    labels = {i: i * groups // n for i in range(n)}
    start = time.perf_counter()
    H = synthetic_graph(A, epsilon, method="sparse", groups=labels, rng=seed)
    release = time.perf_counter() - start
    count = H.graph["privcut"]["edge_count"]
    queue.put({"read": read, "release": release, "client": _peak_mb(), "edges": count})


def on_dask(
    folder: str, out: str, n: int, groups: int, epsilon: float, seed: int, workers: int, queue
):
    """The Dask release on a local cluster started here (its own process)."""
    import dask.dataframe as dd
    import distributed

    from privcut.graph.dask import aggregate_edges, synthetic_from_aggregates

    labels = [i * groups // n for i in range(n)]
    with (
        distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.run(importlib.import_module, "privcut.graph.dask")  # warm workers (imports)
        start = time.perf_counter()
        edges = dd.read_parquet(folder, columns=["u", "v"])
        aggregates = aggregate_edges(edges, n, groups=labels)
        aggregate = time.perf_counter() - start
        after_pass = _peak_mb()
        steps = []  # the release's logged split (privcut logs it at DEBUG, never releases it)
        handler = logging.Handler(logging.DEBUG)
        handler.emit = lambda record: steps.append(getattr(record, "timings", {}))
        logger = logging.getLogger("privcut")
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        start = time.perf_counter()
        released, report = synthetic_from_aggregates(aggregates, epsilon, rng=seed)
        release = time.perf_counter() - start
        logger.removeHandler(handler)
        start = time.perf_counter()
        released.to_parquet(out, write_index=False)
        write = time.perf_counter() - start
        peaks = client.run(_peak_mb)
    queue.put(
        {
            "aggregate": aggregate,
            "release": release,
            "write": write,
            "client": _peak_mb(),
            "client_after_pass": after_pass,
            "workers": sorted(peaks.values()),
            "partitions": edges.npartitions,
            "outputs": released.npartitions,
            "steps": steps[-1] if steps else {},
            "edges": report.edge_count,
        }
    )


def _run(target, *args) -> dict:
    """``target(*args, queue)`` in a fresh spawned process; its result."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=target, args=(*args, queue))
    process.start()
    result = queue.get()
    process.join()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=10**6)
    parser.add_argument("--edges", type=int, default=10**7)
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--partitions", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    n = arguments.nodes
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "edges"
        start = time.perf_counter()
        m = write_graph(folder, n, arguments.edges, arguments.groups, arguments.partitions)
        print(
            f"graph: {n} nodes, {m} edges, {arguments.groups} groups, written in "
            f"{time.perf_counter() - start:.1f} s as {arguments.partitions} Parquet files"
        )
        common = (n, arguments.groups, arguments.epsilon, arguments.seed)
        memory = _run(in_memory, str(folder), *common)
        out = str(Path(scratch) / "released")
        dask = _run(on_dask, str(folder), out, *common, arguments.workers)
    assert memory["edges"] == dask["edges"], (memory["edges"], dask["edges"])
    memory_total = memory["read"] + memory["release"]
    dask_total = dask["aggregate"] + dask["release"] + dask["write"]
    print(
        f"released {dask['edges']:.0f} edges on both (seed {arguments.seed}: the same noise "
        f"and counts); dask input partitions: {dask['partitions']}, output partitions: "
        f"{dask['outputs']}"
    )
    print()
    print("| run | step | seconds | vs in memory |")
    print("|---|---|---:|---:|")
    print(f"| in memory | read Parquet + CSR | {memory['read']:.1f} | |")
    print(f"| in memory | release (sparse) | {memory['release']:.1f} | |")
    print(f"| in memory | total | {memory_total:.1f} | 1.00 |")
    print(
        f"| dask | distributed pass (checks, aggregates, duplicate shuffle) | "
        f"{dask['aggregate']:.1f} | |"
    )
    print(
        f"| dask | release: noise, fit (client), generation (workers), report | "
        f"{dask['release']:.1f} | |"
    )
    names = {
        "plan": "  client: quotas and streams",
        "workers": "  workers: deal, join, first copies (2 shuffles)",
        "client": "  client: refused stubs rejoined, swapped, completed",
        "tally": "  workers: released degrees and block counts",
    }
    for step, name in names.items():
        if step in dask["steps"]:
            print(f"| dask | {name} | {dask['steps'][step]:.1f} | |")
    print(f"| dask | write Parquet | {dask['write']:.1f} | |")
    print(f"| dask | total | {dask_total:.1f} | {dask_total / memory_total:.2f} |")
    print()
    print("| process | peak RSS (MB) | vs in memory |")
    print("|---|---:|---:|")
    print(f"| in memory | {memory['client']:.0f} | 1.00 |")
    print(
        f"| dask client (+ scheduler) | {dask['client']:.0f} | "
        f"{dask['client'] / memory['client']:.2f} |"
    )
    for k, peak in enumerate(dask["workers"]):
        print(f"| dask worker {k + 1} | {peak:.0f} | {peak / memory['client']:.2f} |")
    per = m / dask["partitions"]
    released = dask["edges"] / dask["outputs"]
    stub_bytes = 8 + 1 + 8  # target, side, node
    pair_bytes = 5 * 8  # row, column, block, key, order
    print()
    print(
        f"per input partition: {per:.0f} edges ({per * 16 / 1e6:.0f} MB of u, v); "
        f"distributed pass {dask['aggregate'] / m * 1e6:.2f} s per 10^6 edges on "
        f"{arguments.workers} workers; shuffle {8 * m / 1e6:.0f} MB (8 bytes an edge)"
    )
    refused = dask["steps"].get("refused", 0)
    print(
        f"pairs refused by the first round (finished in the client): {refused:.0f}; "
        f"client peak after the distributed pass {dask['client_after_pass']:.0f} MB"
    )
    print(
        f"per output partition: {released:.0f} released edges; release "
        f"{dask['release'] / dask['edges'] * 1e6:.2f} s per 10^6 released edges on "
        f"{arguments.workers} workers; generation shuffles "
        f"{(2 * stub_bytes + pair_bytes) * dask['edges'] / 1e6:.0f} MB "
        f"({2 * stub_bytes} bytes of stubs + {pair_bytes} of pairs a released edge, by dtype)"
    )
    assert math.isfinite(dask_total)


if __name__ == "__main__":
    main()
