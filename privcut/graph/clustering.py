"""The ``"clustering"`` measurement: triangle corners on a degree-capped projection of the
graph, per degree bin or pooled, for the BTER step of the sparse generator
(:mod:`privcut.graph.affinity`; Seshadhri, Kolda, Pinar 2012 [SKP12]; Kolda, Pinar,
Plantenga, Seshadhri 2014 [KPPS14]).

A triangle count has unbounded edge-level sensitivity (one pair closes as many triangles
as its ends have common neighbours), so it is measured on a stated, stable projection of
G onto maximum degree ``D``: :func:`capped_projection` keeps an edge when it is among the
first ``D`` edges of both its ends in an order fixed by a salted hash of the pair (public
randomness, drawn independently of G). One flipped pair changes at most 3 projected edges:
it can add only itself and remove only one edge at each of its ends (proof in
:func:`capped_projection`), and every projected edge closes at most ``D - 1`` triangles.
So the per-bin corner sums move by at most ``9 (D - 1)`` in l1 (3 edges, each in at most
``D - 1`` triangles of 3 corners), and the pooled corner count (all nodes, one value) by at
most ``6 (D - 1)``: the triangles gained all hold the added pair (at most ``D - 1``), those
lost one of the two removed edges (at most ``2 (D - 1)``), and the two move the count in
opposite directions (:func:`clustering_sensitivity`).

The cap D is public given the degree measurements released before it: :func:`choose_cap`
is a function of an estimate of the degree distribution from those releases (the
isotonic fit of the noisy degree sequence, Hay et al. 2009), between :data:`MIN_CAP` and
:data:`DEFAULT_CAP`; below :data:`DEFAULT_CAP` (graphs with few high degrees) or at an
epsilon below :data:`BINNED_EPSILON` (where the triangles per bin are at noise level) the
corners are pooled into one value (:func:`bin_count`). The bins are those of the *noisy*
degrees the ``"degrees"`` measurement released first (:func:`degree_bins`). So D, the
bins and the sensitivity are fixed by released values (and the public epsilon), and by
adaptive basic composition (Dwork and Roth 2014 Thm 3.16 holds for adaptively chosen
mechanisms) the measurements cost the sum of their epsilons. Discrete Laplace noise of
scale ``sensitivity / epsilon`` on the corner sums is then (epsilon, 0)-DP under
edge-level neighbours (same public node set, one vertex pair differs; Ghosh, Roughgarden,
Sundararajan 2009). :func:`bin_clustering` turns the noisy sums into per-bin clustering
coefficients: post-processing.

Undirected 0/1 graphs only (the planner refuses directed and weighted graphs).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import isotonic_regression

from privcut.graph.keyset import KeyTable
from privcut.graph.sorting import DIGIT, dense_ranks, stable_argsort
from privcut.privacy import Noise
from privcut.privacy.validation import check_scalar

__all__ = [
    "BINNED_EPSILON",
    "BIN_EDGES",
    "CAP_QUANTILE",
    "DEFAULT_CAP",
    "GATE",
    "MIN_CAP",
    "POOLED_FACTOR",
    "POOLED_GATE",
    "PRIOR_LOW",
    "PRIOR_POINTS",
    "PRIOR_ZERO",
    "SENSITIVITY_FACTOR",
    "above_gate",
    "bin_clustering",
    "bin_count",
    "binned_corners",
    "cap_of",
    "capped_projection",
    "choose_cap",
    "clustering_sensitivity",
    "degree_bins",
    "degree_estimate",
    "pooled_clustering",
    "projected_corners",
    "triangle_corners",
]

DEFAULT_CAP = 64
"""The largest degree cap D of the projection (a node keeps at most D edges), and the cap
of the BTER blocks (:mod:`privcut.graph.affinity`)."""

MIN_CAP = 8
"""The smallest degree cap :func:`choose_cap` picks."""

CAP_QUANTILE = 0.99
""":func:`choose_cap` rounds this quantile of the estimated degrees to a power of two."""

BIN_EDGES = (4, 16)
"""Noisy-degree bin edges: bins ``d < 4``, ``4 <= d < 16``, ``d >= 16``."""

SENSITIVITY_FACTOR = 9
"""l1 sensitivity of the binned corners is ``SENSITIVITY_FACTOR * (D - 1)``: at most 3
projected edges change, each in at most ``D - 1`` triangles of 3 corners."""

PRIOR_LOW = 1e-4
"""The smallest clustering of the log-uniform prior of :func:`pooled_clustering`."""

PRIOR_POINTS = 2000
"""Grid points of :func:`pooled_clustering`'s prior."""

PRIOR_ZERO = 0.2
"""The prior mass of :func:`pooled_clustering` at c = 0 (the rest log-uniform)."""

POOLED_GATE = 1.0
""":func:`pooled_clustering` is 0 at or below this many noise standard deviations."""

BINNED_EPSILON = 0.1
"""Below this epsilon of the ``"clustering"`` measurement the corners are pooled (one
value): each bin's sum would be at noise level."""

POOLED_FACTOR = 6
"""l1 sensitivity of the pooled corners (one value) is ``POOLED_FACTOR * (D - 1)``: the
added pair gains at most ``D - 1`` triangles, the two removed edges lose at most
``2 (D - 1)``, in the other direction; 3 corners each."""

GATE = 3.0
"""With bins, a bin's clustering is used only where its noisy corner sum exceeds ``GATE``
noise standard deviations; below that it is at noise level and reads as 0 (no BTER
blocks). A pooled count has the lower gate :data:`POOLED_GATE` (its small cap keeps it
at 1-2 noise sd on graphs with a few hundred triangles; 3 sd would turn the step off
there)."""

_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)

_RANK_BITS = 6
""":func:`_kept` sorts by the (node, level) group and at least this many top bits of the
hash rank first (whole 16-bit digits), and with at least 16 when more than one key in
:data:`_TIES` ties; the ends that tie are ordered exactly afterwards (6% of them at
10^6 nodes)."""

_TIES = 8
""":func:`_kept` sorts again with 16 rank bits when more than one key in this many ties."""

_CHUNK = 1 << 22
"""Wedges :func:`_edge_corners` lists at a time (bounds its memory)."""

_FILTER_LOAD = 8
""":func:`_edge_corners`' filter has at least this many slots per edge."""

_FIRST, _SECOND = np.uint32(0x9E3779B1), np.uint32(0x85EBCA77)
"""Odd multipliers of :func:`_pair_slots`."""

_MANY_PASS = 2
""":func:`_edge_corners` looks the wedges its filter passes up in a hash set of the edges'
keys (:class:`~privcut.graph.keyset.KeyTable`, built once) when more than one per this
many edges pass (LFR: 33k for 27k edges) and the pair keys fit in 31 bits (n at most
46,340: 32-bit slots, 12-24 bytes per edge, about the filter's own), else in the
edges' CSR rows (gnutella: 7k for 52k)."""

_FEW_CLOSED = 8
""":func:`_edge_corners` finds the closed wedges' entries by a binary search in the wedge
counts when they are fewer than one per this many entries (gnutella: 639 triangles on
52k edges), else by listing every wedge's entry (LFR: 27k on 27k)."""


def clustering_sensitivity(cap: int = DEFAULT_CAP, bins: int = 3) -> float:
    """The l1 sensitivity of :func:`binned_corners` on the projection with degree cap
    ``cap`` under edge-level neighbours: ``9 (cap - 1)`` with several bins, ``6 (cap - 1)``
    pooled (``bins=1``; proofs in the module docstring).

    Examples
    --------
    >>> clustering_sensitivity(64), clustering_sensitivity(16, bins=1)
    (567.0, 90.0)
    """
    cap = check_scalar(cap, "cap", int, low=2)
    bins = check_scalar(bins, "bins", int, low=1)
    return float((POOLED_FACTOR if bins == 1 else SENSITIVITY_FACTOR) * (cap - 1))


def bin_count(cap: int, epsilon: float) -> int:
    """How many noisy-degree bins the measurement at cap ``cap`` and ``epsilon`` has: the
    ``len(BIN_EDGES) + 1`` bins at :data:`DEFAULT_CAP` and epsilon at least
    :data:`BINNED_EPSILON`, else one (pooled). A public function of the cap and epsilon.

    Examples
    --------
    >>> bin_count(64, 0.15), bin_count(16, 0.15), bin_count(64, 0.05)
    (3, 1, 1)
    """
    return len(BIN_EDGES) + 1 if cap >= DEFAULT_CAP and epsilon >= BINNED_EPSILON else 1


def cap_of(sensitivity: float, bins: int) -> int:
    """The cap a ``"clustering"`` measurement of ``bins`` values and l1 ``sensitivity`` was
    taken at: the inverse of :func:`clustering_sensitivity` (public, read off the
    measurement's record).

    Examples
    --------
    >>> cap_of(clustering_sensitivity(16, bins=1), 1), cap_of(567.0, 3)
    (16, 64)
    """
    factor = POOLED_FACTOR if bins == 1 else SENSITIVITY_FACTOR
    return round(sensitivity / factor) + 1


def degree_estimate(
    sequence: np.ndarray | None, degrees: np.ndarray, sizes: np.ndarray | None = None
) -> np.ndarray:
    """An estimate of the degree distribution from released values: each group's noisy
    sorted ``sequence`` (the ``"degree-sequence"`` measurement, groups of ``sizes`` in
    order; one group when None) fitted by isotonic regression (Hay, Li, Miklau, Jensen
    2009), or without it the noisy ``degrees``; clipped at 0. Post-processing; O(n).

    Examples
    --------
    >>> degree_estimate(np.array([1.0, 3.0, 2.0, -1.0, 4.0]), None, np.array([3, 2])).tolist()
    [1.0, 2.5, 2.5, 0.0, 4.0]
    >>> degree_estimate(None, np.array([-2.0, 5.0])).tolist()
    [0.0, 5.0]
    """
    if sequence is None:
        return np.maximum(np.asarray(degrees, dtype=float), 0.0)
    sequence = np.asarray(sequence, dtype=float)
    sizes = np.array([sequence.size]) if sizes is None else np.asarray(sizes)
    parts = np.split(sequence, np.cumsum(sizes)[:-1])
    fitted = [isotonic_regression(part).x for part in parts if part.size]
    return np.maximum(np.concatenate(fitted) if fitted else sequence, 0.0)


def choose_cap(estimate: np.ndarray) -> int:
    """The projection's degree cap D: the :data:`CAP_QUANTILE` quantile of the degree
    ``estimate`` (released values, :func:`degree_estimate`) rounded to a power of two (in
    log scale), within [:data:`MIN_CAP`, :data:`DEFAULT_CAP`]. A public function of
    released values. The noise grows like D and the triangles kept with it, up to the
    degrees most nodes have: measured on the graphs of ``benchmarks/social.py``
    (benchmarks/RESULTS.md, "Issue 18: clustering on sparse graphs"), gnutella (99% of the
    degrees at most 20) keeps 79% of its corners at D = 16 for a quarter of the noise at
    64. O(n).

    Examples
    --------
    >>> choose_cap(np.full(100, 20.0)), choose_cap(np.full(100, 300.0)), choose_cap(np.ones(9))
    (16, 64, 8)
    """
    estimate = np.asarray(estimate, dtype=float)
    top = float(np.quantile(estimate, CAP_QUANTILE)) if estimate.size else 0.0
    cap = 2 ** round(np.log2(max(top, 1.0)))
    return int(min(max(cap, MIN_CAP), DEFAULT_CAP))


def _mix(keys: np.ndarray, salt: int) -> np.ndarray:
    """splitmix64 of ``keys ^ salt``: a public pseudo-random rank of each pair."""
    with np.errstate(over="ignore"):
        z = (keys.astype(np.uint64) ^ np.uint64(salt & 0xFFFFFFFFFFFFFFFF)) & _MASK
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _upper_edges(adjacency) -> tuple[np.ndarray, np.ndarray]:
    """The stored pairs ``i < j`` of a sparse adjacency (symmetric 0/1: its edges), sorted
    by pair key ``i n + j`` (a canonical CSR's entries come in that order: no sort; in its
    index dtype, int32 when n fits)."""
    if adjacency.format == "csr" and adjacency.has_canonical_format:
        n, columns = adjacency.shape[0], adjacency.indices
        rows = np.repeat(np.arange(n, dtype=columns.dtype), np.diff(adjacency.indptr))
        upper = rows < columns
        return rows[upper], columns[upper]
    coo = sp.coo_array(adjacency)
    upper = coo.row < coo.col
    rows, columns = coo.row[upper].astype(np.int64), coo.col[upper].astype(np.int64)
    order = np.argsort(rows * adjacency.shape[0] + columns, kind="stable")
    return rows[order], columns[order]


def capped_projection(
    adjacency, cap: int = DEFAULT_CAP, salt: int = 0, priority: np.ndarray | None = None
) -> sp.csr_array:
    """The stable projection of an undirected 0/1 graph onto maximum degree ``cap``.

    Node u orders its edges ``{u, v}`` by a public order: first by ``priority[v]`` (e.g.
    the released noisy degrees, so edges to low-degree nodes come first and those nodes
    keep their triangles), then by the rank ``h({u, v})`` (splitmix64 of the pair's key
    ``u n + v``, u < v, xor ``salt``; ties by a fixed order of the pairs). The edge is
    kept iff it is among the first ``cap`` edges of u *and* of v. So every kept degree is
    at most ``cap``.

    Stability: under edge-level neighbours (one pair ``e = {a, b}`` added or removed) at
    most 3 kept edges change. Proof: each node's order is a fixed total order on its
    possible neighbours, independent of G (public values only), so whether an edge is kept
    depends only on its position in its two ends' lists. Only the lists of a and b
    change, by inserting or deleting e. In a's list the edges ordered before e keep their
    positions and those after it move by one, so the only edge of a's list other than e
    whose position crosses ``cap`` is the one at position ``cap - 1`` (0-based) without
    e, which moves to ``cap`` with it: one edge f_a; likewise f_b. Hence the kept sets
    differ at most in e, f_a and f_b.

    O(n + |E| log |E|) time and O(n + |E|) memory (one sort of the edge ends at nodes of
    degree above ``cap`` by an integer key, :func:`~privcut.graph.sorting.stable_argsort`,
    a second one when more than one key in eight ties; the ends whose sort keys tie are
    ordered apart); no n x n array.

    Parameters
    ----------
    adjacency : scipy.sparse array
        Symmetric 0/1 n x n adjacency.
    cap : int
        The public degree cap D >= 2.
    salt : int
        Public randomness, drawn independently of the graph.
    priority : numpy.ndarray, optional
        A public value per node (not computed from G, or released before); default all
        equal (the hash order alone).

    Returns
    -------
    scipy.sparse.csr_array
        The kept edges' symmetric 0/1 adjacency.

    Examples
    --------
    >>> import networkx as nx
    >>> A = nx.to_scipy_sparse_array(nx.star_graph(5))
    >>> H = capped_projection(A, cap=2, salt=1)
    >>> int(H.sum(axis=1).max()), int(H.sum()) // 2
    (2, 2)
    """
    r, c = _projected_edges(adjacency, cap, salt, priority)
    n = adjacency.shape[0]
    # row u holds the kept (v, u), v < u, then (u, w), w > u, each run ascending (the
    # pairs come sorted by key): a stable sort by row gives the canonical CSR
    ends, others = np.concatenate([c, r]), np.concatenate([r, c]).astype(np.int64)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(ends, minlength=n), out=indptr[1:])
    indices = others[stable_argsort(ends)]
    return sp.csr_array((np.ones(indices.size), indices, indptr), shape=(n, n))


def _projected_edges(
    adjacency, cap: int, salt: int, priority: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """The checked inputs' kept edges ``rows < columns`` of :func:`capped_projection`,
    sorted by pair key."""
    cap = check_scalar(cap, "cap", int, low=2)
    if not sp.issparse(adjacency) or adjacency.ndim != 2:
        raise TypeError(
            f"adjacency must be a scipy.sparse array, got {type(adjacency).__name__}; "
            "convert with scipy.sparse.csr_array(A)"
        )
    n = adjacency.shape[0]
    if adjacency.shape != (n, n):
        raise ValueError(f"adjacency must be square, got shape {adjacency.shape}")
    rows, columns = _upper_edges(adjacency)
    keep = _kept(rows, columns, n, cap, int(salt), priority)
    return rows[keep], columns[keep]


def projected_corners(
    adjacency, cap: int = DEFAULT_CAP, salt: int = 0, priority: np.ndarray | None = None
) -> np.ndarray:
    """``triangle_corners(capped_projection(adjacency, cap, salt, priority))``, without
    building the projection's CSR: the clustering measurement's exact corners per node
    (:func:`capped_projection` for the parameters and the stability proof,
    :func:`triangle_corners` for the count). O(n + |E| log |E| + W log ``cap``) time and
    O(n + |E|) memory, W <= |E| ``cap`` / 2 the projection's wedges of two edges out of
    a node.

    Examples
    --------
    >>> import networkx as nx
    >>> A = nx.to_scipy_sparse_array(nx.complete_graph(5))
    >>> projected_corners(A, cap=3, salt=1).tolist() == triangle_corners(
    ...     capped_projection(A, cap=3, salt=1)).tolist()
    True
    """
    rows, columns = _projected_edges(adjacency, cap, salt, priority)
    canonical = adjacency.format == "csr" and adjacency.has_canonical_format
    if rows.size > 1 and not canonical:  # duplicate entries: one edge, as in a CSR
        fresh = np.append(True, (rows[1:] != rows[:-1]) | (columns[1:] != columns[:-1]))
        rows, columns = rows[fresh], columns[fresh]
    return _edge_corners(rows, columns, adjacency.shape[0])


def _kept(
    rows: np.ndarray, columns: np.ndarray, n: int, cap: int, salt: int, priority
) -> np.ndarray:
    """Which edges ``rows < columns`` (sorted by pair key) :func:`capped_projection` keeps:
    an edge is dropped iff it is at position ``cap`` or later in the order of one of its
    ends. Each end e = {u, v} of an edge at u (entry ``k`` of the edges as seen from their
    rows, then from their columns) is ordered by (u, the dense rank of ``priority[v]``,
    the pair's hash rank, k). Only ends at nodes of degree above ``cap`` can be dropped,
    so only those are sorted, by one integer key of whole 16-bit digits
    (:func:`~privcut.graph.sorting.stable_argsort`): (node, level) in the high bits, at
    least :data:`_RANK_BITS` top bits of the hash rank below (at least 16, one sort more,
    when more than one key in :data:`_TIES` ties); the ends that tie on that key are
    ordered exactly by (hash rank, k) afterwards. O(|E| log |E|) (at most two sorts) plus
    the ties' sort."""
    m = rows.size
    degree = np.bincount(rows, minlength=n) + np.bincount(columns, minlength=n)
    over = degree > cap
    keep = np.ones(m, dtype=bool)
    # the ends at nodes above the cap: seen from the rows, then from the columns (k order)
    at_rows, at_columns = np.flatnonzero(over[rows]), np.flatnonzero(over[columns])
    pair = np.concatenate([at_rows, at_columns])  # each end's edge
    if pair.size == 0:
        return keep
    if pair.size < m:  # the hash ranks of those edges only, when fewer
        rank = _mix(rows[pair].astype(np.int64) * n + columns[pair], salt)
    else:
        rank = _mix(rows.astype(np.int64) * n + columns, salt)[pair]
    node = (np.cumsum(over, dtype=np.int64) - 1)[
        np.concatenate([rows[at_rows], columns[at_columns]])
    ]
    if priority is None:
        group = node
    else:  # an integer per node with the order and ties of priority
        levels, level = dense_ranks(priority)
        group = node * levels + level[np.concatenate([columns[at_rows], rows[at_columns]])]
    del at_rows, at_columns
    bits = int(group.max()).bit_length()
    widths = [min(64, DIGIT * -(-(bits + spare) // DIGIT)) for spare in (_RANK_BITS, DIGIT)]
    for width in dict.fromkeys(widths):  # >= 6 rank bits, >= 16 if many keys tie
        word = np.uint32 if width <= 32 else np.uint64
        key = (group.astype(word) << word(width - bits)) | (
            rank >> np.uint64(64 - width + bits)
        ).astype(word)
        order = stable_argsort(key)
        key = key[order]
        tie = key[1:] == key[:-1]
        if _TIES * np.count_nonzero(tie) <= tie.size:
            break
    if tie.any():  # equal keys: same node and level, order by the full rank, then k
        at = np.flatnonzero(np.append(tie, False) | np.insert(tie, 0, False))
        tied = order[at]
        order[at] = tied[np.lexsort((tied, rank[tied], key[at]))]
    sizes = degree[over]  # sorted by node: node u's ends are the next sizes[u]
    position = np.arange(pair.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    keep[pair[order[position >= cap]]] = False
    return keep


def triangle_corners(projected) -> np.ndarray:
    """The number of triangles at each node of a symmetric 0/1 graph (its corners),
    as ``networkx.triangles`` counts them (the stored nonzero entries above the diagonal
    are the edges, each edge once in a symmetric matrix; the diagonal is ignored).

    Each edge is oriented from the end of smaller (degree, index) to the other (the
    degree-ordered orientation of Schank & Wagner 2005), so every triangle has one first
    node a with edges out to both others b and c, and is counted once, as the wedge of
    those two edges, closed because {b, c} is an edge (a byte filter of hashed pairs
    first, then a binary search in b's sorted row of the edges, or a hash set of the
    edges when many wedges pass the filter); a node's corners are the
    closed wedges it is in. Exact integers. O(n + |E| + W log D) time and O(n + |E|)
    memory (the wedges a few million at a time), W <= |E| D / 2 the wedges of two edges
    out of a node on a graph of maximum degree D (the projection's ``cap``); no n x n
    array and no ``A @ A``.

    Examples
    --------
    >>> import networkx as nx
    >>> triangle_corners(nx.to_scipy_sparse_array(nx.complete_graph(4))).tolist()
    [3, 3, 3, 3]
    """
    H = sp.csr_array(projected)
    if not H.has_canonical_format:
        H = H.copy()
        H.sum_duplicates()
    n = H.shape[0]
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(H.indptr))
    columns = H.indices.astype(np.int64)
    upper = (rows < columns) & (H.data != 0)  # canonical: sorted by pair key
    return _edge_corners(rows[upper], columns[upper], n)


def _edge_corners(rows: np.ndarray, columns: np.ndarray, n: int) -> np.ndarray:
    """:func:`triangle_corners` of the distinct edges ``rows < columns``, sorted by pair
    key ``rows n + columns``.

    The wedges (two edges out of one tail, heads b < c) are listed :data:`_CHUNK` at a
    time, and each is closed iff ``{b, c}`` is an edge: first a filter of one byte per
    slot of a hash of the pair (the edges' slots set, at least :data:`_FILTER_LOAD` slots
    per edge: no edge is missed, about one open wedge in eight passes), then the wedges
    it passes are looked up in b's sorted row of the edges' CSR (binary search over at
    most the maximum degree, in scipy), or, when more than one per :data:`_MANY_PASS`
    edges pass on up to 46,340 nodes, in a hash set of the edges' pair keys (built
    once, O(|E|) expected).
    O(n + |E| + W log D) time, O(n + |E| + :data:`_CHUNK`) memory; int32 indices where n
    and |E| fit."""
    index = np.int32 if max(n, rows.size + 1) < 2**31 else np.int64
    rows, columns = rows.astype(index, copy=False), columns.astype(index, copy=False)
    upper = np.bincount(rows, minlength=n)
    degree = upper + np.bincount(columns, minlength=n)
    # row r of the edges' CSR: its columns c > r, ascending (the pairs come in that order)
    indptr = np.zeros(n + 1, dtype=index)
    np.cumsum(upper, out=indptr[1:])
    edges = sp.csr_array((np.ones(rows.size, dtype=np.int8), columns, indptr), shape=(n, n))
    bits = min(30, max(4, (_FILTER_LOAD * rows.size).bit_length()))
    passes = np.zeros(1 << bits, dtype=bool)
    passes[_pair_slots(rows, columns, bits)] = True
    order = degree.astype(np.int64) * n + np.arange(n)
    forward = order[rows] < order[columns]
    del order
    tails, heads = np.where(forward, rows, columns), np.where(forward, columns, rows)
    del forward
    # grouped by tail, in pair-key order within each (a stable counting sort by tail: one
    # radix pass up to 2^16 nodes, scipy's COO to CSR above): a tail t's heads r < t
    # (pairs (r, t)) come first, then its heads c > t, each ascending: every wedge's b < c
    if n <= 1 << DIGIT:
        by_tail = stable_argsort(tails)
        heads, tails = heads[by_tail], tails[by_tail]
        del by_tail
    else:
        out = sp.coo_array((np.ones(tails.size, dtype=np.int8), (tails, heads)), shape=(n, n))
        out = out.tocsr()
        heads = out.indices.astype(index, copy=False)
        tails = np.repeat(np.arange(n, dtype=index), np.diff(out.indptr))
        del out
    # the wedges: entry p of the forward edges with each later entry of its tail's run
    later = np.cumsum(np.bincount(tails, minlength=n))[tails] - np.arange(1, tails.size + 1)
    through = np.cumsum(later)
    later = later.astype(index)
    closed, first, keys = [], 0, None
    small = n * n <= 2**31  # pair keys in 32 bits: the hash set's slots take 4 bytes
    while first < tails.size:
        done = int(through[first - 1]) if first else 0
        last = max(int(np.searchsorted(through, done + _CHUNK, side="right")), first + 1)
        runs = later[first:last]
        # wedge k of entry p: heads[p] and heads[p + 1 + (k - wedges before p)]
        upto = np.cumsum(runs, dtype=index)  # the chunk's wedges up to each entry's own
        skip = (upto - runs) - np.arange(first + 1, last + 1, dtype=index)
        second = np.arange(int(upto[-1]), dtype=index) - np.repeat(skip, runs)
        b, c = np.repeat(heads[first:last], runs), heads[second]
        del second
        maybe = np.flatnonzero(passes[_pair_slots(b, c, bits)])
        if small and maybe.size > rows.size // _MANY_PASS:  # many pass: in a hash set
            if keys is None:
                keys = KeyTable(rows.astype(np.int64) * n + columns, high=n * n)
            hit = maybe[keys.contains(b[maybe].astype(np.int64) * n + c[maybe])]
        elif maybe.size:  # (scipy answers an empty lookup with a sparse array)
            hit = maybe[edges[b[maybe], c[maybe]] != 0]
        else:
            hit = maybe
        if hit.size:
            if hit.size * _FEW_CLOSED < runs.size:  # each one's entry: the first ending past it
                entry = first + np.searchsorted(upto, hit, side="right")
            else:
                entry = np.repeat(np.arange(first, last, dtype=index), runs)[hit]
            closed += [tails[entry], b[hit], c[hit]]
        first = last
    ends = np.concatenate(closed) if closed else np.zeros(0, dtype=index)
    return np.bincount(ends, minlength=n).astype(np.int64)


def _pair_slots(first: np.ndarray, second: np.ndarray, bits: int) -> np.ndarray:
    """A ``bits``-bit hash of each pair ``(first, second)`` (32-bit multiply-add, top
    bits): :func:`_edge_corners`' filter slots. Only the filter's speed depends on it."""
    first, second = (e.view(np.uint32) if e.dtype == np.int32 else e for e in (first, second))
    with np.errstate(over="ignore"):
        mixed = first.astype(np.uint32, copy=False) * _FIRST
        mixed += second.astype(np.uint32, copy=False) * _SECOND
    mixed >>= np.uint32(32 - bits)
    return mixed


def degree_bins(degrees: np.ndarray, edges: tuple[int, ...] = BIN_EDGES) -> np.ndarray:
    """Each node's bin by its (noisy, released) degree: bin k holds ``edges[k-1] <= d <
    edges[k]``. Post-processing of the released degrees. O(n).

    Examples
    --------
    >>> degree_bins(np.array([-2.0, 3.0, 4.0, 15.0, 40.0])).tolist()
    [0, 0, 1, 1, 2]
    """
    return np.searchsorted(np.asarray(edges, dtype=float), np.asarray(degrees), side="right")


def binned_corners(corners: np.ndarray, bins: np.ndarray, count: int) -> np.ndarray:
    """The triangle corners summed per bin (``count`` bins): the exact statistic the
    ``"clustering"`` measurement adds noise to, l1 sensitivity
    :func:`clustering_sensitivity` when ``corners`` come from :func:`capped_projection`.

    Examples
    --------
    >>> binned_corners(np.array([1, 2, 3]), np.array([0, 2, 2]), 3).tolist()
    [1.0, 0.0, 5.0]
    """
    return np.bincount(bins, weights=corners, minlength=count).astype(float)


def above_gate(noisy: np.ndarray, noise: Noise) -> np.ndarray:
    """Which bins' noisy corner sums exceed :data:`GATE` noise standard deviations (the
    others are at noise level); a pooled sum (one value) whether it is positive.
    Post-processing.

    Examples
    --------
    >>> noise = Noise.for_laplace(1.0, 1.0, integer=True)
    >>> above_gate(np.array([10.0, 2.0]), noise).tolist(), above_gate(np.array([2.0]), noise)
    ([True, False], array([ True]))
    """
    noisy = np.asarray(noisy, dtype=float)
    return noisy > (GATE * np.sqrt(noise.variance) if noisy.size > 1 else 0.0)


def pooled_clustering(noisy: float, wedges: float, noise: Noise) -> float:
    """The clustering estimate from one pooled noisy corner count: 0 at or below
    :data:`POOLED_GATE` noise standard deviations (the BTER step off), else the posterior
    mean of c given ``noisy = c wedges + noise`` under a prior with mass
    :data:`PRIOR_ZERO` at c = 0 and the rest log-uniform on [:data:`PRIOR_LOW`, 1] (a
    geometric grid of :data:`PRIOR_POINTS` values), with the Laplace likelihood of the
    noise's variance. Just above the gate it is pulled towards 0 and the small values the
    log-uniform part favours; well above it, it is the ratio ``noisy / wedges``.
    Post-processing of the released count (no privacy spend); O(grid).

    Measured in RESULTS.md: the log-uniform mean without gate or point mass against the
    ratio in "Issue 18: clustering on sparse graphs"; the gate and the point mass in
    "Issue 18: pooled clustering prior": a triangle-free graph's count is noise, and the
    log-uniform mean added BTER triangles whenever it was positive (half the releases;
    on a 3,000-node random bipartite graph 1.6x the triangles of the release without the
    step at epsilon 0.5, 40 seeds); the gate leaves that to the 12% of releases whose
    noise exceeds 1 sd, and the point mass shrinks those, at a cost in gnutella's triangle
    RE (0.37 -> 0.61 at epsilon 0.5, still below the peers').

    Examples
    --------
    >>> noise = Noise.for_laplace(1.0, 1.0, integer=True)
    >>> round(pooled_clustering(500.0, 1000.0, noise), 3), pooled_clustering(5.0, 0.0, noise)
    (0.5, 0.0)
    >>> pooled_clustering(1.0, 1000.0, noise)  # below 1 noise sd (1.36): the step off
    0.0
    """
    if wedges <= 0 or noisy <= POOLED_GATE * np.sqrt(noise.variance):
        return 0.0
    grid = np.geomspace(PRIOR_LOW, 1.0, PRIOR_POINTS)
    scale = np.sqrt(noise.variance / 2.0)
    distance = np.abs(noisy - grid * wedges) / scale
    low = min(distance.min(), noisy / scale)  # the likelihoods relative to the largest
    slab = np.exp(-(distance - low)) * (1.0 - PRIOR_ZERO) / PRIOR_POINTS
    zero = PRIOR_ZERO * np.exp(-(noisy / scale - low))
    return float((slab * grid).sum() / (slab.sum() + zero))


def bin_clustering(
    noisy: np.ndarray,
    bins: np.ndarray,
    degrees: np.ndarray,
    noise: Noise,
    cap: int = DEFAULT_CAP,
    wedges: np.ndarray | None = None,
) -> np.ndarray:
    """Per-bin clustering coefficients from the noisy corner sums: a bin's noisy corners
    over its wedges ``sum C(min(d, cap), 2)`` under the fitted ``degrees`` (public, e.g.
    the generator's integer degrees), clipped to [0, 1]. A bin whose noisy sum is below
    :data:`GATE` noise standard deviations (at noise level) takes the estimate of the
    nearest higher-degree bin above the gate, or 0 if there is none (the BTER step is then
    off for it). Post-processing. O(n).

    ``wedges`` (per bin) replaces that denominator: the projection drops edges at nodes
    of degree above ``cap`` (and edges to them), so the default estimates the capped
    graph's clustering, biased low; the sparse generator passes
    :func:`~privcut.graph.affinity.expected_wedges`, the wedges the same projection is
    expected to keep of a configuration-model graph of the public degrees.

    A pooled measurement (one noisy value, :func:`bin_count`) gives one estimate for every
    degree: :func:`pooled_clustering` of its corners and all bins' wedges. The
    bins of the noisy degrees mix the true degrees when the degree noise is large, so the
    ratio of one bin's corners to the wedges of the fitted degrees in it (which follow the
    noisy ones) is biased; pooled, the wedges are those of the whole fitted sequence.

    Examples
    --------
    >>> noise = Noise.for_laplace(1.0, 9.0, integer=True)
    >>> bin_clustering(np.array([300.0, 2.0]), np.array([0, 0, 1]),
    ...                np.array([10.0, 10.0, 5.0]), noise).tolist()
    [1.0, 0.0]
    >>> bin_clustering(np.array([2.0, 95.0]), np.array([0, 0, 1]),
    ...                np.array([10.0, 10.0, 20.0]), noise).tolist()
    [0.5, 0.5]
    >>> bin_clustering(np.array([84.0]), np.array([0, 0, 1]), np.array([10.0, 10.0, 20.0]),
    ...                noise).round(3).tolist()  # pooled: 84 / 280 = 0.3 at sd 12.7
    [0.291]
    """
    noisy = np.asarray(noisy, dtype=float)
    if wedges is None:
        capped = np.minimum(np.maximum(np.asarray(degrees, dtype=float), 0.0), cap)
        wedges = np.bincount(bins, weights=capped * (capped - 1.0) / 2.0, minlength=noisy.size)
    wedges = np.asarray(wedges, dtype=float)
    if noisy.size == 1:
        return np.array([pooled_clustering(float(noisy[0]), float(wedges.sum()), noise)])
    signal = above_gate(noisy, noise) & (wedges > 0)
    ratio = np.clip(np.divide(noisy, wedges, out=np.zeros(noisy.size), where=signal), 0.0, 1.0)
    # a bin at noise level takes the nearest higher bin's estimate above the gate (clustering
    # falls with degree in social graphs, so this errs low); none above: 0
    above = np.where(signal, np.arange(noisy.size), noisy.size)
    nearest = np.minimum.accumulate(above[::-1])[::-1]
    return np.append(ratio, 0.0)[nearest]
