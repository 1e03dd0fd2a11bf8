"""Rounding a fractional graph x in [0, 1]^pairs to a 0/1 graph (GRU12 Remark 6.3).

Independent rounding draws every pair on its own. Dependent rounding (Srinivasan 2001,
"Distributions on level-sets with applications to approximation algorithms") keeps the
edge count of every group of pairs (e.g. every block pair of a public partition) exactly
at its sum, with the same marginals; its draws are negatively cylinder dependent, so the
Chernoff/Bernstein tails of independent rounding still hold for every cut (the moment
generating function of a sum with non-negative coefficients is at most the independent
one; Panconesi and Srinivasan 1997). Both are post-processing.
"""

from __future__ import annotations

import math

import numpy as np

from privcut.graph.universe import multiplicity

__all__ = ["dependent_rounding", "independent_rounding", "rounding_bound"]

SNAP = 1e-9
"""Values this close to 0 or 1 count as integral."""


def independent_rounding(
    x: np.ndarray, directed: bool, generator: np.random.Generator
) -> np.ndarray:
    """Each pair of the matrix x an edge independently with probability x (one draw per
    unordered pair, mirrored).

    Examples
    --------
    >>> x = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> independent_rounding(x, False, np.random.default_rng(0)).tolist()
    [[False, True], [True, False]]
    """
    draws = generator.random(x.shape)
    if not directed:
        draws = np.triu(draws, k=1)
        draws += draws.T
    return draws < x


def _snap(values: np.ndarray) -> None:
    values[values < SNAP] = 0.0
    values[values > 1.0 - SNAP] = 1.0


def dependent_rounding(
    values: np.ndarray, groups: np.ndarray, generator: np.random.Generator
) -> np.ndarray:
    """Round values in [0, 1] to 0/1 with ``P[X_p = 1] = values[p]`` and, in every group,
    exactly ``floor`` or ``ceil`` of the group's sum ones (exactly the sum when it is an
    integer).

    Srinivasan's level-set rounding, in rounds: the fractional entries of each group are
    paired (in a random order) and each pair (p, q) moves to ``(p + a, q - a)`` with
    probability ``b / (a + b)`` or to ``(p - b, q + b)`` otherwise, where
    ``a = min(1 - p, q)`` and ``b = min(p, 1 - q)``: the sum and both means are kept and
    at least one of the two becomes 0 or 1. A group's last fractional entry is rounded on
    its own.

    Parameters
    ----------
    values : numpy.ndarray
        Fractional values in [0, 1].
    groups : numpy.ndarray of int
        The group of each value.
    generator : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of bool

    Examples
    --------
    >>> values = np.r_[np.full(5, 0.4), np.full(4, 0.75)]
    >>> groups = np.repeat([0, 1], [5, 4])
    >>> rounded = dependent_rounding(values, groups, np.random.default_rng(0))
    >>> [int(rounded[groups == g].sum()) for g in (0, 1)]  # the sums, 2 and 3, exactly
    [2, 3]
    """
    shuffle = generator.permutation(values.size)
    order = shuffle[np.argsort(groups[shuffle], kind="stable")]
    v = np.clip(values[order].astype(float), 0.0, 1.0)
    group = groups[order]
    _snap(v)
    while True:
        fractional = np.flatnonzero((v > 0.0) & (v < 1.0))
        fg = group[fractional]
        same = fg[1:] == fg[:-1]
        starts = np.r_[True, ~same]
        rank = np.arange(fractional.size) - np.maximum.accumulate(
            np.where(starts, np.arange(fractional.size), 0)
        )
        k = np.flatnonzero((rank[:-1] % 2 == 0) & same)
        if k.size == 0:
            break
        a, b = fractional[k], fractional[k + 1]
        p, q = v[a], v[b]
        up, down = np.minimum(1.0 - p, q), np.minimum(p, 1.0 - q)
        rise = generator.random(k.size) * (up + down) < down
        p, q = np.where(rise, p + up, p - down), np.where(rise, q - up, q + down)
        _snap(p)
        _snap(q)
        v[a], v[b] = p, q
    last = np.flatnonzero((v > 0.0) & (v < 1.0))
    v[last] = generator.random(last.size) < v[last]
    rounded = np.empty(values.size, dtype=bool)
    rounded[order] = v > 0.5
    return rounded


def rounding_bound(x: np.ndarray, directed: bool, beta: float) -> float:
    """Bernstein's bound, union over the 4^n cuts, on ``max |(R - x)(S, T)|`` for R drawn
    pair by pair with probabilities x, independently or by :func:`dependent_rounding`:
    each pair enters a cut with coefficient at most ``c`` (2 for undirected graphs) and
    variance ``x (1 - x)``.

    Examples
    --------
    >>> x = np.full((4, 4), 0.5) - 0.5 * np.eye(4)
    >>> round(rounding_bound(x, False, 0.05), 1)
    18.4
    """
    n = x.shape[0]
    c = float(multiplicity(directed))
    pairs = x if directed else np.triu(x, k=1)
    variance = c * c * float(np.sum(pairs * (1.0 - pairs)))
    log_terms = math.log(2.0 / beta) + n * math.log(4.0)
    linear = c * log_terms / 3.0
    return linear + math.sqrt(linear**2 + 2.0 * variance * log_terms)
