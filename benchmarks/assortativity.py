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
``core_triangles`` count before the swaps included) and of the BTER wedges (``wedges``) alone in ``new``
and ``old``. Means over the seeds.

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
from privcut.graph import affinity, sparse
from privcut.graph.blockmodel import node_weights

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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["wiki-vote", "gnutella", "lfr"])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"command: {' '.join(sys.argv)}")
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
