"""Issue 18, the ``"assortativity"`` measurement and swap step: what it buys and costs.

On the graphs of ``benchmarks/social.py`` (wiki-vote, gnutella, LFR 5k; undirected, no
groups), at each epsilon and seed, three sparse releases in the same process:

- ``swaps`` (the default measurements: edge count 0.1, degrees 0.25, degree sequence 0.45,
  clustering 0.15, assortativity 0.05);
- ``core kept`` (the same measurements, and the swaps leave alone every
  configuration-model edge whose two ends both have degree above the BTER cap 64: a
  variant tried here, not in the library);
- ``without`` (the previous default: the sequence at 0.5, no assortativity measurement,
  no swaps).

Columns: the original's degree assortativity r (Newman 2002) and, per release, the
relative error of its r and of its triangle count (``privcut.evaluate.structure_of``),
CPU seconds per release (``time.process_time``; single-threaded with
``OPENBLAS_NUM_THREADS=1``), the ratio of ``swaps`` to ``without``, and the seconds of the
swap step alone (``SparseGenerator.assortativity``, target included). Means over the seeds.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/assortativity.py [--graphs wiki-vote
gnutella lfr] [--epsilons 0.5 1 2] [--seeds 3]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from privcut import synthetic_graph
from privcut.evaluate import structure_of
from privcut.graph import sparse
from privcut.graph.clustering import DEFAULT_CAP

sys.path.insert(0, str(Path(__file__).resolve().parent))
import social  # the harness's graphs

WITHOUT = {"edge-count": 0.1, "degrees": 0.25, "degree-sequence": 0.5, "clustering": 0.15}
STEP: list[float] = []
KEEP_CORE = {"on": False}
SWAPS = sparse.assortative_swaps
STEP_METHOD = sparse.SparseGenerator.assortativity


def _timed_step(self, *args, **kwargs):
    start = time.process_time()
    out = STEP_METHOD(self, *args, **kwargs)
    if out is not None and not KEEP_CORE["on"]:  # the default releases only
        STEP.append(time.process_time() - start)
    return out


def _swaps(rows, columns, fixed, degrees, target, rng, labels=None, passes=None):
    """The library's swaps, or with ``KEEP_CORE`` the edges between two nodes of degree
    above the BTER cap moved to the fixed edges."""
    options = {} if passes is None else {"passes": passes}
    if not KEEP_CORE["on"]:
        return SWAPS(rows, columns, fixed, degrees, target, rng, labels=labels, **options)
    n = degrees.size
    core = np.minimum(degrees[rows], degrees[columns]) > DEFAULT_CAP
    kept = np.sort(np.concatenate([fixed, rows[core] * n + columns[core]]))
    r, c, taken = SWAPS(
        rows[~core], columns[~core], kept, degrees, target, rng, labels=labels, **options
    )
    return np.concatenate([r, rows[core]]), np.concatenate([c, columns[core]]), taken


sparse.SparseGenerator.assortativity = _timed_step
sparse.assortative_swaps = _swaps


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["wiki-vote", "gnutella", "lfr"])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"command: {' '.join(sys.argv)}")
    print(
        "| graph | ε | original r | r RE swaps | r RE core kept | r RE without "
        "| triangle RE swaps | triangle RE core kept | triangle RE without "
        "| s swaps | s without | ratio | s of the swap step |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    variants = (("swaps", "auto", False), ("core kept", "auto", True), ("without", WITHOUT, False))
    for name in args.graphs:
        A = social.load(name)
        if A is None:
            continue
        original = structure_of(A)
        for epsilon in args.epsilons:
            rows = {label: [] for label, _, _ in variants}
            STEP.clear()
            for seed in range(args.seeds):
                for label, measurements, keep in variants:
                    KEEP_CORE["on"] = keep
                    start = time.process_time()
                    H = synthetic_graph(
                        A, epsilon, method="sparse", measurements=measurements, rng=seed
                    )
                    seconds = time.process_time() - start
                    found = structure_of(sp.csr_array(H))
                    r_error = abs(found.assortativity - original.assortativity)
                    t_error = abs(found.triangles - original.triangles)
                    rows[label].append(
                        (
                            r_error / abs(original.assortativity),
                            t_error / original.triangles,
                            seconds,
                        )
                    )
            means = {label: np.mean(values, axis=0) for label, values in rows.items()}
            swaps, core, without = means["swaps"], means["core kept"], means["without"]
            print(
                f"| {name} | {epsilon:g} | {original.assortativity:.4f} | {swaps[0]:.3f} | "
                f"{core[0]:.3f} | {without[0]:.3f} | {swaps[1]:.3f} | {core[1]:.3f} | "
                f"{without[1]:.3f} | {swaps[2]:.3f} | {without[2]:.3f} | "
                f"{swaps[2] / without[2]:.2f} | {np.mean(STEP):.3f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
