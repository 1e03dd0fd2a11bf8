"""Issue 18: the degree-assortativity swaps (``assortativity.assortative_swaps``) of a base
tree against this tree's, in one process on the same inputs: how close to the target, in
how many passes and how much CPU time, and what they leave to the closing swaps.

Releases. The calls of ``assortative_swaps`` made during ``--seeds`` default sparse
releases (``synthetic_graph(A, 1, method="sparse", rng=seed)``, the graphs of
``benchmarks/social.py``) in this tree are recorded (arguments copied, the random
generator's state included) and replayed through the base tree's function (its module
file loaded by ``step_ab.base_module``) and through this tree's, on fresh copies. Per
graph, means over the seeds: the graph's r before the swaps (``r0``), the target, the
|r - target| after them, the passes, the edges they changed (not among the input's), the
triangles with a hub-hub edge left (``affinity.core_triangles`` after / before, what the
closing swaps give back after; "nan" without any) and the CPU milliseconds (median of ``--repeats``
replays).

Random cases (``--cases``, 0 to skip): review 8's set of the stall rule (finding I1):
Barabasi-Albert, G(n, p), configuration-model and powerlaw-cluster graphs of 30-1500
nodes (some relabelled into n up to 10^5), 20% of the edges fixed, 1-3 random groups or
none, a uniform target in [-1, 1]; per tree the mean |r - target| with the stall rule and
with ``STALL = 0`` (all ``PASSES`` passes unless the target is met), the mean passes, and
the cases where this tree ends more (or less) than 0.01 further from the target than the
base, split by the direction of the target.

Whole releases (``--releases N``, default 0): N releases per graph at ``--epsilon`` (1) with
either tree's swaps patched into this tree's sparse generator (the closing swaps after
them included): the mean and median relative errors of the release's degree assortativity
and of its triangle count against the original's (``privcut.evaluate.structure_of``).

Run: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/assortativity_swaps.py --base
/work/main [--graphs lfr wiki-vote gnutella] [--seeds 5] [--repeats 5] [--cases 120]
[--releases 30 [--epsilon 2]]``.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import networkx as nx
import numpy as np

from privcut import synthetic_graph
from privcut.evaluate import structure_of
from privcut.graph import assortativity, sparse
from privcut.graph.affinity import core_triangles

sys.path.insert(0, str(Path(__file__).resolve().parent))
import social  # the harness's graphs
from step_ab import base_module


def _recorded(A, seeds: int) -> list:
    """The arguments of the swaps' call in each of ``seeds`` releases of A."""
    calls, original = [], sparse.assortative_swaps

    def recording(*args, **kwargs):
        calls.append(copy.deepcopy((args, kwargs)))
        return original(*args, **kwargs)

    sparse.assortative_swaps = recording
    try:
        for seed in range(seeds):
            synthetic_graph(A, 1.0, method="sparse", rng=seed)
    finally:
        sparse.assortative_swaps = original
    return calls


def _all_edges(rows, columns, fixed, n):
    return np.concatenate([rows, fixed // n]), np.concatenate([columns, fixed % n])


def _replay(function, call) -> tuple[float, tuple]:
    args, kwargs = copy.deepcopy(call)
    start = time.process_time()
    out = function(*args, **kwargs)
    return time.process_time() - start, out


def _rows(functions: dict, calls: list, repeats: int) -> dict:
    """Per tree, the means over the calls of its swaps (the trees replayed alternately)."""
    keys = ("r0", "target", "error", "passes", "changed", "left", "ms")
    found = {label: {key: [] for key in keys} for label in functions}
    for call in calls:
        (rows, columns, fixed, degrees, target, _), _ = call
        n = degrees.size
        seconds = {label: [] for label in functions}
        outputs = {}
        for _ in range(repeats):
            for label, function in functions.items():
                spent, outputs[label] = _replay(function, call)
                seconds[label].append(spent)
        before = _all_edges(rows, columns, fixed, n)
        r0 = assortativity.degree_assortativity(*before, degrees)
        triangles = core_triangles(*before, degrees)
        for label, (new_rows, new_columns, passes) in outputs.items():
            after = _all_edges(new_rows, new_columns, fixed, n)
            r = assortativity.degree_assortativity(*after, degrees)
            row = found[label]
            row["r0"].append(r0)
            row["target"].append(target)
            row["error"].append(abs(r - target))
            row["passes"].append(passes)
            old = rows * n + columns
            row["changed"].append(np.setdiff1d(new_rows * n + new_columns, old).size)
            left = core_triangles(*after, degrees) / triangles if triangles else np.nan
            row["left"].append(left)
            row["ms"].append(1e3 * np.median(seconds[label]))
    return {
        label: {
            key: float(np.nanmean(values)) if np.isfinite(values).any() else np.nan
            for key, values in row.items()
        }
        for label, row in found.items()
    }


def _case(seed: int, rng: np.random.Generator) -> tuple:
    """Review 8's random case ``seed`` (the same draws of ``rng`` in the same order)."""
    kind, n = seed % 4, int(rng.integers(30, 1500))
    if kind == 0:
        G = nx.barabasi_albert_graph(n, int(rng.integers(1, 6)), seed=seed)
    elif kind == 1:
        G = nx.gnp_random_graph(n, 8 / n, seed=seed)
    elif kind == 2:
        s = np.minimum(np.floor(rng.pareto(1.5, n) * 2 + 1), n - 1).astype(int)
        s[0] += s.sum() % 2
        G = nx.Graph(nx.configuration_model(s.tolist(), seed=seed))
        G.remove_edges_from(nx.selfloop_edges(G))
    else:
        G = nx.powerlaw_cluster_graph(n, 3, 0.3, seed=seed)
    if seed % 10 == 9:
        N = [46340, 46341, 100000][seed % 3]
        G = nx.relabel_nodes(G, {v: N - 1 - v for v in G})
        n = N
    rows, columns = np.sort(np.array(G.edges, dtype=np.int64).reshape(-1, 2), axis=1).T
    degrees = np.bincount(np.r_[rows, columns], minlength=n).astype(float)
    held = rng.random(rows.size) < 0.2
    fixed = rows[held] * n + columns[held]
    labels = rng.integers(0, int(rng.integers(1, 4)), n) if seed % 3 else None
    target = float(rng.uniform(-1, 1))
    return rows[~held], columns[~held], fixed, degrees, target, labels


def _cases(trees: dict, count: int) -> None:
    rng = np.random.default_rng(5)
    results = {label: {"stall": [], "full": [], "passes": []} for label in trees}
    directions = []
    for seed in range(count):
        rows, columns, fixed, degrees, target, labels = _case(seed, rng)
        n = degrees.size
        r0 = assortativity.degree_assortativity(*_all_edges(rows, columns, fixed, n), degrees)
        directions.append(np.sign(target - r0))
        for label, module in trees.items():
            stall = module.STALL
            for kind, value in (("stall", stall), ("full", 0.0)):
                module.STALL = value
                new_rows, new_columns, passes = module.assortative_swaps(
                    rows, columns, fixed, degrees, target, np.random.default_rng(seed), labels
                )
                r = assortativity.degree_assortativity(
                    *_all_edges(new_rows, new_columns, fixed, n), degrees
                )
                results[label][kind].append(abs(r - target))
                if kind == "stall":
                    results[label]["passes"].append(passes)
            module.STALL = stall
    directions = np.array(directions)
    print(f"\n{count} random cases (review 8, I1): mean over the cases\n")
    print(
        "| target | cases | tree | abs(r - target) | with STALL = 0 | passes | worse by > 0.01 "
        "| better by > 0.01 |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for name, mask in (("below r0", directions < 0), ("above r0", directions > 0)):
        base = np.array(results["base"]["stall"])[mask]
        for label in trees:
            error = np.array(results[label]["stall"])[mask]
            full = np.array(results[label]["full"])[mask]
            passes = np.array(results[label]["passes"])[mask]
            worse = "-" if label == "base" else str(int((error - base > 0.01).sum()))
            better = "-" if label == "base" else str(int((base - error > 0.01).sum()))
            print(
                f"| {name} | {mask.sum()} | {label} | {error.mean():.4f} | {full.mean():.4f} "
                f"| {passes.mean():.2f} | {worse} | {better} |"
            )


def _releases(trees: dict, graphs: list, count: int, epsilon: float) -> None:
    """Whole releases with either tree's swaps (patched into the sparse generator; the rest
    of the release this tree's): relative errors of r and of the triangles."""
    print(
        f"\n{count} releases per graph at epsilon {epsilon:g} (seeds 0-{count - 1}), either tree's "
        "swaps in this tree's release: mean (median) relative error\n"
    )
    print("| graph | true r | tree | r RE | triangle RE |")
    print("|---|---:|---|---:|---:|")
    original = sparse.assortative_swaps
    for name in graphs:
        A = social.load(name)
        if A is None:
            continue
        truth = structure_of(A)
        errors = {label: ([], []) for label in trees}
        try:
            for seed in range(count):
                for label, module in trees.items():
                    sparse.assortative_swaps = module.assortative_swaps
                    H = synthetic_graph(A, epsilon, method="sparse", rng=seed)
                    got = structure_of(H)
                    r_error, triangle_error = errors[label]
                    r_error.append(abs(got.assortativity / truth.assortativity - 1))
                    triangle_error.append(abs(got.triangles / truth.triangles - 1))
        finally:
            sparse.assortative_swaps = original
        for label, (r_error, triangle_error) in errors.items():
            print(
                f"| {name} | {truth.assortativity:+.3f} | {label} | {np.mean(r_error):.4f} "
                f"({np.median(r_error):.4f}) | {np.mean(triangle_error):.4f} "
                f"({np.median(triangle_error):.4f}) |",
                flush=True,
            )


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the baseline tree (e.g. main)")
    parser.add_argument("--graphs", nargs="+", default=["lfr", "wiki-vote", "gnutella"])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cases", type=int, default=120)
    parser.add_argument("--releases", type=int, default=0, help="whole releases per graph")
    parser.add_argument("--epsilon", type=float, default=1.0, help="of the whole releases")
    args = parser.parse_args(argv)
    trees = {"base": base_module(args.base, "assortativity"), "new": assortativity}
    print(f"{args.seeds} releases per graph at epsilon 1; means over them\n")
    print(
        "| graph | tree | r0 | target | abs(r - target) | passes | edges changed "
        "| core triangles left | ms | base / new |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.graphs:
        A = social.load(name)
        if A is None:
            continue
        calls = _recorded(A, args.seeds)
        functions = {label: module.assortative_swaps for label, module in trees.items()}
        rows = _rows(functions, calls, args.repeats)
        for label, row in rows.items():
            ratio = rows["base"]["ms"] / row["ms"]
            print(
                f"| {name} | {label} | {row['r0']:+.3f} | {row['target']:+.3f} | "
                f"{row['error']:.4f} | {row['passes']:.1f} | {row['changed']:.0f} | "
                f"{row['left']:.3f} | {row['ms']:.1f} | {ratio:.2f} |",
                flush=True,
            )
    if args.cases:
        _cases(trees, args.cases)
    if args.releases:
        _releases(trees, args.graphs, args.releases, args.epsilon)


if __name__ == "__main__":
    main(sys.argv[1:])
