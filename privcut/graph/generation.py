"""The generation step: a released graph from the measurements and fitted targets, behind
one small interface, :class:`GraphGenerator`.

A generator checks its own options record (:meth:`GraphGenerator.options`) and takes the
:class:`~privcut.graph.measurement.Measurements`, the fitted
:class:`~privcut.graph.fitting.Targets`, those options and a random generator; it returns
a :class:`Generated`, which exposes what the bounds and the report read (edge count,
block sums, degrees, the NetworkX graph, a :class:`~privcut.records.SolverSummary`, its
own bound on every cut and that bound's terms) whatever its representation. It never
sees the graph, so whatever it does is post-processing.

:class:`DenseGenerator` is today's generator: the consistent projection of
:mod:`privcut.graph.projection` on the n x n matrix (GRU12 Lemma 6.2, §6.2), then
rounding (Remark 6.3): dependent rounding within the block pairs (or all pairs) keeps the
fitted counts exactly, independent rounding serves randomized response alone. Its result,
:class:`DenseGenerated`, holds a weight for every vertex pair.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.graph.arrays import edge_array
from privcut.graph.cutnorm import cut_norm
from privcut.graph.fitting import Targets
from privcut.graph.measurement import Measurements
from privcut.graph.noisy import NoisyGraph
from privcut.graph.partition import Partition
from privcut.graph.projection import Projection, cutting_planes, size_scale, threshold
from privcut.graph.rounding import dependent_rounding, independent_rounding, rounding_bound
from privcut.graph.universe import EdgeUniverse
from privcut.privacy import check_beta
from privcut.privacy.validation import as_real, check_option, check_scalar
from privcut.records import Bound, SolverSummary

__all__ = [
    "ORACLES",
    "ROUNDINGS",
    "DenseGenerated",
    "DenseGenerator",
    "DenseOptions",
    "Generated",
    "GraphGenerator",
]

ORACLES = ("spectral", "alon-naor")
ROUNDINGS = ("random", None)

FIT_STEPS = 50
"""Bisection steps of the final per-group shift that makes block sums exact."""

FIT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class DenseOptions:
    """:class:`DenseGenerator`'s checked options.

    Attributes
    ----------
    oracle : {"spectral", "alon-naor"}
        Cut constraints and their separation (randomized response only).
    rounding : {"random", None}
        A 0/1 graph or the weighted one.
    beta : float
        Failure probability of the generator's own bound (split between its random
        terms); :func:`~privcut.graph.synthetic.synthetic_graph` passes half its beta
        (:func:`~privcut.graph.bounds.split_beta`).
    tau : float or None
        Constraint level; None: the oracle's value on fresh noise.
    max_iterations : int
        Most separation rounds.
    progress : bool
        Show a progress bar.

    Examples
    --------
    >>> DenseOptions.checked(rounding=None).oracle
    'spectral'
    """

    oracle: str = "spectral"
    rounding: str | None = "random"
    beta: float = 0.025
    tau: float | None = None
    max_iterations: int = 100
    progress: bool = False

    @classmethod
    def checked(cls, **options) -> DenseOptions:
        """The options, each checked (a clear error before any work)."""
        options = {**cls().__dict__, **options}
        check_option(options["oracle"], "oracle", ORACLES)
        check_option(options["rounding"], "rounding", ROUNDINGS)
        options["beta"] = check_beta(options["beta"])
        if options["tau"] is not None:
            tau = as_real(options["tau"], "tau")  # an int beyond the float range: inf
            options["tau"] = check_scalar(tau, "tau", float, low=0.0, closed="neither")
        options["max_iterations"] = check_scalar(options["max_iterations"], "max_iterations", int)
        options["progress"] = bool(options["progress"])
        return cls(**options)


class Generated(ABC):
    """What a generator returns (post-processing of the measurements), whatever its
    representation: what the bounds and the report read.

    Attributes
    ----------
    universe : EdgeUniverse
        The public node set and kind of the release.
    mechanism : str
        What ran, as the report names it.
    solver : SolverSummary
    bound : Bound
        The generator's own bound on every cut's error, at its options' beta
        (``Bound.none()`` when it has none).
    terms : dict
        The generator's own report entries by report key (for the dense generator
        ``oracle``, ``rounding``, ``tau``, ``certified_distance``, ``noise_bound``,
        ``rounding_bound``); a key it does not have is reported as None.
    timings : dict
        Seconds per step, for the log only (never released).

    Examples
    --------
    See :class:`DenseGenerated`.
    """

    universe: EdgeUniverse
    mechanism: str
    solver: SolverSummary
    bound: Bound
    terms: dict
    timings: dict

    @property
    @abstractmethod
    def edge_count(self) -> float:
        """The released graph's edge count (weight sum when weighted)."""

    @abstractmethod
    def block_sums(self, partition: Partition) -> np.ndarray:
        """The released graph's edge count in each block pair of ``partition``."""

    @abstractmethod
    def degrees(self) -> np.ndarray:
        """The released degrees (out- then in-degrees for a DiGraph)."""

    @abstractmethod
    def graph(self) -> nx.Graph:
        """The released NetworkX graph."""

    def array(self) -> sp.csr_array:
        """The released graph as an n x n CSR adjacency in the universe's node order
        (symmetric for a Graph; the weights when weighted). This default converts
        :meth:`graph`; :class:`DenseGenerated` and
        :class:`~privcut.graph.sparse.SparseGenerated` build it from their own arrays
        without NetworkX."""
        H = self.graph()
        return sp.csr_array(nx.to_scipy_sparse_array(H, nodelist=self.universe.nodes))


@dataclass(frozen=True)
class DenseGenerated(Generated):
    """:class:`DenseGenerator`'s result: a weight for every vertex pair.

    Attributes
    ----------
    universe : EdgeUniverse
    values : numpy.ndarray
        The released pair weights in histogram order (0/1 when ``rounded``).
    rounded : bool
        Whether the release is a 0/1 graph.
    mechanism, solver, bound, terms, timings
        As :class:`Generated`.

    Examples
    --------
    >>> done = DenseGenerated(EdgeUniverse((0, 1, 2), False), np.array([1.0, 0.0, 1.0]),
    ...                       True, "example", SolverSummary(None, 0, 0, True), Bound.none(), {})
    >>> sorted(done.graph().edges), done.edge_count, done.degrees().tolist()
    ([(0, 1), (1, 2)], 2.0, [1.0, 2.0, 1.0])
    >>> done.array().toarray().tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    """

    universe: EdgeUniverse
    values: np.ndarray
    rounded: bool
    mechanism: str
    solver: SolverSummary
    bound: Bound
    terms: dict
    timings: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def edge_count(self) -> float:
        """The sum of the pair weights."""
        return float(self.values.sum())

    def block_sums(self, partition: Partition) -> np.ndarray:
        """The pair weights summed per block pair."""
        rows, columns = self.universe.pair_index()
        return np.bincount(partition.block_of(rows, columns), self.values, partition.size)

    def degrees(self) -> np.ndarray:
        """The pair weights summed per node (out- then in-degrees for a DiGraph)."""
        universe = self.universe
        rows, columns = universe.pair_index()
        out = np.bincount(rows, self.values, universe.n)
        into = np.bincount(columns, self.values, universe.n)
        return np.concatenate([out, into]) if universe.directed else out + into

    def graph(self) -> nx.Graph:
        """Unweighted when rounded, else weighted (zero pairs omitted)."""
        if self.rounded:
            return self.universe.unweighted_graph(np.flatnonzero(self.values))
        return self.universe.graph(self.values)

    def array(self) -> sp.csr_array:
        """The nonzero pairs as a CSR adjacency (0/1 when rounded, else the weights),
        symmetric for a Graph; O(number of pairs), as the dense release itself."""
        universe = self.universe
        chosen = np.flatnonzero(self.values)
        rows, columns = universe.pair_index()
        return edge_array(
            rows[chosen], columns[chosen], self.values[chosen], universe.n, universe.directed
        )


@runtime_checkable
class GraphGenerator(Protocol):
    """The interface of a generator: ``name`` (the report's ``method``), ``options``
    (its own checked options record from keyword arguments, before any work) and
    :meth:`generate`, which must read nothing but its arguments (post-processing) and
    returns a :class:`Generated`.

    Examples
    --------
    :class:`DenseGenerator` satisfies it:

    >>> isinstance(DenseGenerator(), GraphGenerator)
    True
    >>> DenseGenerator().options(oracle="alon-naor").oracle
    'alon-naor'
    """

    name: str

    def options(self, **given) -> object:
        """The generator's checked options (a clear error for a bad one)."""
        ...

    def generate(
        self, measured: Measurements, targets: Targets, options, rng: np.random.Generator
    ) -> Generated:
        """The released graph, a solver summary and the generator's bound."""
        ...


def _integer_counts(values: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """Integers with the values' means whose sum is the values' sum rounded (dependent
    rounding of the fractional parts)."""
    whole = np.floor(values)
    extra = dependent_rounding(values - whole, np.zeros(values.size, dtype=np.intp), generator)
    return whole + extra


def _fit_sums(values: np.ndarray, groups: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """``clip(values - nu_g, 0, 1)`` with, for every group g, the shift nu_g that makes the
    group's sum its target (bisection on all groups at once; targets lie in [0, size])."""
    sums = np.bincount(groups, values, targets.size)
    if np.allclose(sums, targets, rtol=0.0, atol=FIT_TOLERANCE):
        return values
    low, high = np.full(targets.size, -1.0), np.full(targets.size, 1.0)
    for _ in range(FIT_STEPS):
        middle = (low + high) / 2.0
        sums = np.bincount(groups, np.clip(values - middle[groups], 0.0, 1.0), targets.size)
        above = sums > targets
        low, high = np.where(above, middle, low), np.where(above, high, middle)
    return np.clip(values - ((low + high) / 2.0)[groups], 0.0, 1.0)


def _matrix(universe: EdgeUniverse, values: np.ndarray) -> np.ndarray:
    rows, columns = universe.pair_index()
    matrix = np.zeros((universe.n, universe.n))
    matrix[rows, columns] = values
    if not universe.directed:
        matrix[columns, rows] = values
    return matrix


@dataclass
class _Model:
    """What the release keeps exactly: the projection (centre and equalities), and the
    groups of pairs whose edge counts rounding preserves."""

    projection: Projection
    groups: np.ndarray | None
    counts: np.ndarray | None


class DenseGenerator:
    """Today's generator: the consistent projection on the dense n x n matrix, then
    rounding (GRU12 Lemma 6.2, §6.2, Remark 6.3). Memory and time grow like n^2.

    Examples
    --------
    >>> from privcut.graph.fitting import fit_targets
    >>> from privcut.graph.measurement import measure
    >>> from privcut.graph.planning import plan_measurements
    >>> plan = plan_measurements(range(12), 1.0, ["edge-count", "randomized-response"])
    >>> measured = measure(nx.cycle_graph(12), plan, rng=0)
    >>> generator = DenseGenerator()
    >>> options = generator.options(rounding=None)
    >>> targets, rng = fit_targets(measured), np.random.default_rng(0)
    >>> done = generator.generate(measured, targets, options, rng)
    >>> done.values.shape, done.bound.source, done.mechanism
    ((66,), 'randomized-response', 'consistent projection (GRU12 Lemma 6.2, §6.2)')
    """

    name = "dense"

    def options(self, **given) -> DenseOptions:
        """:meth:`DenseOptions.checked`."""
        return DenseOptions.checked(**given)

    def centre(self, noisy: NoisyGraph) -> np.ndarray:
        """The point a release from randomized response alone stays nearest to: the noisy
        matrix clipped to [0, 1] (the hook a test's broken twin overrides)."""
        return np.clip(noisy.matrix, 0.0, 1.0)

    def model(self, measured: Measurements, targets: Targets, rng: np.random.Generator) -> _Model:
        """The centre and constraints from the fitted targets: the block-uniform (or
        uniform) graph with the fitted integer counts, the least committal graph they
        describe; randomized response alone keeps :meth:`centre`."""
        universe, partition = measured.universe, measured.partition
        if targets.total is None:
            return _Model(Projection(self.centre(measured.noisy), universe.directed), None, None)
        rows, columns = universe.pair_index()
        if targets.blocks is not None:
            counts = _integer_counts(targets.blocks, rng)
            centre = partition.expand(counts / np.maximum(partition.pairs, 1))
            equalities = {"partition": partition, "blocks": counts}
            groups = partition.block_of(rows, columns)
        else:
            counts = _integer_counts(np.array([targets.total]), rng)
            centre = np.full((universe.n, universe.n), counts[0] / universe.size)
            equalities = {"total": float(counts[0])}
            groups = np.zeros(rows.size, dtype=np.intp)
        np.fill_diagonal(centre, 0.0)
        projection = Projection(centre, universe.directed, degrees=targets.degrees, **equalities)
        return _Model(projection, groups, counts)

    def generate(
        self,
        measured: Measurements,
        targets: Targets,
        options: DenseOptions,
        rng: np.random.Generator,
    ) -> DenseGenerated:
        """Project, fit the block sums exactly, certify, round (see the class). Filtered
        randomized response is refused (ValueError, from the plan's public measurement
        names): its survivors enter only the sparse generator."""
        if "filtered-randomized-response" in measured.plan.measurements:
            raise ValueError(
                "the dense generator does not use 'filtered-randomized-response' (its "
                "survivors enter the sparse generator): use method='sparse', or drop it "
                "from measurements"
            )
        timings = {"threshold": 0.0, "oracle": 0.0, "solver": 0.0}
        universe, noisy = measured.universe, measured.noisy
        levels = size_scale(universe.n) if options.oracle == "spectral" and noisy else None
        start, tau = time.perf_counter(), options.tau
        if noisy is not None and tau is None:
            tau = threshold(noisy, options.oracle, levels, rng)
        timings["threshold"] = time.perf_counter() - start
        model = self.model(measured, targets, rng)
        x, solver = cutting_planes(
            model.projection,
            noisy,
            tau,
            options.oracle,
            levels,
            options.max_iterations,
            rng,
            options.progress,
            timings,
        )
        rows, columns = universe.pair_index()
        values = x[rows, columns]
        del x, model.projection
        if model.counts is not None:
            values = _fit_sums(values, model.groups, model.counts)
        terms = {"oracle": options.oracle if noisy is not None else None, "tau": tau}
        return self._certify_and_round(
            measured, model, values, terms, solver, options, rng, timings
        )

    def _certify_and_round(
        self, measured, model, values, terms, solver, options, rng, timings
    ) -> DenseGenerated:
        """The bound's terms (certified distance, the noise's uniform bound, Bernstein's
        bound for the rounding; beta split evenly between the random ones) and the
        rounded pairs."""
        universe, noisy, rounding = measured.universe, measured.noisy, options.rounding
        start = time.perf_counter()
        term_beta = options.beta / ((noisy is not None) + (rounding is not None) or 1)
        certified = noise_bound = None
        matrix = _matrix(universe, values) if noisy is not None or rounding else None
        if noisy is not None:
            certified = cut_norm(matrix - noisy.matrix, rng=rng).upper_bound
            noise_bound = noisy.uniform_error_bound(term_beta)
        timings["certificate"] = time.perf_counter() - start
        start = time.perf_counter()
        bound_of_rounding, released = 0.0, values
        if rounding == "random":
            bound_of_rounding = rounding_bound(matrix, universe.directed, term_beta)
            if model.groups is None:
                rows, columns = universe.pair_index()
                rounded = independent_rounding(matrix, universe.directed, rng)[rows, columns]
            else:
                rounded = dependent_rounding(values, model.groups, rng)
            released = rounded.astype(float)
        timings["rounding"] = time.perf_counter() - start
        bound = Bound.none()
        if noisy is not None:
            bound = Bound(certified + noise_bound + bound_of_rounding, "randomized-response")
        terms = {
            **terms,
            "rounding": rounding,
            "certified_distance": certified,
            "noise_bound": noise_bound,
            "rounding_bound": bound_of_rounding,
        }
        return DenseGenerated(
            universe,
            released,
            rounding is not None,
            _mechanism(noisy is not None, rounding, model.groups is not None),
            solver,
            bound,
            terms,
            timings,
        )


def _mechanism(cuts: bool, rounding: str | None, dependent: bool) -> str:
    """What the dense generator ran: the consistent projection with cut constraints (with
    randomized response), else the projection onto the fitted counts alone; then the
    rounding."""
    if cuts:
        steps = "consistent projection (GRU12 Lemma 6.2, §6.2)"
    else:
        steps = "projection onto the fitted counts (no cut constraints)"
    if rounding is not None:
        kind = "dependent" if dependent else "independent"
        steps += f" + {kind} rounding (GRU12 Remark 6.3)"
    return steps
