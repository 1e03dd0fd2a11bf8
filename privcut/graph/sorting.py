"""Stable orders of integer keys (pair keys ``i n + j``, hash ranks), the sparse generator's
and the clustering measurement's inner sorts: a counting-sort pass for keys of at most 16
bits, NumPy's vectorised comparison sort for wider ones; the positions of the k smallest
values, dense ranks and the ranks of 0/1 rows. Reads no graph.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "DIGIT",
    "dense_ranks",
    "packed_argsort",
    "radix_argsort",
    "row_ranks",
    "smallest",
    "stable_argsort",
]

DIGIT = 16
"""Bits per radix pass: NumPy sorts integers of at most 16 bits stably by a counting
(radix) sort, O(k)."""


def _comparison(top: int) -> bool:
    """Whether to sort keys whose largest is ``top`` by a comparison sort rather than by
    radix passes: when they need more than one 16-bit pass. With NumPy 2's vectorised
    sorts (x86-simd-sort) one comparison sort of the keys and their indices is 0.8-2.4
    times as fast as the two to three passes at 10^4 keys and 1.2-5.7 times at 10^5-10^6
    keys of 24-40 bits; at 16 bits or fewer it is within 0.6-1.7 times the one pass, which
    is kept (benchmarks/RESULTS.md, "Issue 18: release speed, eleventh round"; the passes
    were faster below 2^21 keys with the NumPy this was first measured on). (Sorting the
    keys themselves is ``numpy.sort``'s: 1.3-9.8 times faster than the passes and a gather
    at 10^5-10^6 keys.)"""
    return top >> DIGIT > 0


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


def packed_argsort(keys: np.ndarray) -> np.ndarray:
    """The permutation ``numpy.argsort(keys, kind="stable")`` gives, for non-negative
    integer keys whose bits and the bits of their positions fit 64 together: one
    comparison sort of the keys with their positions in the low bits (distinct, so any
    sort is stable; 32-bit words when both fit in 32), O(k log k) at vectorised speed,
    O(k) memory. ValueError when they do not fit.

    Examples
    --------
    >>> packed_argsort(np.array([70000, 3, 70000, 65536, 3])).tolist()
    [1, 4, 3, 0, 2]
    """
    keys = np.asarray(keys)
    index = (keys.size - 1).bit_length()
    width = (int(keys.max()) if keys.size else 0).bit_length() + index
    if width > 64:
        raise ValueError(f"keys and positions take {width} bits, more than 64")
    word = np.uint32 if width <= 32 else np.uint64
    packed = keys.astype(word) << word(index)
    packed |= np.arange(keys.size, dtype=word)
    packed.sort()
    packed &= word((1 << index) - 1)
    return packed.astype(np.intp)


def radix_argsort(keys: np.ndarray) -> np.ndarray:
    """The permutation ``numpy.argsort(keys, kind="stable")`` gives, for non-negative
    integer keys, by least-significant-digit radix passes: one stable counting sort (NumPy's
    radix sort of 16-bit integers) per 16-bit digit, O(k ceil(b / 16)) for keys below
    ``2^b``, O(k) memory.

    Examples
    --------
    >>> radix_argsort(np.array([70000, 3, 70000, 65536, 3])).tolist()
    [1, 4, 3, 0, 2]
    """
    keys = np.asarray(keys)
    top, shift = int(keys.max()) if keys.size else 0, DIGIT
    # a cast to 16 bits keeps the low 16 (integer casts wrap): one digit, no mask
    order = np.argsort(keys.astype(np.uint16), kind="stable")
    while top >> shift:
        order = order[np.argsort((keys[order] >> shift).astype(np.uint16), kind="stable")]
        shift += DIGIT
    return order


def stable_argsort(keys: np.ndarray) -> np.ndarray:
    """The permutation ``numpy.argsort(keys, kind="stable")`` gives, for non-negative
    integer keys: below 2^16 by one counting-sort pass (:func:`radix_argsort`), O(k);
    wider by :func:`packed_argsort`, O(k log k) at vectorised speed (:func:`_comparison`),
    or, for keys too wide to pack, by :func:`radix_argsort`'s passes. O(k) memory.

    Examples
    --------
    >>> keys = np.array([70000, 3, 70000, 65536, 3])
    >>> stable_argsort(keys).tolist()
    [1, 4, 3, 0, 2]
    >>> bool((stable_argsort(keys) == np.argsort(keys, kind="stable")).all())
    True
    """
    keys = np.asarray(keys)
    top = int(keys.max()) if keys.size else 0
    if _comparison(top) and top.bit_length() + (keys.size - 1).bit_length() <= 64:
        return packed_argsort(keys)
    return radix_argsort(keys)


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


def row_ranks(bits: np.ndarray) -> tuple[int, np.ndarray]:
    """The number of distinct rows of a 0/1 matrix and each row's rank among them in
    lexicographic order (the size and the inverse of ``numpy.unique(bits, axis=0,
    return_inverse=True)``): the rows packed into 64-bit words, ordered by one
    :func:`numpy.lexsort` over the words, O(n w log n) for n rows of w words, instead of
    ``numpy.unique``'s sort of whole rows as opaque bytes (3 ms instead of 0.4 s for the
    20,000 rows of 90 bits of a 45-query workload).

    Examples
    --------
    >>> count, ranks = row_ranks(np.array([[1, 0], [0, 1], [1, 0]], dtype=bool))
    >>> count, ranks.tolist()
    (2, [1, 0, 1])
    """
    bits = np.asarray(bits, dtype=bool)
    n = bits.shape[0]
    if n == 0 or bits.shape[1] == 0:  # no rows, or every row the empty one
        return min(n, 1), np.zeros(n, dtype=np.intp)
    packed = np.packbits(bits, axis=1)  # the first column in the top bit: order kept
    padded = np.zeros((n, -(-packed.shape[1] // 8) * 8), dtype=np.uint8)
    padded[:, : packed.shape[1]] = packed
    words = padded.view(">u8").astype(np.uint64)  # big-endian: byte order is word order
    order = np.lexsort(words.T[::-1])  # the first word is the primary key
    ordered = words[order]
    new = np.concatenate([[False], np.any(ordered[1:] != ordered[:-1], axis=1)])
    ranks = np.empty(n, dtype=np.intp)
    ranks[order] = np.cumsum(new)
    return int(ranks[order[-1]]) + 1, ranks
