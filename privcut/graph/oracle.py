"""The interactive cut oracle (GRU12 §3-5, Algorithm 1 on graphs).

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
import os
import threading
from collections.abc import Hashable, Iterable, Mapping
from functools import lru_cache
from pathlib import Path

import networkx as nx
import numpy as np

from privcut.exceptions import GraphInputError, PrivcutError
from privcut.files import StateFile
from privcut.graph.cuts import check_node_set
from privcut.graph.universe import EdgeUniverse, check_pairs
from privcut.linear.idc import Median, MultiplicativeWeights
from privcut.linear.online import (
    CALIBRATIONS,
    IDCS,
    Calibration,
    ProcessGuard,
    SparseVector,
    _warn_exhausted,
    calibrate,
)
from privcut.linear.size import check_share
from privcut.privacy import Noise, check_beta, check_delta, check_epsilon, effective_delta
from privcut.privacy.noise import float_sum_error
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_count, check_positive

__all__ = ["CutOracle"]

FORMAT = "privcut-cut-oracle/2"


class _FactoredFriezeKannan:
    """Frieze–Kannan (GRU12 Alg. 2, Thm 5.1) on pair data, kept as a sum of signed rank-1
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

    def restore(self, state: dict, updates: int) -> None:
        """Take a saved hypothesis: at most ``updates`` steps of the one legal size, query
        vectors of length n with entries in [0, 1]."""
        steps = np.asarray(state["steps"], dtype=float)
        U = np.asarray(state["U"], dtype=float).reshape(-1, self.n)
        V = np.asarray(state["V"], dtype=float).reshape(-1, self.n)
        size = self.alpha / (self.m * self.sensitivity)
        if steps.ndim != 1 or not len(steps) == len(U) == len(V) <= updates:
            raise ValueError("the hypothesis has more steps than updates, or ragged ones")
        if not np.all(np.abs(steps) == size) or not all(
            np.all((0.0 <= X) & (X <= 1.0)) for X in (U, V)
        ):
            raise ValueError("the hypothesis has steps no update makes")
        self.steps, self.U, self.V = steps, U, V


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

    def restore(self, state: dict, updates: int) -> None:
        """Take a saved hypothesis: at most ``updates`` updates, and weights (a distribution)
        or surviving candidates of the construction's own shape."""
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
    """Answer cut and rank-1 queries on a private graph, adaptively (GRU12 Algorithm 1).

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
        cannot be written the answer is withheld and the oracle stops. No file may
        exist there (resume an existing state with :meth:`load`). Made absolute at
        once, like ``key_path``.
    key_path : str or Path, optional
        The key file that authenticates the state (default ``<path>.key``, made if
        missing, with its record ``<key_path>.record``).
    rng : None, int or numpy.random.Generator

    Notes
    -----
    The state file is secret: it holds the current threshold draw of the sparse
    vector in clear, and whoever knows that draw learns from each "no update"
    answer whether the private gap exceeded a known number, which the
    (epsilon, delta) guarantee no longer covers (the hypothesis alone could be
    released). It is written with mode 0600 and authenticated by HMAC-SHA256 under
    a key kept apart from it (:class:`~privcut.files.StateFile`): an
    edited file is refused, and so, by a record of the last save's number kept
    with the key, is an older copy, which would spend again budget already spent.
    The calibration is recomputed from the saved public parameters on load and the
    counters are checked against it. Whoever holds the key can forge a state: keep
    the key private (``key_path`` in a private folder if the state's folder is
    shared or backed up). An oracle bound to a state file (``path``, ``save`` or
    ``load``) holds an exclusive lock on it until :meth:`close` (or ``with``, or
    garbage collection); a second oracle, in this process or another, is refused.
    Each query is counted in the record before the graph is read, and the state
    saved after, so a failed save leaves a state that cannot be resumed. An oracle
    answers only in the process that made or loaded it: after ``os.fork`` the
    child's copy would repeat the parent's noise draws, so it refuses to answer or
    save.

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
        key_path: str | Path | None = None,
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
        self._setup(alpha, calibration, generator)
        self._bind(None, key_path, autosave=self.path is not None)
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

    def _setup(self, alpha, calibration, generator) -> None:
        self._requested_alpha = alpha
        calibrated = self._calibrated(alpha, calibration)
        self.idc = self._make_idc(calibrated.alpha_idc / self.sensitivity)
        self._engine = SparseVector(calibrated, self.max_queries, generator)

    def _calibrated(self, alpha: float | None, calibration: str) -> Calibration:
        """The calibration from public values only: the budget less the noisy count's share
        (and beta less its quarter for the count's interval) when there is one."""
        count_beta = 0.0 if self.edges["estimate"] is None else self.beta / 4.0
        return _calibrate(
            self.idc_name,
            self.universe.size,
            self.sensitivity,
            tuple(sorted(self.edges.items())),
            self.max_queries,
            self.epsilon - self.edges["epsilon"],
            self.delta,
            self.beta - count_beta,
            calibration,
            alpha,
        )

    calibration = property(lambda self: self._engine.calibration.name)
    alpha = property(lambda self: self._engine.calibration.alpha, doc="Promised max error.")
    max_updates = property(lambda self: self._engine.calibration.max_updates, doc="B(alpha).")
    queries_answered = property(lambda self: self._engine.queries_answered)
    updates = property(lambda self: self._engine.updates)
    exhausted = property(lambda self: self._engine.exhausted)

    @property
    def sampler_tv(self) -> float:
        """Bound on the total variation distance of the integer noise drawn so far from exact
        (as :attr:`~privcut.linear.LinearRelease.sampler_tv`): the noisy edge count, one
        comparison draw per query answered from the data, and per update an answer draw
        and a new threshold draw (tight), counting the first threshold draw; the answers of
        fractional rank-1 queries are counted with their grid noise's bound."""
        calibration, engine = self._engine.calibration, self._engine
        count = self.edges["epsilon"]
        tv = Noise.for_laplace(count, 1.0, integer=True).tv_bound(1) if count else 0.0
        released = engine.released_noise
        gridded = released.on_grid(self.sensitivity, 1)  # fractional queries' answer noise
        on_grid, answers = engine.grid_draws, engine.queries_answered
        if calibration.name == "tight":
            tv += calibration.comparison.tv_bound(answers)
            answers = engine.updates
        tv += released.tv_bound(answers - on_grid) + gridded.tv_bound(on_grid)
        if calibration.threshold_noise is not None:
            tv += calibration.threshold_noise.tv_bound(1 + engine.updates)
        return tv

    @property
    def effective_delta(self) -> float:
        """``delta`` plus the slack of the integer samplers' distance from exact, for the
        transcript so far: ``delta + (1 + e**epsilon) * sampler_tv``."""
        return effective_delta(self.epsilon, self.delta, self.sampler_tv)

    def cut(self, S: Iterable[Hashable], T: Iterable[Hashable]) -> float:
        """The (noisy or hypothesis) answer to ``G(S, T) = sum_{s in S, t in T} A[s, t]``."""
        S, T = check_node_set(S, "S"), check_node_set(T, "T")
        return self._answer(self.universe.indicator(S), self.universe.indicator(T))

    def rank1(self, u: Mapping[Hashable, float], v: Mapping[Hashable, float]) -> float:
        """The answer to the rank-1 query ``u^T A v`` (u, v: mappings node -> [0, 1]).

        A query with a non-integer weight has its noisy answer released on a public
        power-of-two grid with discrete noise in grid units of the same privacy (integer
        noise would leave the answer's fractional part exact, and float noise its low
        bits, Mironov 2012; :meth:`~privcut.privacy.Noise.on_grid`); 0/1 weights get
        integer noise."""
        return self._answer(self.universe.weights(u), self.universe.weights(v))

    def _answer(self, u: np.ndarray, v: np.ndarray) -> float:
        self._owner.check()
        with self._lock:
            if self._stopped:
                raise PrivcutError(self._stopped)
            hypothesis = self.idc.evaluate((u, v))
            if self._engine.exhausted:
                _warn_exhausted()
                return hypothesis
            self._commit()
            value, updated = self._engine.step(
                lambda: float(u @ (self._adjacency @ v)),
                hypothesis,
                integer=_is_integer(u) and _is_integer(v),  # from the query alone
                sensitivity=self.sensitivity,
                error=float_sum_error(2 * u.size, float(u.sum()) * float(v.sum())),  # public
            )
            if updated:
                self.idc.update((u, v), value)
            self._persist()
            return value

    def _bind(self, store: StateFile | None, key_path, *, autosave: bool) -> None:
        self._lock = threading.RLock()
        self._owner = ProcessGuard("this CutOracle")  # a fork's copy would repeat its noise
        self._stopped: str | None = None
        self._store, self._autosave = store, autosave
        self._key_path = None if key_path is None else Path(os.path.abspath(key_path))

    def _spent(self) -> dict:
        return {"queries_answered": self.queries_answered, "updates": self.updates}

    def _commit(self) -> None:
        """Before the data are read: count this query in the record (a fixed-size write,
        whose success does not depend on the data), so that a state not saved after it
        is refused; if that fails, nothing was read and the oracle stops."""
        if self._store is None:
            return
        try:
            self._store.advance(dict(self._spent(), queries_answered=self.queries_answered + 1))
        except OSError as error:
            self._stopped = "the oracle stopped: its record could not be written"
            raise PrivcutError(
                f"could not record the query in {self._store.record_path} ({error}); no data "
                "were read, no answer is given, and the oracle stops"
            ) from None

    def _persist(self) -> None:
        """Before an answer is returned, with autosave: save the state. Without, the record
        (advanced by :meth:`_commit`) is ahead of the state on disk, which is refused."""
        if self._store is None or not self._autosave:
            return
        try:
            self._store.write(self._payload(), self._spent())
        except OSError as error:
            self._stopped = "the oracle stopped: its state could not be saved"
            raise PrivcutError(
                f"could not save the oracle's state to {self.path} ({error}); the "
                "answer is withheld and the oracle stops"
            ) from None

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
            "alpha": None if self._requested_alpha is None else float(self._requested_alpha),
            "engine": self._engine.state(),
            "hypothesis": self.idc.state(),
        }

    def save(self, path: str | Path) -> None:
        """Write everything needed to continue (hypothesis, counters, the spent budget and
        the current threshold noise) durably and atomically, authenticated by the key.

        The first save binds the oracle to ``path`` and locks it (see the class
        docstring); it refuses a path where a file exists (resume that state with
        :meth:`load`, or delete it, its key and its record). An oracle has one state
        file, so saving to another path is refused: two copies could each be resumed
        and the budget spent twice. Answers given after a save (without ``path=`` or
        ``autosave``) outdate the file until the next save: it cannot be resumed in
        between.
        """
        self._owner.check()
        with self._lock:
            if self._stopped:
                raise PrivcutError(self._stopped)
            payload, spent = self._payload(), self._spent()
            if self._store is None:
                self._store = StateFile.create(path, FORMAT, self._key_path)
                self.path = self._store.path
            elif Path(path).resolve() != self._store.path.resolve():
                raise PrivcutError(
                    f"this oracle's state is saved in {self._store.path}; a second copy in "
                    f"{path} could be resumed too and spend the budget twice"
                )
            self._store.advance(spent)
            self._store.write(payload, spent)

    def close(self) -> None:
        """Release the state file's lock; the oracle answers no more (idempotent).

        Also done by ``with`` and on garbage collection.
        """
        with self._lock:
            self._stopped = "the oracle is closed"
            if self._store is not None:
                self._store.close()

    def __enter__(self) -> CutOracle:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    @classmethod
    def load(
        cls,
        path: str | Path,
        G: nx.Graph,
        *,
        rng: RandomState = None,
        autosave: bool = True,
        key_path: str | Path | None = None,
    ) -> CutOracle:
        """Resume a saved oracle on the same private graph G (same node set).

        The budget, counters, threshold noise and hypothesis continue exactly; new noise
        comes from ``rng``. The resumed oracle holds the state file until closed. With
        ``autosave`` it saves to ``path`` before every answer; without, answers
        outdate the file until the next :meth:`save`. A missing key, a corrupt,
        altered, rolled-back, foreign or locked file, a calibration that its public
        parameters do not give, or a graph with another node set, raises
        :class:`~privcut.exceptions.PrivcutError`.
        """
        store, state, spent = StateFile.open(path, FORMAT, key_path)
        try:
            oracle = cls._restore(state, spent, store.path, G, rng)
        except BaseException:
            store.close()
            raise
        oracle.path = store.path
        oracle._bind(store, store.key_path, autosave=autosave)
        return oracle

    @classmethod
    def _restore(cls, state: dict, spent: dict, path: Path, G: nx.Graph, rng) -> CutOracle:
        try:
            nodes, directed = list(state["nodes"]), state["directed"]
            if set(nodes) != set(G.nodes) or len(nodes) != G.number_of_nodes():
                raise PrivcutError(f"{path}: saved for another node set than G's")
            if directed is not G.is_directed():
                raise PrivcutError(f"{path}: saved for a {'Di' if directed else ''}Graph")
            oracle = cls.__new__(cls)
            oracle.epsilon = check_epsilon(state["epsilon"])
            oracle.delta = check_delta(state["delta"])
            oracle.beta, oracle.idc_name = check_beta(state["beta"]), state["idc"]
            if oracle.idc_name not in IDCS:
                raise ValueError(f"unknown idc {oracle.idc_name!r}")
            oracle.edges = _checked_edges(state["edges"], oracle.epsilon)
            ordered = nx.DiGraph() if directed else nx.Graph()
            ordered.add_nodes_from(nodes)
            ordered.add_edges_from(G.edges(data=True))
            oracle.universe, oracle._adjacency = _private_adjacency(ordered)
            oracle.sensitivity = 1.0 if directed else 2.0
            engine = state["engine"]
            oracle.max_queries = check_count(engine["max_queries"], "max_queries")
            oracle._engine = _checked_engine(oracle, state["alpha"], engine, spent, rng)
            oracle._requested_alpha = state["alpha"]
            calibrated = oracle._engine.calibration
            oracle.idc = oracle._make_idc(calibrated.alpha_idc / oracle.sensitivity)
            oracle.idc.restore(state["hypothesis"], oracle.updates)
        except (KeyError, TypeError, ValueError) as error:
            raise PrivcutError(f"{path}: malformed oracle state ({error})") from None
        return oracle


def _checked_edges(edges: dict, epsilon: float) -> dict:
    """The saved public edge bounds, if consistent: 0 <= lower <= upper, and a noisy count
    (an estimate) exactly when a share of epsilon below epsilon bought it."""
    edges = {key: edges[key] for key in ("upper", "lower", "estimate", "epsilon")}
    numbers = [edges[key] for key in ("upper", "lower", "epsilon")]
    if edges["estimate"] is not None:
        numbers.append(edges["estimate"])
    if not all(isinstance(x, (int, float)) and math.isfinite(x) and x >= 0 for x in numbers):
        raise ValueError("edge bounds must be finite and non-negative")
    counted = edges["estimate"] is not None
    if edges["lower"] > edges["upper"] or edges["upper"] <= 0:
        raise ValueError("edge bounds must satisfy 0 <= lower <= upper, upper > 0")
    if counted != (0.0 < edges["epsilon"] < epsilon) or (not counted and edges["lower"] != 0):
        raise ValueError("the noisy edge count's budget does not match the edge bounds")
    return {key: None if value is None else float(value) for key, value in edges.items()}


def _checked_engine(oracle: CutOracle, alpha, engine: dict, spent: dict, rng) -> SparseVector:
    """The saved sparse-vector state, with its calibration recomputed from the public
    parameters (a different saved one is refused) and its counters checked."""
    saved = engine["calibration"]
    if saved["name"] not in CALIBRATIONS or not (alpha is None or check_positive(alpha, "alpha")):
        raise ValueError("unknown calibration or bad alpha")
    calibrated = oracle._calibrated(alpha, saved["name"])
    if calibrated.to_dict() != saved:
        raise PrivcutError(
            "the saved calibration is not the one its public parameters give (epsilon, "
            "delta, beta, idc, edge bounds, max_queries, alpha); refusing an altered state"
        )
    state = dict(engine, calibration=calibrated.to_dict())
    result = SparseVector.from_state(state, check_random_state(rng))
    answered, updates = engine["queries_answered"], engine["updates"]
    draw = engine["threshold_draw"]
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (answered, updates)):
        raise ValueError("counters must be integers")
    if not 0 <= updates <= min(answered, calibrated.max_updates) or answered > oracle.max_queries:
        raise ValueError(
            "counters out of bounds (need 0 <= updates <= min(queries_answered, max_updates) "
            "and queries_answered <= max_queries)"
        )
    if spent != {"queries_answered": answered, "updates": updates}:
        raise ValueError("counters differ from the authenticated budget record")
    on_grid = engine["grid_draws"]
    released = answered if calibrated.name == "paper" else updates
    if isinstance(on_grid, bool) or not isinstance(on_grid, int) or not 0 <= on_grid <= released:
        raise ValueError("grid_draws must be an integer between 0 and the answers released")
    noise = calibrated.threshold_noise
    if (
        not isinstance(draw, (int, float))
        or not float(draw).is_integer()
        or (noise is None and draw != 0)
    ):
        raise ValueError("the threshold draw must be an integer (0 for the paper calibration)")
    return result


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


def _is_integer(weights: np.ndarray) -> bool:
    """Whether every answer to a query with these weights is an integer (on a 0/1 graph)."""
    return bool(np.all(weights == np.round(weights)))


def _private_adjacency(G: nx.Graph):
    universe = check_pairs(EdgeUniverse.of(G), "CutOracle (and iterative_construction)")
    adjacency = universe.adjacency(G)
    if not np.all(np.isin(adjacency.data, (0.0, 1.0))):
        raise GraphInputError("the cut oracle needs a 0/1 graph (weights 0 or 1 only)")
    adjacency.eliminate_zeros()  # a weight-0 edge is no edge: nnz is the edge count
    return universe, adjacency
