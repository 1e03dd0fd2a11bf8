"""Peer synthetic-graph generators, re-implemented from their papers for the issue 18 benchmark.

Two published edge-level differentially private graph generators, written here from the
papers' descriptions (not from their authors' code), with privcut's noise samplers so that
they get the same noise quality as privcut:

* :func:`privgraph` — PrivGraph (**Yuan et al. 2023**, USENIX Security; docs/references.md):
  private community detection (the paper's "Community Initialization" on a noisy
  super-graph, then "Community Adjustment" by the exponential mechanism), noisy
  inter-community edge counts and intra-community degree sequences ("Information
  Extraction"), then "Graph Reconstruction" (Chung–Lu within communities, uniformly random
  edges between them). Quoted names are the paper's method subsections.
* :func:`top_m_filter` — Top-m Filter, TmF (**Nguyen et al. 2015**, ASONAM): a noisy edge
  count, the true edges kept when their Laplace-noised value passes a threshold, and the
  rest of the noisy edge count filled with uniformly random non-edges.

Both take ``A``, a symmetric 0/1 ``scipy.sparse`` CSR adjacency of an undirected simple
graph on nodes ``0..n-1`` (no self-loops), ``epsilon`` and a numpy Generator ``rng``, and
return the released graph on the same nodes as a symmetric 0/1 ``scipy.sparse.csr_array``
with a zero diagonal.

Privacy (both): edge-level epsilon-DP, the neighbouring relation being two graphs on the
same public node set that differ in one node pair. PrivGraph: sequential composition of
its three phases, eps1 + eps2 + eps3 = epsilon (Yuan et al. 2023, its privacy analysis):
phase 1 is the Laplace mechanism on the super-graph's cell counts (each edge is in exactly
one cell, sensitivity 1); phase 2 gives every node one exponential-mechanism choice at
eps2 / 2 with score sensitivity 1, and one edge moves the scores of its two endpoints
only; phase 3 is the Laplace mechanism on the inter-community counts (sensitivity 1) and
on the intra-community degrees (sensitivity 2), in parallel since an edge is either
inside one community or between two. TmF: the Laplace mechanism on the edge count at
``epsilon_t`` and on every cell of the adjacency matrix at ``epsilon - epsilon_t``
(sensitivity 1), the rest post-processing (Nguyen et al. 2015, the TmF privacy theorem).
Here the Laplace noise on integer counts is privcut's discrete Laplace
(:func:`privcut.privacy.discrete_laplace`, the integer analogue: counts get integer noise)
and the exponential mechanism is :func:`privcut.privacy.exponential_mechanism`; TmF's
noise on a true edge is the continuous :func:`privcut.privacy.laplace`, whose only use is
the comparison with the threshold (the cell's value is never released).

Checked against the authors' public PrivGraph code (github.com/Privacy-Graph/PrivGraph,
commit 3aad2fd: ``main.py``, ``utils.py``, ``comm/community_main.py``; read, not copied) on
2026-11-26, item by item: the budget split (``e1_r = e2_r = 1/3``, eps3 the rest) and
N1 = 20, Louvain resolution t = 1 (``main.py``'s defaults) agree; the super-graph's
off-diagonal cells get Laplace noise of scale 1/eps1 and each half (diagonal, off-diagonal)
is made consistent by NormSub separately, as here; the adjustment is one pass over the
nodes in random order (``divide=1``), the score of a community is the node's edge count
into it (the constant removal cost cancels), picked with probability proportional to
``exp(eps2 score / 4)`` (``c1 = epsilon / (2 * pass_max * deltau * 2)``), which is
:func:`privcut.privacy.exponential_mechanism` at eps2 / 2 with sensitivity 1, as here;
the inter-community counts get scale 1/eps3 and the intra-community degrees scale 2/eps3
(``ev_lambda``, ``dd_lam``), NormSub per community, then clipped to ``[0, size - 1]``, as
here; inside a community, pair ``i, j`` is an edge with probability ``min(1, d_i d_j /
sum d)`` (``generate_intra_edge``), as the Chung–Lu sampler here. Differences, all listed
below: the stale ``pi`` of the reconstruction loop (not copied), the super-graph diagonal's
scale (counted once here), the candidate communities of the adjustment (the code drops a
community once the pass empties it; here every initial community stays a candidate, a
rare case with communities of n / K nodes), and the noise (the code's continuous Laplace
truncated to int; discrete Laplace here).

Where the papers are ambiguous, the reading taken:

* PrivGraph's published code draws every inter-community edge's first end from the last
  community through a stale loop variable; here it is drawn from the right community of
  the pair (the paper, "Graph Reconstruction": edges placed at random between the two communities).
* PrivGraph's super-graph self-loops: the intra-group edge count, each edge once, with
  Laplace noise of scale 1/eps1 (the published code adds scale 2/eps1 to twice the count,
  which is the same mechanism scaled by two; counting each edge once is the weight an
  aggregated graph carries in Louvain).
* PrivGraph's candidate communities in the adjustment: every community of the
  initialisation (fixed, public after phase 1), one pass over the nodes in random order.
* PrivGraph's consistency post-processing ("norm_sub"): subtract the integer shift that
  brings the sum of the clipped-at-zero noisy values nearest the noisy sum.
* TmF's fill: ``round(m~) - n1`` non-edges of the input graph, uniformly at random
  (``fill="count"``, the paper's Algorithm). The alternative ``fill="binomial"`` draws the
  number of passing non-edges as Binomial(N - m, e^(-eps1 theta) / 2), exactly the
  thresholded Laplace matrix (Cormode et al. 2012's filtering), then places them uniformly.
  Only the binomial fill is exactly the Laplace mechanism on every cell followed by
  post-processing; the count fill's guarantee is the paper's theorem (a cell that is an
  edge can enter the output only by passing, a non-edge only by the fill, and the two
  probabilities are not tied to e^epsilon by that argument alone).
* TmF's threshold: we solve the paper's defining condition (expected number of passing
  cells = m~) in closed form, :func:`tmf_threshold`; it switches branch at
  ``epsilon1 = ln(N / m~ - 1)`` where both give theta = 1. (A public third-party
  implementation we read swaps the two branches and drops the ``+ 1/2``; its threshold
  is discontinuous at the switch and does not meet the condition, so we did not follow it.)
* TmF's default ``epsilon_t = epsilon / 10`` for the edge count (our reading of the
  paper's experiments; a keyword).

Complexity: TmF O(n + |E| + m~) time and memory. PrivGraph O(n + |E| + (n/N1)^2 + n K + K^2)
for K communities: the (n/N1)^2 cells of the super-graph and the K^2 community pairs each
get noise, which the algorithm needs; the Chung–Lu step is the O(n + m) sampler of
**Miller & Hagberg 2011** (``networkx.expected_degree_graph``); no n x n array is built.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.privacy import (
    check_random_state,
    discrete_laplace,
    exponential_mechanism,
    laplace,
)

__all__ = [
    "norm_sub",
    "privgraph",
    "privgraph_extract",
    "privgraph_partition",
    "privgraph_reconstruct",
    "tmf_threshold",
    "top_m_filter",
]


def _upper_edges(A) -> tuple[np.ndarray, np.ndarray]:
    """The edges ``(u, v)`` with ``u < v`` of a symmetric sparse adjacency."""
    upper = sp.triu(sp.csr_array(A), k=1).tocoo()
    return upper.row.astype(np.int64), upper.col.astype(np.int64)


def _from_edges(n: int, rows: np.ndarray, cols: np.ndarray) -> sp.csr_array:
    """Symmetric 0/1 CSR on ``n`` nodes from pairs (duplicates and self-loops dropped)."""
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    keep = rows != cols
    lo, hi = np.minimum(rows[keep], cols[keep]), np.maximum(rows[keep], cols[keep])
    keys = np.unique(lo * n + hi)
    lo, hi = keys // n, keys % n
    data = np.ones(2 * keys.size, dtype=np.int8)
    out = sp.csr_array((data, (np.r_[lo, hi], np.r_[hi, lo])), shape=(n, n))
    out.sum_duplicates()
    return out


def norm_sub(values: np.ndarray) -> np.ndarray:
    """PrivGraph's consistency step (Yuan et al. 2023): non-negative, about the same sum.

    Subtracts the integer shift ``delta`` in ``[0, -min]`` whose clipped result
    ``max(values - delta, 0)`` sums nearest to ``values.sum()``; post-processing.

    Examples
    --------
    >>> norm_sub(np.array([5, -2, 1])).tolist()
    [4, 0, 0]
    """
    values = np.asarray(values, dtype=np.int64)
    if values.size == 0 or values.min() >= 0:
        return values.copy()
    target = int(values.sum())
    low, high = 0, int(-values.min())
    while low < high:  # smallest shift whose clipped sum is at most the target
        mid = (low + high) // 2
        if np.maximum(values - mid, 0).sum() <= target:
            high = mid
        else:
            low = mid + 1
    candidates = [d for d in (low - 1, low) if d >= 0]
    best = min(candidates, key=lambda d: abs(int(np.maximum(values - d, 0).sum()) - target))
    return np.maximum(values - best, 0)


def _noisy_super_graph(A, n: int, epsilon1: float, group_size: int, rng) -> tuple:
    """Phase 1's measurement: random groups of ``group_size`` nodes, noisy cell counts."""
    groups = rng.permutation(n) // group_size
    k = int(groups.max()) + 1
    u, v = _upper_edges(A)
    a, b = np.minimum(groups[u], groups[v]), np.maximum(groups[u], groups[v])
    iu, ju = np.triu_indices(k)
    cell = np.full((k, k), -1, dtype=np.int64)
    cell[iu, ju] = np.arange(iu.size)
    counts = np.bincount(cell[a, b], minlength=iu.size)
    counts = counts + discrete_laplace(1.0 / epsilon1, size=iu.size, rng=rng)  # sens. 1
    diagonal = iu == ju
    counts[diagonal] = norm_sub(counts[diagonal])
    counts[~diagonal] = norm_sub(counts[~diagonal])
    return groups, k, iu, ju, counts


def privgraph_partition(
    A, epsilon1: float, epsilon2: float, rng, *, group_size: int = 20, resolution: float = 1.0
) -> np.ndarray:
    """PrivGraph's private communities: "Community Initialization" and "Community Adjustment".

    Initialisation (eps1): the nodes are split uniformly at random into groups of
    ``group_size`` (the paper's N1 = 20) nodes; the number of edges between every two groups
    and inside every group gets discrete Laplace noise of scale 1/eps1 (one edge is in one
    cell: sensitivity 1), made consistent by :func:`norm_sub`; Louvain (**Blondel et al.
    2008**, resolution ``t = 1``) on that weighted super-graph merges the groups into K
    communities (post-processing). Adjustment (eps2): one pass over the nodes in random
    order; each node moves to a community drawn by the exponential mechanism at eps2 / 2
    with score its number of edges into the community (sensitivity 1; an edge changes two
    nodes' scores, hence eps2 / 2 each). Edge-level (eps1 + eps2)-DP.

    Returns the community of every node, labels ``0..K-1`` of the non-empty ones.
    O(n K + |E| + (n / group_size)^2).

    Examples
    --------
    >>> A = sp.csr_array(nx.to_scipy_sparse_array(nx.karate_club_graph(), weight=None))
    >>> labels = privgraph_partition(A, 1.0, 1.0, np.random.default_rng(0), group_size=5)
    >>> labels.shape
    (34,)
    """
    n = A.shape[0]
    groups, k, iu, ju, counts = _noisy_super_graph(A, n, epsilon1, group_size, rng)
    graph = nx.Graph()
    graph.add_nodes_from(range(k))
    positive = counts > 0
    graph.add_weighted_edges_from(
        zip(iu[positive], ju[positive], counts[positive].tolist(), strict=True)
    )
    seed = int(rng.integers(2**31))
    found = nx.community.louvain_communities(
        graph, weight="weight", resolution=resolution, seed=seed
    )
    of_group = np.empty(k, dtype=np.int64)
    for label, members in enumerate(found):
        of_group[list(members)] = label
    labels = of_group[groups]
    A = sp.csr_array(A)
    indptr, indices, communities = A.indptr, A.indices, len(found)
    for node in rng.permutation(n):
        scores = np.bincount(
            labels[indices[indptr[node] : indptr[node + 1]]], minlength=communities
        )
        labels[node] = exponential_mechanism(scores, epsilon2 / 2.0, 1.0, rng=rng)
    return np.unique(labels, return_inverse=True)[1]


def privgraph_extract(A, labels: np.ndarray, epsilon3: float, rng) -> tuple:
    """PrivGraph's "Information Extraction" on a given partition, at eps3.

    The number of edges between every two communities gets discrete Laplace noise of
    scale 1/eps3 (sensitivity 1), made consistent by :func:`norm_sub`; every node's
    degree inside its community gets scale 2/eps3 (an intra edge moves two degrees), made
    consistent per community and clipped to ``[0, size - 1]``. An edge is either between
    or inside communities, so the two are in parallel: edge-level eps3-DP.

    Returns ``(degrees, pairs, counts)``: noisy intra-community degrees (one per node),
    the community pairs ``(a, b)``, ``a < b`` (a 2 x K(K-1)/2 array) and their noisy
    counts. O(n + |E| + K^2).

    Examples
    --------
    >>> A = sp.csr_array(nx.to_scipy_sparse_array(nx.path_graph(4), weight=None))
    >>> degrees, pairs, counts = privgraph_extract(
    ...     A, np.array([0, 0, 1, 1]), 1.0, np.random.default_rng(0))
    >>> pairs.tolist()
    [[0], [1]]
    """
    labels = np.asarray(labels, dtype=np.int64)
    n, k = labels.size, int(labels.max()) + 1
    u, v = _upper_edges(A)
    cu, cv = labels[u], labels[v]
    inter = cu != cv
    pairs = np.vstack(np.triu_indices(k, 1))
    cell = np.zeros((k, k), dtype=np.int64)
    cell[pairs[0], pairs[1]] = np.arange(pairs.shape[1])
    true = np.bincount(
        cell[np.minimum(cu, cv)[inter], np.maximum(cu, cv)[inter]], minlength=pairs.shape[1]
    )
    counts = norm_sub(true + discrete_laplace(1.0 / epsilon3, size=true.size, rng=rng))
    intra = ~inter
    inside = np.bincount(u[intra], minlength=n) + np.bincount(v[intra], minlength=n)
    noisy = inside + discrete_laplace(2.0 / epsilon3, size=n, rng=rng)
    degrees = np.empty(n, dtype=np.int64)
    sizes = np.bincount(labels, minlength=k)
    for community in range(k):
        members = np.flatnonzero(labels == community)
        degrees[members] = np.clip(norm_sub(noisy[members]), 0, sizes[community] - 1)
    return degrees, pairs, counts


def privgraph_reconstruct(
    labels: np.ndarray, degrees: np.ndarray, pairs: np.ndarray, counts: np.ndarray, rng
) -> sp.csr_array:
    """PrivGraph's "Graph Reconstruction": post-processing of the noisy statistics.

    Inside each community a Chung–Lu graph on the noisy degrees (pair ``i, j`` an edge
    with probability ``min(1, d_i d_j / sum d)``; Miller & Hagberg's O(n + m) sampler).
    Between communities ``a`` and ``b``, ``counts`` edges whose two ends are drawn
    uniformly from ``a`` and from ``b`` respectively (repeats collapse), for *every*
    pair: the published code's stale loop variable, which took the first end from the
    last community always, is not reproduced. O(n + output edges + K^2).

    Examples
    --------
    >>> out = privgraph_reconstruct(np.array([0, 0, 1, 1]), np.array([1, 1, 0, 0]),
    ...     np.array([[0], [1]]), np.array([1]), np.random.default_rng(0))
    >>> out.shape
    (4, 4)
    """
    labels = np.asarray(labels, dtype=np.int64)
    n = labels.size
    order = np.argsort(labels, kind="stable")
    sizes = np.bincount(labels)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    rows, cols = [], []
    for community, size in enumerate(sizes):
        members = order[starts[community] : starts[community] + size]
        weights = degrees[members].astype(float)
        if weights.sum() <= 0:
            continue
        seed = int(rng.integers(2**31))
        inside = nx.expected_degree_graph(weights.tolist(), seed=seed, selfloops=False)
        edges = np.array(list(inside.edges()), dtype=np.int64).reshape(-1, 2)
        rows.append(members[edges[:, 0]])
        cols.append(members[edges[:, 1]])
    counts = np.asarray(counts, dtype=np.int64)
    a, b = np.repeat(pairs[0], counts), np.repeat(pairs[1], counts)
    rows.append(order[starts[a] + np.floor(rng.random(a.size) * sizes[a]).astype(np.int64)])
    cols.append(order[starts[b] + np.floor(rng.random(b.size) * sizes[b]).astype(np.int64)])
    return _from_edges(n, np.concatenate(rows), np.concatenate(cols))


def _check_input(A, epsilon: float, rng) -> tuple[sp.csr_array, np.random.Generator]:
    """The checked CSR adjacency and generator; every failure before any noise is drawn."""
    if not (isinstance(epsilon, (int, float)) and math.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    if not sp.issparse(A) or A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError("A must be a square scipy.sparse adjacency; build one with csr_array")
    A = sp.csr_array(A, dtype=np.int8)
    A.eliminate_zeros()
    if A.diagonal().any() or abs(A - A.T).nnz or (A.data != 1).any():
        raise ValueError(
            "A must be symmetric 0/1 with a zero diagonal (an undirected simple graph); "
            "symmetrise with (A + A.T) > 0 and drop self-loops with A.setdiag(0)"
        )
    return A, check_random_state(rng)


def privgraph(
    A,
    epsilon: float,
    rng,
    *,
    share_partition: float = 1 / 3,
    share_adjust: float = 1 / 3,
    group_size: int = 20,
    resolution: float = 1.0,
    communities: bool = False,
) -> sp.csr_array | tuple[sp.csr_array, np.ndarray]:
    """PrivGraph (Yuan et al. 2023): edge-level epsilon-DP synthetic graph via communities.

    The budget is split as in the paper's default setting: eps1 = ``share_partition``
    epsilon = epsilon / 3 for "Community Initialization" (N1 = ``group_size`` = 20 nodes
    per initial group, Louvain resolution ``t = 1``), eps2 = ``share_adjust`` epsilon =
    epsilon / 3 for "Community Adjustment" and eps3 = the rest for "Information
    Extraction"; "Graph Reconstruction" is post-processing.
    Privacy: edge-level epsilon-DP (one node pair differs, same public node set) by
    sequential composition, Yuan et al. 2023's privacy analysis; see the module docstring.

    Parameters
    ----------
    A : scipy.sparse array, symmetric 0/1, zero diagonal, n x n
    epsilon : float > 0
    rng : numpy.random.Generator
    share_partition, share_adjust : float
        Shares of epsilon for phases 1 and 2; phase 3 gets ``1 - both``.
    group_size : int
        N1, nodes per random initial group.
    resolution : float
        Louvain's resolution t.
    communities : bool
        Also return the private partition (phases 1-2 output; releasing it costs nothing
        beyond eps1 + eps2, which are spent already).

    Returns
    -------
    scipy.sparse.csr_array, or (csr_array, numpy.ndarray) with ``communities``
        Symmetric 0/1 with zero diagonal, on the same n nodes (and each node's community).

    Examples
    --------
    >>> A = sp.csr_array(nx.to_scipy_sparse_array(nx.karate_club_graph(), weight=None))
    >>> privgraph(A, 2.0, np.random.default_rng(0)).shape
    (34, 34)
    """
    A, rng = _check_input(A, epsilon, rng)
    share_extract = 1.0 - share_partition - share_adjust
    if min(share_partition, share_adjust, share_extract) <= 0:
        raise ValueError("share_partition and share_adjust must be > 0 and sum below 1")
    labels = privgraph_partition(
        A,
        share_partition * epsilon,
        share_adjust * epsilon,
        rng,
        group_size=group_size,
        resolution=resolution,
    )
    degrees, pairs, counts = privgraph_extract(A, labels, share_extract * epsilon, rng)
    graph = privgraph_reconstruct(labels, degrees, pairs, counts, rng)
    return (graph, labels) if communities else graph


def tmf_threshold(n: int, edges: float, epsilon1: float) -> float:
    """TmF's threshold theta (Nguyen et al. 2015) for ``edges`` = m~ in (0, N / 2].

    theta is the value at which the expected number of cells passing, ``1 + Lap(1 /
    epsilon1)`` for the m~ edges and ``Lap(1 / epsilon1)`` for the other N - m~ of the N
    = n (n - 1) / 2 cells, equals m~ (a "top-m~" cut). Its closed forms: with ``L = ln(N /
    m~ - 1)``, ``theta = ln(N / (2 m~) + (e^epsilon1 - 1) / 2) / epsilon1`` (>= 1) when
    ``epsilon1 < L``, else ``theta = L / (2 epsilon1) + 1/2`` (< 1); both give 1 at
    ``epsilon1 = L``. Public: a function of n, m~ and epsilon1 only.

    Examples
    --------
    >>> round(tmf_threshold(1000, 5000, 0.9), 3)
    4.362
    >>> round(tmf_threshold(1000, 5000, 9.0), 3)
    0.755
    """
    cells = n * (n - 1) / 2.0
    switch = math.log(cells / edges - 1.0)
    if epsilon1 < switch:
        return math.log(cells / (2.0 * edges) + math.expm1(epsilon1) / 2.0) / epsilon1
    return switch / (2.0 * epsilon1) + 0.5


def _uniform_non_edges(n: int, count: int, taken: np.ndarray, rng) -> np.ndarray:
    """``count`` distinct keys ``u * n + v`` (u < v) of pairs not in sorted ``taken``."""
    chosen = np.empty(0, dtype=np.int64)
    while chosen.size < count:
        want = int(1.1 * (count - chosen.size)) + 16
        u, v = rng.integers(n, size=want), rng.integers(n, size=want)
        keys = np.minimum(u, v) * n + np.maximum(u, v)
        keys = keys[(u != v) & ~np.isin(keys, taken)]
        merged = np.concatenate([chosen, keys])
        _, first = np.unique(merged, return_index=True)
        chosen = merged[np.sort(first)]
    return chosen[:count]


def top_m_filter(
    A, epsilon: float, rng, *, share_count: float = 0.1, fill: str = "count"
) -> sp.csr_array:
    """Top-m Filter, TmF (Nguyen et al. 2015, the TmF algorithm): edge-level eps-DP.

    1. ``m~ = m + DLap(1 / epsilon_t)`` with ``epsilon_t = share_count * epsilon``
       (sensitivity 1; default epsilon / 10).
    2. ``theta = tmf_threshold(n, m~, epsilon1)``, ``epsilon1 = epsilon - epsilon_t``.
    3. Every true edge is kept when ``1 + Lap(1 / epsilon1) > theta``; n1 pass.
    4. Fill: ``fill="count"`` adds ``m~ - n1`` non-edges uniformly at random (the paper);
       ``fill="binomial"`` adds Binomial(N - m, e^(-epsilon1 theta) / 2) of them, the
       exact law of the non-edges passing the threshold (Cormode et al. 2012).

    Privacy: edge-level epsilon-DP (one node pair differs, same public node set),
    Nguyen et al. 2015's TmF theorem: the Laplace mechanism on the count (epsilon_t) and on
    every adjacency cell (epsilon1, sensitivity 1), the rest post-processing.
    O(n + |E| + m~) time and memory: non-edges are placed by rejection, never enumerated.

    Examples
    --------
    >>> A = sp.csr_array(nx.to_scipy_sparse_array(nx.karate_club_graph(), weight=None))
    >>> top_m_filter(A, 2.0, np.random.default_rng(0)).shape
    (34, 34)
    """
    A, rng = _check_input(A, epsilon, rng)
    if not 0 < share_count < 1 or fill not in ("count", "binomial"):
        raise ValueError("share_count must be in (0, 1) and fill 'count' or 'binomial'")
    n = A.shape[0]
    cells = n * (n - 1) // 2
    epsilon_t = share_count * epsilon
    epsilon1 = epsilon - epsilon_t
    u, v = _upper_edges(A)
    noisy_count = int(np.clip(u.size + discrete_laplace(1.0 / epsilon_t, rng=rng), 1, cells // 2))
    theta = tmf_threshold(n, noisy_count, epsilon1)
    passed = 1.0 + laplace(1.0 / epsilon1, size=u.size, rng=rng) > theta
    if fill == "count":
        extra = max(noisy_count - int(passed.sum()), 0)
    else:
        extra = int(rng.binomial(cells - u.size, 0.5 * math.exp(-epsilon1 * theta)))
    extra = min(extra, cells - u.size)
    keys = _uniform_non_edges(n, extra, np.sort(u * n + v), rng)
    rows = np.concatenate([u[passed], keys // n])
    cols = np.concatenate([v[passed], keys % n])
    return _from_edges(n, rows, cols)
