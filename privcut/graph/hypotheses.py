"""Public hypothesis graphs over vertex pairs, shared by the cut oracle and the iterative
construction (GRU12 §3-5 and §7).

Its one job: keep the hypothesis that the interactive cut oracle
(:mod:`privcut.graph.oracle`) and the iterative construction
(:mod:`privcut.graph.construction`) answer cut and rank-1 queries from, and update it
from released noisy answers. A query (u, v) with u, v in [0, 1]^V is the vector
``c_{ij} = u_i v_j + u_j v_i`` over the vertex pairs (one term for a DiGraph); its answer
has sensitivity ``D = multiplicity`` (2 for a Graph, 1 for a DiGraph), and the iterative
database constructions of :mod:`privcut.linear.idc` see the scaled queries ``c / D``.

Also here: :class:`EdgeBounds`, the public stand-ins for the edge count that set a
hypothesis's start and its update bound, and :func:`private_adjacency`, the one reading
of the private 0/1 graph both releases check their hypotheses against. A hypothesis is
a function of public values and released noisy answers only: it may be released.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.graph.limits import check_dense_nodes
from privcut.graph.universe import EdgeUniverse, check_pairs, check_zero_one
from privcut.linear.idc import Median, MultiplicativeWeights
from privcut.privacy import Noise
from privcut.records import Record

__all__ = [
    "EdgeBounds",
    "FactoredFriezeKannan",
    "PairConstruction",
    "check_dense_idc",
    "pair_hypothesis",
    "private_adjacency",
    "update_bound",
]


def check_dense_idc(idc: str, n: int) -> None:
    """Refuse a hypothesis ``idc`` that keeps a value per vertex pair (multiplicative
    weights, the median construction) on more than
    :data:`~privcut.graph.limits.DENSE_NODES` nodes, naming the factored Frieze–Kannan
    hypothesis (O(updates x n) memory) instead. Frieze–Kannan always passes. Public n only.

    Raises
    ------
    ValueError
        For a per-pair ``idc`` above the limit.

    Examples
    --------
    >>> check_dense_idc("frieze-kannan", 10**6)
    >>> check_dense_idc("multiplicative-weights", 10**6)
    Traceback (most recent call last):
    ...
    ValueError: idc='multiplicative-weights' holds an n x n array (8000.0 GB as float64 at \
1000000 nodes) and accepts at most privcut.graph.limits.DENSE_NODES = 10000 nodes; use \
idc="frieze-kannan" (factored, O(updates x n) memory)
    """
    if idc != "frieze-kannan":
        check_dense_nodes(
            n, f"idc={idc!r}", 'idc="frieze-kannan" (factored, O(updates x n) memory)'
        )


def private_adjacency(
    G: nx.Graph | sp.sparray | sp.spmatrix,
    weight: str | None,
    what: str,
    *,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
) -> tuple[EdgeUniverse, sp.csr_array, int]:
    """The universe of G's node set, G's 0/1 adjacency matrix in its order, and G's exact
    (private) edge count, for the release ``what``: the only place the oracle and the
    construction read G.

    G is a NetworkX graph (its nodes in canonical order) or a square ``scipy.sparse``
    adjacency with the public declarations ``nodes`` (its rows' labels, kept in the given
    order) and ``directed``, both refused for a NetworkX G
    (:meth:`EdgeUniverse.read <privcut.graph.universe.EdgeUniverse.read>`, O(n + |E|)).
    ``weight=None`` reads every edge as 1 (NetworkX's convention); an attribute name
    reads that attribute, which must then be 0 or 1 (:func:`check_zero_one`). A weight-0
    edge is no edge: the edge count is the matrix's ``nnz`` over ``multiplicity``. The
    count is private: it enters a release only through a noisy count
    (:meth:`EdgeBounds.measure`).

    Raises
    ------
    GraphInputError
        For an invalid graph, fewer than 2 nodes, or a weight other than 0 or 1.

    Examples
    --------
    >>> universe, adjacency, edges = private_adjacency(nx.path_graph(3), None, "CutOracle")
    >>> universe.n, adjacency.nnz, edges
    (3, 4, 2)
    >>> A = sp.csr_array([[0, 1, 1], [0, 0, 0], [0, 0, 0]])
    >>> universe, _, edges = private_adjacency(A, None, "CutOracle", directed=True)
    >>> universe.directed, edges
    (True, 2)
    """
    universe, adjacency = EdgeUniverse.read(G, weight, nodes=nodes, directed=directed)
    check_pairs(universe, what)
    adjacency = check_zero_one(adjacency, what)
    adjacency.eliminate_zeros()
    return universe, adjacency, adjacency.nnz // universe.multiplicity


@dataclass(frozen=True)
class EdgeBounds(Record):
    """Public stand-ins for the private edge count |E|.

    Attributes
    ----------
    upper, lower : float
        ``lower <= |E| <= upper`` (with probability ``1 - beta`` for a noisy count).
    estimate : float or None
        The noisy count (clipped at 0), or None for a caller's public bound.
    epsilon : float
        The budget the noisy count cost (0 for a public bound).

    Examples
    --------
    >>> EdgeBounds.measure(10, 50.0, 0.0, 0.0, None)
    EdgeBounds(upper=50.0, lower=0.0, estimate=None, epsilon=0.0)
    """

    upper: float
    lower: float
    estimate: float | None
    epsilon: float

    @classmethod
    def measure(
        cls, count: int, max_edges: float | None, epsilon: float, beta: float, generator
    ) -> EdgeBounds:
        """The caller's public bound ``max_edges``, else the edge ``count`` plus discrete
        Laplace noise (sensitivity 1 under edge-level neighbours: (epsilon, 0)-DP, GRU12
        §2's histogram view) with its ``(1 - beta)`` interval.

        Examples
        --------
        >>> bounds = EdgeBounds.measure(100, None, 1.0, 0.05, np.random.default_rng(0))
        >>> bounds.lower <= bounds.estimate <= bounds.upper, bounds.epsilon
        (True, 1.0)
        """
        if max_edges is not None:
            return cls(float(max_edges), 0.0, None, 0.0)
        noise = Noise.for_laplace(epsilon, 1.0, integer=True)
        return cls.from_count(float(count + noise.sample(rng=generator)), epsilon, beta)

    @classmethod
    def from_count(cls, estimate: float, epsilon: float, beta: float) -> EdgeBounds:
        """The bounds of a noisy edge count ``estimate`` released with discrete Laplace
        noise at ``epsilon`` (sensitivity 1): its ``(1 - beta)`` interval.

        Examples
        --------
        >>> bounds = EdgeBounds.from_count(100.0, 1.0, 0.05)
        >>> bounds.lower < 100.0 < bounds.upper, bounds.estimate
        (True, 100.0)
        """
        noise = Noise.for_laplace(epsilon, 1.0, integer=True)
        error = noise.max_error(1, beta)
        return cls(
            max(1.0, estimate + error), max(0.0, estimate - error), max(0.0, estimate), epsilon
        )

    @classmethod
    def from_dict(cls, saved: dict, epsilon: float) -> EdgeBounds:
        """Saved bounds, if consistent: finite, ``0 <= lower <= upper``, ``upper > 0``, and
        a noisy count (an estimate) exactly when a budget in (0, epsilon) bought it.

        Raises
        ------
        ValueError
            Naming the inconsistency.

        Examples
        --------
        >>> saved = {"upper": 50.0, "lower": 0.0, "estimate": None, "epsilon": 0.0}
        >>> EdgeBounds.from_dict(saved, 1.0).upper
        50.0
        """
        values = {key: saved[key] for key in ("upper", "lower", "estimate", "epsilon")}
        numbers = [values[key] for key in ("upper", "lower", "epsilon")]
        if values["estimate"] is not None:
            numbers.append(values["estimate"])
        if not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= 0
            for x in numbers
        ):
            raise ValueError("edge bounds must be finite and non-negative")
        counted = values["estimate"] is not None
        if values["lower"] > values["upper"] or values["upper"] <= 0:
            raise ValueError("edge bounds must satisfy 0 <= lower <= upper, upper > 0")
        if counted != (0.0 < values["epsilon"] < epsilon) or (not counted and values["lower"]):
            raise ValueError("the noisy edge count's budget does not match the edge bounds")
        return cls(
            **{key: None if value is None else float(value) for key, value in values.items()}
        )

    @property
    def noise(self) -> Noise | None:
        """The noisy count's noise (None for a public bound).

        Examples
        --------
        >>> EdgeBounds(50.0, 0.0, None, 0.0).noise is None
        True
        """
        return Noise.for_laplace(self.epsilon, 1.0, integer=True) if self.epsilon else None

    def frieze_kannan_start(self, m: int) -> tuple[float, float]:
        """Frieze–Kannan's starting density on ``m`` pairs (the noisy count's, else 0) and
        a public bound on the potential ``||D - start||^2 = |E| (1 - 2 start) + m start^2``
        over the public range of |E| (GRU12 Thm 5.1's potential argument).

        Examples
        --------
        >>> EdgeBounds(30.0, 10.0, 20.0, 0.1).frieze_kannan_start(100)
        (0.2, 22.0)
        """
        start = 0.0 if self.estimate is None else min(1.0, self.estimate / m)
        potential = max(e * (1.0 - 2.0 * start) + m * start**2 for e in (self.lower, self.upper))
        return start, potential


class FactoredFriezeKannan:
    """Frieze–Kannan (GRU12 Alg. 2, Thm 5.1) on pair data, kept as a sum of signed rank-1
    cut matrices: ``D_t = start + sum_k step_k c_k / D``.

    Evaluating a query costs O(updates x |V|):
    ``<c_k, c> = (u_k.u)(v_k.v) + (u_k.v)(v_k.u) - 2 sum_i u_k v_k u v`` (the last two
    terms only for undirected graphs, whose pairs are unordered). An update moves the
    hypothesis by ``alpha / (m D)`` per unit of the query, towards the noisy answer.

    With ``keep_degrees`` (undirected only; for the oracle's composed calibration, whose
    privacy and accuracy do not count updates, so no potential argument is needed) an
    update instead moves the hypothesis along the query's cut matrix ``M = u v^T + v u^T``
    (zero diagonal) less its projection on the degree directions ``a 1^T + 1 a^T``: with
    ``y`` the row sums of M, ``(n - 2) a + (sum a) 1 = y`` gives
    ``a = (y - sum(y) / (2 (n - 1))) / (n - 2)``, so every row sum of the step is zero and
    the hypothesis keeps the start's degrees. The step's size makes the query's answer
    equal to the noisy answer (a plain step along M when the projected direction is
    flat on the query, as for S = V). Each update stores two rank-1 terms, (u, v) and
    (a, 1). Why: an additive Frieze–Kannan step on a community-vs-rest cut removes
    cross-community weight without adding it inside, which shifts every random
    bisection's answer; the degree-keeping step leaves random bisections unbiased.

    Parameters
    ----------
    n, m : int
        Nodes and vertex pairs.
    sensitivity : float
        D, the answers' sensitivity (:func:`~privcut.graph.universe.multiplicity`).
    alpha : float
        The construction's accuracy (in units of ``c / D``).
    start : float or BlockStart
        A constant density (:meth:`EdgeBounds.frieze_kannan_start`) or a factored block
        model (:class:`~privcut.graph.start.BlockStart`, with its ``answer(u, v)`` and
        ``answers(us, vs)`` in O(|V| + g^2) per query); Thm 5.1's argument holds from
        any start (the entries of ``D_t`` may leave [0, 1]).
    potential : float
        A public bound on ``||A - start||^2`` over the vertex pairs.
    directed : bool
    keep_degrees : bool, default False
        The degree-keeping update (undirected only), see above.

    Examples
    --------
    >>> fk = FactoredFriezeKannan(3, 3, 2.0, 0.5, 0.0, 2.0, False)
    >>> u = np.array([1.0, 0.0, 0.0]); v = np.array([0.0, 1.0, 1.0])
    >>> fk.evaluate((u, v)), fk.update((u, v), 2.0), fk.evaluate((u, v)) > 0
    (0.0, True, True)
    """

    def __init__(
        self,
        n: int,
        m: int,
        sensitivity: float,
        alpha: float,
        start: float,
        potential: float,
        directed: bool,
        keep_degrees: bool = False,
    ):
        if keep_degrees and (directed or n < 3):
            raise ValueError("keep_degrees needs an undirected graph of at least 3 nodes")
        self.n, self.m, self.sensitivity = n, m, sensitivity
        start = float(start) if isinstance(start, (int, float)) else start
        self.alpha, self.start, self.potential, self.directed = alpha, start, potential, directed
        self.keep_degrees = keep_degrees
        self.steps = np.zeros(0)
        self.U = np.zeros((0, n))
        self.V = np.zeros((0, n))

    @property
    def max_updates(self) -> int:
        """B(alpha) = ||D - D_1||^2 |X| / alpha^2 (Thm 5.1's potential argument from the
        start D_1), with the public potential bound."""
        return math.ceil(self.potential * self.m / self.alpha**2)

    def _inner(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        inner = (self.U @ u) * (self.V @ v)
        diagonal = (self.U * self.V) @ (u * v)
        if self.directed:
            return inner - diagonal
        return inner + (self.U @ v) * (self.V @ u) - 2.0 * diagonal

    def evaluate(self, query: tuple[np.ndarray, np.ndarray]) -> float:
        """The hypothesis's answer ``u^T D_t v`` (zero diagonal). Degree-keeping terms are
        not 0/1, so their sums depend on the summation order: with any, the answer is
        :meth:`evaluate_many` on one row, so that one-by-one and batch answers agree to the
        last bit (0/1 terms give exact integer products either way)."""
        u, v = query
        if self.keep_degrees and self.steps.size:
            one = (sp.csr_array(u[None, :]), sp.csr_array(v[None, :]))
            return float(self.evaluate_many(*one)[0])
        if isinstance(self.start, float):
            total = self.start * (u.sum() * v.sum() - u @ v)
        else:
            total = self.start.answer(u, v)
        if self.steps.size:
            total += float(self.steps @ self._inner(u, v))
        return float(total)

    def evaluate_many(self, us: sp.csr_array, vs: sp.csr_array) -> np.ndarray:
        """The hypothesis's answers to the q queries whose vectors are the rows of ``us``
        and ``vs`` (sparse, q x |V|), at once: O(updates x (nnz(us) + nnz(vs) + q)).

        Examples
        --------
        >>> fk = FactoredFriezeKannan(3, 3, 2.0, 0.5, 0.25, 2.0, False)
        >>> us = sp.csr_array([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]])
        >>> vs = sp.csr_array([[0.0, 1.0, 1.0], [0.0, 0.0, 1.0]])
        >>> fk.evaluate_many(us, vs).tolist()  # 0.25 x (2 and 2 pairs)
        [0.5, 0.5]
        """
        both = us.multiply(vs).tocsr()
        if isinstance(self.start, float):
            sizes = np.asarray(us.sum(axis=1)).ravel() * np.asarray(vs.sum(axis=1)).ravel()
            total = self.start * (sizes - np.asarray(both.sum(axis=1)).ravel())
        else:
            total = self.start.answers(us, vs)
        if self.steps.size:
            a, b = us @ self.U.T, vs @ self.V.T
            diagonal = both @ (self.U * self.V).T
            if self.directed:
                inner = a * b - diagonal
            else:
                inner = a * b + (vs @ self.U.T) * (us @ self.V.T) - 2.0 * diagonal
            # row by row, as evaluate sums them: the same answers to the last bit
            total = total + np.array([self.steps @ row for row in inner])
        return np.asarray(total, dtype=float)

    def update(self, query: tuple[np.ndarray, np.ndarray], noisy_answer: float) -> bool:
        """One step towards ``noisy_answer`` on ``query``; False if it already agrees.

        Examples
        --------
        >>> fk = FactoredFriezeKannan(4, 6, 2.0, 0.5, 0.5, 6.0, False, keep_degrees=True)
        >>> u = np.array([1.0, 1.0, 0.0, 0.0]); v = 1.0 - u
        >>> fk.update((u, v), 0.0), round(fk.evaluate((u, v)), 9)  # the cut now says 0
        (True, 0.0)
        >>> np.round(fk.matrix().sum(axis=1), 9).tolist()  # the start's degrees, kept
        [1.5, 1.5, 1.5, 1.5]
        """
        u, v = query
        difference = self.evaluate(query) - float(noisy_answer)
        if difference == 0.0:
            return False
        if self.keep_degrees:
            rows, columns, steps = self._degree_keeping_step(u, v, difference)
        else:
            step = -math.copysign(self.alpha / (self.m * self.sensitivity), difference)
            rows, columns, steps = [u], [v], [step]
        self.steps = np.append(self.steps, steps)
        self.U = np.vstack([self.U, *rows])
        self.V = np.vstack([self.V, *columns])
        return True

    def _degree_keeping_step(self, u: np.ndarray, v: np.ndarray, difference: float):
        """The rank-1 terms and steps of a degree-keeping update (see the class)."""
        n = self.n
        plain = self._pair(u, v, u, v)  # ||M||^2 over the pairs
        if plain <= 0.0:  # an empty query: nothing to move
            return [u], [v], [0.0]
        y = u * (v.sum() - v) + v * (u.sum() - u)  # row sums of M = u v^T + v u^T, no diagonal
        a = (y - y.sum() / (2.0 * (n - 1))) / (n - 2)
        ones = np.ones(n)
        own = plain - self._pair(a, ones, u, v)  # ||M less its degree part||^2 >= 0
        if own <= 1e-9 * plain:  # the query is a function of the degrees (e.g. S = V)
            return [u], [v], [-difference / plain]
        step = -difference / own
        return [u, a], [v, ones], [step, -step]

    @staticmethod
    def _pair(uk: np.ndarray, vk: np.ndarray, u: np.ndarray, v: np.ndarray) -> float:
        """``u^T (uk vk^T + vk uk^T) v`` without the diagonal (one undirected term)."""
        return float((uk @ u) * (vk @ v) + (uk @ v) * (vk @ u) - 2.0 * (uk * vk) @ (u * v))

    def matrix(self) -> np.ndarray:
        """The hypothesis as a dense n x n matrix (zero diagonal): for small graphs only,
        never on the oracle's path (which evaluates the factors)."""
        if isinstance(self.start, float):
            H = np.full((self.n, self.n), self.start)
        else:
            H = self.start.matrix()
        H += (self.U.T * self.steps) @ self.V
        if not self.directed:
            H += (self.V.T * self.steps) @ self.U
        np.fill_diagonal(H, 0.0)
        return H

    def state(self) -> dict:
        """The steps and their query vectors, as plain lists (for a state file)."""
        return {"steps": self.steps.tolist(), "U": self.U.tolist(), "V": self.V.tolist()}

    def restore(self, state: dict, updates: int) -> None:
        """Take a saved hypothesis: at most ``updates`` updates' terms (two each when
        keeping degrees), of the one legal step size (finite steps when keeping degrees),
        query vectors of length n with entries in [0, 1] (ValueError otherwise)."""
        steps = np.asarray(state["steps"], dtype=float)
        U = np.asarray(state["U"], dtype=float).reshape(-1, self.n)
        V = np.asarray(state["V"], dtype=float).reshape(-1, self.n)
        terms = 2 * updates if self.keep_degrees else updates
        if steps.ndim != 1 or not len(steps) == len(U) == len(V) <= terms:
            raise ValueError("the hypothesis has more steps than updates, or ragged ones")
        if self.keep_degrees:
            legal = np.all(np.isfinite(steps)) and np.all(np.isfinite(U))
        else:
            size = self.alpha / (self.m * self.sensitivity)
            legal = np.all(np.abs(steps) == size) and np.all((0.0 <= U) & (U <= 1.0))
        if not legal or not np.all((0.0 <= V) & (V <= 1.0)):
            raise ValueError("the hypothesis has steps no update makes")
        self.steps, self.U, self.V = steps, U, V


class PairConstruction:
    """Multiplicative weights or median (:mod:`privcut.linear.idc`) on the pair
    histogram, with queries ``c / D``, plus one slack element that no query touches: both
    constructions assume exactly n elements (GRU12 Thm A.2, A.4), and the slack holds
    ``n - |E|`` for the public bound n >= |E|.

    Parameters
    ----------
    idc : MultiplicativeWeights or Median
        Built on ``universe.size + 1`` elements.
    universe : EdgeUniverse
    sensitivity : float
        D (:func:`~privcut.graph.universe.multiplicity`).

    Examples
    --------
    >>> universe = EdgeUniverse((0, 1, 2), False)
    >>> pairs = PairConstruction(MultiplicativeWeights(4, 0.5, 2.0), universe, 2.0)
    >>> u = np.array([1.0, 0.0, 0.0]); v = np.array([0.0, 1.0, 1.0])
    >>> round(pairs.evaluate((u, v)), 6)  # uniform over 3 pairs and the slack: 2 * 2/4
    1.0
    """

    def __init__(self, idc, universe: EdgeUniverse, sensitivity: float):
        self.idc, self.sensitivity, self.n = idc, sensitivity, universe.n
        self.rows, self.columns = universe.pair_index()
        self.directed = universe.directed

    max_updates = property(lambda self: self.idc.max_updates, doc="The construction's B.")

    def _vector(self, query: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        u, v = query
        c = np.zeros(self.rows.size + 1)
        c[:-1] = u[self.rows] * v[self.columns]
        if not self.directed:
            c[:-1] += u[self.columns] * v[self.rows]
        return c / self.sensitivity

    def evaluate(self, query) -> float:
        """The hypothesis's answer ``u^T D_t v``."""
        return self.sensitivity * self.idc.evaluate(self._vector(query))

    def evaluate_many(self, us: sp.csr_array, vs: sp.csr_array) -> np.ndarray:
        """The answers to the queries whose vectors are the rows of ``us`` and ``vs``
        (sparse, q x |V|), one by one: O(q x |V|^2), for the small graphs these
        constructions allow.

        Examples
        --------
        >>> universe = EdgeUniverse((0, 1, 2), False)
        >>> pairs = PairConstruction(MultiplicativeWeights(4, 0.5, 2.0), universe, 2.0)
        >>> us, vs = sp.csr_array([[1.0, 0.0, 0.0]]), sp.csr_array([[0.0, 1.0, 1.0]])
        >>> np.round(pairs.evaluate_many(us, vs), 6).tolist()
        [1.0]
        """
        rows = zip(us.toarray(), vs.toarray(), strict=True)
        return np.array([self.evaluate((u, v)) for u, v in rows], dtype=float)

    def update(self, query, noisy_answer: float) -> bool:
        """The construction's update on ``query`` towards ``noisy_answer``."""
        return self.idc.update(self._vector(query), float(noisy_answer) / self.sensitivity)

    def matrix(self) -> np.ndarray:
        """The hypothesis as a dense n x n matrix (zero diagonal)."""
        pairs = self.idc.hypothesis()[:-1]  # the slack element holds no pair
        H = np.zeros((self.n, self.n))
        H[self.rows, self.columns] = pairs
        if not self.directed:
            H[self.columns, self.rows] = pairs
        return H

    def state(self) -> dict:
        """The weights (or surviving candidates) and the update count, as plain data."""
        if isinstance(self.idc, MultiplicativeWeights):
            return {"weights": self.idc.weights.tolist(), "updates": self.idc.updates}
        return {"alive": self.idc.alive.tolist(), "updates": self.idc.updates}

    def restore(self, state: dict, updates: int) -> None:
        """Take a saved hypothesis: at most ``updates`` updates, and weights (a distribution)
        or surviving candidates of the construction's own shape (ValueError otherwise)."""
        count = state["updates"]
        if not isinstance(count, int) or not 0 <= count <= updates:
            raise ValueError("the hypothesis has more updates than the sparse vector")
        if isinstance(self.idc, MultiplicativeWeights):
            weights = np.asarray(state["weights"], dtype=float)
            shape = weights.shape == self.idc.weights.shape
            if not (shape and np.all(weights >= 0.0) and np.isclose(weights.sum(), 1.0)):
                raise ValueError("saved weights are not a distribution of the right size")
            self.idc.weights = weights
        else:
            alive = np.asarray(state["alive"], dtype=np.intp)
            if alive.ndim != 1 or not set(alive.tolist()) <= set(self.idc.alive.tolist()):
                raise ValueError("saved candidates the construction does not have")
            self.idc.alive = alive
        self.idc.updates = count


def update_bound(
    idc: str,
    m: int,
    alpha: float,
    edges: EdgeBounds,
    max_queries: int | None = None,
    potential: float | None = None,
) -> int:
    """B(alpha): the most updates the hypothesis ``idc`` on ``m`` pairs makes at accuracy
    ``alpha`` (in units of ``c / D``), from public values only: Thm 5.1's potential bound
    for Frieze–Kannan, Thm A.2 / A.4 with one slack element for multiplicative weights
    and the median construction (which also needs the ``max_queries`` it answers).
    ``potential``: Frieze–Kannan's public bound on ``||A - start||^2`` for a start other
    than the density (:mod:`privcut.graph.start`); default the density start's. At least 1:
    a measured start's bound can be 0 (its noise below the value, an event of probability
    at most its beta), and no calibration exists for a bound of 0 updates; 1 still bounds
    them.

    Examples
    --------
    >>> update_bound("frieze-kannan", 100, 1.0, EdgeBounds(30.0, 0.0, None, 0.0))
    3000
    """
    if idc == "frieze-kannan":
        if potential is None:
            potential = edges.frieze_kannan_start(m)[1]
        return max(1, math.ceil(potential * m / alpha**2))
    if idc == "multiplicative-weights":
        return MultiplicativeWeights.updates_bound(m + 1, alpha, edges.upper)
    return Median.updates_bound(m + 1, alpha, edges.upper, max_queries)


def pair_hypothesis(
    idc: str,
    universe: EdgeUniverse,
    alpha: float,
    edges: EdgeBounds,
    max_queries: int | None = None,
    start=None,
    keep_degrees: bool = False,
) -> FactoredFriezeKannan | PairConstruction:
    """A fresh hypothesis on ``universe``'s pairs: Frieze–Kannan (factored, starting from
    the noisy density, or from ``start``, a :class:`~privcut.graph.start.MeasuredStart`;
    with the degree-keeping update if ``keep_degrees``), multiplicative weights or the
    median construction (with the slack element), at accuracy ``alpha`` in units of
    ``c / D``.

    Examples
    --------
    >>> universe = EdgeUniverse((0, 1, 2), False)
    >>> edges = EdgeBounds(2.0, 0.0, None, 0.0)
    >>> hypothesis = pair_hypothesis("frieze-kannan", universe, 0.5, edges)
    >>> hypothesis.matrix().tolist()
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    check_dense_idc(idc, universe.n)
    sensitivity = float(universe.multiplicity)
    m = universe.size
    if idc == "frieze-kannan":
        if start is None:
            density, potential = edges.frieze_kannan_start(m)
        else:
            density, potential = start.start, start.potential
        return FactoredFriezeKannan(
            universe.n, m, sensitivity, alpha, density, potential, universe.directed, keep_degrees
        )
    if idc == "multiplicative-weights":
        construction = MultiplicativeWeights(m + 1, alpha, edges.upper)
    else:
        construction = Median(m + 1, alpha, edges.upper, max_queries)
    return PairConstruction(construction, universe, sensitivity)
