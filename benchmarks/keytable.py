"""Issue 18, the release at scale: :class:`privcut.graph.keyset.KeyTable`'s size, build and
lookup time, and probes per lookup, at 10^4-10^7 pair keys, for several slots per key
(:data:`privcut.graph.keyset.SLOTS`; 8 was the table's size before), in one process on
the same keys (random distinct pair keys ``i n + j`` below n^2, n = 30 sqrt(k), 64-bit
slots above n^2 = 2^31). Probes: a key in the set is found after its distance from its
home slot plus one, any other key after the run of used slots from its home plus one.

Run: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/keytable.py [--sizes 4 5 6 7]``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from privcut.graph import keyset


def _probes(table: keyset.KeyTable, queries: np.ndarray) -> tuple[float, float]:
    """The mean probes of a lookup of the keys in the table and of the ``queries`` (keys
    not in it), read off the table's layout."""
    slots = table._table
    size = slots.size
    where = np.flatnonzero(slots >= 0)
    home = table._slots(slots[where])
    hits = float(((where - home) % size + 1).mean())
    # a miss from slot s reads the used slots up to the next never-used one
    free = np.flatnonzero(slots == keyset._EMPTY)
    start = table._slots(queries.astype(slots.dtype))
    nxt = np.searchsorted(free, start)
    stop = np.where(nxt < free.size, free[nxt % free.size], free[0] + size)
    return hits, float((stop - start + 1).mean())


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 5, 6, 7])
    parser.add_argument("--slots", type=float, nargs="+", default=[8, 4, 3, 2])
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    default = keyset.SLOTS
    print(f"KeyTable (SLOTS = {default} now); times: median of 3 (1 at 10^7), seconds")
    print(
        f"{'keys':>9} {'SLOTS':>5} {'slots/key':>9} {'MiB':>7} {'build':>7} {'lookups':>8} "
        f"{'churn':>7} {'probes hit':>10} {'miss':>6} {'build/8':>7}"
    )
    for exponent in args.sizes:
        k = 10**exponent
        n = int(30 * k**0.5)
        keys = np.unique(rng.integers(0, n * n, int(k * 1.1)))
        keys = keys[rng.permutation(keys.size)[:k]]
        queries = rng.integers(0, n * n, k // 10)
        queries = queries[~np.isin(queries, keys)]
        churn = keys[: k // 100]
        answers, reference = None, None
        for slots in args.slots:
            keyset.SLOTS = slots
            times = []
            for _ in range(1 if k >= 10**7 else 3):
                start = time.perf_counter()
                table = keyset.KeyTable(keys, high=n * n)
                built = time.perf_counter()
                found = table.contains(np.concatenate([queries, keys[: k // 10]]))
                looked = time.perf_counter()
                table.remove(churn)
                table.add(churn)
                times.append((built - start, looked - built, time.perf_counter() - looked))
            build, lookups, churned = np.median(times, axis=0)
            reference = build if reference is None else reference
            if answers is None:
                answers = found
            assert (found == answers).all(), "the answers depend on the table's size"
            hit, miss = _probes(table, queries)
            print(
                f"{k:>9,} {slots:>5g} {table._table.size / k:>9.2f} "
                f"{table._table.nbytes / 2**20:>7.1f} {build:>7.4f} {lookups:>8.4f} "
                f"{churned:>7.4f} {hit:>10.3f} {miss:>6.3f} {build / reference:>7.2f}"
            )
            del table
        keyset.SLOTS = default


if __name__ == "__main__":
    main(sys.argv[1:])
