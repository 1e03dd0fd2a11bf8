"""Sorting integer keys (pair keys ``i n + j``, hash ranks) in linear time per 16-bit digit:
the sparse generator's and the clustering measurement's inner sorts. Reads no graph.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "DIGIT",
    "LARGE",
    "dense_ranks",
    "smallest",
    "sorted_floats",
    "sorted_keys",
    "stable_argsort",
]

DIGIT = 16
"""Bits per radix pass: NumPy sorts integers of at most 16 bits stably by a counting
(radix) sort, O(k)."""

LARGE = 2**21
"""From this many keys of 33 bits or more (pair keys ``i n + j`` beyond n = 2^16: three
radix passes or more), :func:`stable_argsort` and :func:`sorted_keys` sort by NumPy's
vectorised comparison sort instead, O(k log k) but without the passes' random reads:
1.8 times faster at 2^23 keys of 40 bits, slower below 2^21 keys or 33 bits
(benchmarks/RESULTS.md, "Issue 18: the release at scale, generation side")."""


def _comparison(keys: np.ndarray, top: int) -> bool:
    """Whether to sort these keys (largest ``top``) by the comparison sort (:data:`LARGE`)
    rather than by radix passes."""
    return keys.size >= LARGE and top >> (2 * DIGIT) > 0


def smallest(values: np.ndarray, k: int) -> np.ndarray:
    """The positions of the ``k`` smallest ``values``, ties to the earlier position, in
    increasing order: the set ``numpy.argsort(values, kind="stable")[:k]`` holds, by a
    partition in O(n). Unlike ``numpy.argpartition``, whose choice among tied values
    depends on the CPU's sorting kernels, the same on every machine.

    Examples
    --------
    >>> smallest(np.array([3, 1, 2, 1, 2]), 3).tolist()
    [1, 2, 3]
    """
    if k >= values.size:
        return np.arange(values.size)
    if k <= 0:
        return np.arange(0)
    cut = np.partition(values, k - 1)[k - 1]
    chosen = values < cut
    chosen[np.flatnonzero(values == cut)[: k - np.count_nonzero(chosen)]] = True
    return np.flatnonzero(chosen)


def stable_argsort(keys: np.ndarray) -> np.ndarray:
    """The permutation ``numpy.argsort(keys, kind="stable")`` gives, for non-negative
    integer keys, by a least-significant-digit radix sort: one stable counting sort per
    16-bit digit up to the largest key's, so O(k ceil(b / 16)) time for keys below
    ``2^b`` and O(k) memory (a pair key ``i n + j`` below 2^32 takes two passes, where a
    comparison sort of 10^5 keys takes about four times as long); from :data:`LARGE` keys
    of 33 bits or more, one comparison sort of the keys with their indices in the low bits
    (when both fit in 64 bits), O(k log k).

    Examples
    --------
    >>> keys = np.array([70000, 3, 70000, 65536, 3])
    >>> stable_argsort(keys).tolist()
    [1, 4, 3, 0, 2]
    >>> bool((stable_argsort(keys) == np.argsort(keys, kind="stable")).all())
    True
    """
    keys = np.asarray(keys)
    top, shift = int(keys.max()) if keys.size else 0, DIGIT
    index = (keys.size - 1).bit_length()
    if _comparison(keys, top) and top.bit_length() + index <= 64:
        # each key with its index in the low bits: distinct, so any sort is stable
        packed = keys.astype(np.uint64) << np.uint64(index)
        packed |= np.arange(keys.size, dtype=np.uint64)
        packed.sort()
        packed &= np.uint64((1 << index) - 1)
        return packed.astype(np.intp)
    # a cast to 16 bits keeps the low 16 (integer casts wrap): one digit, no mask
    order = np.argsort(keys.astype(np.uint16), kind="stable")
    while top >> shift:
        order = order[np.argsort((keys[order] >> shift).astype(np.uint16), kind="stable")]
        shift += DIGIT
    return order


def sorted_keys(keys: np.ndarray) -> np.ndarray:
    """The non-negative integer ``keys`` sorted ascending (:func:`stable_argsort`'s radix
    passes, or from :data:`LARGE` keys of 33 bits or more NumPy's comparison sort).

    Examples
    --------
    >>> sorted_keys(np.array([9, 2**40, 0, 9])).tolist()
    [0, 9, 9, 1099511627776]
    """
    keys = np.asarray(keys)
    if _comparison(keys, int(keys.max()) if keys.size else 0):
        return np.sort(keys)
    return keys[stable_argsort(keys)]


def dense_ranks(values: np.ndarray) -> tuple[int, np.ndarray]:
    """The number of distinct ``values`` and each one's rank among them (the size and
    the inverse of ``numpy.unique(values, return_inverse=True)``): counted without a sort
    when the values are finite and their offsets from the smallest are integers spanning
    fewer than ``len(values)`` (noisy degrees), O(n); else by ``numpy.unique``,
    O(n log n).

    Examples
    --------
    >>> count, ranks = dense_ranks(np.array([5.0, -1.0, 5.0, 2.0]))
    >>> count, ranks.tolist()
    (3, [2, 0, 2, 1])
    """
    values = np.asarray(values, dtype=float)
    low, high = values.min(initial=np.inf), values.max(initial=-np.inf)
    if np.isfinite(low) and np.isfinite(high) and high - low < values.size:
        offset = values - low
        if bool(np.all(np.rint(offset) == offset)):
            offset = offset.astype(np.intp)
            rank = np.cumsum(np.bincount(offset) > 0) - 1
            return int(rank[-1]) + 1, rank[offset]
    distinct, rank = np.unique(values, return_inverse=True)
    return distinct.size, rank.ravel()


def sorted_floats(x: np.ndarray) -> np.ndarray:
    """``numpy.sort(x)`` of a float array, the same bytes; by the radix sort
    (:func:`sorted_keys`) when the values are integers in [0, 2^52) without a sign bit
    (degrees: O(n) per 16 bits, where the comparison sort of 22,687 degrees takes about
    five times as long), else by ``numpy.sort``.

    Examples
    --------
    >>> sorted_floats(np.array([3.0, 0.0, 2.0])).tolist(), sorted_floats(np.array([0.5, -1.0]))
    ([0.0, 2.0, 3.0], array([-1. ,  0.5]))
    """
    whole = x.size and x.max() < 2.0**52 and not np.signbit(x).any()  # no -0.0 either
    if whole and bool(np.all(np.rint(x) == x)):
        return sorted_keys(x.astype(np.int64)).astype(x.dtype)
    return np.sort(x)
