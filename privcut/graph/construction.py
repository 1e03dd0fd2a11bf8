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
"""

from __future__ import annotations

import itertools
import math
import time

import networkx as nx
import numpy as np

from privcut.exceptions import GraphInputError
from privcut.graph.cutnorm import cut_norm
from privcut.graph.noisy import noisy_graph
from privcut.graph.oracle import (
    _edge_bounds,
    _FactoredFriezeKannan,
    _frieze_kannan_start,
    _PairConstruction,
    _private_adjacency,
)
from privcut.graph.rounding import independent_rounding
from privcut.graph.timing import log_timings
from privcut.linear.idc import MultiplicativeWeights
from privcut.linear.iterative import IterativeConstruction, check_accountant
from privcut.linear.size import check_share
from privcut.privacy import (
    Noise,
    check_beta,
    check_delta,
    check_epsilon,
    effective_delta,
    exponential_mechanism,
)
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_positive

__all__ = ["DISTINGUISHERS", "iterative_construction"]

DISTINGUISHERS = ("power-method", "exponential", "noisy-graph", "exact")
SENSITIVITY = 2.0
"""A cut query's sensitivity on an undirected graph (an edge inside S n T counts twice)."""
POWER_ITERATIONS = 8
ALL_CUTS_UP_TO = 8
"""Largest graph whose every (S, T) the exponential distinguisher enumerates."""


def _indicator(n: int, members: np.ndarray) -> np.ndarray:
    vector = np.zeros(n)
    vector[members] = 1.0
    return vector


class PowerMethod:
    """The noisy power method on ``A - H_t`` (see the module docstring); zCDP only."""

    name, private, reads_data = "power-method", True, True
    sampler_tv = 0.0  # continuous Gaussian noise (no integer sampler)
    # Floating point (Mironov 2012): the noisy vectors y are never released; the output is
    # two 0/1 sides read off signs and comparisons of them (post-processing that discards
    # every low-order bit). The float computation can differ from the exact-real one only
    # where a coordinate or comparison lands within rounding error of its boundary (an
    # event of tiny probability, not bounded formally here); no float value is released.

    def __init__(self, adjacency, n: int, iterations: int = POWER_ITERATIONS):
        self.adjacency, self.n, self.iterations = adjacency, n, iterations

    def cost(self, epsilon0: float) -> dict:
        """Privacy cost of one call: Gaussian steps totalling epsilon0^2 / 2 zCDP."""
        return {"rho": epsilon0**2 / 2.0, "iterations": self.iterations}

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


class Exponential:
    """The exponential mechanism over a data-independent family of cuts."""

    name, private, reads_data = "exponential", True, True
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

    def cost(self, epsilon0: float) -> dict:
        """Privacy cost of one call: the exponential mechanism, (epsilon0, 0)-DP."""
        return {"epsilon": epsilon0, "candidates": len(self.S)}

    def F(self, epsilon: float, gamma: float) -> float:
        """Def. 7.1's F(epsilon) within the family: ``2 D (ln K + ln(1/gamma)) / epsilon``."""
        return 2.0 * SENSITIVITY * (math.log(len(self.S)) + math.log(1.0 / gamma)) / epsilon

    def __call__(self, construction, epsilon0: float, generator) -> tuple:
        H = construction.matrix()
        truth = np.einsum("kn,kn->k", self.S, (self.adjacency @ self.T.T).T)
        guess = np.einsum("kn,kn->k", self.S @ H, self.T)
        chosen = exponential_mechanism(np.abs(truth - guess), epsilon0, SENSITIVITY, rng=generator)
        return self.S[chosen], self.T[chosen]


class CutNormSearch:
    """The worst cut of ``M - H_t`` by the cut-norm oracle: M is the randomized-response
    matrix (``"noisy-graph"``, private) or the adjacency itself (``"exact"``, not)."""

    reads_data = False

    def __init__(self, matrix: np.ndarray, name: str, epsilon: float = 0.0, sampler_tv=0.0):
        self.matrix, self.name, self.private = matrix, name, name == "noisy-graph"
        self.epsilon, self.sampler_tv = epsilon, sampler_tv

    def cost(self, epsilon0: float) -> dict:
        """Privacy cost of one call: none (post-processing of the randomized response,
        paid once), or not private at all for the exact search."""
        if self.private:
            return {"epsilon": 0.0, "randomized response, once": self.epsilon}
        return {"private": False}

    def __call__(self, construction, epsilon0: float, generator) -> tuple:
        found = cut_norm(self.matrix - construction.matrix(), certify=False, rng=generator)
        n = self.matrix.shape[0]
        return _indicator(n, found.S), _indicator(n, found.T)


def _check_options(G, distinguisher, idc, accountant, allow_nonprivate, delta) -> None:
    if distinguisher not in DISTINGUISHERS:
        raise ValueError(f"distinguisher must be one of {DISTINGUISHERS}, got {distinguisher!r}")
    if idc not in ("frieze-kannan", "multiplicative-weights"):
        raise ValueError(f"idc must be 'frieze-kannan' or 'multiplicative-weights', got {idc!r}")
    if distinguisher == "exact" and not allow_nonprivate:
        raise ValueError(
            "distinguisher='exact' reads the graph without noise: its output is NOT private. "
            "Pass allow_nonprivate=True for research runs"
        )
    if distinguisher == "power-method" and (accountant != "zcdp" or delta == 0.0):
        raise ValueError(
            "the power-method distinguisher adds Gaussian noise: it needs delta > 0 and "
            "accountant='zcdp'"
        )
    if isinstance(G, nx.Graph) and G.is_directed():
        raise GraphInputError("iterative_construction supports undirected graphs only")


def iterative_construction(
    G: nx.Graph,
    epsilon: float,
    delta: float,
    *,
    distinguisher: str = "power-method",
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
    rng: RandomState = None,
) -> nx.Graph:
    """Release a synthetic graph by GRU12's Iterative Construction mechanism (Algorithm 3).

    Privacy: (epsilon, delta)-DP for edge-level neighbours (same public node set,
    one pair flipped), by basic composition of (i) a noisy edge count
    (``count_share`` of epsilon, discrete Laplace; skipped when ``max_edges`` is
    given), (ii) for ``"noisy-graph"``, randomized response (``rr_share`` of the
    rest), and (iii) the rounds: per round the distinguisher and a discrete Laplace
    check, each epsilon0-DP (or the zCDP equivalent), composed by ``accountant``
    (Thm 7.2, or zCDP; :mod:`privcut.linear.iterative`). ``"exact"`` is not private.

    Accuracy: ``report["alpha"]`` (Thm 7.3) holds with probability 1 - beta if the
    distinguisher finds cuts within ``alpha / 2`` of the worst (its F(epsilon0));
    the report records each round so that F can be measured.

    Parameters
    ----------
    G : networkx.Graph
        The private 0/1 undirected graph; its node set is public.
    epsilon, delta : float
        The budget.
    distinguisher : {"power-method", "exponential", "noisy-graph", "exact"}
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
    rng : None, int or numpy.random.Generator

    Returns
    -------
    networkx.Graph
        On G's nodes (in canonical order), with the report in ``H.graph["privcut"]``. The
        wall-clock time is not in the report (it grows with G's edge count); it is logged
        at DEBUG level on the ``privcut`` logger.

    Examples
    --------
    >>> G = nx.gnp_random_graph(40, 0.3, seed=1)
    >>> H = iterative_construction(G, 1.0, 1e-6, distinguisher="noisy-graph", rng=0)
    >>> report = H.graph["privcut"]
    >>> report["private"], report["rounds"] <= report["max_rounds"]
    (True, True)
    """
    epsilon, delta, beta = check_epsilon(epsilon), check_delta(delta), check_beta(beta)
    _check_options(G, distinguisher, idc, accountant, allow_nonprivate, delta)
    if max_edges is not None:
        max_edges = check_positive(max_edges, "max_edges")
    if rounding not in ("random", None):
        raise ValueError(f"rounding must be 'random' or None, got {rounding!r}")
    count_epsilon = 0.0 if max_edges is not None else check_share(count_share) * epsilon
    rr_epsilon = (
        check_share(rr_share) * (epsilon - count_epsilon)
        if (distinguisher == "noisy-graph")
        else 0.0
    )
    reads_data = distinguisher not in ("noisy-graph", "exact")
    check_accountant(epsilon - count_epsilon - rr_epsilon, delta, accountant, 1 + reads_data)
    started = time.perf_counter()
    universe, adjacency = _private_adjacency(G)
    n, m = universe.n, universe.size
    generator = check_random_state(rng)
    count_beta = beta / 4.0 if max_edges is None else 0.0
    edges = _edge_bounds(adjacency.nnz // 2, max_edges, count_epsilon, count_beta, generator)
    start, potential = _frieze_kannan_start(m, edges)

    def bound(alpha: float) -> int:  # B(alpha) in answer units; the IDC sees alpha / D
        a = alpha / SENSITIVITY
        if idc == "frieze-kannan":
            return math.ceil(potential * m / a**2)
        return MultiplicativeWeights.updates_bound(m + 1, a, edges["upper"])

    search = _distinguisher(distinguisher, G, adjacency, n, rr_epsilon, family_size, generator)
    ic = IterativeConstruction(
        epsilon - count_epsilon - rr_epsilon,
        delta,
        bound=bound,
        sensitivity=SENSITIVITY,
        beta=beta - count_beta,
        accountant=accountant,
        accesses_per_round=2 if search.reads_data else 1,
        alpha=alpha,
    )
    alpha_idc = ic.alpha / 2.0 / SENSITIVITY
    if idc == "frieze-kannan":
        construction = _FactoredFriezeKannan(n, m, SENSITIVITY, alpha_idc, start, potential, False)
    else:
        construction = _PairConstruction(
            MultiplicativeWeights(m + 1, alpha_idc, edges["upper"]), universe, SENSITIVITY
        )
    passed = ic.run(
        lambda t: search(construction, ic.epsilon0, generator),
        lambda query: float(query[0] @ (adjacency @ query[1])),
        construction,
        generator,
    )
    x = np.clip(construction.matrix(), 0.0, 1.0)
    rows, columns = universe.pair_index()
    rounded = independent_rounding(x, False, generator) if rounding == "random" else None
    if rounded is None:
        H = universe.graph(x[rows, columns])
    else:
        H = universe.unweighted_graph(np.flatnonzero(rounded[rows, columns]))
    H.graph["privcut"] = _report(
        search, idc, ic, passed, edges, rr_epsilon, epsilon, delta, beta, universe.nodes
    )
    log_timings("iterative_construction", time.perf_counter() - started, {})
    return H


def _distinguisher(name, G, adjacency, n, rr_epsilon, family_size, generator):
    if name == "power-method":
        return PowerMethod(adjacency, n)
    if name == "exponential":
        return Exponential(adjacency, n, int(family_size), generator)
    if name == "noisy-graph":
        noisy = noisy_graph(G, rr_epsilon, rng=generator)
        return CutNormSearch(noisy.matrix, name, rr_epsilon, noisy.sampler_tv)
    return CutNormSearch(adjacency.toarray(), name)


def _report(search, idc, ic, passed, edges, rr_epsilon, epsilon, delta, beta, nodes) -> dict:
    updates = sum(record.updated for record in ic.records)
    count_noise = (
        Noise.for_laplace(edges["epsilon"], 1.0, integer=True) if edges["epsilon"] else None
    )
    sampler_tv = (  # every integer draw: the edge count, each round's check, the search's
        (0.0 if count_noise is None else count_noise.tv_bound(1))
        + ic.check.tv_bound(len(ic.records))
        + search.sampler_tv
    )
    report = {
        "mechanism": (
            "iterative_construction (GRU12 Algorithm 3)"
            if search.private
            else "iterative_construction with the EXACT distinguisher: NOT PRIVATE"
        ),
        "private": search.private,
        "epsilon": epsilon if search.private else math.inf,
        "delta": delta,
        "sampler_tv": sampler_tv,
        "effective_delta": effective_delta(epsilon, delta, sampler_tv),
        "beta": beta,
        "distinguisher": search.name,
        "distinguisher_cost_per_round": search.cost(ic.epsilon0),
        "idc": idc,
        "accountant": ic.accountant,
        "alpha": ic.alpha,
        "max_rounds": ic.rounds,
        "rounds": len(ic.records),
        "updates": updates,
        "stopped_by_check": passed,
        "epsilon0": ic.epsilon0,
        "rounds_log": [
            {
                "S": [nodes[i] for i in np.flatnonzero(record.query[0])],
                "T": [nodes[i] for i in np.flatnonzero(record.query[1])],
                "noisy_answer": record.noisy_answer,
                "hypothesis_answer": record.hypothesis_answer,
                "updated": record.updated,
            }
            for record in ic.records
        ],
        "budget": {
            "edge count": edges["epsilon"],
            "randomized response": rr_epsilon,
            "rounds": [ic.epsilon, ic.delta],
            "per access epsilon0": ic.epsilon0,
        },
    }
    if isinstance(search, Exponential):
        gamma = ic.beta / (2.0 * ic.rounds)
        t_constant = search.F(ic.epsilon0, gamma) * ic.epsilon0
        report["cor74_alpha"] = (
            2.0
            * (edges["upper"] * math.log(1.0 / delta)) ** 0.25
            * math.sqrt(len(search.S[0]) * t_constant / epsilon)
            if delta > 0.0
            else None
        )
    return report
