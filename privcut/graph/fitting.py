"""The fitting step: consistent estimates of the low-dimensional statistics (block-pair
counts, the edge count, degrees) from their noisy measurements, each in its box and
agreeing with the others. Post-processing: it reads only the measurements.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from privcut.graph.measurement import Measurements
from privcut.graph.sequence import SEQUENCE, box_shift, fit_sequence, rank_matched

__all__ = ["Targets", "fit_targets"]


@dataclass(frozen=True)
class Targets:
    """Consistent estimates fitted to the low-dimensional measurements (post-processing).

    ``blocks``: block-pair edge counts in [0, pairs]; ``total``: the edge count;
    ``degrees``: in [0, n - 1], summing to the blocks' group totals (or to the total).
    None for what was not measured (all three for randomized response alone).

    Examples
    --------
    >>> import networkx as nx
    >>> from privcut.graph.measurement import measure
    >>> from privcut.graph.planning import plan_measurements
    >>> plan = plan_measurements(range(6), 1.0, ["edge-count", "degrees"])
    >>> targets = fit_targets(measure(nx.path_graph(6), plan, rng=0))
    >>> targets.blocks, targets.total, float(targets.degrees.sum()) / 2
    (None, 7.0, 7.0)
    """

    blocks: np.ndarray | None
    total: float | None
    degrees: np.ndarray | None
    degree_kind: str | None = None
    """Which measurement the degrees come from: ``"degrees"`` (each node's own, noisy) or
    ``"degree-sequence"`` (a fitted distribution handed to the nodes in a random order:
    no per-node claim may be made from them); None without degrees."""


def _fit_blocks(measured: Measurements) -> np.ndarray:
    """Weighted least squares over the block counts in their box [0, pairs], with the edge
    count (if measured) as one more observation of their sum: ``clip(y + lambda)`` with
    ``lambda = -(v_blocks / v_count) (sum - count)``."""
    blocks, edge_count = measured.get("blocks"), measured.get("edge-count")
    y = blocks.values
    upper = measured.partition.pairs.astype(float)
    if edge_count is None:
        return np.clip(y, 0.0, upper)
    ratio = blocks.noise.variance / edge_count.noise.variance
    count = float(edge_count.values[0])

    def residual(shift: float) -> float:
        return shift + ratio * (float(np.clip(y + shift, 0.0, upper).sum()) - count)

    low, high = -1.0, 1.0
    while residual(low) > 0.0:
        low *= 2.0
    while residual(high) < 0.0:
        high *= 2.0
    return np.clip(y + brentq(residual, low, high, xtol=1e-12), 0.0, upper)


def _fit_total(measured: Measurements) -> float:
    """Inverse-variance average of every measurement's estimate of the edge count,
    clipped to [0, pairs]."""
    estimates = measured.count_estimates()
    weights = np.array([1.0 / estimate.variance for estimate in estimates])
    values = np.array([estimate.value for estimate in estimates])
    return float(np.clip(weights @ values / weights.sum(), 0.0, measured.universe.size))


def _fit_degrees(measured: Measurements, blocks: np.ndarray | None, total: float) -> np.ndarray:
    """The degrees nearest the measured ones in [0, n - 1] whose sums match the blocks'
    group totals (or the edge count)."""
    universe, partition = measured.universe, measured.partition
    n, directed = universe.n, universe.directed
    y = measured.get("degrees").values
    halves = [slice(0, n), slice(n, 2 * n)] if directed else [slice(0, n)]
    if blocks is None:
        share = total * universe.multiplicity
        return np.concatenate([box_shift(y[half], n - 1.0, share) for half in halves])
    first, second = partition.blocks
    sums = [np.bincount(first, blocks, partition.g), np.bincount(second, blocks, partition.g)]
    if not directed:
        sums = [sums[0] + sums[1]]  # a block (a, a) counts twice, (a, b) once for each
    fitted = np.empty_like(y)
    for half, group_sums in zip(halves, sums, strict=True):
        part, out = y[half], np.empty(n)
        for a in range(partition.g):
            members = partition.labels == a
            out[members] = box_shift(part[members], n - 1.0, float(group_sums[a]))
        fitted[half] = out
    return fitted


def fit_targets(measured: Measurements) -> Targets:
    """Consistent estimates of the low-dimensional statistics (post-processing): block
    counts by weighted least squares in their box with the edge count, the total as the
    inverse-variance average of every estimate of it, degrees nearest the measured ones
    with the sums the blocks (or the total) give; a degree sequence by
    :func:`fit_sequence`; when both are measured, the sequence's fitted degrees handed to
    the nodes by the rank of their noisy per-node degrees (:func:`rank_matched`: the
    distribution from the sequence, which node has which from the per-node degrees).
    Randomized response alone: no targets.

    Examples
    --------
    >>> import networkx as nx
    >>> from privcut.graph.measurement import measure
    >>> from privcut.graph.planning import plan_measurements
    >>> plan = plan_measurements(range(10), 1.0, ["edge-count", "degrees"])
    >>> targets = fit_targets(measure(nx.cycle_graph(10), plan, rng=0))
    >>> bool(abs(targets.degrees.sum() / 2 - targets.total) < 1e-6), targets.blocks
    (True, None)
    """
    if not measured.low_dimensional:
        return Targets(None, None, None)
    blocks = _fit_blocks(measured) if measured.get("blocks") is not None else None
    total = float(blocks.sum()) if blocks is not None else _fit_total(measured)
    degrees, kind = None, None
    per_node, sequence = measured.get("degrees"), measured.get(SEQUENCE)
    if per_node is not None and sequence is not None:
        labels = _labels(measured)
        fitted = fit_sequence(measured, blocks, total)
        degrees, kind = rank_matched(fitted, per_node.values, sequence.order, labels), "degrees"
    elif per_node is not None:
        degrees, kind = _fit_degrees(measured, blocks, total), "degrees"
    elif sequence is not None:
        degrees, kind = fit_sequence(measured, blocks, total), SEQUENCE
    return Targets(blocks, total, degrees, kind)


def _labels(measured: Measurements) -> np.ndarray:
    """Every node's group index (all 0 without a partition)."""
    if measured.partition is None:
        return np.zeros(measured.universe.n, dtype=np.intp)
    return measured.partition.labels
