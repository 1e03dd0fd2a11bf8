"""Issue 18, the ``"assortativity"`` measurement and swap step: what it buys and costs,
and the triangle-closing swaps and the analytic BTER wedges that pay the triangles back.

On the graphs of ``benchmarks/social.py`` (wiki-vote, gnutella, LFR 5k; undirected, no
groups), at each epsilon and seed, four sparse releases in the same process:

- ``new`` (the default: edge count 0.1, degrees 0.25, degree sequence 0.45, clustering
  0.15, assortativity 0.05; BTER wedges by ``affinity.expected_wedges``, the
  degree-assortativity swaps, then ``affinity.closing_swaps`` among the hubs);
- ``proxy`` (the same, but the BTER wedges from a drawn proxy graph and its capped
  projection, ``affinity.projected_wedges``, as before issue 18's triangle work);
- ``old`` (the previous default: the drawn proxy and no closing swaps);
- ``without`` (no assortativity measurement, the sequence at 0.5, no swaps; drawn proxy).

Columns: the original's degree assortativity r (Newman 2002) and, per release, the
relative error of its r, of its triangle count and of its global clustering
(transitivity) (``privcut.evaluate.structure_of``), CPU seconds per release
(``time.process_time``; single-threaded with ``OPENBLAS_NUM_THREADS=1``), the ratio of
``new`` to ``old``, and the seconds of the closing swaps (``closing``, its
``core_triangles`` count before the swaps included) and of the BTER wedges (``wedges``)
alone in ``new`` and ``old``. Means over the seeds.

``--wedges`` prints instead, per graph and seed at each epsilon, the BTER step's wedges
per noisy-degree bin both ways on the same release's fitted and noisy degrees (the drawn
proxy's ``projected_wedges`` and the analytic ``expected_wedges``), their ratio and
seconds. ``--signal`` prints, per graph, epsilon and seed, the exact triangle corners per
bin of the measurement's capped projection (the statistic before noise), the noisy ones,
the noise's standard deviation and the gate (``clustering.GATE`` sd), and the release's
triangles: where the step is gated off.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/assortativity.py [--graphs wiki-vote
gnutella lfr] [--epsilons 0.5 1 2] [--seeds 3] [--wedges | --signal]``.
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
from privcut.graph import affinity, sparse
from privcut.graph.blockmodel import node_weights
from privcut.graph.clustering import (
    DEFAULT_CAP,
    GATE,
    binned_corners,
    capped_projection,
    degree_bins,
    triangle_corners,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import social  # the harness's graphs

WITHOUT = {"edge-count": 0.1, "degrees": 0.25, "degree-sequence": 0.5, "clustering": 0.15}
MODE = {"proxy": False, "closing": True}
SECONDS: dict[str, list[float]] = {"closing": [], "wedges": []}
CLOSING, CORE_TRIANGLES = sparse.closing_swaps, sparse.core_triangles
WEDGES = sparse.SparseGenerator.wedges


def _closing(rows, columns, *args, **kwargs):
    if not MODE["closing"]:
        return rows, columns, 0.0
    start = time.process_time()
    out = CLOSING(rows, columns, *args, **kwargs)
    SECONDS["closing"].append(time.process_time() - start)
    return out


def _core_triangles(*args, **kwargs):
    start = time.process_time()
    out = CORE_TRIANGLES(*args, **kwargs)
    SECONDS["closing"].append(time.process_time() - start)
    return out


def _wedges(self, measured, blocks, stubs, rng):
    """The analytic wedges, or with ``MODE["proxy"]`` the drawn proxy of the previous
    default (a draw of the model without the blocks and its capped projection)."""
    start = time.process_time()
    if MODE["proxy"]:
        n = blocks.n
        out, into = node_weights(stubs.astype(float), n, blocks.directed)
        proxy, _ = blocks.draw(out, into, rng, stubs)
        salt = int(rng.integers(0, 2**63))
        noisy = measured.get("degrees").values
        found = affinity.projected_wedges(proxy // n, proxy % n, n, noisy, salt)
    else:
        found = WEDGES(self, measured, blocks, stubs, rng)
    SECONDS["wedges"].append(time.process_time() - start)
    return found


sparse.closing_swaps = _closing
sparse.core_triangles = _core_triangles
sparse.SparseGenerator.wedges = _wedges

VARIANTS = (  # label, measurements, drawn proxy, closing swaps
    ("new", "auto", False, True),
    ("proxy", "auto", True, True),
    ("old", "auto", True, False),
    ("without", WITHOUT, True, False),
)


SEEN: dict = {}


def _seen_wedges(self, measured, blocks, stubs, rng):
    """Both wedge estimates on the same fitted and noisy degrees (``--wedges``)."""
    n, noisy = blocks.n, measured.get("degrees").values
    start = time.process_time()
    out, into = node_weights(stubs.astype(float), n, blocks.directed)
    proxy, _ = blocks.draw(out, into, rng, stubs)
    drawn = affinity.projected_wedges(proxy // n, proxy % n, n, noisy, 0)
    middle = time.process_time()
    expected = affinity.expected_wedges(stubs, noisy)
    SEEN.update(drawn=drawn, expected=expected, s=(middle - start, time.process_time() - middle))
    return expected


def wedges(args) -> None:
    """``--wedges``: the drawn proxy's wedges against the analytic ones."""
    sparse.SparseGenerator.wedges = _seen_wedges
    print(
        "| graph | ε | seed | proxy wedges per bin | analytic | analytic / proxy "
        "| s proxy | s analytic |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in args.graphs:
        A = social.load(name)
        for epsilon in args.epsilons:
            for seed in range(args.seeds):
                SEEN.clear()
                synthetic_graph(A, epsilon, method="sparse", rng=seed)
                if not SEEN:  # the step is gated off
                    print(f"| {name} | {epsilon:g} | {seed} | gated off | | | | |")
                    continue
                drawn, expected = SEEN["drawn"], SEEN["expected"]
                ratio = np.divide(expected, drawn, out=np.full(drawn.size, np.nan), where=drawn > 0)
                print(
                    f"| {name} | {epsilon:g} | {seed} | {np.round(drawn).astype(int).tolist()} | "
                    f"{np.round(expected).astype(int).tolist()} | {np.round(ratio, 3).tolist()} | "
                    f"{SEEN['s'][0]:.3f} | {SEEN['s'][1]:.4f} |",
                    flush=True,
                )


def signal(args) -> None:
    """``--signal``: the exact binned corners against the measurement's noise."""
    measured_by: dict = {}
    generate = sparse.SparseGenerator.generate

    def _generate(self, measured, *rest):
        measured_by["m"] = measured
        return generate(self, measured, *rest)

    sparse.SparseGenerator.generate = _generate
    print(
        "| graph | ε | seed | exact corners per bin | noisy | noise sd | gate "
        "| release triangles | original triangles |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.graphs:
        A = social.load(name)
        original = structure_of(A).triangles
        for epsilon in args.epsilons:
            for seed in range(args.seeds):
                H = synthetic_graph(A, epsilon, method="sparse", rng=seed)
                record = measured_by["m"].get("clustering")
                noisy = measured_by["m"].get("degrees").values
                bins = degree_bins(noisy)
                # the exact statistic for the measurement's noisy degrees (salt 0: the
                # measurement's own salt is not kept; the kept set barely depends on it)
                projected = capped_projection(A, DEFAULT_CAP, 0, priority=noisy)
                exact = binned_corners(triangle_corners(projected), bins, record.values.size)
                sd = float(np.sqrt(record.noise.variance))
                found = structure_of(sp.csr_array(H)).triangles
                print(
                    f"| {name} | {epsilon:g} | {seed} | {exact.astype(int).tolist()} | "
                    f"{record.values.astype(int).tolist()} | {sd:.0f} | {GATE * sd:.0f} | "
                    f"{found} | {original} |",
                    flush=True,
                )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["wiki-vote", "gnutella", "lfr"])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--wedges", action="store_true")
    parser.add_argument("--signal", action="store_true")
    args = parser.parse_args(argv)
    print(f"command: {' '.join(sys.argv)}")
    if args.wedges or args.signal:
        sparse.closing_swaps, sparse.core_triangles = CLOSING, CORE_TRIANGLES
        wedges(args) if args.wedges else signal(args)
        return
    labels = [label for label, *_ in VARIANTS]
    print(
        "| graph | ε | original r | "
        + " | ".join(
            f"{what} {label}"
            for what in ("r RE", "triangle RE", "clustering RE")
            for label in labels
        )
        + " | "
        + " | ".join(f"s {label}" for label in labels)
        + " | new / old | s closing (new) | s wedges new | s wedges old |"
    )
    print("|---" * (3 + 4 * len(labels) + 4) + "|")
    for name in args.graphs:
        A = social.load(name)
        if A is None:
            continue
        original = structure_of(A)
        for epsilon in args.epsilons:
            rows = {label: [] for label in labels}
            step = {"closing": [], "wedges new": [], "wedges old": []}
            for seed in range(args.seeds):
                for label, measurements, proxy, closing in VARIANTS:
                    MODE.update(proxy=proxy, closing=closing)
                    SECONDS["closing"].clear()
                    SECONDS["wedges"].clear()
                    start = time.process_time()
                    H = synthetic_graph(
                        A, epsilon, method="sparse", measurements=measurements, rng=seed
                    )
                    seconds = time.process_time() - start
                    if label == "new":
                        step["closing"].append(sum(SECONDS["closing"]))
                        step["wedges new"].append(sum(SECONDS["wedges"]))
                    if label == "old":
                        step["wedges old"].append(sum(SECONDS["wedges"]))
                    found = structure_of(sp.csr_array(H))
                    rows[label].append(
                        (
                            abs(found.assortativity - original.assortativity)
                            / abs(original.assortativity),
                            abs(found.triangles - original.triangles) / original.triangles,
                            abs(found.transitivity - original.transitivity) / original.transitivity,
                            seconds,
                        )
                    )
            means = {label: np.mean(values, axis=0) for label, values in rows.items()}
            cells = [f"{means[label][k]:.3f}" for k in range(4) for label in labels]
            ratio = means["new"][3] / means["old"][3]
            extra = [f"{np.mean(step[key]):.3f}" for key in ("closing", "wedges new", "wedges old")]
            print(
                f"| {name} | {epsilon:g} | {original.assortativity:.4f} | "
                + " | ".join(cells)
                + f" | {ratio:.2f} | "
                + " | ".join(extra)
                + " |",
                flush=True,
            )


if __name__ == "__main__":
    main()
