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

Nodes of degree above the cap (the hubs) get no block; their triangles come from the
configuration model's hub-hub edges. When the degree-assortativity swaps
(:mod:`privcut.graph.assortativity`) break those edges, :func:`closing_swaps` rewires the
edges among the hubs (at most :data:`CORE_SIZE` of them) to close as many triangles again,
keeping every degree and the assortativity (dK-2.5-style, [ODCJ15]).

Post-processing: reads only the measurements, the fitted degrees, the release's own edges
and fresh randomness. O(n log n + |E|) time and memory for the blocks (a block of size d +
1 has ``d (d + 1) / 2`` pairs, about ``d / 2`` per member, so all blocks' pairs number
about half the degree sum); :func:`closing_swaps` adds O(k^2) memory for k hubs.
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.sparse as sp

from privcut.graph.clustering import (
    BIN_EDGES,
    DEFAULT_CAP,
    bin_clustering,
    capped_projection,
    degree_bins,
)
from privcut.graph.sorting import dense_ranks, smallest, stable_argsort
from privcut.privacy import Noise
from privcut.privacy.validation import check_scalar

__all__ = [
    "CLOSING_PASSES",
    "CLOSING_WIDTH",
    "CORE_SIZE",
    "affinity_edges",
    "closing_swaps",
    "core_triangles",
    "expected_wedges",
    "node_rho",
    "projected_wedges",
]

CORE_SIZE = 512
"""At most this many nodes (the largest fitted degrees above the BTER cap) form the core
whose edges :func:`closing_swaps` rewires (a dense ``CORE_SIZE^2`` table: public)."""

CLOSING_PASSES = 14
"""The public maximum number of passes of :func:`closing_swaps` (20 before the matching
rounds, the balance carried over passes and the wider classes: 14 passes of those close
about as many triangles on wiki-vote; benchmarks/RESULTS.md, "Issue 18: closing swaps,
seventh round")."""

MATCHING_ROUNDS = 2
"""Rounds of :func:`closing_swaps`' greedy matching per pass: the candidates whose edges
and new pairs no chosen swap holds are matched again (one round keeps only the
candidates whose edges and new pairs no better candidate names, chosen or not)."""

PAIRINGS = 12
"""Partners proposed per core edge and pass of :func:`closing_swaps` (the edges of its
degree class 1 to ``PAIRINGS`` places on in a random order)."""

CLOSING_WIDTH = 0.2
"""Relative width of the degree classes :func:`closing_swaps` pairs edge ends in (a swap
exchanges two ends of about the same degree, so it barely moves the assortativity)."""

_BARRED = 2**29
"""Taken off :func:`closing_swaps`' table of common neighbours (32-bit integers) at an edge
or a loop: at least twice any count of common neighbours (graphs of fewer than
:data:`_WIDE` nodes), so a swap making either never gains, and small enough that a
candidate's gain (two entries less two) stays within 32 bits."""

_WIDE = 2**28
"""Graphs of at least this many nodes get a 64-bit table, barred by 2^40
(:func:`_barred`)."""


def _barred(table: np.ndarray) -> int:
    """:data:`_BARRED` for a 32-bit ``table``, 2^40 for a 64-bit one."""
    return _BARRED if table.dtype == np.int32 else 2**40


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
    ``degrees``), or the one pooled estimate for every node when the measurement is
    pooled (one value). Post-processing; O(n).

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
    if clustering.size == 1:
        return np.full(degrees.size, np.cbrt(clustering[0]))
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


def expected_wedges(
    degrees: np.ndarray, noisy_degrees: np.ndarray, cap: int = DEFAULT_CAP
) -> np.ndarray:
    """The wedges the measured corners are out of, as :func:`projected_wedges` counts them
    on a configuration-model graph of the integer ``degrees``, in expectation and without
    drawing it: under :func:`~privcut.graph.clustering.capped_projection` (each node's
    edges ordered by the released ``noisy_degrees`` of the other end, ties at random) an
    edge's other end v is v with probability ``d_v / sum d``, and a node v of degree above
    ``cap`` keeps an edge to a node of noisy degree p with probability ``clip((cap / d_v -
    F(<p)) / F(=p), 0, 1)`` (F the degree mass of the noisy degrees below and at p), so a
    node u keeps about ``Bin(d_u, q_u)`` of its edges, q_u that chance averaged over the
    other end, at most ``cap``; per noisy-degree bin the expected ``C(kept, 2)`` times the
    fraction of edges kept. Within 0.1-3% of a drawn proxy's :func:`projected_wedges` on
    the social graphs of ``benchmarks/social.py`` and about 50x faster (RESULTS.md,
    "Issue 18: triangles with assortativity"). Post-processing of the fitted and the
    released degrees; O(n log n) time (O(n) when the noisy degrees are integers spanning
    fewer than n, as released), O(n) memory.

    Examples
    --------
    >>> expected_wedges(np.array([2, 2, 2]), np.array([2.0, 2.0, 2.0])).tolist()
    [3.0, 0.0, 0.0]
    >>> expected_wedges(np.full(4, 3), np.full(4, 5.0)).tolist()  # no degree above the cap
    [0.0, 12.0, 0.0]
    """
    d = np.asarray(degrees, dtype=float)
    total = d.sum()
    if total <= 0:
        return np.zeros(len(BIN_EDGES) + 1)
    count, level = dense_ranks(noisy_degrees)
    at = np.bincount(level, d, count) / total
    below = np.cumsum(at) - at
    hubs = d > cap
    limit, weight = cap / d[hubs], d[hubs] / total
    # hub v keeps every edge to levels wholly below cap / d_v, part of the level it ends in
    ends = np.searchsorted(below + at, limit, side="right")
    whole = np.bincount(ends, weight, count + 1)[::-1].cumsum()[::-1][1:]
    inside = ends < count
    part = np.clip(
        (limit[inside] - below[ends[inside]]) / np.maximum(at[ends[inside]], 1e-300), 0.0, 1.0
    )
    chance = d[~hubs].sum() / total + whole
    chance += np.bincount(ends[inside], weight[inside] * part, count)
    q = chance[level]
    mean = d * q
    pairs = np.where(mean > cap, cap * (cap - 1) / 2.0, d * (d - 1.0) * q * q / 2.0)
    retention = np.minimum(mean, cap).sum() / total
    bins = degree_bins(noisy_degrees)
    return retention * np.bincount(bins, pairs, len(BIN_EDGES) + 1)


_BLOCK_DRAWS = 2**22
""":func:`affinity_edges` draws its blocks' pairs about this many at a time (whole blocks;
the draws come in the same order either way): its memory stays O(n + this) at any size."""


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
    O(n log n + sum of block pairs) time, O(n + edges + :data:`_BLOCK_DRAWS`) memory.

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
    order = shuffled[stable_argsort(degrees[shuffled])]  # degrees in [2, cap]: one radix pass
    starts, sizes = _blocks(degrees[order])
    # the blocks of two nodes or more by size, then by start: one draw per pair of each in
    # turn, in the pairs' order (numpy.triu_indices), about _BLOCK_DRAWS draws at a time
    blocks = np.flatnonzero(sizes >= 2)
    blocks = blocks[np.argsort(sizes[blocks], kind="stable")]
    first, size = starts[blocks], sizes[blocks]
    count = size * (size - 1) // 2
    chance, ends = rho[order[first]], np.cumsum(count)
    rows, columns = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    start = 0
    while start < blocks.size:
        done = int(ends[start - 1]) if start else 0
        stop = max(int(np.searchsorted(ends, done + _BLOCK_DRAWS, side="right")), start + 1)
        draws = rng.random(int(ends[stop - 1]) - done)
        chosen = np.flatnonzero(draws < np.repeat(chance[start:stop], count[start:stop]))
        block = start + np.searchsorted(ends[start:stop] - done, chosen, side="right")
        pair = chosen - (ends[block] - count[block] - done)  # its position in its block
        a, b = _pair_at(size[block], pair)
        u, v = order[first[block] + a], order[first[block] + b]
        rows.append(np.minimum(u, v))
        columns.append(np.maximum(u, v))
        start = stop
    return np.concatenate(rows), np.concatenate(columns)


def _pair_at(size: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The k-th pair ``(p, q)``, p < q, among ``size`` items in :func:`_pairs`' order (row
    p starts at pair ``p (2 size - p - 1) / 2``): the row from the quadratic's root,
    corrected by one where rounding moved it, in integers. O(len(k)).

    Examples
    --------
    >>> p, q = _pair_at(np.full(6, 4), np.arange(6))
    >>> p.tolist(), q.tolist()
    ([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])
    """
    size, k = size.astype(np.int64), k.astype(np.int64)
    width = 2 * size - 1
    p = np.floor((width - np.sqrt((width * width - 8 * k).astype(float))) / 2).astype(np.int64)
    p -= p * (width - p) // 2 > k
    p += (p + 1) * (width - p - 1) // 2 <= k
    return p, k - p * (width - p) // 2 + p + 1


def _once(first: np.ndarray, second: np.ndarray, size: int) -> np.ndarray:
    """Per item pair ``(first[r], second[r])`` (in priority order; entries in ``[0,
    size)``), whether both of its entries appear there first, in the order first[0],
    second[0], first[1], ... (a pair holding an entry of an earlier pair is dropped; fewer
    than 2^30 pairs). O(pairs + size)."""
    place = np.arange(0, 2 * first.size, 2, dtype=np.int32)
    earliest = np.full(size, 2 * first.size, dtype=np.int32)
    np.minimum.at(earliest, second, place + 1)
    np.minimum.at(earliest, first, place)
    return (earliest[first] == place) & (earliest[second] == place + 1)


def _core(degrees: np.ndarray, cap: int) -> np.ndarray:
    """The core: the nodes of degree above ``cap``, at most :data:`CORE_SIZE` of them (the
    largest degrees, ties by index), sorted."""
    degrees = np.asarray(degrees, dtype=float)
    members = np.flatnonzero(degrees > cap)
    if members.size > CORE_SIZE:
        order = np.lexsort((members, -degrees[members]))
        members = np.sort(members[order[:CORE_SIZE]])
    return members


@functools.lru_cache(maxsize=128)
def _few_pairs(c: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_pairs` for c <= 128, cached (at most 6 MB; read-only, shared by callers)."""
    first, second = np.triu_indices(c, 1)
    first.flags.writeable = second.flags.writeable = False
    return first, second


def _pairs(c: int) -> tuple[np.ndarray, np.ndarray]:
    """The positions ``(p, q)``, p < q, of the pairs among c items."""
    return _few_pairs(c) if c <= 128 else np.triu_indices(c, 1)


_CHUNK = 2**22
"""At most about this many outside pairs' keys (32 MB) are held at once
(:func:`_pair_keys`)."""


def _core_tables(rows, columns, index, k):
    """The core's dense adjacency, the core ends of the edges to outside nodes and those
    ends grouped by outside node, the nodes sorted by their count c of core neighbours
    (one sort), with where each count's group starts. O(|E| log |E| + k^2)."""
    ia, ib = index[rows], index[columns]
    core_a, core_b = ia >= 0, ib >= 0
    both = core_a & core_b
    x, y = ia[both], ib[both]
    adjacency = np.zeros((k, k))
    np.put(adjacency, np.concatenate([x * k + y, y * k + x]), 1.0)
    one = core_a ^ core_b
    inner = np.maximum(ia, ib)[one]  # the core end (the other's index is -1)
    outer = np.where(core_a, columns, rows)[one]
    size = np.bincount(outer, minlength=index.size)[outer]
    order = stable_argsort(size * index.size + outer)  # by c, then node
    ends, size = inner[order], size[order]
    return adjacency, inner, ends, np.searchsorted(size, np.arange(int(size.max(initial=0)) + 2))


def _narrow(k: int) -> int:
    """The most core neighbours an outside node may have for its pairs to be counted one by
    one (:func:`_pair_keys`, about ``c / 2`` keys per core end); nodes of more go to the
    dense products of :func:`_wide_blocks` (``k^2`` multiply-adds each, at BLAS speed):
    ``k / 12``, at least 2 (on wiki-vote's 512-node core :func:`core_triangles` takes
    about 0.8x the time of ``k / 8`` and 0.95x that of ``k / 16``; benchmarks/RESULTS.md,
    "Issue 18: closing swaps, seventh round")."""
    return max(k // 12, 2)


def _pair_keys(ends: np.ndarray, starts: np.ndarray, k: int):
    """Per outside node of ``2 <= c <=`` :func:`_narrow` core neighbours (:func:`_core_tables`'
    ``ends`` and ``starts``) its ``c (c - 1) / 2`` pairs of them as keys ``x k + y``,
    yielded in arrays of about :data:`_CHUNK` keys (each count's nodes one gather).
    O(k |E| / 24) time at most (at most ``k / 24`` keys per core end), O(:data:`_CHUNK` +
    k^2) memory."""
    keys, held = [], 0
    for c in np.flatnonzero(np.diff(starts[: _narrow(k) + 2])):
        if c < 2:
            continue
        first, second = _pairs(int(c))
        group = ends[starts[c] : starts[c + 1]].reshape(-1, c)
        step = max(_CHUNK // first.size, 1)  # nodes per gather
        for at in range(0, group.shape[0], step):
            part = group[at : at + step]
            keys.append((part.take(first, axis=1) * k + part.take(second, axis=1)).ravel())
            held += keys[-1].size
            if held >= _CHUNK:
                yield np.concatenate(keys)
                keys, held = [], 0
    if keys:
        yield np.concatenate(keys)


def _wide_blocks(ends: np.ndarray, starts: np.ndarray, k: int):
    """The outside nodes of more than :func:`_narrow` core neighbours (:func:`_core_tables`'
    ``ends`` and ``starts``) as dense 0/1 incidence blocks (``k`` x nodes, single
    precision, at most about :data:`_CHUNK` cells and ``2^24`` nodes each, so that their
    products are exact). At most ``12 |E| / k`` such nodes: O(k |E|) time and
    O(:data:`_CHUNK` + |E|) memory to build, their products O(k^2) multiply-adds a node."""
    low = _narrow(k) + 1
    if low >= starts.size - 1:
        return
    counts = np.arange(low, starts.size - 1)
    sizes = np.repeat(counts, np.diff(starts[low:]) // counts)  # per node, in ends' order
    bounds = starts[low] + np.concatenate([[0], np.cumsum(sizes)])
    step = min(max(_CHUNK // k, 1), 2**24)  # nodes per block
    for at in range(0, sizes.size, step):
        part = sizes[at : at + step]
        block = np.zeros((k, part.size), dtype=np.float32)
        block[ends[bounds[at] : bounds[at + part.size]], np.repeat(np.arange(part.size), part)] = 1
        yield block


def _outside(ends: np.ndarray, starts: np.ndarray, inner: np.ndarray, k: int) -> np.ndarray:
    """The core's common neighbours outside the core (``S S^T`` for the core-to-outside
    incidence S): for the outside nodes of few core neighbours :func:`_pair_keys` counted
    by ``bincount`` (about 1.5x faster than the sparse product on wiki-vote's core), for
    the others :func:`_wide_blocks`' products; the diagonal the core ends' counts.
    O(k |E|) time (multiply-adds at BLAS speed; bincounts of at most ``k |E| / 24`` keys),
    O(:data:`_CHUNK` + k^2 + |E|) memory."""
    outside = np.zeros(k * k, dtype=np.int64)
    for keys in _pair_keys(ends, starts, k):
        outside += np.bincount(keys, minlength=k * k)
    outside = outside.reshape(k, k)
    outside += outside.T
    for block in _wide_blocks(ends, starts, k):
        outside += (block @ block.T).astype(np.int64)
    outside.flat[:: k + 1] = np.bincount(inner, minlength=k)
    return outside.astype(float)


def _squared(adjacency: np.ndarray) -> np.ndarray:
    """The 0/1 ``adjacency`` squared (paths of length two), multiplied in single precision:
    exact, every entry and partial sum being at most :data:`CORE_SIZE` < 2^24."""
    single = adjacency.astype(np.float32)
    return (single @ single).astype(float)


def core_triangles(
    rows: np.ndarray, columns: np.ndarray, degrees: np.ndarray, cap: int = DEFAULT_CAP
) -> float:
    """The triangles of the graph ``(rows, columns)`` with an edge between two core nodes
    (:func:`closing_swaps`' core: fitted ``degrees`` above ``cap``, at most
    :data:`CORE_SIZE`): those among three core nodes plus, per core edge, its common
    neighbours outside the core (the pairs of core neighbours of each outside node that
    are core edges: one by one for an outside node of at most ``k / 12`` core neighbours,
    by a dense product for the others). O(k |E| + k^3) time (at most ``k / 24`` keys per
    edge, the rest multiply-adds at BLAS speed; was O(sum c^2), c the core neighbours of
    an outside node, up to ``k |E| / 2`` keys) and O(|E| + k^2) memory for k core nodes.
    Post-processing (reads a release, not the graph).

    Examples
    --------
    >>> rows, columns = np.array([0, 0, 1, 0]), np.array([1, 2, 2, 3])
    >>> core_triangles(rows, columns, np.array([3.0, 2.0, 2.0, 1.0]), cap=1)
    1.0
    """
    members = _core(degrees, cap)
    index = np.full(np.asarray(degrees).size, -1, dtype=np.int64)
    index[members] = np.arange(members.size)
    k = members.size
    adjacency, _, ends, starts = _core_tables(np.asarray(rows), np.asarray(columns), index, k)
    inside = (_squared(adjacency) * adjacency).sum() / 6.0
    flat = adjacency.ravel()  # the outside pairs that are core edges close a triangle each
    across = sum(flat.take(keys).sum() for keys in _pair_keys(ends, starts, k))
    single = adjacency.astype(np.float32)  # s^T A s / 2 per outside node s, exact
    for block in _wide_blocks(ends, starts, k):
        across += ((single @ block) * block).sum(dtype=float) / 2.0
    return float(inside + across)


def _candidates(
    a: np.ndarray, b: np.ndarray, grade: np.ndarray, table: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`closing_swaps`' candidate swaps of the core edges ``(a[i], b[i])`` (core
    indices, sorted by ``grade``) with the :data:`PAIRINGS` next edges of their grade,
    scored by the common neighbours gained, best first, each edge and each new pair in
    one swap at most, none adding a loop or an edge: as position pairs ``(i, j)``.
    ``table`` holds the common neighbours of every pair, less :data:`_BARRED` for an edge
    or a loop (so a swap making one never gains)."""
    k = table.shape[0]
    # the table is symmetric: entry (a, b) read at (b, a), b of about the same degree along
    # the edges (a row of few nodes), not at the rows of a, whose k-strided addresses share
    # a few cache sets (about 2.5x slower gathers)
    table, row = table.ravel(), b * k
    held = table.take(row + a) + _barred(table)  # the edges' common neighbours as they are
    pair = np.empty(a.size, dtype=np.int64)
    i, j, gain = [], [], []
    for shift in range(1, PAIRINGS + 1):  # partners ``shift`` places on, same grade
        pairs = pair[: max(a.size - shift, 0)]
        won = table.take(np.add(row[shift:], a[:-shift], out=pairs))
        won += table.take(np.add(row[:-shift], a[shift:], out=pairs))
        won -= held[:-shift]
        won -= held[shift:]
        good = np.flatnonzero((won > 0) & (grade[:-shift] == grade[shift:]))
        i.append(good)
        j.append(good + shift)
        gain.append(won[good])
    i, j, gain = np.concatenate(i), np.concatenate(j), np.concatenate(gain).astype(float)
    if gain.size > a.size:  # at most one swap per edge: the best candidates
        top = smallest(-gain, a.size)  # ties by position: the same on every CPU
        i, j, gain = i[top], j[top], gain[top]
    best = stable_argsort((np.max(gain, initial=0.0) - gain).astype(np.int64))  # integers
    i, j = i[best], j[best]
    new_1 = np.minimum(a[i], b[j]) * k + np.maximum(a[i], b[j])
    new_2 = np.minimum(a[j], b[i]) * k + np.maximum(a[j], b[i])
    chosen = _once(i, j, a.size) & _once(new_1, new_2, k * k)
    for _round in range(MATCHING_ROUNDS - 1):  # the candidates left free, matched again
        edge, pair = np.zeros(a.size, dtype=bool), np.zeros(k * k, dtype=bool)
        edge[i[chosen]] = edge[j[chosen]] = pair[new_1[chosen]] = pair[new_2[chosen]] = True
        free = np.flatnonzero(~(edge[i] | edge[j] | pair[new_1] | pair[new_2]))
        if free.size == 0:
            break
        again = _once(i[free], j[free], a.size) & _once(new_1[free], new_2[free], k * k)
        chosen[free[again]] = True
    return i[chosen], j[chosen]


def _balanced(
    i: np.ndarray, j: np.ndarray, degree_a: np.ndarray, degree_b: np.ndarray, carry: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """The candidate swaps ``(i, j)`` whose changes of ``sum d_i d_j`` cancel, with the
    ``carry`` (>= 0) the earlier passes moved it by: the raising swaps of smallest change
    first up to what the lowering ones can take back less the carry, then the lowering
    ones of smallest change first up to that plus the carry; with the carry after them
    (in ``[0, `` the largest lowering change ``)``, so over all passes the moment moves
    by at most one swap's change; review 8, I2: without the carry every pass moved it up
    by up to one swap's change)."""
    delta = -(degree_a[i] - degree_a[j]) * (degree_b[i] - degree_b[j])
    down, up = np.flatnonzero(delta < 0), np.flatnonzero(delta >= 0)
    down = down[np.argsort(-delta[down], kind="stable")]
    up = up[np.argsort(delta[up], kind="stable")]
    up = up[np.cumsum(delta[up]) <= -delta[down].sum() - carry]
    raised = delta[up].sum()
    down = down[np.cumsum(-delta[down]) <= raised + carry + 1e-9]
    take = np.concatenate([down, up])
    return i[take], j[take], carry + raised + delta[down].sum()


def _swapped(
    table: np.ndarray,
    adjacency: np.ndarray,
    outside: np.ndarray,
    ex: np.ndarray,
    ey: np.ndarray,
    c: np.ndarray,
) -> tuple[float, float]:
    """:func:`closing_swaps`' update for the change C (entries ``c`` at ``(ex, ey)``,
    symmetric, -1 an edge removed and +1 one added) of the core's ``adjacency`` (16-bit,
    updated in place), and of its ``table`` (updated in place): returns what C adds to
    ``trace A^3`` and to the common neighbours outside the core summed over the edges
    (both directions). O(k |C|) time."""
    k = table.shape[0]
    at, by_row = ex * k + ey, stable_argsort(ex)  # C's entries, flat; C in rows
    starts = np.concatenate([[0], np.cumsum(np.bincount(ex, minlength=k))])
    change = sp.csr_array((c[by_row], ey[by_row], starts), shape=(k, k))
    step = change @ adjacency
    np.put(adjacency, at, c > 0)
    after = change @ adjacency  # (A + C)^2 = A^2 + C A + (C (A + C))^T
    # trace (A + C)^3 = trace A^3 + 3 trace(A^2 C) + 3 trace(C A C) + trace(C^3), each a
    # sum over C's entries; C^2 = C (A + C) - C A
    barred, c = _barred(table), c.astype(np.int64)
    there = outside.take(at)
    mixed = table.take(at) - there + barred * (c < 0)  # A^2 at C's entries
    inside = (c * (3 * mixed + 2 * step.take(at) + after.take(at))).sum()
    table += step
    table += after.T
    np.put(table, at, table.take(at) - barred * c)
    return float(inside), float((c * there).sum())


def closing_swaps(
    rows: np.ndarray,
    columns: np.ndarray,
    fixed: np.ndarray,
    degrees: np.ndarray,
    goal: float,
    rng: np.random.Generator,
    cap: int = DEFAULT_CAP,
    passes: int = CLOSING_PASSES,
    labels: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Degree-preserving double-edge swaps among the swappable edges ``(rows, columns)``
    (``rows < columns``) between two core nodes (fitted ``degrees`` above ``cap``, at most
    :data:`CORE_SIZE` of the largest) that add triangles, a dK-2.5-style rewiring
    (Mahadevan et al. 2006 [MKFV06]; Orsini et al. 2015 [ODCJ15]): ``(a, b), (c, d) ->
    (a, d), (c, b)`` with b and d in the same degree class (width :data:`CLOSING_WIDTH`)
    and, given ``labels`` (groups), both edges in the same block pair and oriented alike
    (so every block-pair count stays). Candidates (each edge with the :data:`PAIRINGS`
    next ones of its class in a random order) are scored by the common neighbours of the
    new pairs minus those of the old (the triangles the swap adds if no other swap of the
    pass touches them) and taken best first (:data:`MATCHING_ROUNDS` rounds of a greedy
    matching), each edge and each new pair in one swap per pass, never a loop or an edge
    already there (``fixed``: the other edges' keys ``i n + j``, which stay), and balanced
    so that the swaps' changes of ``sum d_i d_j`` (the moment of Newman's r that a swap
    moves) cancel, those of smallest change first, what a pass leaves over carried to the
    next: every degree stays, and the degree assortativity up to one swap's change over
    all passes (it was one per pass, always upwards: review 8, I2). Passes go on until
    the triangles with an edge between two core nodes (:func:`core_triangles`, counted
    exactly at the start from the core's dense adjacency and its common neighbours outside
    the core, then kept exactly after every pass: the pass's change C of the adjacency A
    moves the paths of length two by ``C A + (A + C) C`` and the closed walks ``trace (A +
    C)^3`` by sums over C's entries) number ``goal``, or after ``passes`` (public); the
    state with the most of them is returned (the swaps of one pass interact, so a pass can
    lower the count). The edges are distinct (a simple graph).

    In the sparse generator (:meth:`privcut.graph.sparse.SparseGenerator.assortativity`)
    the goal is that count before the degree-assortativity swaps: the BTER blocks reach
    degrees up to ``cap`` only, and on a disassortative graph with a dense hub core
    (wiki-vote) those swaps break the hub-hub edges that close most triangles.
    Post-processing: reads only the release's edges and degrees and fresh randomness.
    O(k |E| + k^3) time to start (as :func:`core_triangles`), then
    per pass O(P m + m log m + k^2 + s k) for the m swappable edges, P = :data:`PAIRINGS`
    and s accepted swaps (the two products of C, O(s k), the largest part on wiki-vote's
    512-node core: benchmarks/RESULTS.md, "Issue 18: closing swaps, seventh round");
    O(|E| + k^2 + P m) memory (k core nodes).

    Returns the swapped ``(rows, columns)`` (``rows < columns``) and their
    :func:`core_triangles` count.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.random_regular_graph(6, 40, seed=0)
    >>> rows, columns = np.sort(np.array(G.edges), axis=1).T
    >>> degrees = np.full(40, 6.0)
    >>> before = core_triangles(rows, columns, degrees, cap=2)
    >>> new_rows, new_columns, count = closing_swaps(
    ...     rows, columns, np.zeros(0, np.int64), degrees, before + 50,
    ...     np.random.default_rng(0), cap=2)
    >>> bool(count > before), core_triangles(new_rows, new_columns, degrees, cap=2) == count
    (True, True)
    >>> bool((np.bincount(np.concatenate([new_rows, new_columns])) == 6).all())
    True
    """
    passes = check_scalar(passes, "passes", int, low=0)
    rows, columns = np.asarray(rows, dtype=np.int64), np.asarray(columns, dtype=np.int64)
    fixed = np.asarray(fixed, dtype=np.int64)
    f = np.asarray(degrees, dtype=float)
    members = _core(f, cap)
    n, k = f.size, members.size
    index = np.full(n, -1, dtype=np.int64)
    index[members] = np.arange(k)
    swappable = np.flatnonzero((index[rows] >= 0) & (index[columns] >= 0))
    low, high = index[rows[swappable]], index[columns[swappable]]  # core indices, low < high
    classes = np.floor(np.log(np.maximum(f, 1.0)) / np.log1p(CLOSING_WIDTH)).astype(np.int64)
    grade, weight = classes[members], f[members]
    if labels is not None:
        labels = np.asarray(labels)
        group = labels[members].astype(np.int64)
        spans = (int(labels.max()) + 1, int(classes.max()) + 1)
    adjacency, inner, ends, starts = _core_tables(  # the |E|-sized ends freed after it
        np.concatenate([rows, fixed // n]), np.concatenate([columns, fixed % n]), index, k
    )
    # exact integers, the outside ones gathered at every pass's changes
    outside = _outside(ends, starts, inner, k).astype(np.int32 if n < _WIDE else np.int64)
    paths = _squared(adjacency)
    inside, across = (paths * adjacency).sum(), (outside * adjacency).sum()
    table = (paths + outside).astype(outside.dtype)
    table -= _barred(table) * (adjacency + np.eye(k)).astype(table.dtype)  # no loop or repeat
    adjacency = adjacency.astype(np.int16)  # |C A| <= 2 k: the pass's products in 16 bits
    best = (inside / 6.0 + across / 2.0, low.copy(), high.copy())  # passes interact: keep it
    carry = 0.0  # what the passes moved sum d_i d_j by
    for _pass in range(passes):
        if inside / 6.0 + across / 2.0 >= goal or swappable.size < 2:
            break
        flip = rng.random(swappable.size) < 0.5
        if labels is not None:  # (a, b) with labels[a] <= labels[b]: block pairs kept
            first, second = group[low], group[high]
            flip = (first > second) | ((first == second) & flip)
        ends_a, ends_b = np.where(flip, high, low), np.where(flip, low, high)
        key = grade[ends_b]
        if labels is not None:
            key = (group[ends_a] * spans[0] + group[ends_b]) * spans[1] + key
        order = rng.permutation(swappable.size)
        order = order[stable_argsort(key[order] - key.min())]
        a, b = ends_a[order], ends_b[order]
        i, j = _candidates(a, b, key[order], table)
        i, j, carry = _balanced(i, j, weight[a], weight[b], carry)
        if i.size == 0:
            break
        x = np.concatenate([a[i], a[j], a[i], a[j]])
        y = np.concatenate([b[i], b[j], b[j], b[i]])
        sign = np.repeat(np.array([-1, -1, 1, 1], dtype=np.int16), i.size)
        ends = np.concatenate([x, y]), np.concatenate([y, x])  # C symmetric
        more = _swapped(table, adjacency, outside, *ends, np.concatenate([sign, sign]))
        inside, across = inside + more[0], across + more[1]
        edge_i, edge_j = order[i], order[j]
        low[edge_i], high[edge_i] = np.minimum(a[i], b[j]), np.maximum(a[i], b[j])
        low[edge_j], high[edge_j] = np.minimum(a[j], b[i]), np.maximum(a[j], b[i])
        if inside / 6.0 + across / 2.0 > best[0]:
            best = (inside / 6.0 + across / 2.0, low.copy(), high.copy())
    count, low, high = best
    rows, columns = rows.copy(), columns.copy()  # copied last: the inputs are not changed
    rows[swappable], columns[swappable] = members[low], members[high]
    return rows, columns, float(count)
