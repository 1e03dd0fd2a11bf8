"""Scale: the blocks of a cut workload, ``numpy.unique(axis=0)`` against ``row_ranks``.

``CutWorkload.of`` splits the nodes into blocks, the classes of nodes on the same sides of
every query: the distinct rows of the n x 2k 0/1 membership matrix ``[S T]``. It took them
from ``numpy.unique(..., axis=0, return_inverse=True)``, which sorts whole rows as opaque
bytes; ``privcut.graph.sorting.row_ranks`` packs each row into 64-bit words and orders them
by one ``numpy.lexsort`` (the same blocks, checked here). Workloads: "groups", every pair of
10 equal groups (45 queries, 90 columns, 10 blocks); "random", k queries of two uniform
random halves each (2k columns, up to 4^k blocks). The table gives median seconds over
``--repeats`` runs (methods alternated within each run), the ratio unique / row_ranks, and
the physical floor: one pass over the matrix (``numpy.packbits`` of its rows).

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/workload_blocks.py [--sizes 20000 100000
1000000] [--random-queries 6] [--repeats 5]``.
"""

from __future__ import annotations

import argparse

import numpy as np
from sorts import timed  # benchmarks/ is on the path when a script in it runs

from privcut.graph.sorting import row_ranks


def groups_membership(n: int, groups: int = 10) -> np.ndarray:
    """``[S T]`` of the workload of every pair of ``groups`` equal groups of range(n)."""
    label = np.arange(n) * groups // n
    pairs = [(a, b) for a in range(groups) for b in range(a + 1, groups)]
    S = np.column_stack([label == a for a, _ in pairs])
    T = np.column_stack([label == b for _, b in pairs])
    return np.hstack([S, T])


def random_membership(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """``[S T]`` of k queries, each side a uniform random half of range(n)."""
    return rng.random((n, 2 * k)) < 0.5


def unique_rows(bits: np.ndarray) -> tuple[int, np.ndarray]:
    """The former way: ``numpy.unique`` over whole rows."""
    distinct, inverse = np.unique(bits, axis=0, return_inverse=True)
    return len(distinct), np.ravel(inverse)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[20_000, 100_000, 1_000_000])
    parser.add_argument("--random-queries", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    functions = {
        "packbits": lambda bits: np.packbits(bits, axis=1),
        "unique": unique_rows,
        "row_ranks": row_ranks,
    }
    print("| nodes | workload | columns | blocks | packbits (floor) | numpy.unique | ", end="")
    print("row_ranks | unique / row_ranks |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for n in args.sizes:
        cases = {
            "groups": groups_membership(n),
            "random": random_membership(n, args.random_queries, rng),
        }
        for name, bits in cases.items():
            count, ranks = row_ranks(bits)
            expected_count, expected = unique_rows(bits)
            assert count == expected_count and np.array_equal(ranks, expected)
            t = timed(functions, bits, args.repeats)
            print(
                f"| {n:,} | {name} | {bits.shape[1]} | {count} | {t['packbits']:.2e} | "
                f"{t['unique']:.2e} | {t['row_ranks']:.2e} | "
                f"{t['unique'] / t['row_ranks']:.1f} |"
            )


if __name__ == "__main__":
    main()
