"""Answering a given workload of cut queries (GRU12 and SU notes §2 on the block space).

Every cut (S, T) of a workload is a union of blocks of the coarsest vertex
partition that refines all the S's and T's, so it is a sum of *block-pair
counts* (edges between two blocks, or inside one). Those counts form a
histogram in which an edge flip moves exactly one count by 1, so measuring
them costs one unit of sensitivity whatever the number of queries
(``"blocks"``), and the factorization framework applies on that small space
(``"optimized"``). Everything here except the release itself reads only the
workload: the analysis, the predicted errors and the choice of strategy.

At scale: every strategy but ``"noisy-graph"`` reads G as a CSR matrix and builds nothing
n x n (cut sums ``s^T (A t)``, block counts by one pass over the stored entries, the
workload's sensitivities from the blocks' rows); ``"noisy-graph"`` holds an n x n noisy
matrix and refuses more than :data:`~privcut.graph.limits.DENSE_NODES` nodes.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.optimize import lsq_linear

from privcut.graph.cuts import check_node_set, cut_queries, cut_sums
from privcut.graph.limits import DENSE_NODES, check_dense_nodes
from privcut.graph.noisy import randomized_response
from privcut.graph.sorting import row_ranks
from privcut.graph.universe import EdgeUniverse, check_pairs, check_zero_one
from privcut.linear.factorization import (
    MAX_OPTIMIZED_DOMAIN,
    Factorization,
    factorization_mechanism,
    factorize,
)
from privcut.linear.mechanisms import gaussian_mechanism, laplace_mechanism
from privcut.linear.queries import QueryMatrix
from privcut.privacy import Noise, check_delta, check_epsilon, effective_delta
from privcut.privacy.calibration import zcdp_budget
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_option
from privcut.records import Record, plain

__all__ = ["CutAnswers", "CutWorkload", "answer_cuts", "check_queries"]

MAX_BLOCK_PAIRS = 20_000
"""Largest block-pair space the ``"blocks"`` strategy and the consistency projection use."""

MAX_OPTIMIZED_PAIRS = 1024
"""Largest block-pair space the ``"optimized"`` strategy searches (O(P^3) per step)."""

MAX_SENSITIVITY_BLOCKS = 20_000
"""Most blocks whose pairs the exact sensitivity scan visits (O(B^2 k): some 7 s at
B = 20,000, k = 12); above it a closed-form upper bound is used
(:meth:`CutWorkload.sensitivities`)."""

MAX_PROJECTION_ENTRIES = 5_000_000
"""Largest k x P for the exact block-space consistency projection (else a per-query box)."""

STRATEGIES = ("per-query", "workload", "noisy-graph", "blocks", "optimized")

PREFERENCE = ("blocks", "optimized", "workload", "noisy-graph", "per-query")
"""Order in which ``"auto"`` breaks ties between equally accurate strategies: the block
space first, since its consistency projection is the strongest."""


def check_queries(queries: object) -> list[tuple[Iterable[Hashable], Iterable[Hashable]]]:
    """Check a workload: a non-empty sequence of (S, T) pairs of node collections.

    Raises
    ------
    TypeError
        Naming ``queries``, ``S`` or ``T`` when one is not of that form.
    ValueError
        For an empty workload or a query that is not a pair.

    Examples
    --------
    >>> check_queries([({0}, {1})])
    [({0}, {1})]
    """
    if queries is None or isinstance(queries, (str, bytes, Mapping)):
        raise TypeError(
            f"queries must be a sequence of (S, T) pairs, got {type(queries).__name__}; "
            "e.g. queries=[({0}, {1, 2})]"
        )
    if not isinstance(queries, Iterable):
        raise TypeError(f"queries must be a sequence of (S, T) pairs, got {queries!r}")
    checked = []
    for number, query in enumerate(queries):
        if isinstance(query, (str, bytes)) or not isinstance(query, Sequence) or len(query) != 2:
            raise ValueError(f"queries[{number}] must be a pair (S, T) of node sets, got {query!r}")
        checked.append((check_node_set(query[0], "S"), check_node_set(query[1], "T")))
    if not checked:
        raise ValueError("queries is empty: give at least one (S, T) pair")
    return checked


def _pair_count(count: int, directed: bool) -> int:
    """Number of block pairs of ``count`` blocks: every ordered pair, or a <= b."""
    return count * count if directed else count * (count + 1) // 2


def _block_pairs(sizes: np.ndarray, directed: bool) -> tuple[np.ndarray, np.ndarray]:
    """The block pairs (ordered, or a <= b row by row) of blocks of these sizes, and the
    vertex pairs each holds."""
    count, sizes = len(sizes), sizes.astype(float)
    if directed:
        first, second = np.meshgrid(np.arange(count), np.arange(count), indexing="ij")
        pairs = np.column_stack([first.ravel(), second.ravel()])
        same = pairs[:, 0] == pairs[:, 1]
        return pairs, sizes[pairs[:, 0]] * sizes[pairs[:, 1]] - same * sizes[pairs[:, 0]]
    first, second = np.triu_indices(count)
    capacity = np.where(
        first == second, sizes[first] * (sizes[first] - 1) / 2, sizes[first] * sizes[second]
    )
    return np.column_stack([first, second]), capacity


def _block_sides(S: np.ndarray, blocks: np.ndarray, count: int) -> np.ndarray:
    """Block x query: whether the block lies in the query's side. The blocks are the
    distinct rows of [S, T], so every node of a block carries its block's row: O(n k)."""
    sides = np.zeros((count, S.shape[1]), dtype=bool)
    sides[blocks] = S > 0
    return sides


@dataclass(frozen=True)
class CutWorkload:
    """The data-independent analysis of a cut workload.

    Attributes
    ----------
    universe : EdgeUniverse
        The node set.
    S, T : numpy.ndarray, shape (n, k)
        Indicator vectors of the queries' sets.
    blocks : numpy.ndarray, shape (n,)
        Block of each node in the coarsest partition refining every S and T.
    block_pairs : numpy.ndarray, shape (P, 2), or None
        The block pairs (a <= b for Graph, every ordered pair for DiGraph); None when P
        exceeds ``MAX_BLOCK_PAIRS`` (the number is :attr:`pair_count`).
    capacity : numpy.ndarray, shape (P,), or None
        Number of vertex pairs in each block pair: the largest count it can hold (None
        with ``block_pairs``).
    W : scipy.sparse.csr_array, shape (k, P) or None
        Each query as a combination of block-pair counts (None when P is too large).

    The analysis takes O(n k log n + min(P, MAX_BLOCK_PAIRS) k) time and O(n k) memory:
    nothing n x n, and nothing over the block pairs when they are too many to use.

    Examples
    --------
    >>> G = nx.path_graph(6)
    >>> analysis = CutWorkload.of(EdgeUniverse.of(G), [({0, 1, 2}, {3, 4, 5})])
    >>> analysis.pair_count, (analysis.W @ analysis.block_counts(G)).tolist()
    (3, [1.0])
    """

    universe: EdgeUniverse
    S: np.ndarray
    T: np.ndarray
    blocks: np.ndarray
    block_pairs: np.ndarray
    capacity: np.ndarray
    W: sp.csr_array | None = field(repr=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(
        cls,
        universe: EdgeUniverse,
        queries: Sequence[tuple[Iterable[Hashable], Iterable[Hashable]]],
    ):
        """Analyse a workload: the partition, the block pairs and the query coefficients.

        Examples
        --------
        >>> CutWorkload.of(EdgeUniverse.of(nx.path_graph(4)), [({0}, {1, 2})]).k
        1
        """
        queries = check_queries(queries)
        S = np.column_stack([universe.indicator(s) for s, _ in queries])
        T = np.column_stack([universe.indicator(t) for _, t in queries])
        if not np.any(S.sum(axis=0) * T.sum(axis=0) > np.sum(S * T, axis=0)):
            raise ValueError(
                "queries: no query has a vertex pair with one end in S and the other in T, "
                "so every answer is 0 whatever the graph; nothing needs a private release"
            )
        count, blocks = row_ranks(np.hstack([S, T]))
        pairs = capacity = W = None
        if _pair_count(count, universe.directed) <= MAX_BLOCK_PAIRS:
            pairs, capacity = _block_pairs(np.bincount(blocks, minlength=count), universe.directed)
            in_S, in_T = _block_sides(S, blocks, count), _block_sides(T, blocks, count)
            a, b = pairs[:, 0], pairs[:, 1]
            coefficient = (in_S[a] & in_T[b]).astype(float)
            if not universe.directed:
                coefficient += (in_S[b] & in_T[a]) & (a != b)[:, None]
                coefficient[a == b] *= 2.0  # A(i, j) and A(j, i) both inside S x T
            W = sp.csr_array(coefficient.T)
        return cls(universe, S, T, blocks, pairs, capacity, W)

    @property
    def k(self) -> int:
        """Number of queries."""
        return self.S.shape[1]

    @property
    def block_count(self) -> int:
        """Number of blocks."""
        return int(self.blocks.max()) + 1

    @property
    def pair_count(self) -> int:
        """Number of block pairs P (also when they are too many to keep)."""
        return _pair_count(self.block_count, self.universe.directed)

    def sensitivities(self) -> tuple[float, float]:
        """The workload's exact joint l1 and l2 sensitivities over vertex pairs (as
        :func:`~privcut.graph.cuts.cut_queries` computes them, cached), from the blocks:
        a pair's coefficients depend only on its ends' blocks, so the largest column
        norm is a maximum over block pairs (a pair inside a block only if it has two
        nodes). O(B^2 k) time for B blocks, in row chunks of O(MAX_PROJECTION_ENTRIES)
        memory; nothing n x n. Above ``MAX_SENSITIVITY_BLOCKS`` blocks, an upper bound
        instead (so still private, with more noise), O(n k): with M the least of the
        largest number of queries a node's S sides hold and that of its T sides, a pair's
        coefficients (each 0 or 1; 0 to 2 for a Graph) sum to at most M (2M) and their
        squares to at most M (4M).

        Examples
        --------
        >>> G = nx.path_graph(4)
        >>> CutWorkload.of(EdgeUniverse.of(G), [({0, 1}, {1, 2}), ({0}, {1})]).sensitivities()
        (2.0, 1.4142135623730951)
        """
        if "sensitivities" not in self._cache and self.block_count > MAX_SENSITIVITY_BLOCKS:
            most = float(min(self.S.sum(axis=1).max(), self.T.sum(axis=1).max()))
            scale = 1.0 if self.universe.directed else 2.0
            self._cache["sensitivities"] = (scale * most, scale * float(np.sqrt(most)))
        if "sensitivities" not in self._cache:
            count = self.block_count
            in_S = _block_sides(self.S, self.blocks, count).astype(float)
            in_T = _block_sides(self.T, self.blocks, count).astype(float)
            alone = np.bincount(self.blocks, minlength=count) < 2  # no pair inside
            self._cache["sensitivities"] = _block_maxima(in_S, in_T, alone, self.universe.directed)
        return self._cache["sensitivities"]

    def pair_coefficients(self) -> tuple[np.ndarray, np.ndarray]:
        """Per query, how many vertex pairs enter with coefficient 1 and with coefficient 2."""
        sizes_S, sizes_T = self.S.sum(axis=0), self.T.sum(axis=0)
        both = (self.S * self.T).sum(axis=0)
        if self.universe.directed:
            return sizes_S * sizes_T - both, np.zeros(self.k)
        return sizes_S * sizes_T - both**2, both * (both - 1) / 2

    def queries(self) -> QueryMatrix:
        """The workload as linear queries over vertex pairs (built once, then cached).

        Dense in the pairs (its sensitivities take n x n products): a reference for small
        graphs, used by no strategy (:meth:`sensitivities` gives the same numbers sparsely).

        Examples
        --------
        >>> G = nx.path_graph(4)
        >>> CutWorkload.of(EdgeUniverse.of(G), [({0, 1}, {2, 3})]).queries().l1_sensitivity
        1.0
        """
        if "queries" not in self._cache:
            self._cache["queries"] = cut_queries(self.universe, _as_pairs(self))
        return self._cache["queries"]

    def capacities(self) -> np.ndarray:
        """The largest value each query can take on a graph with weights <= 1."""
        ones, twos = self.pair_coefficients()
        return ones + 2.0 * twos

    def block_counts(
        self, G: nx.Graph, adjacency: sp.csr_array | None = None, weight: str | None = None
    ) -> np.ndarray:
        """The private block-pair counts of G (integers for 0/1 graphs), from ``adjacency``
        if given, else from G read with ``weight`` (None: every edge counts 1): one pass
        over the stored entries, O(|E| + P).

        Examples
        --------
        >>> G = nx.path_graph(4)
        >>> CutWorkload.of(EdgeUniverse.of(G), [({0, 1}, {2, 3})]).block_counts(G).tolist()
        [1.0, 1.0, 1.0]
        """
        if self.block_pairs is None:
            raise ValueError(
                f"the workload has {self.pair_count} block pairs, more than MAX_BLOCK_PAIRS = "
                f"{MAX_BLOCK_PAIRS}: its block counts are not kept"
            )
        adjacency = (self.universe.adjacency(G, weight) if adjacency is None else adjacency).tocoo()
        a, b = self.blocks[adjacency.row], self.blocks[adjacency.col]
        count = self.block_count
        if not self.universe.directed:
            keep = adjacency.row < adjacency.col
            a, b = np.minimum(a[keep], b[keep]), np.maximum(a[keep], b[keep])
            weights = adjacency.data[keep]
            positions = a * count - a * (a - 1) // 2 + (b - a)  # row a of the upper triangle
        else:
            weights, positions = adjacency.data, a * count + b
        return np.bincount(positions, weights.astype(float), len(self.block_pairs))


def _block_maxima(
    in_S: np.ndarray, in_T: np.ndarray, alone: np.ndarray, directed: bool
) -> tuple[float, float]:
    """Largest ``sum_q c_q`` and root of the largest ``sum_q c_q**2`` over block pairs, c
    the pair coefficients of 0/1 queries (``rank1_queries``' sums, on block rows)."""
    count = len(in_S)
    both = in_S * in_T
    rows = max(1, MAX_PROJECTION_ENTRIES // max(1, count))
    l1 = squares = 0.0
    for start in range(0, count, rows):
        part = slice(start, min(count, start + rows))
        totals = in_S[part] @ in_T.T
        if not directed:
            totals += in_T[part] @ in_S.T
        square = totals if directed else totals + 2.0 * (both[part] @ both.T)
        inside = np.flatnonzero(alone[part])  # (a, a) holds no pair: a single node
        totals[inside, start + inside] = 0.0
        square[inside, start + inside] = 0.0
        l1, squares = max(l1, float(totals.max())), max(squares, float(square.max()))
    return l1, float(np.sqrt(squares))


@dataclass(frozen=True)
class CutAnswers(Record):
    """Private answers to a cut workload, and the release's report (:meth:`to_dict`).

    Attributes
    ----------
    values : numpy.ndarray
        One answer per query, made consistent (non-negative, at most the cut's
        capacity, and where the block space allows, the answers of some graph).
    raw : numpy.ndarray
        The strategy's answers before the consistency step.
    strategy : str
        The strategy used.
    expected_error : numpy.ndarray
        Per query, the RMS error of the strategy before the consistency step (which
        never increases the l2 error), computed without the data.
    epsilon, delta : float
        The privacy guarantee under edge-level neighbours.
    predicted : dict
        Mean predicted per-query RMS error of every strategy considered.
    sampler_tv : float
        Bound on the total variation distance of the integer noise draws from exact:
        the release is ``(epsilon, delta + (1 + e**epsilon) * sampler_tv)``-DP, see
        :attr:`effective_delta` (as for :class:`~privcut.linear.LinearRelease`).
    queries : tuple of (tuple, tuple)
        The workload (public): each query's S and T as node labels in the node set's
        canonical order, in the order of ``values``.

    Examples
    --------
    >>> answers = answer_cuts(nx.path_graph(4), [({0, 1}, {2, 3})], 1.0, rng=0)
    >>> answers.values.shape, sorted(answers.to_dict())[:3]
    ((1,), ['delta', 'effective_delta', 'epsilon'])
    """

    values: np.ndarray
    raw: np.ndarray
    strategy: str
    expected_error: np.ndarray
    epsilon: float
    delta: float
    predicted: dict[str, float]
    sampler_tv: float = 0.0
    queries: tuple = ()

    @property
    def effective_delta(self) -> float:
        """``delta`` plus the slack of the integer samplers' distance from exact."""
        return effective_delta(self.epsilon, self.delta, self.sampler_tv)

    def to_dict(self) -> dict:
        """The release as plain Python data (what ``privcut cuts`` writes as JSON): the
        mechanism, strategy, guarantee (with ``effective_delta``), the strategies'
        predicted errors, the queries as ``{"S": [...], "T": [...]}``, and per query the
        value, the expected error and the raw answer. Every entry is a function of the
        noisy answers and public inputs.

        Examples
        --------
        >>> G = nx.path_graph(4)
        >>> report = answer_cuts(G, [({0, 1}, {2, 3})], 1.0, rng=0).to_dict()
        >>> list(report)[:6]
        ['mechanism', 'strategy', 'epsilon', 'delta', 'sampler_tv', 'effective_delta']
        >>> report["queries"]
        [{'S': [0, 1], 'T': [2, 3]}]
        """
        return {
            "mechanism": f"answer_cuts: {self.strategy}",
            "strategy": self.strategy,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "sampler_tv": self.sampler_tv,
            "effective_delta": self.effective_delta,
            "predicted": plain(self.predicted),
            "queries": [{"S": plain(S), "T": plain(T)} for S, T in self.queries],
            "values": plain(self.values),
            "expected_error": plain(self.expected_error),
            "raw": plain(self.raw),
        }


STRATEGY_RESOLUTION = 1024
"""Each row of a real-valued optimized strategy is scaled to this largest entry and rounded
to integers, so that integer block counts are measured with integer noise."""


def _block_factorization(workload: CutWorkload, pure: bool):
    """The optimized factorization of the workload on the block-pair space (cached), with an
    integer strategy (:func:`_integer_strategy`)."""
    key = ("optimized", pure)
    if key not in workload._cache:
        W = workload.W.toarray()
        workload._cache[key] = _integer_strategy(W, factorize(W, "optimized", pure=pure))
    return workload._cache[key]


def _integer_strategy(W: np.ndarray, chosen: Factorization) -> Factorization:
    """``chosen`` with its strategy M made integer: each row scaled to largest entry
    ``STRATEGY_RESOLUTION`` and rounded, R refit as ``W M^+`` (M keeps full column rank: its
    identity block stays a positive diagonal). Block counts are integers, so the
    measurements ``M h`` are integers and get integer noise: continuous noise on them is
    Mironov's (2012) floating-point trap. Rounding moves the strategy's error by about
    1 / STRATEGY_RESOLUTION relative; the error predictions use the rounded strategy."""
    if chosen.M.integer:
        return chosen
    M = chosen.M.toarray()
    rows = np.abs(M).max(axis=1)
    M = np.round(M[rows > 0] * (STRATEGY_RESOLUTION / rows[rows > 0])[:, None])
    R = np.linalg.lstsq(M.T, W.T, rcond=None)[0].T
    return Factorization(R, QueryMatrix(M), f"{chosen.name} (integer)")


def _predict(workload: CutWorkload, epsilon: float, delta: float) -> dict[str, np.ndarray]:
    """Per-query RMS error of every applicable strategy, from the workload alone (cached
    on the workload per (epsilon, delta))."""
    key = ("predictions", epsilon, delta)
    if key not in workload._cache:
        workload._cache[key] = _predictions(workload, epsilon, delta)
    return workload._cache[key]


def _predictions(workload: CutWorkload, epsilon: float, delta: float) -> dict[str, np.ndarray]:
    pure = delta == 0.0
    predictions = {}
    pair_noise = Noise.for_laplace(epsilon, 1.0, integer=True)
    ones, twos = workload.pair_coefficients()
    if workload.universe.n <= DENSE_NODES:  # else refused: it holds an n x n matrix
        predictions["noisy-graph"] = np.sqrt(pair_noise.variance * (ones + 4.0 * twos))
    l1, l2 = workload.sensitivities()
    noise = (
        Noise.for_laplace(epsilon, l1, integer=True)
        if pure
        else Noise.for_gaussian(epsilon, delta, l2, integer=True)
    )
    predictions["workload"] = np.full(workload.k, math.sqrt(noise.variance))
    predictions["per-query"] = np.array(
        [math.sqrt(n.variance) for n in _per_query_noise(workload, epsilon, delta)]
    )
    if workload.W is not None:
        unit = (
            Noise.for_laplace(epsilon, 1.0, integer=True)
            if pure
            else Noise.for_gaussian(epsilon, delta, 1.0, integer=True)
        )
        predictions["blocks"] = np.sqrt(
            unit.variance * np.asarray(workload.W.multiply(workload.W).sum(axis=1)).ravel()
        )
        if workload.pair_count <= min(MAX_OPTIMIZED_PAIRS, MAX_OPTIMIZED_DOMAIN):
            chosen = _block_factorization(workload, pure)
            sensitivity = chosen.sensitivity(pure)
            measure = (
                Noise.for_laplace(
                    epsilon,
                    sensitivity,
                    integer=chosen.M.integer,
                    coordinates=chosen.M.column_support,
                )
                if pure
                else Noise.for_gaussian(
                    epsilon,
                    delta,
                    sensitivity,
                    integer=chosen.M.integer,
                    coordinates=chosen.M.column_support,
                )
            )
            predictions["optimized"] = np.sqrt(measure.variance) * np.linalg.norm(chosen.R, axis=1)
    return predictions


def _workload_noise(workload: CutWorkload, epsilon: float, delta: float) -> Noise:
    """The noise of the Laplace (delta = 0) or Gaussian mechanism on the whole workload
    (``laplace_mechanism`` / ``gaussian_mechanism`` on :meth:`CutWorkload.queries`, whose
    integer answers get integer noise at the workload's exact joint sensitivity), without
    the O(n^2) pair histogram: the exact answers are sparse cut sums."""
    l1, l2 = workload.sensitivities()
    if delta == 0.0:
        return Noise.for_laplace(epsilon, l1, integer=True, coordinates=workload.k)
    return Noise.for_gaussian(epsilon, delta, l2, integer=True, coordinates=workload.k)


def _per_query_noise(workload: CutWorkload, epsilon: float, delta: float) -> list[Noise]:
    """Each query alone, the budget split equally by composition: basic composition of
    Laplace mechanisms at epsilon / k (pure), or zCDP composition of Gaussian mechanisms at
    rho / k, rho the largest zCDP budget within (epsilon, delta). A query's sensitivity is
    its largest pair coefficient: 2 if S n T holds a pair, else 1."""
    _, twos = workload.pair_coefficients()
    sensitivity = np.where(twos > 0, 2.0, 1.0)
    k = workload.k
    if delta == 0.0:
        return [Noise.for_laplace(epsilon / k, s, integer=True) for s in sensitivity]
    rho = zcdp_budget(epsilon, delta) / k
    return [Noise("discrete_gaussian", s / math.sqrt(2.0 * rho)) for s in sensitivity]


def _as_pairs(workload: CutWorkload) -> tuple[tuple[tuple, tuple], ...]:
    """The workload's queries as node labels in canonical order (built once, then cached)."""
    if "pairs" not in workload._cache:
        nodes = workload.universe.nodes
        workload._cache["pairs"] = tuple(
            (
                tuple(nodes[i] for i in np.flatnonzero(s)),
                tuple(nodes[i] for i in np.flatnonzero(t)),
            )
            for s, t in zip(workload.S.T, workload.T.T, strict=True)
        )
    return workload._cache["pairs"]


def _consistent(workload: CutWorkload, answers: np.ndarray) -> np.ndarray:
    """Project answers onto answers some graph with weights in [0, 1] could give.

    With a small enough block space: ``W c`` for ``0 <= c <= capacity`` (bounded least
    squares, solved exactly by BVLS), else the box ``0 <= answer <= capacity`` query by
    query (exact too). Both sets contain the true
    answers, so the l2 error never grows (SU notes §2.3)."""
    W = workload.W
    if W is None or W.shape[0] * W.shape[1] > MAX_PROJECTION_ENTRIES:
        return np.clip(answers, 0.0, workload.capacities())
    upper = np.maximum(workload.capacity, 1e-12)
    solution = lsq_linear(W.toarray(), answers, bounds=(0.0, upper), method="bvls")
    return W @ solution.x


def answer_cuts(
    G: nx.Graph | sp.sparray | sp.spmatrix,
    queries: Sequence[tuple[Iterable[Hashable], Iterable[Hashable]]] | CutWorkload,
    epsilon: float,
    *,
    delta: float = 0.0,
    strategy: str = "auto",
    weight: str | None = None,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
    rng: RandomState = None,
) -> CutAnswers:
    """Privately answer a given set of cut queries ``G(S, T)``.

    Privacy: (epsilon, delta)-DP under edge-level neighbours (one pair changed by at
    most 1; the data must be 0/1, which they are with ``weight=None``), for every strategy:

    * ``"per-query"``: each query alone with Laplace (delta = 0) or discrete Gaussian
      noise, the budget split equally by basic (Laplace) or zCDP (Gaussian) composition;
    * ``"workload"``: the Laplace (delta = 0) or Gaussian mechanism on the whole workload,
      calibrated to its exact joint l1 or l2 sensitivity over vertex pairs;
    * ``"noisy-graph"``: randomized response (pure, GRU12 §6.1), cuts read off it; it
      holds an n x n matrix, so it refuses graphs of more than
      :data:`~privcut.graph.limits.DENSE_NODES` nodes (a ValueError from the public node
      count, before any budget is spent; ``"auto"`` then never picks it);
    * ``"blocks"``: the block-pair counts (a histogram of sensitivity 1) measured with
      discrete Laplace or discrete Gaussian noise, each cut a sum of them;
    * ``"optimized"``: the factorization mechanism's optimized strategy on the
      block-pair space (SU notes §2), its rows scaled and rounded to integers so that
      the integer block counts are measured with discrete Laplace or discrete Gaussian
      noise (no continuous noise on integer data, Mironov 2012);
    * ``"auto"``: the strategy with the lowest predicted mean error, a choice made
      from the workload and the privacy parameters only.

    Cost: every strategy but ``"noisy-graph"`` reads G as a CSR matrix and takes
    O(n k + |E| k) time and O(n k + |E|) memory for k queries on n nodes, plus the block
    space's O(B^2 k) sensitivity scan and O(P) block counts (B blocks, P block pairs);
    nothing n x n.

    The answers are then made consistent (post-processing that never increases the
    l2 error). ``expected_error`` is each strategy's exact per-query RMS error
    before that step (SU notes eq. 29).

    Parameters
    ----------
    G : networkx.Graph, networkx.DiGraph or scipy.sparse array
        The private graph; its node set is public. A square ``scipy.sparse`` adjacency
        (any format; row and column i are node ``nodes[i]``; symmetric unless
        ``directed``) is read in O(n + nnz) by
        :func:`~privcut.graph.arrays.read_adjacency`, never through NetworkX.
    queries : sequence of (S, T), or CutWorkload
        The workload: pairs of node sets, or a :class:`CutWorkload` already analysed
        (with ``CutWorkload.of`` on ``EdgeUniverse.of(G, nodes=..., directed=...)``) to
        answer it repeatedly without redoing the analysis.
    epsilon : float
        Privacy parameter > 0.
    delta : float, default 0.0
        Privacy parameter in [0, 1); the noisy-graph strategy is always pure.
    strategy : {"auto", "per-query", "workload", "noisy-graph", "blocks", "optimized"}
    weight : str or None, default None
        None: every edge counts 1 (any weight attribute ignored, as in NetworkX); an edge
        attribute name: its values are the data, and must each be 0 or 1.
    nodes : sequence of hashable, optional
        Only with a sparse G (refused for a NetworkX graph, which has its own): the public
        labels of its rows, one per row, distinct; default ``range(n)``. Kept in the
        given order, which is public: the report lists each query's labels in it. It must
        not follow the edges (e.g. the order in which nodes first appear in an edge
        list), or the release reveals them: sort the labels, or use a fixed public order.
    directed : bool, optional
        Only with a sparse G: the public declaration that it is directed (default False:
        G must then be symmetric); never inferred from G.
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.

    Returns
    -------
    CutAnswers

    Examples
    --------
    >>> G = nx.planted_partition_graph(4, 10, 0.5, 0.1, seed=0)
    >>> groups = [set(range(10 * b, 10 * b + 10)) for b in range(4)]
    >>> workload = [(a, b) for i, a in enumerate(groups) for b in groups[i + 1:]]
    >>> answers = answer_cuts(G, workload, epsilon=1.0, rng=0)
    >>> answers.strategy, answers.values.shape
    ('blocks', (6,))
    >>> karate = nx.karate_club_graph()  # interaction counts in 'weight': ignored
    >>> answer_cuts(karate, [({0, 1}, {2, 3})], 1.0, rng=0).values.shape
    (1,)

    A sparse adjacency with public labels, and a directed one:

    >>> A = nx.to_scipy_sparse_array(nx.path_graph(4))
    >>> labels = ("a", "b", "c", "d")
    >>> answer_cuts(A, [({"a", "b"}, {"c", "d"})], 1.0, nodes=labels, rng=0).queries
    ((('a', 'b'), ('c', 'd')),)
    >>> D = sp.csr_array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    >>> answer_cuts(D, [({0}, {1, 2})], 1.0, directed=True, rng=0).values.shape
    (1,)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    strategy = check_option(strategy, "strategy", ("auto", *STRATEGIES))
    universe, adjacency = EdgeUniverse.read(G, weight, nodes=nodes, directed=directed)
    check_pairs(universe, "answer_cuts")
    adjacency = check_zero_one(adjacency, "answer_cuts")
    if isinstance(queries, CutWorkload):
        if queries.universe != universe:
            raise ValueError("the CutWorkload was analysed for another node set")
        workload = queries
    else:
        workload = CutWorkload.of(universe, queries)
    if strategy == "noisy-graph":
        check_dense_nodes(
            universe.n,
            'answer_cuts(strategy="noisy-graph")',
            'strategy="blocks", "workload" or "per-query" (sparse, O(n k + |E|)), or "auto"',
        )
    predictions = _predict(workload, epsilon, delta)
    if strategy == "auto":
        candidates = [name for name in PREFERENCE if name in predictions]
        strategy = min(candidates, key=lambda name: float(f"{np.mean(predictions[name] ** 2):.9g}"))
    elif strategy not in predictions:
        raise ValueError(
            f"strategy {strategy!r} needs a block-pair space of at most "
            f"{MAX_OPTIMIZED_PAIRS if strategy == 'optimized' else MAX_BLOCK_PAIRS} pairs; this "
            f"workload has {workload.pair_count}"
        )
    generator = check_random_state(rng)
    raw, tv = _release(adjacency, workload, strategy, epsilon, delta, generator)
    return CutAnswers(
        values=_consistent(workload, raw),
        raw=raw,
        strategy=strategy,
        expected_error=predictions[strategy],
        epsilon=epsilon,
        delta=delta,
        predicted={name: float(np.sqrt(np.mean(p**2))) for name, p in predictions.items()},
        sampler_tv=tv,
        queries=_as_pairs(workload),
    )


def _release(adjacency, workload, strategy, epsilon, delta, generator) -> tuple[np.ndarray, float]:
    """The strategy's raw answers and its samplers' total variation bound, from G's checked
    0/1 adjacency matrix (the only private input)."""
    pure = delta == 0.0
    if strategy == "noisy-graph":
        noisy = randomized_response(workload.universe, adjacency, epsilon, generator)
        return cut_sums(noisy.matrix, workload.S, workload.T), noisy.sampler_tv
    exact = cut_sums(adjacency, workload.S, workload.T)
    if strategy == "per-query":
        noises = _per_query_noise(workload, epsilon, delta)
        draws = np.array([noise.sample(rng=generator) for noise in noises])
        return exact + draws, sum(noise.tv_bound(1) for noise in noises)
    if strategy == "workload":
        noise = _workload_noise(workload, epsilon, delta)
        return noise.add(exact, rng=generator), noise.tv_bound(workload.k)
    counts = workload.block_counts(None, adjacency)
    if strategy == "blocks":
        if "identity" not in workload._cache:
            workload._cache["identity"] = QueryMatrix(sp.eye_array(len(counts), format="csr"))
        identity = workload._cache["identity"]
        measured = (
            laplace_mechanism(identity, counts, epsilon, rng=generator)
            if pure
            else gaussian_mechanism(identity, counts, epsilon, delta, rng=generator)
        )
        return workload.W @ measured.answers, measured.sampler_tv
    chosen = _block_factorization(workload, pure)
    release = factorization_mechanism(
        workload.W.toarray(), counts, epsilon, delta, strategy=(chosen.R, chosen.M), rng=generator
    )
    return release.answers, release.sampler_tv
