"""BTER affinity blocks (Seshadhri, Kolda, Pinar 2012 [SKP12]; Kolda, Pinar, Plantenga,
Seshadhri 2014 [KPPS14]): the step of the sparse generator that restores triangles.

Nodes of fitted degree ``2 <= d <= cap`` are sorted by degree (ties in random order) and
dealt into consecutive blocks, each of size ``d + 1`` for the smallest degree d it starts
with; within a block every pair is an edge independently with probability ``rho =
c^(1/3)``, c the clustering estimate of the bin of that degree (:func:`node_rho`, from the
``"clustering"`` measurement by :func:`~privcut.graph.clustering.bin_clustering`), so a
node of degree d expects about ``rho d`` within-block edges, and the block, an
Erdős–Rényi graph of density rho, has local clustering about ``rho^3 = c`` on those edges
(BTER phase 1). The rest of every degree (the excess) and of the edge count goes to the
configuration-model step (:mod:`privcut.graph.pairing`, BTER phase 2), which draws
without the block edges: the total edge count stays the released (fitted) one exactly.
Bins whose noisy corners are at noise level give ``rho = 0`` (the step is gated off,
:data:`~privcut.graph.clustering.GATE`).

Post-processing: reads only the measurements, the fitted degrees and fresh randomness.
O(n log n + |E|) time and memory (a block of size d + 1 has ``d (d + 1) / 2`` pairs, about
``d / 2`` per member, so all blocks' pairs number about half the degree sum).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from privcut.graph.clustering import (
    BIN_EDGES,
    DEFAULT_CAP,
    bin_clustering,
    capped_projection,
    degree_bins,
)
from privcut.privacy import Noise

__all__ = ["affinity_edges", "node_rho", "projected_wedges"]


def node_rho(
    noisy: np.ndarray,
    noise: Noise,
    noisy_degrees: np.ndarray,
    degrees: np.ndarray,
    cap: int = DEFAULT_CAP,
    wedges: np.ndarray | None = None,
) -> np.ndarray:
    """Every node's BTER block density ``c^(1/3)``: c the clustering of the bin of its
    fitted degree, estimated by :func:`~privcut.graph.clustering.bin_clustering` from the
    noisy corner sums (binned by the released ``noisy_degrees``, wedges from the fitted
    ``degrees``). Post-processing; O(n).

    Examples
    --------
    >>> noise = Noise.for_laplace(1.0, 1.0, integer=True)
    >>> node_rho(np.array([0.0, 27.3, 0.0]), noise, np.array([5.0, 6.0, 5.0]),
    ...          np.array([10.0, 10.0, 2.0])).round(3).tolist()
    [0.669, 0.669, 0.669]
    """
    degrees = np.asarray(degrees, dtype=float)
    bins = degree_bins(noisy_degrees)
    clustering = bin_clustering(noisy, bins, degrees, noise, cap, wedges)
    return np.cbrt(clustering[degree_bins(degrees)])


def projected_wedges(
    rows: np.ndarray,
    columns: np.ndarray,
    n: int,
    noisy_degrees: np.ndarray,
    salt: int,
    cap: int = DEFAULT_CAP,
) -> np.ndarray:
    """The wedges the measured corners are out of, estimated on a public proxy graph
    (``rows < columns``, e.g. a draw of the generator without the affinity blocks): its
    :func:`~privcut.graph.clustering.capped_projection` (ordered by the released
    ``noisy_degrees``, as the measurement), per noisy-degree bin the projected wedges
    ``sum C(d', 2)`` times the fraction of edges the projection keeps (a triangle needs
    its third edge kept too). Post-processing; O(|E| log |E| + n).

    Examples
    --------
    >>> rows, columns = np.array([0, 0, 1]), np.array([1, 2, 2])
    >>> projected_wedges(rows, columns, 3, np.array([2.0, 2.0, 2.0]), 0).tolist()
    [3.0, 0.0, 0.0]
    """
    data = np.ones(2 * rows.size)
    proxy = sp.csr_array(
        (data, (np.concatenate([rows, columns]), np.concatenate([columns, rows]))), shape=(n, n)
    )
    projected = capped_projection(proxy, cap, salt, priority=noisy_degrees)
    kept = np.asarray(projected.sum(axis=1)).ravel()
    retention = kept.sum() / max(2.0 * rows.size, 1.0)
    bins = degree_bins(noisy_degrees)
    return retention * np.bincount(bins, kept * (kept - 1.0) / 2.0, len(BIN_EDGES) + 1)


def _blocks(sorted_degrees: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and size of each block over degrees sorted ascending: a block starting at a
    node of degree d has size d + 1 (cut at the end). One step per run of equal degrees
    (at most ``cap`` steps), not per block: the blocks starting inside a run tile it."""
    starts, sizes = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    i, total = 0, sorted_degrees.size
    while i < total:
        size = int(sorted_degrees[i]) + 1
        run_end = int(np.searchsorted(sorted_degrees, sorted_degrees[i], side="right"))
        first = i + size * np.arange(-(-(run_end - i) // size), dtype=np.int64)
        starts.append(first)
        sizes.append(np.minimum(size, total - first))
        i = int(first[-1]) + size
    return np.concatenate(starts), np.concatenate(sizes)


def affinity_edges(
    degrees: np.ndarray, rho: np.ndarray, rng: np.random.Generator, cap: int = DEFAULT_CAP
) -> tuple[np.ndarray, np.ndarray]:
    """BTER phase 1: the affinity blocks' edges as node index arrays ``rows < columns``.

    Nodes with integer ``degrees`` in ``[2, cap]`` and ``rho > 0`` are sorted by degree
    (random ties) and dealt into blocks of size ``d + 1``, d the first (smallest) degree
    of the block; each pair of a block is an edge with the block's first node's ``rho``.
    O(n log n + sum of block pairs) time and memory.

    Examples
    --------
    >>> rows, columns = affinity_edges(np.array([2, 2, 2, 1]), np.ones(4),
    ...                                np.random.default_rng(0))
    >>> sorted(zip(rows.tolist(), columns.tolist()))
    [(0, 1), (0, 2), (1, 2)]
    """
    degrees = np.asarray(degrees, dtype=np.int64)
    rho = np.asarray(rho, dtype=float)
    eligible = np.flatnonzero((degrees >= 2) & (degrees <= cap) & (rho > 0.0))
    shuffled = eligible[rng.permutation(eligible.size)]
    order = shuffled[np.argsort(degrees[shuffled], kind="stable")]
    starts, sizes = _blocks(degrees[order])
    rows, columns = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    for size in np.unique(sizes[sizes >= 2]):
        first = starts[sizes == size]
        members = order[first[:, None] + np.arange(size)]  # blocks x size
        a, b = np.triu_indices(int(size), 1)
        chance = rho[order[first]][:, None]
        chosen = rng.random((first.size, a.size)) < chance
        block, pair = np.nonzero(chosen)
        u, v = members[block, a[pair]], members[block, b[pair]]
        rows.append(np.minimum(u, v))
        columns.append(np.maximum(u, v))
    return np.concatenate(rows), np.concatenate(columns)
