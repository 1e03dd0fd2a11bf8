"""The linear-query core on a histogram that is not a graph.

A private histogram of ages (64 one-year bins, counts of people) and a workload of all
64 prefix queries ("how many people are at most k years old"). Compared at epsilon = 1:
the Laplace mechanism on the workload, the factorization (matrix) mechanism with the
binary-tree and optimized strategies, the projection mechanism (Gaussian, delta = 1e-6),
MWEM, and, on a 4-query summary (the age quartiles), the K-norm mechanism. Prints the
measured RMS error next to the error each mechanism predicts, and draws a PNG.

    python examples/linear_queries.py [--fast]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from privcut.linear import (
    factorization_mechanism,
    knorm_mechanism,
    laplace_mechanism,
    mwem,
    projection_mechanism,
)

EPSILON, DELTA = 1.0, 1e-6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="output", help="folder for the PNG")
    parser.add_argument("--fast", action="store_true", help="fewer repetitions (for tests)")
    args = parser.parse_args()
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    ages = np.clip(rng.normal(38, 12, 5000), 0, 63).astype(int)
    h = np.bincount(ages, minlength=64)  # the private count histogram
    prefixes = np.tril(np.ones((64, 64)))
    quartiles = np.kron(np.eye(4), np.ones(16))  # 4 x 64: counts per 16-year band
    runs = 3 if args.fast else 20
    mechanisms = {
        "Laplace": (prefixes, lambda r: laplace_mechanism(prefixes, h, EPSILON, rng=r)),
        "binary tree": (
            prefixes,
            lambda r: factorization_mechanism(prefixes, h, EPSILON, strategy="binary-tree", rng=r),
        ),
        "optimized": (
            prefixes,
            lambda r: factorization_mechanism(prefixes, h, EPSILON, strategy="optimized", rng=r),
        ),
        "projection": (
            prefixes,
            lambda r: projection_mechanism(prefixes, h, EPSILON, DELTA, n_bound=6000, rng=r),
        ),
        "MWEM": (prefixes, lambda r: mwem(prefixes, h, EPSILON, rounds=10, n=5000, rng=r)),
        "K-norm (quartiles)": (quartiles, lambda r: knorm_mechanism(quartiles, h, EPSILON, rng=r)),
    }
    print(f"{h.sum()} people in 64 age bins; {runs} runs per mechanism, epsilon = {EPSILON:g}")
    print(f"{'mechanism':<20} {'queries':>7} {'RMS error':>10} {'predicted':>10} {'s/run':>7}")
    rows = []
    for name, (F, release) in mechanisms.items():
        start = time.perf_counter()
        errors, predicted = [], None
        for run in range(runs):
            result = release(run)
            errors.append(result.answers - F @ h)
            predicted = result.expected_error
        rms = float(np.sqrt(np.mean(np.square(errors))))
        shown = "-" if predicted is None else f"{float(np.mean(predicted)):.1f}"
        seconds = (time.perf_counter() - start) / runs
        rows.append((name, rms))
        print(f"{name:<20} {F.shape[0]:>7} {rms:>10.1f} {shown:>10} {seconds:>7.3f}")
    figure, axis = plt.subplots(figsize=(8, 4))
    axis.bar([name for name, _ in rows], [rms for _, rms in rows])
    axis.set_yscale("log")
    axis.set_ylabel("RMS error per query (people)")
    axis.set_title("64 prefix queries (K-norm: 4 quartile counts), epsilon = 1")
    axis.tick_params(axis="x", labelrotation=20)
    figure.tight_layout()
    figure.savefig(output / "linear_queries.png", dpi=100)
    print(f"wrote {output / 'linear_queries.png'}")


if __name__ == "__main__":
    main()
