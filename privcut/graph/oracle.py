"""The interactive cut oracle (GRU12 §3-5, Algorithm 1 on graphs).

An analyst asks cut queries (S, T), or rank-1 queries (u, v) with u, v in [0, 1]^V,
one at a time and adaptively; :class:`CutOracle` answers each from a public
hypothesis graph unless the private graph disagrees by more than a threshold, in
which case it releases a noisy answer and updates the hypothesis. The whole
transcript is (epsilon, delta)-DP for edge-level neighbours; the calibration is
:func:`privcut.linear.online.calibrate` (``"tight"`` or ``"paper"``).

A query is the vector c over vertex pairs with ``c_{ij} = u_i v_j + u_j v_i`` (one
term for a DiGraph), so its answer ``u^T A v`` has sensitivity ``D = multiplicity``
(2, or 1 for a DiGraph): an edge inside S n T counts from both ends. The hypotheses
(:mod:`privcut.graph.hypotheses`) see the scaled queries ``c / D``, entries in [0, 1].

This module's one job: the oracle's session -- answering, accounting, its status
(:class:`OracleStatus`) and its authenticated state file.
"""

from __future__ import annotations

import itertools
import math
import os
import threading
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.exceptions import PrivcutError
from privcut.files import StateFile
from privcut.graph.arrays import is_array_graph
from privcut.graph.cuts import check_node_set
from privcut.graph.hypotheses import (
    EdgeBounds,
    check_dense_idc,
    pair_hypothesis,
    private_adjacency,
    update_bound,
)
from privcut.graph.partition import Partition
from privcut.graph.start import START_SHARE, STARTS, BlockStart, MeasuredStart, measure_start
from privcut.graph.universe import EdgeUniverse
from privcut.linear.online import (
    CALIBRATIONS,
    IDCS,
    NOISE_CHUNK,
    Calibration,
    ProcessGuard,
    SparseVector,
    calibrate,
    check_alpha,
    check_sparse_vector,
    warn_exhausted,
)
from privcut.linear.size import check_share
from privcut.privacy import (
    check_beta,
    check_delta,
    check_epsilon,
    effective_delta,
    exact_split,
)
from privcut.privacy.noise import MAX_SCALE, float_sum_error
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import (
    check_option,
    check_positive,
    check_scalar,
    epsilon_too_small,
)
from privcut.records import Record, Spend

__all__ = ["CutOracle", "OracleStatus"]

FORMAT = "privcut-cut-oracle/4"
"""The state file's format; /3 added the measured start, /4 the composed calibration's sampler
reserve (older files are refused, naming both formats: start a new oracle)."""

RERUN = 16
"""Rows of a batch re-evaluated at once after an update (:meth:`CutOracle.cuts`)."""


@dataclass(frozen=True)
class OracleStatus(Record):
    """What a :class:`CutOracle` may tell about itself: public parameters, the calibration
    and counters of its transcript (released with the answers), nothing else.

    Attributes
    ----------
    mechanism : str
        ``"CutOracle (GRU12 Algorithm 1)"``.
    epsilon, delta : float
        The whole session's guarantee (edge-level neighbours).
    sampler_tv, effective_delta : float
        The integer samplers' distance from exact for the transcript so far, and the
        delta it guarantees with it (:attr:`CutOracle.effective_delta`: at most ``delta``
        under the composed analysis with a sampler reserve, for integer queries).
    beta : float
        Failure probability of ``alpha``.
    alpha : float
        The promised maximum error of the first ``max_queries`` answers.
    idc : str
        The hypothesis's construction.
    calibration : str
        ``"tight"`` or ``"paper"``.
    weight : str or None
        The edge attribute read (None: unweighted).
    sensitivity : float
        A query's sensitivity D (2, or 1 for a DiGraph).
    max_queries, queries_answered : int
        The answers the promise covers, and the answers given from the data.
    updates, max_updates : int
        Update rounds so far, and B(alpha).
    exhausted : bool
        Whether later answers come from the hypothesis alone.
    edges : EdgeBounds
        The public edge bounds (``upper``, ``lower``, ``estimate``, ``epsilon``).
    start : str
        ``"measured"`` (:mod:`privcut.graph.start`) or ``"density"``.
    potential : float or None
        Frieze–Kannan's public bound on ``||A - start||^2`` that sets ``max_updates``
        (None for the other constructions).
    spends : tuple of Spend
        Every part of epsilon, named: the start's measurements (or the noisy edge count)
        and ``"sparse-vector"`` (Algorithm 1, its comparison noise); their epsilons add up
        to ``epsilon`` exactly.

    Examples
    --------
    >>> oracle = CutOracle(nx.path_graph(6), 1.0, 1e-6, max_queries=10, rng=0)
    >>> status = oracle.status()
    >>> status.queries_answered, status.exhausted, sorted(status.to_dict()["edges"])
    (0, False, ['epsilon', 'estimate', 'lower', 'upper'])
    >>> status.start, [spend.name for spend in status.spends]
    ('measured', ['edge-count', 'degrees', 'potential', 'sparse-vector'])
    """

    mechanism: str
    epsilon: float
    delta: float
    sampler_tv: float
    effective_delta: float
    beta: float
    alpha: float
    idc: str
    calibration: str
    weight: str | None
    sensitivity: float
    max_queries: int
    queries_answered: int
    updates: int
    max_updates: int
    exhausted: bool
    edges: EdgeBounds
    start: str
    potential: float | None
    spends: tuple[Spend, ...]


def _count_epsilon(epsilon: float, share: float) -> float:
    """The density start's edge count's ``share`` of ``epsilon``; refused (before the graph
    is read) when its noise would pass the samplers' cap, or the share underflows to 0."""
    count_epsilon = exact_split(epsilon, (share, 1.0 - share))[0]
    if not count_epsilon > 0.0 or not 1.0 / count_epsilon <= MAX_SCALE:
        raise epsilon_too_small(
            f"the edge count (its share of epsilon is {count_epsilon!r})",
            "raise epsilon (or give a public max_edges)",
        )
    return count_epsilon


class CutOracle:
    """Answer cut and rank-1 queries on a private graph, adaptively (GRU12 Algorithm 1).

    Privacy: (epsilon, delta)-DP for edge-level neighbours (same public node set,
    one vertex pair flipped) over the whole transcript of adaptively chosen
    queries: Thm 4.1 (``calibration="paper"``) or the composed or sparse-vector
    analysis of :mod:`privcut.linear.online` (``"tight"``, the default: whichever
    promises less), at sensitivity 2 (1 for a DiGraph). The start is bought first (basic
    composition, the shares adding up to epsilon exactly): ``start="measured"``
    (Frieze–Kannan's default) spends ``start_share * epsilon`` on the measurements of
    :func:`~privcut.graph.start.measure_start` (edge count unless ``max_edges``, degrees,
    block counts of public ``groups``, the potential), which set the factored block-model
    start and B(alpha); ``start="density"`` spends, without ``max_edges``,
    ``count_share * epsilon`` on a noisy edge count, which sets B(alpha) and the starting
    density. The exact count is never read into a parameter. All budget is committed at
    construction.

    Accuracy: with probability ``1 - beta`` each of the first ``max_queries``
    answers is within ``.alpha`` of the truth (Thm 4.9 / the tight analysis).
    After ``.max_updates`` updates or ``max_queries`` answers the oracle is
    ``.exhausted``: it answers from the hypothesis alone, with an
    :class:`~privcut.linear.online.OracleExhaustedWarning`.

    Parameters
    ----------
    G : networkx.Graph, networkx.DiGraph or scipy.sparse array
        The private 0/1 graph; its node set is public. A square ``scipy.sparse``
        adjacency (any format; row and column i are node ``nodes[i]``; symmetric unless
        ``directed``) is read once, in O(n + nnz), by
        :func:`~privcut.graph.arrays.read_adjacency`, never through NetworkX.
    epsilon, delta : float
        The privacy budget (``"paper"`` needs delta > 0).
    idc : {"frieze-kannan", "multiplicative-weights", "median"}
        Frieze–Kannan keeps its hypothesis factored (cost per query
        O(updates x |V|) plus a sparse product with G's CSR adjacency, O(|V| + |E|);
        memory O(updates x |V| + |E|), nothing |V| x |V|); multiplicative weights keeps
        a distribution over the vertex pairs and the median construction is for tiny
        graphs only: both refuse graphs of more than
        :data:`~privcut.graph.limits.DENSE_NODES` nodes (a ValueError from the public
        node count, before any budget is spent) and name ``idc="frieze-kannan"``.
    max_queries : int, default 10_000
    max_edges : float, optional
        A public upper bound on the number of edges.
    start : {"measured", "density"}, optional
        The starting hypothesis: the measured degree-corrected block model
        (:mod:`privcut.graph.start`; the default for Frieze–Kannan, and only for it) or
        the noisy constant density (the default for the other constructions).
    start_share : float, default :data:`~privcut.graph.start.START_SHARE`
        With ``start="measured"``: the share of epsilon the start spends.
    groups : mapping node -> group, or "private", optional
        With ``start="measured"``: a public partition of the nodes (every node one group),
        whose block-pair edge counts the start measures; or ``"private"`` (undirected
        graphs): a partition bought from the start's share first
        (:data:`~privcut.graph.start.PRIVATE_GROUPS`).
    count_share : float, optional
        With ``start="density"``: the share of epsilon for the noisy edge count when
        ``max_edges`` is not given (default 0.1).
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
    weight : str or None, default None
        None (as ``networkx.cut_size``): every edge counts 1, weight attributes are
        ignored. An attribute name: read it; each edge's value must be 0 or 1 (a weight-0
        edge is no edge).
    nodes : sequence of hashable, optional
        Only with a sparse G (refused for a NetworkX graph, which has its own): the public
        labels of its rows, one per row, distinct; default ``range(n)``. Kept in the
        given order, which is public (the state file records it, and :meth:`load` reads
        G's rows in it). It must not follow the edges (e.g. the order in which nodes
        first appear in an edge list): sort the labels, or use a fixed public order.
        Saving needs str or int labels.
    directed : bool, optional
        Only with a sparse G: the public declaration that it is directed (default False:
        G must then be symmetric); never inferred from G.
    rng : None, int or numpy.random.Generator
    sparse_vector : type, default SparseVector
        The class that runs Algorithm 1's data-touching loop
        (:class:`~privcut.linear.online.SparseVector`): a testing hook for privacy audits
        (:func:`~privcut.linear.online.check_sparse_vector`). Keep the default: the
        privacy claim above holds for it only.

    Notes
    -----
    The state file is secret: it holds the current threshold draw of the sparse
    vector and the comparison draws made ahead (up to ``NOISE_CHUNK``) in clear, and
    whoever knows them learns from each "no update" answer whether the private gap
    exceeded a known number, and from the next update its exact answer, which the
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

    A sparse adjacency, here directed with public labels:

    >>> import scipy.sparse as sp
    >>> A = sp.csr_array([[0, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0]])
    >>> oracle = CutOracle(A, 1.0, 1e-6, nodes=("a", "b", "c", "d"), directed=True, rng=0)
    >>> oracle.universe.nodes, oracle.sensitivity
    (('a', 'b', 'c', 'd'), 1.0)
    >>> isinstance(oracle.cut({"a", "b"}, {"c", "d"}), float)
    True
    """

    def __init__(
        self,
        G: nx.Graph | sp.sparray | sp.spmatrix,
        epsilon: float,
        delta: float = 0.0,
        *,
        idc: str = "frieze-kannan",
        max_queries: int = 10_000,
        max_edges: float | None = None,
        start: str | None = None,
        start_share: float = START_SHARE,
        groups: Mapping[Hashable, Hashable] | str | None = None,
        count_share: float | None = None,
        alpha: float | None = None,
        beta: float = 0.05,
        calibration: str = "tight",
        path: str | Path | None = None,
        key_path: str | Path | None = None,
        weight: str | None = None,
        nodes: Sequence[Hashable] | None = None,
        directed: bool | None = None,
        rng: RandomState = None,
        sparse_vector: type[SparseVector] = SparseVector,
    ) -> None:
        self.epsilon, self.delta, self.beta = (
            check_epsilon(epsilon),
            check_delta(delta),
            check_beta(beta),
        )
        self.max_queries = check_scalar(max_queries, "max_queries", int)
        self.idc_name = check_option(idc, "idc", IDCS)
        check_option(calibration, "calibration", CALIBRATIONS)
        if calibration == "paper" and self.delta <= 0.0:  # public: before the noisy count
            raise ValueError(
                "calibration='paper' is Algorithm 1, which needs delta > 0 (its sigma has "
                "log(4/delta)); use calibration='tight' for delta = 0"
            )
        sparse_vector = check_sparse_vector(sparse_vector)
        if max_edges is not None:
            max_edges = check_positive(max_edges, "max_edges")
        if alpha is not None:
            alpha = check_positive(alpha, "alpha")
        self.start_name = _check_start(start, self.idc_name, count_share, groups)
        start_share = check_share(start_share, "start_share")
        count_epsilon = 0.0
        if max_edges is None and self.start_name == "density":
            share = 0.1 if count_share is None else check_share(count_share, "count_share")
            count_epsilon = _count_epsilon(self.epsilon, share)
        self.universe, self._adjacency, edges = private_adjacency(
            G, weight, "CutOracle", nodes=nodes, directed=directed
        )
        if self.idc_name != "frieze-kannan":  # before the noisy count: public n only
            check_dense_idc(self.idc_name, self.universe.n)
        if groups == "private" and self.universe.directed:
            raise ValueError(
                'groups="private" finds communities of an undirected graph; give public groups'
            )
        if groups is not None and groups != "private":  # a partition, before any spend
            Partition.of(self.universe, groups)
        self.weight, self.path = weight, None if path is None else Path(path)
        self.sensitivity = float(self.universe.multiplicity)
        start_epsilon = self._start_epsilon(start_share, count_epsilon, alpha, calibration)
        generator = check_random_state(rng)
        self.start: MeasuredStart | None = None
        if self.start_name == "measured":
            self.start = measure_start(
                self._adjacency,
                self.universe,
                start_epsilon,
                beta / 4.0,
                max_edges=max_edges,
                groups=groups,
                rng=generator,
            )
            self.edges = self.start.edges
        else:
            count_beta = beta / 4.0 if max_edges is None else 0.0
            self.edges = EdgeBounds.measure(edges, max_edges, count_epsilon, count_beta, generator)
        self._setup(alpha, calibration, generator, sparse_vector)
        self._bind(None, key_path, autosave=self.path is not None)
        if self.path is not None:
            self.save(self.path)  # the spent budget is on disk before the first answer

    def _start_epsilon(
        self, start_share: float, count_epsilon: float, alpha: float | None, calibration: str
    ) -> float:
        """The measured start's epsilon (0 for the density start), after refusing an alpha
        that no calibration can meet (:func:`~privcut.linear.online.check_alpha`) from the
        public budget left to the calibration (see :meth:`_calibrated`), before any spend."""
        start_epsilon = 0.0
        if self.start_name == "measured":
            start_epsilon = exact_split(self.epsilon, (start_share, 1.0 - start_share))[0]
        spent = start_epsilon + count_epsilon
        check_alpha(
            alpha,
            self.epsilon - spent,
            self.delta,
            max_queries=self.max_queries,
            beta=self.beta - (self.beta / 4.0 if spent > 0.0 else 0.0),
            calibration=calibration,
            sensitivity=self.sensitivity,
        )
        return start_epsilon

    def _make_idc(self, calibrated: Calibration):
        """The hypothesis for ``calibrated``: Frieze–Kannan with the degree-keeping update
        under the composed analysis (which counts no updates, see
        :class:`~privcut.graph.hypotheses.FactoredFriezeKannan`) from a measured start
        (whose degrees are measured) on an undirected graph; the additive step otherwise
        (a density start's degrees are all equal, or zero from a public ``max_edges``)."""
        keep_degrees = (
            calibrated.composed
            and self.start is not None
            and not self.universe.directed
            and self.universe.n >= 3
        )
        return pair_hypothesis(
            self.idc_name,
            self.universe,
            calibrated.alpha_idc / self.sensitivity,
            self.edges,
            self.max_queries,
            self.start,
            keep_degrees,
        )

    def _setup(self, alpha, calibration, generator, sparse_vector: type[SparseVector]) -> None:
        self._requested_alpha = alpha
        calibrated = self._calibrated(alpha, calibration)
        self.idc = self._make_idc(calibrated)
        self._engine = sparse_vector(calibrated, self.max_queries, generator)

    def _calibrated(self, alpha: float | None, calibration: str) -> Calibration:
        """The calibration from public values only: the budget less the start's share (the
        exact remainder) or the noisy count's, and beta less the quarter of it their
        intervals take (none for a public ``max_edges`` and the density start)."""
        if self.start is None:
            count_beta = 0.0 if self.edges.estimate is None else self.beta / 4.0
            epsilon, beta, potential = (
                self.epsilon - self.edges.epsilon,
                self.beta - count_beta,
                None,
            )
            prior_tv = 0.0 if self.edges.noise is None else self.edges.noise.tv_bound(1)
        else:
            epsilon = self.epsilon - self.start.epsilon  # exact (exact_split)
            beta, potential = self.beta - self.beta / 4.0, self.start.potential
            prior_tv = self.start.sampler_tv
        return _calibrate(
            self.idc_name,
            self.universe.size,
            self.sensitivity,
            self.edges,
            self.max_queries,
            epsilon,
            self.delta,
            beta,
            calibration,
            alpha,
            potential,
            prior_tv,
            self.epsilon,
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
        count_noise = self.edges.noise
        tv = 0.0 if count_noise is None else count_noise.tv_bound(1)
        if self.start is not None:  # its measurements include the count
            tv = self.start.sampler_tv
        return tv + self._engine.sampler_tv(self.sensitivity)

    @property
    def effective_delta(self) -> float:
        """The delta the transcript so far guarantees with the integer samplers' distance
        from exact: ``delta' + (1 + e**epsilon) * sampler_tv``, where ``delta'`` is
        ``delta`` less the composed analysis's
        :attr:`~privcut.linear.online.Calibration.sampler_reserve` (``delta`` for the
        other calibrations). Under the composed analysis with a reserve it is at most
        ``delta`` while every answer is an integer query's (cuts, rank-1 queries with
        integer weights); fractional queries' grid noise adds to it."""
        reserve = self._engine.calibration.sampler_reserve
        return effective_delta(self.epsilon, self.delta - reserve, self.sampler_tv)

    def status(self) -> OracleStatus:
        """The oracle's public facts now, as an :class:`OracleStatus` (its ``to_dict()`` is
        plain data, e.g. for JSON).

        Examples
        --------
        >>> oracle = CutOracle(nx.path_graph(6), 1.0, 1e-6, max_queries=10, rng=0)
        >>> _ = oracle.cut([0, 1, 2], [3, 4, 5])
        >>> status = oracle.status()
        >>> status.queries_answered, status.idc, status.weight
        (1, 'frieze-kannan', None)
        """
        with self._lock:
            return OracleStatus(
                mechanism="CutOracle (GRU12 Algorithm 1)",
                epsilon=self.epsilon,
                delta=self.delta,
                sampler_tv=self.sampler_tv,
                effective_delta=self.effective_delta,
                beta=self.beta,
                alpha=self.alpha,
                idc=self.idc_name,
                calibration=self.calibration,
                weight=self.weight,
                sensitivity=self.sensitivity,
                max_queries=self.max_queries,
                queries_answered=self.queries_answered,
                updates=self.updates,
                max_updates=self.max_updates,
                exhausted=self.exhausted,
                edges=self.edges,
                start=self.start_name,
                potential=self._potential(),
                spends=self._spends(),
            )

    def _potential(self) -> float | None:
        if self.idc_name != "frieze-kannan":
            return None
        if self.start is not None:
            return self.start.potential
        return self.edges.frieze_kannan_start(self.universe.size)[1]

    def _spends(self) -> tuple[Spend, ...]:
        """Every part of epsilon, named, in the order spent."""
        if self.start is not None:
            spent = tuple(
                Spend(s.name, s.epsilon / self.epsilon, s.epsilon, s.noise, s.scale, s.sensitivity)
                for s in self.start.spends
            )
        elif self.edges.epsilon:
            noise = self.edges.noise
            share = self.edges.epsilon / self.epsilon
            spent = (Spend("edge-count", share, self.edges.epsilon, noise.kind, noise.scale, 1.0),)
        else:
            spent = ()
        calibration = self._engine.calibration
        noise = calibration.comparison
        return (
            *spent,
            Spend(
                "sparse-vector",
                calibration.epsilon / self.epsilon,
                calibration.epsilon,
                noise.kind,
                noise.scale,
                self.sensitivity,
            ),
        )

    def cut(self, S: Iterable[Hashable], T: Iterable[Hashable]) -> float:
        """The (noisy or hypothesis) answer to ``G(S, T) = sum_{s in S, t in T} A[s, t]``."""
        S, T = check_node_set(S, "S"), check_node_set(T, "T")
        return self._answer(self.universe.indicator(S), self.universe.indicator(T))

    def cuts(
        self,
        queries: Sequence[tuple[Iterable[Hashable], Iterable[Hashable]]]
        | tuple[np.ndarray | sp.sparray, np.ndarray | sp.sparray],
    ) -> np.ndarray:
        """The answers to a batch of cut queries, exactly as :meth:`cut` would give them one
        by one in order: the same noise draws, accounting, updates, state saves and
        warnings (one :class:`~privcut.linear.online.OracleExhaustedWarning` per batch
        rather than per answer).

        Privacy: as :meth:`cut`, query by query (the class's guarantee covers the whole
        transcript); only the computation is batched. The hypothesis is evaluated on a
        block of queries at once (the block's indicator matrix times its factors) and,
        after an update, re-evaluated on the block's remaining queries; the block's true
        answers (``rowsum((S A) * T)``) are read at once, after its first query is counted
        in the state's record, and are never released; the sparse vector's comparisons
        and updates run in query order, each query counted before its comparison and the
        state saved before its answer is kept. If a count or save fails, the oracle stops.

        Parameters
        ----------
        queries : sequence of (S, T) pairs, or a pair of (q, |V|) 0/1 arrays
            Either node collections (as :meth:`cut`'s S and T), or the public indicator
            matrix form ``(S, T)``: two NumPy or ``scipy.sparse`` arrays of one shape
            ``(q, |V|)`` with entries 0 or 1, row j holding query j's sides with columns
            in the order of ``.universe.nodes``. An empty batch gives an empty array,
            reading and spending nothing.

        Returns
        -------
        numpy.ndarray
            The q answers, float, in query order.

        Raises
        ------
        TypeError, KeyError, ValueError
            For a malformed batch, a side that is not a collection of labels, an unknown
            node or a matrix that is not 0/1 of shape ``(q, |V|)``: naming the query,
            before anything is read or spent.
        PrivcutError
            If the oracle is stopped or closed, or when a query's record or state cannot
            be written mid-batch (the oracle then stops): the message says how many
            queries were answered, and the error's ``answers`` attribute holds their
            answers (a function of the noise and the public queries only).

        Notes
        -----
        Queries go in blocks of b = min(256, 2**22 / |V|). Per block: O(b x updates x |V|)
        to evaluate its hypotheses, again for its remaining queries after each update in
        it; for its true answers, once one of them is answered from the data, O(b x |V|
        + d) with d the sum of the degrees of the block's S sides when d <= b x nnz(A) / 4
        (small sides: their adjacency rows are gathered and looked up in T), else
        O(b x (|V| + |E|)) (a dense (b, |V|) indicator block times G's sparse adjacency).
        Labels: one dict lookup each, or, for 1-D integer NumPy arrays of a graph whose
        labels are ints, one vectorised lookup per batch. Memory O(b x (|V| + updates) +
        |E| + d), nothing |V| x |V|.
        Once exhausted (mid-batch or before), the remaining answers come from the
        hypothesis alone, as with :meth:`cut`.

        Examples
        --------
        >>> G = nx.gnp_random_graph(30, 0.5, seed=1)
        >>> oracle = CutOracle(G, 1.0, 1e-6, max_queries=100, rng=0)
        >>> queries = [(range(15), range(15, 30)), ({0, 1}, {2, 3, 4})]
        >>> answers = oracle.cuts(queries)
        >>> exact = [nx.cut_size(G, S, T) for S, T in queries]
        >>> answers.shape, bool(np.all(np.abs(answers - exact) <= oracle.alpha))
        ((2,), True)
        >>> oracle.queries_answered
        2
        """
        S, T = self._batch(queries)
        return self._answer_batch(S, T)

    def _batch(self, queries: object) -> tuple[sp.csr_array, sp.csr_array]:
        """The batch's (q, n) 0/1 indicator matrices, checked before anything is read."""
        if _is_matrix_pair(queries):
            if queries[0].shape != queries[1].shape:
                raise ValueError(
                    f"queries (S, T) must have one shape (q, n), got {queries[0].shape} and "
                    f"{queries[1].shape}"
                )
            n = self.universe.n
            return _indicator_matrix(queries[0], "S", n), _indicator_matrix(queries[1], "T", n)
        if isinstance(queries, (str, bytes, Mapping)) or not isinstance(queries, Iterable):
            raise TypeError(
                "queries must be a sequence of (S, T) pairs of node collections, or a pair "
                f"of (q, n) 0/1 indicator arrays, got {type(queries).__name__}; e.g. "
                "queries=[({0, 1}, {2, 3})]"
            )
        labels = _Labels(self.universe)
        try:
            for j, query in enumerate(queries):
                if (
                    type(query) not in (tuple, list)
                    and (isinstance(query, (str, bytes)) or not isinstance(query, Sequence))
                ) or len(query) != 2:
                    raise TypeError(
                        f"queries[{j}] must be a pair (S, T) of node collections, got "
                        f"{type(query).__name__}; e.g. ({{0, 1}}, {{2, 3}})"
                    )
                labels.add(j, "S", query[0])
                labels.add(j, "T", query[1])
        except (KeyError, TypeError):
            labels.check()  # an earlier query's unknown node is reported first
            raise
        return labels.matrices()

    def _answer_batch(self, S: sp.csr_array, T: sp.csr_array) -> np.ndarray:
        self._owner.check()
        with self._lock:
            if self._stopped:
                raise PrivcutError(self._stopped)
            q = S.shape[0]
            answers = np.empty(q)
            size = _block_size(self.universe.n)
            done = 0  # answered through the sparse vector, in order
            while done < q and not self._engine.exhausted:
                block = slice(done, min(q, done + size))
                done += self._answer_block(S[block], T[block], answers, done)
            if done < q:  # exhausted before or during the batch: the hypothesis alone
                warn_exhausted()
                for start in range(done, q, size):
                    block = slice(start, min(q, start + size))
                    answers[block] = self.idc.evaluate_many(S[block], T[block])
            return answers

    def _answer_block(
        self,
        S: sp.csr_array,
        T: sp.csr_array,
        answers: np.ndarray,
        start: int,
    ) -> int:
        """Answer the block of queries ``start, start + 1, ...`` (the rows of S and T) in
        order into ``answers`` while the oracle is not exhausted; return how many were
        answered. The block's true answers are read after its first query is counted.

        The hypothesis's answers are evaluated ahead in runs: the whole block at first,
        after an update :data:`RERUN` rows, doubling while no update comes, so that an
        update costs O(RERUN x updates x |V|) of re-evaluation, not the block's."""
        q = S.shape[0]
        hypotheses, ahead, run = np.empty(q), 0, q
        truths = None
        sizes = np.asarray(S.sum(axis=1)).ravel() * np.asarray(T.sum(axis=1)).ravel()
        n = self.universe.n
        for i in range(q):
            if self._engine.exhausted:
                return i
            if i >= ahead:
                ahead = min(q, i + run)
                hypotheses[i:ahead] = self.idc.evaluate_many(S[i:ahead], T[i:ahead])
                run = min(2 * run, q)
            try:
                self._commit("no data were read for it, " if truths is None else "")
                if truths is None:
                    truths = _true_answers(S, T, self._adjacency)
                value, updated = self._engine.step(
                    lambda i=i, truths=truths: float(truths[i]),
                    float(hypotheses[i]),
                    integer=True,  # 0/1 indicators
                    sensitivity=self.sensitivity,
                    error=float_sum_error(2 * n, float(sizes[i])),  # public, as in cut
                )
                if updated:
                    u, v = S[[i]].toarray().ravel(), T[[i]].toarray().ravel()
                    self.idc.update((u, v), value)
                    ahead, run = i + 1, RERUN  # the rest is evaluated again, in runs
                self._persist()
            except PrivcutError as error:
                given = start + i
                stopped = PrivcutError(
                    f"{error} (at query {given} of a batch of {answers.size}: {given} were "
                    "answered, their answers are in this error's .answers)"
                )
                stopped.answers = answers[:given].copy()
                raise stopped from error
            answers[start + i] = value
        return S.shape[0]

    def rank1(self, u: Mapping[Hashable, float], v: Mapping[Hashable, float]) -> float:
        """The answer to the rank-1 query ``u^T A v`` (u, v: mappings node -> [0, 1]).

        A query with a non-integer weight has its noisy answer released on a public
        power-of-two grid with discrete noise in grid units of the same privacy (integer
        noise would leave the answer's fractional part exact, and float noise its low
        bits, Mironov 2012; :meth:`~privcut.privacy.Noise.on_grid`); 0/1 weights get
        integer noise."""
        return self._answer(self.universe.weights(u, "u"), self.universe.weights(v, "v"))

    def _answer(self, u: np.ndarray, v: np.ndarray) -> float:
        self._owner.check()
        with self._lock:
            if self._stopped:
                raise PrivcutError(self._stopped)
            hypothesis = self.idc.evaluate((u, v))
            if self._engine.exhausted:
                warn_exhausted()
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

    def _commit(self, unread: str = "no data were read, ") -> None:
        """Before the data are read: count this query in the record (a fixed-size write,
        whose success does not depend on the data), so that a state not saved after it
        is refused; if that fails, the oracle stops. ``unread`` is the error message's
        note that nothing was read (:meth:`cuts` reads a block's data at once)."""
        if self._store is None:
            return
        try:
            self._store.advance(dict(self._spent(), queries_answered=self.queries_answered + 1))
        except OSError as error:
            self._stopped = "the oracle stopped: its record could not be written"
            raise PrivcutError(
                f"could not record the query in {self._store.record_path} ({error}); {unread}"
                "no answer is given, and the oracle stops"
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
            "weight": self.weight,
            "edges": self.edges.to_dict(),
            "start": None if self.start is None else self.start.to_dict(),
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
        G: nx.Graph | sp.sparray | sp.spmatrix,
        *,
        rng: RandomState = None,
        autosave: bool = True,
        key_path: str | Path | None = None,
        weight: str | None = None,
        nodes: Sequence[Hashable] | None = None,
        directed: bool | None = None,
        sparse_vector: type[SparseVector] = SparseVector,
    ) -> CutOracle:
        """Resume a saved oracle on the same private graph G (same node set), read with the
        same ``weight`` as when it was made (a state saved with another is refused; files
        from before the ``weight`` argument record none and accept any). ``sparse_vector``
        is the class's testing hook for privacy audits: keep the default.

        G may be a NetworkX graph (whatever the oracle was made from) or a square
        ``scipy.sparse`` adjacency. For an array, ``nodes`` (its rows' labels) and
        ``directed`` default to those the state records, so the array of an oracle made
        from one is passed as it was; labels given in another order are matched by label
        (G read in that order). Both are refused for a NetworkX G.

        The budget, counters, threshold noise and hypothesis continue exactly; new noise
        comes from ``rng``. The resumed oracle holds the state file until closed. With
        ``autosave`` it saves to ``path`` before every answer; without, answers
        outdate the file until the next :meth:`save`. A missing key, a corrupt,
        altered, rolled-back, foreign or locked file, a calibration that its public
        parameters do not give, or a graph with another node set, raises
        :class:`~privcut.exceptions.PrivcutError`.
        """
        sparse_vector = check_sparse_vector(sparse_vector)
        store, state, spent = StateFile.open(path, FORMAT, key_path)
        declared = {"nodes": nodes, "directed": directed}
        try:
            oracle = cls._restore(
                state, spent, store.path, (G, declared), weight, rng, sparse_vector
            )
        except BaseException:
            store.close()
            raise
        oracle.path = store.path
        oracle._bind(store, store.key_path, autosave=autosave)
        return oracle

    @classmethod
    def _restore(
        cls,
        state: dict,
        spent: dict,
        path: Path,
        graph: tuple,
        weight: str | None,
        rng: RandomState,
        sparse_vector: type[SparseVector],
    ) -> CutOracle:
        """The saved oracle on ``graph`` (G and its declarations), its sparse vector
        restored as a ``sparse_vector`` with ``rng``."""
        nodes, directed = _saved_nodes(state, path)
        if "weight" in state and state["weight"] != weight:
            raise PrivcutError(
                f"{path}: saved for weight={state['weight']!r}, not weight={weight!r}; "
                f"load it with weight={state['weight']!r}"
            )
        universe, adjacency = _saved_order(nodes, directed, path, *graph, weight)
        try:
            oracle = cls.__new__(cls)
            oracle.universe, oracle._adjacency = universe, adjacency
            oracle.epsilon = check_epsilon(state["epsilon"])
            oracle.delta = check_delta(state["delta"])
            oracle.beta = check_beta(state["beta"])
            oracle.idc_name = check_option(state["idc"], "idc", IDCS)
            oracle.edges = EdgeBounds.from_dict(state["edges"], oracle.epsilon)
            oracle.start = _saved_start(state["start"], oracle)
            oracle.start_name = "density" if oracle.start is None else "measured"
            oracle.weight, oracle.sensitivity = weight, float(oracle.universe.multiplicity)
            engine = state["engine"]
            oracle.max_queries = check_scalar(engine["max_queries"], "max_queries", int)
            oracle._engine = _checked_engine(
                oracle, state["alpha"], engine, spent, rng, sparse_vector
            )
            oracle._requested_alpha = state["alpha"]
            calibrated = oracle._engine.calibration
            oracle.idc = oracle._make_idc(calibrated)
            oracle.idc.restore(state["hypothesis"], oracle.updates)
        except (KeyError, TypeError, ValueError) as error:
            raise PrivcutError(f"{path}: malformed oracle state ({error})") from None
        return oracle


def _check_start(start: object, idc: str, count_share: object, groups: object) -> str:
    """The start's name (default: measured for Frieze–Kannan, density otherwise), checked
    against the options that go with it, from public arguments only."""
    default = "measured" if idc == "frieze-kannan" else "density"
    name = default if start is None else check_option(start, "start", STARTS)
    if name == "measured" and idc != "frieze-kannan":
        raise ValueError(
            f"start='measured' is a factored start for idc='frieze-kannan', not idc={idc!r}; "
            "use start='density' (the default for it)"
        )
    if name == "measured" and count_share is not None:
        raise ValueError(
            "count_share is the density start's share; the measured start spends start_share "
            "(its edge count included): pass start_share, or start='density'"
        )
    if name == "density" and groups is not None:
        raise ValueError("groups= is read by start='measured' only; drop it or use that start")
    return name


def _saved_start(saved: object, oracle: CutOracle) -> MeasuredStart | None:
    """A saved measured start, checked against the oracle's public facts (ValueError)."""
    if saved is None:
        return None
    universe = oracle.universe
    start = BlockStart.from_dict(saved["start"], universe.n, universe.directed)
    spends = tuple(Spend(**spend) for spend in saved["spends"])
    keys = ("epsilon", "potential", "deviation", "sampler_tv")
    epsilon, potential, deviation, tv = (float(saved[key]) for key in keys)
    if not (0.0 < epsilon < oracle.epsilon) or math.fsum(s.epsilon for s in spends) != epsilon:
        raise ValueError("the start's spends do not add up to its epsilon, below the budget's")
    if not (math.isfinite(potential) and potential >= 0.0 and 0.0 <= tv):
        raise ValueError("the start's potential and sampler bound must be finite and >= 0")
    return MeasuredStart(start, oracle.edges, potential, deviation, spends, epsilon, tv)


def _saved_nodes(state: dict, path: Path) -> tuple[tuple, bool]:
    """The node labels (in their saved order) and the kind a state was saved for."""
    try:
        nodes, directed = tuple(state["nodes"]), state["directed"]
        if len(set(nodes)) != len(nodes) or not isinstance(directed, bool):
            raise ValueError("nodes must be distinct labels and directed true or false")
    except (KeyError, TypeError, ValueError) as error:
        raise PrivcutError(f"{path}: malformed oracle state ({error})") from None
    return nodes, directed


def _saved_order(
    nodes: tuple, directed: bool, path: Path, G, declared: dict, weight: str | None
) -> tuple[EdgeUniverse, sp.csr_array]:
    """The universe a state was saved for (``nodes``, ``directed``) and G's checked 0/1
    adjacency in its order.

    G must have the saved node set and kind. A sparse G's ``nodes`` and ``directed``
    default to the saved ones (a NetworkX G has its own, and refuses them); G is read in
    its own order (canonical, or the given labels') and permuted into the saved one,
    O(n + |E|)."""
    if is_array_graph(G):
        if declared["nodes"] is None and G.shape[0] != len(nodes):
            raise PrivcutError(
                f"{path}: saved for another node set ({len(nodes)} nodes) than G's "
                f"({G.shape[0]} rows)"
            )
        declared = {
            "nodes": nodes if declared["nodes"] is None else declared["nodes"],
            "directed": directed if declared["directed"] is None else declared["directed"],
        }
    universe, adjacency, _ = private_adjacency(G, weight, "CutOracle", **declared)
    if set(universe.nodes) != set(nodes) or universe.n != len(nodes):
        raise PrivcutError(f"{path}: saved for another node set than G's")
    if universe.directed is not directed:
        kind = "a DiGraph (directed=True)" if directed else "a Graph (directed=False)"
        raise PrivcutError(f"{path}: saved for {kind}")
    if universe.nodes == nodes:
        return universe, adjacency
    saved = EdgeUniverse(nodes, directed)
    position = universe.index()
    order = np.array([position[node] for node in nodes], dtype=np.intp)
    return saved, sp.csr_array(adjacency[order][:, order])


def _checked_engine(
    oracle: CutOracle, alpha, engine: dict, spent: dict, rng, sparse_vector: type[SparseVector]
) -> SparseVector:
    """The saved sparse-vector state, with its calibration recomputed from the public
    parameters (a different saved one is refused) and its counters checked, restored as
    a ``sparse_vector`` drawing from ``rng``."""
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
    result = sparse_vector.from_state(state, check_random_state(rng))
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
    released = answered if calibrated.answer is None else updates
    if isinstance(on_grid, bool) or not isinstance(on_grid, int) or not 0 <= on_grid <= released:
        raise ValueError("grid_draws must be an integer between 0 and the answers released")
    noise = calibrated.threshold_noise
    if (
        not isinstance(draw, (int, float))
        or not float(draw).is_integer()
        or (noise is None and draw != 0)
    ):
        raise ValueError("the threshold draw must be an integer (0 for the paper calibration)")
    pending = engine["pending"]
    if (
        not isinstance(pending, list)
        or len(pending) >= NOISE_CHUNK
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in pending)
    ):
        raise ValueError(f"the pending draws must be fewer than {NOISE_CHUNK} integers")
    return result


@lru_cache(maxsize=64)
def _calibrate(
    idc: str,
    m: int,
    sensitivity: float,
    edges: EdgeBounds,
    max_queries: int,
    epsilon: float,
    delta: float,
    beta: float,
    calibration: str,
    alpha: float | None,
    potential: float | None,
    prior_tv: float,
    whole_epsilon: float,
) -> Calibration:
    """Algorithm 1's calibration for a cut oracle: a function of public values only (cached,
    so that oracles on graphs with the same public description share it). ``potential``:
    the measured start's (None: the density start's, from ``edges``); ``prior_tv`` and
    ``whole_epsilon``: the start's (or noisy count's) samplers' distance from exact and the
    session's epsilon, for the composed analysis's reserve
    (:attr:`~privcut.linear.online.Calibration.sampler_reserve`)."""

    def bound(alpha: float) -> int:  # B(alpha) in answer units; the IDCs see alpha / D
        return update_bound(idc, m, alpha / sensitivity, edges, max_queries, potential)

    return calibrate(
        bound,
        epsilon,
        delta,
        max_queries=max_queries,
        beta=beta,
        calibration=calibration,
        sensitivity=sensitivity,
        alpha=alpha,
        scale=edges.upper,
        prior_tv=prior_tv,
        tv_epsilon=whole_epsilon,
    )


_COLLECTIONS = (set, frozenset, list, tuple, range, np.ndarray)
"""Types that :func:`~privcut.graph.cuts.check_node_set` accepts, checked by type alone."""


class _Labels:
    """A batch's sides as index rows, label by label through the universe's dict, or, for
    1-D integer NumPy arrays of int labels, through its integer index in one vectorised
    lookup per batch (:meth:`check`, done by :meth:`matrices`)."""

    def __init__(self, universe: EdgeUniverse) -> None:
        self.n, self.position = universe.n, universe.index()
        self.table = universe.integer_index()
        self.rows: tuple[list, list] = ([], [])  # per side: index lists or raw label arrays
        self.pending: list[tuple[int, str, np.ndarray]] = []  # the raw arrays, in order
        self.checked = 0  # how many of them are mapped

    def add(self, j: int, name: str, side: object) -> None:
        """Add query j's side ``name`` ("S" or "T"); TypeError or KeyError naming them
        (the caller runs :meth:`check` before passing them on, so that a pending earlier
        query's unknown node is reported first)."""
        if type(side) not in _COLLECTIONS:
            check_node_set(side, f"queries[{j}]: {name}")
        rows = self.rows[name == "T"]
        if (
            self.table is not None
            and type(side) is np.ndarray
            and side.ndim == 1
            and (side.dtype.kind == "i" or (side.dtype.kind == "u" and side.dtype.itemsize < 8))
        ):
            rows.append(len(self.pending))
            self.pending.append((j, name, side))
            return
        labels = side.tolist() if isinstance(side, np.ndarray) else side  # fast hashes
        try:
            rows.append(list(map(self.position.__getitem__, labels)))
        except KeyError as error:
            raise KeyError(f"queries[{j}]: node {error.args[0]!r} is not in the graph") from None
        except TypeError:
            raise TypeError(
                f"queries[{j}]: {name} must hold node labels (hashable), got an unhashable item"
            ) from None

    def check(self) -> None:
        """Map the pending label arrays to indices; KeyError naming the first unknown one."""
        if self.checked == len(self.pending):
            return
        arrays = [side for _, _, side in self.pending]
        labels = np.concatenate(arrays).astype(np.int64, copy=False)
        inside = (labels >= 0) & (labels < self.table.size)
        found = self.table[np.where(inside, labels, 0)]
        unknown = ~inside | (found < 0)
        if unknown.any():
            first = int(np.argmax(unknown))
            owner = int(np.searchsorted(np.cumsum([a.size for a in arrays]), first, "right"))
            j = self.pending[owner][0]
            raise KeyError(
                f"queries[{j}]: node {int(labels[first])!r} is not in the graph"
            ) from None  # raised first, or while another query's error is handled
        self.found, self.sizes = found, np.fromiter(map(len, arrays), np.intp, len(arrays))
        self.checked = len(self.pending)

    def matrices(self) -> tuple[sp.csr_array, sp.csr_array]:
        """The batch's (q, n) 0/1 indicator matrices."""
        self.check()
        return tuple(self._matrix(rows) for rows in self.rows)

    def _matrix(self, rows: list) -> sp.csr_array:
        """The (len(rows), n) 0/1 matrix with ones at each row's column indices (repeats
        once), in canonical form (sorted indices)."""
        if not self.pending:
            sizes = np.fromiter(map(len, rows), np.intp, len(rows))
            columns = np.fromiter(itertools.chain.from_iterable(rows), np.intp, int(sizes.sum()))
        elif all(type(row) is int for row in rows):  # all pending: gather from self.found
            which = np.array(rows, dtype=np.intp)
            sizes = self.sizes[which]
            ends = np.cumsum(sizes)
            starts = (np.cumsum(self.sizes) - self.sizes)[which]
            columns = self.found[np.arange(int(ends[-1])) + np.repeat(starts - ends + sizes, sizes)]
        else:
            offsets = np.cumsum(self.sizes) - self.sizes
            rows = [
                self.found[offsets[row] : offsets[row] + self.sizes[row]]
                if type(row) is int
                else np.asarray(row, dtype=np.intp)
                for row in rows
            ]
            sizes = np.fromiter(map(len, rows), np.intp, len(rows))
            columns = np.concatenate(rows)
            sizes = np.fromiter(map(len, rows), np.intp, len(rows))
            columns = np.fromiter(itertools.chain.from_iterable(rows), np.intp, int(sizes.sum()))
        indptr = np.zeros(len(rows) + 1, dtype=np.intp)
        np.cumsum(sizes, out=indptr[1:])
        matrix = sp.csr_array(
            (np.ones(columns.size), columns.astype(np.intp, copy=False), indptr),
            shape=(len(rows), self.n),
        )
        matrix.sum_duplicates()  # sorts each row's indices
        matrix.data[:] = 1.0
        return matrix


def _true_answers(S: sp.csr_array, T: sp.csr_array, adjacency: sp.csr_array) -> np.ndarray:
    """``rowsum((S A) * T)``: the exact cut sizes of the rows' queries (sums of integers,
    so equal to the last bit whatever the order of the sums).

    Small sides (the adjacency rows of all rows' S at most a quarter of q x nnz(A), as
    for small pairs) go through the sparse product ``S A`` masked by T,
    O(q x |V| + sum of S's degrees); larger ones through a dense (q, |V|) block,
    O(q x (|V| + |E|)). The choice, like either path's time, depends on S's degrees and
    |E|, which are private: the answers are equal either way, but the time an answer takes
    is not protected (as for any computation on the graph; keep response times out of
    what is published)."""
    total = int(np.diff(adjacency.indptr)[S.indices].sum())
    if 4 * total > S.shape[0] * adjacency.nnz:
        return np.einsum("jk,jk->j", S.toarray() @ adjacency, T.toarray())
    return np.asarray((S @ adjacency).multiply(T).sum(axis=1), dtype=float).ravel()


def _block_size(n: int) -> int:
    """How many queries :meth:`CutOracle.cuts` evaluates together: at most 256, and at most
    2**22 entries in a dense (block, n) array."""
    return max(1, min(256, 2**22 // max(n, 1)))


def _is_matrix_pair(queries: object) -> bool:
    """Whether a batch is the matrix form: a pair of 2-D NumPy or scipy.sparse arrays."""
    return (
        isinstance(queries, tuple)
        and len(queries) == 2
        and all(
            (isinstance(side, np.ndarray) or sp.issparse(side)) and side.ndim == 2
            for side in queries
        )
    )


def _indicator_matrix(side: np.ndarray | sp.sparray, name: str, n: int) -> sp.csr_array:
    """A (q, n) 0/1 indicator array as a float CSR array (ValueError otherwise)."""
    if side.shape[1] != n:
        raise ValueError(
            f"queries: {name} must have one column per node ({n}), got shape {side.shape}; columns "
            "follow the order of oracle.universe.nodes"
        )
    try:
        matrix = sp.csr_array(side, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"queries: {name} must be a 0/1 indicator array of numbers") from None
    if not np.all((matrix.data == 0.0) | (matrix.data == 1.0)):
        raise ValueError(f"queries: {name} must be a 0/1 indicator array (entries 0 or 1)")
    matrix.eliminate_zeros()
    return matrix


def _is_integer(weights: np.ndarray) -> bool:
    """Whether every answer to a query with these weights is an integer (on a 0/1 graph)."""
    return bool(np.all(weights == np.round(weights)))
