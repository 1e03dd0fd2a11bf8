"""The ``"assortativity"`` measurement (one clipped-degree moment of the edges: Newman
2003 [New03]'s covariance of the degrees at an edge's two ends, with the degrees read
exactly and clipped for a bounded sensitivity) and the swap step of the sparse generator
that meets it (degree-preserving double-edge swaps towards a target degree assortativity:
Xulvi-Brunet and Sokolov 2004 [XS04]).

Measurement. With ``f_i = min(d_i, D)`` (d_i node i's degree in G) the statistic is ``T =
sum over the edges ij of (f_i - c)(f_j - c)`` (:func:`clipped_moment`) for a public cap D
and centre c in [0, D]: the cap at which the fitted degree sequence's edge ends reach
:data:`CAP_SHARE` of them and c their clipped mean (:func:`moment_parameters` of
:func:`sequence_distribution`, the isotonic fit of the ``"degree-sequence"`` measurement
taken before: public given that output, so by adaptive basic composition, Dwork and Roth
2014 Thm 3.16, the two cost the sum of their epsilons). Sensitivity under edge-level
neighbours (same public node set, one vertex pair {u, v} differs; say G' = G + uv): only
d_u and d_v change, by one, so ``T' - T`` is the new edge's term ``(f'_u - c)(f'_v - c)``,
at most ``D^2`` in absolute value (``|f - c| <= D``), plus, when ``d_u < D`` (else
``f_u`` stays), ``f_u``'s rise by one times ``f_w - c`` for each of u's ``d_u <= D - 1``
other edges uw, at most ``(D - 1) D``, and the same for v: l1 sensitivity ``3 D^2 - 2 D``
(:func:`moment_sensitivity`; reached when c = 0 and u, v have degree D - 1 and
neighbours of degree at least D). T is an integer, exact in 64 bits (D is at most
:func:`most_cap` of the public n, which is at most :func:`largest_cap`): discrete Laplace
noise of scale ``(3 D^2 - 2 D) / epsilon`` added to it in integers (Ghosh, Roughgarden,
Sundararajan 2009) is (epsilon, 0)-DP, up to the floating-point sampler's
total-variation distance, which grows with the scale; since D follows the released
degrees, the release's ``sampler_tv`` and ``effective_delta`` count it at the largest
public cap :func:`most_cap` (n), whatever D was (at most (1 + e) 5e-7 at epsilon 1 and
the default share).
One number, O(n + |E|). It replaced a joint-degree count over the classes of the
*noisy* degrees (sensitivity 1), which where the degree noise is as large as the degrees
(gnutella at epsilon 0.5) measured noise: benchmarks/RESULTS.md, "a clipped-degree moment
for the assortativity measurement".

Target (post-processing, :func:`assortativity_target`). ``T / m`` estimates ``cov(f_i,
f_j) + (mean f - c)^2`` over the edge ends; with m, the mean and ``var f`` from the
release's fitted degrees, ``r = (T / m - (mean f - c)^2) / var f`` is Newman's r of the
clipped degrees, shrunk by the posterior mean under a public Gaussian prior N(0,
:data:`PRIOR` ^ 2) on r: times ``PRIOR^2 / (PRIOR^2 + s^2)``, s its standard deviation
under the known noise (a target at noise level reads as 0).

The swaps move the release's r of its *whole* degrees to that estimate of the clipped r.
Clipping the swaps' degrees at D too (the release's clipped r meeting G's, the hubs above
D left where the configuration model put them) is the consistent choice but measured worse
where the hubs carry the disassortativity: mean assortativity RE over wiki-vote, gnutella
and LFR at epsilon 0.5-2 0.69 against 0.25 (better on LFR, 0.09-0.18 against 0.25-0.39;
8-9 times worse on wiki-vote at epsilon 1-2), and a cap share of 0.99 either way 0.33-0.37
(benchmarks/RESULTS.md, "the swaps' degrees: whole or clipped").

Swap step (post-processing, :func:`assortative_swaps`). Among the configuration-model
edges only (the BTER block edges and filtered survivors stay, keeping triangles), pairs of
edges ``(a, b), (c, d)`` of the same block pair become ``(a, d), (c, b)``: every degree and
every block-pair count is kept, and ``sum over edges of d_i d_j`` moves by ``-(d_a - d_c)
(d_b - d_d)`` while the other moments of Newman's r stay, so a swap is accepted when it
moves r towards the target (and makes no loop or repeat). Vectorised, a pass at a time:
towards a lower r (the usual case: a configuration model with fixed BTER blocks is
assortative) each edge is turned (higher-degree end first, where the groups allow it) and
the edges of a block pair are sorted by ``log2(d_a d_b)`` plus a random jitter and paired
first with last, (high, high) with (low, low), the largest moves of a pairing; towards a
higher r they are paired at random. The swaps of the right sign (moving r by less than
twice the gap) are kept up to the remaining gap, the largest moves first after a sorted
pairing (the fewest swaps: fewer hub-hub edges broken, more of the hubs' triangles left
to the closing swaps), in a random order after a random one; the new pairs are looked up
in a hash set of the edges (:class:`~privcut.graph.keyset.KeyTable`), and the pairs past
the gap fill what the repeats refused, up to :data:`FILLS` rounds. O(|E|) expected per
pass, at most :data:`PASSES` passes (public), fewer once r is within :data:`TOLERANCE` of
the target or a pass moved it by less than :data:`STALL`: on the LFR, wiki-vote and
gnutella releases 1-5 passes where the random pairing took 1-15 (benchmarks/RESULTS.md,
"Issue 18: assortativity swaps in fewer passes").

Undirected 0/1 graphs only (the planner refuses directed and weighted graphs).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.optimize import isotonic_regression

from privcut.graph.arrays import index_dtype
from privcut.graph.keyset import KeyTable
from privcut.graph.sorting import stable_argsort
from privcut.privacy import Noise
from privcut.privacy.validation import check_scalar

__all__ = [
    "CAP_LIMIT",
    "CAP_SHARE",
    "FILLS",
    "JITTER",
    "PAIR_CHUNK",
    "PASSES",
    "PRIOR",
    "TOLERANCE",
    "assortative_swaps",
    "assortativity_target",
    "clipped_moment",
    "degree_assortativity",
    "largest_cap",
    "moment_parameters",
    "moment_sensitivity",
    "most_cap",
    "sequence_distribution",
]

CAP_SHARE = 0.95
"""The public share of the edge ends whose degree the measurement's cap keeps unclipped:
the cap is the degree at which the fitted degree sequence's edge ends reach it
(:func:`moment_parameters`). Measured by ``benchmarks/assortativity_moment.py``
(benchmarks/RESULTS.md, "a clipped-degree moment for the assortativity measurement"):
0.98 and 0.99 cut the clipping's bias but add more noise (quadratic in the cap)."""

CAP_LIMIT = 512
"""The public largest cap D of the measurement (:func:`most_cap`): the noise scale ``(3 D^2 -
2 D) / epsilon`` follows D, which the released degrees choose, so the samplers' scale cap
(2**40) is checked and their slack stated at this worst case before any spend (a cap near
400 on wiki-vote at epsilon 0.5-2 is below it; the discrete Laplace sampler is exact, so the
slack is 0 unless another sampler replaces it)."""

PASSES = 20
"""The public maximum number of swap passes of :func:`assortative_swaps`."""

TOLERANCE = 1e-3
"""The swaps stop once the release's r is within this of the target."""

STALL = 2e-3
"""The swaps also stop after a pass that moved r by less than this (a stall: the passes
left would move it little more; benchmarks/RESULTS.md, "Issue 18: release speed, sixth
round")."""

PRIOR = 0.15
"""The public prior standard deviation of a graph's degree assortativity (Newman 2003
[New03] Table I: social, technological and biological networks span about -0.4 to 0.4)."""

PAIR_CHUNK = 2**14
"""The edge pairs a swap pass weighs at a time (:func:`_prefix`)."""

FILLS = 4
"""The public maximum number of rounds of swaps per pass of :func:`assortative_swaps`: the
pairs past the gap fill the part of it that the swaps refused for repeats left."""

JITTER = 1.0
"""The random jitter (log2 units) added to the swap passes' sort keys (:func:`_ordered`)."""

_SCALE = 2.0**16 / (64.0 + JITTER + 1.0)
"""The sort keys' scale: a key in [0, 64 + JITTER) (a degree below 2^32) to 16 bits."""


def moment_sensitivity(cap: int) -> float:
    """The l1 sensitivity of :func:`clipped_moment` at ``cap`` D (any centre in [0, D]):
    ``3 D^2 - 2 D`` (see the module docstring).

    Examples
    --------
    >>> moment_sensitivity(1), moment_sensitivity(20)
    (1.0, 1160.0)
    """
    cap = check_scalar(cap, "cap", int, low=1)
    return float(3 * cap * cap - 2 * cap)


def sequence_distribution(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The degree distribution a measurement may use after the ``"degree-sequence"``:
    each group's noisy sorted degrees (``values``, groups in label order as
    :func:`~privcut.graph.measurement.sorted_sequence` lists them) fitted by isotonic
    regression (the constrained inference of Hay et al. 2009), clipped to [0, n - 1].
    Post-processing. O(n).

    Examples
    --------
    >>> sequence_distribution(np.array([1.0, 3.0, 2.0, 6.0]), np.zeros(4, int)).tolist()
    [1.0, 2.5, 2.5, 3.0]
    """
    values, labels = np.asarray(values, dtype=float), np.asarray(labels)
    n = labels.size
    edges = np.concatenate([[0], np.cumsum(np.bincount(labels))])
    fits = [isotonic_regression(values[a:b]).x for a, b in itertools.pairwise(edges) if b > a]
    return np.clip(np.concatenate(fits), 0.0, max(n - 1.0, 0.0))


def largest_cap(n: int) -> int:
    """The largest cap D for which :func:`clipped_moment` is exact in 64-bit integers on
    any graph of n nodes: ``D^2 n (n - 1) <= 2^62`` (the sum over the stored entries, two
    per edge, each at most ``D^2`` in absolute value), so the moment plus its noise never
    overflows. Public. About 2,100 at 10^6 nodes, 210 at 10^7.

    Examples
    --------
    >>> largest_cap(1), largest_cap(10**6)
    (2147483648, 2147)
    """
    n = check_scalar(n, "n", int, low=1)
    return math.isqrt(2**62 // max(n * (n - 1), 1))


def most_cap(n: int) -> int:
    """The largest cap :func:`moment_parameters` can choose on ``n`` nodes (public): ``n -
    1`` (the fitted degrees are at most that), :func:`largest_cap` (n) and
    :data:`CAP_LIMIT`, at least 1. The measurement's noise scale is at most that of this
    cap, so the sampler's total-variation bound is stated there, independently of the
    data, and a plan whose noise at this cap would pass the samplers' cap is refused
    before any spend.

    Examples
    --------
    >>> most_cap(34), most_cap(10**4), most_cap(1)
    (33, 512, 1)
    """
    n = check_scalar(n, "n", int, low=1)
    return max(1, min(n - 1, largest_cap(n), CAP_LIMIT))


def moment_parameters(distribution: np.ndarray, share: float = CAP_SHARE) -> tuple[int, int]:
    """The public cap D and centre c of :func:`clipped_moment` from a degree distribution
    (one entry per node, :func:`sequence_distribution`): D the smallest degree of the
    distribution at which its edge ends (each node counted ``degree`` times) reach
    ``share`` of them, rounded up, at least 1 and at most :func:`most_cap` (n); c the
    mean of ``min(d, D)`` over the edge ends, rounded (in [0, D]). Post-processing.
    O(n log n).

    Examples
    --------
    >>> degrees = np.array([1.0] * 10 + [10.0] * 2)  # the hubs hold 20 of 30 ends
    >>> moment_parameters(degrees, share=0.5), moment_parameters(degrees, share=0.3)
    ((10, 7), (1, 1))
    >>> moment_parameters(np.zeros(3))
    (1, 0)
    """
    f = np.sort(np.asarray(distribution, dtype=float))
    total = f.sum()
    if total <= 0:
        return 1, 0
    reached = np.cumsum(f) / total
    cap = int(np.ceil(f[min(np.searchsorted(reached, share), f.size - 1)]))
    cap = min(max(1, cap), most_cap(max(f.size, 1)))
    clipped = np.minimum(f, cap)
    return cap, int(np.rint((f * clipped).sum() / total))


def clipped_moment(adjacency, cap: int, centre: int) -> int:
    """The ``"assortativity"`` statistic ``T = sum over edges ij of (f_i - c)(f_j - c)``,
    ``f = min(degree, cap)``, ``c = centre`` in [0, cap], of a checked symmetric 0/1 CSR
    adjacency (each edge stored as (i, j) and (j, i), no loops): half the sum over its
    stored entries, exact in 64-bit integers (a cap above :func:`largest_cap` of its n
    nodes is refused), from one sparse product (no array per edge). l1 sensitivity
    :func:`moment_sensitivity` (cap) under edge-level neighbours. O(n + |E|) time, O(n)
    memory.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> A = sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]], dtype=float))
    >>> clipped_moment(A, 2, 1)  # edges (0, 1), (0, 2): (2 - 1)(1 - 1) twice
    0
    >>> clipped_moment(A, 1, 0)
    2
    """
    n = adjacency.shape[0]
    cap = check_scalar(cap, "cap", int, low=1, high=largest_cap(max(n, 1)))
    centre = check_scalar(centre, "centre", int, low=0, high=cap)
    f = np.minimum(np.diff(adjacency.indptr), cap).astype(np.int64) - centre
    # each row's sum of its neighbours' f, exact in float64 (|sum| <= cap n < 2^32)
    sums = np.rint(adjacency @ f.astype(float)).astype(np.int64)
    return int(np.dot(f, sums)) // 2


def degree_assortativity(rows: np.ndarray, columns: np.ndarray, degrees: np.ndarray) -> float:
    """Newman's r of the edges ``(rows, columns)`` (each once) with node values
    ``degrees`` (the graph's degrees: ``networkx.degree_assortativity_coefficient``).
    O(n + |E|).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.barabasi_albert_graph(50, 2, seed=0)
    >>> rows, columns = np.array(G.edges).T
    >>> degrees = np.array([G.degree(v) for v in range(50)], dtype=float)
    >>> r = degree_assortativity(rows, columns, degrees)
    >>> bool(np.isclose(r, nx.degree_assortativity_coefficient(G)))
    True
    """
    f = np.asarray(degrees, dtype=float)
    edges = rows.size
    if edges == 0:
        return float("nan")
    mean = (f**2).sum() / (2.0 * edges)
    variance = (f**3).sum() / (2.0 * edges) - mean**2
    if variance <= 0:
        return float("nan")
    return float(((f[rows] * f[columns]).sum() / edges - mean**2) / variance)


def assortativity_target(
    value: float, noise: Noise, degrees: np.ndarray, cap: int, centre: int, prior: float = PRIOR
) -> float:
    """The target degree assortativity from the noisy :func:`clipped_moment` ``value``:
    ``(T / m - (mean f - c)^2) / var f`` with ``f = min(d, cap)`` over the edge ends of
    the release's ``degrees`` (m their half sum; ``T / m`` estimates ``cov + (mean f -
    c)^2``, so the centre's offset is taken off), times ``prior^2 / (prior^2 + s^2)`` (the
    posterior mean under a N(0, prior^2) prior on r and Gaussian error) for ``s =
    sqrt(2) b / (m var f)``, b the noise's scale (a target at noise level reads as 0);
    clipped to [-1, 1]; 0 when undefined. It estimates r of the clipped degrees, to which
    the swaps then move the release's r of its whole degrees (see the module).
    Post-processing. O(n).

    Examples
    --------
    >>> exact = Noise.for_laplace(1e6, 1.0, integer=True)
    >>> degrees = np.array([1.0, 1.0, 2.0])  # a path: ends (1, 2) twice, r = -1
    >>> assortativity_target(-1.0, exact, degrees, 2, 2, prior=1e3)
    -1.0
    >>> loud = Noise.for_laplace(1e-3, 1.0, integer=True)
    >>> abs(assortativity_target(-1.0, loud, degrees, 2, 2)) < 1e-6
    True
    """
    f = np.asarray(degrees, dtype=float)
    total = f.sum()
    if total <= 0:
        return 0.0
    clipped = np.minimum(f, cap)
    mean = (f * clipped).sum() / total
    variance = (f * clipped * clipped).sum() / total - mean**2
    edges = total / 2.0
    if variance <= 1e-12:
        return 0.0
    r = (value / edges - (mean - centre) ** 2) / variance
    spread = np.sqrt(2.0) * noise.scale / (edges * variance)
    return float(np.clip(r * prior**2 / (prior**2 + spread**2), -1.0, 1.0))


def _blocks(rows: np.ndarray, columns: np.ndarray, labels: np.ndarray) -> tuple:
    """Each edge's block pair, the key ``low (g + 1) + high`` of its groups ``low <= high``
    (g the largest label) in the least unsigned type that holds it (a radix sort by it
    takes one pass below 2^16), and whether its two ends are in one group. A swap keeps
    both, so the swaps take them once. O(|E|)."""
    first, second = labels[rows], labels[columns]
    low, high = np.minimum(first, second), np.maximum(first, second)
    top = int(labels.max(initial=0)) + 1
    kind = np.uint16 if top * top <= 2**16 else np.uint32 if top * top <= 2**32 else np.uint64
    block = low.astype(kind)
    block *= kind(top)
    block += high.astype(kind)
    return block, low == high


def _labelled(rows: np.ndarray, columns: np.ndarray, labels: np.ndarray | None) -> tuple:
    """The swaps' view of the groups, taken once: the labels (4 bytes where they fit),
    each edge's block pair and whether its ends share a group (:func:`_blocks`), whether
    its row's label is the larger, and the pairs of positions in the edges sorted by block
    pair that a pass pairs (:func:`_partners`; the same every pass); the block pairs None
    for one block pair, the first three None without labels."""
    if labels is None:
        return None, None, None, None, _partners(np.zeros(rows.size, dtype=np.uint8))
    labels = np.asarray(labels)
    labels = labels.astype(np.int32 if labels.max(initial=0) < 2**31 else np.int64)
    block, within = _blocks(rows, columns, labels)
    above = labels[rows] > labels[columns]
    if block.min() == block.max():  # one block pair: one run
        return labels, None, within, above, _partners(np.zeros(rows.size, dtype=np.uint8))
    return labels, block, within, above, _partners(block)


def _partners(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions ``(low, high)`` paired in the edges sorted by block pair: in each
    block pair's run the k-th first with the k-th last (the middle one of an odd run
    unpaired), so that a pass that sorts each run by a key pairs its two ends.
    O(|E| log |E|)."""
    runs = np.sort(block)
    change = np.flatnonzero(runs[1:] != runs[:-1]) + 1
    starts, ends = np.r_[0, change], np.r_[change, runs.size]
    index = index_dtype(runs.size)  # positions in 4 bytes where they fit
    position = np.arange(runs.size, dtype=index)
    partner = np.repeat((starts + ends - 1).astype(index), ends - starts) - position
    low = position < partner
    return position[low], partner[low]


_HALF, _LOW = np.uint64(32), np.uint64(2**32 - 1)
"""An edge packed in one 64-bit word: its row in the high 32 bits, its column in the low
(a pair key ``i n + j`` fits 64 bits, so n < 2^32): one read per edge of a pass."""


def _orient(pair: np.ndarray, above, within, flip: np.ndarray) -> np.ndarray:
    """Each edge of ``pair`` (packed) as (a, b), packed alike, with ``labels[a] <=
    labels[b]`` (``above``: whether the row's label is the larger; ``within``: whether the
    two are one, or None without labels), turned by ``flip`` where they are one."""
    if within is not None:
        flip &= within
        flip |= above
    turned = pair << _HALF
    high = pair >> _HALF
    turned |= high
    del high  # one temporary of |E| words at a time (the release's peak: issue 18)
    np.copyto(turned, pair, where=~flip)
    return turned


def _ends(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two ends of packed edges, as int64."""
    return (packed >> _HALF).view(np.int64), (packed & _LOW).view(np.int64)


def _ordered(pair: np.ndarray, above, within, logs: np.ndarray, gap: float, rng) -> tuple:
    """The edges of ``pair`` oriented as (a, b) (:func:`_orient`) and the order a pass
    pairs them in (each block pair's first with its last, :func:`_partners`). Towards a
    lower r (``gap < 0``) each edge is turned to put its higher-degree end first where the
    groups allow it (its lower-numbered end at equal degrees) and ordered by ``log2(d_a
    d_b)`` plus a uniform jitter of :data:`JITTER` (16-bit keys, one radix pass), so that
    the top of a run (both ends high) swaps with its bottom (both low) to (high, low)
    twice, the largest moves of a pairing; towards a higher r, turned and ordered at
    random (a random pairing; sorting the other way would pair the same hubs every
    pass). O(|E|)."""
    if gap > 0:
        return _orient(pair, above, within, rng.random(pair.size) < 0.5), rng.permutation(pair.size)
    rows, columns = _ends(pair)
    first, second = logs[rows], logs[columns]
    del rows, columns
    packed = _orient(pair, above, within, first < second)
    first += second
    del second
    first += rng.random(pair.size, dtype=np.float32) * np.float32(JITTER)
    first *= np.float32(_SCALE)
    return packed, np.argsort(first.astype(np.uint16), kind="stable")


def _largest_first(i: np.ndarray, j: np.ndarray, packed: np.ndarray, f: np.ndarray) -> tuple:
    """The edge pairs ``(i[k], j[k])`` (edges ``packed`` as (a, b)) ordered by the size of
    their swap's move ``|(d_a - d_c)(d_b - d_d)|``, largest first (16-bit keys of its
    log2, one stable radix pass: pairs of about one size keep their order), so that the
    swaps up to the gap are as few as can be: fewer edges rewired, fewer of the hubs'
    triangles broken (benchmarks/RESULTS.md, "Issue 18: assortativity swaps in fewer
    passes"). O(k) for k pairs."""
    first, second = packed[i], packed[j]  # one end's degrees at a time: fewer temporaries
    size = f[(first >> _HALF).view(np.int64)]
    size -= f[(second >> _HALF).view(np.int64)]
    other = f[(first & _LOW).view(np.int64)]
    other -= f[(second & _LOW).view(np.int64)]
    del first, second
    size *= other
    del other
    np.abs(size, out=size)
    size += 1.0
    key = np.log2(size, out=size)  # below 64 (degrees below 2^32): 2^9 steps per unit
    key *= -(2.0**9)
    key += 2.0**15
    order = np.argsort(key.astype(np.uint16), kind="stable")
    return i[order], j[order]


def _prefix(i: np.ndarray, j: np.ndarray, packed: np.ndarray, f: np.ndarray, gap: float):
    """The swaps of the edge pairs ``(i[k], j[k])`` (edges ``packed`` as (a, b)) that move
    ``sum d_a d_b`` the way of ``gap``, by less than twice it (a larger move would leave r
    further from the target), and make no loop, the pairs in order up to the gap
    (while the sum of their moves before each, plus half its own, is at most ``|gap|``):
    the number of pairs read (up to the first past the gap) and the swaps' ``i``, ``j``,
    moves and ends ``(a, b)`` of either edge. A chunk of :data:`PAIR_CHUNK` pairs at a
    time, the sums carried over (the same sums as one cumulative sum), so a short gap
    reads a few chunks of the edges only."""
    found, reached, limit, stop = [], 0.0, abs(gap), i.size
    for start in range(0, i.size, PAIR_CHUNK):
        ci, cj = i[start : start + PAIR_CHUNK], j[start : start + PAIR_CHUNK]
        (ai, bi), (aj, bj) = _ends(packed[ci]), _ends(packed[cj])
        delta = -(f[ai] - f[aj]) * (f[bi] - f[bj])
        ok = (delta * gap > 0) & (np.abs(delta) < 2.0 * limit) & (ai != bj) & (aj != bi)
        ok = np.flatnonzero(ok)
        size = np.abs(delta[ok])
        sums = np.cumsum(np.concatenate([[reached], size]))
        keep = ok[sums[1:] - size / 2.0 <= limit]
        found.append((ci[keep], cj[keep], delta[keep], ai[keep], bi[keep], aj[keep], bj[keep]))
        reached = sums[-1]
        if keep.size < ok.size:  # past the gap: so are all later pairs
            stop = start + int(ok[keep.size])
            break
    none = np.zeros(0, dtype=np.int64)
    parts = [np.concatenate(part) for part in zip(*found, strict=True)] if found else [none] * 7
    i, j, delta, ai, bi, aj, bj = parts
    return stop, (i, j, delta.astype(float), (ai, bi), (aj, bj))


def _swap(swaps: tuple, pair: np.ndarray, existing: KeyTable, above, labels, n: int) -> float:
    """Make the ``swaps`` (:func:`_prefix`) whose two new pairs are neither in
    ``existing`` nor made twice, in ``pair`` (packed, each as (low, high)), ``existing``
    (keys ``i n + j``) and ``above`` (whether a row's label is the larger, None without
    ``labels``); their total move of ``sum d_a d_b``. O(k) expected for k swaps."""
    i, j, delta, (ai, bi), (aj, bj) = swaps
    low_1, high_1 = np.minimum(ai, bj), np.maximum(ai, bj)
    low_2, high_2 = np.minimum(aj, bi), np.maximum(aj, bi)
    new_1, new_2 = low_1 * n + high_1, low_2 * n + high_2
    fresh = _first_new(np.concatenate([new_1, new_2]), existing)
    chosen = np.flatnonzero(fresh[: i.size] & fresh[i.size :])
    moved_ends = np.concatenate([i[chosen], j[chosen]])
    old_rows, old_columns = _ends(pair[moved_ends])
    existing.remove(old_rows * n + old_columns)
    low = np.concatenate([low_1[chosen], low_2[chosen]])
    high = np.concatenate([high_1[chosen], high_2[chosen]])
    pair[moved_ends] = (low.view(np.uint64) << _HALF) | high.view(np.uint64)
    if above is not None:  # the swapped edges' orientation
        above[moved_ends] = labels[low] > labels[high]
    existing.add(np.concatenate([new_1[chosen], new_2[chosen]]))
    return float(delta[chosen].sum())


def _first_new(keys: np.ndarray, existing: KeyTable) -> np.ndarray:
    """Whether each key is not in ``existing`` and is the first copy of its value in
    ``keys``: looked up in the hash set, the copies found by one stable sort of the keys
    (:func:`~privcut.graph.sorting.stable_argsort`). O(k) expected, plus O(k log k)."""
    fresh = ~existing.contains(keys)
    order = stable_argsort(keys)
    ordered = keys[order]
    fresh[order[1:][ordered[1:] == ordered[:-1]]] = False
    return fresh


def assortative_swaps(
    rows: np.ndarray,
    columns: np.ndarray,
    fixed: np.ndarray,
    degrees: np.ndarray,
    target: float,
    rng: np.random.Generator,
    labels: np.ndarray | None = None,
    passes: int = PASSES,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Degree-preserving double-edge swaps of the swappable edges ``(rows, columns)``
    (``rows < columns``) that move the whole graph's degree assortativity towards
    ``target`` [XS04]: ``(a, b), (c, d) -> (a, d), (c, b)`` within a block pair of
    ``labels`` (every block-pair count kept; one block without labels), accepted when the
    change ``-(d_a - d_c)(d_b - d_d)`` of ``sum d_i d_j`` has the sign of the gap to the
    target, up to the gap, and the new pairs are neither loops nor edges already there
    (``fixed``: the other edges' keys ``i n + j``, i < j, which stay). ``degrees`` are the
    whole graph's (kept by every swap). Each pass pairs the edges within block pairs:
    towards a lower r sorted by ``log2(d_a d_b)`` (plus a jitter of :data:`JITTER`), the
    first with the last, so that the swaps move r far per pass; towards a higher r at
    random. Up to :data:`FILLS` rounds per pass take the swaps (each moving r by less than
    twice the gap) up to the gap, the largest moves first after a sorted pairing, in a
    random order after a random one, the pairs past the gap filling what repeats
    refused. At most ``passes`` passes (public), each O(|E|) expected (one counting-sort
    pass per sort; a comparison sort by block pair, O(|E| log |E|), beyond 255 groups;
    the edges in a :class:`~privcut.graph.keyset.KeyTable`); stops within
    :data:`TOLERANCE` of the target, after a pass that made no swap, or after one that
    moved r by less than :data:`STALL`. Post-processing: the target comes from the
    released measurements, the pairings, orientations, orders and stopping rules read only
    the swapped graph's degrees and r and the generator's own draws.

    Returns the swapped ``(rows, columns)`` (``rows < columns``) and the passes taken.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.barabasi_albert_graph(300, 3, seed=1)
    >>> rows, columns = np.sort(np.array(G.edges), axis=1).T
    >>> degrees = np.bincount(np.concatenate([rows, columns])).astype(float)
    >>> r0 = degree_assortativity(rows, columns, degrees)
    >>> new_rows, new_columns, passes = assortative_swaps(
    ...     rows, columns, np.zeros(0, np.int64), degrees, -0.3, np.random.default_rng(0))
    >>> r1 = degree_assortativity(new_rows, new_columns, degrees)
    >>> bool(r1 < r0 - 0.1), bool(abs(r1 + 0.3) < 0.01), passes <= 2
    (True, True, True)
    >>> again = np.bincount(np.concatenate([new_rows, new_columns])).astype(float)
    >>> bool((again == degrees).all())
    True
    """
    target = check_scalar(target, "target", float, low=-1.0, high=1.0)
    passes = check_scalar(passes, "passes", int, low=0)
    rows, columns = np.asarray(rows, dtype=np.int64), np.asarray(columns, dtype=np.int64)
    fixed = np.asarray(fixed, dtype=np.int64)
    f = np.asarray(degrees, dtype=float)
    n, edges = f.size, rows.size + fixed.size
    if rows.size < 2 or edges == 0:
        return rows, columns, 0
    mean = (f**2).sum() / (2.0 * edges)
    variance = (f**3).sum() / (2.0 * edges) - mean**2
    if variance <= 0:
        return rows, columns, 0
    goal = edges * (target * variance + mean**2)
    current = (f[rows] * f[columns]).sum() + (f[fixed // n] * f[fixed % n]).sum()
    existing = KeyTable(np.concatenate([fixed, rows * n + columns]), high=n * n)
    labels, block, within, above, (first, last) = _labelled(rows, columns, labels)
    pair = rows.view(np.uint64) << _HALF
    pair |= columns.view(np.uint64)
    del rows, columns
    logs = np.log2(np.maximum(f, 1.0)).astype(np.float32)  # for 16-bit sort keys
    taken, tolerance = 0, TOLERANCE * edges * variance
    for _ in range(passes):
        gap = goal - current
        if abs(gap) <= tolerance:
            break
        taken += 1
        packed, order = _ordered(pair, above, within, logs, gap, rng)
        order = order.astype(first.dtype)  # positions in 4 bytes where they fit
        if block is not None:
            order = order[stable_argsort(block[order])]
        i, j = order[first], order[last]
        del order  # freed before the next |E|-sized arrays (the release's peak)
        shuffle = rng.permutation(i.size)
        i, j = i[shuffle], j[shuffle]
        del shuffle
        if gap < 0:  # the sorted pairing's swaps, largest first
            i, j = _largest_first(i, j, packed, f)
        moved = 0.0
        for _ in range(FILLS):  # the pairs past the gap fill what the repeats left
            stop, swaps = _prefix(i, j, packed, f, gap)
            step = _swap(swaps, pair, existing, above, labels, n)
            moved += step
            gap -= step
            i, j = i[stop:], j[stop:]
            if step == 0 or i.size == 0 or gap * moved <= 0 or abs(gap) <= tolerance:
                break
        current += moved
        if moved == 0 or abs(moved) < STALL * edges * variance:  # a stall
            break
    rows, columns = _ends(pair)
    return rows, columns, taken
