"""The sparse release on Dask: :func:`synthetic_edges`, ``synthetic_graph(...,
method="sparse")`` over a ``dask.dataframe`` of edges that need not fit one machine,
generated on the workers.

The graph is read only by distributed aggregations, one pass over the partitions: each
partition's checks (integer ids in [0, n), no self-loop), its edge count, its degrees
(:func:`numpy.bincount`, out- and in-degrees for a DiGraph) and its block-pair counts of
the public groups, summed by a tree reduction (fan-in :data:`FAN_IN`) and read by the
client; and a hash shuffle of the edges' canonical pair keys (:data:`BUCKETS_PER_PARTITION`)
that finds duplicates across partitions. Every noise draw is made once, in the client,
from one generator (the OS secure source by default), by the same code and in the same
order as the in-memory :func:`~privcut.graph.measurement.measure`
(:func:`~privcut.graph.measurement.noisy_statistic`); so are the fit and the integer
counts and degrees (:meth:`~privcut.graph.sparse.SparseGenerator.blocks`). The same
privacy accounting as in memory, no partition-dependent sensitivity.

The generation is distributed (:mod:`privcut.graph.dask_pairing`): the configuration
model runs on the workers, each task with its own stream (``numpy.random.SeedSequence``
children of one 128-bit root the client draws after the noise), and the client finishes
the few stubs its first round refuses with the in-memory steps. The release has the law
of ``synthetic_graph(A, epsilon, method="sparse", measurements=..., groups="none",
rng=...)`` on the CSR adjacency ``A`` for the same measurements (no private communities:
the in-memory ``"auto"``'s decision to buy them is not made here; ``"auto"`` here is
:meth:`~privcut.graph.sparse.SparseGenerator.default_measurements` with
``clustering=False``: triangle counts are not distributed yet): the same noise, counts
and integer degrees for the same seed, the matching drawn by other streams. Where the
configuration model does not draw every block pair (no degrees measured, or a block pair
small or dense enough to be enumerated: its weighted draw and the degree corrections read
every edge) the in-memory generator runs in the client, as before, with the in-memory
draws (the report's mechanism says which ran).

The input rule is the in-memory edge-list reader's
(:func:`~privcut.datasets.read_edge_array`): columns ``u`` and ``v`` of integer node ids
in [0, n) (other columns, e.g. a weight, are ignored: the release reads a 0/1 graph);
for a Graph an edge may be given as ``(u, v)`` or ``(v, u)`` but only once; self-loops
and duplicate edges, in any partitions, are refused with a :class:`GraphInputError`
naming one, before any noise is drawn. The result's partition count is a function of the
released (noisy) edge count and the public ``partition_edges`` only, its partitions hash
buckets of the released pair keys.

The steps are public on their own: :func:`aggregate_edges` (the distributed pass, its
private result an :class:`EdgeAggregates`) and :func:`synthetic_from_aggregates` (the
release: noise in the client, generation on the workers); :func:`synthetic_edges` is the
two in turn, every option checked before the table is read.

Costs: a partition task holds its partition (16 bytes an edge in u, v, a few times that
while it sorts its pair keys) plus O(n) for its degree counts (O(g^2) for the blocks of g
groups); a reduction task holds up to :data:`FAN_IN` + 1 degree arrays of 8n bytes; the
shuffle moves 8 bytes per edge; the client holds O(n) for the degrees. The distributed
generation: a range task O(its stubs), two shuffles (17 bytes a stub, 40 bytes a pair),
the released edges persisted on the workers (about 57 bytes a released edge while the
pairs are held); the client O(n + P x slots) plus the refused stubs and the kept edges
at their nodes (:mod:`privcut.graph.dask_pairing`).
"""

from __future__ import annotations

import math
import operator
import time
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from privcut.exceptions import GraphInputError
from privcut.graph.bounds import release_bounds, split_beta
from privcut.graph.dask_pairing import distributed_pairing
from privcut.graph.fitting import fit_targets
from privcut.graph.generation import Generated
from privcut.graph.measurement import Measurements, noisy_statistic, sorted_sequence
from privcut.graph.partition import Partition
from privcut.graph.planning import FILTERED, MeasurementPlan, plan_measurements
from privcut.graph.report import SyntheticRelease
from privcut.graph.sparse import MECHANISM, SparseGenerator
from privcut.graph.timing import log_timings
from privcut.graph.universe import EdgeUniverse, check_pairs
from privcut.privacy import PrivacyBudget, check_beta, check_epsilon
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_scalar
from privcut.records import Bound, SolverSummary

__all__ = [
    "BUCKETS_PER_PARTITION",
    "FAN_IN",
    "MAX_NODES",
    "PARTITION_EDGES",
    "DistributedGenerated",
    "EdgeAggregates",
    "aggregate_edges",
    "check_measurements",
    "synthetic_edges",
    "synthetic_from_aggregates",
]

PARTITION_EDGES = 10**6
"""Default most released edges per partition of the result (a public constant: the
result's partition count is ``ceil(released edges / partition_edges)``)."""

FAN_IN = 8
"""How many partial aggregates (degree counts, block counts) one reduction task sums."""

BUCKETS_PER_PARTITION = 1
"""The duplicate check's hash buckets per input partition (each bucket holds about one
partition's pair keys, 8 bytes each)."""

MAX_NODES = 10**8
"""The most nodes a release takes: the client holds the public node tuple and O(n)
arrays (about 100 bytes a node with the degree measurements)."""

ENGINE = " (engine 'dask': distributed aggregations, noise and generation in the client)"

DISTRIBUTED = (
    " (engine 'dask': distributed aggregations and configuration model, noise in the client)"
)

_HASH = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing of the pair keys to buckets


def _scan(frame: pd.DataFrame, n: int, directed: bool, labels, table, buckets: int):
    """One partition's aggregates and checks: its edge count, bad-id and self-loop counts
    with one example each, degree counts (out and in), block-pair counts and its
    canonical pair keys split into hash buckets. O(partition + n)."""
    u, v = frame["u"].to_numpy(), frame["v"].to_numpy()
    outside = (u < 0) | (u >= n) | (v < 0) | (v >= n)
    bad = None
    if outside.any():
        where = int(np.flatnonzero(outside)[0])
        bad = (int(u[where]), int(v[where]))
    u, v = u[~outside].astype(np.int64), v[~outside].astype(np.int64)
    loops = u == v
    loop = int(u[loops][0]) if loops.any() else None
    out, into = np.bincount(u, minlength=n), np.bincount(v, minlength=n)
    degrees = (out, into) if directed else (out + into,)
    blocks = (
        None
        if labels is None
        else np.bincount(table[labels[u], labels[v]], minlength=table.max() + 1)
    )
    keys = np.minimum(u, v) * n + np.maximum(u, v) if not directed else u * n + v
    spread = (keys.astype(np.uint64) * _HASH) >> np.uint64(32)
    bucket = (spread % np.uint64(buckets)).astype(np.intp)
    order = np.argsort(bucket, kind="stable")
    split = np.searchsorted(bucket[order], np.arange(1, buckets))
    parts = tuple(np.split(keys[order], split))
    counts = {"outside": int(outside.sum()), "loops": int(loops.sum())}
    scanned = {"counts": counts, "sizes": [int(u.size)], "bad": bad, "loop": loop}
    return {**scanned, "degrees": degrees, "blocks": blocks}, parts


def _merge(*parts: dict) -> dict:
    """The sum of partial aggregates (the first bad id and self-loop kept)."""
    first = parts[0]
    counts = {key: sum(part["counts"][key] for part in parts) for key in first["counts"]}
    degrees = tuple(sum(part["degrees"][h] for part in parts) for h in range(len(first["degrees"])))
    blocks = None if first["blocks"] is None else sum(part["blocks"] for part in parts)
    bad = next((part["bad"] for part in parts if part["bad"] is not None), None)
    loop = next((part["loop"] for part in parts if part["loop"] is not None), None)
    sizes = [size for part in parts for size in part["sizes"]]
    merged = {"counts": counts, "sizes": sizes, "bad": bad, "loop": loop}
    return {**merged, "degrees": degrees, "blocks": blocks}


def _duplicates(*parts: np.ndarray) -> tuple[int, int | None]:
    """How many keys of one hash bucket repeat, and one repeated key."""
    keys = np.sort(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)
    repeated = keys[1:][keys[1:] == keys[:-1]]
    return int(repeated.size), (int(repeated[0]) if repeated.size else None)


def _tree(items: list, combine) -> object:
    """A tree reduction of delayed items, :data:`FAN_IN` at a time."""
    while len(items) > 1:
        items = [
            dask.delayed(combine)(*items[start : start + FAN_IN])
            for start in range(0, len(items), FAN_IN)
        ]
    return items[0]


def _check_frame(edges: object) -> None:
    """The edge table's type, columns and dtypes (metadata only: nothing computed)."""
    if not isinstance(edges, dd.DataFrame):
        raise TypeError(
            f"edges must be a dask.dataframe.DataFrame with columns 'u' and 'v', got "
            f"{type(edges).__name__}; e.g. dask.dataframe.read_parquet(path)"
        )
    missing = [column for column in ("u", "v") if column not in edges.columns]
    if missing:
        raise GraphInputError(
            f"edges has no column {missing[0]!r} (columns {list(edges.columns)[:5]}); give "
            "the edge table's endpoints as integer node ids in columns 'u' and 'v' "
            "(e.g. edges.rename(columns={...}))"
        )
    for column in ("u", "v"):
        dtype = edges[column].dtype
        if not (isinstance(dtype, np.dtype) and dtype.kind in "iu"):
            raise GraphInputError(
                f"edges[{column!r}] has dtype {dtype}; node ids must be integers in [0, n) "
                "without missing values (map labels to ids with the public node table first)"
            )


def _group_mapping(groups, n: int) -> Mapping | None:
    """The public groups as a mapping node id -> group (a sequence of n groups is read
    as node i's group at position i)."""
    if groups is None or isinstance(groups, Mapping):
        return groups
    if isinstance(groups, (str, bytes)) or not isinstance(groups, (Sequence, np.ndarray)):
        raise TypeError(
            "groups must be a mapping node id -> group or a sequence of n groups, got "
            f"{type(groups).__name__}"
        )
    if len(groups) != n:
        raise GraphInputError(f"groups has {len(groups)} entries for {n} nodes; give one per node")
    return dict(enumerate(np.asarray(groups).tolist()))


def check_measurements(
    measurements: str | Iterable[str] | Mapping[str, float], *, grouped: bool = False
) -> str | list[str] | Mapping[str, float]:
    """The measurements :func:`synthetic_edges` takes for ``measurements``: ``"auto"`` as
    the sparse generator declares it (with ``grouped``: public groups given), else as
    given; those not distributed yet refused. Public inputs only: a caller can check them
    before it starts a cluster or reads any data.

    Raises
    ------
    ValueError
        For ``"randomized-response"`` (n x n), ``"filtered-randomized-response"``,
        ``"clustering"`` and ``"assortativity"``, naming the measurements the engine takes.

    Examples
    --------
    >>> check_measurements("auto")
    {'edge-count': 0.1, 'degrees': 0.3, 'degree-sequence': 0.6}
    >>> check_measurements(["edge-count", "clustering"])
    Traceback (most recent call last):
    ...
    ValueError: measurements: the dask engine does not take 'clustering' ...
    """
    return _measurements(measurements, grouped)


def _measurements(measurements, grouped: bool):
    """``"auto"`` as the sparse generator declares it without ``"clustering"``;
    randomized response (n x n), its filtered form and the clustering measurement (not
    yet distributed) refused."""
    if isinstance(measurements, str) and measurements == "auto":
        return SparseGenerator.default_measurements(grouped, clustering=False)
    if isinstance(measurements, Iterable) and not isinstance(measurements, (str, Mapping)):
        measurements = list(measurements)  # read once (an iterator is read here)
    named = [measurements] if isinstance(measurements, str) else measurements
    named = named if isinstance(named, Iterable) else ()  # plan_measurements names it
    for name in ("randomized-response", FILTERED, "clustering", "assortativity"):
        if name in named:
            raise ValueError(
                f"measurements: the dask engine does not take {name!r} (randomized response "
                "is n x n; its filtered form, the triangle counts of 'clustering' and the "
                "clipped-degree moment of 'assortativity' are not distributed yet): use "
                "'edge-count', 'degrees', 'degree-sequence' and 'blocks', or the in-memory "
                "synthetic_graph"
            )
    return measurements


def _aggregate(edges: dd.DataFrame, n: int, directed: bool, partition: Partition | None):
    """The exact aggregates, in one distributed pass (the edge table read once):
    the merged partition aggregates and the duplicate count with one repeated key."""
    labels = table = None
    if partition is not None:
        labels = partition.labels
        first, second = partition.blocks
        table = np.empty((partition.g, partition.g), dtype=np.intp)
        table[first, second] = np.arange(partition.size)
        if not directed:
            table[second, first] = np.arange(partition.size)
    labels, table = dask.delayed(labels), dask.delayed(table)  # one task each, shared
    pieces = edges[["u", "v"]].to_delayed()
    buckets = max(1, BUCKETS_PER_PARTITION * len(pieces))
    scanned = [
        dask.delayed(_scan, nout=2)(piece, n, directed, labels, table, buckets) for piece in pieces
    ]
    merged = _tree([scan[0] for scan in scanned], _merge)
    checks = [
        dask.delayed(_duplicates)(*[dask.delayed(operator.getitem)(scan[1], b) for scan in scanned])
        for b in range(buckets)
    ]
    return dask.compute(merged, checks)


def _check_aggregates(merged: dict, checks: list, n: int, directed: bool) -> None:
    """Bad ids, self-loops and duplicate edges as a clear error (before any noise)."""
    counts = merged["counts"]
    if counts["outside"]:
        u, v = merged["bad"]
        raise GraphInputError(
            f"{counts['outside']} edge(s) have a node id outside [0, {n}), e.g. ({u}, {v}); "
            "every endpoint must be a node of the public node table (ids 0..n-1)"
        )
    if counts["loops"]:
        raise GraphInputError(
            f"{counts['loops']} self-loop(s), e.g. ({merged['loop']}, {merged['loop']}); "
            "remove them (a release is on vertex pairs u != v)"
        )
    repeated = sum(count for count, _ in checks)
    if repeated:
        key = next(key for _, key in checks if key is not None)
        orientation = "" if directed else " (an undirected edge is given once, as u v or v u)"
        raise GraphInputError(
            f"{repeated} duplicate edge(s), e.g. ({key // n}, {key % n}); give each edge "
            f"once{orientation}"
        )


@dataclass(frozen=True)
class EdgeAggregates:
    """The exact aggregates of a Dask edge table (:func:`aggregate_edges`): private data,
    never to be published; what the release's noise is added to.

    Attributes
    ----------
    n : int
        The public node count.
    directed : bool
        The public kind.
    partition : Partition or None
        The public groups the block counts are of.
    sizes : numpy.ndarray
        Each input partition's edge count (int64).
    degrees : numpy.ndarray
        The degrees (out- then in-degrees for a DiGraph; int64).
    blocks : numpy.ndarray or None
        The edge count of every block pair of ``partition`` (int64).

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> table = dd.from_pandas(pd.DataFrame({"u": [0, 1], "v": [1, 2]}), npartitions=2)
    >>> aggregates = aggregate_edges(table, 3)
    >>> aggregates.sizes.tolist(), aggregates.exact("degrees").tolist()
    ([1, 1], [1.0, 2.0, 1.0])
    """

    n: int
    directed: bool
    partition: Partition | None
    sizes: np.ndarray
    degrees: np.ndarray
    blocks: np.ndarray | None

    def exact(self, name: str) -> np.ndarray:
        """The exact value of a low-dimensional measurement, as
        :func:`~privcut.graph.measurement.statistic` computes it in memory."""
        if name == "edge-count":
            return np.array([float(self.sizes.sum())])
        if name == "blocks":
            return self.blocks.astype(float)
        degrees = self.degrees.astype(float)
        if name == "degrees":
            return degrees
        return sorted_sequence(degrees, self.partition, self.directed)

    def measure(
        self, plan: MeasurementPlan, universe: EdgeUniverse, rng: np.random.Generator
    ) -> Measurements:
        """The plan's measurements: each one's epsilon spent, then its noise drawn once,
        in the client, by :func:`~privcut.graph.measurement.noisy_statistic` (as
        :func:`~privcut.graph.measurement.measure` draws it in memory, in the same order;
        the hook a test's broken twin overrides). (plan.epsilon, 0)-DP under edge-level
        neighbours (basic composition, Dwork and Roth 2014 Thm 3.16). O(n)."""
        budget, records = PrivacyBudget(plan.epsilon), []
        for name, eps in zip(plan.measurements, plan.epsilons, strict=True):
            budget.spend(eps, label=name)
            exact = self.exact(name)
            records.append(noisy_statistic(name, exact, plan, universe, self.partition, rng))
        return Measurements(plan, universe, self.partition, tuple(records))


def aggregate_edges(
    edges: dd.DataFrame,
    n: int,
    *,
    directed: bool = False,
    groups: Mapping[Hashable, Hashable] | Sequence | None = None,
) -> EdgeAggregates:
    """The exact aggregates of a Dask edge table in one distributed pass, checked: its
    edge count per partition, degrees and block-pair counts (summed by a tree
    reduction), and a hash shuffle of the pair keys that finds duplicate edges across
    partitions. Runs on the current Dask scheduler (a ``distributed.Client`` if one is
    active). No noise: the result is private (see :class:`EdgeAggregates`).

    Parameters
    ----------
    edges, n, directed, groups
        As :func:`synthetic_edges`.

    Returns
    -------
    EdgeAggregates

    Raises
    ------
    GraphInputError
        Missing columns, non-integer ids, ids outside [0, n), self-loops, duplicate edges
        (across partitions too), bad groups.

    Notes
    -----
    O(|E| / P + n) time and memory per partition task (P partitions), O(n) per reduction
    task and in the client, a shuffle of 8 bytes per edge.

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> table = dd.from_pandas(pd.DataFrame({"u": [0, 2], "v": [1, 1]}), npartitions=1)
    >>> aggregate_edges(table, 3).degrees.tolist()
    [1, 2, 1]
    """
    n = check_scalar(n, "n", int, low=2, high=MAX_NODES)
    _check_frame(edges)
    universe = check_pairs(EdgeUniverse(tuple(range(n)), bool(directed)), "aggregate_edges")
    groups = _group_mapping(groups, n)
    partition = None if groups is None else Partition.of(universe, groups)
    merged, checks = _aggregate(edges, n, universe.directed, partition)
    _check_aggregates(merged, checks, n, universe.directed)
    return EdgeAggregates(
        n,
        universe.directed,
        partition,
        np.array(merged["sizes"], dtype=np.int64),
        np.concatenate(merged["degrees"]).astype(np.int64),
        merged["blocks"],
    )


@dataclass(frozen=True)
class _Setup:
    """The release's checked public choices."""

    universe: EdgeUniverse
    plan: MeasurementPlan
    options: object
    beta: float
    partition_edges: int


def _setup(n, epsilon, directed, measurements, groups, workload, beta, partition_edges) -> _Setup:
    """Every public option checked and the plan made (before any data is read)."""
    epsilon = check_epsilon(epsilon)
    beta = check_beta(beta)
    n = check_scalar(n, "n", int, low=2, high=MAX_NODES)
    partition_edges = check_scalar(partition_edges, "partition_edges", int, low=1)
    universe = check_pairs(EdgeUniverse(tuple(range(n)), bool(directed)), "synthetic_edges")
    groups = _group_mapping(groups, n)
    plan = plan_measurements(
        universe.nodes,
        epsilon,
        _measurements(measurements, groups is not None),
        groups=groups,
        workload=workload,
        directed=universe.directed,
        beta=beta,
    )
    options = SparseGenerator().options(beta=split_beta(beta)[0])
    return _Setup(universe, plan, options, beta, partition_edges)


class _Drawn(SparseGenerator):
    """The sparse generator with its first step (:meth:`SparseGenerator.blocks`) already
    drawn: the client's in-memory generation continues from those draws."""

    def __init__(self, drawn: tuple) -> None:
        self.drawn = drawn

    def blocks(self, measured, targets, rng):
        return self.drawn


@dataclass(frozen=True)
class DistributedGenerated(Generated):
    """The distributed generation's result for the bounds and the report: the released
    degrees and block counts (O(n + block pairs)); the edges stay a Dask DataFrame.

    Examples
    --------
    >>> from privcut.records import Bound, SolverSummary
    >>> done = DistributedGenerated(EdgeUniverse((0, 1, 2), False), "example",
    ...     SolverSummary(None, 0, 0, True), Bound.none(), {}, np.array([1, 2, 1]),
    ...     np.array([2]))
    >>> done.edge_count, done.degrees().tolist()
    (2.0, [1.0, 2.0, 1.0])
    """

    universe: EdgeUniverse
    mechanism: str
    solver: SolverSummary
    bound: Bound
    terms: dict
    released_degrees: np.ndarray
    counts: np.ndarray
    timings: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def edge_count(self) -> float:
        """The number of released edges (half the degree sum; out- and in-degrees of a
        DiGraph both count each arc)."""
        return float(self.released_degrees.sum()) / 2.0

    def block_sums(self, partition: Partition) -> np.ndarray:
        """The released edges per block pair of ``partition`` (the groups generated)."""
        return self.counts.astype(float)

    def degrees(self) -> np.ndarray:
        """The released degrees (out- then in-degrees for a DiGraph)."""
        return self.released_degrees.astype(float)

    def graph(self):
        """Not held: the edges are a Dask DataFrame."""
        raise TypeError("the distributed release's edges are a Dask DataFrame, not in memory")


def _release(aggregates: EdgeAggregates, setup: _Setup, rng: RandomState):
    """Measure (noise in the client), fit, generate (distributed when the configuration
    model draws every block pair, else in the client), bound and report; the released
    edges as a Dask DataFrame partitioned by the released edge count."""
    rng = check_random_state(rng)
    measured = aggregates.measure(setup.plan, setup.universe, rng)
    generator, targets = SparseGenerator(), fit_targets(measured)
    start = time.perf_counter()
    blocks, stubs = generator.blocks(measured, targets, rng)
    if stubs is None or blocks.enumerated:
        generated = _Drawn((blocks, stubs)).generate(measured, targets, setup.options, rng)
        released = _frame(generated.rows, generated.columns, setup.partition_edges)
        note = ENGINE
    else:
        timings = {}
        released, unmatched, degrees, counts = distributed_pairing(
            blocks, stubs, setup.partition_edges, rng, timings
        )
        terms = {"rounding": setup.options.rounding, "unmatched": unmatched}
        timings["generation"] = time.perf_counter() - start
        solver = SolverSummary(None, 0, 0, True)
        generated = DistributedGenerated(
            setup.universe, MECHANISM, solver, Bound.none(), terms, degrees, counts, timings
        )
        note = DISTRIBUTED
    bounds = release_bounds(measured, generated, setup.beta)
    report = SyntheticRelease.of(
        measured, generated, bounds, method="sparse", beta=setup.beta, note=note
    )
    log_timings("synthetic_edges", time.perf_counter() - start, generated.timings)
    return released, report


def _frame(rows: np.ndarray, columns: np.ndarray, partition_edges: int) -> dd.DataFrame:
    """The released edges as a Dask DataFrame of ``ceil(edges / partition_edges)``
    partitions (public sizes): scattered to the workers when a ``distributed.Client`` is
    active (the data is not embedded in every graph that uses it), else
    ``from_pandas``."""
    frame = pd.DataFrame({"u": rows.astype(np.int64), "v": columns.astype(np.int64)})
    count = max(1, math.ceil(len(frame) / partition_edges))
    try:
        from distributed import default_client

        client = default_client()
    except (ImportError, ValueError):  # no distributed, or no client running
        return dd.from_pandas(frame, npartitions=count, sort=False)
    bounds = np.linspace(0, len(frame), count + 1).astype(np.int64)
    chunks = [frame.iloc[bounds[k] : bounds[k + 1]] for k in range(count)]
    return dd.from_delayed(client.scatter(chunks), meta=frame.iloc[:0], verify_meta=False)


def synthetic_from_aggregates(
    aggregates: EdgeAggregates,
    epsilon: float,
    *,
    measurements: str | list[str] | dict[str, float] = "auto",
    workload: Mapping[str, float] | None = None,
    beta: float = 0.05,
    partition_edges: int = PARTITION_EDGES,
    rng: RandomState = None,
) -> tuple[dd.DataFrame, SyntheticRelease]:
    """:func:`synthetic_edges` from already computed aggregates (:func:`aggregate_edges`):
    the release after the distributed pass (noise in the client, generation on the workers),
    with the same privacy claim (each call spends ``epsilon`` on the same private data;
    the aggregates themselves are private).

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> table = pd.DataFrame({"u": list(range(9)), "v": list(range(1, 10))})
    >>> aggregates = aggregate_edges(dd.from_pandas(table, npartitions=2), 10)
    >>> released, report = synthetic_from_aggregates(aggregates, 1.0, rng=0)
    >>> report.epsilon, report.method
    (1.0, 'sparse')
    """
    if not isinstance(aggregates, EdgeAggregates):
        raise TypeError(
            f"aggregates must be EdgeAggregates (from aggregate_edges), got "
            f"{type(aggregates).__name__}"
        )
    partition = aggregates.partition
    groups = None if partition is None else dict(enumerate(partition.labels.tolist()))
    setup = _setup(
        aggregates.n,
        epsilon,
        aggregates.directed,
        measurements,
        groups,
        workload,
        beta,
        partition_edges,
    )
    return _release(aggregates, setup, rng)


def synthetic_edges(
    edges: dd.DataFrame,
    n: int,
    epsilon: float,
    *,
    directed: bool = False,
    measurements: str | list[str] | dict[str, float] = "auto",
    groups: Mapping[Hashable, Hashable] | Sequence | None = None,
    workload: Mapping[str, float] | None = None,
    beta: float = 0.05,
    partition_edges: int = PARTITION_EDGES,
    rng: RandomState = None,
) -> tuple[dd.DataFrame, SyntheticRelease]:
    """The sparse synthetic-graph release of a Dask edge table: ``synthetic_graph(A,
    epsilon, method="sparse", ...)``'s mechanism with the measurements aggregated by Dask.

    Privacy: (epsilon, 0)-DP under edge-level neighbours (the same public nodes 0..n-1,
    one vertex pair differs). The table is read only by the exact low-dimensional
    statistics (edge count, sensitivity 1; degrees and the degree sequence, sensitivity 2,
    Hay et al. 2009; block-pair counts of the public ``groups``, sensitivity 1), each
    noised once, in the client, with discrete Laplace noise (Canonne, Kamath, Steinke
    2020) at its share of epsilon, the shares adding up to epsilon (basic composition,
    Dwork and Roth 2014 Thm 3.16). The aggregation's partitioning changes no statistic,
    so no sensitivity depends on it. The fit, the generator (the configuration model of
    :class:`~privcut.graph.sparse.SparseGenerator`, distributed by
    :mod:`privcut.graph.dask_pairing` with one stream per task), the bounds and the
    report read only the noisy values, public inputs and fresh randomness
    (post-processing, Dwork and Roth 2014 Prop. 2.1). Errors on bad input depend on the
    data but are raised before any noise is drawn, as in memory.

    Parameters
    ----------
    edges : dask.dataframe.DataFrame
        The private edges: integer columns ``u`` and ``v`` (other columns ignored), ids in
        [0, n); for a Graph each edge once in either orientation; no self-loops.
    n : int
        The public node count (nodes are the ids 0..n-1).
    epsilon : float
        The privacy budget.
    directed : bool, default False
        The public declaration of the graph's kind.
    measurements : "auto", list of str, or mapping name -> share
        As :func:`~privcut.graph.synthetic.synthetic_graph` with ``method="sparse"``
        (``"auto"``: :meth:`~privcut.graph.sparse.SparseGenerator.default_measurements`),
        among ``"edge-count"``, ``"degrees"``, ``"degree-sequence"``, ``"blocks"``.
    groups : mapping node id -> group, or sequence of n groups, optional
        The public partition for ``"blocks"`` (must not depend on the edges).
    workload : mapping class -> weight, optional
        As :func:`~privcut.graph.planning.plan_measurements`.
    beta : float, default 0.05
        Failure probability of each bound.
    partition_edges : int, default :data:`PARTITION_EDGES`
        Most released edges per partition of the result (public).
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.

    Returns
    -------
    edges : dask.dataframe.DataFrame
        The released edges, int64 columns ``u`` and ``v`` (``u < v`` for a Graph), each
        partition sorted by pair, in ``ceil(released edges / partition_edges)`` partitions
        (hash buckets of the pair key when generated on the workers); write it with
        ``to_parquet``.
    report : SyntheticRelease
        The in-memory release's report (its mechanism names the engine).

    Raises
    ------
    GraphInputError
        Missing columns, non-integer ids, ids outside [0, n), self-loops, duplicate edges
        (across partitions too), bad groups; before any noise is drawn.

    Notes
    -----
    Complexity: one pass over the edges, O(|E| / P + n) time and memory per partition
    task (P partitions), a shuffle of 8 bytes per edge for the duplicate check, O(n)
    in the client for the degrees; then the distributed configuration model
    (:func:`~privcut.graph.dask_pairing.distributed_pairing`): O(|E'| / P') per task for
    |E'| released edges in P' partitions, two shuffles (57 bytes a released edge), O(n)
    plus the first round's refused stubs in the client. Where a block pair is enumerated
    or no degrees were measured, the in-memory generator runs in the client (O(n + |E'|)).

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> table = pd.DataFrame({"u": list(range(9)), "v": list(range(1, 10))})
    >>> released, report = synthetic_edges(dd.from_pandas(table, npartitions=2), 10, 1.0, rng=0)
    >>> list(released.columns), report.method, [m.name for m in report.measurements]
    (['u', 'v'], 'sparse', ['edge-count', 'degrees', 'degree-sequence'])
    >>> len(released.compute()) == report.edge_count
    True
    """
    setup = _setup(n, epsilon, directed, measurements, groups, workload, beta, partition_edges)
    _check_frame(edges)
    aggregates = aggregate_edges(edges, n, directed=directed, groups=groups)
    return _release(aggregates, setup, rng)
