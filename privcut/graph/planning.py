"""The budget split: which measurements to take and each one's share of epsilon, chosen
from public inputs only (the node set, the partition's sizes, a declared workload),
never from the graph.

The measurements, all under edge-level neighbours (one pair's weight changed by at most
1), are

- ``"edge-count"``: the number of edges (l1 sensitivity 1);
- ``"degrees"``: the degree sequence (sensitivity 2: an edge raises two degrees; out- and
  in-degrees for a DiGraph, again 2);
- ``"degree-sequence"``: the sorted degree sequence within each public group (one group
  when there are none; sorted out- and in-degrees for a DiGraph), l1 sensitivity 2 (Hay,
  Li, Miklau, Jensen 2009; proof in :func:`~privcut.graph.measurement.statistic`). It
  releases the degree distribution, not which node has which degree, so it answers no
  workload class: its share comes from the caller (:data:`SEQUENCE_SHARE` in a list);
  ``"auto"`` never takes it;
- ``"blocks"``: the edge count of every block pair of a public partition ``groups``
  (sensitivity 1: a pair lies in one block pair);
- ``"randomized-response"``: every pair's weight (GRU12 §6.1, sensitivity 1 per pair);
- ``"filtered-randomized-response"``: randomized response kept above a public threshold
  (Cormode et al. 2012; :func:`~privcut.graph.filtered.filtered_pairs`): the same
  discrete Laplace draw per pair (sensitivity 1: one pair changes), and only the pairs
  whose noisy value reaches the threshold are kept, which is post-processing of full
  randomized response, so (epsilon, 0)-DP by the same argument (GRU12 Lemma 6.1), drawn
  in O(|V| + |E| + kept). The threshold is public: the smallest one whose expected number
  of surviving non-edges is at most :attr:`MeasurementPlan.filtered_size` (default
  :data:`FILTERED_SIZE` n). Its survivors favour the true edges in the sparse generator;
  it serves no workload class's bound and no estimate of the edge count, so like
  ``"degree-sequence"`` it takes a fixed share in a list (:data:`FILTERED_SHARE`),
  ``"auto"`` never takes it, and it needs a measurement of the edge count beside it;
- ``"clustering"``: triangle corners of a stable projection onto maximum degree D (8 to
  :data:`~privcut.graph.clustering.DEFAULT_CAP`, chosen from the degree measurements
  released before it), summed per bin of the noisy ``"degrees"`` (l1 sensitivity
  ``9 (D - 1)``) or pooled at small D or epsilon (``6 (D - 1)``; adaptive composition,
  proofs in :mod:`privcut.graph.clustering`); the plan's noise is that of the largest
  cap, an upper bound of the one measured; undirected 0/1 graphs only, with
  ``"degrees"``; it feeds the BTER step of the sparse generator [SKP12, KPPS14] (the
  dense generator refuses it, before any spend), serves no workload class, and takes
  :data:`CLUSTERING_SHARE` in a list;
- ``"assortativity"``: the sum over the edges of ``(f_i - c)(f_j - c)``, ``f = min(degree,
  D)``, for a cap D and centre c chosen from the ``"degree-sequence"`` released before it
  (adaptive composition), l1 sensitivity ``3 D^2 - 2 D`` (proof in
  :mod:`privcut.graph.assortativity`; the plan's noise is that of D = 1, replaced by the
  measured cap's; the sampler's slack is stated, and the samplers' cap checked before any
  spend, at the largest cap the data could choose, :func:`largest_noise`); undirected 0/1
  graphs only, with ``"degree-sequence"``; it feeds the swap step of the sparse generator
  towards the original's degree assortativity [New03, XS04] (the dense generator refuses
  it, before any spend), serves no workload class, and takes
  :data:`ASSORTATIVITY_SHARE` in a list.

A synthetic graph's error on a cut from randomized response grows like
``sqrt(|S||T|) / epsilon``, while a noisy edge count answers every balanced bisection to
within the bisections' own spread plus ``1/epsilon``, and noisy block-pair counts answer
every cut between groups to within about ``1/epsilon``. Each measurement gets Laplace
noise (discrete for 0/1 graphs, on a public grid for weighted ones: see
:class:`~privcut.privacy.Noise`) at its share of epsilon; the shares add up to epsilon by
basic composition (Dwork and Roth 2014, Thm 3.16).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy.optimize import minimize

from privcut.exceptions import PrivacyParameterError
from privcut.graph.assortativity import moment_sensitivity, most_cap
from privcut.graph.clustering import BIN_EDGES, DEFAULT_CAP, bin_count, clustering_sensitivity
from privcut.graph.filtered import default_threshold
from privcut.graph.noisy import uniform_bound
from privcut.graph.partition import Partition
from privcut.graph.universe import EdgeUniverse, check_pairs
from privcut.privacy import Noise, check_beta, check_epsilon, exact_split
from privcut.privacy.noise import laplace_moments
from privcut.privacy.validation import check_option, check_scalar, epsilon_too_small

__all__ = [
    "ASSORTATIVITY_SHARE",
    "AUTO_GROUPS_MIN_NODES",
    "AUTO_GROUPS_THRESHOLD",
    "CLASSES",
    "CLUSTERING_SHARE",
    "COMMUNITY_SHARE",
    "DEFAULT_WEIGHTS",
    "FILTERED_SHARE",
    "FILTERED_SIZE",
    "MEASUREMENTS",
    "SENSITIVITY",
    "SEQUENCE_SHARE",
    "MeasurementPlan",
    "largest_noise",
    "plan_for",
    "plan_measurements",
]

MEASUREMENTS = (
    "edge-count",
    "degrees",
    "degree-sequence",
    "blocks",
    "randomized-response",
    "filtered-randomized-response",
    "clustering",
    "assortativity",
)
SENSITIVITY = {
    "edge-count": 1.0,
    "degrees": 2.0,
    "degree-sequence": 2.0,
    "blocks": 1.0,
    "randomized-response": 1.0,
    "filtered-randomized-response": 1.0,
    "clustering": clustering_sensitivity(DEFAULT_CAP),
    "assortativity": moment_sensitivity(1),
}
CHANGED = {
    "edge-count": 1,
    "degrees": 2,
    "degree-sequence": 2,
    "blocks": 1,
    "randomized-response": 1,
    "filtered-randomized-response": 1,
    "clustering": len(BIN_EDGES) + 1,
    "assortativity": 1,
}
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

SEQUENCE = "degree-sequence"

SEQUENCE_SHARE = 0.5
"""The share of ``"degree-sequence"`` when it is requested in a list with other
measurements (the rest is split among them by the workload rule): it serves no workload
class, so the rule cannot price it. Give a mapping for any other share."""

FILTERED = "filtered-randomized-response"

FILTERED_SHARE = 0.25
"""The share of ``"filtered-randomized-response"`` when it is requested in a list (with
``"degree-sequence"`` too, the rest after both fixed shares is split by the workload
rule): it serves no workload class, so the rule cannot price it. A choice, not a measured
optimum: at share s of epsilon its survivors are edges e^(s epsilon) times as likely as
the model says, while the rest keeps 3/4 of the budget. Give a mapping for any other
share."""

CLUSTERING = "clustering"

CLUSTERING_SHARE = 0.15
"""The share of ``"clustering"`` when it is requested in a list: it serves no workload
class (it feeds the BTER step of the sparse generator). Give a mapping for any other share."""

ASSORTATIVITY = "assortativity"

ASSORTATIVITY_SHARE = 0.05
"""The share of ``"assortativity"`` when it is requested in a list: it serves no workload
class (it feeds the swap step of the sparse generator). Give a mapping for any other
share."""

FIXED_SHARES = {
    SEQUENCE: SEQUENCE_SHARE,
    FILTERED: FILTERED_SHARE,
    CLUSTERING: CLUSTERING_SHARE,
    ASSORTATIVITY: ASSORTATIVITY_SHARE,
}
"""The measurements that answer no workload class, with their shares in a list."""

FILTERED_SIZE = 10.0
"""Default :attr:`MeasurementPlan.filtered_size` per node: the threshold is chosen so that
at most ``FILTERED_SIZE * n`` non-edges survive in expectation (as
:func:`~privcut.graph.filtered.filtered_randomized_response`'s default): output linear in
n, like a social graph's edge count."""

COUNTING = ("edge-count", "degrees", SEQUENCE, "blocks", "randomized-response")
"""The measurements that estimate the edge count (one of them must be taken beside
``"filtered-randomized-response"``, which gives the generator no count)."""

COMMUNITY_SHARE = 0.35
"""The share of the whole epsilon that ``groups="private"`` spends on the partition
(:mod:`privcut.graph.private_groups`): the released communities are bought first, the
rest of the budget is split by the rule here as for public groups. A trade-off measured
in benchmarks/RESULTS.md ("Issue 18: community detection, third round"): with the sweep,
0.35 against 0.2 on wiki-vote at epsilon 1 / 2 takes the modularity RE of the original's
communities from 0.965 / 0.914 to 0.905 / 0.77 and the between-community cut error from 102
/ 97 to 96 / 82, at a degree KL of 0.61 / 0.49 against 0.56 / 0.43; 0.5 buys more
communities and costs the degrees and centrality more. Pass
:class:`~privcut.graph.private_groups.PrivateGroups` for another."""

AUTO_GROUPS_THRESHOLD = 12.0
"""``measurements="auto"``'s rule for buying private communities without public groups
(:func:`~privcut.graph.private_groups.decide_groups`): buy them (as ``groups="private"``)
when ``epsilon * 2 m~ / n``, the whole epsilon times the noisy average degree, is at least
this. Measured by ``benchmarks/auto_groups.py`` (benchmarks/RESULTS.md, "Issue 18: auto
private communities"; 3 seeds, the sweep at ``COMMUNITY_SHARE`` of epsilon): below 12 the
partition's NMI against the planted (or Louvain) communities is at most 0.027 and at most
11x chance on every graph (33 graph-epsilon cells: planted mixing 0.1 / 0.3 at average
degree 4-32, LFR at 5-25, wiki-vote, gnutella; epsilon 0.25-4; median 2x chance); from 12
to 24, 4-32x chance (median 7x, NMI up to 0.075) except gnutella, which has no community
signal for the sweep at any product (1x); from 24 on 11-131x (median 34x, NMI
0.06-0.69). On the acceptance harness (``benchmarks/social.py``) ``groups="private"`` lost
or tied at products 2.4-11.2 (gnutella at every epsilon, LFR at 0.5 and 1) and won at
14.2-57 (wiki-vote at every epsilon; LFR at 2, 22.5, one cell more of 11 than of 10); on
its ``community`` graph (average degree 10) it tied or lost at 5 and 10 and about tied at
20. Any threshold in (11.2, 14.2] makes the same choices on those four graphs."""

AUTO_GROUPS_MIN_NODES = 1000
"""``measurements="auto"`` decides whether to buy private communities only on graphs of
at least this many (public) nodes: the decision's statistic ``epsilon * 2 m~ / n`` has
standard deviation about ``162 / n`` (the count's discrete Laplace at 0.0175 epsilon), so
it is at most 0.16 from here and the decision follows the graph, not the noise, while on
a 30-node graph (5.4) it is mostly noise (the stop-28 review: an empty 3-node graph
bought communities a quarter of the time); and the rule's calibration graphs have 5,000
nodes and more. Smaller graphs are released as with ``groups="none"``."""

MIN_SHARE = 0.02
"""A measurement whose best share is below this is not taken (its budget goes to the rest)."""


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
        Each one's epsilon; they add up to ``epsilon`` exactly, as rationals (the last is
        the exact remainder).
    noise : tuple of Noise
        Each one's noise per coordinate. For ``"clustering"`` and ``"assortativity"``, whose
        sensitivity follows a cap chosen from the degrees measured before them, the noise
        at a reference cap (clustering's largest, assortativity's 1), which the measurement
        replaces by its cap's (the record's ``noise`` and ``sensitivity`` say which).
    workload : dict
        Workload class -> weight used to choose the split.
    predicted : dict
        Workload class -> the predicted mean absolute error of the release's noise term
        on one query of that class (for ``"arbitrary-cut"``, randomized response's
        uniform bound over all cuts at ``beta``): data-independent.
    dropped : tuple of str
        Requested measurements whose best share was below :data:`MIN_SHARE`.
    weight : str or None
        The edge attribute the measurements read (None: the graph is read as 0/1 and gets
        integer noise; a name: weights in [0, 1] and grid noise). Declared, never read
        from the data.
    filtered_size : float or None
        With ``"filtered-randomized-response"``: the public knob, the expected number of
        surviving non-edges the threshold aims at (at most); None without it.
    threshold : int or None
        With ``"filtered-randomized-response"``: the public threshold theta >= 1, the
        smallest with ``pairs * P(Z >= theta) <= filtered_size``
        (:func:`~privcut.graph.filtered.default_threshold` at its epsilon); None without it.

    Examples
    --------
    >>> plan = plan_measurements(range(100), 2.0, {"edge-count": 0.25, "degrees": 0.75})
    >>> split = zip(plan.measurements, plan.epsilons, plan.noise, strict=True)
    >>> [(name, eps, noise.scale) for name, eps, noise in split]
    [('edge-count', 0.5, 2.0), ('degrees', 1.5, 1.3333333333333333)]
    """

    epsilon: float
    measurements: tuple[str, ...]
    epsilons: tuple[float, ...]
    noise: tuple[Noise, ...]
    workload: dict = field(hash=False)
    predicted: dict = field(hash=False)
    dropped: tuple[str, ...] = ()
    weight: str | None = None
    filtered_size: float | None = None
    threshold: int | None = None

    def __post_init__(self) -> None:
        """Refuse a plan whose noise is not the calibrated noise of its epsilons: a plan
        built by hand must not release a statistic with less noise (or integer noise on
        real weights) than the epsilon it records."""
        parts = {"measurements": self.measurements, "epsilons": self.epsilons, "noise": self.noise}
        for part, value in parts.items():
            if not isinstance(value, tuple):
                raise TypeError(f"{part} must be a tuple, got {type(value).__name__}")
        if not len(self.measurements) == len(self.epsilons) == len(self.noise):
            raise ValueError("measurements, epsilons and noise need one entry per measurement")
        if SEQUENCE in self.measurements and self.weight is not None:
            raise ValueError(
                "the 'degree-sequence' measurement needs a 0/1 graph (weight=None): sorting "
                "real degrees can move many entries, which grid noise does not cover"
            )
        self._check_filtered()
        _check_clustering(self.measurements, self.weight is not None, False)
        for name, eps, noise in zip(self.measurements, self.epsilons, self.noise, strict=True):
            check_option(name, "measurements", MEASUREMENTS)
            if noise != _noise(name, check_epsilon(eps, "epsilons"), self.weight is None):
                raise ValueError(
                    f"noise: the plan's noise for {name!r} is not the calibrated noise of its "
                    f"epsilon {eps!r} and weight {self.weight!r}; build plans with "
                    "plan_measurements"
                )

    def _check_filtered(self) -> None:
        """A filtered measurement needs a 0/1 graph and a public threshold >= 1; without
        one, no knob."""
        if FILTERED not in self.measurements:
            if self.threshold is not None or self.filtered_size is not None:
                raise ValueError(
                    "threshold and filtered_size belong to 'filtered-randomized-response'; "
                    "leave them None without it"
                )
            return
        if self.weight is not None:
            raise ValueError(
                "the 'filtered-randomized-response' measurement releases 0/1 graphs only "
                f"(weight=None), got weight={self.weight!r}"
            )
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, int):
            raise TypeError(
                f"threshold must be an int >= 1, got {type(self.threshold).__name__}; "
                "build plans with plan_measurements"
            )
        if self.threshold < 1:
            raise ValueError(f"threshold must be >= 1, got {self.threshold}")


_NEEDS = {
    CLUSTERING: ("degrees", "bins nodes by the noisy 'degrees'", "triangles"),
    ASSORTATIVITY: (SEQUENCE, "takes its cap from the 'degree-sequence'", "edges' degrees"),
}
"""What ``"clustering"`` and ``"assortativity"`` need measured before them, why, and what
they count."""


def _check_clustering(names: tuple[str, ...], weighted: bool, directed: bool) -> None:
    """``"clustering"`` needs the ``"degrees"`` measured before it (its bins are the noisy
    degrees), ``"assortativity"`` the ``"degree-sequence"`` (its cap and centre), and both
    an undirected 0/1 graph (triangles of the capped projection; products of degrees)."""
    for name, (before, why, what) in _NEEDS.items():
        if name not in names:
            continue
        if before not in names[: names.index(name)]:
            raise ValueError(
                f"the {name!r} measurement {why}: add {before!r} to measurements (before "
                f"{name!r}), e.g. ['edge-count', {before!r}, {name!r}]"
            )
        if weighted:
            raise ValueError(
                f"the {name!r} measurement needs a 0/1 graph (weight=None): it counts "
                f"{what} of unweighted edges"
            )
        if directed:
            raise ValueError(
                f"the {name!r} measurement is for undirected graphs (directed=False): it "
                f"counts undirected {what}; drop {name!r} for a DiGraph"
            )


def largest_noise(name: str, epsilon: float, n: int) -> tuple[Noise, int]:
    """The noise and the number of draws of the largest scale the ``"clustering"`` or
    ``"assortativity"`` measurement can take at ``epsilon`` on ``n`` nodes: their
    sensitivity follows a cap that the degrees released before them choose, at most
    :data:`~privcut.graph.clustering.DEFAULT_CAP` (clustering, in the bins
    :func:`~privcut.graph.clustering.bin_count` gives that cap) or
    :func:`~privcut.graph.assortativity.most_cap` (n) (assortativity). Public. A release
    states its sampler's total-variation bound at this noise, not at the one drawn (which
    the data chose), and a plan whose noise here would pass the samplers' cap is refused
    before any spend (:class:`~privcut.exceptions.PrivacyParameterError`).

    Examples
    --------
    >>> noise, draws = largest_noise("assortativity", 0.05, 10**4)
    >>> noise.scale, draws  # (3 * 512**2 - 2 * 512) / 0.05
    (15708160.0, 1)
    """
    if name == CLUSTERING:
        bins = bin_count(DEFAULT_CAP, epsilon)
        sensitivity = clustering_sensitivity(DEFAULT_CAP, bins)
    elif name == ASSORTATIVITY:
        bins, sensitivity = 1, moment_sensitivity(most_cap(n))
    else:
        raise ValueError(f"{name!r}: only 'clustering' and 'assortativity' choose their scale")
    return Noise.for_laplace(epsilon, sensitivity, integer=True, coordinates=bins), bins


def _check_largest(names: tuple[str, ...], epsilons: tuple[float, ...], n: int) -> None:
    """Refuse a plan whose clustering or assortativity noise could pass the samplers' cap
    at its share (:func:`largest_noise`), before any spend: the measurement would find
    out only after the budget was charged."""
    for name, eps in zip(names, epsilons, strict=True):
        if name in (CLUSTERING, ASSORTATIVITY):
            try:
                largest_noise(name, eps, n)
            except PrivacyParameterError as error:
                raise epsilon_too_small(
                    f"the {name!r} measurement at its share (epsilon={eps!r}) on {n} nodes"
                ) from error


def _check_budget(names: tuple[str, ...], epsilon: float, integer: bool) -> None:
    """Refuse an epsilon so small that a measurement's noise would pass the samplers' cap
    (:data:`~privcut.privacy.noise.MAX_SCALE`) even with the whole budget, before the
    split search (whose predicted errors leave float64's range there)."""
    for name in names:
        try:
            _noise(name, epsilon, integer)
        except PrivacyParameterError as error:
            raise epsilon_too_small(
                f"the {name!r} measurement, even with the whole budget (epsilon={epsilon!r}),"
            ) from error


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
    """The measurement's noise at this epsilon, for its sensitivity now in
    :data:`SENSITIVITY` (:func:`_laplace`)."""
    return _laplace(epsilon, SENSITIVITY[name], integer, CHANGED[name])


@lru_cache(maxsize=1024)
def _laplace(epsilon: float, sensitivity: float, integer: bool, coordinates: int) -> Noise:
    """Laplace noise of scale ``sensitivity / epsilon`` (a frozen record: cached, as
    :class:`MeasurementPlan` checks again the noise its planner just built)."""
    return Noise.for_laplace(epsilon, sensitivity, integer=integer, coordinates=coordinates)


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
    for name in ("degrees", SEQUENCE):  # sum to 2 x total (Graph); out and in to total
        if name in moments:
            per_sum = shape.n * moments[name][0]
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
        check_option(name, "workload class", CLASSES)
        if name not in answerable:
            raise ValueError(
                f"workload class {name!r} is not answered by the measurements {names}; "
                "add the measurement it needs ('blocks' with groups for group classes, "
                "'degrees' for 'degree', 'randomized-response' for 'arbitrary-cut')"
            )
        weight = check_scalar(weight, f"workload weight of {name!r}", float, low=0.0)
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
            "measurements must be 'auto' or a list of measurement names (or a mapping "
            f"name -> share), got {measurements!r}"
        )
    names = tuple(measurements)
    if not names:
        raise ValueError("measurements must name at least one measurement")
    for name in names:
        check_option(name, "measurement", MEASUREMENTS)
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"measurements must not repeat a name; {repeated} repeated")
    if "blocks" in names and groups is None:
        raise ValueError("the 'blocks' measurement needs groups, a public mapping node -> group")
    if groups is not None and "blocks" not in names:
        raise ValueError("groups are used by the 'blocks' measurement; add it to measurements")
    if FILTERED in names and not any(name in COUNTING for name in names):
        raise ValueError(
            "the 'filtered-randomized-response' measurement gives no edge count: add a "
            "measurement that does, e.g. ['edge-count', 'filtered-randomized-response'] "
            "(or 'blocks' with groups)"
        )
    return tuple(name for name in MEASUREMENTS if name in names)


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
    requested = _names(measurements, groups)
    weights = _workload(workload, requested, shape)
    fixed = {name: FIXED_SHARES[name] for name in requested if name in FIXED_SHARES}
    rest = tuple(name for name in requested if name not in fixed)
    if not set(fixed) - {SEQUENCE} and (SEQUENCE not in requested or not rest):
        return _best_split(requested, weights, epsilon, shape)
    if not rest:  # the degree sequence as the only counting measurement: it takes the rest
        rest = (SEQUENCE,)
        fixed = {name: share for name, share in fixed.items() if name != SEQUENCE}
    answerable = _answerable(rest, shape)
    kept = {c: w for c, w in weights.items() if c in answerable}
    names, shares, kept, dropped = _best_split(rest, kept, epsilon, shape)
    remaining = 1.0 - math.fsum(fixed.values())
    split = dict(zip(names, (s * remaining for s in shares), strict=True))
    split.update(fixed)
    names = tuple(name for name in MEASUREMENTS if name in split)
    return names, tuple(split[name] for name in names), kept, dropped


def _best_split(names: tuple[str, ...], weights: dict, epsilon: float, shape: _Shape):
    """The best split of ``names`` for ``weights``, dropping measurements below
    :data:`MIN_SHARE` and splitting again."""
    requested = names
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
    weight: str | None = None,
    beta: float = 0.05,
    filtered_size: float | None = None,
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
        those measurements, split by the rule above (``"degree-sequence"``, which answers
        no workload class, takes :data:`SEQUENCE_SHARE` and the rest is split among the
        others; it must be read as a 0/1 graph, ``weight=None``). A mapping: the caller's own shares
        (positive, summing to 1). ``"filtered-randomized-response"`` likewise takes
        :data:`FILTERED_SHARE` in a list, and needs a measurement of the edge count beside it.
    groups : mapping node -> group, optional
        A public partition (required by and only used for ``"blocks"``).
    workload : mapping class -> weight, optional
        Classes from :data:`CLASSES`; default :data:`DEFAULT_WEIGHTS` for the classes the
        measurements answer.
    directed : bool
        The graph's kind.
    weight : str or None
        The edge attribute the measurements will read: None for a 0/1 graph (discrete
        Laplace noise), an attribute name for weights in [0, 1] (grid noise). A
        declaration, as in :func:`~privcut.graph.synthetic.synthetic_graph`.
    beta : float
        Failure probability of the predicted uniform bound for ``"arbitrary-cut"``.
    filtered_size : float, optional
        With ``"filtered-randomized-response"``: the expected number of surviving
        non-edges its public threshold aims at (at most); default :data:`FILTERED_SIZE`
        times n. Ignored without it.

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
    >>> plan = plan_measurements(range(1000), 1.0, ["edge-count", "filtered-randomized-response"])
    >>> plan.epsilons, plan.filtered_size, plan.threshold
    ((0.75, 0.25), 10000.0, 14)
    """
    epsilon = check_epsilon(epsilon)
    beta = check_beta(beta)
    if filtered_size is not None:
        filtered_size = check_scalar(
            filtered_size, "filtered_size", float, low=0.0, closed="neither"
        )
    if isinstance(nodes, (str, bytes)) or not isinstance(nodes, Iterable):
        raise TypeError(f"nodes must be an iterable of node labels, got {type(nodes).__name__}")
    nodes = tuple(nodes)
    if len(set(nodes)) != len(nodes):
        raise ValueError("nodes must not repeat a label")
    universe = check_pairs(EdgeUniverse(nodes, bool(directed)), "plan_measurements")
    partition = Partition.of(universe, groups) if groups is not None else None
    return plan_for(
        universe,
        epsilon,
        measurements,
        partition=partition,
        workload=workload,
        weight=weight,
        beta=beta,
        filtered_size=filtered_size,
    )


def plan_for(
    universe: EdgeUniverse,
    epsilon: float,
    measurements: str | Iterable[str] | Mapping[str, float] = "auto",
    *,
    partition: Partition | None = None,
    workload: Mapping[str, float] | None = None,
    weight: str | None = None,
    beta: float = 0.05,
    filtered_size: float | None = None,
) -> MeasurementPlan:
    """:func:`plan_measurements` on an already checked node set and partition: the plan
    of ``plan_measurements(universe.nodes, ..., groups=groups,
    directed=universe.directed)`` for any ``groups`` with ``Partition.of(universe,
    groups)`` equal to ``partition``, without reading the nodes or the groups again (a
    release plans up to three times on the same n nodes). Public inputs only. O(g) in
    the partition's g groups, nothing per node (the split itself is cached by its
    public inputs).

    Examples
    --------
    >>> universe = EdgeUniverse(tuple(range(1000)), False)
    >>> partition = Partition.of(universe, {v: v // 50 for v in range(1000)})
    >>> plan_for(universe, 1.0, partition=partition) == plan_measurements(
    ...     range(1000), 1.0, groups={v: v // 50 for v in range(1000)})
    True
    """
    epsilon = check_epsilon(epsilon)
    beta = check_beta(beta)
    if filtered_size is not None:
        filtered_size = check_scalar(
            filtered_size, "filtered_size", float, low=0.0, closed="neither"
        )
    if not isinstance(universe, EdgeUniverse):
        raise TypeError(f"universe must be an EdgeUniverse, got {type(universe).__name__}")
    check_pairs(universe, "plan_measurements")
    if partition is not None and (
        not isinstance(partition, Partition)
        or partition.labels.size != universe.n
        or partition.directed != universe.directed
    ):
        raise ValueError("partition must be a Partition of the universe's nodes and kind")
    directed = universe.directed
    shape = _Shape(
        universe.n,
        directed,
        weight is None,
        None if partition is None else tuple(int(s) for s in partition.sizes),
    )
    if isinstance(measurements, Iterable) and not isinstance(measurements, (str, Mapping)):
        measurements = tuple(measurements)  # read twice: checked, then split
    requested = _names(
        list(measurements) if isinstance(measurements, Mapping) else measurements, partition
    )
    _check_clustering(requested, weight is not None, directed)
    _check_budget(requested, epsilon, shape.integer)
    names, shares, weights, dropped = _shares(measurements, partition, workload, epsilon, shape)
    _check_clustering(names, weight is not None, directed)
    epsilons = exact_split(epsilon, shares)
    _check_largest(names, epsilons, shape.n)
    noise = tuple(
        _noise(name, eps, shape.integer) for name, eps in zip(names, epsilons, strict=True)
    )
    predicted = _predict(
        {name: (z.variance, z.mean_absolute) for name, z in zip(names, noise, strict=True)}, shape
    )
    if "randomized-response" in names:
        rr = noise[names.index("randomized-response")]
        predicted["arbitrary-cut"] = uniform_bound(rr, shape.n, shape.directed, beta)
    threshold = None
    if FILTERED in names:
        filtered_size = FILTERED_SIZE * shape.n if filtered_size is None else filtered_size
        threshold = default_threshold(epsilons[names.index(FILTERED)], shape.pairs, filtered_size)
    else:
        filtered_size = None
    return MeasurementPlan(
        epsilon,
        names,
        epsilons,
        noise,
        weights,
        predicted,
        dropped,
        weight,
        filtered_size,
        threshold,
    )
