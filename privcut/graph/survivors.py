"""Filtered randomized response's survivors in the sparse release (Cormode et al. 2012):
a survivor's posterior edge probability (:func:`posterior_probability`) and the kept
survivors taken off the block counts and the stubs before the rest is drawn
(:class:`Survivors`). A step of :mod:`privcut.graph.sparse`; post-processing of the
measurement (reads no graph). O(n + |E| + survivors).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from privcut.graph.blockdraw import key_ends
from privcut.graph.blockmodel import Blocks
from privcut.graph.pairing import stub_degrees


def posterior_probability(prior: np.ndarray, epsilon: float) -> np.ndarray:
    """``p = e^epsilon r / (e^epsilon r + 1 - r)``: the posterior probability that a pair
    of prior edge probability r is an edge, given that it survived filtered randomized
    response at ``epsilon`` with any value (threshold >= 1). Post-processing.

    Why the likelihood ratio is exactly ``e^epsilon``: the pair's noisy value is ``x +
    Z`` with x its 0/1 value and Z discrete Laplace, ``P(Z = z) = c q^|z|``, ``q =
    e^-epsilon``. It survives with value v >= theta >= 1. As an edge that has
    probability ``P(Z = v - 1) = c q^(v - 1)``, as a non-edge ``P(Z = v) = c q^v``
    (both v - 1 and v are >= 0): ratio ``q^-1 = e^epsilon`` for every v, so the value
    adds nothing beyond survival, and survival itself has ratio ``P(Z >= theta - 1) /
    P(Z >= theta) = e^epsilon`` (the tail ``q^t / (1 + q)`` for t >= 0). Bayes: odds
    ``r / (1 - r)`` times ``e^epsilon``. Pairs' noises are independent, so the survival
    of other pairs says nothing more about this one (given the prior).

    Examples
    --------
    >>> posterior_probability(np.array([0.0, 0.5, 1.0]), float(np.log(3.0))).round(12).tolist()
    [0.0, 0.75, 1.0]
    """
    prior = np.asarray(prior, dtype=float)
    boosted = np.exp(epsilon) * prior
    chance = np.divide(boosted, boosted + (1.0 - prior), out=np.zeros_like(prior), where=prior > 0)
    return np.minimum(chance, 1.0)


@dataclass(frozen=True)
class Survivors:
    """Every block pair's kept survivors and the keys its rest is drawn without."""

    kept: list
    excluded: list

    def remaining(self, blocks: Blocks, stubs: np.ndarray | None):
        """What is left to draw once the kept survivors are in: the block pairs with their
        counts lowered by the kept ones and their excluded keys as ``taken``; the stubs
        with the kept edges' ends taken off, refitted to the lowered counts
        (:func:`stub_degrees`, which keeps each group's sum consistent even where a node
        had fewer stubs than kept edges); and the kept keys. Post-processing; O(n + |E|)."""
        counts = blocks.counts - np.array([kept.size for kept in self.kept], dtype=np.int64)
        rest = replace(blocks, counts=counts, taken=tuple(self.excluded))
        kept = np.concatenate(self.kept) if self.kept else np.zeros(0, dtype=np.int64)
        if stubs is not None:
            n = blocks.n
            ends = [np.bincount(part, minlength=n) for part in key_ends(kept, n)]
            used = np.concatenate(ends) if blocks.directed else ends[0] + ends[1]
            left = np.maximum(stubs - used, 0).astype(float)
            stubs = stub_degrees(left, blocks.members, blocks.first, blocks.second, counts, n)
        return rest, stubs, kept
