"""The bounds step: what a synthetic release may claim about its error, per workload class,
from its measurements, its generator's bound terms and its own public facts.

Three kinds of bound, all post-processing of the noisy measurements:

- class bounds (:func:`class_bounds`): within-group, between-group and group-vs-rest from
  the block counts, degree from the per-node ``"degrees"`` (never from a
  ``"degree-sequence"``: its fitted degrees are handed to nodes in a random order, so
  they bound no node's degree, and nothing is reported for it): the released value's
  largest distance to the interval where the true value lies when the noise is within
  its union tail;
- the generator's own bound for arbitrary cuts and bisections (for the dense generator
  GRU12 Lemma 6.2: the certified ``||x - z||_C``, the noise's uniform bound, GRU12 §6.1,
  and the rounding's Bernstein bound, Remark 6.3);
- the trivial bound (:func:`trivial_bound`): no cut of a graph exceeds its matrix sum
  (``multiplicity`` times its edge count: 2 for a Graph, 1 for a DiGraph), so a cut of
  the release differs from G's by at most that for the larger of the release's edge count
  and an upper confidence bound on G's (:func:`edge_count_upper`). Every release has
  one, since every measurement (randomized response's matrix sum too) bounds the count.

Every reported bound is the smaller of its class's own bound and the trivial bound
(:func:`release_bounds`). The failure probability beta is split in two: beta/2 for the
class's own bound (each class on its own; the generator splits its half between its
random terms) and beta/2 for the edge-count upper bound, so each reported bound holds
with probability at least 1 - beta.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from privcut.graph.generation import Generated
from privcut.graph.measurement import Measurements
from privcut.privacy import Noise
from privcut.records import Bound

__all__ = [
    "TRIVIAL_SOURCE",
    "class_bounds",
    "edge_count_upper",
    "release_bounds",
    "split_beta",
    "trivial_bound",
]

TRIVIAL_SOURCE = "edge count (no cut exceeds the matrix sum of all edges)"


def split_beta(beta: float) -> tuple[float, float]:
    """The failure probability of each class's own bound and of the edge-count upper
    bound: half each, so their minimum holds with probability at least 1 - beta.

    Examples
    --------
    >>> split_beta(0.05)
    (0.025, 0.025)
    """
    return beta / 2.0, beta / 2.0


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


def _block_bounds(measured: Measurements, blocks: np.ndarray, beta: float) -> dict[str, Bound]:
    measurement, partition = measured.get("blocks"), measured.partition
    y, noise, slack = measurement.values, measurement.noise, measurement.slacks()
    upper = partition.pairs.astype(float)
    first, second = partition.blocks
    bounds = {}
    for name, members in (("within-group", first == second), ("between-group", first != second)):
        if members.any():
            q = noise.max_error(int(members.sum()), beta) + slack[members]
            bounds[name] = Bound(
                _interval_bound(blocks[members], y[members], q, upper[members]), "blocks"
            )
    rest = partition.rest()
    if partition.g > 1:
        q = _sum_tail(noise, int(rest[0].size), math.log(beta / partition.g))
        q = q + np.array([slack[ids].sum() for ids in rest])
        released = np.array([blocks[ids].sum() for ids in rest])
        noisy = np.array([y[ids].sum() for ids in rest])
        limits = np.array([upper[ids].sum() for ids in rest])
        bounds["group-vs-rest"] = Bound(_interval_bound(released, noisy, q, limits), "blocks")
    return bounds


def class_bounds(measured: Measurements, generated: Generated, beta: float) -> dict[str, Bound]:
    """Error bounds of the released block counts and degrees, one per workload class, each
    holding with probability at least 1 - beta.

    A class's true values lie within the noise's union tail q of the noisy measurement
    (widened, for weighted graphs, by the measurement's
    :attr:`~privcut.graph.measurement.Measurement.slack`: what rounding the weights to
    its grid can move) and in their box; the bound is the released value's largest
    distance to that interval, so it covers every later step (fitting, rounding) exactly.

    Examples
    --------
    >>> import networkx as nx
    >>> from privcut.graph.fitting import fit_targets
    >>> from privcut.graph.generation import DenseGenerator
    >>> from privcut.graph.measurement import measure
    >>> from privcut.graph.planning import plan_measurements
    >>> measured = measure(nx.path_graph(5), plan_measurements(range(5), 1.0, ["degrees"]), rng=0)
    >>> generator, rng = DenseGenerator(), np.random.default_rng(0)
    >>> generated = generator.generate(measured, fit_targets(measured), generator.options(), rng)
    >>> class_bounds(measured, generated, 0.05)["degree"].source
    'degrees'
    """
    bounds: dict[str, Bound] = {}
    if measured.get("blocks") is not None:
        bounds.update(_block_bounds(measured, generated.block_sums(measured.partition), beta))
    measurement = measured.get("degrees")
    if measurement is not None:
        y, noise = measurement.values, measurement.noise
        q = noise.max_error(y.size, beta) + measurement.slacks()
        bound = _interval_bound(generated.degrees(), y, q, measured.universe.n - 1.0)
        bounds["degree"] = Bound(bound, "degrees")
    return bounds


def edge_count_upper(measured: Measurements, beta: float) -> float:
    """An upper bound on the true edge count holding with probability 1 - beta: the
    smallest of each measurement's one-sided bound on its
    :meth:`~privcut.graph.measurement.Measurement.count_estimate` (the edge count, the
    block sum, half the degree sum, randomized response's sum over the vertex pairs: a
    sum of C(n, 2) (or n(n - 1)) draws), beta split between them.

    Examples
    --------
    >>> import networkx as nx
    >>> from privcut.graph.measurement import measure
    >>> from privcut.graph.planning import plan_measurements
    >>> plan = plan_measurements(range(10), 1.0, ["edge-count"])
    >>> edge_count_upper(measure(nx.path_graph(10), plan, rng=0), 0.05) >= 9
    True
    """
    estimates = measured.count_estimates()
    log_beta = math.log(2.0 * beta / len(estimates))  # sum_tail is two-sided
    return float(
        min(
            e.coefficient * (e.total + e.slack + _sum_tail(e.noise, e.draws, log_beta))
            for e in estimates
        )
    )


def trivial_bound(measured: Measurements, released_edges: float, beta: float) -> Bound:
    """The bound every cut satisfies from the release's public facts, with probability at
    least 1 - beta: ``multiplicity`` times the larger of the released edge count and
    :func:`edge_count_upper` (a cut is at most its graph's matrix sum).

    Examples
    --------
    >>> import networkx as nx
    >>> from privcut.graph.measurement import measure
    >>> from privcut.graph.planning import plan_measurements
    >>> plan = plan_measurements(range(10), 1.0, ["edge-count"])
    >>> trivial_bound(measure(nx.path_graph(10), plan, rng=0), 9.0, 0.05).bound >= 18
    True
    """
    edges = max(float(released_edges), edge_count_upper(measured, beta))
    return Bound(measured.universe.multiplicity * edges, TRIVIAL_SOURCE)


def release_bounds(
    measured: Measurements, generated: Generated, beta: float
) -> tuple[dict[str, Bound], Bound]:
    """Every workload class's bound, clipped to the trivial bound, and the trivial bound.

    ``generated`` is the release (its block sums, degrees and edge count are read, and
    its own bound on every cut, at :func:`split_beta`'s first half); the class bounds
    take that half too and the trivial bound the other, so each reported bound holds
    with probability at least 1 - beta. Bisections and arbitrary cuts get the
    generator's bound.

    Examples
    --------
    >>> import networkx as nx
    >>> from privcut.graph.fitting import fit_targets
    >>> from privcut.graph.generation import DenseGenerator
    >>> from privcut.graph.measurement import measure
    >>> from privcut.graph.planning import plan_measurements
    >>> measured = measure(nx.path_graph(4), plan_measurements(range(4), 1.0, ["degrees"]), rng=0)
    >>> generator, rng = DenseGenerator(), np.random.default_rng(0)
    >>> generated = generator.generate(measured, fit_targets(measured), generator.options(), rng)
    >>> bounds, trivial = release_bounds(measured, generated, 0.05)
    >>> bounds["arbitrary-cut"] == trivial, bounds["degree"].bound <= trivial.bound
    (True, True)
    """
    own, count = split_beta(beta)
    bounds = class_bounds(measured, generated, own)
    bounds["bisection"] = bounds["arbitrary-cut"] = generated.bound
    trivial = trivial_bound(measured, generated.edge_count, count)
    return {name: min(bound, trivial) for name, bound in bounds.items()}, trivial
