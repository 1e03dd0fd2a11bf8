"""Issue 18, speed: the measurement kernels against their previous implementations.

On the graphs of ``benchmarks/social.py``, in one process, CPU seconds
(``time.process_time``, median over the repetitions, the two implementations
interleaved; run single-threaded with ``OPENBLAS_NUM_THREADS=1``) of:

- ``corners``: the clustering measurement's exact corners at the cap and noisy-degree
  order of a seeded release (``choose_cap`` of the noisy degree sequence's fit, as
  ``measurement._corners``): before, ``capped_projection`` then the triangle count by
  sparse products (``L * (L @ L)`` and ``L * (L.T @ L)`` of the degree-ordered
  orientation L, the count main had until this round, copied below); after,
  ``clustering.projected_corners`` (the kept edges without a CSR; closed wedges looked up
  in a hash table of the edges when written, in a byte filter then the edges' sorted rows
  since "Issue 18: the release at scale, measurement side"). Both give the same counts
  (checked).
- ``rank_matched``: before, one ``numpy.lexsort`` of (tie order, noisy degree, group)
  per half (copied below); after, ``sequence.rank_matched`` (the stable sorts in turn,
  a radix sort for integer noisy degrees). The same output (checked).

Run: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/measure_speed.py [--graphs
wiki-vote gnutella lfr] [--repeats 15]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from privcut.graph.clustering import (
    capped_projection,
    choose_cap,
    degree_estimate,
    projected_corners,
)
from privcut.graph.measurement import measure
from privcut.graph.planning import plan_measurements
from privcut.graph.sequence import rank_matched

sys.path.insert(0, str(Path(__file__).resolve().parent))
import social  # the harness's graphs

NAMES = {"edge-count": 0.1, "degrees": 0.3, "degree-sequence": 0.3, "clustering": 0.3}


def _product_corners(projected) -> np.ndarray:
    """The previous ``triangle_corners``: sparse products of the degree-ordered
    orientation."""
    H = sp.csr_array(projected)
    n = H.shape[0]
    rows = np.repeat(np.arange(n), np.diff(H.indptr))
    edge = (rows != H.indices) & (H.data != 0)
    degree = np.bincount(rows[edge], minlength=n).astype(np.int64)
    order = degree * n + np.arange(n)
    forward = edge & (order[rows] < order[H.indices])
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows[forward], minlength=n), out=indptr[1:])
    data = np.ones(int(forward.sum()), dtype=np.int64)
    L = sp.csr_array((data, H.indices[forward], indptr), shape=(n, n))
    first = L * (L @ L)
    last = L * (sp.csr_array(L.T) @ L)
    corners = first.sum(axis=1) + last.sum(axis=1) + last.sum(axis=0)
    return np.asarray(corners, dtype=np.int64).ravel()


def _projected_product(A, cap: int, salt: int, priority: np.ndarray) -> np.ndarray:
    """Before: the projection's CSR, then the sparse products."""
    return _product_corners(capped_projection(A, cap, salt, priority=priority))


def _lexsort_matched(fitted, noisy, order, labels) -> np.ndarray:
    """The previous ``rank_matched``: one lexsort per half."""
    n = labels.size
    result = np.empty_like(fitted)
    for h, permutation in enumerate(order):
        part, values = slice(h * n, (h + 1) * n), fitted[h * n : (h + 1) * n]
        tie = np.empty(n, dtype=np.int64)
        tie[permutation] = np.arange(n)
        ranked = np.lexsort((tie, noisy[part], labels))
        sizes = np.bincount(labels)
        by_group = np.argsort(labels, kind="stable")
        chunks = np.split(values[by_group], np.cumsum(sizes)[:-1])
        out = np.empty(n)
        out[ranked] = np.concatenate([np.sort(chunk) for chunk in chunks])
        result[part] = out
    return result


def _timed(calls: dict, repeats: int) -> dict[str, float]:
    """Median CPU seconds of each ``(function, arguments)``, interleaved over the
    repetitions."""
    times = {label: [] for label in calls}
    for _ in range(repeats):
        for label, (function, arguments) in calls.items():
            start = time.process_time()
            function(*arguments)
            times[label].append(time.process_time() - start)
    return {label: float(np.median(found)) for label, found in times.items()}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=social.DEFAULT_GRAPHS)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    print(f"CPU milliseconds per call, median of {args.repeats} (interleaved)")
    print()
    print("| graph | cap | corners before | after | ratio | rank_matched before | after | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.graphs:
        A = social.load(name)
        if A is None:
            continue
        n = A.shape[0]
        measured = measure(A, plan_measurements(range(n), 1.0, NAMES), rng=0)
        noisy = measured.get("degrees").values
        sequence = measured.get("degree-sequence")
        cap = choose_cap(degree_estimate(sequence.values, noisy))
        old = _projected_product(A, cap, 1, noisy)
        assert (projected_corners(A, cap, 1, priority=noisy) == old).all()
        fitted = np.sort(np.maximum(sequence.values, 0.0))
        labels = np.zeros(n, dtype=np.intp)
        matched = rank_matched(fitted, noisy, sequence.order, labels)
        assert (matched == _lexsort_matched(fitted, noisy, sequence.order, labels)).all()
        arguments = (A, cap, 1, noisy)
        corners = _timed(
            {"before": (_projected_product, arguments), "after": (projected_corners, arguments)},
            args.repeats,
        )
        arguments = (fitted, noisy, sequence.order, labels)
        ranks = _timed(
            {"before": (_lexsort_matched, arguments), "after": (rank_matched, arguments)},
            args.repeats,
        )
        print(
            f"| {name} | {cap} | {1e3 * corners['before']:.2f} | {1e3 * corners['after']:.2f} "
            f"| {corners['before'] / corners['after']:.2f} | {1e3 * ranks['before']:.2f} "
            f"| {1e3 * ranks['after']:.2f} | {ranks['before'] / ranks['after']:.2f} |"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
