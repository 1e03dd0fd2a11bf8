"""Speed and memory of privcut's noise samplers against NumPy's own Laplace sampler.

Prints a table: for each sampler and each randomness source, the best-of-``--repeat``
time for ``--draws`` draws, its ratio to ``Generator.laplace`` on the same source in
the same process, the peak memory traced during one call, and the sampler's bound on
its distance from the exact distribution. The row ``float inversion`` is the discrete
Laplace sampler privcut had before the exact one: the difference of two ``floor(-scale
log U)`` in float64, within about ``3.1e-14`` per unit of scale of the exact law (not
safe to use: written here as the baseline only).

Run: ``python benchmarks/samplers.py`` (defaults: 10**7 draws, 3 repeats, scale 2).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable
from functools import partial

import numpy as np

from privcut.privacy import (
    discrete_gaussian,
    discrete_gaussian_tv_bound,
    discrete_laplace,
    discrete_laplace_tv_bound,
    secure_generator,
)


def float_inversion(scale: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """The replaced float sampler: ``G1 - G2``, ``G = floor(-scale log(1 - random()))``."""
    first, second = (np.floor(-scale * np.log1p(-rng.random(n))) for _ in range(2))
    return (first - second).astype(np.int64)


def float_bound(scale: float) -> float:
    """The replaced sampler's proved distance from exact per geometric draw (grid and
    rounding terms, 2**-53 and 2**-48)."""
    return 2.02 * 2.0**-48 * (scale + 2.0 + 1.0 / scale) + 2.0 * (36.74 * scale + 2.0) * 2.0**-53


def best_time(draw: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        draw()
        times.append(time.perf_counter() - start)
    return min(times)


def peak_memory(draw: Callable[[], object]) -> float:
    tracemalloc.start()
    draw()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=10**7)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", type=float, default=2.0)
    args = parser.parse_args()
    n, scale = args.draws, args.scale

    samplers = [
        ("numpy Generator.laplace", lambda rng: rng.laplace(0.0, scale, n), None),
        ("float inversion", partial(float_inversion, scale, n), 2 * float_bound(scale)),
        (
            "discrete_laplace",
            lambda rng: discrete_laplace(scale, n, rng=rng),
            discrete_laplace_tv_bound(scale),
        ),
        (
            "discrete_gaussian",
            lambda rng: discrete_gaussian(scale, n, rng=rng),
            discrete_gaussian_tv_bound(scale),
        ),
    ]
    sources = {"seeded PCG64": np.random.default_rng(0), "secure AES-CTR": secure_generator()}
    print(f"{n:,} draws, scale {scale}, best of {args.repeat}")
    header = ("source", "sampler", "seconds", "ratio", "peak MiB", "TV bound")
    print("{:<16} {:<24} {:>8} {:>6} {:>9} {:>9}".format(*header))
    for source, rng in sources.items():
        baseline = None
        for name, sample, bound in samplers:
            draw = partial(sample, rng)
            seconds = best_time(draw, args.repeat)
            baseline = baseline or seconds
            bound_text = "exact*" if bound is None else f"{bound:.1e}"
            print(
                f"{source:<16} {name:<24} {seconds:8.3f} {seconds / baseline:6.2f} "
                f"{peak_memory(draw):9.1f} {bound_text:>9}"
            )
    print("* continuous: exact up to floating point; see privcut.privacy.noise on float leaks")


if __name__ == "__main__":
    main()
