"""Issue 18, speed: the release's integer sorts, 16-bit radix passes against NumPy's
vectorised comparison sort.

``privcut.graph.sorting.stable_argsort`` (the stable order of non-negative integer keys:
pair keys ``i n + j``, hash ranks, degrees) sorted keys of more than 16 bits by one
counting-sort pass per 16-bit digit until this comparison, and the keys themselves
(``sorted_keys``) by the same passes and a gather. With NumPy 2's sorts (x86-simd-sort
where the CPU has AVX2 or AVX-512) one comparison sort of the keys with their indices in
the low bits (distinct, so the order is the stable one; "packed argsort",
``sorting.packed_argsort``, timed at every width here; "radix argsort" the passes,
``sorting.radix_argsort``) is faster from 17 bits at 10^5 keys and more, as fast at 10^4, and
``numpy.sort`` of the keys from about 10^5 keys at any width. The table gives the median
seconds over ``--repeats`` runs (the methods alternated within each run) of random keys
below ``2^bits``, and the ratios radix / library: the passes against the library's
``stable_argsort`` (one pass up to 16 bits, the packed sort above), the passes plus a
gather against ``numpy.sort``.
The physical floor is one pass over the keys: ``keys.copy()``.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/sorts.py [--sizes 10000 100000 1000000]
[--bits 12 16 24 32 40] [--repeats 21]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from privcut.graph.sorting import packed_argsort, radix_argsort, stable_argsort


def radix_sort(keys: np.ndarray) -> np.ndarray:
    """The keys sorted by the radix passes and a gather."""
    return keys[radix_argsort(keys)]


def timed(functions: dict, keys: np.ndarray, repeats: int) -> dict[str, float]:
    """Median seconds of each function on ``keys``, the functions alternated per run."""
    seconds = {name: [] for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            start = time.perf_counter()
            function(keys)
            seconds[name].append(time.perf_counter() - start)
    return {name: float(np.median(values)) for name, values in seconds.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--bits", nargs="+", type=int, default=[12, 16, 24, 32, 40])
    parser.add_argument("--repeats", type=int, default=21)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    functions = {
        "copy": np.copy,
        "radix argsort": radix_argsort,
        "packed argsort": packed_argsort,
        "stable_argsort": stable_argsort,
        "radix sort": radix_sort,
        "np.sort": np.sort,
    }
    print("| keys | bits | copy (floor) | radix argsort | packed argsort | ", end="")
    print("stable_argsort | ratio | radix sort | np.sort | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in args.sizes:
        for bits in args.bits:
            keys = rng.integers(0, 2**bits, size=size, dtype=np.int64)
            assert np.array_equal(stable_argsort(keys), radix_argsort(keys))
            assert np.array_equal(packed_argsort(keys), radix_argsort(keys))
            t = timed(functions, keys, args.repeats)
            print(
                f"| {size:,} | {bits} | {t['copy']:.2e} | {t['radix argsort']:.2e} | "
                f"{t['packed argsort']:.2e} | {t['stable_argsort']:.2e} | "
                f"{t['radix argsort'] / t['stable_argsort']:.2f} | "
                f"{t['radix sort']:.2e} | {t['np.sort']:.2e} | "
                f"{t['radix sort'] / t['np.sort']:.2f} |"
            )


if __name__ == "__main__":
    main()
