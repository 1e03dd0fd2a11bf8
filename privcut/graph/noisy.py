"""Randomized response for graphs (GRU12 §6.1): the noisy adjacency matrix and its report."""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.exceptions import GraphInputError
from privcut.graph.cuts import check_node_set
from privcut.graph.limits import check_dense_nodes
from privcut.graph.universe import (
    EdgeUniverse,
    check_pairs,
    check_zero_one_values,
    multiplicity,
    stored_entries,
)
from privcut.privacy import Noise, check_beta, check_epsilon, effective_delta
from privcut.privacy.random import RandomState, check_random_state
from privcut.records import Record

__all__ = [
    "NoisyGraph",
    "NoisyGraphReport",
    "noise_into",
    "noisy_graph",
    "randomized_response",
    "uniform_bound",
]

_BLOCK = 512


@dataclass(frozen=True)
class NoisyGraphReport(Record):
    """What a noisy-graph release says about itself: public facts only.

    The matrix is the release; the report holds the guarantee and the noise, and of the
    sizes only the public node count (never a count read from the matrix).

    Attributes
    ----------
    mechanism : str
        The mechanism and the result that proves its guarantee.
    epsilon, delta : float
        The privacy guarantee under edge-level neighbours (delta = 0).
    sampler_tv : float
        Bound on the integer sampler's total variation distance from exact.
    effective_delta : float
        ``delta + (1 + e**epsilon) * sampler_tv``.
    weight : str or None
        The edge attribute read (None: an unweighted 0/1 graph).
    noise : str
        The noise kind on each pair (:class:`~privcut.privacy.Noise`).
    scale : float
        Its scale per pair, in edge units.
    grid : float
        The public grid of real-weight noise (0 for integer noise).
    n : int
        The number of nodes (public).
    directed : bool
        Whether the input was a DiGraph (or a sparse G declared directed).

    Examples
    --------
    >>> report = noisy_graph(nx.path_graph(4), 1.0, rng=0).report()
    >>> report.noise, report.scale, report.n
    ('discrete_laplace', 1.0, 4)
    """

    mechanism: str
    epsilon: float
    delta: float
    sampler_tv: float
    effective_delta: float
    weight: str | None
    noise: str
    scale: float
    grid: float
    n: int
    directed: bool


@dataclass(frozen=True)
class NoisyGraph:
    """A graph's adjacency matrix with independent noise on every vertex pair.

    The matrix is the release; :meth:`report` (a :class:`NoisyGraphReport`) and
    :meth:`to_dict` describe it with public facts only.

    Attributes
    ----------
    matrix : numpy.ndarray, shape (n, n)
        The noisy adjacency matrix (symmetric for undirected graphs, zero diagonal).
    nodes : tuple
        Node labels in matrix order: the node set's canonical order
        (:func:`~privcut.graph.universe.canonical_order`), never G's insertion order.
    epsilon, delta : float
        The privacy guarantee (delta = 0).
    directed : bool
        Whether the input was a DiGraph (or a sparse G declared directed).
    noise : Noise
        The noise on each pair: discrete Laplace for 0/1 graphs (``weight=None``), grid
        Laplace for a weight attribute.
    sampler_tv : float
        Bound on the total variation distance of the pairs' integer noise (in grid units
        for weighted graphs) from exact (one draw per vertex pair): the release is
        ``(epsilon, delta + (1 + e**epsilon) * sampler_tv)``-DP, see
        :attr:`effective_delta` (as for :class:`~privcut.linear.LinearRelease`).
    weight : str or None
        The edge attribute the release read (None: the graph taken as unweighted).
    """

    matrix: np.ndarray
    nodes: tuple
    epsilon: float
    delta: float
    directed: bool
    noise: Noise
    sampler_tv: float = 0.0
    weight: str | None = None

    @property
    def effective_delta(self) -> float:
        """``delta`` plus the slack of the integer sampler's distance from exact."""
        return effective_delta(self.epsilon, self.delta, self.sampler_tv)

    def report(self) -> NoisyGraphReport:
        """The release's report (:class:`NoisyGraphReport`): guarantee, noise, public n.

        Examples
        --------
        >>> noisy_graph(nx.path_graph(3), 2.0, rng=0).report().epsilon
        2.0
        """
        return NoisyGraphReport(
            mechanism="noisy_graph: randomized response (GRU12 §6.1, Lemma 6.1)",
            epsilon=self.epsilon,
            delta=self.delta,
            sampler_tv=self.sampler_tv,
            effective_delta=self.effective_delta,
            weight=self.weight,
            noise=self.noise.kind,
            scale=self.noise.scale,
            grid=self.noise.grid,
            n=len(self.nodes),
            directed=self.directed,
        )

    def to_dict(self) -> dict:
        """The report as plain Python data (:meth:`report`), the same schema as every
        release's ``to_dict``.

        Examples
        --------
        >>> sorted(noisy_graph(nx.path_graph(3), 1.0, rng=0).to_dict())[:3]
        ['delta', 'directed', 'effective_delta']
        """
        return self.report().to_dict()

    @property
    def universe(self) -> EdgeUniverse:
        """The vertex pairs of the node set."""
        return EdgeUniverse(self.nodes, self.directed)

    def cut(self, S: Iterable[Hashable], T: Iterable[Hashable]) -> float:
        """The noisy cut value ``sum_{s in S, t in T} matrix[s, t]`` (post-processing)."""
        universe = self.universe
        s, t = universe.indices(check_node_set(S, "S")), universe.indices(check_node_set(T, "T"))
        return float(self.matrix[np.ix_(s, t)].sum())

    def _coefficients(self, S: Iterable[Hashable], T: Iterable[Hashable]) -> dict[float, int]:
        """How many pair noises enter the cut (S, T) with coefficient 1 and with 2."""
        universe = self.universe
        s, t = universe.indices(check_node_set(S, "S")), universe.indices(check_node_set(T, "T"))
        both = np.intersect1d(s, t).size
        if self.directed:
            return {1.0: s.size * t.size - both}
        return {1.0: s.size * t.size - both * both, 2.0: math.comb(both, 2)}

    def error_bound(
        self, S: Iterable[Hashable], T: Iterable[Hashable], beta: float = 0.05
    ) -> float:
        """A bound on ``|noisy cut - true cut|`` for this cut, holding with probability 1 - beta.

        The error is a sum of the pairs' noises: ``|S||T| - |S n T|^2`` of them with
        coefficient 1 and ``C(|S n T|, 2)`` with coefficient 2 (a pair inside S n T
        is counted from both ends). The bound is Chernoff's with the noise's exact
        moment generating function (GRU12 Thm 6.5 with the |S||T| refinement of
        §6.1): about ``sqrt(|S||T|)/epsilon`` times a small constant.

        Examples
        --------
        >>> noisy = noisy_graph(nx.complete_graph(30), 1.0, rng=0)
        >>> noisy.error_bound(range(10), range(10, 30)) < noisy.uniform_error_bound()
        True
        """
        beta = check_beta(beta)
        return self.noise.sum_tail(self._coefficients(S, T), math.log(beta))

    def uniform_error_bound(self, beta: float = 0.05) -> float:
        """A bound that holds for every cut (S, T) at once with probability 1 - beta.

        Union bound over the 4^n pairs (S, T); every cut's Chernoff exponent is at
        most that of S = T = V (all C(n, 2) pairs with coefficient 2; n(n - 1) with
        coefficient 1 for a DiGraph), so that one tail at ``beta / 4^n`` covers all:
        O(|V|^{3/2} / epsilon) as in GRU12 Lemma 6.1 and §6.1, with constants.
        """
        return uniform_bound(self.noise, len(self.nodes), self.directed, check_beta(beta))


@lru_cache(maxsize=256)
def uniform_bound(noise: Noise, n: int, directed: bool, beta: float) -> float:
    """:meth:`NoisyGraph.uniform_error_bound` for randomized response with this noise on n
    nodes, cached (it depends on public values only).

    Examples
    --------
    >>> from privcut.privacy import Noise
    >>> uniform_bound(Noise.for_laplace(1.0, 1.0, integer=True), 10, False, 0.05) > 0
    True
    """
    # S = T = V: every pair enters with coefficient multiplicity (A[i, j], and A[j, i])
    weight = multiplicity(directed)
    worst = {float(weight): n * (n - 1) // weight}
    return noise.sum_tail(worst, math.log(beta) - n * math.log(4.0))


def noise_into(
    matrix: np.ndarray, noise: Noise, directed: bool, generator: np.random.Generator
) -> None:
    """Fill ``matrix`` with one noise draw per pair, block of rows by block of rows, mirrored
    for undirected graphs (so each unordered pair gets exactly one draw).

    Examples
    --------
    >>> from privcut.privacy import Noise
    >>> matrix = np.zeros((3, 3))
    >>> noise = Noise.for_laplace(1.0, 1.0, integer=True)
    >>> noise_into(matrix, noise, False, np.random.default_rng(0))
    >>> bool((matrix == matrix.T).all() and (np.diag(matrix) == 0).all())
    True
    """
    n = matrix.shape[0]
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        if directed:
            block = noise.sample((stop - start, n), rng=generator).astype(float)
            block[np.arange(stop - start), np.arange(start, stop)] = 0.0
            matrix[start:stop] = block
            continue
        block = noise.sample((stop - start, n - start), rng=generator).astype(float)
        matrix[start:stop, start:] = np.triu(block, k=1)
        matrix[start:stop, :start] = matrix[:start, start:stop].T
        diagonal = matrix[start:stop, start:stop]
        diagonal += diagonal.T.copy()


def noisy_graph(
    G: nx.Graph | sp.sparray | sp.spmatrix,
    epsilon: float,
    *,
    weight: str | None = None,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
    rng: RandomState = None,
) -> NoisyGraph:
    """Randomized response: every vertex pair's weight plus independent noise of scale 1/epsilon.

    Privacy: (epsilon, 0)-DP under edge-level neighbours (same nodes, one pair's
    weight changed by at most 1; GRU12 §6.1, Lemma 6.1): the pair histogram has
    l1 sensitivity 1 and each pair gets one draw, which for an undirected graph is
    mirrored into both A[i, j] and A[j, i] *after* the noise (two independent draws
    there would be only 2 epsilon-DP).

    By default (``weight=None``, as in ``networkx.cut_size``) the graph is taken as
    unweighted: every edge counts 1, any weight attribute is ignored, and the noise is
    discrete Laplace, so no floating-point leak. With ``weight="weight"`` (any edge
    attribute name; a missing attribute counts 1) the weights, which must lie in
    [0, 1], are released: each is rounded to a
    public power-of-two grid g and gets discrete Laplace noise in grid units, so every
    entry is ``g * (round(w / g) + Z)``, an exact multiple of g with no floating-point
    leak (Mironov 2012; :class:`~privcut.privacy.Noise`). The rounding moves one pair's
    answer by at most two more grid steps (rounding and the float error allowance), so
    the grid-unit sensitivity is ``1 / g + 2`` and the scale is ``(1 + 2 g) / epsilon``
    with ``2 g <= min(1, 1/epsilon) / 1024`` (e.g. ``g = 2**-11`` at epsilon <= 1: scale
    1.001 / epsilon; the grid-unit scale is about 2048 / epsilon, and the exact discrete
    Laplace sampler has no slack at any scale). The
    choice of noise follows the ``weight`` argument alone, never the data.

    Accuracy: :meth:`NoisyGraph.error_bound` for one cut, and
    :meth:`NoisyGraph.uniform_error_bound` for all cuts at once.

    Cost: O(n^2) time and memory (the noisy matrix is n x n, whatever the input).

    Parameters
    ----------
    G : networkx.Graph, networkx.DiGraph or scipy.sparse array
        The private graph; its node set is public. A square ``scipy.sparse`` adjacency
        (any format; row and column i are node ``nodes[i]``; symmetric unless
        ``directed``) is read in O(n + nnz) by
        :func:`~privcut.graph.arrays.read_adjacency`, never through NetworkX.
    epsilon : float
        Privacy parameter > 0.
    weight : str or None, default None
        None: the graph is unweighted (integer noise); an edge attribute name (for a
        sparse G any name: its stored values): the weights, real in [0, 1] (grid noise).
    nodes : sequence of hashable, optional
        Only with a sparse G (refused for a NetworkX graph, which has its own): the public
        labels of its rows, one per row, distinct; default ``range(n)``. Kept in the
        given order, which is public: the matrix's rows and ``.nodes`` follow it. It must
        not follow the edges (e.g. the order in which nodes first appear in an edge
        list), or the release reveals them: sort the labels, or use a fixed public order.
    directed : bool, optional
        Only with a sparse G: the public declaration that it is directed (default False:
        G must then be symmetric); never inferred from G.
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.

    Returns
    -------
    NoisyGraph

    Raises
    ------
    GraphInputError
        For invalid graphs, or (with ``weight``) a weight outside [0, 1].

    Examples
    --------
    >>> noisy = noisy_graph(nx.florentine_families_graph(), epsilon=1.0, rng=0)
    >>> noisy.matrix.shape, bool((noisy.matrix == noisy.matrix.T).all())
    ((15, 15), True)
    >>> G = nx.karate_club_graph()  # interaction counts in 'weight': ignored by default
    >>> noisy_graph(G, 1.0, rng=0).noise.kind
    'discrete_laplace'
    >>> A = sp.csr_array([[0, 1, 0], [0, 0, 1], [1, 0, 0]])  # a directed 3-cycle
    >>> noisy = noisy_graph(A, 1.0, nodes=("x", "y", "z"), directed=True, rng=0)
    >>> noisy.nodes, noisy.directed, noisy.matrix.shape
    (('x', 'y', 'z'), True, (3, 3))
    """
    epsilon = check_epsilon(epsilon)
    universe, entries = EdgeUniverse.read_entries(G, weight, nodes=nodes, directed=directed)
    check_pairs(universe, "noisy_graph")
    check_dense_nodes(universe.n, "noisy_graph", "synthetic_graph(method='sparse') or answer_cuts")
    # weight=None: the adjacency is 0/1 by construction, and the noise is integer.
    return _noise_entries(universe, entries, epsilon, rng, weight=weight)


def randomized_response(
    universe: EdgeUniverse,
    adjacency: sp.sparray,
    epsilon: float,
    rng: RandomState = None,
    *,
    weight: str | None = None,
    noise: Noise | None = None,
) -> NoisyGraph:
    """:func:`noisy_graph` on an adjacency matrix already read (in ``universe``'s node
    order) and parameters already checked: the one place that adds the pair noise, for
    the releases that read G once for several uses (e.g. ``answer_cuts``). ``noise``, if
    given, is the pair noise a caller already built for ``epsilon`` and ``weight`` (a
    budget plan's), used as is.

    Privacy as :func:`noisy_graph`. With ``weight=None`` the noise is integer and
    ``adjacency`` must be 0/1, otherwise its entries must lie in [0, 1] and the noise is
    on the grid (both checked, repeated cells summed first: GraphInputError before any
    noise).

    Examples
    --------
    >>> G = nx.path_graph(3)
    >>> universe = EdgeUniverse.of(G)
    >>> noisy = randomized_response(universe, universe.adjacency(G), 1.0, 0)
    >>> bool((noisy.matrix == noisy_graph(G, 1.0, rng=0).matrix).all())
    True
    """
    adjacency = sp.csr_array(adjacency)
    if not adjacency.has_canonical_format:  # a repeated cell counts once, summed
        adjacency = adjacency.copy()
        adjacency.sum_duplicates()
    entries = stored_entries(adjacency)
    return _noise_entries(universe, entries, epsilon, rng, weight=weight, noise=noise)


def _noise_entries(
    universe: EdgeUniverse,
    entries: tuple[np.ndarray, ...],
    epsilon: float,
    rng: RandomState = None,
    *,
    weight: str | None = None,
    noise: Noise | None = None,
) -> NoisyGraph:
    """:func:`randomized_response` on the adjacency's entries ``(rows, columns, values)``
    (:meth:`~privcut.graph.universe.EdgeUniverse.read_entries`), each cell at most once:
    the same checks (0/1 values with ``weight=None``, values in [0, 1] with a weight,
    before any noise) and release."""
    rows, columns, values = entries
    if weight is None:
        check_zero_one_values(
            values,
            "randomized response with weight=None",
            "give a 0/1 adjacency, e.g. (A != 0).astype(float)",
        )
    elif not ((values >= 0.0) & (values <= 1.0)).all():
        raise GraphInputError(
            f"randomized response with weight={weight!r} releases weights in [0, 1], and a "
            "stored value is outside it: rescale the weights into [0, 1]"
        )
    # One pair changes between neighbours (the mirror is post-processing): coordinates=1.
    if noise is None:
        noise = Noise.for_laplace(epsilon, 1.0, integer=weight is None, coordinates=1)
    generator = check_random_state(rng)
    matrix = np.zeros((universe.n, universe.n))
    noise_into(matrix, noise, universe.directed, generator)
    # On the grid both terms are multiples of it, so the sum is grid * (round(w / g) + Z).
    matrix[rows, columns] += noise.round(values)
    tv = noise.tv_bound(universe.size)
    return NoisyGraph(matrix, universe.nodes, epsilon, 0.0, universe.directed, noise, tv, weight)
