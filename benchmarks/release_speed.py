"""Issue 18, speed: privcut's default sparse release against Top-m Filter and the floor.

On the graphs of ``benchmarks/social.py`` (wiki-vote, gnutella, LFR 5k; undirected, no
groups), at epsilon 1 over the seeds, in one process, CPU seconds
(``time.process_time``; run single-threaded with ``OPENBLAS_NUM_THREADS=1``) of:

- ``privcut``: ``synthetic_graph(A, eps, method="sparse", rng=seed)`` (the default
  measurements, no groups), returning the released CSR;
- ``top-m``: ``peers.top_m_filter`` (Nguyen et al. 2015), the faster peer;
- ``floor``: building the symmetric 0/1 CSR of the graph from its edge list (what any
  release that returns a CSR pays at least).

Each is timed per seed, the three alternated (their order rotated from seed to seed, each
warmed up once first), so that a drift of the machine's speed falls on all of them alike;
the table gives the median and range over the seeds, the ratios of the medians, and the
median (range) of the per-seed ratios privcut / top-m. A second table splits privcut's
release into its steps, from one cProfile run over the same seeds (cumulative seconds per
release; profiling adds a small per-call overhead, so its total is a little above the
unprofiled median): ``measure`` (of which ``corners``, the clustering measurement's
projection and triangle count), ``fit`` (``fit_targets``), ``generate`` (of which
``affinity``, the BTER step with its proxy draw; ``draw``, the final configuration-model
draw; ``swaps``, the assortativity step, of which ``closing``, the triangle-closing swaps
``affinity.closing_swaps``) and the rest (bounds, report, output).

With ``--modes`` the measurement lists of ``social.py``'s ``MODES`` (privcut without the
BTER blocks, the swaps, or both) are timed in the same alternation, in a third table.

Run: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/release_speed.py [--graphs
wiki-vote gnutella lfr] [--seeds 5] [--epsilon 1] [--modes]``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from privcut import synthetic_graph

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # the re-implemented peers
import social  # the harness's graphs

# (file suffix, function name) of the steps in the split, and the caller that counts
STEPS = {
    "measure": ("measurement.py", "measure", None),
    "corners": ("measurement.py", "_corners", None),
    "fit": ("fitting.py", "fit_targets", None),
    "generate": ("sparse.py", "generate", None),
    "affinity": ("sparse.py", "affinity", None),
    "draw": ("blockmodel.py", "draw", ("sparse.py", "generate")),
    "swaps": ("sparse.py", "assortativity", None),
    "closing": ("affinity.py", "closing_swaps", None),
    "total": ("synthetic.py", "synthetic_graph", None),
}
SPLIT = ("measure", "corners", "fit", "generate", "affinity", "draw", "swaps", "closing")


def _privcut(A, epsilon: float, seed: int):
    return synthetic_graph(A, epsilon, method="sparse", rng=seed)


def _top_m(A, epsilon: float, seed: int):
    return peers.top_m_filter(A, epsilon, np.random.default_rng(seed))


def _floor(A, epsilon: float, seed: int):
    upper = sp.triu(A, k=1, format="coo")
    rows, columns = upper.row, upper.col
    data = np.ones(2 * rows.size)
    both = (np.concatenate([rows, columns]), np.concatenate([columns, rows]))
    return sp.csr_array((data, both), shape=A.shape)


def _seconds(releases: dict, A, epsilon: float, seeds: int) -> dict[str, np.ndarray]:
    """CPU seconds of each release per seed, the releases alternated (their order rotated
    from seed to seed), so that a machine's drift falls on all of them alike."""
    labels = list(releases)
    times = {label: [] for label in labels}
    for seed in range(seeds):
        turn = seed % len(labels)
        for label in labels[turn:] + labels[:turn]:
            start = time.process_time()
            releases[label](A, epsilon, seed)
            times[label].append(time.process_time() - start)
    return {label: np.array(values) for label, values in times.items()}


def _split(A, epsilon: float, seeds: int) -> dict[str, float]:
    """Cumulative seconds per release of each step, from one cProfile run."""
    profile = cProfile.Profile()
    profile.enable()
    for seed in range(seeds):
        _privcut(A, epsilon, seed)
    profile.disable()
    stats = pstats.Stats(profile).stats
    found = dict.fromkeys(STEPS, 0.0)
    for (path, _, function), (_, _, _, cumulative, callers) in stats.items():
        for step, (suffix, name, caller) in STEPS.items():
            if not (path.endswith(suffix) and function == name):
                continue
            if caller is None:
                found[step] += cumulative
            else:
                found[step] += sum(
                    timing[3]
                    for (where, _, by), timing in callers.items()
                    if where.endswith(caller[0]) and by == caller[1]
                )
    return {step: seconds / seeds for step, seconds in found.items()}


def _unwrapped(release):
    """A ``social.py`` release (H, communities) as one returning the graph only."""
    return lambda A, epsilon, seed: release(A, epsilon, seed)[0]


def _print_modes(rows: list) -> None:
    """The measurement lists' seconds, in the same alternation, against Top-m's."""
    print()
    print("privcut with a measurement list (social.py's MODES), same runs:")
    print()
    print("| graph | mode | seconds | mode / top-m | per seed (range) |")
    print("|---|---|---:|---:|---:|")
    for name, _, _, timed in rows:
        top_m = timed["top-m"]
        for mode in social.MODES:
            ratio = np.median(timed[mode]) / np.median(top_m)
            print(
                f"| {name} | {mode} | {_cell(timed[mode])} | {ratio:.2f} | "
                f"{_cell(timed[mode] / top_m)} |"
            )


def _cell(times: np.ndarray) -> str:
    return f"{np.median(times):.3f} ({times.min():.3f}-{times.max():.3f})"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=social.DEFAULT_GRAPHS)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument(
        "--modes", action="store_true", help="also time social.py's MODES (measurement lists)"
    )
    args = parser.parse_args(argv)
    rows, splits = [], []
    modes = {name: _unwrapped(social.mode_release(m)) for name, m in social.MODES.items()}
    for name in args.graphs:
        A = social.load(name)
        if A is None:
            continue
        releases = {"privcut": _privcut, "top-m": _top_m, "floor": _floor}
        releases |= modes if args.modes else {}
        for release in releases.values():  # warm caches and imports
            release(A, args.epsilon, 0)
        timed = _seconds(releases, A, args.epsilon, args.seeds)
        rows.append((name, A.shape[0], A.nnz // 2, timed))
        splits.append((name, _split(A, args.epsilon, args.seeds)))
    print(f"epsilon {args.epsilon}, {args.seeds} seeds; CPU seconds per release, median (range)")
    print()
    print(
        "| graph | n | edges | privcut | top-m | floor | privcut / top-m | per seed "
        "(range) | privcut / floor |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, n, edges, timed in rows:
        medians = {label: float(np.median(times)) for label, times in timed.items()}
        ratios = timed["privcut"] / timed["top-m"]
        print(
            f"| {name} | {n} | {edges} | {_cell(timed['privcut'])} | {_cell(timed['top-m'])} | "
            f"{_cell(timed['floor'])} | {medians['privcut'] / medians['top-m']:.2f} | "
            f"{_cell(ratios)} | {medians['privcut'] / medians['floor']:.1f} |"
        )
    if args.modes:
        _print_modes(rows)
    print()
    print("privcut's steps, cProfile cumulative seconds per release (mean over the seeds):")
    print()
    print(
        "| graph | measure | (corners) | fit | generate | (affinity) | (draw) | (swaps) "
        "| (closing) | rest |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, found in splits:
        rest = found["total"] - found["measure"] - found["fit"] - found["generate"]
        cells = " | ".join(f"{found[step]:.3f}" for step in SPLIT)
        print(f"| {name} | {cells} | {rest:.3f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
