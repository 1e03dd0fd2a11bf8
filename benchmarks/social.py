"""Issue 18's acceptance harness: how much of a social graph's structure a release keeps.

Graphs (all undirected, no public groups):

- ``wiki-vote``: ``shared/data/wiki-vote.edges`` (7,115 nodes, 100,762 edges as undirected)
  read with ``read_edge_array(path, directed=True)`` and symmetrised, ``(A + A.T) > 0``;
- ``gnutella``: ``shared/data/p2p-gnutella25.edges`` (22,687 nodes, 54,705 edges), likewise;
- ``lfr``: the LFR benchmark (Lancichinetti, Fortunato, Radicchi 2008; planted communities,
  heavy-tailed degrees and community sizes), ``networkx.LFR_benchmark_graph(5_000, 2.5,
  1.5, 0.1, average_degree=10, max_degree=100, min_community=20, seed=0)`` with its
  self-loops dropped (5,000 nodes, about 28,000 edges; about 1 s to generate);
- ``community`` (not a default): ``community_graph(5_000, 25, 10.0, exponent=2.5,
  mixing=0.1, seed=0)``.

(``shared/data`` is the nearest such folder above this file: the project's
``../shared/data``; a graph whose file is absent is skipped with a message.)

Releases at each epsilon and seed: ``privcut`` is ``synthetic_graph(A, epsilon,
method="sparse", rng=seed)`` (default measurements, no public groups: since the auto
decision, RESULTS.md "Issue 18: auto private communities", it buys private communities when
``epsilon * 2 m~ / n >= 12``, else none); ``privcut-private`` is
``synthetic_graph(A, epsilon, method="sparse", groups="private", rng=seed)``, skipped with a
message while synthetic_graph does not accept ``groups="private"``; ``privgraph`` and
``top-m`` are the peers of ``benchmarks/peers.py`` (``privgraph(A, epsilon, rng)`` and
``top_m_filter(A, epsilon, rng)``), skipped with a message when they cannot be imported.
Named in ``--methods`` only, the speed / structure trade: ``privcut-degrees`` (measurements
edge count, degree sequence and degrees: no BTER blocks, no swaps),
``privcut-assortativity`` (those and the assortativity moment: the assortativity and
closing swaps, no BTER blocks) and ``privcut-clustering`` (those and the triangle corners:
the BTER blocks, no swaps), each without groups (``MODES``).

Metrics (``privcut.evaluate.structure`` against the original; lower is better except NMI):
degree-histogram KL, community NMI (Louvain with seed 0 on both graphs), modularity RE of
the original's Louvain partition, degree-assortativity RE, eigenvector-centrality MAE of the
original's top 1%, triangle-count RE, global-clustering (transitivity) RE; seconds per
release (CPU seconds of the process, ``time.process_time``: with ``OPENBLAS_NUM_THREADS=1``
the releases are single-threaded, and CPU time does not count the waits for a core that
other processes on a busy machine cause, which wall time would); and cut errors: mean absolute
error on 200 random balanced bisections and on the
cuts between every two of the original's Louvain communities (``WorkloadClasses`` with
those communities as the groups), and on the cuts between every two of the release's own
released communities ("own-community error": a SyntheticArray's ``.communities``, or
PrivGraph's private partition; "-" for a release without communities). Each cell is the
mean and (after +-) the sample standard deviation over the seeds.

Under each graph's table, an acceptance line per epsilon and privcut method: for each
metric, whether its mean beats both peers' means (``y``) or not (``n``), with the two
numbers (privcut's, then the best peer's), and whether its mean seconds per release are
at most the faster peer's. The own-community error is compared only with peers that have
communities.

What is measured is the same whatever ``--jobs``: the original's Louvain partition and its
workloads are computed once per graph in the parent process (not once per release), and
the (graph, epsilon, seed) cells run in a pool of ``--jobs`` forked processes, longest
graphs first; each cell runs every method in the same process (in an order rotated by
the seed, so that over the seeds no method always runs first or after the same one), so
the seconds of the methods of one cell are comparable (on a busy machine, absolute seconds
are not).
Louvain on the releases (NetworkX's pure-Python implementation, unchanged) takes most of
the time; it is not approximated.

Run: ``python benchmarks/social.py [--graphs wiki-vote gnutella lfr] [--methods privcut
privcut-private privgraph top-m] [--epsilons 0.5 1 2] [--seeds 5] [--jobs 2] [--quick]``;
``--quick`` is one seed at epsilon 1 on the LFR graph only (``--methods`` also takes the
names in ``MODES``). ``--log FILE`` appends every graph's header and finished cell to FILE
as JSON lines; ``--report-from FILE`` prints the tables of the whole seeds such a log holds
(a long run stopped early keeps them: the cells run seed by seed).
"""

from __future__ import annotations

import argparse
import importlib
import json
import multiprocessing
import sys
import time
from collections.abc import Callable
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut import synthetic_graph
from privcut.datasets import community_graph, read_edge_array
from privcut.evaluate import WorkloadClasses, louvain, structure

HERE = Path(__file__).resolve()
FILES = {"wiki-vote": "wiki-vote.edges", "gnutella": "p2p-gnutella25.edges"}
DEFAULT_GRAPHS = ["wiki-vote", "gnutella", "lfr"]
DEFAULT_METHODS = ["privcut", "privcut-private", "privgraph", "top-m"]
# privcut with a measurement list given (no "auto": no private communities either), for
# the trade between speed and structure (not run unless named in --methods)
MODES = {
    "privcut-degrees": ("edge-count", "degree-sequence", "degrees"),
    "privcut-assortativity": ("edge-count", "degree-sequence", "degrees", "assortativity"),
    "privcut-clustering": ("edge-count", "degree-sequence", "degrees", "clustering"),
}
PEERS = ("privgraph", "top-m")
BISECTIONS = 200
METRICS = [
    ("degree KL", "degree_kl"),
    ("NMI (higher better)", "nmi"),
    ("modularity RE", "modularity_error"),
    ("assortativity RE", "assortativity_error"),
    ("centrality MAE top 1%", "centrality_mae"),
    ("triangle RE", "triangle_error"),
    ("clustering RE", "transitivity_error"),
    ("s / release", "seconds"),
    ("bisection error", "bisection"),
    ("between-community error", "between-group"),
    ("own-community error", "own-group"),
]
HIGHER_BETTER = {"nmi"}
# Larger graphs for the speed scripts (release_ab.py, step_ab.py): benchmarks/scale.py's
# community rows, ``community_graph(n, 50, 20, seed=0)`` (n nodes, 10 n edges).
SCALE = {"community-1e5": 100_000, "community-1e6": 1_000_000}
# Set in the parent before the pool forks, read by the workers: name -> (A, labels, work),
# and method name -> release function.
GRAPHS: dict[str, tuple] = {}
RELEASES: dict[str, Callable] = {}


def data_file(name: str) -> Path | None:
    """The nearest ``shared/data/<name>`` above this file, or None."""
    for folder in HERE.parents:
        path = folder / "shared" / "data" / name
        if path.exists():
            return path
    return None


def lfr_graph() -> sp.csr_array:
    """The default LFR benchmark graph, self-loops dropped, as a symmetric 0/1 CSR."""
    G = nx.LFR_benchmark_graph(
        5_000, 2.5, 1.5, 0.1, average_degree=10, max_degree=100, min_community=20, seed=0
    )
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    A = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(5_000), weight=None))
    return sp.csr_array((A > 0).astype(float))


def load(name: str) -> sp.csr_array | None:
    """The named graph as a symmetric 0/1 CSR adjacency (None if its file is absent)."""
    if name == "lfr":
        return lfr_graph()
    if name == "community":
        A, _ = community_graph(5_000, 25, 10.0, exponent=2.5, mixing=0.1, seed=0, as_sparse=True)
        return sp.csr_array(A)
    if name in SCALE:  # benchmarks/scale.py's community rows, for speed only
        A, _ = community_graph(SCALE[name], 50, 20, seed=0, as_sparse=True)
        return sp.csr_array(A)
    if name not in FILES:
        known = ", ".join(["lfr", "community", *SCALE, *FILES])
        raise SystemExit(f"unknown graph {name!r}: choose from {known}")
    path = data_file(FILES[name])
    if path is None:
        print(f"skipping {name}: shared/data/{FILES[name]} not found", file=sys.stderr)
        return None
    A = read_edge_array(path, directed=True).adjacency
    return sp.csr_array(((A + A.T) > 0).astype(float))


def privcut_release(A: sp.csr_array, epsilon: float, rng: int) -> tuple:
    """privcut's sparse release with default measurements and no groups."""
    H = synthetic_graph(A, epsilon, method="sparse", rng=rng)
    return H, getattr(H, "communities", None)


def privcut_private_release(A: sp.csr_array, epsilon: float, rng: int) -> tuple:
    """privcut's sparse release with private communities (``groups="private"``)."""
    H = synthetic_graph(A, epsilon, method="sparse", groups="private", rng=rng)
    return H, getattr(H, "communities", None)


def mode_release(measurements: tuple[str, ...]) -> Callable:
    """privcut's sparse release with the given ``measurements`` (no groups)."""

    def release(A: sp.csr_array, epsilon: float, rng: int) -> tuple:
        H = synthetic_graph(A, epsilon, method="sparse", measurements=measurements, rng=rng)
        return H, None

    return release


def private_groups_supported() -> str | None:
    """None if synthetic_graph accepts ``groups="private"``, else why not."""
    A, _ = community_graph(300, 5, 10.0, seed=1, as_sparse=True)
    try:
        privcut_private_release(sp.csr_array(A), 1.0, 0)
    except (TypeError, ValueError, NotImplementedError) as error:
        return f"{type(error).__name__}: {error}"
    return None


def methods(names: list[str]) -> dict[str, Callable]:
    """The release functions (``A, epsilon, seed -> (H, communities or None)``) that could
    be imported, by name, in the order asked."""
    found = {}
    unknown = set(names) - set(DEFAULT_METHODS) - set(MODES)
    if unknown:
        choices = DEFAULT_METHODS + list(MODES)
        raise SystemExit(f"unknown methods {sorted(unknown)}: choose from {choices}")
    module = None
    if any(n in PEERS for n in names):
        sys.path.insert(0, str(HERE.parent))
        try:
            module = importlib.import_module("peers")
        except ImportError as error:
            print(f"skipping the peers: benchmarks/peers.py: {error}", file=sys.stderr)
    for name in names:
        if name == "privcut":
            found[name] = privcut_release
        elif name in MODES:
            found[name] = mode_release(MODES[name])
        elif name == "privcut-private":
            why = private_groups_supported()
            if why is None:
                found[name] = privcut_private_release
            else:
                print(
                    f"skipping privcut-private: synthetic_graph does not accept "
                    f'groups="private" yet ({why})',
                    file=sys.stderr,
                )
        elif name == "privgraph" and module is not None:
            found[name] = lambda A, e, s: module.privgraph(A, e, s, communities=True)
        elif name == "top-m" and module is not None:
            found[name] = lambda A, e, s: (module.top_m_filter(A, e, s), None)
    return found


def prepare(A: sp.csr_array) -> tuple:
    """The original's fixed evaluation state: ``(A, Louvain labels, its workloads)``."""
    labels = louvain(A, seed=0)
    return A, labels, WorkloadClasses(A, labels, bisections=BISECTIONS, rng=0)


def measure(A, labels, work, release: Callable, epsilon: float, seed: int) -> dict:
    """One release's metrics."""
    start = time.process_time()
    H, communities = release(A, epsilon, seed)
    seconds = time.process_time() - start
    H = sp.csr_array(H)
    found = structure(A, H, release_weight=None, communities=labels, seed=0)
    cuts = work.errors(H, release_weight=None)
    row = {key: getattr(found, key) for _, key in METRICS if hasattr(found, key)}
    own = np.nan
    if communities is not None and np.unique(np.asarray(communities)).size > 1:
        mine = WorkloadClasses(A, np.asarray(communities), bisections=1, rng=0)
        own = mine.errors(H, release_weight=None)["between-group"]
    return row | {
        "seconds": seconds,
        "bisection": cuts["bisection"],
        "between-group": cuts.get("between-group", np.nan),
        "own-group": own,
    }


def run_cell(task: tuple[str, float, int]) -> tuple[str, float, int, dict]:
    """Every method's metrics on one (graph, epsilon, seed) cell, the methods in an order
    rotated by the seed (so that over the seeds none always runs first or after the same
    one), listed in the usual order."""
    name, epsilon, seed = task
    A, labels, work = GRAPHS[name]
    names = list(RELEASES)
    turn = seed % len(names)
    found = {
        m: measure(A, labels, work, RELEASES[m], epsilon, seed) for m in names[turn:] + names[:turn]
    }
    return name, epsilon, seed, {m: found[m] for m in names}


def run(
    graphs: dict[str, sp.csr_array],
    releases: dict[str, Callable],
    epsilons: list[float],
    seeds: int,
    jobs: int = 1,
    log: Path | None = None,
) -> tuple[dict, dict]:
    """Prepare every graph, run every cell (in ``jobs`` forked processes when > 1).

    Cells run seed by seed (all graphs and epsilons of seed 0 first, the largest graph
    first within a seed), so that a run stopped early has whole seeds done; with ``log``,
    every graph's header and every finished cell is appended to that file as a JSON line
    (see :func:`read_log`). Returns ``(info, results)``: per graph a header string, and
    ``results[(graph, epsilon)][method]`` the list of per-seed metric rows in seed order.
    """
    GRAPHS.clear()
    RELEASES.clear()
    RELEASES.update(releases)
    info = {}
    for name, A in graphs.items():
        start = time.perf_counter()
        GRAPHS[name] = prepare(A)
        labels, work = GRAPHS[name][1:]
        between = work.truth.get("between-group", np.zeros(1))
        info[name] = (
            f"{A.shape[0]:,} nodes, {A.nnz // 2:,} edges, {labels.max() + 1} Louvain "
            f"communities ({time.perf_counter() - start:.1f} s); true cut values: bisection "
            f"mean {work.truth['bisection'].mean():,.0f}, between-community mean "
            f"{between.mean():,.1f}"
        )
        print(f"prepared {name}: {info[name]}", file=sys.stderr, flush=True)
        write_log(log, {"graph": name, "info": info[name]})
    tasks = [(g, e, s) for g in graphs for e in epsilons for s in range(seeds)]
    tasks.sort(key=lambda t: (t[2], -GRAPHS[t[0]][0].nnz))
    cells = {}

    def done(count: int, out: tuple) -> None:
        cells[out[:3]] = out[3]
        print(f"cell {count}/{len(tasks)}: {out[:3]}", file=sys.stderr, flush=True)
        write_log(log, {"cell": list(out[:3]), "rows": out[3]})

    if jobs > 1 and len(tasks) > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for count, out in enumerate(pool.imap_unordered(run_cell, tasks), 1):
                done(count, out)
    else:
        for count, task in enumerate(tasks, 1):
            done(count, run_cell(task))
    return info, collect(list(graphs), cells)


def collect(order: list[str], cells: dict) -> dict:
    """``results[(graph, epsilon)][method]``: the rows of the cells, in seed order."""
    results = {}
    for name, epsilon, seed in sorted(cells, key=lambda t: (order.index(t[0]), t[1:])):
        for method, row in cells[(name, epsilon, seed)].items():
            results.setdefault((name, epsilon), {}).setdefault(method, []).append(row)
    return results


def write_log(path: Path | None, entry: dict) -> None:
    """Append one JSON line to the log (nothing without a log)."""
    if path is not None:
        with open(path, "a", encoding="utf-8") as file:
            file.write(json.dumps(entry) + "\n")


def read_log(path: Path) -> tuple[dict, dict, list[float], int]:
    """``(info, results, epsilons, seeds)`` of the whole seeds a log holds: the seeds
    0..s-1 whose cells are all there (a run stopped early keeps its finished seeds)."""
    info, cells = {}, {}
    with open(path, encoding="utf-8") as file:
        for line in file:
            entry = json.loads(line)
            if "info" in entry:
                info[entry["graph"]] = entry["info"]
            else:
                name, epsilon, seed = entry["cell"]
                cells[(name, float(epsilon), int(seed))] = entry["rows"]
    epsilons = sorted({key[1] for key in cells})
    seeds = 0
    while all((g, e, seeds) in cells for g in info for e in epsilons):
        seeds += 1
    kept = {key: rows for key, rows in cells.items() if key[2] < seeds}
    return info, collect(list(info), kept), epsilons, seeds


def cell(values: list[float]) -> str:
    """Mean +- sample sd (just the mean for one value; "-" when undefined)."""
    values = np.asarray([np.nan if v is None else v for v in values], dtype=float)
    if np.isnan(values).all():
        return "-"
    if values.size == 1:
        return f"{values[0]:.3g}"
    return f"{values.mean():.3g} ± {values.std(ddof=1):.2g}"


def mean(rows: list[dict], key: str) -> float:
    """The mean of one metric over the seeds (NaN when undefined)."""
    values = np.asarray([np.nan if r[key] is None else r[key] for r in rows], dtype=float)
    return float(values.mean()) if not np.isnan(values).any() else np.nan


def acceptance(by_method: dict[str, list[dict]], method: str) -> str:
    """Whether ``method`` beats both peers on each metric and is no slower than the faster."""
    peers = [p for p in PEERS if p in by_method]
    if not peers:
        return "no peers to compare with"
    parts, met, total = [], 0, 0
    for title, key in METRICS:
        mine = mean(by_method[method], key)
        theirs = [mean(by_method[p], key) for p in peers]
        theirs = [t for t in theirs if not np.isnan(t)]
        if np.isnan(mine) or not theirs:
            continue
        if key == "seconds":
            best, ok, title = min(theirs), mine <= min(theirs), "speed"
        elif key in HIGHER_BETTER:
            best, ok = max(theirs), mine > max(theirs)
        else:
            best, ok = min(theirs), mine < min(theirs)
        total += 1
        met += ok
        parts.append(f"{title.split(' (')[0]} {'y' if ok else 'n'} ({mine:.3g} vs {best:.3g})")
    return f"{met}/{total}: " + "; ".join(parts)


def report(info: dict, results: dict, epsilons: list[float]) -> list[str]:
    """The markdown tables and acceptance lines, graph by graph."""
    lines = []
    for name, header in info.items():
        lines += [f"\n### {name}: {header}\n"]
        lines += ["| ε | method | " + " | ".join(title for title, _ in METRICS) + " |"]
        lines += ["|" + "---|" * (len(METRICS) + 2)]
        for epsilon in epsilons:
            for method, rows in results[(name, epsilon)].items():
                cells = [cell([r[key] for r in rows]) for _, key in METRICS]
                lines += [f"| {epsilon:g} | {method} | " + " | ".join(cells) + " |"]
        lines += [""]
        for epsilon in epsilons:
            for method in results[(name, epsilon)]:
                if method.startswith("privcut"):
                    verdict = acceptance(results[(name, epsilon)], method)
                    lines += [f"- acceptance {name}, ε = {epsilon:g}, {method}: {verdict}"]
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=DEFAULT_GRAPHS)
    parser.add_argument("--methods", nargs="+", default=DEFAULT_METHODS)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=1, help="processes over the cells")
    parser.add_argument("--quick", action="store_true", help="1 seed, ε = 1, LFR only")
    parser.add_argument("--log", type=Path, help="append the header and cells as JSON lines")
    parser.add_argument("--report-from", type=Path, help="only print the tables of a --log")
    args = parser.parse_args(argv)
    if args.report_from is not None:
        info, results, epsilons, seeds = read_log(args.report_from)
        print(f"from {args.report_from}: {seeds} whole seeds")
        if not seeds:
            return
        print("\n".join(report(info, results, epsilons)))
        return
    if args.quick:
        args.graphs, args.epsilons, args.seeds = ["lfr"], [1.0], 1
    start = time.perf_counter()
    releases = methods(args.methods)
    graphs = {name: A for name in args.graphs if (A := load(name)) is not None}
    print(f"command: {' '.join(sys.argv)}")
    info, results = run(graphs, releases, args.epsilons, args.seeds, args.jobs, args.log)
    print("\n".join(report(info, results, args.epsilons)))
    print(f"\ntotal {time.perf_counter() - start:.0f} s with --jobs {args.jobs}")


if __name__ == "__main__":
    main()
