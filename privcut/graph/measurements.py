"""Several measurements of one graph under one budget: which, how much each, and what they
let a release claim.

A synthetic graph need not rest on randomized response alone. Its error on a cut grows
like ``sqrt(|S||T|) / epsilon``, while a noisy edge count answers every balanced bisection
to within the bisections' own spread plus ``1/epsilon``, and noisy block-pair counts of a
public partition answer every cut between groups to within about ``1/epsilon``. The
measurements here, all under edge-level neighbours (one pair's weight changed by at most
1), are

- ``"edge-count"``: the number of edges (l1 sensitivity 1);
- ``"degrees"``: the degree sequence (sensitivity 2: an edge raises two degrees; out- and
  in-degrees for a DiGraph, again 2);
- ``"blocks"``: the edge count of every block pair of a public partition ``groups``
  (sensitivity 1: a pair lies in one block pair);
- ``"randomized-response"``: every pair's weight (:func:`~privcut.graph.noisy.noisy_graph`,
  sensitivity 1 per pair, GRU12 §6.1).

Each gets Laplace noise (discrete for 0/1 graphs, on a public grid for weighted ones: see
:class:`~privcut.privacy.Noise`) at its share of epsilon; the shares add
up to epsilon by basic composition (Dwork and Roth 2014, Thm 3.16) and are chosen by
:func:`plan_measurements` from public values only: the node count, the partition's sizes
and a declared workload.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache

import networkx as nx
import numpy as np
from scipy.optimize import brentq, minimize

from privcut.exceptions import GraphInputError
from privcut.graph.noisy import NoisyGraph, noisy_graph, uniform_bound
from privcut.graph.universe import EdgeUniverse, check_pairs
from privcut.privacy import Noise, PrivacyBudget, check_beta, check_epsilon
from privcut.privacy.noise import laplace_moments

__all__ = [
    "CLASSES",
    "MEASUREMENTS",
    "MeasurementPlan",
    "Partition",
    "plan_measurements",
]

MEASUREMENTS = ("edge-count", "degrees", "blocks", "randomized-response")
SENSITIVITY = {"edge-count": 1.0, "degrees": 2.0, "blocks": 1.0, "randomized-response": 1.0}
CHANGED = {"edge-count": 1, "degrees": 2, "blocks": 1, "randomized-response": 1}
"""How many values of each measurement one vertex pair moves (both endpoints' degrees; one
block; one pair): the grid noise for weighted graphs is calibrated with it."""

CLASSES = ("within-group", "between-group", "group-vs-rest", "degree", "bisection", "arbitrary-cut")
"""Workload classes: each group's internal edge count, the cut between two groups, a group
against the rest, a node against the rest (its degree), balanced bisections, any cut."""

DEFAULT_WEIGHTS = {
    "within-group": 1.0,
    "between-group": 1.0,
    "group-vs-rest": 1.0,
    "degree": 1.0,
    "bisection": 0.75,
    "arbitrary-cut": 0.25,
}
"""The default workload: the group classes (when a partition is given) and degrees (when
measured) at weight 1; bisections and arbitrary cuts share one unit, 3/4 and 1/4.
Randomized response's uniform bound is weak at any share on large graphs (it grows like
``|V|^{3/2} / epsilon``), so it serves as a check on the low-dimensional model rather
than taking the budget the group counts need: on 20 groups of 50 nodes this keeps the
block counts' mean error within about 1.3x of spending everything on them."""

MIN_SHARE = 0.02
"""A measurement whose best share is below this is not taken (its budget goes to the rest)."""


@dataclass(frozen=True)
class Partition:
    """A public partition of the nodes into groups, and its block pairs.

    Block pairs are unordered ``(a, b)``, ``a <= b``, for a Graph and ordered for a DiGraph;
    ``pairs[k]`` is the number of vertex pairs in block pair k.

    Examples
    --------
    >>> universe = EdgeUniverse.of(nx.path_graph(4))
    >>> partition = Partition.of(universe, {0: "x", 1: "x", 2: "y", 3: "y"})
    >>> partition.pairs.tolist()  # (x, x), (x, y), (y, y)
    [1, 4, 1]
    >>> partition.block_sums(nx.to_numpy_array(nx.path_graph(4))).tolist()
    [1.0, 1.0, 1.0]
    """

    labels: np.ndarray
    names: tuple
    directed: bool

    @classmethod
    def of(cls, universe: EdgeUniverse, groups: Mapping[Hashable, Hashable]) -> Partition:
        """The partition of the universe's nodes given by a mapping node -> group."""
        if not isinstance(groups, Mapping):
            raise TypeError(f"groups must be a mapping node -> group, got {type(groups).__name__}")
        missing = [node for node in universe.nodes if node not in groups]
        if missing:
            raise GraphInputError(
                f"groups has no group for {len(missing)} node(s), e.g. {missing[:3]!r}; "
                "give every node a (public) group"
            )
        if len(groups) != universe.n:
            extra = [node for node in groups if node not in universe.index()]
            raise GraphInputError(f"groups names node(s) not in the graph, e.g. {extra[:3]!r}")
        names: dict[Hashable, int] = {}
        try:
            labels = [names.setdefault(groups[node], len(names)) for node in universe.nodes]
        except TypeError as error:
            raise TypeError(f"group labels must be hashable: {error}") from None
        return cls(np.array(labels, dtype=np.intp), tuple(names), universe.directed)

    @property
    def g(self) -> int:
        """Number of groups."""
        return len(self.names)

    @cached_property
    def sizes(self) -> np.ndarray:
        return np.bincount(self.labels, minlength=self.g)

    @cached_property
    def blocks(self) -> tuple[np.ndarray, np.ndarray]:
        """The block pairs as (first group, second group) arrays."""
        if self.directed:
            first, second = np.indices((self.g, self.g))
            return first.ravel(), second.ravel()
        return np.triu_indices(self.g)

    @property
    def size(self) -> int:
        """Number of block pairs."""
        return self.blocks[0].size

    @cached_property
    def pairs(self) -> np.ndarray:
        first, second = self.blocks
        counts = self.sizes[first] * self.sizes[second]
        inside = first == second
        counts[inside] -= self.sizes[first[inside]]
        if not self.directed:
            counts[inside] //= 2
        return counts

    @cached_property
    def _table(self) -> np.ndarray:
        """Block pair index of every (group, group)."""
        table = np.empty((self.g, self.g), dtype=np.intp)
        first, second = self.blocks
        table[first, second] = np.arange(self.size)
        if not self.directed:
            table[second, first] = np.arange(self.size)
        return table

    @cached_property
    def indicator(self) -> np.ndarray:
        """The n x g 0/1 membership matrix."""
        return np.eye(self.g)[self.labels]

    def block_of(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """The block pair of every vertex pair (rows[p], columns[p])."""
        return self._table[self.labels[rows], self.labels[columns]]

    def block_sums(self, matrix) -> np.ndarray:
        """Pair weight in every block pair, from an n x n (dense or sparse) matrix with zero
        diagonal; an undirected pair inside a group appears twice in the matrix."""
        P = self.indicator
        sums = np.asarray(P.T @ (matrix @ P))
        first, second = self.blocks
        values = sums[first, second]
        if not self.directed:
            values[first == second] /= 2.0
        return values

    def expand(self, values: np.ndarray) -> np.ndarray:
        """The n x n matrix holding each block pair's value on its vertex pairs."""
        return np.asarray(values)[self._table][self.labels][:, self.labels]

    def rest(self) -> list[np.ndarray]:
        """For each group a, the block pairs of the cut (a, V - a)."""
        first, second = self.blocks
        if self.directed:
            return [np.flatnonzero((first == a) & (second != a)) for a in range(self.g)]
        return [
            np.flatnonzero((first != second) & ((first == a) | (second == a)))
            for a in range(self.g)
        ]


@dataclass(frozen=True)
class MeasurementPlan:
    """How a budget is split over measurements, chosen without the data.

    Attributes
    ----------
    epsilon : float
        The total.
    measurements : tuple of str
        The measurements taken, in order.
    epsilons : tuple of float
        Each one's epsilon; they add up to ``epsilon`` (exactly, as rationals, up to the
        last float's rounding).
    noise : tuple of Noise
        Each one's noise per coordinate.
    workload : dict
        Workload class -> weight used to choose the split.
    predicted : dict
        Workload class -> the predicted mean absolute error of the release's noise term
        on one query of that class (for ``"arbitrary-cut"``, randomized response's
        uniform bound over all cuts at ``beta``): data-independent.
    dropped : tuple of str
        Requested measurements whose best share was below :data:`MIN_SHARE`.

    Examples
    --------
    >>> plan = plan_measurements(range(100), 2.0, {"edge-count": 0.25, "degrees": 0.75})
    >>> [(m["name"], m["epsilon"], m["scale"]) for m in plan.report()]
    [('edge-count', 0.5, 2.0), ('degrees', 1.5, 1.3333333333333333)]
    """

    epsilon: float
    measurements: tuple[str, ...]
    epsilons: tuple[float, ...]
    noise: tuple[Noise, ...]
    workload: dict = field(hash=False)
    predicted: dict = field(hash=False)
    dropped: tuple[str, ...] = ()

    def noise_of(self, name: str) -> Noise | None:
        """The noise of a measurement, or None if it is not taken."""
        if name not in self.measurements:
            return None
        return self.noise[self.measurements.index(name)]

    def report(self) -> list[dict]:
        """One dict per measurement: name, share, epsilon, noise kind, scale, sensitivity."""
        return [
            {
                "name": name,
                "share": eps / self.epsilon,
                "epsilon": eps,
                "noise": noise.kind,
                "scale": noise.scale,
                "sensitivity": SENSITIVITY[name],
            }
            for name, eps, noise in zip(self.measurements, self.epsilons, self.noise, strict=True)
        ]


@dataclass(frozen=True)
class _Shape:
    """The public facts the predictions depend on."""

    n: int
    directed: bool
    integer: bool
    group_sizes: tuple[int, ...] | None

    @property
    def pairs(self) -> int:
        return self.n * (self.n - 1) if self.directed else math.comb(self.n, 2)

    @property
    def blocks(self) -> int:
        g = len(self.group_sizes)
        return g * g if self.directed else g * (g + 1) // 2


def _noise(name: str, epsilon: float, integer: bool) -> Noise:
    return Noise.for_laplace(epsilon, SENSITIVITY[name], integer=integer, coordinates=CHANGED[name])


def _moments(name: str, epsilon: float, integer: bool) -> tuple[float, float]:
    """Variance and mean absolute value of the measurement's noise at this epsilon (without
    :class:`~privcut.privacy.Noise`'s cap on the scale, which the split search passes)."""
    return laplace_moments(SENSITIVITY[name] / epsilon, integer)


def _predict(moments: dict[str, tuple[float, float]], shape: _Shape) -> dict[str, float]:
    """Predicted mean absolute noise error per workload class, from each measurement's
    noise (variance, mean absolute value): exact for one draw, the Gaussian approximation
    for sums of several; for ``"arbitrary-cut"`` randomized response's standard
    deviation, to which its uniform bound is proportional."""
    predicted = {}
    if "blocks" in moments:
        variance, absolute = moments["blocks"]
        g = len(shape.group_sizes)
        predicted["within-group"] = absolute
        if g > 1:
            predicted["between-group"] = absolute
            others = g - 1
            predicted["group-vs-rest"] = (
                absolute if others == 1 else math.sqrt(2.0 / math.pi * others * variance)
            )
    if "degrees" in moments:
        predicted["degree"] = moments["degrees"][1]
    information = 0.0  # 1 / variance of the total edge count, from every measurement
    if "edge-count" in moments:
        information += 1.0 / moments["edge-count"][0]
    if "blocks" in moments:
        information += 1.0 / (shape.blocks * moments["blocks"][0])
    if "degrees" in moments:  # degrees sum to 2 x total (Graph); out and in to total (DiGraph)
        per_sum = shape.n * moments["degrees"][0]
        information += 2.0 / per_sum if shape.directed else 4.0 / per_sum
    if "randomized-response" in moments:
        variance = moments["randomized-response"][0]
        information += 1.0 / (shape.pairs * variance)
        predicted["arbitrary-cut"] = math.sqrt(variance)
    predicted["bisection"] = math.sqrt(2.0 / math.pi / information) / 2.0
    return predicted


def _answerable(names: tuple[str, ...], shape: _Shape) -> set[str]:
    """The workload classes the measurements can answer."""
    return set(_predict({name: (1.0, 1.0) for name in names}, shape))


def _workload(weights: Mapping[str, float] | None, names: tuple[str, ...], shape: _Shape) -> dict:
    """The declared or default class weights, restricted to the classes the measurements
    can answer."""
    answerable = _answerable(names, shape)
    if weights is None:
        return {c: w for c, w in DEFAULT_WEIGHTS.items() if c in answerable}
    if not isinstance(weights, Mapping):
        raise TypeError("workload must be a mapping class -> weight, e.g. {'bisection': 1.0}")
    chosen = {}
    for name, weight in weights.items():
        if name not in CLASSES:
            raise ValueError(f"unknown workload class {name!r}; choose from {CLASSES}")
        if name not in answerable:
            raise ValueError(
                f"workload class {name!r} is not answered by the measurements {names}; "
                "add the measurement it needs ('blocks' with groups for group classes, "
                "'degrees' for 'degree', 'randomized-response' for 'arbitrary-cut')"
            )
        weight = float(weight)
        if not math.isfinite(weight) or weight < 0.0:
            raise ValueError(f"workload weight of {name!r} must be finite and >= 0, got {weight}")
        if weight > 0.0:
            chosen[name] = weight
    if not chosen:
        raise ValueError("the workload needs at least one class with a positive weight")
    return chosen


def _objective(logits: np.ndarray, names, weights, epsilon: float, shape: _Shape) -> float:
    shares = np.exp(logits - logits.max())
    shares = np.maximum(shares / shares.sum(), 1e-12)
    moments = {
        name: _moments(name, epsilon * share, shape.integer)
        for name, share in zip(names, shares, strict=True)
    }
    predicted = _predict(moments, shape)
    return sum(w * math.log(predicted[c]) for c, w in weights.items())


@lru_cache(maxsize=64)
def _best_shares(
    names: tuple[str, ...], weights: tuple, epsilon: float, shape: _Shape
) -> tuple[float, ...]:
    """argmin over the simplex of ``sum_c w_c log predicted_c(shares)``: the split that
    minimises the weighted geometric mean of each class's predicted error relative to its
    best (the full budget on the measurement serving it). Several starts (the objective
    is not convex in the shares: the edge count and the blocks' sum both serve bisections)."""
    k = len(names)
    if k == 1:
        return (1.0,)
    weights = dict(weights)
    starts = [np.zeros(k)] + [
        np.log(np.where(np.arange(k) == i, 4.0 * (k - 1), 1.0)) for i in range(k)
    ]
    best = min(
        (
            minimize(
                _objective,
                start,
                args=(names, weights, epsilon, shape),
                method="Nelder-Mead",
                options={"xatol": 1e-6, "fatol": 1e-10, "maxiter": 2000},
            )
            for start in starts
        ),
        key=lambda result: result.fun,
    )
    shares = np.exp(best.x - best.x.max())
    return tuple(float(s) for s in shares / shares.sum())


def _names(measurements, groups: object) -> tuple[str, ...]:
    if measurements == "auto":
        blocks = ("blocks",) if groups is not None else ()
        return ("edge-count", *blocks, "randomized-response")
    if isinstance(measurements, str) or not isinstance(measurements, Iterable):
        raise ValueError(
            f"measurements must be 'auto' or a list from {MEASUREMENTS}, got {measurements!r}"
        )
    names = tuple(measurements)
    unknown = [name for name in names if name not in MEASUREMENTS]
    if unknown or not names or len(set(names)) != len(names):
        raise ValueError(
            f"measurements must be distinct names from {MEASUREMENTS}, got {list(names)!r}"
        )
    if "blocks" in names and groups is None:
        raise ValueError("the 'blocks' measurement needs groups, a public mapping node -> group")
    if groups is not None and "blocks" not in names:
        raise ValueError("groups are used by the 'blocks' measurement; add it to measurements")
    return tuple(name for name in MEASUREMENTS if name in names)


def _exact_split(epsilon: float, shares: tuple[float, ...]) -> tuple[float, ...]:
    """Epsilons proportional to the shares whose exact sum is epsilon (the last one takes
    the remainder, computed with rationals)."""
    parts = [float(Fraction(epsilon) * Fraction(share)) for share in shares[:-1]]
    last = float(Fraction(epsilon) - sum(Fraction(part) for part in parts))
    return (*parts, last)


def _shares(measurements, groups, workload, epsilon: float, shape: _Shape):
    """The measurements taken, their shares, the workload weights and the dropped ones:
    the caller's shares for a mapping, else the best split (dropping measurements below
    MIN_SHARE and splitting again)."""
    if isinstance(measurements, Mapping):
        names = _names(list(measurements), groups)
        shares = tuple(float(measurements[name]) for name in names)
        if any(not math.isfinite(s) or s <= 0.0 for s in shares) or not math.isclose(
            math.fsum(shares), 1.0, rel_tol=1e-9
        ):
            raise ValueError(
                f"measurement shares must be positive and sum to 1, got {dict(measurements)!r}"
            )
        return names, shares, _workload(workload, names, shape), ()
    names = requested = _names(measurements, groups)
    weights = _workload(workload, names, shape)
    while True:
        shares = _best_shares(names, tuple(sorted(weights.items())), epsilon, shape)
        keep = tuple(name for name, s in zip(names, shares, strict=True) if s >= MIN_SHARE)
        if keep == names:
            dropped = tuple(name for name in requested if name not in names)
            return names, shares, weights, dropped
        names, answerable = keep, _answerable(keep, shape)
        weights = {c: w for c, w in weights.items() if c in answerable}


def plan_measurements(
    nodes: Iterable[Hashable],
    epsilon: float,
    measurements: str | Iterable[str] | Mapping[str, float] = "auto",
    *,
    groups: Mapping[Hashable, Hashable] | None = None,
    workload: Mapping[str, float] | None = None,
    directed: bool = False,
    integer_weights: bool = True,
    beta: float = 0.05,
) -> MeasurementPlan:
    """Split epsilon over measurements from public values only (never the graph).

    The split minimises ``sum_c w_c log e_c(shares)`` over the workload classes c with
    weights w_c, where ``e_c`` is the predicted mean absolute noise error of the release
    on a query of class c: the noise of the block counts for group classes (one block,
    or g - 1 of them against the rest), of the degrees for ``"degree"``, of the edge
    count's best linear estimate from every measurement for ``"bisection"`` (half the
    pairs), and randomized response's noise for ``"arbitrary-cut"``. These are the
    variances of the factorization framework (SU notes §2) for the strategy that stacks
    the measurements; minimising the weighted log is minimising the weighted geometric
    mean of each class's error relative to the best single-purpose answer. Measurements
    whose share comes out below 2% are not taken.

    Parameters
    ----------
    nodes : iterable
        The public node set (a graph's nodes; the graph itself is not read).
    epsilon : float
        The total budget.
    measurements : "auto", list of str, or mapping name -> share
        ``"auto"``: edge count, blocks (with groups) and randomized response. A list:
        those measurements, split by the rule above. A mapping: the caller's own shares
        (positive, summing to 1).
    groups : mapping node -> group, optional
        A public partition (required by and only used for ``"blocks"``).
    workload : mapping class -> weight, optional
        Classes from :data:`CLASSES`; default :data:`DEFAULT_WEIGHTS` for the classes the
        measurements answer.
    directed, integer_weights : bool
        The graph's kind and the declared weights (0/1 gets discrete Laplace noise).
    beta : float
        Failure probability of the predicted uniform bound for ``"arbitrary-cut"``.

    Returns
    -------
    MeasurementPlan

    Examples
    --------
    >>> groups = {v: v // 50 for v in range(1000)}
    >>> plan = plan_measurements(range(1000), 1.0, groups=groups)
    >>> plan.measurements
    ('edge-count', 'blocks', 'randomized-response')
    >>> [round(e, 2) for e in plan.epsilons], math.fsum(plan.epsilons)
    ([0.15, 0.8, 0.06], 1.0)
    """
    epsilon = check_epsilon(epsilon)
    beta = check_beta(beta)
    if isinstance(nodes, (str, bytes)) or not isinstance(nodes, Iterable):
        raise TypeError(f"nodes must be an iterable of node labels, got {type(nodes).__name__}")
    nodes = tuple(nodes)
    if len(set(nodes)) != len(nodes):
        raise ValueError("nodes must not repeat a label")
    universe = check_pairs(EdgeUniverse(nodes, bool(directed)), "plan_measurements")
    partition = Partition.of(universe, groups) if groups is not None else None
    shape = _Shape(
        universe.n,
        bool(directed),
        bool(integer_weights),
        None if partition is None else tuple(int(s) for s in partition.sizes),
    )
    names, shares, weights, dropped = _shares(measurements, groups, workload, epsilon, shape)
    epsilons = _exact_split(epsilon, shares)
    noise = tuple(
        _noise(name, eps, shape.integer) for name, eps in zip(names, epsilons, strict=True)
    )
    predicted = _predict(
        {name: (z.variance, z.mean_absolute) for name, z in zip(names, noise, strict=True)}, shape
    )
    if "randomized-response" in names:
        rr = noise[names.index("randomized-response")]
        predicted["arbitrary-cut"] = uniform_bound(rr, shape.n, shape.directed, beta)
    return MeasurementPlan(epsilon, names, epsilons, noise, weights, predicted, dropped)


@dataclass(frozen=True)
class Measured:
    """The noisy measurements of one graph: everything after them is post-processing.

    Attributes
    ----------
    plan : MeasurementPlan
    partition : Partition or None
    universe : EdgeUniverse
    values : dict
        Low-dimensional measurement name -> noisy values (edge count: length 1; degrees:
        length n, or 2n out- then in-degrees for a DiGraph; blocks: one per block pair).
    noisy : NoisyGraph or None
        The randomized-response matrix, if measured.
    """

    plan: MeasurementPlan
    partition: Partition | None
    universe: EdgeUniverse
    values: dict
    noisy: NoisyGraph | None

    @property
    def sampler_tv(self) -> float:
        """Bound on the total variation distance of every integer noise draw from exact
        (one per measured value, one per vertex pair of the randomized response)."""
        tv = 0.0 if self.noisy is None else self.noisy.sampler_tv
        for name, noise in zip(self.plan.measurements, self.plan.noise, strict=True):
            if name in self.values:
                tv += noise.tv_bound(self.values[name].size)
        return tv


def _statistic(name: str, adjacency, partition: Partition | None, directed: bool) -> np.ndarray:
    if name == "edge-count":
        return np.array([adjacency.sum() / (1.0 if directed else 2.0)])
    if name == "degrees":
        out = np.asarray(adjacency.sum(axis=1)).ravel()
        return np.concatenate([out, np.asarray(adjacency.sum(axis=0)).ravel()]) if directed else out
    return partition.block_sums(adjacency)


WEIGHT_GRID = 2.0**-20
"""Weights are measured as multiples of this (each pair's weight rounded, a per-pair map
that keeps neighbours neighbours): every sum of at most 2^33 of them is then exact in
float64, so the measured statistics carry no floating-point error into the grid noise."""


def _on_weight_grid(adjacency, pairs: int):
    if pairs >= 2**33:
        raise GraphInputError(
            f"{pairs} vertex pairs: weighted measurements are exact up to 2^33 pairs; use "
            "0/1 weights (integer_weights=True)"
        )
    adjacency = adjacency.copy()
    adjacency.data = np.rint(adjacency.data / WEIGHT_GRID) * WEIGHT_GRID
    return adjacency


def measure(
    G: nx.Graph,
    universe: EdgeUniverse,
    plan: MeasurementPlan,
    partition: Partition | None,
    integer_weights: bool,
    generator: np.random.Generator,
) -> Measured:
    """Take the plan's measurements of G, each paid from one budget of ``plan.epsilon``
    before it is computed (basic composition: the release is (epsilon, 0)-DP). Real
    weights are first rounded to :data:`WEIGHT_GRID`, so the sums are exact."""
    adjacency = universe.adjacency(G, None if integer_weights else "weight")
    if not integer_weights:
        adjacency = _on_weight_grid(adjacency, universe.size)
    budget = PrivacyBudget(plan.epsilon)
    values, noisy = {}, None
    for name, eps, noise in zip(plan.measurements, plan.epsilons, plan.noise, strict=True):
        budget.spend(eps, label=name)
        if name == "randomized-response":
            noisy = noisy_graph(G, eps, weight=None if integer_weights else "weight", rng=generator)
            continue
        exact = _statistic(name, adjacency, partition, universe.directed)
        # weighted graphs: on the noise's public grid, no floating-point leak (Mironov 2012)
        values[name] = noise.add(exact, rng=generator).astype(float)
    return Measured(plan, partition, universe, values, noisy)


@dataclass(frozen=True)
class Targets:
    """Consistent estimates fitted to the low-dimensional measurements (post-processing).

    ``blocks``: block-pair edge counts in [0, pairs]; ``total``: the edge count;
    ``degrees``: in [0, n - 1], summing to the blocks' group totals (or to the total).
    """

    blocks: np.ndarray | None
    total: float | None
    degrees: np.ndarray | None


def _box_shift(y: np.ndarray, upper: np.ndarray | float, target: float) -> np.ndarray:
    """``clip(y + kappa, 0, upper)`` with the kappa that makes its sum ``target`` (the
    nearest point to y in that box and hyperplane)."""
    upper = np.broadcast_to(np.asarray(upper, dtype=float), y.shape)
    target = min(max(target, 0.0), float(upper.sum()))

    def excess(kappa: float) -> float:
        return float(np.clip(y + kappa, 0.0, upper).sum()) - target

    low, high = (
        -float(y.max(initial=0.0)) - 1.0,
        float(upper.max(initial=0.0) - y.min(initial=0.0)) + 1.0,
    )
    if excess(low) >= 0.0 or excess(high) <= 0.0:
        return np.clip(y + (low if excess(low) >= 0.0 else high), 0.0, upper)
    return np.clip(y + brentq(excess, low, high, xtol=1e-12), 0.0, upper)


def _fit_blocks(measured: Measured) -> np.ndarray:
    """Weighted least squares over the block counts in their box [0, pairs], with the edge
    count (if measured) as one more observation of their sum: ``clip(y + lambda)`` with
    ``lambda = -(v_blocks / v_count) (sum - count)``."""
    partition = measured.partition
    y = measured.values["blocks"]
    upper = partition.pairs.astype(float)
    if "edge-count" not in measured.values:
        return np.clip(y, 0.0, upper)
    ratio = (
        measured.plan.noise_of("blocks").variance / measured.plan.noise_of("edge-count").variance
    )
    count = float(measured.values["edge-count"][0])

    def residual(shift: float) -> float:
        return shift + ratio * (float(np.clip(y + shift, 0.0, upper).sum()) - count)

    low, high = -1.0, 1.0
    while residual(low) > 0.0:
        low *= 2.0
    while residual(high) < 0.0:
        high *= 2.0
    return np.clip(y + brentq(residual, low, high, xtol=1e-12), 0.0, upper)


def _fit_total(measured: Measured) -> float:
    """Inverse-variance average of every measurement's estimate of the edge count,
    clipped to [0, pairs]."""
    plan, universe = measured.plan, measured.universe
    n = universe.n
    estimates = []
    if "edge-count" in measured.values:
        estimates.append(
            (float(measured.values["edge-count"][0]), plan.noise_of("edge-count").variance)
        )
    if "degrees" in measured.values:
        y, variance = measured.values["degrees"], plan.noise_of("degrees").variance
        if universe.directed:
            estimates += [(float(y[:n].sum()), n * variance), (float(y[n:].sum()), n * variance)]
        else:
            estimates.append((float(y.sum()) / 2.0, n * variance / 4.0))
    if measured.noisy is not None:
        rows, columns = universe.pair_index()
        total = float(measured.noisy.matrix[rows, columns].sum())
        estimates.append((total, universe.size * measured.noisy.noise.variance))
    weights = np.array([1.0 / v for _, v in estimates])
    values = np.array([e for e, _ in estimates])
    return float(np.clip(weights @ values / weights.sum(), 0.0, universe.size))


def _fit_degrees(measured: Measured, blocks: np.ndarray | None, total: float) -> np.ndarray:
    """The degrees nearest the measured ones in [0, n - 1] whose sums match the blocks'
    group totals (or the edge count)."""
    universe, partition = measured.universe, measured.partition
    n, directed = universe.n, universe.directed
    y = measured.values["degrees"]
    halves = [slice(0, n), slice(n, 2 * n)] if directed else [slice(0, n)]
    if blocks is None:
        share = total if directed else 2.0 * total
        return np.concatenate([_box_shift(y[half], n - 1.0, share) for half in halves])
    first, second = partition.blocks
    sums = [np.bincount(first, blocks, partition.g), np.bincount(second, blocks, partition.g)]
    if not directed:
        sums = [sums[0] + sums[1]]  # a block (a, a) counts twice, (a, b) once for each
    fitted = np.empty_like(y)
    for half, group_sums in zip(halves, sums, strict=True):
        part, out = y[half], np.empty(n)
        for a in range(partition.g):
            members = partition.labels == a
            out[members] = _box_shift(part[members], n - 1.0, float(group_sums[a]))
        fitted[half] = out
    return fitted


def fit_targets(measured: Measured) -> Targets:
    """Consistent estimates of the low-dimensional statistics (post-processing)."""
    if not measured.values:
        return Targets(None, None, None)
    blocks = _fit_blocks(measured) if "blocks" in measured.values else None
    total = float(blocks.sum()) if blocks is not None else _fit_total(measured)
    degrees = _fit_degrees(measured, blocks, total) if "degrees" in measured.values else None
    return Targets(blocks, total, degrees)


@lru_cache(maxsize=256)
def _sum_tail(noise: Noise, count: int, log_beta: float) -> float:
    """:meth:`~privcut.privacy.Noise.sum_tail` of ``count`` unit-coefficient draws, cached
    (public inputs only)."""
    return noise.sum_tail({1.0: count}, log_beta)


def _interval_bound(released: np.ndarray, noisy: np.ndarray, q: float | np.ndarray, upper) -> float:
    """``max_k max_{c in I_k} |released_k - c|`` with ``I_k = [noisy_k - q, noisy_k + q]``
    intersected with ``[0, upper_k]``, where every true value lies when the noise is
    within q."""
    low = np.maximum(noisy - q, 0.0)
    high = np.minimum(noisy + q, upper)
    return float(np.max(np.maximum(np.abs(released - low), np.abs(released - high)), initial=0.0))


def class_bounds(
    measured: Measured, blocks: np.ndarray | None, degrees: np.ndarray | None, beta: float
) -> dict[str, dict]:
    """Error bounds of the released block counts and degrees, one per workload class, each
    holding with probability at least 1 - beta.

    A class's true values lie within the noise's union tail q of the noisy measurement
    (and in their box); the bound is the released value's largest distance to that
    interval, so it covers every later step (fitting, rounding) exactly.
    """
    bounds: dict[str, dict] = {}
    partition, plan = measured.partition, measured.plan
    if "blocks" in measured.values:
        y, noise = measured.values["blocks"], plan.noise_of("blocks")
        upper = partition.pairs.astype(float)
        first, second = partition.blocks
        for name, members in (
            ("within-group", first == second),
            ("between-group", first != second),
        ):
            if members.any():
                q = noise.max_error(int(members.sum()), beta)
                bound = _interval_bound(blocks[members], y[members], q, upper[members])
                bounds[name] = {"bound": bound, "from": "blocks"}
        rest = partition.rest()
        if partition.g > 1:
            q = _sum_tail(noise, int(rest[0].size), math.log(beta / partition.g))
            released = np.array([blocks[ids].sum() for ids in rest])
            noisy = np.array([y[ids].sum() for ids in rest])
            limits = np.array([upper[ids].sum() for ids in rest])
            bounds["group-vs-rest"] = {
                "bound": _interval_bound(released, noisy, q, limits),
                "from": "blocks",
            }
    if "degrees" in measured.values:
        y, noise = measured.values["degrees"], plan.noise_of("degrees")
        q = noise.max_error(y.size, beta)
        bound = _interval_bound(degrees, y, q, measured.universe.n - 1.0)
        bounds["degree"] = {"bound": bound, "from": "degrees"}
    return bounds


def edge_count_upper(measured: Measured, beta: float) -> float:
    """An upper bound on the true edge count holding with probability 1 - beta: the
    smallest of each measurement's one-sided bound (edge count, block sum, degree sum),
    beta split between them."""
    plan, universe = measured.plan, measured.universe
    sources = [name for name in ("edge-count", "blocks", "degrees") if name in measured.values]
    log_beta = math.log(2.0 * beta / len(sources))  # sum_tail is two-sided
    found = []
    for name in sources:
        values, noise = measured.values[name], plan.noise_of(name)
        if name == "degrees":  # out-degrees sum to the count; degrees to twice it
            values = values[: universe.n]
            halve = 1.0 if universe.directed else 2.0
            found.append((values.sum() + _sum_tail(noise, universe.n, log_beta)) / halve)
        else:
            found.append(values.sum() + _sum_tail(noise, values.size, log_beta))
    return float(min(found))
