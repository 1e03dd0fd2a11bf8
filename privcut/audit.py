"""Statistical privacy audits: try to refute a mechanism's (epsilon, delta) claim.

A StatDP-style tester (Ding, Wang, Wang, Zhang, Kifer, *Detecting Violations
of Differential Privacy*, CCS 2018). For one neighbouring pair ``(D, D')``:

1. *Event selection.* Run the mechanism on both sides and, from these runs
   alone, pick output events ``E`` and directions that most clearly show
   ``P[M(D) in E] > e^epsilon P[M(D') in E] + delta`` (largest Wald statistic), the
   best of each of three families:

   ``"threshold"``
       half-lines of each numeric coordinate (at quantiles, or at every value when
       there are few) and of the projection of vector outputs on the difference of
       the two sides' mean outputs;
   ``"value"``
       exact-value events (one value and its complement) of each discrete coordinate
       (at most :data:`MAX_CELLS` distinct values), of whole rows and of non-numeric
       outputs;
   ``"ratio"``
       likelihood-ratio-ordered unions of output cells (Neyman–Pearson events),
       which cover discrete and non-numeric outputs. These have one degree of freedom
       per cell, so they would overfit sparse cells: the order is fitted on the first
       half of the selection runs and the unions are scored on the other half.

   The threshold and value families have few free choices and are scored on all
   selection runs.
2. *Testing.* Run the mechanism again on fresh samples and test each selected event
   (at most one per family, those with some evidence, duplicates removed) with exact
   one-sided Clopper–Pearson bounds: with ``L(alpha/2)`` a lower bound on
   ``P[M(D) in E]`` and ``U(alpha/2)`` an upper bound on ``P[M(D') in E]``, the claim is
   rejected at level alpha when ``L > e^epsilon U + delta``. By the union bound this
   test has size at most alpha for every (epsilon, delta)-DP mechanism, for any
   delta; the event's p-value is the smallest alpha that rejects, and the reported
   p-value is the smallest one times the number of events tested (Bonferroni).

Because the events are chosen on samples independent of the test samples, the
p-value is valid; a small one (say <= 1e-3) refutes the claim. A large one
only means this pair and this sample size found nothing. ``pystatdp`` is not
used: its neighbouring-pair generator builds non-neighbouring pairs for
sparse-vector mechanisms.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise, permutations
from typing import Any

import networkx as nx
import numpy as np
from scipy.stats import beta as beta_distribution

from privcut.graph.universe import check_graph
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_delta, check_epsilon, check_scalar

__all__ = ["AuditResult", "audit", "neighbouring_graphs"]

MAX_CELLS = 100
"""How many cells each output coordinate is cut into for event selection."""

FAMILIES = ("threshold", "value", "ratio")
"""The families of candidate events (module docstring); each offers one event to test."""

SMALLEST_P_VALUE = 1e-300
"""p-values are reported down to this floor."""


@dataclass(frozen=True)
class AuditResult:
    """The outcome of :func:`audit`.

    Attributes
    ----------
    p_value : float
        p-value of the claim ``P[M(D) in E] <= e^epsilon P[M(D') in E] + delta`` for
        the tested events and directions: the smallest event's p-value times
        ``events_tested`` (Bonferroni), at most 1; small values refute the claim.
    epsilon_lower_bound : float
        A lower bound on the mechanism's true epsilon that holds with the stated
        ``confidence`` (Clopper–Pearson, given the claimed delta, the largest over the
        tested events at Bonferroni-corrected levels); 0 when the test samples show no
        privacy loss.
    event : str
        The event E with the smallest p-value and the direction of its test, e.g.
        ``"output >= 0.5, more likely on pair[0]"``.
    counts : tuple of int
        How often E occurred among the test runs on the more likely side and on the
        other side.
    samples : int
        Test runs on each side.
    epsilon, delta : float
        The claim that was tested.
    confidence : float
        The confidence level of ``epsilon_lower_bound``.
    events_tested : int
        How many events (at most one per family of the module docstring) were tested on
        the fresh samples.
    """

    p_value: float
    epsilon_lower_bound: float
    event: str
    counts: tuple[int, int]
    samples: int
    epsilon: float
    delta: float
    confidence: float
    events_tested: int = 1


@dataclass(frozen=True)
class _Partition:
    """A labelling of outputs into cells, with the events it offers: ``ordered`` cells
    (intervals of a number, in order) offer half-lines, ``discrete`` ones (each cell one
    value, but for values unseen in selection) exact values."""

    name: str
    label: Callable[[np.ndarray], np.ndarray]
    cell_names: Sequence[str]
    ordered: bool
    discrete: bool
    edges: np.ndarray | None = None

    def describe(self, event: np.ndarray) -> str:
        cells = np.flatnonzero(event)
        if self.ordered and cells.size and np.all(np.diff(cells) == 1):
            if cells[0] == 0:
                return f"{self.name} < {self.edges[cells[-1]]:.6g}"
            if cells[-1] == event.size - 1:
                return f"{self.name} >= {self.edges[cells[0] - 1]:.6g}"
        shown = ", ".join(self.cell_names[c] for c in cells[:5])
        more = f", ... ({cells.size} cells)" if cells.size > 5 else ""
        return f"{self.name} in {{{shown}{more}}}"


def _hashable(output: Any) -> Hashable:
    if isinstance(output, np.ndarray):
        return (output.shape, output.dtype.str, output.tobytes())
    if isinstance(output, (list, tuple)):
        return tuple(_hashable(item) for item in output)
    return output


def _as_outputs(raw: Any) -> np.ndarray:
    """Numeric outputs as a float array (runs x coordinates); others as hashable objects."""
    try:
        array = np.asarray(raw)
    except ValueError:
        array = None
    if array is not None and array.dtype.kind in "biuf" and array.ndim in (1, 2):
        array = array.astype(float).reshape(len(array), -1)
        if not np.isnan(array).any():
            return array
    keys = np.empty(len(raw), dtype=object)
    keys[:] = [_hashable(item) for item in raw]
    return keys


def _run(
    mechanism: Callable, data: Any, runs: int, generator: np.random.Generator, vectorized: bool
) -> np.ndarray:
    raw = (
        mechanism(data, generator, runs)
        if vectorized
        else [mechanism(data, generator) for _ in range(runs)]
    )
    if len(raw) != runs:
        raise ValueError(
            f"a vectorized mechanism must return {runs} outputs for size={runs}, got {len(raw)}"
        )
    return _as_outputs(raw)


def _numeric_partition(values: np.ndarray, name: str) -> _Partition:
    distinct = np.unique(values)
    discrete = bool(distinct.size <= MAX_CELLS)
    if discrete:
        edges = distinct[1:]
        names = [f"{value:.6g}" for value in distinct]
    else:
        edges = np.unique(np.quantile(values, np.linspace(0.0, 1.0, MAX_CELLS + 1)[1:-1]))
        bounds = np.concatenate([[-np.inf], edges, [np.inf]])
        names = [f"[{lo:.6g}, {hi:.6g})" for lo, hi in pairwise(bounds)]
    return _Partition(
        name=name,
        label=lambda column: np.searchsorted(edges, column, side="right"),
        cell_names=names,
        ordered=True,
        discrete=discrete,
        edges=edges,
    )


def _atom_partition(keys: Iterable[Hashable], name: str) -> _Partition:
    codes: dict[Hashable, int] = {}
    for key in keys:
        codes.setdefault(key, len(codes))
    other = len(codes)
    names = [repr(key)[:40] for key in codes] + ["(unseen)"]
    return _Partition(
        name=name,
        label=lambda column: np.fromiter((codes.get(k, other) for k in column), int, len(column)),
        cell_names=names,
        ordered=False,
        discrete=True,
    )


def _partitions(
    selection: list[np.ndarray],
) -> list[tuple[_Partition, Callable[[np.ndarray], Any]]]:
    """Partitions of the output space, each with the function giving the column it labels.

    For vector outputs, besides each coordinate and (if few) whole rows, the outputs'
    projection on the difference of the two sides' mean outputs: the direction in
    which an additive-noise mechanism's privacy loss grows, so joint violations
    that no single coordinate shows are seen. It is estimated from the selection
    runs only.
    """
    pooled = np.concatenate(selection)
    if pooled.dtype == object:
        return [(_atom_partition(pooled, "output"), lambda outputs: outputs)]
    width = pooled.shape[1]
    found = []
    for j in range(width):
        name = "output" if width == 1 else f"output[{j}]"
        found.append((_numeric_partition(pooled[:, j], name), lambda outputs, j=j: outputs[:, j]))
    if width == 1:
        return found
    direction = selection[0].mean(axis=0) - selection[1].mean(axis=0)
    if np.any(direction):

        def project(outputs: np.ndarray) -> np.ndarray:
            return outputs @ direction

        name = f"output @ {np.array2string(direction, precision=3, threshold=6)}"
        found.append((_numeric_partition(project(pooled), name), project))
    if len({tuple(row) for row in pooled}) <= MAX_CELLS:

        def as_rows(outputs: np.ndarray) -> list[tuple[float, ...]]:
            return [tuple(row) for row in outputs.tolist()]  # plain floats: readable names

        found.append((_atom_partition(as_rows(pooled), "output"), as_rows))
    return found


def _cell_counts(labels: np.ndarray, cells: int) -> np.ndarray:
    return np.bincount(labels, minlength=cells)[:cells]


def _prefixes(order: np.ndarray) -> np.ndarray:
    """Boolean (events x cells): the prefixes and suffixes of an order of the cells."""
    cells = order.size
    if cells < 2:
        return np.zeros((0, cells), dtype=bool)
    prefixes = np.zeros((cells - 1, cells), dtype=bool)
    prefixes[:, order] = np.tril(np.ones((cells - 1, cells), dtype=bool))
    return np.concatenate([prefixes, ~prefixes])


def _family_events(family: str, partition: _Partition, fitted: np.ndarray) -> np.ndarray:
    """Boolean (events x cells): the candidate events of one family (module docstring) on a
    partition; ``fitted`` (2 x cells) are the counts the likelihood-ratio order is fitted on."""
    cells = len(partition.cell_names)
    if family == "threshold":
        return _prefixes(np.arange(cells)) if partition.ordered else np.zeros((0, cells), bool)
    if family == "value":
        if not partition.discrete or cells < 2:
            return np.zeros((0, cells), dtype=bool)
        single = np.eye(cells, dtype=bool)
        return np.concatenate([single, ~single])
    return _prefixes(np.argsort(-(fitted[0] + 0.5) / (fitted[1] + 0.5), kind="stable"))


def _lower(count: np.ndarray, runs: int, level: float) -> np.ndarray:
    """One-sided Clopper–Pearson lower bounds: ``P[p < bound] <= level``."""
    count = np.asarray(count, dtype=float)
    safe = np.maximum(count, 1.0)
    return np.where(count > 0, beta_distribution.ppf(level, safe, runs - count + 1), 0.0)


def _upper(count: np.ndarray, runs: int, level: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper bounds: ``P[p > bound] <= level``."""
    count = np.asarray(count, dtype=float)
    safe = np.minimum(count, runs - 1.0)
    return np.where(count < runs, beta_distribution.isf(level, safe + 1, runs - safe), 1.0)


def _violation_score(
    likely: np.ndarray, other: np.ndarray, runs: int, epsilon: float, delta: float
) -> np.ndarray:
    """Wald statistic of ``P[likely] - e^epsilon P[other] - delta``: large where the test
    will be powerful (many hits and a ratio well above e^epsilon), small for rare events."""
    factor = math.exp(epsilon)
    spread = np.sqrt(likely + factor**2 * other + 1.0)
    return (likely - factor * other - delta * runs) / spread


def _epsilon_lower_bound(
    likely: np.ndarray, other: np.ndarray, runs: int, delta: float, confidence: float
) -> np.ndarray:
    level = (1.0 - confidence) / 2.0
    excess = _lower(likely, runs, level) - delta
    with np.errstate(divide="ignore"):
        bound = np.log(np.maximum(excess, 0.0) / _upper(other, runs, level))
    return np.maximum(bound, 0.0)


def _p_value(likely: int, other: int, runs: int, epsilon: float, delta: float) -> float:
    def rejects(log_alpha: float) -> bool:
        level = math.exp(log_alpha) / 2.0
        upper = float(_upper(other, runs, level))
        return float(_lower(likely, runs, level)) > math.exp(epsilon) * upper + delta

    low, high = math.log(SMALLEST_P_VALUE), 0.0
    if not rejects(high):
        return 1.0
    if rejects(low):
        return SMALLEST_P_VALUE
    for _ in range(60):
        middle = (low + high) / 2.0
        low, high = (low, middle) if rejects(middle) else (middle, high)
    return math.exp(high)


def audit(
    mechanism: Callable,
    pair: tuple[Any, Any],
    epsilon: float,
    delta: float = 0.0,
    *,
    samples: int = 100_000,
    selection_samples: int | None = None,
    vectorized: bool = False,
    confidence: float = 0.95,
    rng: RandomState = None,
) -> AuditResult:
    """Test a mechanism's (epsilon, delta)-DP claim on one neighbouring pair.

    See the module docstring for the method. The test is one-sided and exact:
    for a mechanism that really is (epsilon, delta)-DP, ``p_value <= alpha``
    happens with probability at most alpha.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, rng)`` returns one output (a number, a vector of numbers,
        or anything hashable), drawing its randomness from the
        ``numpy.random.Generator`` it is given. With ``vectorized=True`` it is called
        as ``mechanism(data, rng, size)`` and returns ``size`` outputs (an array whose
        first axis has length ``size``, or a list).
    pair : tuple
        ``(D, D')``, two neighbouring inputs; both directions are tested.
    epsilon : float
        The claimed epsilon > 0.
    delta : float, default 0.0
        The claimed delta in [0, 1).
    samples : int, default 100_000
        Runs on each side for the test.
    selection_samples : int, optional
        Runs on each side for choosing the event; default ``samples // 2``.
    vectorized : bool, default False
        Whether ``mechanism`` takes a ``size`` argument (much faster).
    confidence : float, default 0.95
        Confidence level of ``epsilon_lower_bound``.
    rng : None, int or numpy.random.Generator, optional
        Randomness passed to the mechanism; an int makes the audit reproducible.

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> import numpy as np
    >>> def noisy_count(count, rng, size):
    ...     return count + rng.laplace(0.0, 1.0, size)
    >>> result = audit(noisy_count, (0, 1), epsilon=1.0, samples=20_000,
    ...                vectorized=True, rng=0)
    >>> result.p_value > 0.01
    True
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    samples = check_scalar(samples, "samples", int, low=2)
    selection_samples = check_scalar(
        max(samples // 2, 2) if selection_samples is None else selection_samples,
        "selection_samples",
        int,
        low=2,
    )
    confidence = check_scalar(confidence, "confidence", low=0.0, high=1.0, closed="neither")
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise ValueError(f"pair must be (data, neighbour), got {pair!r:.60}")
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable, got {type(mechanism).__name__}")
    generator = check_random_state(rng)

    selection = [_run(mechanism, d, selection_samples, generator, vectorized) for d in pair]
    chosen = _select(selection, epsilon, delta)
    tested = [_run(mechanism, d, samples, generator, vectorized) for d in pair]
    level = len(chosen)
    found = []
    for partition, column, event, side in chosen:
        hits = [int(event[partition.label(column(outputs))].sum()) for outputs in tested]
        likely, other = hits[side], hits[1 - side]
        found.append(
            (
                _p_value(likely, other, samples, epsilon, delta),
                float(
                    _epsilon_lower_bound(
                        likely, other, samples, delta, 1.0 - (1.0 - confidence) / level
                    )
                ),
                f"{partition.describe(event)}, more likely on pair[{side}]",
                (likely, other),
            )
        )
    p_value, _, event, counts = min(found, key=lambda item: item[0])
    return AuditResult(
        p_value=min(1.0, level * p_value),
        epsilon_lower_bound=max(item[1] for item in found),
        event=event,
        counts=counts,
        samples=samples,
        epsilon=epsilon,
        delta=delta,
        confidence=confidence,
        events_tested=level,
    )


_Event = tuple[_Partition, Callable[[np.ndarray], Any], np.ndarray, int]


def _select(selection: list[np.ndarray], epsilon: float, delta: float) -> list[_Event]:
    """The events to test, from the selection runs alone: each family's best by Wald score
    (the ratio family's order fitted on the first half of the runs, scored on the second),
    those with a positive score (or the best one if none has), best first, duplicates
    removed."""
    runs = len(selection[0])
    half = runs // 2
    best: dict[str, tuple[float, _Event | None]] = {family: (-np.inf, None) for family in FAMILIES}
    for partition, column in _partitions(selection):
        cells = len(partition.cell_names)
        labels = [partition.label(column(outputs)) for outputs in selection]
        counts = np.stack([_cell_counts(side, cells) for side in labels]).astype(float)
        fitted = np.stack([_cell_counts(side[:half], cells) for side in labels]).astype(float)
        for family in FAMILIES:
            events = _family_events(family, partition, fitted)
            scored, scored_runs = (
                (counts - fitted, runs - half) if family == "ratio" else (counts, runs)
            )
            hits = events.astype(float) @ scored.T
            for side in (0, 1):
                scores = _violation_score(
                    hits[:, side], hits[:, 1 - side], scored_runs, epsilon, delta
                )
                if scores.size and scores.max() > best[family][0]:
                    event = events[scores.argmax()]
                    best[family] = (float(scores.max()), (partition, column, event, side))
    ranked = sorted(
        ((score, event) for score, event in best.values() if event is not None),
        key=lambda item: -item[0],
    )
    if not ranked:
        raise ValueError(
            "the mechanism gave the same output on every run on both sides; "
            "there is no event to test"
        )
    chosen: dict[tuple, _Event] = {}
    for score, (partition, column, event, side) in ranked:
        key = (partition.name, event.tobytes(), side)
        if (score > 0.0 or not chosen) and key not in chosen:
            chosen[key] = (partition, column, event, side)
    return list(chosen.values())


def neighbouring_graphs(
    G: nx.Graph, pairs: Iterable[tuple[Hashable, Hashable]] | None = None
) -> Iterator[nx.Graph]:
    """Yield the edge-flip neighbours of ``G``: each differs from it in one vertex pair.

    This is privcut's edge-level neighbouring relation: same node set, one
    unordered pair (``Graph``) or ordered pair (``DiGraph``) added or removed.
    Each neighbour is a copy of ``G`` with ``H.graph["flipped"] = (u, v)``;
    an added edge gets weight 1.

    Parameters
    ----------
    G : networkx.Graph or networkx.DiGraph
        The graph; multigraphs are refused.
    pairs : iterable of (u, v), optional
        The pairs to flip; default every pair of distinct nodes, in node order.

    Yields
    ------
    networkx.Graph or networkx.DiGraph

    Raises
    ------
    GraphInputError
        If ``G`` is not a graph privcut accepts (see
        :func:`privcut.graph.check_graph`).
    KeyError
        If a pair names a node not in ``G``.

    Examples
    --------
    >>> import networkx as nx
    >>> path = nx.path_graph(3)
    >>> [sorted(H.edges) for H in neighbouring_graphs(path)]
    [[(1, 2)], [(0, 1), (0, 2), (1, 2)], [(0, 1)]]
    """
    check_graph(G)
    if pairs is None:
        pairs = (permutations if G.is_directed() else combinations)(G.nodes, 2)
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
        raise TypeError(f"pairs must be an iterable of node pairs (u, v), got {pairs!r:.60}")
    for pair in pairs:
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise ValueError(f"pairs must hold node pairs (u, v), got {pair!r:.60}")
        u, v = pair
        if u == v:
            raise ValueError(f"pairs must hold two distinct nodes, got {pair!r:.60}")
        for node in (u, v):
            if node not in G:
                raise KeyError(f"node {node!r} is not in the graph")
        H = G.copy()
        if H.has_edge(u, v):
            H.remove_edge(u, v)
        else:
            H.add_edge(u, v)
        H.graph["flipped"] = (u, v)
        yield H
