"""Synthetic graphs by iterative construction (GRU12 §7, Algorithm 3, Cor. 7.4).

Pairs an iterative database construction (Frieze–Kannan or multiplicative weights)
with a private distinguisher (Def. 7.1) that looks for a cut on which the current
hypothesis graph is wrong; :class:`privcut.linear.iterative.IterativeConstruction`
runs the rounds, checks each proposed cut with discrete Laplace noise and accounts
for the budget. The final hypothesis, clipped to [0, 1], is the synthetic graph.

Distinguishers (each returns a cut (S, T) as two 0/1 vectors):

``"power-method"``
    The noisy power method (Hardt & Price 2014) on ``A - H_t``: L iterations of
    ``y = (A - H_t) x + N(0, sigma^2 I)``, ``x = y / |y|``. Flipping one pair (i, j)
    changes ``A x`` by ``x_j e_i + x_i e_j``, of l2 norm at most
    ``sqrt(x_(1)^2 + x_(2)^2)`` (the two largest squared entries of the public unit
    vector x), so each iteration is ``Delta^2 / (2 sigma^2)``-zCDP (Gaussian mechanism,
    Bun & Steinke 2016) and the L of them are split to cost what one pure epsilon0
    access costs in zCDP, ``epsilon0^2 / 2``. The cut is rounded from the last
    iterate's signs (post-processing): (P, P) or (N, N) for a positive Rayleigh
    estimate, whichever has the larger ``(sum x)^2``, else (P, N).
``"exponential"``
    The exponential mechanism (sensitivity 2) over an explicit family: every pair of
    non-empty node sets for at most 8 nodes, else ``family_size`` random cuts drawn
    from the public randomness. F(epsilon) = 4 (ln |family| + ln(1/gamma)) / epsilon
    within the family.
``"noisy-graph"``
    Randomized response once (a budget share, discrete Laplace), then each round
    the worst cut of ``z - H_t`` by the cut-norm oracle: post-processing, so rounds
    cost only their check.
``"exact"``
    The cut-norm search on ``A - H_t`` itself (exact enumeration up to 20 nodes, else
    the better of the spectral and low-rank methods): not private, for research only;
    refused unless ``allow_nonprivate=True`` and labelled in the report.

Each is a :class:`Distinguisher` subclass; ``iterative_construction(distinguisher=...)``
takes its name or, for research on variants, a subclass (its class attributes declare
what it costs; the report labels it by its ``name`` and ``private``). The release's
report is a :class:`ConstructionRelease`. The hypotheses are those of
:mod:`privcut.graph.hypotheses`; this module's one job is the distinguishers and the
release built from their rounds.
"""

from __future__ import annotations

import itertools
import math
import time
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.exceptions import GraphInputError
from privcut.graph.arrays import SyntheticArray, edge_array, is_array_graph
from privcut.graph.cutnorm import cut_norm
from privcut.graph.hypotheses import (
    EdgeBounds,
    pair_hypothesis,
    private_adjacency,
    update_bound,
)
from privcut.graph.limits import check_dense_nodes
from privcut.graph.noisy import randomized_response
from privcut.graph.rounding import independent_rounding
from privcut.graph.timing import log_timings
from privcut.graph.universe import EdgeUniverse, multiplicity
from privcut.linear.iterative import ACCOUNTANTS, IterativeConstruction, check_accountant
from privcut.linear.size import check_share
from privcut.privacy import (
    check_beta,
    check_delta,
    check_epsilon,
    effective_delta,
    exponential_mechanism,
)
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_option, check_positive, check_scalar
from privcut.records import Bound, Record, SolverSummary

__all__ = [
    "DISTINGUISHERS",
    "ConstructionRelease",
    "Distinguisher",
    "DistinguisherCost",
    "DistinguisherInput",
    "ExactSearch",
    "Exponential",
    "NoisyGraphSearch",
    "PowerMethod",
    "RoundLog",
    "iterative_construction",
]

DISTINGUISHERS = ("power-method", "exponential", "noisy-graph", "exact")
IDCS = ("frieze-kannan", "multiplicative-weights")
ROUNDINGS = ("random", None)
SENSITIVITY = float(multiplicity(False))
"""A cut query's sensitivity on an undirected graph (an edge inside S n T counts twice)."""
POWER_ITERATIONS = 8
ALL_CUTS_UP_TO = 8
"""Largest graph whose every (S, T) the exponential distinguisher enumerates."""


def _indicator(n: int, members: np.ndarray) -> np.ndarray:
    vector = np.zeros(n)
    vector[members] = 1.0
    return vector


@dataclass(frozen=True)
class DistinguisherCost(Record):
    """What one distinguisher call costs (GRU12 Def. 7.1), and what it costs once.

    Attributes
    ----------
    private : bool
        False for the exact search (no guarantee at all).
    epsilon : float or None
        Pure epsilon per call (None for a zCDP-only call, or a non-private one).
    rho : float or None
        zCDP per call (None for a pure call).
    once : float
        Epsilon spent once before the rounds (the randomized response), else 0.
    iterations, candidates : int or None
        The power method's iterations; the exponential mechanism's family size.

    Examples
    --------
    >>> DistinguisherCost(True, 0.1, None, 0.0, None, 64).to_dict()["candidates"]
    64
    """

    private: bool
    epsilon: float | None
    rho: float | None
    once: float
    iterations: int | None
    candidates: int | None


@dataclass(frozen=True)
class DistinguisherInput:
    """What a distinguisher is built from: the universe, the private 0/1 adjacency (read
    only under the distinguisher's own privacy claim), the randomized response's budget,
    the exponential family's size and the release's generator.

    Examples
    --------
    >>> universe = EdgeUniverse((0, 1, 2), False)
    >>> data = DistinguisherInput(universe, sp.csr_array((3, 3)), 0.0, 10, None)
    >>> PowerMethod.build(data).n
    3
    """

    universe: EdgeUniverse
    adjacency: sp.csr_array
    rr_epsilon: float
    family_size: int
    generator: Any


class Distinguisher(ABC):
    """Base of the distinguishers: propose a cut (S, T), as two 0/1 vectors, on which the
    hypothesis looks wrong (GRU12 Def. 7.1).

    A subclass declares, as class attributes, its ``name``, whether it is ``private``,
    whether each call ``reads_data`` (a round then costs two data accesses, else one),
    whether it spends a ``randomized_response`` share once, whether it is ``zcdp_only``
    (Gaussian noise) and its integer samplers' ``sampler_tv``; it implements
    :meth:`build`, :meth:`cost` and ``__call__(hypothesis, epsilon0, generator)``.

    Examples
    --------
    >>> issubclass(PowerMethod, Distinguisher), PowerMethod.reads_data
    (True, True)
    """

    name: ClassVar[str] = ""
    private: ClassVar[bool] = True
    reads_data: ClassVar[bool] = True
    randomized_response: ClassVar[bool] = False
    zcdp_only: ClassVar[bool] = False
    sampler_tv: float = 0.0

    @classmethod
    @abstractmethod
    def build(cls, data: DistinguisherInput) -> Distinguisher:
        """The distinguisher for one release."""

    @abstractmethod
    def cost(self, epsilon0: float) -> DistinguisherCost:
        """Privacy cost of one call at per-access budget ``epsilon0``."""

    @abstractmethod
    def __call__(self, construction, epsilon0: float, generator) -> tuple:
        """A cut ``(u, v)`` (two 0/1 vectors) on which ``construction`` looks wrong."""


class PowerMethod(Distinguisher):
    """The noisy power method on ``A - H_t`` (see the module docstring); zCDP only.

    Examples
    --------
    >>> round(PowerMethod(sp.csr_array((3, 3)), 3).cost(0.2).rho, 6)
    0.02
    """

    name, zcdp_only = "power-method", True
    sampler_tv = 0.0  # continuous Gaussian noise (no integer sampler)
    # Floating point (Mironov 2012): the noisy vectors y are never released; the output is
    # two 0/1 sides read off signs and comparisons of them (post-processing that discards
    # every low-order bit). The float computation can differ from the exact-real one only
    # where a coordinate or comparison lands within rounding error of its boundary (an
    # event of tiny probability, not bounded formally here); no float value is released.

    def __init__(self, adjacency, n: int, iterations: int = POWER_ITERATIONS):
        self.adjacency, self.n, self.iterations = adjacency, n, iterations

    @classmethod
    def build(cls, data: DistinguisherInput) -> PowerMethod:
        """On the private adjacency, read only through the Gaussian steps."""
        return cls(data.adjacency, data.universe.n)

    def cost(self, epsilon0: float) -> DistinguisherCost:
        """Privacy cost of one call: Gaussian steps totalling epsilon0^2 / 2 zCDP."""
        return DistinguisherCost(True, None, epsilon0**2 / 2.0, 0.0, self.iterations, None)

    def __call__(self, construction, epsilon0: float, generator) -> tuple:
        H = construction.matrix()
        rho = epsilon0**2 / 2.0 / self.iterations
        x = generator.standard_normal(self.n)
        x /= np.linalg.norm(x)
        for _ in range(self.iterations):
            top_two = np.sort(x * x)[-2:].sum()
            sigma = math.sqrt(top_two) / math.sqrt(2.0 * rho)
            y = self.adjacency @ x - H @ x + generator.normal(0.0, sigma, self.n)
            rayleigh, x = float(x @ y), y / max(np.linalg.norm(y), 1e-300)
        positive, negative = x > 0, x < 0
        if rayleigh >= 0:
            side = positive if x[positive].sum() ** 2 >= x[negative].sum() ** 2 else negative
            return side.astype(float), side.astype(float)
        return positive.astype(float), negative.astype(float)


class Exponential(Distinguisher):
    """The exponential mechanism over a data-independent family of cuts.

    Examples
    --------
    >>> search = Exponential(sp.csr_array((3, 3)), 3, 10, None)
    >>> len(search.S)  # every pair of non-empty sides of 3 nodes
    49
    """

    name = "exponential"
    sampler_tv = 0.0  # no integer sampler (the Gumbel draws: see exponential_mechanism)

    def __init__(self, adjacency, n: int, family_size: int, generator):
        self.adjacency = adjacency
        if n <= ALL_CUTS_UP_TO:
            subsets = np.array(list(itertools.product((0.0, 1.0), repeat=n)))[1:]
            pairs = itertools.product(range(len(subsets)), repeat=2)
            first, second = (np.array(side) for side in zip(*pairs, strict=True))
            self.S, self.T = subsets[first], subsets[second]
        else:
            self.S = (generator.random((family_size, n)) < 0.5).astype(float)
            self.T = (generator.random((family_size, n)) < 0.5).astype(float)

    @classmethod
    def build(cls, data: DistinguisherInput) -> Exponential:
        """The family from the public randomness, scored on the private adjacency."""
        return cls(data.adjacency, data.universe.n, data.family_size, data.generator)

    def cost(self, epsilon0: float) -> DistinguisherCost:
        """Privacy cost of one call: the exponential mechanism, (epsilon0, 0)-DP."""
        return DistinguisherCost(True, epsilon0, None, 0.0, None, len(self.S))

    def F(self, epsilon: float, gamma: float) -> float:
        """Def. 7.1's F(epsilon) within the family: ``2 D (ln K + ln(1/gamma)) / epsilon``."""
        return 2.0 * SENSITIVITY * (math.log(len(self.S)) + math.log(1.0 / gamma)) / epsilon

    def __call__(self, construction, epsilon0: float, generator) -> tuple:
        H = construction.matrix()
        truth = np.einsum("kn,kn->k", self.S, (self.adjacency @ self.T.T).T)
        guess = np.einsum("kn,kn->k", self.S @ H, self.T)
        chosen = exponential_mechanism(np.abs(truth - guess), epsilon0, SENSITIVITY, rng=generator)
        return self.S[chosen], self.T[chosen]


class CutNormSearch(Distinguisher):
    """The worst cut of ``M - H_t`` by the cut-norm oracle, for a matrix M fixed before the
    rounds (so the rounds never read the data through it).

    Examples
    --------
    >>> issubclass(NoisyGraphSearch, CutNormSearch), CutNormSearch.reads_data
    (True, False)
    """

    reads_data = False

    def __init__(self, matrix: np.ndarray, epsilon: float = 0.0, sampler_tv: float = 0.0):
        self.matrix, self.epsilon, self.sampler_tv = matrix, epsilon, sampler_tv

    def __call__(self, construction, epsilon0: float, generator) -> tuple:
        found = cut_norm(self.matrix - construction.matrix(), certify=False, rng=generator)
        n = self.matrix.shape[0]
        return _indicator(n, found.S), _indicator(n, found.T)


class NoisyGraphSearch(CutNormSearch):
    """The cut-norm search on the randomized-response matrix (private: post-processing of
    one (rr_epsilon, 0)-DP release, GRU12 Lemma 6.1).

    Examples
    --------
    >>> NoisyGraphSearch(np.zeros((2, 2)), 0.5).cost(0.1).once
    0.5
    """

    name, randomized_response = "noisy-graph", True

    @classmethod
    def build(cls, data: DistinguisherInput) -> NoisyGraphSearch:
        """Randomized response once, on the 0/1 adjacency read (``rr_epsilon``), in the
        universe's node order."""
        noisy = randomized_response(data.universe, data.adjacency, data.rr_epsilon, data.generator)
        return cls(noisy.matrix, data.rr_epsilon, noisy.sampler_tv)

    def cost(self, epsilon0: float) -> DistinguisherCost:
        """Privacy cost of one call: none (post-processing of the randomized response,
        paid once)."""
        return DistinguisherCost(True, 0.0, None, self.epsilon, None, None)


class ExactSearch(CutNormSearch):
    """The cut-norm search on the adjacency itself: NOT private (research only).

    Examples
    --------
    >>> ExactSearch(np.zeros((2, 2))).cost(0.1).private
    False
    """

    name, private = "exact", False

    @classmethod
    def build(cls, data: DistinguisherInput) -> ExactSearch:
        """On the exact adjacency."""
        return cls(data.adjacency.toarray())

    def cost(self, epsilon0: float) -> DistinguisherCost:
        """Not private at all."""
        return DistinguisherCost(False, None, None, 0.0, None, None)


_BY_NAME = {cls.name: cls for cls in (PowerMethod, Exponential, NoisyGraphSearch, ExactSearch)}


@dataclass(frozen=True)
class RoundLog(Record):
    """One round of the release: the proposed cut (node labels), the check's noisy answer,
    the hypothesis's answer, and whether the hypothesis was updated.

    Examples
    --------
    >>> RoundLog((0,), (1, 2), 3.0, 1.0, True).to_dict()["T"]
    [1, 2]
    """

    S: tuple
    T: tuple
    noisy_answer: float
    hypothesis_answer: float
    updated: bool


@dataclass(frozen=True)
class ConstructionRelease(Record):
    """The report of :func:`iterative_construction` (``H.graph["privcut"]`` is its
    ``to_dict()``): public parameters and noisy outputs only.

    Attributes
    ----------
    mechanism : str
        Names the algorithm, and says NOT PRIVATE for the exact search.
    private : bool
    epsilon, delta : float
        The guarantee (epsilon ``inf`` when not private).
    sampler_tv, effective_delta : float
        The integer samplers' distance from exact (the edge count, every check, the
        randomized response) and ``delta + (1 + e**epsilon) * sampler_tv``.
    beta : float
        Failure probability of ``alpha``.
    weight : str or None
        The edge attribute read (None: unweighted).
    distinguisher : str
    distinguisher_cost_per_round : DistinguisherCost
    idc : str
    accountant : str
    alpha : float
        GRU12 Thm 7.3's accuracy, if the distinguisher finds cuts within alpha / 2 of the
        worst.
    cut_error_bound : Bound
        ``alpha`` clipped to ``trivial_bound`` (source ``"GRU12 Thm 7.3"`` or
        ``"edge counts"``).
    trivial_bound : float
        What every cut satisfies from public facts: twice the larger of G's edge count
        (its public or noisy upper bound) and the released graph's total weight.
    max_rounds, rounds, updates : int
        B(alpha / 2), the rounds run and the updates made.
    stopped_by_check : bool
        Whether a check passed before the rounds ran out.
    epsilon0 : float
        The per-access budget.
    solver : SolverSummary
        The rounds as a solver: objective the last round's ``|noisy - hypothesis|``,
        iterations the rounds, cuts the updates, converged ``stopped_by_check``.
    rounds_log : tuple of RoundLog
    budget : dict
        ``"edge count"``, ``"randomized response"`` (epsilons), ``"rounds"``
        ([epsilon, delta]), ``"per access epsilon0"``.
    cor74_alpha : float or None
        Cor. 7.4's accuracy for the exponential distinguisher with delta > 0, else None.

    Examples
    --------
    >>> H = iterative_construction(nx.path_graph(6), 1.0, 1e-6, distinguisher="noisy-graph", rng=0)
    >>> report = H.graph["privcut"]
    >>> report["cut_error_bound"]["bound"] <= report["trivial_bound"]
    True
    """

    mechanism: str
    private: bool
    epsilon: float
    delta: float
    sampler_tv: float
    effective_delta: float
    beta: float
    weight: str | None
    distinguisher: str
    distinguisher_cost_per_round: DistinguisherCost
    idc: str
    accountant: str
    alpha: float
    cut_error_bound: Bound
    trivial_bound: float
    max_rounds: int
    rounds: int
    updates: int
    stopped_by_check: bool
    epsilon0: float
    solver: SolverSummary
    rounds_log: tuple
    budget: dict
    cor74_alpha: float | None


def _check_options(G, distinguisher, idc, accountant, rounding, allow_nonprivate, delta, directed):
    """The distinguisher's class, after every option is checked (before any data access)."""
    if isinstance(distinguisher, type) and issubclass(distinguisher, Distinguisher):
        search = distinguisher
    else:
        search = _BY_NAME[check_option(distinguisher, "distinguisher", DISTINGUISHERS)]
    check_option(idc, "idc", IDCS)
    check_option(accountant, "accountant", ACCOUNTANTS)
    check_option(rounding, "rounding", ROUNDINGS)
    if not search.private and not allow_nonprivate:
        raise ValueError(
            f"distinguisher={search.name!r} reads the graph without noise: its output is NOT "
            "private. Pass allow_nonprivate=True for research runs"
        )
    if search.zcdp_only and (accountant != "zcdp" or delta == 0.0):
        raise ValueError(
            f"the {search.name} distinguisher adds Gaussian noise: it needs delta > 0 and "
            "accountant='zcdp'"
        )
    if (isinstance(G, nx.Graph) and G.is_directed()) or (
        is_array_graph(G) and isinstance(directed, (bool, np.bool_)) and directed
    ):
        raise GraphInputError("iterative_construction supports undirected graphs only")
    return search


def _budget(epsilon, max_edges, count_share, rr_share, search) -> tuple[float, float, float]:
    """``(count, randomized response, rounds)`` epsilons: basic composition of the three."""
    count_epsilon = (
        0.0 if max_edges is not None else check_share(count_share, "count_share") * epsilon
    )
    rr_epsilon = 0.0
    if search.randomized_response:
        rr_epsilon = check_share(rr_share, "rr_share") * (epsilon - count_epsilon)
    return count_epsilon, rr_epsilon, epsilon - count_epsilon - rr_epsilon


def iterative_construction(
    G: nx.Graph | sp.sparray | sp.spmatrix,
    epsilon: float,
    delta: float,
    *,
    distinguisher: str | type[Distinguisher] = "power-method",
    idc: str = "frieze-kannan",
    alpha: float | None = None,
    beta: float = 0.05,
    max_edges: float | None = None,
    count_share: float = 0.1,
    rr_share: float = 0.5,
    accountant: str = "zcdp",
    family_size: int = 1000,
    rounding: str | None = None,
    allow_nonprivate: bool = False,
    weight: str | None = None,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
    rng: RandomState = None,
) -> nx.Graph | SyntheticArray:
    """Release a synthetic graph by GRU12's Iterative Construction mechanism (Algorithm 3).

    Privacy: (epsilon, delta)-DP for edge-level neighbours (same public node set,
    one pair flipped), by basic composition of (i) a noisy edge count
    (``count_share`` of epsilon, discrete Laplace; skipped when ``max_edges`` is
    given), (ii) for ``"noisy-graph"``, randomized response (``rr_share`` of the
    rest), and (iii) the rounds: per round the distinguisher and a discrete Laplace
    check, each epsilon0-DP (or the zCDP equivalent), composed by ``accountant``
    (GRU12 Thm 7.2, or zCDP; :mod:`privcut.linear.iterative`). ``"exact"`` is not
    private.

    Accuracy: ``report["alpha"]`` (GRU12 Thm 7.3) holds with probability 1 - beta if
    the distinguisher finds cuts within ``alpha / 2`` of the worst (its F(epsilon0));
    the report records each round so that F can be measured.

    Cost: O(n^2) memory and O(n^2) per round (the hypothesis is checked and released as
    n x n pair weights): for small graphs, whatever the input's type.

    Parameters
    ----------
    G : networkx.Graph or scipy.sparse array
        The private 0/1 undirected graph; its node set is public. A square symmetric
        ``scipy.sparse`` adjacency (any format; row and column i are node ``nodes[i]``)
        is read in O(n + nnz) by :func:`~privcut.graph.arrays.read_adjacency`, never
        through NetworkX.
    epsilon, delta : float
        The budget.
    distinguisher : {"power-method", "exponential", "noisy-graph", "exact"} or class
        A name, or a :class:`Distinguisher` subclass (a research variant, labelled in
        the report by its ``name`` and ``private``).
    idc : {"frieze-kannan", "multiplicative-weights"}
    alpha : float, optional
        The accuracy target; default the smallest the checks allow.
    beta : float, default 0.05
    max_edges : float, optional
        A public bound on the edge count (else a noisy count is bought).
    count_share, rr_share : float
        Budget shares of the noisy count and of randomized response.
    accountant : {"zcdp", "paper"}
    family_size : int, default 1000
        Random cuts in the exponential distinguisher's family (graphs over 8 nodes).
    rounding : {None, "random"}
        ``None`` keeps the weights in [0, 1]; ``"random"`` draws each pair.
    allow_nonprivate : bool, default False
        Required for ``distinguisher="exact"``.
    weight : str or None, default None
        None (as ``networkx.cut_size``): every edge counts 1. An attribute name: read
        it; each value must be 0 or 1 (a weight-0 edge is no edge).
    nodes : sequence of hashable, optional
        Only with a sparse G (refused for a NetworkX graph, which has its own): the public
        labels of its rows, one per row, distinct; default ``range(n)``. Kept in the
        given order, which is public: the release and its rounds' cuts list nodes in it.
        It must not follow the edges (e.g. the order in which nodes first appear in an
        edge list), or the release reveals them: sort the labels, or use a fixed public
        order.
    directed : bool, optional
        Only with a sparse G: its public kind; True is refused (undirected graphs only).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    networkx.Graph or SyntheticArray
        The type of G: a ``networkx.Graph`` on G's nodes (in canonical order), or for a
        sparse G a :class:`~privcut.graph.arrays.SyntheticArray` (a CSR adjacency, rows in
        ``nodes`` order, ``.nodes`` the labels); either way with
        :class:`ConstructionRelease`'s ``to_dict()`` in ``H.graph["privcut"]``. The
        wall-clock time is not in the report (it grows with G's edge count); it is logged
        at DEBUG level on the ``privcut`` logger.

    Examples
    --------
    >>> G = nx.gnp_random_graph(40, 0.3, seed=1)
    >>> H = iterative_construction(G, 1.0, 1e-6, distinguisher="noisy-graph", rng=0)
    >>> report = H.graph["privcut"]
    >>> report["private"], report["rounds"] <= report["max_rounds"]
    (True, True)
    >>> A = nx.to_scipy_sparse_array(nx.path_graph(5))
    >>> H = iterative_construction(A, 1.0, 1e-6, nodes=("a", "b", "c", "d", "e"), rng=0)
    >>> type(H).__name__, H.nodes, H.graph["privcut"]["private"]
    ('SyntheticArray', ('a', 'b', 'c', 'd', 'e'), True)
    """
    epsilon, delta, beta = check_epsilon(epsilon), check_delta(delta), check_beta(beta)
    kind = _check_options(
        G, distinguisher, idc, accountant, rounding, allow_nonprivate, delta, directed
    )
    if max_edges is not None:
        max_edges = check_positive(max_edges, "max_edges")
    family_size = check_scalar(family_size, "family_size", int)
    count_epsilon, rr_epsilon, rounds_epsilon = _budget(
        epsilon, max_edges, count_share, rr_share, kind
    )
    check_accountant(rounds_epsilon, delta, accountant, 1 + kind.reads_data)
    started = time.perf_counter()
    universe, adjacency, count = private_adjacency(
        G, weight, "iterative_construction", nodes=nodes, directed=directed
    )
    # before the noisy count, public n only: the construction holds n x n matrices
    check_dense_nodes(universe.n, "iterative_construction", "synthetic_graph(method='sparse')")
    generator = check_random_state(rng)
    count_beta = beta / 4.0 if max_edges is None else 0.0
    edges = EdgeBounds.measure(count, max_edges, count_epsilon, count_beta, generator)
    search = kind.build(DistinguisherInput(universe, adjacency, rr_epsilon, family_size, generator))
    ic = IterativeConstruction(
        rounds_epsilon,
        delta,
        bound=lambda a: update_bound(idc, universe.size, a / SENSITIVITY, edges),
        sensitivity=SENSITIVITY,
        beta=beta - count_beta,
        accountant=accountant,
        accesses_per_round=2 if search.reads_data else 1,
        alpha=alpha,
    )
    hypothesis = pair_hypothesis(idc, universe, ic.alpha / 2.0 / SENSITIVITY, edges)
    passed = ic.run(
        lambda t: search(hypothesis, ic.epsilon0, generator),
        lambda query: float(query[0] @ (adjacency @ query[1])),
        hypothesis,
        generator,
    )
    H, released = _released_graph(universe, hypothesis, rounding, generator, is_array_graph(G))
    facts = _Facts(search, idc, ic, passed, edges, rr_epsilon, epsilon, delta, beta, weight)
    H.graph["privcut"] = _report(facts, universe, released).to_dict()
    log_timings("iterative_construction", time.perf_counter() - started, {})
    return H


def _released_graph(universe: EdgeUniverse, hypothesis, rounding, generator, array: bool):
    """The final hypothesis clipped to [0, 1] as a weighted graph, or each pair drawn with
    that probability (``rounding="random"``); and the released total weight. A
    :class:`~privcut.graph.arrays.SyntheticArray` if ``array``, else a NetworkX graph."""
    x = np.clip(hypothesis.matrix(), 0.0, 1.0)
    rows, columns = universe.pair_index()
    if rounding is None:
        values = x[rows, columns]
        chosen, weights, total = np.flatnonzero(values), values, float(values.sum())
    else:
        chosen = np.flatnonzero(independent_rounding(x, False, generator)[rows, columns])
        weights, total = None, float(chosen.size)
    if array:
        kept = None if weights is None else weights[chosen]
        matrix = edge_array(rows[chosen], columns[chosen], kept, universe.n, False)
        return SyntheticArray.of(matrix, universe.nodes, {}), total
    if weights is None:
        return universe.unweighted_graph(chosen), total
    return universe.graph(weights), total


@dataclass(frozen=True)
class _Facts:
    """What the report is made from (public parameters and the rounds' noisy outputs)."""

    search: Distinguisher
    idc: str
    ic: IterativeConstruction
    passed: bool
    edges: EdgeBounds
    rr_epsilon: float
    epsilon: float
    delta: float
    beta: float
    weight: str | None


def _sampler_tv(facts: _Facts) -> float:
    """Every integer draw: the edge count, each round's check, the search's own."""
    count_noise = facts.edges.noise
    return (
        (0.0 if count_noise is None else count_noise.tv_bound(1))
        + facts.ic.check.tv_bound(len(facts.ic.records))
        + facts.search.sampler_tv
    )


def _cor74_alpha(facts: _Facts, n: int) -> float | None:
    """GRU12 Cor. 7.4's accuracy for the exponential distinguisher (delta > 0)."""
    search, ic = facts.search, facts.ic
    if not isinstance(search, Exponential) or facts.delta == 0.0:
        return None
    gamma = ic.beta / (2.0 * ic.rounds)
    t_constant = search.F(ic.epsilon0, gamma) * ic.epsilon0
    return (
        2.0
        * (facts.edges.upper * math.log(1.0 / facts.delta)) ** 0.25
        * math.sqrt(n * t_constant / facts.epsilon)
    )


def _rounds_log(ic: IterativeConstruction, nodes: tuple) -> tuple[RoundLog, ...]:
    return tuple(
        RoundLog(
            tuple(nodes[i] for i in np.flatnonzero(record.query[0])),
            tuple(nodes[i] for i in np.flatnonzero(record.query[1])),
            record.noisy_answer,
            record.hypothesis_answer,
            record.updated,
        )
        for record in ic.records
    )


def _report(facts: _Facts, universe: EdgeUniverse, released: float) -> ConstructionRelease:
    search, ic, edges = facts.search, facts.ic, facts.edges
    last = ic.records[-1]
    sampler_tv = _sampler_tv(facts)
    trivial = universe.multiplicity * max(edges.upper, released)
    bound = min(Bound(ic.alpha, "GRU12 Thm 7.3"), Bound(trivial, "edge counts"))
    return ConstructionRelease(
        mechanism=(
            "iterative_construction (GRU12 Algorithm 3)"
            if search.private
            else "iterative_construction with the EXACT distinguisher: NOT PRIVATE"
        ),
        private=search.private,
        epsilon=facts.epsilon if search.private else math.inf,
        delta=facts.delta,
        sampler_tv=sampler_tv,
        effective_delta=effective_delta(facts.epsilon, facts.delta, sampler_tv),
        beta=facts.beta,
        weight=facts.weight,
        distinguisher=search.name,
        distinguisher_cost_per_round=search.cost(ic.epsilon0),
        idc=facts.idc,
        accountant=ic.accountant,
        alpha=ic.alpha,
        cut_error_bound=bound,
        trivial_bound=trivial,
        max_rounds=ic.rounds,
        rounds=len(ic.records),
        updates=sum(record.updated for record in ic.records),
        stopped_by_check=facts.passed,
        epsilon0=ic.epsilon0,
        solver=SolverSummary(
            objective=abs(last.noisy_answer - last.hypothesis_answer),
            iterations=len(ic.records),
            cuts=sum(record.updated for record in ic.records),
            converged=facts.passed,
        ),
        rounds_log=_rounds_log(ic, universe.nodes),
        budget={
            "edge count": edges.epsilon,
            "randomized response": facts.rr_epsilon,
            "rounds": [ic.epsilon, ic.delta],
            "per access epsilon0": ic.epsilon0,
        },
        cor74_alpha=_cor74_alpha(facts, universe.n),
    )
