"""The cut oracle's measured starting hypothesis: a degree-corrected block model bought with
a share of the budget (issue 20).

Frieze–Kannan's hypothesis (:class:`~privcut.graph.hypotheses.FactoredFriezeKannan`) answers
from its start until it updates, and its update bound is the potential ``||A - D_1||^2``
of that start (GRU12 Thm 5.1). A constant density start answers group and
degree-skewed cuts badly and its potential is about |E|. :func:`measure_start` buys a
better one from the release pipeline's own measurements
(:func:`~privcut.graph.planning.plan_measurements`, :func:`~privcut.graph.measurement.measure`,
:func:`~privcut.graph.fitting.fit_targets`): the edge count (unless a public
``max_edges`` is given), every node's degree, the block-pair counts of public groups,
and a noisy potential. The fitted start is the degree-corrected block model's expectation
(Karrer & Newman 2011; Chung & Lu 2002 without groups)

    ``P_ij = left_i right_j omega[g_i, g_j]`` for ``i != j`` (0 on the diagonal),

held factored (:class:`BlockStart`): ``left_i = d_i / D_{g_i}`` (a node's fitted degree
over its group's total; out-degrees for a DiGraph, whose ``right`` holds the in-degrees),
``omega[a, b]`` the fitted edge count of block pair (a, b) (twice it on the diagonal of a
Graph, whose ordered pairs inside a group count each edge twice; on the diagonal divided
by ``1 - sum_{i in a} left_i right_i``, the share the missing diagonal would hold), so
that each block pair's expected edge count is the fitted one. The noisy degrees are first
shrunk towards their group's mean (James & Stein 1961, :func:`_shrunk`), which keeps the sums
and lowers the noise in cuts that sum many of them. P is >= 0 exactly; it is not clipped at 1:
a rank-g factored form cannot clip entrywise, and capping the factors enough to keep every
hub pair at most 1 would take most of the hubs' expected degree away (their block sums with
it). Entries above 1 (hub pairs) cost only in the potential, whose bound below counts them
in full.

The potential: with ``Q = sum_{pairs} P_ij^2`` (from the factors in O(n + g^2)) and
``S = sum_{edges} min(P_ij, 1)``, ``||A - P||^2 = |E| - 2 sum_{edges} P_ij + Q <= |E| - 2 S
+ Q``. Its data-dependent part ``Y = |E| - 2 S`` changes by ``1 - 2 min(P_ij, 1)`` when
pair ij flips, at most 1 in absolute value: sensitivity 1. It is computed exactly as an
integer in units of ``1 / w`` (``w`` = :func:`_units`, a public power of two; each
``min(P_ij, 1)`` rounded to the nearest unit, a per-pair public map, so the flip still
moves it by at most ``w`` units, and ``S >= S_rounded - |E| / (2 w)``) and released with
discrete Laplace noise at its share (integer noise on an integer: no floating-point leak,
Mironov 2012); ``Y + eta + Q + |E|_upper / w`` (eta its ``1 - beta`` error bound) bounds
the potential; so does
``|E|_upper + Q`` (S >= 0), and the smaller is used. Frieze–Kannan's potential argument
(GRU12 Thm 5.1: each update lowers ``||A - D_t||^2`` by at least ``alpha^2 / m``) never
uses that ``D_t`` lies in [0, 1] (its entries may leave it): it holds from any start, so
``B(alpha) = Phi m / alpha^2``.

Privacy: every measurement is a Laplace mechanism at its own epsilon under edge-level
neighbours (same public node set, one vertex pair differs; an undirected edge touches
``A[i, j]`` and ``A[j, i]``): edge count sensitivity 1, degrees sensitivity 2 (an edge
raises two degrees, or one out- and one in-degree), block counts 1, the potential 1
(above); basic composition (Dwork & Roth 2014 Thm 3.16) of ``start_epsilon`` in all,
the potential chosen adaptively after the others (post-processing of them fixes P).
The start is a function of the noise and public values: it may be released.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from privcut.exceptions import PrivacyParameterError
from privcut.graph.fitting import fit_targets
from privcut.graph.hypotheses import EdgeBounds
from privcut.graph.measurement import measure
from privcut.graph.partition import Partition
from privcut.graph.planning import plan_measurements
from privcut.graph.private_groups import PrivateGroups, release_communities
from privcut.graph.universe import EdgeUniverse
from privcut.privacy import Noise, exact_split
from privcut.privacy.validation import epsilon_too_small
from privcut.records import Record, Spend

__all__ = ["STARTS", "START_SHARE", "BlockStart", "MeasuredStart", "measure_start"]

STARTS = ("measured", "density")
"""The oracle's starts: the measured block model (this module) or the noisy density."""

PRIVATE_GROUPS = PrivateGroups(share=0.3)
"""With ``groups="private"``: the share of the start's epsilon spent on the partition
(:func:`~privcut.graph.private_groups.release_communities`: the sweep of
:func:`~privcut.graph.communities.sweep_communities`), the rest measured as for public
groups."""

START_SHARE = 0.2
"""Default share of the oracle's epsilon spent on the measured start (benchmarks/RESULTS.md,
``## Issue 20: measured start``)."""

POTENTIAL = "potential"
"""The name of the potential's measurement in the start's spends."""

POTENTIAL_SENSITIVITY = 1.0
"""The l1 sensitivity of ``Y = |E| - 2 sum_{edges} min(P_ij, 1)`` under edge-level
neighbours (module docstring)."""

_UNITS = 2**20
"""The finest units of the potential's measurement, ``2**-20`` (an integer: integer
noise)."""

UNIT_SCALE = 2.0**16
"""The largest scale, in units, of the potential's discrete Laplace noise. Chosen when the
sampler was a float one, to keep its distance from exact near 2e-9 (at 2**20 units and
epsilon 0.03 the scale was 3.5e7 and the distance 1e-6, as large as a typical delta); the
sampler is exact now (:func:`~privcut.privacy.noise.discrete_laplace_tv_bound` is 0), and
the limit still sets the units."""


def _units(epsilon: float) -> int:
    """The potential's units per edge at its ``epsilon``: the largest power of two up to
    ``2**20`` keeping the noise's scale ``units / epsilon`` within :data:`UNIT_SCALE`
    (public; at least 1). The rounding slack ``|E|_upper / units`` is in the bound.

    Examples
    --------
    >>> _units(0.03), _units(1.0), _units(100.0)
    (1024, 65536, 1048576)
    """
    return 2 ** max(0, min(20, math.floor(math.log2(epsilon * UNIT_SCALE / POTENTIAL_SENSITIVITY))))


def _potential_noise(epsilon: float) -> tuple[int, Noise]:
    """The potential's units (:func:`_units`) and discrete Laplace noise at its share
    ``epsilon``; a clear error when that share is so small that the noise would pass the
    samplers' cap, or underflowed to 0 (from an epsilon near the smallest float)."""
    try:
        units = _units(epsilon) if epsilon > 0.0 else 1
        return units, Noise.for_laplace(epsilon, POTENTIAL_SENSITIVITY * units, integer=True)
    except PrivacyParameterError as error:
        raise epsilon_too_small(
            f"the measured start's potential (its share of epsilon is {epsilon!r})"
        ) from error


SPLIT = {
    False: {"edge-count": 0.25, "degrees": 0.6, POTENTIAL: 0.15},
    True: {"edge-count": 0.02, "degrees": 0.13, "blocks": 0.8, POTENTIAL: 0.05},
}
"""How the start's epsilon is divided without and with public groups (renormalised
without the edge count when ``max_edges`` is public): with groups most goes to the block
counts, which answer group cuts directly (benchmarks/oracle_stream.py)."""


@dataclass(frozen=True)
class BlockStart(Record):
    """A factored degree-corrected block model ``P_ij = left_i right_j omega[g_i, g_j]``
    (``i != j``; zero diagonal), evaluated without any n x n array.

    Attributes
    ----------
    left, right : numpy.ndarray
        Per-node factors (equal for a Graph).
    labels : numpy.ndarray
        Every node's group index in ``range(g)``.
    omega : numpy.ndarray
        The (g, g) block factors (symmetric for a Graph).
    directed : bool

    Examples
    --------
    >>> start = BlockStart(np.ones(3), np.ones(3), np.zeros(3, dtype=np.intp),
    ...                    np.array([[0.5]]), False)
    >>> start.answer(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 1.0]))
    1.0
    >>> start.matrix().tolist()[0]
    [0.0, 0.5, 0.5]
    """

    left: np.ndarray
    right: np.ndarray
    labels: np.ndarray
    omega: np.ndarray
    directed: bool

    @property
    def g(self) -> int:
        """Number of groups."""
        return self.omega.shape[0]

    @cached_property
    def _diagonal(self) -> np.ndarray:
        """``P_ii`` as the factored form would give it (subtracted from every answer)."""
        return self.left * self.right * self.omega[self.labels, self.labels]

    @cached_property
    def _sides(self) -> tuple[sp.csr_array, sp.csr_array]:
        """The (n, g) sparse arrays holding ``left`` and ``right`` in their nodes' groups."""
        n = self.left.size
        rows = np.arange(n)
        return tuple(
            sp.csr_array((factor, (rows, self.labels)), shape=(n, self.g))
            for factor in (self.left, self.right)
        )

    def _forms(self, a: np.ndarray, b: np.ndarray, inside: np.ndarray, rows: np.ndarray):
        """``a_j omega b_j - sum_i u_i v_i P_ii`` for the rows j of the (q, g) group sums
        ``a`` and ``b``, from the products ``inside`` (``u_i v_i P_ii`` of the rows' common
        nodes, in row then node order; ``rows`` their rows). Every sum runs in one fixed
        order whatever q (``a omega`` one group at a time; the diagonal by ``bincount``), so
        one row alone gives the same bits as in a batch. O(q g^2 + len(inside))."""
        products = np.zeros_like(b)
        for group in range(self.g):
            products += a[:, group : group + 1] * self.omega[group]
        diagonal = np.bincount(rows, inside, a.shape[0])
        return (products * b).sum(axis=1) - diagonal

    def answer(self, u: np.ndarray, v: np.ndarray) -> float:
        """``u^T P v = sum_ab (left.u)_a omega_ab (right.v)_b - sum_i u_i v_i P_ii``:
        O(n + g^2), the same arithmetic as one row of :meth:`answers`."""
        a = np.bincount(self.labels, self.left * u, self.g)  # nodes in index order
        b = np.bincount(self.labels, self.right * v, self.g)
        both = u * v
        common = np.flatnonzero(both)
        inside = both[common] * self._diagonal[common]
        rows = np.zeros(common.size, dtype=np.intp)
        return float(self._forms(a[None, :], b[None, :], inside, rows)[0])

    def answers(self, us: sp.csr_array, vs: sp.csr_array) -> np.ndarray:
        """The answers to the rows of ``us`` and ``vs`` (sparse, q x n, sorted indices):
        O(nnz(us) + nnz(vs) + q g^2). The group sums are sparse products, which add each
        row's nodes in index order as :meth:`answer`'s ``bincount`` does: a batch's answers
        equal the one-by-one ones to the last bit."""
        left, right = self._sides
        a, b = (us @ left).toarray(), (vs @ right).toarray()
        both = us.multiply(vs).tocsr()
        both.sort_indices()
        inside = both.data * self._diagonal[both.indices]
        rows = np.repeat(np.arange(us.shape[0]), np.diff(both.indptr))
        return self._forms(a, b, inside, rows)

    def squares(self) -> float:
        """``Q = sum_{pairs} P_ij^2`` (unordered pairs for a Graph): O(n + g^2)."""
        a = np.bincount(self.labels, self.left**2, self.g)
        b = np.bincount(self.labels, self.right**2, self.g)
        total = float(a @ self.omega**2 @ b - np.sum(self._diagonal**2))
        return max(0.0, total if self.directed else total / 2.0)

    def edge_sum(self, adjacency: sp.csr_array, units: int = _UNITS) -> int:
        """``S = sum_{edges} min(P_ij, 1)`` on the private 0/1 adjacency (each undirected
        edge once) in ``units`` per edge (a power of two at most 2**20), each term rounded
        to the nearest unit (a per-pair public map) so that the sum is an exact integer:
        O(n + |E|). Private: it enters a release only through :func:`measure_start`'s
        noise."""
        entries = sp.coo_array(adjacency)
        row, col = entries.row, entries.col
        values = self.left[row] * self.right[col] * self.omega[self.labels[row], self.labels[col]]
        rounded = np.rint(np.minimum(values, 1.0) * units).astype(np.int64)
        total = int(rounded.sum())  # exact: at most 2**20 per entry
        return total if self.directed else total // 2  # an undirected edge's two entries

    def matrix(self) -> np.ndarray:
        """P as a dense n x n array: for tests on small graphs only."""
        P = np.outer(self.left, self.right) * self.omega[np.ix_(self.labels, self.labels)]
        np.fill_diagonal(P, 0.0)
        return P

    @classmethod
    def from_dict(cls, saved: Mapping, n: int, directed: bool) -> BlockStart:
        """A saved start, checked: factors of length n, finite and >= 0, labels in
        ``range(g)``, a square omega (symmetric, and ``left == right``, for a Graph).

        Raises
        ------
        ValueError
            Naming what is wrong.

        Examples
        --------
        >>> saved = {"left": [1.0, 1.0], "right": [1.0, 1.0], "labels": [0, 0],
        ...          "omega": [[0.5]], "directed": False}
        >>> BlockStart.from_dict(saved, 2, False).answer(np.ones(2), np.ones(2))
        1.0
        """
        left, right = (np.asarray(saved[key], dtype=float).reshape(-1) for key in ("left", "right"))
        labels = np.asarray(saved["labels"], dtype=np.intp).reshape(-1)
        omega = np.asarray(saved["omega"], dtype=float)
        if saved["directed"] is not directed or not left.size == right.size == labels.size == n:
            raise ValueError("the start's factors do not fit the graph")
        if omega.ndim != 2 or omega.shape[0] != omega.shape[1] or omega.size == 0:
            raise ValueError("the start's omega must be a square array")
        if labels.min() < 0 or labels.max() >= omega.shape[0]:
            raise ValueError("the start's labels must index omega")
        arrays = (left, right, omega)
        if not all(np.all(np.isfinite(x) & (x >= 0.0)) for x in arrays):
            raise ValueError("the start's factors must be finite and non-negative")
        if not directed and not (np.array_equal(left, right) and np.array_equal(omega, omega.T)):
            raise ValueError("an undirected start must be symmetric")
        return cls(left, right, labels, omega, directed)


@dataclass(frozen=True)
class MeasuredStart(Record):
    """What :func:`measure_start` bought: the start, the edge bounds, the potential bound
    and every spend (public: functions of noise and public values).

    Attributes
    ----------
    start : BlockStart
    edges : EdgeBounds
        From the measured edge count (or the public ``max_edges``).
    potential : float
        A ``1 - beta`` upper bound on ``||A - P||^2`` over the vertex pairs.
    deviation : float
        The released noisy ``Y = |E| - 2 sum_{edges} min(P_ij, 1)`` it comes from.
    spends : tuple of Spend
        The measurements, in order; their epsilons add up to ``epsilon`` exactly.
    epsilon : float
        The start's whole epsilon.
    sampler_tv : float
        Bound on the total variation distance of its integer noise draws from exact.
    """

    start: BlockStart
    edges: EdgeBounds
    potential: float
    deviation: float
    spends: tuple[Spend, ...]
    epsilon: float
    sampler_tv: float


def _shares(counted: bool, grouped: bool) -> dict[str, float]:
    split = SPLIT[grouped]
    names = [name for name in split if name != "edge-count" or counted]
    total = math.fsum(split[name] for name in names)
    return {name: split[name] / total for name in names}


def _shrunk(degrees: np.ndarray, labels: np.ndarray, g: int, variance: float) -> np.ndarray:
    """Each group's degrees pulled towards the group's mean by ``max(0, 1 - variance /
    spread)`` (James & Stein 1961), ``spread`` their sample variance and ``variance`` the noise's:
    the same sums, less noise in a sum over many nodes. Post-processing; O(n)."""
    counts = np.maximum(np.bincount(labels, minlength=g), 1)
    means = np.bincount(labels, degrees, g) / counts
    spread = np.bincount(labels, (degrees - means[labels]) ** 2, g) / counts
    keep = np.where(
        spread > 0.0, np.clip(1.0 - variance / np.where(spread > 0, spread, 1), 0, 1), 0
    )
    return means[labels] + keep[labels] * (degrees - means[labels])


def _factors(targets, partition: Partition | None, n: int, directed: bool, variance: float):
    """The block model's factors fitted to consistent targets (post-processing), the
    degrees shrunk towards their groups' means (:func:`_shrunk`; ``variance`` is the noise's
    per degree)."""
    labels = np.zeros(n, dtype=np.intp) if partition is None else partition.labels
    g = 1 if partition is None else partition.g
    omega = np.zeros((g, g))
    if partition is None:
        omega[0, 0] = targets.total * (1.0 if directed else 2.0)
    else:
        first, second = partition.blocks
        np.add.at(omega, (first, second), targets.blocks)
        if not directed:
            np.add.at(omega, (second, first), targets.blocks)  # twice on the diagonal
    degrees = targets.degrees
    halves = (degrees[:n], degrees[n:]) if directed else (degrees, degrees)
    factors = []
    for half in halves:
        half = _shrunk(half, labels, g, variance)
        totals = np.bincount(labels, half, g)
        safe = np.where(totals > 0.0, totals, 1.0)
        factors.append(np.where(totals[labels] > 0.0, half / safe[labels], 0.0))
    left, right = factors
    # a group's own pairs exclude the diagonal: scale omega[a, a] so they hold its count
    inside = 1.0 - np.bincount(labels, left * right, g)
    diagonal = np.diagonal(omega) / np.where(inside > 0.0, inside, 1.0)
    np.fill_diagonal(omega, np.where(inside > 0.0, diagonal, 0.0))
    return left, right, labels, omega


def _potential(
    start: BlockStart,
    adjacency: sp.csr_array,
    count: int,
    edges: EdgeBounds,
    noise: Noise,
    units: int,
    beta: float,
    *,
    rng: np.random.Generator,
) -> tuple[float, float]:
    """The released ``Y = |E| - 2 sum_{edges} min(P_ij, 1)`` (``noise`` on its exact
    value in ``units`` per edge) and the potential bound it gives with probability
    ``1 - beta`` (module docstring)."""
    value = count * units - 2 * start.edge_sum(adjacency, units)  # exact, sensitivity units
    noisy = float(noise.add(value, rng=rng)) / units
    squares = start.squares()
    rounding = edges.upper / units  # each rounded term at most 1 / (2 units) above min(P, 1)
    bound = noisy + noise.max_error(1, beta) / units + rounding + squares
    return noisy, max(0.0, min(edges.upper + squares, bound))


def measure_start(
    adjacency: sp.csr_array,
    universe: EdgeUniverse,
    epsilon: float,
    beta: float,
    *,
    max_edges: float | None = None,
    groups: Mapping[Hashable, Hashable] | str | None = None,
    rng: np.random.Generator,
) -> MeasuredStart:
    """Buy the measured start of the cut oracle with ``epsilon``: the edge count (unless
    ``max_edges`` is public), the degrees, the block-pair counts of the public ``groups``,
    then the potential (see the module docstring), each at its share of ``epsilon``
    (:data:`SPLIT`, renormalised over what is measured; the epsilons add up to ``epsilon``
    exactly, :func:`~privcut.privacy.exact_split`).

    Privacy: (epsilon, 0)-DP under edge-level neighbours by basic composition of
    discrete Laplace mechanisms (module docstring). ``beta`` is split between the edge
    count's interval and the potential's. With ``groups="private"`` the partition is bought
    first with :data:`PRIVATE_GROUPS`' share of ``epsilon``
    (:func:`~privcut.graph.private_groups.release_communities`: its claim, the sweep's
    proof in :func:`~privcut.graph.communities.sweep`; adaptive basic composition) and the
    rest measured on it; an undirected graph only. O(n + |E| + g^2) time and memory for g
    groups (the block counts O(|E| + g^2); the sweep O(|E| log |E| + n (K + log n)) for K
    labels); nothing n x n.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.gnp_random_graph(40, 0.3, seed=1)
    >>> universe, A = EdgeUniverse.read(G, None)
    >>> bought = measure_start(A, universe, 1.0, 0.05, rng=np.random.default_rng(0))
    >>> [spend.name for spend in bought.spends]
    ['edge-count', 'degrees', 'potential']
    >>> math.fsum(spend.epsilon for spend in bought.spends) == 1.0
    True
    """
    counted, whole, found, private = max_edges is None, epsilon, (), isinstance(groups, str)
    if private:  # "private": checked by the caller
        epsilon = PRIVATE_GROUPS.split(whole)[1]
    shares = _shares(counted, groups is not None)
    plan_epsilon, potential_epsilon = exact_split(
        epsilon, (1.0 - shares[POTENTIAL], shares[POTENTIAL])
    )
    units, noise = _potential_noise(potential_epsilon)  # first: a too small epsilon spends nothing
    if private:
        step = release_communities(
            adjacency, whole, PRIVATE_GROUPS, nodes=universe.nodes, directed=False, rng=rng
        )
        groups, found = step.groups(), step.spends()
    partition = None if groups is None else Partition.of(universe, groups)
    names = [name for name in shares if name != POTENTIAL]
    within = {name: shares[name] / (1.0 - shares[POTENTIAL]) for name in names}
    plan = plan_measurements(
        universe.nodes, plan_epsilon, within, groups=groups, directed=universe.directed
    )
    measured = measure(
        adjacency,
        plan,
        partition=partition,
        nodes=universe.nodes,
        directed=universe.directed,
        rng=rng,
    )
    count_beta = beta / 2.0 if counted else 0.0
    if counted:
        record = measured.get("edge-count")
        edges = EdgeBounds.from_count(float(record.values[0]), record.epsilon, count_beta)
    else:
        edges = EdgeBounds.measure(0, max_edges, 0.0, 0.0, None)
    targets = fit_targets(measured)
    degree_variance = measured.get("degrees").noise.variance
    start = BlockStart(
        *_factors(targets, partition, universe.n, universe.directed, degree_variance),
        universe.directed,
    )
    count = adjacency.nnz // universe.multiplicity
    noisy, potential = _potential(
        start, adjacency, count, edges, noise, units, beta - count_beta, rng=rng
    )
    spend = Spend(
        POTENTIAL,
        potential_epsilon / whole,
        potential_epsilon,
        noise.kind,
        noise.scale / units,
        POTENTIAL_SENSITIVITY,
    )
    spends = tuple(
        Spend(s.name, s.epsilon / whole, s.epsilon, s.noise, s.scale, s.sensitivity)
        for s in (*found, *measured.spends())
    )
    tv = measured.sampler_tv + noise.tv_bound(1) + (step.sampler_tv() if found else 0.0)
    return MeasuredStart(start, edges, potential, noisy, (*spends, spend), whole, tv)
