"""The measurement step: the only code of the synthetic-graph pipeline that reads the graph.

:func:`measure` takes a :class:`~privcut.graph.planning.MeasurementPlan`'s measurements of
G, each paid from one budget before it is computed, and returns them as
:class:`Measurements`: one small frozen :class:`Measurement` record per measurement (its
name, noisy values, noise, sensitivity, epsilon and share of the budget, the
``LinearMeasurement`` habit of private-pgm). Randomized response (GRU12 §6.1) is a
measurement like the others; its values are the noisy adjacency matrix. Everything after
this step (fitting, generating, bounding, reporting) reads only these records, public
values and fresh randomness: post-processing.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.exceptions import GraphInputError
from privcut.graph.assortativity import (
    clipped_moment,
    moment_parameters,
    moment_sensitivity,
    sequence_distribution,
)
from privcut.graph.clustering import (
    bin_count,
    binned_corners,
    choose_cap,
    clustering_sensitivity,
    degree_bins,
    degree_estimate,
    projected_corners,
)
from privcut.graph.filtered import edge_positions, filtered_pairs
from privcut.graph.noisy import NoisyGraph, randomized_response
from privcut.graph.partition import Partition
from privcut.graph.planning import SENSITIVITY, MeasurementPlan, largest_noise
from privcut.graph.universe import EdgeUniverse, check_pairs, multiplicity
from privcut.privacy import Noise, PrivacyBudget
from privcut.privacy.random import RandomState, check_random_state
from privcut.records import Spend

__all__ = [
    "WEIGHT_GRID",
    "CountEstimate",
    "Measurement",
    "Measurements",
    "measure",
    "moment_of",
    "noisy_statistic",
    "sorted_sequence",
    "statistic",
]

RANDOMIZED_RESPONSE = "randomized-response"
SEQUENCE = "degree-sequence"
FILTERED = "filtered-randomized-response"
CLUSTERING = "clustering"
ASSORTATIVITY = "assortativity"
UNCOUNTED = (FILTERED, CLUSTERING, ASSORTATIVITY)
"""The measurements that give no estimate of the edge count."""

WEIGHT_GRID = 2.0**-20
"""Weights are measured as multiples of this (each pair's weight rounded, a per-pair map
that keeps neighbours neighbours): every sum of at most 2^33 of them is then exact in
float64, so the measured statistics carry no floating-point error into the grid noise."""


@dataclass(frozen=True)
class CountEstimate:
    """One measurement's unbiased estimate of the edge count: ``coefficient * total``,
    where ``total`` is a sum of ``draws`` noisy values, each with ``noise``.

    Examples
    --------
    >>> from privcut.graph.planning import plan_measurements
    >>> plan = plan_measurements(range(5), 1.0, ["degrees"])
    >>> measured = measure(nx.path_graph(5), plan, rng=0)
    >>> estimate = measured.get("degrees").count_estimate(measured.universe)
    >>> estimate.draws, estimate.coefficient, estimate.variance == 5 * plan.noise[0].variance / 4
    (5, 0.5, True)
    """

    total: float
    noise: Noise
    draws: int
    coefficient: float
    slack: float = 0.0
    """How far rounding the weights to :data:`WEIGHT_GRID` can have moved ``total``."""

    @property
    def value(self) -> float:
        """The estimate of the edge count."""
        return self.coefficient * self.total

    @property
    def variance(self) -> float:
        """The estimate's noise variance."""
        return self.coefficient**2 * self.draws * self.noise.variance


@dataclass(frozen=True)
class Measurement:
    """One noisy measurement of the graph.

    Attributes
    ----------
    name : str
        One of :data:`~privcut.graph.planning.MEASUREMENTS`.
    values : numpy.ndarray
        The noisy values: the edge count (length 1), the degrees (n, or 2n out- then
        in-degrees for a DiGraph), the block-pair counts (one per block pair), for
        randomized response the noisy n x n adjacency matrix, for filtered randomized
        response the kept pairs' noisy values (int64, each >= the plan's threshold).
    noise : Noise
        The noise on each value (each vertex pair for randomized response).
    sensitivity : float
        The l1 sensitivity under edge-level neighbours.
    epsilon, share : float
        Its epsilon and its fraction of the release's budget.
    draws : int
        Noise draws taken (one per value; one per vertex pair for randomized response; for
        filtered randomized response N, the pairs whose draws its sampler bound covers,
        as :func:`~privcut.graph.filtered.filtered_randomized_response`'s, the one
        binomial draw excluded).
    slack : numpy.ndarray or None
        For weighted graphs, how far rounding each pair weight to :data:`WEIGHT_GRID`
        can have moved each exact value (``WEIGHT_GRID / 2`` per vertex pair the value
        sums); None for 0/1 graphs and randomized response (whose rounding is on the
        noise's grid).

    Examples
    --------
    >>> from privcut.graph.planning import plan_measurements
    >>> plan = plan_measurements(range(5), 1.0, ["edge-count"])
    >>> record = measure(nx.path_graph(5), plan, rng=0).get("edge-count")
    >>> record.values.shape, record.sensitivity, record.share
    ((1,), 1.0, 1.0)
    """

    name: str
    values: np.ndarray
    noise: Noise
    sensitivity: float
    epsilon: float
    share: float
    draws: int
    slack: np.ndarray | None = None
    order: np.ndarray | None = None
    """For ``"degree-sequence"``: public randomness drawn with the measurement, independent
    of G (a uniformly random permutation of the nodes per half, one row each: out, in),
    by which the fitting hands each group's fitted sorted degrees to its nodes."""
    pairs: np.ndarray | None = None
    """For ``"filtered-randomized-response"``: the kept pairs' histogram positions
    (:func:`~privcut.graph.filtered.pair_indices` order, sorted; int64), one per value."""
    largest: tuple[Noise, int] | None = None
    """For ``"clustering"`` and ``"assortativity"``, whose noise scale the released degrees
    chose: the noise and draws of the largest scale they could have chosen
    (:func:`~privcut.graph.planning.largest_noise`), at which :attr:`sampler_tv` is
    stated, so that the stated slack does not depend on the data."""

    def slacks(self) -> np.ndarray:
        """:attr:`slack`, as zeros where there is none."""
        return np.zeros(self.values.shape[:1]) if self.slack is None else self.slack

    @property
    def sampler_tv(self) -> float:
        """Bound on the total variation distance of its integer noise draws from exact: at
        its own noise, or at :attr:`largest` where the data chose the scale."""
        noise, draws = (self.noise, self.draws) if self.largest is None else self.largest
        return noise.tv_bound(draws)

    def spend(self) -> Spend:
        """Its share of the budget as a report part."""
        noise = self.noise
        return Spend(self.name, self.share, self.epsilon, noise.kind, noise.scale, self.sensitivity)

    def count_estimate(self, universe: EdgeUniverse) -> CountEstimate:
        """Its estimate of the edge count: the value itself, the block counts' sum, half
        the degrees' sum (every edge adds to two degrees, or to one out- and one
        in-degree), randomized response's sum over the vertex pairs. Filtered randomized
        response gives none (ValueError): :meth:`Measurements.count_estimates` skips it."""
        values, noise = self.values, self.noise
        if self.name in UNCOUNTED:
            raise ValueError(
                f"{self.name} gives no estimate of the edge count (filtered randomized "
                "response's kept pairs are too few and biased; clustering counts "
                "triangles; assortativity sums products of clipped degrees over the "
                "edges); use the plan's other measurements"
            )
        if self.name == RANDOMIZED_RESPONSE:
            rows, columns = universe.pair_index()
            return CountEstimate(float(values[rows, columns].sum()), noise, universe.size, 1.0)
        coefficient = 0.5 if self.name in ("degrees", SEQUENCE) else 1.0
        slack = float(self.slacks().sum())
        return CountEstimate(float(values.sum()), noise, values.size, coefficient, slack)


@dataclass(frozen=True)
class Measurements:
    """The noisy measurements of one graph: everything after them is post-processing.

    Attributes
    ----------
    plan : MeasurementPlan
    universe : EdgeUniverse
    partition : Partition or None
        The public groups (with ``"blocks"``).
    records : tuple of Measurement
        In the plan's order.

    Examples
    --------
    >>> from privcut.graph.planning import plan_measurements
    >>> plan = plan_measurements(range(6), 1.0, ["edge-count", "randomized-response"])
    >>> measured = measure(nx.path_graph(6), plan, rng=0)
    >>> measured.get("degrees") is None, measured.noisy.matrix.shape
    (True, (6, 6))
    """

    plan: MeasurementPlan
    universe: EdgeUniverse
    partition: Partition | None
    records: tuple[Measurement, ...]

    def get(self, name: str) -> Measurement | None:
        """The measurement called ``name``, or None if it was not taken."""
        return next((record for record in self.records if record.name == name), None)

    @property
    def low_dimensional(self) -> tuple[Measurement, ...]:
        """The measurements other than randomized response and its filtered form."""
        pairwise = (RANDOMIZED_RESPONSE, FILTERED)
        return tuple(record for record in self.records if record.name not in pairwise)

    @property
    def noisy(self) -> NoisyGraph | None:
        """Randomized response as a :class:`~privcut.graph.noisy.NoisyGraph`, if taken."""
        record = self.get(RANDOMIZED_RESPONSE)
        if record is None:
            return None
        universe = self.universe
        return NoisyGraph(
            record.values,
            universe.nodes,
            record.epsilon,
            0.0,
            universe.directed,
            record.noise,
            record.sampler_tv,
            self.plan.weight,
        )

    @property
    def sampler_tv(self) -> float:
        """Bound on the total variation distance of every integer noise draw from exact."""
        return float(sum(record.sampler_tv for record in self.records))

    def spends(self) -> tuple[Spend, ...]:
        """Every measurement's spend, in order."""
        return tuple(record.spend() for record in self.records)

    def count_estimates(self) -> tuple[CountEstimate, ...]:
        """Every measurement's estimate of the edge count, in order (filtered randomized
        response, clustering and assortativity have none and are skipped)."""
        return tuple(
            record.count_estimate(self.universe)
            for record in self.records
            if record.name not in UNCOUNTED
        )

    @classmethod
    def from_noisy(cls, noisy: NoisyGraph, plan: MeasurementPlan) -> Measurements:
        """An already released randomized response as the only measurement (no new spend)."""
        record = Measurement(
            RANDOMIZED_RESPONSE,
            noisy.matrix,
            noisy.noise,
            SENSITIVITY[RANDOMIZED_RESPONSE],
            noisy.epsilon,
            1.0,
            noisy.universe.size,
        )
        return cls(plan, noisy.universe, None, (record,))


def statistic(name: str, adjacency, partition: Partition | None, directed: bool) -> np.ndarray:
    """The exact value of a low-dimensional measurement, from the adjacency matrix.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> statistic("degrees", sp.csr_array(nx.to_numpy_array(nx.path_graph(3))), None, False)
    array([1., 2., 1.])
    """
    if name == "edge-count":
        return np.array([adjacency.sum() / multiplicity(directed)])
    if name in ("degrees", SEQUENCE):
        out = _row_sums(adjacency)
        degrees = (
            np.concatenate([out, np.asarray(adjacency.sum(axis=0)).ravel()]) if directed else out
        )
        return degrees if name == "degrees" else sorted_sequence(degrees, partition, directed)
    return partition.block_sums(adjacency)


def _row_sums(adjacency) -> np.ndarray:
    """``adjacency.sum(axis=1)`` as a flat array: for a float CSR whose entries are all 1.0
    (a 0/1 graph's) the number of entries per row, the same floats without the product
    (exact integer sums in any order). O(n + nnz)."""
    if (
        sp.issparse(adjacency)
        and adjacency.format == "csr"
        and adjacency.dtype == np.float64
        and bool(np.all(adjacency.data == 1.0))
    ):
        return np.diff(adjacency.indptr).astype(np.float64)
    return np.asarray(adjacency.sum(axis=1)).ravel()


def sorted_sequence(degrees: np.ndarray, partition: Partition | None, directed: bool) -> np.ndarray:
    """The ``"degree-sequence"`` statistic: each group's degrees sorted ascending, groups in
    label order (one group when ``partition`` is None), out- then in-degrees for a
    DiGraph. O(n log n).

    Sensitivity (Hay, Li, Miklau, Jensen 2009): under edge-level neighbours (same
    public node set, one pair differs) its l1 change is exactly 2, one entry moved by 1 in
    two positions. Proof: flipping the pair (u, v) moves d_u and d_v (for a DiGraph,
    out_u and in_v) by the same s = +1 or -1, nothing else. Raising one entry of value x
    of a sorted list by 1 equals raising the entry at the last position holding x (the
    list stays sorted), lowering it equals lowering the first one: one position, by 1.
    If u and v fall in different lists (groups or halves), each list moves in one
    position. If in the same list, apply the two changes in turn; the second lands on the
    position i of the first only if v's value is x + s, but then v's own entry lies
    strictly beyond i (after it for s = +1, before for s = -1) in the direction that
    changes take, so the positions differ. Hence l1 sensitivity 2, and sorting releases
    the degree distribution, not which node has which degree.

    Examples
    --------
    >>> sorted_sequence(np.array([3.0, 1.0, 2.0, 1.0]), None, False)
    array([1., 1., 2., 3.])
    """
    n = degrees.size // (2 if directed else 1)
    halves = [degrees[:n]] if not directed else [degrees[:n], degrees[n:]]
    if partition is None:  # one group: the sorted values
        return np.concatenate([np.sort(half) for half in halves])
    labels = partition.labels
    return np.concatenate([half[np.lexsort((half, labels))] for half in halves])


def _on_weight_grid(adjacency, pairs: int):
    if pairs >= 2**33:
        raise GraphInputError(
            f"{pairs} vertex pairs: weighted measurements are exact up to 2^33 pairs; use "
            "0/1 weights (weight=None)"
        )
    adjacency = adjacency.copy()
    adjacency.data = np.rint(adjacency.data / WEIGHT_GRID) * WEIGHT_GRID
    return adjacency


def _weight_slack(name: str, universe: EdgeUniverse, partition: Partition | None) -> np.ndarray:
    """``WEIGHT_GRID / 2`` per vertex pair each value of a low-dimensional measurement sums:
    how far rounding the weights can have moved it."""
    if name == "edge-count":
        pairs = np.array([universe.size])
    elif name == "degrees":
        pairs = np.full(universe.n * (2 if universe.directed else 1), universe.n - 1)
    else:
        pairs = partition.pairs
    return pairs * (WEIGHT_GRID / 2.0)


def _filtered(universe: EdgeUniverse, adjacency, plan: MeasurementPlan, epsilon: float, rng):
    """Filtered randomized response of the 0/1 CSR ``adjacency`` at the plan's threshold
    (:func:`~privcut.graph.filtered.filtered_pairs`): the kept positions and values.
    O(|V| + |E| log |E| + kept)."""
    edges = edge_positions(adjacency, universe)
    return filtered_pairs(universe, edges, epsilon, plan.threshold, rng)


def _corners(
    adjacency, records: list, partition: Partition | None, epsilon: float, rng
) -> tuple[np.ndarray, int]:
    """The ``"clustering"`` statistic and its cap: triangle corners of the capped projection
    (:func:`~privcut.graph.clustering.projected_corners` of
    :func:`~privcut.graph.clustering.capped_projection`, its salt public randomness drawn
    here, independent of G; each node's edges ordered by the other end's released noisy
    degree first, public given that output) at the cap
    :func:`~privcut.graph.clustering.choose_cap` picks from the degree measurements
    released before (:func:`~privcut.graph.clustering.degree_estimate` of the noisy
    sequence, else of the noisy degrees), summed per bin of the noisy degrees or pooled
    (:func:`~privcut.graph.clustering.bin_count`, by the cap and the measurement's
    ``epsilon``). O(n + |E| D), D the cap."""
    found = {record.name: record for record in records}
    degrees, sequence = found["degrees"].values, found.get(SEQUENCE)
    sizes = None if partition is None else np.bincount(partition.labels, minlength=partition.g)
    estimate = degree_estimate(None if sequence is None else sequence.values, degrees, sizes)
    cap = choose_cap(estimate)
    salt = int(rng.integers(0, 2**63))
    corners = projected_corners(adjacency, cap, salt, priority=degrees)
    count = bin_count(cap, epsilon)
    bins = degree_bins(degrees) if count > 1 else np.zeros(degrees.size, dtype=np.intp)
    return binned_corners(corners, bins, count), cap


def moment_of(measured_records, partition: Partition | None, n: int) -> tuple[int, int]:
    """The public cap and centre of the ``"assortativity"`` statistic from the
    ``"degree-sequence"`` among ``measured_records`` (taken before it):
    :func:`~privcut.graph.assortativity.moment_parameters` of its isotonic fit
    (:func:`~privcut.graph.assortativity.sequence_distribution`). Post-processing; the
    same in the measurement and in the generator's target. O(n log n)."""
    sequence = next(record for record in measured_records if record.name == SEQUENCE)
    labels = np.zeros(n, dtype=np.intp) if partition is None else partition.labels
    return moment_parameters(sequence_distribution(sequence.values, labels))


def _check_inputs(G, plan: MeasurementPlan, partition: Partition | None, nodes, directed):
    """The universe and G's checked adjacency (read once), or a clear error before any
    spend."""
    if not isinstance(plan, MeasurementPlan):
        raise TypeError(f"plan must be a MeasurementPlan, got {type(plan).__name__}")
    universe, adjacency = EdgeUniverse.read(G, plan.weight, nodes=nodes, directed=directed)
    check_pairs(universe, "measure")
    for name in (CLUSTERING, ASSORTATIVITY):
        if name in plan.measurements and universe.directed:
            raise ValueError(
                f"the plan measures {name!r}, which is for undirected graphs; drop it for a DiGraph"
            )
    if "blocks" in plan.measurements and partition is None:
        raise ValueError("the plan measures 'blocks': pass its partition (Partition.of)")
    if partition is not None and partition.labels.size != universe.n:
        raise ValueError(
            f"the partition has {partition.labels.size} nodes and the graph {universe.n}"
        )
    return universe, adjacency


def measure(
    G: nx.Graph | sp.sparray | sp.spmatrix,
    plan: MeasurementPlan,
    *,
    partition: Partition | None = None,
    nodes: Iterable[Hashable] | None = None,
    directed: bool | None = None,
    rng: RandomState = None,
) -> Measurements:
    """Take the plan's measurements of G: the one step that reads the graph.

    Privacy: (plan.epsilon, 0)-DP under edge-level neighbours (same public node set, one
    pair's weight changed by at most 1). Each measurement gets its noise at its own
    epsilon, paid from one budget of ``plan.epsilon`` before it is computed (basic
    composition, Dwork and Roth 2014, Thm 3.16); randomized response is GRU12 Lemma 6.1
    (one draw per pair), and its filtered form (Cormode et al. 2012) is distributed
    exactly as randomized response kept above the plan's public threshold
    (post-processing of it: the same guarantee). The plan's ``weight`` says how G is
    read: None as a 0/1 graph (any weight attribute ignored), an attribute name as
    weights in [0, 1], first rounded to :data:`WEIGHT_GRID` so the sums are exact
    (weighted statistics get grid noise, no floating-point leak: Mironov 2012).

    Parameters
    ----------
    G : networkx.Graph, networkx.DiGraph or scipy.sparse array
        The private graph, on the plan's node set: a NetworkX graph, or a square sparse
        adjacency whose rows are ``nodes`` (read in O(n + nnz) by
        :meth:`~privcut.graph.universe.EdgeUniverse.read`; no NetworkX object is built).
    plan : MeasurementPlan
        From :func:`~privcut.graph.planning.plan_measurements` (public inputs only).
    partition : Partition, optional
        The public groups, required when the plan measures ``"blocks"``.
    nodes : sequence of hashable, optional
        For a sparse G only: the public labels of its rows (default ``range(n)``), in the
        order the plan and partition were built on.
    directed : bool, optional
        For a sparse G only: the public declaration of its kind (default False).
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.

    Returns
    -------
    Measurements

    Examples
    --------
    >>> from privcut.graph.planning import plan_measurements
    >>> plan = plan_measurements(range(8), 1.0, {"edge-count": 0.5, "degrees": 0.5})
    >>> measured = measure(nx.path_graph(8), plan, rng=0)
    >>> [record.name for record in measured.records], measured.get("degrees").values.shape
    (['edge-count', 'degrees'], (8,))

    A sparse adjacency on the same nodes gives the same measurements:

    >>> A = nx.to_scipy_sparse_array(nx.path_graph(8))
    >>> again = measure(A, plan, rng=0)
    >>> bool((again.get("degrees").values == measured.get("degrees").values).all())
    True
    """
    universe, raw = _check_inputs(G, plan, partition, nodes, directed)
    rng = check_random_state(rng)
    adjacency = raw if plan.weight is None else _on_weight_grid(raw, universe.size)
    budget = PrivacyBudget(plan.epsilon)
    records, degrees_exact = [], None
    for name, eps, noise in zip(plan.measurements, plan.epsilons, plan.noise, strict=True):
        budget.spend(eps, label=name)
        pairs, largest, sensitivity = None, None, SENSITIVITY[name]
        if name == RANDOMIZED_RESPONSE:
            noisy = randomized_response(universe, raw, eps, rng, weight=plan.weight, noise=noise)
            values, draws = noisy.matrix, universe.size
        elif name == FILTERED:
            pairs, values = _filtered(universe, raw, plan, eps, rng)
            draws = universe.size
        elif name in (CLUSTERING, ASSORTATIVITY):  # noise at a cap the released degrees fix
            if name == CLUSTERING:
                exact, cap = _corners(raw, records, partition, eps, rng)
                sensitivity = clustering_sensitivity(cap, exact.size)
            else:
                cap, centre = moment_of(records, partition, universe.n)
                exact = np.array([clipped_moment(raw, cap, centre)], dtype=np.int64)
                sensitivity = moment_sensitivity(cap)
            noise = Noise.for_laplace(eps, sensitivity, integer=True, coordinates=exact.size)
            values, draws = noise.add(exact, rng=rng).astype(float), exact.size
            largest = largest_noise(name, eps, universe.n)
        else:
            if name in ("degrees", SEQUENCE):  # one degree sum for both
                if degrees_exact is None:
                    degrees_exact = statistic("degrees", adjacency, None, universe.directed)
                exact = degrees_exact
                if name == SEQUENCE:
                    exact = sorted_sequence(degrees_exact, partition, universe.directed)
            else:
                exact = statistic(name, adjacency, partition, universe.directed)
            records.append(noisy_statistic(name, exact, plan, universe, partition, rng))
            continue
        share = eps / plan.epsilon
        record = Measurement(
            name, values, noise, sensitivity, eps, share, draws, None, None, pairs, largest
        )
        records.append(record)
    return Measurements(plan, universe, partition, tuple(records))


def noisy_statistic(
    name: str,
    exact: np.ndarray,
    plan: MeasurementPlan,
    universe: EdgeUniverse,
    partition: Partition | None,
    rng: RandomState,
) -> Measurement:
    """One low-dimensional measurement (``"edge-count"``, ``"degrees"``,
    ``"degree-sequence"``, ``"blocks"``) from its exact value: the plan's noise for
    ``name`` added to ``exact`` (as :func:`statistic` computes it, however it was
    aggregated), then for ``"degree-sequence"`` its public random node order. The step
    :func:`measure` takes per measurement, shared with engines that aggregate the exact
    values elsewhere (:mod:`privcut.graph.dask`), so both draw the same noise in the same
    order from ``rng``. The caller spends the plan's epsilon for ``name`` first.

    Privacy: Laplace noise (discrete for 0/1 graphs) at the measurement's epsilon and its
    l1 sensitivity under edge-level neighbours (:data:`~privcut.graph.planning.SENSITIVITY`;
    Dwork and Roth 2014, Thm 3.6; the discrete form Canonne, Kamath, Steinke 2020): the
    measurement is (epsilon_name, 0)-DP; the node order is independent of G. O(size of
    ``exact`` + n).

    Examples
    --------
    >>> from privcut.graph.planning import plan_measurements
    >>> plan = plan_measurements(range(4), 1.0, ["edge-count"])
    >>> universe = EdgeUniverse(tuple(range(4)), False)
    >>> record = noisy_statistic("edge-count", np.array([3.0]), plan, universe, None, 0)
    >>> record.name, record.values.shape, record.epsilon
    ('edge-count', (1,), 1.0)
    """
    rng = check_random_state(rng)
    index = plan.measurements.index(name)
    eps, noise = plan.epsilons[index], plan.noise[index]
    # weighted graphs: on the noise's public grid, no floating-point leak
    values = noise.add(exact, rng=rng).astype(float)
    slack = _weight_slack(name, universe, partition) if plan.weight is not None else None
    order = None
    if name == SEQUENCE:  # public randomness, independent of G
        halves = 2 if universe.directed else 1
        order = np.stack([rng.permutation(universe.n) for _ in range(halves)])
    share = eps / plan.epsilon
    return Measurement(
        name, values, noise, SENSITIVITY[name], eps, share, exact.size, slack, order, None
    )
