"""Synthetic graphs (issue 5): speed against the ``cutnorm`` package, memory, accuracy.

Speed: ``synthetic_graph`` from randomized response alone (``measurements=None``; spectral
oracle, random rounding) on G(n, 0.3) at
epsilon = 1, against one call of the PyPI package ``cutnorm`` on the same noisy
matrix z minus its mean (what one separation step would have to solve), with the
release's own time split (read from the DEBUG record privcut logs: releases carry no
timings). Memory: peak traced allocation of the whole release at
the largest size. Accuracy: the estimated ``||M - A||_C`` (best cut value found by
privcut's ``cut_norm``, with its certified upper bound) for M = z, clip(z, 0, 1)
and the weighted release x, for each oracle, on G(1000, 0.05) and G(1000, 0.3).

Enumerable: on G(n, p) with n <= 16 every cut is enumerated exactly; for p in {0.2, 0.5},
epsilon in {0.5, 1, 2} and 20 seeds per cell, the weighted release's max cut error
against z's and clip(z)'s, and how often ``cut_error_bound`` held.

Run: ``pip install ".[bench]" && python benchmarks/synthetic.py``
(options: ``--speed-sizes 1000 2000 --memory-size 4000 --accuracy-size 1000
--enumerable 16``; pass an empty list or 0 to skip a part).
"""

from __future__ import annotations

import argparse
import logging
import time
import tracemalloc

import networkx as nx
import numpy as np

from privcut import synthetic_graph
from privcut.graph import EdgeUniverse, cut_norm, noisy_graph, synthetic_from_noisy

EPSILON = 1.0


class Split(logging.Handler):
    """The last release's wall-clock time and split, from the record privcut logs at DEBUG
    on the ``privcut`` logger (releases carry no timings)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seconds, self.timings = 0.0, {}

    def emit(self, record: logging.LogRecord) -> None:
        self.seconds = getattr(record, "seconds", self.seconds)
        self.timings = getattr(record, "timings", self.timings)


def timed(release, *args, **kwargs):
    """``release(*args, **kwargs)`` and its logged time split."""
    logger, split = logging.getLogger("privcut"), Split()
    level = logger.level
    logger.addHandler(split)
    logger.setLevel(logging.DEBUG)
    try:
        return release(*args, **kwargs), split
    finally:
        logger.removeHandler(split)
        logger.setLevel(level)


def graph(n: int, p: float, seed: int = 1) -> nx.Graph:
    return nx.fast_gnp_random_graph(n, p, seed=seed)


def speed(sizes: list[int]) -> None:
    from cutnorm import compute_cutnorm

    print("speed: G(n, 0.3), epsilon = 1, spectral oracle, random rounding; seconds")
    print(
        f"{'n':>5} {'cutnorm':>8} {'release':>8} {'ratio':>6} {'noise':>6} {'tau':>6} "
        f"{'oracle':>7} {'solver':>7} {'cert':>6} {'round':>6} {'cuts':>5}"
    )
    for n in sizes:
        G = graph(n, 0.3)
        noisy = noisy_graph(G, EPSILON, rng=7)
        centred = noisy.matrix - noisy.matrix.mean()
        start = time.perf_counter()
        compute_cutnorm(centred, np.zeros_like(centred))
        baseline = time.perf_counter() - start
        H, split = timed(synthetic_graph, G, EPSILON, measurements=None, rng=7)
        cuts, timings = H.graph["privcut"]["solver"]["cuts"], split.timings
        print(
            f"{n:>5} {baseline:>8.2f} {split.seconds:>8.2f} "
            f"{split.seconds / baseline:>6.2f} {timings['noise']:>6.2f} "
            f"{timings['threshold']:>6.2f} {timings['oracle']:>7.2f} {timings['solver']:>7.2f} "
            f"{timings['certificate']:>6.2f} {timings['rounding']:>6.2f} {cuts:>5}"
        )


def memory(n: int) -> None:
    G = graph(n, 0.3)
    tracemalloc.start()
    start = time.perf_counter()
    synthetic_graph(G, EPSILON, measurements=None, rng=7)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    matrix = n * n * 8
    print(
        f"\nmemory: n = {n}, peak traced {peak / 2**30:.2f} GiB = {peak / matrix:.1f} x one "
        f"n x n float64 matrix ({matrix / 2**20:.0f} MiB); {seconds:.1f} s"
    )


def accuracy(n: int) -> None:
    print(f"\naccuracy: n = {n}, epsilon = 1; ||M - A||_C as found value [certified bound]")
    print(f"{'p':>5} {'oracle':<10} {'z':>16} {'clip(z)':>16} {'x':>16} {'x/z':>6} {'s':>6}")
    for p in (0.05, 0.3):
        G = graph(n, p)
        universe = EdgeUniverse.of(G)
        A = universe.adjacency(G).toarray()
        noisy = noisy_graph(G, EPSILON, rng=7)
        z = cut_norm(noisy.matrix - A, rng=0)
        clip = cut_norm(np.clip(noisy.matrix, 0.0, 1.0) - A, rng=0)
        for oracle in ("spectral", "alon-naor"):
            start = time.perf_counter()
            H = synthetic_from_noisy(noisy, oracle=oracle, rounding=None, rng=3)
            seconds = time.perf_counter() - start
            x = cut_norm(universe.adjacency(H, "weight").toarray() - A, rng=0)
            print(
                f"{p:>5} {oracle:<10} {z.value:>7.0f} [{z.upper_bound:>6.0f}] "
                f"{clip.value:>7.0f} [{clip.upper_bound:>6.0f}] "
                f"{x.value:>7.0f} [{x.upper_bound:>6.0f}] {x.value / z.value:>6.3f} "
                f"{seconds:>6.1f}"
            )


def enumerable(n: int, seeds: int = 20) -> None:
    print(f"\nenumerable: n = {n}, {seeds} seeds per cell, exact max cut errors (means)")
    print(
        f"{'p':>4} {'eps':>4} {'z':>7} {'clip':>7} {'x':>7} {'x/min':>6} "
        f"{'worst x/z':>9} {'bound held':>10}"
    )
    for p in (0.2, 0.5):
        for epsilon in (0.5, 1.0, 2.0):
            errors, ratios, held = {"z": [], "clip": [], "x": []}, [], 0
            for seed in range(seeds):
                G = nx.gnp_random_graph(n, p, seed=seed)
                universe = EdgeUniverse.of(G)
                A = universe.adjacency(G).toarray()
                noisy = noisy_graph(G, epsilon, rng=1000 + seed)
                H = synthetic_from_noisy(noisy, rounding=None, rng=seed)
                for name, M in (
                    ("z", noisy.matrix),
                    ("clip", np.clip(noisy.matrix, 0.0, 1.0)),
                    ("x", universe.adjacency(H, "weight").toarray()),
                ):
                    errors[name].append(cut_norm(M - A, method="exact").value)
                ratios.append(errors["x"][-1] / errors["z"][-1])
                held += errors["x"][-1] <= H.graph["privcut"]["cut_error_bound"]
            means = {name: float(np.mean(values)) for name, values in errors.items()}
            print(
                f"{p:>4} {epsilon:>4} {means['z']:>7.1f} {means['clip']:>7.1f} "
                f"{means['x']:>7.1f} {means['x'] / min(means['z'], means['clip']):>6.3f} "
                f"{max(ratios):>9.2f} {held:>7}/{seeds}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speed-sizes", type=int, nargs="*", default=[1000, 2000])
    parser.add_argument("--memory-size", type=int, default=4000)
    parser.add_argument("--accuracy-size", type=int, default=1000)
    parser.add_argument("--enumerable", type=int, default=16)
    args = parser.parse_args()
    if args.speed_sizes:
        speed(args.speed_sizes)
    if args.memory_size:
        memory(args.memory_size)
    if args.accuracy_size:
        accuracy(args.accuracy_size)
    if args.enumerable:
        enumerable(args.enumerable)


if __name__ == "__main__":
    main()
