"""A set of non-negative integer keys (pair keys ``i n + j``) that answers membership,
takes keys out and puts keys in a whole array at a time, each in expected O(1) per key:
the edge set of :func:`~privcut.graph.assortativity.assortative_swaps`, which changes by a
few thousand keys per pass and would otherwise be re-sorted (O(|E|)) every pass. Reads no
graph.
"""

from __future__ import annotations

import secrets

import numpy as np

__all__ = ["SLOTS", "KeyTable"]


def _multiplier(width: int) -> int:
    """A random odd ``width``-bit multiplier for multiplicative hashing, drawn afresh per
    table from the OS's source (Dietzfelbinger et al. 1997: for any fixed keys, few
    collisions in expectation over the multiplier; a fixed one, e.g. 2^w over the golden
    ratio, lets some key sets, such as a hub's edges at a Fibonacci n, fill one run of
    slots: review r7 F4). Only the table's speed depends on it, never its answers."""
    return secrets.randbits(width) | 1


SLOTS = 3
"""A table built (or rebuilt) for k keys has the least power of two of at least ``SLOTS k``
slots (3 to 6 per key, at most 1/3 full): at most about 1.25 probes per lookup of a key in
the set and 1.6 per other key under linear probing (Knuth's ``(1 + 1 / (1 - a)) / 2`` and
``(1 + 1 / (1 - a)^2) / 2`` at load a; 1.1-1.2 and 1.3-1.5 measured at 10^4-10^7 keys),
in 24-48 bytes per key with 64-bit slots: the 8-16 slots per key of before took 4 times
the memory (1 GiB for 10^7 keys) and 4 times the build time (writing them) for 0.1 fewer
probes (benchmarks/RESULTS.md, "Issue 18: the release at scale, generation side")."""

_EMPTY, _GONE = -1, -2
"""The table's marks: a slot never used (a lookup stops there), a key taken out (a
tombstone: a lookup goes on, an insertion may reuse it)."""


class KeyTable:
    """A set of distinct non-negative integer keys (below ``high``: every key it holds
    or is asked about) in an open-addressing hash table: multiplicative hashing with a
    random multiplier per table, linear probing, load at most 1/:data:`SLOTS` with the keys it
    was built with, 32-bit slots when ``high <= 2^31``, keys taken out left as tombstones. Every
    method works on a whole array at a time, expected O(1) time per key (over the
    multiplier, for any keys); O(len(keys)) memory. The answers depend only on the keys in
    the set, never on the table's layout.

    The slots ever used (keys and tombstones) stay at most half the table: an
    :meth:`add` that would pass that rebuilds the table first (the live keys only, sized
    for them and the new keys: O(len(table)) then, amortised over the adds since the last
    rebuild), so a lookup always ends at a never-used slot and a set churned by
    :meth:`remove` then :meth:`add` (the swaps' use) or grown keeps expected O(1) probes.

    Examples
    --------
    >>> keys = KeyTable(np.array([3, 10, 2**40]))
    >>> keys.contains(np.array([10, 11, 2**40])).tolist()
    [True, False, True]
    >>> keys.remove(np.array([10]))
    >>> keys.add(np.array([11, 12]))
    >>> keys.contains(np.array([10, 11, 12, 3])).tolist()
    [False, True, True, True]
    >>> len(keys)
    4
    """

    def __init__(self, keys: np.ndarray, high: int = 2**63) -> None:
        keys = np.asarray(keys, dtype=np.int64)
        # 32-bit slots where every key fits: half the table to allocate and touch
        self._dtype = np.dtype(np.int32 if high <= 2**31 else np.int64)
        self._unsigned = np.dtype(np.uint32 if high <= 2**31 else np.uint64).type
        self._empty(keys.size)
        self.add(keys)

    def _empty(self, count: int) -> None:
        """A new empty table for ``count`` keys (at most 1/:data:`SLOTS` full with them),
        with a new multiplier."""
        width = 8 * self._dtype.itemsize
        bits = max(4, int(SLOTS * count - 1).bit_length())
        self._mask, self._shift = (1 << bits) - 1, self._unsigned(width - bits)
        self._multiplier = self._unsigned(_multiplier(width))
        self._table = np.full(1 << bits, _EMPTY, dtype=self._dtype)
        self._size = self._used = 0

    def __len__(self) -> int:
        return self._size

    def _slots(self, keys: np.ndarray) -> np.ndarray:
        """Each key's home slot (the top bits of its product with the multiplier)."""
        slots = keys.view(self._unsigned) * self._multiplier
        slots >>= self._shift
        # below 2^bits: a 64-bit hash is its own index, a 32-bit one is widened
        return slots.view(np.intp) if slots.itemsize == 8 else slots.astype(np.intp)

    def add(self, keys: np.ndarray) -> None:
        """Put the distinct ``keys``, none of them in the set, in: each at the first slot
        from its home that is free (never used or a tombstone), one key per slot."""
        keys = np.asarray(keys).astype(self._dtype, copy=False)
        if 2 * (self._used + keys.size) > self._table.size:  # keep never-used slots
            live = self._table[self._table >= 0]
            self._empty(live.size + keys.size)
            self.add(live)
        self._size += keys.size
        table, mask, slot = self._table, self._mask, self._slots(keys)
        if keys.size and self._used == 0:  # every slot never used: none to read first
            table[slot] = keys
            placed = table[slot] == keys
            self._used += int(np.count_nonzero(placed))
            keys, slot = keys[~placed], (slot[~placed] + 1) & mask
        while keys.size:  # place the keys whose slot is free (one per slot), move the rest on
            current = table[slot]
            free, fresh = current < 0, current == _EMPTY
            table[slot[free]] = keys[free]
            placed = table[slot] == keys
            self._used += int(np.count_nonzero(placed & fresh))
            keys, slot = keys[~placed], (slot[~placed] + 1) & mask

    def _find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Whether each key is in the set and, where it is, its slot."""
        table, mask, slot = self._table, self._mask, self._slots(keys)
        found = table[slot]
        hit = found == keys
        active = np.flatnonzero((found != _EMPTY) & ~hit)
        while active.size:  # a lookup stops at its key or at a never-used slot
            slot[active] = (slot[active] + 1) & mask
            found = table[slot[active]]
            match = found == keys[active]
            hit[active[match]] = True
            active = active[(found != _EMPTY) & ~match]
        return hit, slot

    def contains(self, queries: np.ndarray) -> np.ndarray:
        """Whether each of the ``queries`` (non-negative integers) is in the set."""
        return self._find(np.asarray(queries).astype(self._dtype, copy=False))[0]

    def remove(self, keys: np.ndarray) -> None:
        """Take the distinct ``keys``, each in the set, out (their slots become
        tombstones)."""
        keys = np.asarray(keys).astype(self._dtype, copy=False)
        hit, slot = self._find(keys)
        if not hit.all():
            raise ValueError("KeyTable.remove: a key to take out is not in the set")
        self._table[slot] = _GONE
        self._size -= keys.size
