"""One block pair's edges drawn by weight: ``count`` distinct vertex pairs of a block pair,
its endpoints drawn with probability proportional to their sides' weights (Chung & Lu
2002), by successive sampling without replacement -- candidate pairs by inverse CDF on the
cumulative weights, self-loops and repeats rejected and redrawn in draw order, uniformly
after :data:`MAX_ROUNDS` rounds -- or, for a block pair small or dense enough
(:data:`ENUMERATE_PAIRS`, :data:`ENUMERATE_FRACTION`), by enumerating its pairs with
Efraimidis–Spirakis keys (Efraimidis & Spirakis 2006), the same law. Pairs are named by
integer keys (:func:`pair_keys`). A step of :mod:`privcut.graph.sparse`; post-processing
(reads no graph). Time O(count log count) per round, or O(pairs) when enumerated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ENUMERATE_FRACTION = 0.25
"""A block pair whose count exceeds this fraction of its vertex pairs is enumerated (its
pairs are then at most 4x its edges, so memory stays O(|E|))."""

ENUMERATE_PAIRS = 4096
"""A block pair with at most this many vertex pairs is enumerated."""

MAX_ROUNDS = 32
"""Most rounds of redrawing rejected pairs by weight; the pairs still missing then come
uniformly from the block pair (which always finishes: the count is at most
ENUMERATE_FRACTION of its pairs)."""


@dataclass(frozen=True)
class Side:
    """One end of a block pair: its members (sorted indices) and their weights' CDF."""

    members: np.ndarray
    weights: np.ndarray

    @classmethod
    def of(cls, members: np.ndarray, weights: np.ndarray) -> Side:
        chosen = weights[members]
        if not chosen.sum() > 0.0:
            chosen = np.ones(members.size)
        return cls(members, chosen)

    def draw(self, count: int, generator: np.random.Generator, uniform: bool) -> np.ndarray:
        if uniform:
            return self.members[generator.integers(0, self.members.size, count)]
        cumulative = np.cumsum(self.weights)
        spots = generator.random(count) * cumulative[-1]
        picks = np.minimum(np.searchsorted(cumulative, spots, side="right"), self.members.size - 1)
        return self.members[picks]


def pair_keys(rows: np.ndarray, columns: np.ndarray, n: int, directed: bool) -> np.ndarray:
    """Each pair's integer key (row-major on the canonical orientation)."""
    if not directed:
        rows, columns = np.minimum(rows, columns), np.maximum(rows, columns)
    return rows.astype(np.int64) * n + columns


def key_ends(keys: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``divmod(keys, n)`` of pair keys ``i n + j`` (:func:`pair_keys`' inverse): the
    quotient, then the remainder by a product and a difference (the same integers;
    NumPy's integer remainder takes several times the quotient's time).

    Examples
    --------
    >>> [part.tolist() for part in key_ends(np.array([7, 9]), 4)]
    [[1, 2], [3, 1]]
    """
    first = keys // n
    return first, keys - first * n


def _first_new(keys: np.ndarray, have: np.ndarray) -> np.ndarray:
    """The keys not in ``have`` (sorted), each once, in draw order."""
    unique, first = np.unique(keys, return_index=True)
    at = np.minimum(np.searchsorted(have, unique), max(have.size - 1, 0))
    fresh = have[at] != unique if have.size else np.ones(unique.size, dtype=bool)
    return keys[np.sort(first[fresh])]


def _merged(keys: np.ndarray, new: np.ndarray) -> np.ndarray:
    """The sorted ``keys`` with the ``new`` ones in place (a merge, O(keys + new log new))."""
    new = np.sort(new)
    return np.insert(keys, np.searchsorted(keys, new), new)


def _rejection(source, target, count, n, directed, generator, taken=None) -> np.ndarray:
    """``count`` distinct pairs by successive draws, self-loops, repeats and the keys
    ``taken`` (sorted; none by default) rejected."""
    excluded = np.zeros(0, dtype=np.int64) if taken is None else taken  # sorted, kept so
    have = np.zeros(0, dtype=np.int64)
    for round_ in range(MAX_ROUNDS + 1):
        need = count - have.size
        if need == 0:
            break
        uniform = round_ == MAX_ROUNDS
        draws = max(need, 16)
        rows = source.draw(draws, generator, uniform)
        columns = target.draw(draws, generator, uniform)
        keep = rows != columns
        fresh = _first_new(pair_keys(rows[keep], columns[keep], n, directed), excluded)
        have = np.concatenate([have, fresh[:need]])
        excluded = _merged(excluded, fresh[:need])
        if uniform and have.size < count:
            rest = rejection_uniform(
                source, target, count - have.size, excluded, n, directed, generator
            )
            return np.concatenate([have, rest])
    return have


def rejection_uniform(source, target, count, have, n, directed, generator) -> np.ndarray:
    """The last pairs uniformly from the block pair (each round keeps a constant share),
    none of the keys ``have``."""
    found = np.zeros(0, dtype=np.int64)
    taken = np.sort(have)  # with the found keys merged in, kept sorted
    while found.size < count:
        draws = max(count - found.size, 16)
        rows = source.draw(draws, generator, True)
        columns = target.draw(draws, generator, True)
        keep = rows != columns
        fresh = _first_new(pair_keys(rows[keep], columns[keep], n, directed), taken)
        fresh = fresh[: count - found.size]
        found = np.concatenate([found, fresh])
        taken = _merged(taken, fresh)
    return found


def _enumerated(source, target, count, same, n, directed, generator, taken) -> np.ndarray:
    """``count`` distinct pairs of a small or dense block pair other than the ``taken``
    keys, without replacement with probability proportional to the product of the ends'
    weights (Efraimidis–Spirakis keys ``E / w``; pairs of weight 0 come last, uniformly)."""
    if same and not directed:
        left, right = np.triu_indices(source.members.size, k=1)
    else:
        left, right = (
            part.ravel() for part in np.indices((source.members.size, target.members.size))
        )
        if same:
            left, right = left[left != right], right[left != right]
    if taken.size:
        free = ~np.isin(pair_keys(source.members[left], target.members[right], n, directed), taken)
        left, right = left[free], right[free]
    weights = source.weights[left] * target.weights[right]
    exponential = generator.exponential(size=weights.size)
    positive = weights > 0.0
    keys = np.where(positive, exponential / np.where(positive, weights, 1.0), exponential)
    chosen = np.lexsort((keys, ~positive))[:count]
    return pair_keys(source.members[left[chosen]], target.members[right[chosen]], n, directed)


def pair_count(size_a: int, size_b: int, same: bool, directed: bool) -> int:
    """The vertex pairs of a block pair."""
    return size_a * (size_a - 1) // (1 if directed else 2) if same else size_a * size_b


def _enumerates(size_a: int, size_b: int, count: int, same: bool, directed: bool) -> bool:
    """Whether a block pair is small or dense enough to draw by :func:`_enumerated`."""
    pairs = pair_count(size_a, size_b, same, directed)
    return pairs <= ENUMERATE_PAIRS or count > ENUMERATE_FRACTION * pairs


def block_pair(source, target, count, same, n, directed, rng, taken) -> np.ndarray:
    """``count`` distinct pairs of one block pair other than the sorted ``taken`` keys
    (distinct pairs of this block pair), as keys."""
    size_a, size_b = source.members.size, target.members.size
    pairs = pair_count(size_a, size_b, same, directed)
    if count + taken.size > pairs:
        raise ValueError(
            f"a block pair has {pairs} vertex pairs, asked for {count} edges besides "
            f"{taken.size} taken"
        )
    if _enumerates(size_a, size_b, count + taken.size, same, directed):
        return _enumerated(source, target, count, same, n, directed, rng, taken)
    return _rejection(source, target, count, n, directed, rng, taken)
