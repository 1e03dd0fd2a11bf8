"""Error and time of every linear-query mechanism on a fixed set of workloads.

For each workload and mechanism: the measured per-query RMS error and max error
(mean over ``--runs`` releases with seeds 0, 1, ...), the error the mechanism
promised (``expected_error``; "-" where the theory gives none), and the time per
release with its ratio to the Gaussian mechanism's on the same workload in the
same process; "first" is the first release's time, which for the factorization
strategies includes their data-independent search (cached afterwards). A mechanism
that refuses a workload says why.

Run: ``python benchmarks/linear.py`` (about three minutes).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from privcut.linear import (
    factorization_mechanism,
    gaussian_mechanism,
    knorm_mechanism,
    laplace_mechanism,
    mwem,
    project_answers,
    projection_mechanism,
    small_db,
)
from privcut.linear.projection import GAP_TOLERANCE

EPSILON, DELTA = 1.0, 1e-6


def workloads() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(2026)
    row = (rng.random(64) < 0.5).astype(float)

    def skewed(m: int, n: int) -> np.ndarray:
        return np.bincount(rng.choice(m, n, p=rng.dirichlet(np.full(m, 0.3))), minlength=m)

    return {
        "repeated query k=100 m=64 n=500": (np.tile(row, (100, 1)), skewed(64, 500)),
        "prefixes k=m=1024 n=5000": (np.tril(np.ones((1024, 1024))), skewed(1024, 5000)),
        "random counts k=2000 m=64 n=50": (rng.integers(0, 2, (2000, 64)), skewed(64, 50)),
        "random counts k=1000 m=256 n=1000": (rng.integers(0, 2, (1000, 256)), skewed(256, 1000)),
        "small k=20 m=6 n=40": (rng.integers(0, 2, (20, 6)), skewed(6, 40)),
    }


def mechanisms() -> dict[str, Callable]:
    return {
        "gaussian": lambda F, h, rng: gaussian_mechanism(F, h, EPSILON, DELTA, rng=rng),
        "laplace": lambda F, h, rng: laplace_mechanism(F, h, EPSILON, rng=rng),
        "factorization optimized": lambda F, h, rng: factorization_mechanism(
            F, h, EPSILON, DELTA, strategy="optimized", rng=rng
        ),
        "factorization binary-tree": lambda F, h, rng: factorization_mechanism(
            F, h, EPSILON, DELTA, strategy="binary-tree", rng=rng
        ),
        "projection cone": lambda F, h, rng: projection_mechanism(F, h, EPSILON, DELTA, rng=rng),
        "projection count": lambda F, h, rng: projection_mechanism(
            F, h, EPSILON, DELTA, constraint="count", rng=rng
        ),
        "knorm exact": lambda F, h, rng: knorm_mechanism(F, h, EPSILON, rng=rng),
        "mwem (T=10)": lambda F, h, rng: mwem(F, h, EPSILON, rounds=10, rng=rng),
        "small_db (size 8)": lambda F, h, rng: small_db(F, h, EPSILON, size=8, rng=rng),
    }


def measure(mechanism: Callable, F: np.ndarray, h: np.ndarray, runs: int) -> tuple:
    truth = F @ h
    rms, worst, seconds, promised = [], [], [], None
    for seed in range(runs):
        start = time.perf_counter()
        release = mechanism(F, h, seed)
        seconds.append(time.perf_counter() - start)
        error = release.answers - truth
        rms.append(float(np.sqrt(np.mean(error**2))))
        worst.append(float(np.abs(error).max()))
        promised = release.expected_error
    return (
        float(np.mean(rms)),
        float(np.mean(worst)),
        promised,
        float(np.median(seconds)),
        seconds[0],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(
        f"epsilon={EPSILON}, delta={DELTA} (pure mechanisms use delta=0); "
        f"{args.runs} runs per cell; time = median seconds per release"
    )
    for name, (F, h) in workloads().items():
        print(f"\n## {name}")
        print(
            f"{'mechanism':<26} {'RMS err':>9} {'max err':>9} {'promised':>9} "
            f"{'seconds':>8} {'x gauss':>8} {'first':>8}"
        )
        baseline = None
        for label, mechanism in mechanisms().items():
            try:
                rms, worst, promised, seconds, first = measure(mechanism, F, h, args.runs)
            except ValueError as refusal:
                print(f"{label:<26} refused: {str(refusal)[:70]}")
                continue
            baseline = baseline or seconds
            promised_text = "-" if promised is None else f"{promised:9.2f}"
            print(
                f"{label:<26} {rms:9.2f} {worst:9.2f} {promised_text:>9} "
                f"{seconds:8.3f} {seconds / baseline:8.1f} {first:8.3f}"
            )

    print("\n## projection at scale: k=10000 random counts over m=1000, n=200")
    rng = np.random.default_rng(7)
    F = rng.integers(0, 2, (10_000, 1000))
    h = np.bincount(rng.integers(0, 1000, 200), minlength=1000)
    for constraint in ("cone", "count"):
        start = time.perf_counter()
        release = projection_mechanism(F, h, EPSILON, DELTA, constraint=constraint, rng=0)
        seconds = time.perf_counter() - start
        gaussian = gaussian_mechanism(F, h, EPSILON, DELTA, rng=0)
        projected, noisy = (np.sqrt(np.mean((r.answers - F @ h) ** 2)) for r in (release, gaussian))
        print(
            f"{constraint:<6} {seconds:6.2f} s  RMS error {projected:8.2f} "
            f"(Gaussian {noisy:8.2f}), gap {release.details['projection_gap']:.2e}"
        )

    noisy = F @ h + np.random.default_rng(8).normal(0.0, 300.0, F.shape[0])
    start = time.perf_counter()
    _, x, gap = project_answers(F, noisy, total=100.0)
    print(
        f"capped at N=100 (forces the FISTA path): {time.perf_counter() - start:.2f} s, "
        f"sum(x) = {x.sum():.2f}, certified gap {gap:.2e} (target {GAP_TOLERANCE:g} x ||noisy||^2)"
    )


if __name__ == "__main__":
    main()
