"""The block pairs of the degree-corrected block model (Karrer & Newman 2011) and how
each is drawn: :class:`Blocks` holds every group's members and every block pair's
integer count, draws the block pairs by weight
(:func:`~privcut.graph.blockdraw.block_pair`) or by pairing integer stubs
(:mod:`privcut.graph.pairing`), and gives a pair's prior edge probability under the model;
with the nodes' weights (:func:`node_weights`), the groups' members
(:func:`group_members`) and the multiplicative degree correction (:func:`corrected`). A
step of :mod:`privcut.graph.sparse`; post-processing (reads no graph). O(n + |E|) memory.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privcut.graph.blockdraw import ENUMERATE_FRACTION, ENUMERATE_PAIRS, Side, block_pair
from privcut.graph.pairing import deal, paired


@dataclass(frozen=True)
class Blocks:
    """The block pairs to draw: every group's members, the pairs' groups and counts."""

    members: list
    first: np.ndarray
    second: np.ndarray
    counts: np.ndarray
    n: int
    directed: bool
    taken: tuple | None = None
    """Per block pair, the sorted keys its edges are drawn without (filtered survivors),
    or None."""

    def triples(self):
        """Every block pair's two groups and count."""
        return zip(self.first, self.second, self.counts, strict=True)

    def excluded(self, k: int) -> np.ndarray:
        """The sorted keys block pair k's edges are drawn without."""
        return np.zeros(0, dtype=np.int64) if self.taken is None else self.taken[k]

    def enumerates(self) -> np.ndarray:
        """Per block pair, whether it is small or dense enough to draw by enumeration
        (:func:`_enumerated`; counting its ``taken`` keys). O(block pairs)."""
        sizes = np.array([members.size for members in self.members], dtype=np.int64)
        first, second = np.asarray(self.first), np.asarray(self.second)
        size_a, size_b, same = sizes[first], sizes[second], first == second
        pairs = np.where(
            same, size_a * (size_a - 1) // (1 if self.directed else 2), size_a * size_b
        )
        taken = [0] * first.size if self.taken is None else [keys.size for keys in self.taken]
        wanted = np.asarray(self.counts, dtype=np.int64) + np.asarray(taken, dtype=np.int64)
        return (pairs <= ENUMERATE_PAIRS) | (wanted > ENUMERATE_FRACTION * pairs)

    def taken_keys(self, chosen: np.ndarray) -> np.ndarray:
        """The sorted keys the chosen block pairs' edges are drawn without."""
        if self.taken is None:
            return np.zeros(0, dtype=np.int64)
        keys = [self.taken[k] for k in np.flatnonzero(chosen)]
        return np.sort(np.concatenate(keys)) if keys else np.zeros(0, dtype=np.int64)

    @property
    def enumerated(self) -> bool:
        """Whether some block pair with edges is drawn by enumeration (:func:`_enumerated`)."""
        return bool(np.any(self.enumerates() & (np.asarray(self.counts) > 0)))

    def draw(self, out, into, rng: np.random.Generator, stubs=None) -> tuple[np.ndarray, int]:
        """Every block pair's edges, as sorted pair keys: by these weights, or with
        integer ``stubs`` (degrees, out then in for a DiGraph) by pairing the stubs
        :func:`deal` hands the block pairs (:func:`paired`, all at once); and how many
        edges the pairing's last step drew by weight (0 without stubs). Block pairs drawn
        by weight go one by one (:func:`block_pair`)."""
        counts = np.asarray(self.counts)
        alone = counts > 0
        if stubs is not None:
            alone &= self.enumerates()
        keys, unmatched = [], 0
        for k in np.flatnonzero(alone):
            a, b, count = self.first[k], self.second[k], int(counts[k])
            source, target = Side.of(self.members[a], out), Side.of(self.members[b], into)
            keys.append(
                block_pair(
                    source, target, count, a == b, self.n, self.directed, rng, self.excluded(k)
                )
            )
        if stubs is not None:
            dealt = deal(stubs, self, rng)
            pair, unmatched = paired(dealt, self, (counts > 0) & ~alone, rng)
            keys.append(pair)
        pairs = np.sort(np.concatenate(keys)) if keys else np.zeros(0, dtype=np.int64)
        return pairs, unmatched

    def prior(self, rows: np.ndarray, columns: np.ndarray, block: np.ndarray, out, into):
        """Each pair's prior edge probability under the model: its block pair's integer
        count times its ends' weight product over the block pair's total weight product
        (the sides' weights as :class:`Side` takes them: uniform in a group of weight
        0), capped at 1. O(n + pairs)."""
        labels = np.empty(self.n, dtype=np.intp)
        for group, members in enumerate(self.members):
            labels[members] = group
        g = len(self.members)
        out, into = _in_groups(out, labels, g), _in_groups(into, labels, g)
        first, second = np.asarray(self.first), np.asarray(self.second)
        mass = np.bincount(labels, out, g)[first] * np.bincount(labels, into, g)[second]
        same = first == second
        mass[same] -= np.bincount(labels, out * into, g)[first[same]]
        if not self.directed:
            mass[same] /= 2.0
        weight = self.counts[block] * out[rows] * into[columns]
        ratio = np.divide(weight, mass[block], out=np.zeros(rows.size), where=mass[block] > 0)
        return np.minimum(ratio, 1.0)


def _in_groups(weights: np.ndarray, labels: np.ndarray, g: int) -> np.ndarray:
    """The weights, with every group of total weight 0 made uniform (as :class:`Side`)."""
    empty = ~(np.bincount(labels, weights, g) > 0.0)
    return np.where(empty[labels], 1.0, weights)


def group_members(labels: np.ndarray) -> list[np.ndarray]:
    """Every group's node indices, sorted, in O(n)."""
    order = np.argsort(labels, kind="stable")
    bounds = np.cumsum(np.bincount(labels))
    return np.split(order, bounds[:-1])


def node_weights(degrees: np.ndarray | None, n: int, directed: bool):
    """The out- and in-weights: the fitted degrees, or uniform."""
    if degrees is None:
        return np.ones(n), np.ones(n)
    if directed:
        return degrees[:n], degrees[n:]
    return degrees, degrees


def corrected(pairs, out, into, degrees, n, directed):
    """The weights times ``(fitted + 1) / (drawn + 1)`` per node: a multiplicative step
    towards the fitted degrees where rejecting repeats took edges from the largest weights
    (reads only the fitted degrees and the last draw: post-processing)."""
    rows, columns = pairs // n, pairs % n
    drawn_out = np.bincount(rows, minlength=n).astype(float)
    drawn_in = np.bincount(columns, minlength=n).astype(float)
    if directed:
        out = out * (degrees[:n] + 1.0) / (drawn_out + 1.0)
        return out, into * (degrees[n:] + 1.0) / (drawn_in + 1.0)
    both = out * (degrees + 1.0) / (drawn_out + drawn_in + 1.0)
    return both, both
