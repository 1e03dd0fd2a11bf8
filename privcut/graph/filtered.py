"""Filtered randomized response: randomized response thresholded at a public value, in
O(|V| + |E| + output) time and memory (Cormode, Procopiuc, Srivastava, Tran 2012).

Full randomized response (:func:`~privcut.graph.noisy_graph`, GRU12 §6.1) adds discrete
Laplace noise to all N vertex pairs, which costs Theta(N) = Theta(|V|^2). Keeping only the
pairs whose noisy value reaches a public integer threshold ``theta`` is post-processing,
and its output can be drawn without visiting the non-edges one by one: each non-edge
survives independently with the same public probability ``p = P(Z >= theta)``, so the
surviving non-edges are a uniform random subset of the non-edges whose size is
Binomial(N - m, p), and each survivor's value is ``Z`` conditioned on ``Z >= theta``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.graph.cuts import check_node_set
from privcut.graph.universe import EdgeUniverse, check_pairs
from privcut.privacy import Noise, check_epsilon, effective_delta
from privcut.privacy.noise import geometric
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_option, check_scalar
from privcut.records import Record

__all__ = [
    "FilteredNoisyGraph",
    "default_threshold",
    "edge_positions",
    "filtered_pairs",
    "filtered_randomized_response",
    "pair_ends",
    "pair_indices",
    "survival_probability",
    "uniform_non_edges",
]

ENUMERATE_BELOW = 2**16
"""Pair counts up to which the surviving non-edges are chosen from an explicit list of all
non-edges (exact and cheap there); above it, by rejection sampling when that is cheap."""

MECHANISM = "filtered randomized response (GRU12 Lemma 6.1; Cormode et al. 2012)"


def survival_probability(epsilon: float, theta: int) -> float:
    """``P(Z >= theta)`` for the discrete Laplace Z of scale ``1 / epsilon``, ``theta >= 1``.

    With ``q = exp(-epsilon)``, ``P(Z = z) = (1 - q) / (1 + q) q^|z|``, so the tail is
    ``q^theta / (1 + q)`` (computed as ``exp(-epsilon theta) / (1 + q)``).

    Examples
    --------
    >>> round(survival_probability(1.0, 1), 4)  # e^-1 / (1 + e^-1)
    0.2689
    """
    return math.exp(-epsilon * theta) / (1.0 + math.exp(-epsilon))


def default_threshold(epsilon: float, pairs: int, expected_size: float) -> int:
    """The smallest integer ``theta >= 1`` with ``pairs * P(Z >= theta) <= expected_size``:
    the expected number of surviving pairs if the graph had no edges. Public values only.

    Examples
    --------
    >>> default_threshold(1.0, 10**6, 1000.0)
    7
    """
    q = math.exp(-epsilon)
    # pairs q^theta / (1 + q) <= size  <=>  theta >= (log pairs - log(1 + q) - log size) / eps
    theta = max(1, math.ceil((math.log(pairs) - math.log1p(q) - math.log(expected_size)) / epsilon))
    # The logarithms are off by a few ulp at most: correct the rounding by one step each way.
    if theta > 1 and pairs * survival_probability(epsilon, theta - 1) <= expected_size:
        theta -= 1
    if pairs * survival_probability(epsilon, theta) > expected_size:
        theta += 1
    return theta


def pair_indices(rows: np.ndarray, columns: np.ndarray, n: int, directed: bool) -> np.ndarray:
    """Histogram positions (:meth:`EdgeUniverse.pair_index` order) of the pairs
    ``(rows[k], columns[k])``, with ``rows < columns`` for an undirected universe.

    Examples
    --------
    >>> pair_indices(np.array([0, 0, 1]), np.array([1, 2, 2]), 3, False).tolist()
    [0, 1, 2]
    >>> pair_indices(np.array([1, 2]), np.array([0, 1]), 3, True).tolist()
    [2, 5]
    """
    i = np.asarray(rows, dtype=np.int64)
    j = np.asarray(columns, dtype=np.int64)
    if directed:
        return i * (n - 1) + j - (j > i)
    return i * n - i * (i + 1) // 2 + j - i - 1


def pair_ends(index: np.ndarray, n: int, directed: bool) -> tuple[np.ndarray, np.ndarray]:
    """The inverse of :func:`pair_indices`: row and column of each histogram position
    (exact integer arithmetic after a floating-point first guess, for any n up to 2**26).

    Examples
    --------
    >>> [a.tolist() for a in pair_ends(np.array([0, 1, 2]), 3, False)]
    [[0, 0, 1], [1, 2, 2]]
    """
    index = np.asarray(index, dtype=np.int64)
    if directed:
        i = index // (n - 1)
        j = index - i * (n - 1)
        return i, j + (j >= i)
    # Rows start at s(i) = i n - i (i + 1) / 2; take the float root, then correct it exactly.
    i = np.floor(((2 * n - 1) - np.sqrt((2.0 * n - 1) ** 2 - 8.0 * index)) / 2).astype(np.int64)
    i = np.clip(i, 0, n - 2)
    start = i * n - i * (i + 1) // 2
    i = np.where(start > index, i - 1, i)
    start = i * n - i * (i + 1) // 2
    below = start + (n - 1 - i) <= index
    i = np.where(below, i + 1, i)
    start = i * n - i * (i + 1) // 2
    return i, index - start + i + 1


@dataclass(frozen=True, eq=False)  # arrays: compare releases field by field
class FilteredNoisyGraph(Record):
    """The pairs whose randomized-response value reached a public threshold, with their values.

    Attributes
    ----------
    rows, columns : numpy.ndarray of int64
        Node indices (into ``nodes``) of the kept pairs, ``rows < columns`` for a Graph,
        sorted by pair position in the pair order of ``nodes`` (never by whether a pair
        was an edge).
    values : numpy.ndarray of int64
        Each kept pair's noisy value (0/1 plus discrete Laplace noise), all ``>= threshold``.
    threshold : int
        The public threshold theta.
    expected_size : float or None
        The expected number of surviving non-edges the default threshold aimed at (the
        public knob; None when ``threshold`` was given).
    epsilon, delta : float
        The privacy guarantee under edge-level neighbours (delta = 0).
    noise : Noise
        The pair noise: discrete Laplace of scale ``1 / epsilon``.
    nodes : tuple
        Node labels in canonical order (:meth:`EdgeUniverse.of`), or a sparse input's
        given public order.
    directed : bool
        Ordered pairs (DiGraph) or unordered pairs (Graph).
    sampler_tv : float
        Bound on the total variation distance from exact of the samplers' draws, *except*
        the one binomial draw (see :func:`filtered_randomized_response`).

    Examples
    --------
    >>> release = filtered_randomized_response(nx.path_graph(6), 1.0, threshold=2, rng=0)
    >>> release.nodes, release.threshold, bool(np.all(release.values >= 2))
    ((0, 1, 2, 3, 4, 5), 2, True)
    """

    rows: np.ndarray
    columns: np.ndarray
    values: np.ndarray
    threshold: int
    expected_size: float | None
    epsilon: float
    delta: float
    noise: Noise
    nodes: tuple
    directed: bool
    sampler_tv: float

    @property
    def universe(self) -> EdgeUniverse:
        """The vertex pairs of the node set."""
        return EdgeUniverse(self.nodes, self.directed)

    @property
    def effective_delta(self) -> float:
        """``delta + (1 + e**epsilon) * sampler_tv`` (binomial draw excluded)."""
        return effective_delta(self.epsilon, self.delta, self.sampler_tv)

    @property
    def expected_non_edges(self) -> float:
        """``N * P(Z >= threshold)``: the expected number of kept pairs on a graph with no
        edges, an upper bound on the expected number of kept non-edges (public)."""
        return self.universe.size * survival_probability(self.epsilon, self.threshold)

    def to_dict(self) -> dict:
        """A small report of public facts and sizes (not the kept pairs themselves).

        Examples
        --------
        >>> release = filtered_randomized_response(nx.path_graph(5), 1.0, threshold=2, rng=0)
        >>> release.to_dict()["mechanism"].startswith("filtered randomized response")
        True
        """
        return {
            "mechanism": MECHANISM,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "sampler_tv": self.sampler_tv,
            "effective_delta": self.effective_delta,
            "noise": self.noise.kind,
            "scale": self.noise.scale,
            "threshold": self.threshold,
            "expected_size": self.expected_size,
            "expected_non_edges": self.expected_non_edges,
            "kept": int(self.values.size),
            "n": len(self.nodes),
            "pairs": self.universe.size,
            "directed": self.directed,
        }

    def to_sparse(self) -> sp.csr_array:
        """The kept noisy values as an n x n CSR array (symmetric for a Graph; every other
        entry 0). O(n + kept).

        Examples
        --------
        >>> release = filtered_randomized_response(nx.path_graph(4), 1.0, threshold=1, rng=0)
        >>> matrix = release.to_sparse()
        >>> matrix.shape, bool((matrix != matrix.T).nnz == 0)
        ((4, 4), True)
        """
        n = len(self.nodes)
        rows, columns, values = self.rows, self.columns, self.values
        if not self.directed:
            rows, columns = np.concatenate([rows, columns]), np.concatenate([columns, rows])
            values = np.concatenate([values, values])
        return sp.csr_array(sp.coo_array((values, (rows, columns)), shape=(n, n)))

    def cut(self, S: Iterable[Hashable], T: Iterable[Hashable]) -> int:
        """The sum of the kept noisy values over pairs from S to T (a pair inside S n T of a
        Graph counts from both ends, as in :meth:`NoisyGraph.cut`). Post-processing.

        A biased estimate of the true cut: the pairs below the threshold are dropped
        (most edges, when theta > 1) and those kept are the ones whose noise was large
        (each surviving non-edge adds at least theta), so the bias depends on the graph
        and is not corrected here.

        Examples
        --------
        >>> release = filtered_randomized_response(nx.path_graph(4), 1.0, threshold=1, rng=0)
        >>> isinstance(release.cut({0, 1}, {2, 3}), int)
        True
        """
        universe = self.universe
        n = universe.n
        s = np.zeros(n, dtype=bool)
        t = np.zeros(n, dtype=bool)
        s[universe.indices(check_node_set(S, "S"))] = True
        t[universe.indices(check_node_set(T, "T"))] = True
        hits = s[self.rows] & t[self.columns]
        if not self.directed:
            hits = hits.astype(np.int64) + (s[self.columns] & t[self.rows])
        return int(np.sum(self.values * hits))


def _check_arguments(epsilon, threshold, expected_size, weight) -> tuple:
    epsilon = check_epsilon(epsilon)
    if threshold is not None:
        threshold = check_scalar(threshold, "threshold", int, low=1, high=2**53)
    if expected_size is not None:
        expected_size = check_scalar(
            expected_size, "expected_size", float, low=0.0, closed="neither"
        )
    if weight is not None:
        raise ValueError(
            f"filtered_randomized_response releases 0/1 graphs only, got weight={weight!r}; "
            "pass weight=None (every edge counts 1), or use noisy_graph for a weighted graph"
        )
    return epsilon, threshold, expected_size


def edge_positions(adjacency: sp.csr_array, universe: EdgeUniverse) -> np.ndarray:
    """Sorted histogram positions of the edges of G's checked CSR adjacency (symmetric for
    a Graph: its upper triangle). O(|V| + |E| log |E|), nothing n x n.

    Examples
    --------
    >>> A = sp.csr_array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    >>> edge_positions(A, EdgeUniverse((0, 1, 2), False)).tolist()
    [0, 1]
    """
    coo = adjacency.tocoo()
    keep = coo.data != 0 if universe.directed else (coo.data != 0) & (coo.row < coo.col)
    rows, columns = coo.row[keep].astype(np.int64), coo.col[keep].astype(np.int64)
    return np.sort(pair_indices(rows, columns, universe.n, universe.directed))


def uniform_non_edges(
    edges: np.ndarray,
    pairs: int,
    k: int,
    n: int,
    directed: bool,
    generator: np.random.Generator,
    placement: str = "auto",
) -> np.ndarray:
    """``k`` distinct positions drawn uniformly among the positions in ``range(pairs)`` not
    in ``edges`` (sorted, distinct), exactly: sorted.

    With ``placement="auto"``: if the pairs are few (``pairs <= ENUMERATE_BELOW``) or
    the edges and survivors fill more than a quarter of them, it lists the non-edges
    (``"enumerate"``: O(pairs), which is then O(|E| + k) or small) and chooses without
    replacement. Otherwise (``"reject"``) it draws uniform pairs (uniform ordered
    ``(i, j)``, ``i != j``, taken as ``{i, j}`` for a Graph) in batches, keeps the
    distinct ones that are not edges, until it has at least k, and then keeps k of them
    chosen uniformly. This is exact by symmetry: every step treats all non-edges alike
    (its decisions depend only on counts), so the law of the final set is invariant
    under every permutation of the non-edges, i.e. uniform among k-subsets. Under "auto"
    a draw is a new non-edge with probability at least 3/4, so about ``1.05 k N /
    (N - |E|)`` draws in one round nearly always suffice; the cost is
    O((|E| + k) log(|E| + k)). Both placements are exact; k must not exceed the number
    of non-edges.

    Examples
    --------
    >>> uniform_non_edges(np.array([0, 2]), 4, 2, 3, True, np.random.default_rng(0)).tolist()
    [1, 3]
    """
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    placement = check_option(placement, "placement", ("auto", "enumerate", "reject"))
    if placement == "auto":
        dense = pairs <= ENUMERATE_BELOW or 4 * (edges.size + k) > pairs
        placement = "enumerate" if dense else "reject"
    if placement == "enumerate":
        free = np.setdiff1d(np.arange(pairs, dtype=np.int64), edges, assume_unique=True)
        return np.sort(generator.choice(free, size=k, replace=False))
    chosen = np.zeros(0, dtype=np.int64)
    while chosen.size < k:
        # Enough draws that one round nearly always suffices (acceptance >= 3/4 under auto).
        missing = k - chosen.size
        free = max(pairs - edges.size - chosen.size, 1)
        batch = int(missing * pairs / free * 1.05) + 64
        i = generator.integers(0, n, size=batch)
        j = generator.integers(0, n - 1, size=batch)
        j = j + (j >= i)  # uniform over j != i
        if not directed:
            i, j = np.minimum(i, j), np.maximum(i, j)
        candidates = _distinct(pair_indices(i, j, n, directed))  # sorted: fast lookups
        chosen = _distinct(np.concatenate([chosen, _without(candidates, edges)]))
    if chosen.size > k:  # a uniform k-subset of a set that is uniform given its size
        chosen = np.sort(generator.choice(chosen, size=k, replace=False))
    return chosen


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (a sort; NumPy 2's hash-based ``unique`` is far slower
    on 10^7 random int64s)."""
    values = np.sort(values)
    keep = np.ones(values.size, dtype=bool)
    keep[1:] = values[1:] != values[:-1]
    return values[keep]


def _without(candidates: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The sorted ``candidates`` that are not in the sorted ``edges``."""
    if not edges.size:
        return candidates
    spot = np.minimum(np.searchsorted(edges, candidates), edges.size - 1)
    return candidates[edges[spot] != candidates]


def filtered_pairs(
    universe: EdgeUniverse,
    edges: np.ndarray,
    epsilon: float,
    theta: int,
    rng: RandomState = None,
    *,
    placement: str = "auto",
) -> tuple[np.ndarray, np.ndarray]:
    """The kept pair positions (sorted) and their noisy values, for a graph whose edges sit at
    the sorted, distinct histogram positions ``edges``: the core of
    :func:`filtered_randomized_response`, for callers that read the graph themselves
    (parameters already checked, ``theta >= 1``). Privacy and cost as there;
    ``placement`` chooses how the surviving non-edges are placed
    (:func:`uniform_non_edges`; every choice is exact).

    Examples
    --------
    >>> universe = EdgeUniverse(tuple(range(4)), False)
    >>> positions, values = filtered_pairs(universe, np.array([0, 3]), 1.0, 3, rng=0)
    >>> bool((values >= 3).all() and (np.diff(positions) > 0).all())
    True
    """
    generator = check_random_state(rng)
    noise = Noise.for_laplace(epsilon, 1.0, integer=True)
    edge_values = 1 + np.atleast_1d(noise.sample(edges.size, rng=generator))
    kept = edge_values >= theta
    p = survival_probability(epsilon, theta)
    k = int(generator.binomial(universe.size - edges.size, p))
    survivors = uniform_non_edges(
        edges, universe.size, k, universe.n, universe.directed, generator, placement
    )
    # Z | Z >= theta is theta + geometric: the discrete Laplace tail is geometric (theta >= 1).
    survivor_values = theta + np.atleast_1d(geometric(noise.scale, k, rng=generator))
    positions = np.concatenate([edges[kept], survivors])
    values = np.concatenate([edge_values[kept], survivor_values]).astype(np.int64)
    order = np.argsort(positions, kind="stable")
    return positions[order], values[order]


def filtered_randomized_response(
    G: nx.Graph | sp.sparray | sp.spmatrix,
    epsilon: float,
    *,
    threshold: int | None = None,
    expected_size: float | None = None,
    weight: str | None = None,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
    rng: RandomState = None,
) -> FilteredNoisyGraph:
    """Randomized response kept above a public threshold, in O(|V| + |E| + output).

    The output is distributed exactly as this (up to the samplers, below): add discrete
    Laplace noise ``Z`` of scale ``1 / epsilon`` (``Noise.for_laplace(epsilon, 1.0,
    integer=True)``, as :func:`~privcut.graph.noisy_graph`) to every vertex pair's 0/1
    value, and release the pairs whose noisy value is ``>= theta``, with those values.
    Pairs are unordered ``(i < j)`` for a Graph, ordered for a DiGraph, indexed in the
    canonical node order (:meth:`EdgeUniverse.of`; a sparse G's ``nodes`` in their
    given order). It is computed without visiting the
    non-edges: each edge gets its noise and is kept if ``1 + Z >= theta``; the number of
    surviving non-edges is drawn as ``K ~ Binomial(N - m, p)`` with ``p = P(Z >= theta) =
    e^{-epsilon theta} / (1 + e^{-epsilon})`` (N pairs, m edges), since the non-edges
    survive independently with the same p; K positions are chosen uniformly among the
    non-edges without replacement (:func:`uniform_non_edges`); and each gets the value
    ``Z | Z >= theta = theta + G`` with G geometric, ``P(G >= k) = e^{-epsilon k}`` (the
    discrete Laplace tail is geometric, so this is exact for ``theta >= 1``).

    Privacy: (epsilon, 0)-DP under edge-level neighbours (same public node set, one
    pair differs). Full randomized response is (epsilon, 0)-DP (GRU12 Lemma 6.1: the
    pair histogram has l1 sensitivity 1, one draw per pair); thresholding it at a public
    theta is post-processing, and this release is *identically distributed* to the
    thresholded full release, so it has the same guarantee (Cormode, Procopiuc,
    Srivastava, Tran 2012, who filter sparse data this way). K depends on the private m,
    but only through exactly the law that the thresholded full release gives it. The
    kept pairs come sorted by pair position, never in an order that tells edges apart;
    the threshold is given or a function of n, epsilon and ``expected_size`` only.

    Samplers: the edges' noise (m discrete Laplace draws) and the survivors' values (K
    geometric draws, each within half of
    :func:`~privcut.privacy.discrete_laplace_tv_bound`) are within ``m eta + E[K] eta / 2
    <= N eta`` of exact (a coupling, eta the discrete Laplace bound per draw), the same
    public bound as full randomized response's; ``sampler_tv`` reports it. The binomial
    draw is NumPy's ``Generator.binomial`` (inversion for small means, BTPE above) whose
    distance from exact has no proof we know of: it is *not* included in ``sampler_tv``.
    The uniform placement (``Generator.integers`` and rejection) is exact.

    Cost: O(|V| log |V| + |E| log |E| + K log K) time and O(|V| + |E| + K) memory;
    nothing n x n and no enumeration of the N pairs unless N <= 2**16 or the edges and
    survivors fill a quarter of the pairs (then N = O(|E| + K)).

    Parameters
    ----------
    G : networkx.Graph, networkx.DiGraph or scipy.sparse array
        The private graph, taken as unweighted; its node set is public. A square
        ``scipy.sparse`` adjacency (any format; row and column i are node ``nodes[i]``;
        symmetric unless ``directed``; every stored nonzero counts 1) is read in
        O(n + nnz) by :func:`~privcut.graph.arrays.read_adjacency`, never through NetworkX.
    epsilon : float
        Privacy parameter > 0.
    threshold : int, optional
        The public threshold theta >= 1 (below 1 more than half of all non-edges would
        survive: use :func:`~privcut.graph.noisy_graph`). Default: the smallest theta
        >= 1 with ``N * P(Z >= theta) <= expected_size`` (:func:`default_threshold`).
    expected_size : float, optional
        The expected number of surviving non-edges the default threshold aims at (at
        most). Default ``10 n``: output and memory linear in n like the graph itself
        (social graphs have average degree 10 to 100, so at most about twice their edge
        count), a public function of n only, while theta grows only like
        ``log(N / (10 n)) / epsilon``. Ignored when ``threshold`` is given.
    weight : None
        Only None (0/1 graphs); a weight attribute raises ValueError.
    nodes : sequence of hashable, optional
        Only with a sparse G (refused for a NetworkX graph, which has its own): the public
        labels of its rows, one per row, distinct; default ``range(n)``. Kept in the
        given order (instead of the canonical order), which is public: it fixes the pair
        positions, hence the order of the kept pairs. It must not follow the edges (e.g.
        the order in which nodes first appear in an edge list), or the release reveals
        them: sort the labels, or use a fixed public order.
    directed : bool, optional
        Only with a sparse G: the public declaration that it is directed (default False:
        G must then be symmetric); never inferred from G.
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.

    Returns
    -------
    FilteredNoisyGraph

    Raises
    ------
    PrivacyParameterError, TypeError, ValueError
        For a bad epsilon, threshold, expected_size or weight, before G is read.
    GraphInputError
        For an invalid graph, or one with fewer than 2 nodes.

    Examples
    --------
    >>> release = filtered_randomized_response(nx.karate_club_graph(), 1.0, rng=0)
    >>> release.threshold, bool((release.values >= release.threshold).all())
    (1, True)
    >>> round(release.expected_non_edges, 1) <= 10 * 34
    True
    >>> A = sp.csr_array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])  # the arcs a -> b -> c
    >>> release = filtered_randomized_response(
    ...     A, 1.0, threshold=2, nodes=("a", "b", "c"), directed=True, rng=0
    ... )
    >>> release.nodes, release.directed, release.universe.size
    (('a', 'b', 'c'), True, 6)
    """
    epsilon, threshold, expected_size = _check_arguments(epsilon, threshold, expected_size, weight)
    noise = Noise.for_laplace(epsilon, 1.0, integer=True)  # checks the scale, before G
    generator = check_random_state(rng)
    universe, adjacency = EdgeUniverse.read(G, nodes=nodes, directed=directed)
    check_pairs(universe, "filtered_randomized_response")
    if threshold is None:
        expected_size = float(10 * universe.n) if expected_size is None else expected_size
        threshold = default_threshold(epsilon, universe.size, expected_size)
    else:
        expected_size = None
    edges = edge_positions(adjacency, universe)
    positions, values = filtered_pairs(universe, edges, epsilon, threshold, generator)
    rows, columns = pair_ends(positions, universe.n, universe.directed)
    return FilteredNoisyGraph(
        rows=rows,
        columns=columns,
        values=values,
        threshold=threshold,
        expected_size=expected_size,
        epsilon=epsilon,
        delta=0.0,
        noise=noise,
        nodes=universe.nodes,
        directed=universe.directed,
        sampler_tv=noise.tv_bound(universe.size),
    )
