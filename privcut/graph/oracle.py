"""The interactive cut oracle (seed 004 §3-5, Algorithm 1 on graphs).

An analyst asks cut queries (S, T), or rank-1 queries (u, v) with u, v in [0, 1]^V,
one at a time and adaptively; :class:`CutOracle` answers each from a public
hypothesis graph unless the private graph disagrees by more than a threshold, in
which case it releases a noisy answer and updates the hypothesis. The whole
transcript is (epsilon, delta)-DP for edge-level neighbours; the calibration is
:func:`privcut.linear.online.calibrate` (``"tight"`` or ``"paper"``).

A query is the vector c over vertex pairs with ``c_{ij} = u_i v_j + u_j v_i`` (one
term for a DiGraph), so its answer ``u^T A v`` has sensitivity ``D = 2`` (1 for a
DiGraph): an edge inside S n T counts from both ends. The iterative
constructions see the scaled queries ``c / D``, entries in [0, 1].
"""

from __future__ import annotations

import math
import threading
from collections.abc import Hashable, Iterable, Mapping
from functools import lru_cache
from pathlib import Path

import networkx as nx
import numpy as np

from privcut.exceptions import GraphInputError, PrivcutError
from privcut.graph.cuts import check_node_set
from privcut.graph.universe import EdgeUniverse, check_pairs
from privcut.linear.idc import Median, MultiplicativeWeights
from privcut.linear.online import (
    IDCS,
    Calibration,
    SparseVector,
    _warn_exhausted,
    calibrate,
    read_state,
    write_state,
)
from privcut.linear.size import check_share
from privcut.privacy import Noise, check_beta, check_delta, check_epsilon
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_count, check_positive

__all__ = ["CutOracle"]

FORMAT = "privcut-cut-oracle/1"


class _FactoredFriezeKannan:
    """Frieze–Kannan (seed 004 Alg. 2, Thm 5.1) on pair data, kept as a sum of signed rank-1
    cut matrices: ``D_t = p0 + sum_k step_k c_k / D``. Evaluating a query costs
    O(updates x |V|): ``<c_k, c> = (u_k.u)(v_k.v) + (u_k.v)(v_k.u) - 2 sum_i u_k v_k u v``
    (the last two terms only for undirected graphs, whose pairs are unordered)."""

    def __init__(
        self,
        n: int,
        m: int,
        sensitivity: float,
        alpha: float,
        start: float,
        potential: float,
        directed: bool,
    ):
        self.n, self.m, self.sensitivity = n, m, sensitivity
        self.alpha, self.start, self.potential, self.directed = alpha, start, potential, directed
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
        u, v = query
        total = self.start * (u.sum() * v.sum() - u @ v)
        if self.steps.size:
            total += float(self.steps @ self._inner(u, v))
        return float(total)

    def update(self, query: tuple[np.ndarray, np.ndarray], noisy_answer: float) -> bool:
        difference = self.evaluate(query) - float(noisy_answer)
        if difference == 0.0:
            return False
        step = -math.copysign(self.alpha / (self.m * self.sensitivity), difference)
        self.steps = np.append(self.steps, step)
        self.U = np.vstack([self.U, query[0]])
        self.V = np.vstack([self.V, query[1]])
        return True

    def matrix(self) -> np.ndarray:
        """The hypothesis as a dense n x n matrix (zero diagonal)."""
        H = np.full((self.n, self.n), self.start)
        H += (self.U.T * self.steps) @ self.V
        if not self.directed:
            H += (self.V.T * self.steps) @ self.U
        np.fill_diagonal(H, 0.0)
        return H

    def state(self) -> dict:
        return {"steps": self.steps.tolist(), "U": self.U.tolist(), "V": self.V.tolist()}

    def restore(self, state: dict) -> None:
        self.steps = np.asarray(state["steps"], dtype=float)
        self.U = np.asarray(state["U"], dtype=float).reshape(-1, self.n)
        self.V = np.asarray(state["V"], dtype=float).reshape(-1, self.n)


class _PairConstruction:
    """Multiplicative weights or median on the pair histogram, with queries ``c / D``, plus
    one slack element that no query touches: both constructions assume exactly n elements
    (Thm A.2, A.4), and the slack holds ``n - |E|`` for the public bound n >= |E|."""

    def __init__(self, idc, universe: EdgeUniverse, sensitivity: float):
        self.idc, self.sensitivity, self.n = idc, sensitivity, universe.n
        self.rows, self.columns = universe.pair_index()
        self.directed = universe.directed

    max_updates = property(lambda self: self.idc.max_updates)

    def _vector(self, query: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        u, v = query
        c = np.zeros(self.rows.size + 1)
        c[:-1] = u[self.rows] * v[self.columns]
        if not self.directed:
            c[:-1] += u[self.columns] * v[self.rows]
        return c / self.sensitivity

    def evaluate(self, query) -> float:
        return self.sensitivity * self.idc.evaluate(self._vector(query))

    def update(self, query, noisy_answer: float) -> bool:
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
        if isinstance(self.idc, MultiplicativeWeights):
            return {"weights": self.idc.weights.tolist(), "updates": self.idc.updates}
        return {"alive": self.idc.alive.tolist(), "updates": self.idc.updates}

    def restore(self, state: dict) -> None:
        self.idc.updates = int(state["updates"])
        if isinstance(self.idc, MultiplicativeWeights):
            self.idc.weights = np.asarray(state["weights"], dtype=float)
        else:
            self.idc.alive = np.asarray(state["alive"], dtype=np.intp)


def _edge_bounds(
    count: int, max_edges: float | None, epsilon: float, beta: float, generator
) -> dict:
    """Public stand-ins for the edge count: the caller's bound, or a noisy count (discrete
    Laplace, sensitivity 1) with a (1 - beta) interval and its density as a start."""
    if max_edges is not None:
        return {"upper": float(max_edges), "lower": 0.0, "estimate": None, "epsilon": 0.0}
    noise = Noise.for_laplace(epsilon, 1.0, integer=True)
    estimate = float(count + noise.sample(rng=generator))
    error = noise.max_error(1, beta)
    return {
        "upper": max(1.0, estimate + error),
        "lower": max(0.0, estimate - error),
        "estimate": max(0.0, estimate),
        "epsilon": epsilon,
    }


class CutOracle:
    """Answer cut and rank-1 queries on a private graph, adaptively (seed 004 Algorithm 1).

    Privacy: (epsilon, delta)-DP for edge-level neighbours (same public node set,
    one vertex pair flipped) over the whole transcript of adaptively chosen
    queries: Thm 4.1 (``calibration="paper"``) or the sparse-vector analysis of
    :mod:`privcut.linear.online` (``"tight"``, the default), at sensitivity 2 (1 for
    a DiGraph). Without ``max_edges``, ``count_share * epsilon`` of the budget is
    spent first on a noisy edge count (basic composition), which sets B(alpha) and
    the hypothesis's starting density; the exact count is never read into a
    parameter. All budget is committed at construction.

    Accuracy: with probability ``1 - beta`` each of the first ``max_queries``
    answers is within ``.alpha`` of the truth (Thm 4.9 / the tight analysis).
    After ``.max_updates`` updates or ``max_queries`` answers the oracle is
    ``.exhausted``: it answers from the hypothesis alone, with an
    :class:`~privcut.linear.online.OracleExhaustedWarning`.

    Parameters
    ----------
    G : networkx.Graph or networkx.DiGraph
        The private 0/1 graph; its node set is public.
    epsilon, delta : float
        The privacy budget (``"paper"`` needs delta > 0).
    idc : {"frieze-kannan", "multiplicative-weights", "median"}
        Frieze–Kannan keeps its hypothesis factored (cost per query
        O(updates x |V|)); multiplicative weights keeps a distribution over the
        vertex pairs; the median construction is for tiny graphs only.
    max_queries : int, default 10_000
    max_edges : float, optional
        A public upper bound on the number of edges.
    count_share : float, default 0.1
        Share of epsilon for the noisy edge count when ``max_edges`` is not given.
    alpha : float, optional
        The construction's accuracy target; default solved (eq. 3 or the tight
        analogue).
    beta : float, default 0.05
    calibration : {"tight", "paper"}
    path : str or Path, optional
        Save the state here after every answer, before returning it; if the state
        cannot be written the answer is withheld and the oracle stops.
    rng : None, int or numpy.random.Generator

    Examples
    --------
    >>> G = nx.gnp_random_graph(30, 0.5, seed=1)
    >>> oracle = CutOracle(G, 1.0, 1e-6, max_queries=100, rng=0)
    >>> answer = oracle.cut(range(15), range(15, 30))
    >>> abs(answer - nx.cut_size(G, range(15), range(15, 30))) <= oracle.alpha
    True
    """

    def __init__(
        self,
        G: nx.Graph,
        epsilon: float,
        delta: float = 0.0,
        *,
        idc: str = "frieze-kannan",
        max_queries: int = 10_000,
        max_edges: float | None = None,
        count_share: float = 0.1,
        alpha: float | None = None,
        beta: float = 0.05,
        calibration: str = "tight",
        path: str | Path | None = None,
        rng: RandomState = None,
    ) -> None:
        self.epsilon, self.delta, self.beta = (
            check_epsilon(epsilon),
            check_delta(delta),
            check_beta(beta),
        )
        self.max_queries = check_count(max_queries, "max_queries")
        if idc not in IDCS:
            raise ValueError(f"idc must be one of {IDCS}, got {idc!r}")
        if max_edges is not None:
            max_edges = check_positive(max_edges, "max_edges")
        if alpha is not None:
            alpha = check_positive(alpha, "alpha")
        count_epsilon = 0.0 if max_edges is not None else check_share(count_share) * epsilon
        self.universe, self._adjacency = _private_adjacency(G)
        self.idc_name, self.path = idc, None if path is None else Path(path)
        self.sensitivity = 1.0 if self.universe.directed else 2.0
        generator = check_random_state(rng)
        count_beta = beta / 4.0 if max_edges is None else 0.0
        edges = self._adjacency.nnz // (1 if self.universe.directed else 2)
        self.edges = _edge_bounds(edges, max_edges, count_epsilon, count_beta, generator)
        self._setup(alpha, calibration, beta - count_beta, count_epsilon, generator)
        self._lock = threading.RLock()
        self._broken = False
        if self.path is not None:
            self.save(self.path)  # the spent budget is on disk before the first answer

    def _make_idc(self, alpha_idc: float):
        start, potential = _frieze_kannan_start(self.universe.size, self.edges)
        if self.idc_name == "frieze-kannan":
            return _FactoredFriezeKannan(
                self.universe.n,
                self.universe.size,
                self.sensitivity,
                alpha_idc,
                start,
                potential,
                self.universe.directed,
            )
        upper = self.edges["upper"]
        if self.idc_name == "multiplicative-weights":
            construction = MultiplicativeWeights(self.universe.size + 1, alpha_idc, upper)
        else:
            construction = Median(self.universe.size + 1, alpha_idc, upper, self.max_queries)
        return _PairConstruction(construction, self.universe, self.sensitivity)

    def _setup(self, alpha, calibration, beta, count_epsilon, generator) -> None:
        calibrated = _calibrate(
            self.idc_name,
            self.universe.size,
            self.sensitivity,
            tuple(sorted(self.edges.items())),
            self.max_queries,
            self.epsilon - count_epsilon,
            self.delta,
            beta,
            calibration,
            alpha,
        )
        self.idc = self._make_idc(calibrated.alpha_idc / self.sensitivity)
        self._engine = SparseVector(calibrated, self.max_queries, generator)

    calibration = property(lambda self: self._engine.calibration.name)
    alpha = property(lambda self: self._engine.calibration.alpha, doc="Promised max error.")
    max_updates = property(lambda self: self._engine.calibration.max_updates, doc="B(alpha).")
    queries_answered = property(lambda self: self._engine.queries_answered)
    updates = property(lambda self: self._engine.updates)
    exhausted = property(lambda self: self._engine.exhausted)

    def cut(self, S: Iterable[Hashable], T: Iterable[Hashable]) -> float:
        """The (noisy or hypothesis) answer to ``G(S, T) = sum_{s in S, t in T} A[s, t]``."""
        S, T = check_node_set(S, "S"), check_node_set(T, "T")
        return self._answer(self.universe.indicator(S), self.universe.indicator(T))

    def rank1(self, u: Mapping[Hashable, float], v: Mapping[Hashable, float]) -> float:
        """The answer to the rank-1 query ``u^T A v`` (u, v: mappings node -> [0, 1])."""
        return self._answer(self.universe.weights(u), self.universe.weights(v))

    def _answer(self, u: np.ndarray, v: np.ndarray) -> float:
        with self._lock:
            if self._broken:
                raise PrivcutError("the oracle stopped: its state could not be saved")
            hypothesis = self.idc.evaluate((u, v))
            if self._engine.exhausted:
                _warn_exhausted()
                return hypothesis
            value, updated = self._engine.step(lambda: float(u @ (self._adjacency @ v)), hypothesis)
            if updated:
                self.idc.update((u, v), value)
            if self.path is not None:
                try:
                    self.save(self.path)
                except OSError as error:
                    self._broken = True
                    raise PrivcutError(
                        f"could not save the oracle's state to {self.path} ({error}); the "
                        "answer is withheld and the oracle stops"
                    ) from None
            return value

    def _payload(self) -> dict:
        nodes = list(self.universe.nodes)
        if not all(isinstance(node, (str, int)) and not isinstance(node, bool) for node in nodes):
            raise PrivcutError("saving needs node labels that are str or int")
        return {
            "nodes": nodes,
            "directed": self.universe.directed,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "beta": self.beta,
            "idc": self.idc_name,
            "edges": self.edges,
            "engine": self._engine.state(),
            "hypothesis": self.idc.state(),
        }

    def save(self, path: str | Path) -> None:
        """Write everything needed to continue (hypothesis, counters, the spent budget and
        the current threshold noise) atomically, with a checksum."""
        with self._lock:
            write_state(path, FORMAT, self._payload())

    @classmethod
    def load(
        cls,
        path: str | Path,
        G: nx.Graph,
        *,
        rng: RandomState = None,
        autosave: bool = True,
    ) -> CutOracle:
        """Resume a saved oracle on the same private graph G (same node set).

        The budget, counters, threshold noise and hypothesis continue exactly; new noise
        comes from ``rng``. With ``autosave`` the resumed oracle keeps saving to
        ``path`` before every answer. A corrupt, altered or foreign file, or a graph
        with another node set, raises :class:`~privcut.exceptions.PrivcutError`.
        """
        state = read_state(path, FORMAT)
        try:
            nodes, directed = state["nodes"], bool(state["directed"])
            if set(nodes) != set(G.nodes) or len(nodes) != G.number_of_nodes():
                raise PrivcutError(f"{path}: saved for another node set than G's")
            if directed != G.is_directed():
                raise PrivcutError(f"{path}: saved for a {'Di' if directed else ''}Graph")
            oracle = cls.__new__(cls)
            oracle.epsilon, oracle.delta = float(state["epsilon"]), float(state["delta"])
            oracle.beta, oracle.idc_name = float(state["beta"]), state["idc"]
            oracle.edges = dict(state["edges"])
            oracle.path = Path(path) if autosave else None
            ordered = nx.DiGraph() if directed else nx.Graph()
            ordered.add_nodes_from(nodes)
            ordered.add_edges_from(G.edges(data=True))
            oracle.universe, oracle._adjacency = _private_adjacency(ordered)
            oracle.sensitivity = 1.0 if directed else 2.0
            oracle._engine = SparseVector.from_state(state["engine"], check_random_state(rng))
            oracle.max_queries = oracle._engine.max_queries
            calibrated = oracle._engine.calibration
            oracle.idc = oracle._make_idc(calibrated.alpha_idc / oracle.sensitivity)
            oracle.idc.restore(state["hypothesis"])
        except (KeyError, TypeError, ValueError) as error:
            raise PrivcutError(f"{path}: malformed oracle state ({error})") from None
        oracle._lock, oracle._broken = threading.RLock(), False
        return oracle


def _frieze_kannan_start(m: int, edges: dict) -> tuple[float, float]:
    """The starting density (the noisy count's, else 0) and a public bound on the potential
    ``||D - start||^2 = |E| (1 - 2 start) + m start^2`` over the public range of |E|."""
    start = 0.0 if edges["estimate"] is None else min(1.0, edges["estimate"] / m)
    potential = max(
        e * (1.0 - 2.0 * start) + m * start**2 for e in (edges["lower"], edges["upper"])
    )
    return start, potential


@lru_cache(maxsize=64)
def _calibrate(
    idc: str,
    m: int,
    sensitivity: float,
    edges: tuple,
    max_queries: int,
    epsilon: float,
    delta: float,
    beta: float,
    calibration: str,
    alpha: float | None,
) -> Calibration:
    """Algorithm 1's calibration for a cut oracle: a function of public values only (cached,
    so that oracles on graphs with the same public description share it)."""
    bounds = dict(edges)
    upper = bounds["upper"]

    def bound(alpha: float) -> int:  # B(alpha) in answer units; the IDCs see alpha / D
        a = alpha / sensitivity
        if idc == "frieze-kannan":
            return math.ceil(_frieze_kannan_start(m, bounds)[1] * m / a**2)
        if idc == "multiplicative-weights":
            return MultiplicativeWeights.updates_bound(m + 1, a, upper)
        return Median.updates_bound(m + 1, a, upper, max_queries)

    return calibrate(
        bound,
        epsilon,
        delta,
        max_queries=max_queries,
        beta=beta,
        calibration=calibration,
        sensitivity=sensitivity,
        alpha=alpha,
        scale=upper,
    )


def _private_adjacency(G: nx.Graph):
    universe = check_pairs(EdgeUniverse.of(G), "CutOracle (and iterative_construction)")
    adjacency = universe.adjacency(G)
    if not np.all(np.isin(adjacency.data, (0.0, 1.0))):
        raise GraphInputError("the cut oracle needs a 0/1 graph (weights 0 or 1 only)")
    return universe, adjacency
