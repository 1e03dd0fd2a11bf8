"""Degrees done well: the fitted degree distribution from a noisy sorted degree sequence
(Hay, Li, Miklau, Jensen 2009). Post-processing: it reads only the measurements and the
public randomness drawn with them.

Hay et al.'s constrained inference is the least-squares fit of the
noisy sorted sequence among non-decreasing sequences: isotonic regression (the
pool-adjacent-violators algorithm, :func:`scipy.optimize.isotonic_regression`). Its
plateaus (one value over many ranks) are replaced by the straight line through their
centres (:func:`smooth_plateaus`): a plateau rounded to integers holds one or two degree
values where the private ranks it pools span several, which leaves empty histogram bins
(measured on the wiki-vote graph at epsilon 1 with the edge count and the sequence, seeds
0-2: the rounded fitted sequence's histogram KL 4.2-5.1 with plateaus, 0.39-0.51 smoothed;
benchmarks/RESULTS.md). privcut then clips it to [0, n - 1], shifts it within
that box to the fitted group totals (the block counts) or edge count, rounds it to integers
keeping each sum (an even total for a Graph), hands each group's sequence to the group's
nodes in a uniformly random order (public randomness drawn with the measurement) and makes
the result graphical (Erdős–Gallai for a Graph, Fulkerson's test for a DiGraph) by
lowering the largest degrees one unit at a time.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
from scipy.optimize import brentq, isotonic_regression

from privcut.graph.measurement import Measurements
from privcut.graph.sorting import smallest, stable_argsort

__all__ = [
    "SEQUENCE",
    "SMOOTHING",
    "box_shift",
    "fit_sequence",
    "is_graphical",
    "isotonic",
    "make_graphical",
    "rank_matched",
    "round_keeping_sum",
    "smooth_plateaus",
]

SEQUENCE = "degree-sequence"

SMOOTHING = 3.0
"""How many noise standard deviations :func:`smooth_plateaus` may move a rank from its
plateau's value in :func:`fit_sequence`."""


def box_shift(y: np.ndarray, upper: np.ndarray | float, target: float) -> np.ndarray:
    """``clip(y + kappa, 0, upper)`` with the kappa that makes its sum ``target`` (the
    nearest point to y in that box and hyperplane; a shift keeps a sorted y sorted).

    Examples
    --------
    >>> np.round(box_shift(np.array([0.0, 1.0, 5.0]), 4.0, 6.0), 9).tolist()
    [0.5, 1.5, 4.0]
    """
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


def isotonic(y: np.ndarray) -> np.ndarray:
    """The least-squares non-decreasing fit of y (Hay et al. 2009: the constrained
    inference of a sorted sequence), by pool-adjacent-violators in O(len(y)).

    Examples
    --------
    >>> isotonic(np.array([1.0, 3.0, 2.0, 4.0])).tolist()
    [1.0, 2.5, 2.5, 4.0]
    """
    y = np.asarray(y, dtype=float)
    return isotonic_regression(y, increasing=True).x if y.size else y.copy()


def smooth_plateaus(fit: np.ndarray, reach: float = np.inf) -> np.ndarray:
    """A non-decreasing sequence with its plateaus (runs of equal values) replaced by the
    piecewise-linear interpolation through the plateaus' centres (rank, value), each rank
    kept within ``reach`` of its plateau's value (the ends keep the first and last
    plateau's value). Still non-decreasing; O(len(fit)). Post-processing of the fit.

    :func:`fit_sequence` takes ``reach`` three noise standard deviations: a plateau pools
    ranks whose private degrees spread about as far as the noise, and a true jump (a hub
    after many equal degrees, measured with little noise) stays a jump.

    Examples
    --------
    >>> smooth_plateaus(np.array([1.0, 1.0, 1.0, 4.0, 4.0, 4.0])).tolist()
    [1.0, 1.0, 2.0, 3.0, 4.0, 4.0]
    >>> smooth_plateaus(np.array([1.0, 1.0, 1.0, 4.0, 4.0, 4.0]), reach=0.5).tolist()
    [1.0, 1.0, 1.5, 3.5, 4.0, 4.0]
    """
    fit = np.asarray(fit, dtype=float)
    if fit.size < 2:
        return fit.copy()
    starts = np.concatenate([[0], np.flatnonzero(np.diff(fit) != 0) + 1])
    ends = np.concatenate([starts[1:], [fit.size]])
    line = np.interp(np.arange(fit.size), (starts + ends - 1) / 2.0, fit[starts])
    return np.clip(line, fit - reach, fit + reach)


def round_keeping_sum(x: np.ndarray, total: int, upper: np.ndarray | float) -> np.ndarray:
    """Integers in [0, upper] within 1 of x summing to ``total`` (largest remainder: the
    floors, plus one on the entries with the largest fractional parts; or minus one on the
    smallest). Needs ``|total - sum(floor(x))| <= len(x)`` and room in the box.

    Examples
    --------
    >>> round_keeping_sum(np.array([0.4, 1.6, 2.5]), 5, 3).tolist()
    [0, 2, 3]
    """
    upper = np.broadcast_to(np.asarray(upper, dtype=float), x.shape)
    x = np.clip(np.asarray(x, dtype=float), 0.0, upper)
    result = np.floor(x)
    fraction = x - result
    short = int(total - result.sum())
    if short > 0:
        room = np.flatnonzero(result < upper)
        result[room[smallest(-fraction[room], short)]] += 1.0
    elif short < 0:
        room = np.flatnonzero(result > 0)
        result[room[smallest(fraction[room], -short)]] -= 1.0
    return result.astype(np.int64)


def is_graphical(degrees: np.ndarray, directed: bool = False) -> bool:
    """Whether integer degrees are those of a simple graph: the Erdős–Gallai test,
    vectorised in O(n log n), for a Graph; for a DiGraph (out- then in-degrees) the
    Kleitman–Wang test of :func:`networkx.is_digraphical` (Fulkerson's condition).

    Examples
    --------
    >>> is_graphical(np.array([1, 1, 2, 2])), is_graphical(np.array([3, 3, 1, 1]))
    (True, False)
    """
    d = np.asarray(degrees, dtype=np.int64)
    if directed:
        n = d.size // 2
        return bool(nx.is_digraphical(d[n:].tolist(), d[:n].tolist()))
    if d.size == 0:
        return True
    if d.min() < 0 or d.sum() % 2:
        return False
    d = np.sort(d)[::-1]
    n = d.size
    k = np.arange(1, n + 1)
    at_least = n - np.searchsorted(d[::-1], k, side="left")  # entries >= k
    suffix = np.concatenate([np.cumsum(d[::-1])[::-1], [0]])
    right = k * (k - 1) + k * np.maximum(at_least - k, 0) + suffix[np.maximum(at_least, k)]
    return bool(np.all(np.cumsum(d) <= right))


def make_graphical(degrees: np.ndarray, directed: bool = False) -> np.ndarray:
    """The degrees, lowered until :func:`is_graphical`: while the test fails, the largest
    degree and the next largest (for a DiGraph the largest out- and the largest
    in-degree) each lose one, which keeps the sum even (out and in sums equal; an odd sum,
    or unequal out and in sums, are first lowered at their largest entries). Negative
    entries become 0. The all-zero sequence is graphical, so it ends; O(k n log n) for k
    steps (none for a sequence that is already graphical, the usual case for a Graph).

    Examples
    --------
    >>> make_graphical(np.array([3, 3, 1, 1])).tolist()
    [2, 2, 1, 1]
    """
    d = np.maximum(np.asarray(degrees, dtype=np.int64), 0)
    halves = [slice(0, d.size // 2), slice(d.size // 2, d.size)] if directed else [slice(None)]
    for _ in range(int(d[halves[0]].sum()) if directed else 0):  # equal out and in sums
        sums = [int(d[half].sum()) for half in halves]
        if sums[0] == sums[1]:
            break
        half = halves[int(np.argmax(sums))]
        d[half][np.argmax(d[half])] -= 1
    if not directed and d.sum() % 2:
        d[np.argmax(d)] -= 1
    while not is_graphical(d, directed):
        if directed:
            for half in halves:
                d[half][np.argmax(d[half])] -= 1
        elif np.count_nonzero(d) < 2:  # one positive entry: no edge can hold it
            d[:] = 0
        else:
            d[smallest(-d, 2)] -= 1  # ties by index, not by the CPU
    return d


def rank_matched(
    fitted: np.ndarray, noisy: np.ndarray, order: tuple, labels: np.ndarray
) -> np.ndarray:
    """The fitted degrees of :func:`fit_sequence` handed out again within every group (and
    half: out- then in-degrees for a DiGraph) by rank: the node with the k-th smallest
    noisy per-node degree (``"degrees"``; ties broken by the sequence's public random
    ``order``) gets the group's k-th smallest fitted degree. The multiset per group and
    half is kept (so are the group sums, and a Graph's sequence stays graphical); each node
    gets a degree near its own where the per-node noise keeps the ranks. Post-processing
    of both measurements; O(n log n).

    Examples
    --------
    >>> rank_matched(np.array([1.0, 2.0, 3.0]), np.array([5.0, -1.0, 2.0]),
    ...              (np.array([0, 1, 2]),), np.zeros(3, dtype=np.intp)).tolist()
    [3.0, 1.0, 2.0]
    """
    fitted = np.asarray(fitted, dtype=float)
    noisy = np.asarray(noisy, dtype=float)
    n = labels.size
    grouped = labels.size > 0 and bool((labels != labels[0]).any())
    if grouped:
        by_group = np.argsort(labels, kind="stable")
        bounds = np.cumsum(np.bincount(labels))[:-1]
    result = np.empty_like(fitted)
    for h, permutation in enumerate(order):
        part, values = slice(h * n, (h + 1) * n), fitted[h * n : (h + 1) * n]
        # stable sorts by the tie order, the noisy degree, then the group: the lexsort of
        # (tie, noisy, labels), with the first sort read off the public permutation
        ranked = permutation[_stable_order(noisy[part][permutation])]
        if grouped:
            ranked = ranked[np.argsort(labels[ranked], kind="stable")]
            chunks = np.split(values[by_group], bounds)
            sorted_values = np.concatenate([np.sort(chunk) for chunk in chunks])
        else:
            sorted_values = np.sort(values)
        out = np.empty(n)
        out[ranked] = sorted_values
        result[part] = out
    return result


def _stable_order(x: np.ndarray) -> np.ndarray:
    """``numpy.argsort(x, kind="stable")`` of floats; by
    :func:`~privcut.graph.sorting.stable_argsort` of the integers when they are integers
    below 2^52 in magnitude (noisy degrees of a 0/1 graph: one counting-sort pass where
    they span less than 2^16), the same permutation."""
    if x.size and bool(np.all(np.abs(x) < 2.0**52)) and bool(np.all(np.rint(x) == x)):
        whole = x.astype(np.int64)
        return stable_argsort(whole - whole.min())
    return np.argsort(x, kind="stable")


def _unit_totals(measured: Measurements, blocks: np.ndarray | None, total: float, counts):
    """Integer degree sums per half and group: the fitted group totals from the blocks (a
    Graph's block (a, a) counts twice, (a, b) once for each side), else the edge count,
    rounded to integers with one even total for a Graph (out and in equal for a DiGraph)."""
    universe, partition = measured.universe, measured.partition
    n, directed = universe.n, universe.directed
    grand = float(total) * universe.multiplicity
    if directed:
        whole = int(np.clip(np.rint(grand), 0, n * (n - 1)))
    else:
        floor = int(np.floor(grand))
        whole = min(floor + (floor % 2), n * (n - 1))
    if blocks is None:
        sums = [np.array([grand])] * (2 if directed else 1)
    else:
        first, second = partition.blocks
        sums = [np.bincount(first, blocks, partition.g), np.bincount(second, blocks, partition.g)]
        sums = sums if directed else [sums[0] + sums[1]]
    capacity = counts * (n - 1.0)
    return [round_keeping_sum(box_shift(s, capacity, whole), whole, capacity) for s in sums]


def fit_sequence(measured: Measurements, blocks: np.ndarray | None, total: float) -> np.ndarray:
    """Per-node degree targets from the noisy ``"degree-sequence"`` (post-processing).

    Each group's noisy sorted sequence is fitted by :func:`isotonic` (Hay et al. 2009),
    its plateaus smoothed (:func:`smooth_plateaus`, within :data:`SMOOTHING` noise
    standard deviations), clipped to [0, n - 1], shifted in that box to its integer group total
    (:func:`box_shift`; totals from the fitted blocks, else the edge count, even for a
    Graph), rounded keeping the total (:func:`round_keeping_sum`), handed to the group's
    nodes in the measurement's random order (public randomness: a node gets a degree
    from the distribution, not its own) and made graphical (:func:`make_graphical`,
    which may lower the totals when the test fails). O(n log n) plus the repair.

    Returns
    -------
    numpy.ndarray
        Integer-valued floats, one per node (out- then in-degrees for a DiGraph).

    Examples
    --------
    >>> from privcut.graph.measurement import measure
    >>> from privcut.graph.planning import plan_measurements
    >>> plan = plan_measurements(range(30), 4.0, {"edge-count": 0.5, "degree-sequence": 0.5})
    >>> measured = measure(nx.cycle_graph(30), plan, rng=0)
    >>> fitted = fit_sequence(measured, None, 30.0)
    >>> int(fitted.sum()) % 2, int(fitted.sum()) <= 60, is_graphical(fitted)
    (0, True, True)
    """
    universe, partition, record = measured.universe, measured.partition, measured.get(SEQUENCE)
    n, directed = universe.n, universe.directed
    labels = np.zeros(n, dtype=np.intp) if partition is None else partition.labels
    counts = np.bincount(labels, minlength=1 if partition is None else partition.g)
    edges = np.concatenate([[0], np.cumsum(counts)])
    totals = _unit_totals(measured, blocks, total, counts)
    fitted, reach = np.empty(record.values.size), SMOOTHING * np.sqrt(record.noise.variance)
    for h, group_totals in enumerate(totals):
        noisy = record.values[h * n : (h + 1) * n]
        sequence = np.empty(n)
        for a in range(counts.size):
            part = slice(edges[a], edges[a + 1])
            fit = np.clip(smooth_plateaus(isotonic(noisy[part]), reach), 0.0, n - 1.0)
            fit = box_shift(fit, n - 1.0, group_totals[a])
            sequence[part] = np.sort(round_keeping_sum(fit, int(group_totals[a]), n - 1.0))
        order = record.order[h]
        members = order[np.argsort(labels[order], kind="stable")]
        fitted[h * n + members] = sequence
    return make_graphical(fitted, directed).astype(float)
