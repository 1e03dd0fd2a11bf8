"""Synthetic graphs whose cuts are close to G's (GRU12 Lemma 6.2, Remark 6.3, §6.2): the
release pipeline as a recipe of steps, one module each.

1. plan (:mod:`privcut.graph.planning`): split epsilon over the measurements from public
   inputs only;
2. measure (:mod:`privcut.graph.measurement`): the only step that reads G;
3. fit (:mod:`privcut.graph.fitting`): consistent low-dimensional targets;
4. generate (:mod:`privcut.graph.generation`): pair weights or a rounded graph, by a
   :class:`~privcut.graph.generation.GraphGenerator` (today the dense projection of
   :mod:`privcut.graph.projection`);
5. bound (:mod:`privcut.graph.bounds`): per workload class, clipped to the trivial bound;
6. report (:mod:`privcut.graph.report`): :class:`~privcut.graph.report.SyntheticRelease`.

Everything after step 2 is post-processing.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import networkx as nx
import scipy.sparse as sp

from privcut.graph.arrays import CheckedAdjacency, SyntheticArray, is_array_graph
from privcut.graph.bounds import release_bounds, split_beta
from privcut.graph.fitting import fit_targets
from privcut.graph.generation import DenseGenerator, GraphGenerator
from privcut.graph.measurement import Measurements, measure
from privcut.graph.noisy import NoisyGraph
from privcut.graph.partition import Partition
from privcut.graph.planning import (
    ASSORTATIVITY,
    AUTO_GROUPS_MIN_NODES,
    CLUSTERING,
    FILTERED,
    plan_for,
    plan_measurements,
)
from privcut.graph.private_groups import (
    NO_GROUPS,
    CommunityStep,
    DecisionStep,
    PrivateGroups,
    decide_groups,
    decision_budget,
    labels_of,
    release_communities,
    resolve_groups,
)
from privcut.graph.report import SyntheticRelease
from privcut.graph.sparse import SparseGenerator
from privcut.graph.timing import log_timings
from privcut.graph.universe import EdgeUniverse, check_pairs
from privcut.privacy import check_beta, check_epsilon
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_option, check_scalar

__all__ = [
    "DENSE_ARRAYS",
    "DENSE_MEMORY",
    "GENERATORS",
    "SPARSE_NODES",
    "chosen_generator",
    "decides_groups",
    "dense_memory",
    "synthetic_from_noisy",
    "synthetic_graph",
]

GENERATORS: dict[str, type[GraphGenerator]] = {"dense": DenseGenerator, "sparse": SparseGenerator}
"""The generators by ``method`` name: ``"dense"``, the projection on the n x n matrix
(:class:`~privcut.graph.generation.DenseGenerator`), and ``"sparse"``, the
degree-corrected block model in O(n + |E|) (:class:`~privcut.graph.sparse.SparseGenerator`).
``method="auto"`` picks one from the public node count and a memory budget
(:data:`DENSE_MEMORY`, :func:`dense_memory`)."""

DENSE_ARRAYS = 9
"""How many n x n float64 arrays the dense generator holds at its peak (the projection's
centre, iterate, gradient and dual terms, the noisy matrix and the certificate's
difference): its memory is predicted as ``DENSE_ARRAYS * 8 * n**2`` bytes."""

DENSE_MEMORY = 2 * 10**9
"""The default memory budget in bytes (public) for ``method="auto"``: the dense generator
is taken when its predicted footprint (:func:`dense_memory`) fits, the sparse one
otherwise (up to :data:`SPARSE_NODES` nodes dense)."""


def dense_memory(n: int) -> int:
    """The dense generator's predicted peak memory in bytes on n nodes: :data:`DENSE_ARRAYS`
    n x n float64 arrays (a function of the public node count only).

    Examples
    --------
    >>> dense_memory(5000) / 1e9
    1.8
    """
    return DENSE_ARRAYS * 8 * int(n) ** 2


SPARSE_NODES = math.isqrt(DENSE_MEMORY // (DENSE_ARRAYS * 8))
"""The most nodes ``method="auto"`` releases with the dense generator under the default
budget :data:`DENSE_MEMORY` (5,270 nodes at nine arrays and 2 GB); above it, sparse."""

RANDOMIZED_RESPONSE = "randomized-response"


@dataclass(frozen=True)
class _Setup:
    """The release's checked choices: the generator, its options, beta, and a note on
    how the generator was chosen (for the report's mechanism)."""

    generator: GraphGenerator
    options: object
    beta: float
    note: str


def _choose(method: str, n: int, named: frozenset, memory: float | None) -> tuple[str, str]:
    """The generator's name and the report's note on why: ``"auto"`` takes ``"dense"`` when
    its predicted memory (:func:`dense_memory`) fits ``memory`` (default
    :data:`DENSE_MEMORY`) or randomized response is asked for explicitly, ``"sparse"``
    when filtered randomized response, ``"clustering"`` or ``"assortativity"`` is (only the
    sparse generator uses them; ``"dense"`` refuses them) or otherwise.
    ``named``: the measurements asked for by name. Public inputs only."""
    check_option(method, "method", ("auto", *GENERATORS))
    budget = DENSE_MEMORY if memory is None else memory
    budget = check_scalar(budget, "memory", float, low=0.0, closed="neither")
    randomized, filtered = RANDOMIZED_RESPONSE in named, FILTERED in named
    swaps = [name for name in (CLUSTERING, ASSORTATIVITY) if name in named]
    if randomized and filtered:
        raise ValueError(
            "randomized response and filtered randomized response are used by different "
            "generators (method='dense' and method='sparse'): name one of them"
        )
    if randomized and swaps:
        raise ValueError(
            f"randomized response (method='dense') and {swaps[0]!r} (its swaps run in "
            "method='sparse' only) are used by different generators: name one of them"
        )
    if method == "dense" and filtered:
        raise ValueError(
            "method='dense' does not use filtered randomized response (its survivors enter "
            "the sparse generator): use method='sparse' or 'auto', or drop "
            f"{FILTERED!r} from measurements"
        )
    if method == "dense" and swaps:
        raise ValueError(
            f"method='dense' does not use the {swaps[0]!r} measurement (only the sparse "
            "generator's swaps do; its budget would be spent on nothing): use "
            f"method='sparse' or 'auto', or drop {swaps[0]!r} from measurements"
        )
    if method == "sparse" and randomized:
        raise ValueError(
            "method='sparse' does not use randomized response (an n x n measurement): "
            "drop 'randomized-response' from measurements (e.g. measurements='auto' or "
            "['edge-count', 'blocks', 'degrees']), or use method='dense'"
        )
    if method == "dense" or (method == "auto" and randomized):
        _check_dense(n, budget, "method='dense'" if method == "dense" else "randomized response")
    if method != "auto":
        return method, ""
    if randomized:
        return "dense", " (method 'auto': dense, randomized response requested)"
    if filtered:
        return "sparse", " (method 'auto': sparse, filtered randomized response requested)"
    if swaps:
        return "sparse", f" (method 'auto': sparse, {swaps[0]!r} requested)"
    need = dense_memory(n)
    why = f"the dense generator's predicted {_bytes(need)} on {n} nodes"
    if need > budget:
        return "sparse", f" (method 'auto': sparse, {why} > the {_bytes(budget)} budget)"
    return "dense", f" (method 'auto': dense, {why} <= the {_bytes(budget)} budget)"


def chosen_generator(
    n: int,
    *,
    method: str = "auto",
    measurements: str | Iterable[str] | Mapping[str, float] | None = "auto",
    memory: float | None = None,
) -> tuple[str, str]:
    """The generator :func:`synthetic_graph` takes on ``n`` nodes with these arguments,
    and why (as its report's ``mechanism`` notes it; empty unless ``method="auto"``).

    Public inputs only: a caller can check options that only one generator uses (the
    command line's ``--oracle``, ``--rounding none``) before any data is read or spent.

    Examples
    --------
    >>> chosen_generator(100)[0], chosen_generator(10_000)[0]
    ('dense', 'sparse')
    >>> chosen_generator(100, measurements=["edge-count", "degrees", "clustering"])
    ('sparse', "method 'auto': sparse, 'clustering' requested")
    """
    n = check_scalar(n, "n", int, low=0)
    name, note = _choose(method, n, _named(measurements), memory)
    return name, note.strip().removeprefix("(").removesuffix(")")


def _check_dense(n: int, budget: float, what: str) -> None:
    """Refuse the dense generator when its predicted memory exceeds the budget (public
    sizes only; before any work or spend)."""
    need = dense_memory(n)
    if need > budget:
        raise ValueError(
            f"{what} needs the dense generator, predicted {_bytes(need)} on {n} nodes > the "
            f"{_bytes(budget)} memory budget: use method='sparse' (or 'auto' without "
            "randomized response), or raise the budget with memory= if the machine has it"
        )


def _bytes(size: float) -> str:
    """A byte count for the report's note, in MB or GB (3 significant digits)."""
    return f"{size / 1e9:.3g} GB" if size >= 1e9 else f"{size / 1e6:.3g} MB"


def _setup(
    method: str, beta: float, n: int, named: frozenset, memory: float | None = None, **options
) -> _Setup:
    """Check every option (before any budget is spent) and resolve the generator: a
    ``method`` from :data:`GENERATORS`, or ``"auto"`` (from the public node count, the
    memory budget and the measurements named explicitly, :func:`_choose`)."""
    name, note = _choose(method, n, named, memory)
    beta = check_beta(beta)
    generator = GENERATORS[name]()
    checked = generator.options(beta=split_beta(beta)[0], **options)
    return _Setup(generator, checked, beta, note)


def _release(
    measured: Measurements,
    setup: _Setup,
    rng,
    began: float,
    noise: float,
    array: bool = False,
    communities: CommunityStep | None = None,
    decision: DecisionStep | None = None,
):
    """The post-processing tail shared by both entry points: fit, generate, bound, report,
    publish (the report in ``H.graph["privcut"]``; a :class:`SyntheticArray` when
    ``array``, else a NetworkX graph; the timings logged, never released: ``began`` when
    the release started, ``noise`` the seconds its measurements took). With
    ``communities`` (``groups="private"``) the released partition goes out with the graph:
    node attribute ``"community"``, or ``SyntheticArray.communities``; ``decision``, the
    automatic choice's, goes into the report."""
    targets = fit_targets(measured)
    generated = setup.generator.generate(measured, targets, setup.options, rng)
    bounds = release_bounds(measured, generated, setup.beta)
    release = SyntheticRelease.of(
        measured,
        generated,
        bounds,
        method=setup.generator.name,
        beta=setup.beta,
        note=setup.note,
        communities=communities,
        decision=decision,
    )
    universe = measured.universe
    if array:
        report = {"privcut": release.to_dict()}
        H = SyntheticArray.of(generated.array(), universe.nodes, report, universe.directed)
        if communities is not None:
            H.communities = labels_of(communities, universe)
    else:
        H = generated.graph()
        H.graph["privcut"] = release.to_dict()
        if communities is not None:
            nx.set_node_attributes(H, communities.groups(), "community")
    timings = {"noise": noise, **generated.timings}
    log_timings("synthetic_graph", time.perf_counter() - began, timings)
    return H


def _requested(measurements, groups) -> object:
    """``None`` is randomized response alone (which takes no groups)."""
    if measurements is not None:
        return measurements
    if groups is not None:
        raise ValueError(
            "groups are used by the 'blocks' measurement; pass measurements='auto' "
            "or a list with 'blocks'"
        )
    return [RANDOMIZED_RESPONSE]


def _named(measurements) -> frozenset:
    """The measurements the caller asked for by name (``None``: randomized response)."""
    if measurements is None:
        return frozenset([RANDOMIZED_RESPONSE])
    if isinstance(measurements, str):
        return frozenset([measurements])
    if not isinstance(measurements, Iterable):  # plan_measurements names the problem
        return frozenset()
    return frozenset(name for name in measurements if isinstance(name, str))


def _resolved(
    measurements, groups, generator: GraphGenerator, directed: bool, private: bool
) -> object:
    """``"auto"`` as the generator declares it (``default_measurements``), else
    :func:`_requested`."""
    declared = getattr(generator, "default_measurements", None)
    if isinstance(measurements, str) and measurements == "auto" and declared is not None:
        return declared(groups is not None, directed, private=private)
    return _requested(measurements, groups)


def decides_groups(
    n: int,
    *,
    method: str = "auto",
    measurements: str | Iterable[str] | Mapping[str, float] = "auto",
    groups: object = None,
    directed: bool = False,
    weight: str | None = None,
    memory: float | None = None,
) -> bool:
    """Whether :func:`synthetic_graph` with these public arguments decides, from a noisy
    edge count, to buy private communities
    (:func:`~privcut.graph.private_groups.decide_groups`): with ``measurements="auto"``,
    no ``groups``, on the sparse generator's path (``method``, or ``"auto"`` resolved from
    ``n`` and ``memory``) of an undirected graph read as 0/1 (``weight=None``) of at least
    :data:`~privcut.graph.planning.AUTO_GROUPS_MIN_NODES` nodes; the dense, directed,
    weighted and small paths never do. Public inputs only (a caller can check it before
    any spend, e.g. the command line before promising a partition file).

    Examples
    --------
    >>> decides_groups(5_000, method="sparse"), decides_groups(5_000, method="dense")
    (True, False)
    >>> decides_groups(50, method="sparse"), decides_groups(5_000, method="sparse", groups="none")
    (False, False)
    """
    n = check_scalar(n, "n", int, low=0)
    auto = isinstance(measurements, str) and measurements == "auto"
    if not auto or groups is not None or directed or weight is not None:
        return False
    name = _choose(method, n, frozenset(), memory)[0]
    return name == "sparse" and n >= AUTO_GROUPS_MIN_NODES


def _community_workload(workload, communities: int):
    """The declared workload for a release on ``communities`` released groups: with one,
    the classes between groups (unanswerable) are dropped, and the default is used if
    nothing is left. A function of the released partition only."""
    if workload is None or communities > 1 or not isinstance(workload, Mapping):
        return workload
    kept = {c: w for c, w in workload.items() if c not in ("between-group", "group-vs-rest")}
    return kept if any(w > 0 for w in kept.values()) else None


def synthetic_from_noisy(
    noisy: NoisyGraph,
    *,
    method: str = "dense",
    oracle: str = "spectral",
    rounding: str | None = "random",
    beta: float = 0.05,
    tau: float | None = None,
    max_iterations: int = 100,
    memory: float | None = None,
    rng: RandomState = None,
    progress: bool = False,
) -> nx.Graph:
    """A synthetic graph from an already released noisy graph (pure post-processing).

    See :func:`synthetic_graph` with ``measurements=None``; this is its second half, for
    callers who keep the randomized-response release and want graphs from it without
    spending more budget. Privacy: ``noisy``'s own guarantee ((epsilon, 0)-DP under
    edge-level neighbours, GRU12 Lemma 6.1); everything here reads only ``noisy``, public
    values and fresh randomness (post-processing, Dwork and Roth 2014 Prop. 2.1).

    Parameters
    ----------
    noisy : NoisyGraph
        A randomized-response release (:func:`~privcut.graph.noisy.noisy_graph`); its
        ``weight`` (how G was read) is recorded in the report.
    method : {"dense", "auto"}
        The generator, as for :func:`synthetic_graph` (``"auto"`` is ``"dense"`` here and
        ``"sparse"`` is refused: randomized response is dense).
    oracle : {"spectral", "alon-naor"}
        Constraint family and separation, as for :func:`synthetic_graph`.
    rounding : {"random", None}
        A 0/1 graph (each pair an edge with probability x) or the weighted graph.
    beta : float, default 0.05
        Failure probability of each bound.
    tau : float, optional
        Constraint level; default the oracle's median value on fresh noise matrices.
    max_iterations : int, default 100
        Most separation rounds.
    memory : float, optional
        The memory budget in bytes (public) the dense generator's predicted footprint must
        fit, as for :func:`synthetic_graph`; default :data:`DENSE_MEMORY`.
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    networkx.Graph or networkx.DiGraph
        On ``noisy``'s nodes, the report in ``H.graph["privcut"]``
        (:class:`~privcut.graph.report.SyntheticRelease`).

    Examples
    --------
    >>> from privcut.graph import noisy_graph
    >>> noisy = noisy_graph(nx.florentine_families_graph(), 1.0, rng=0)
    >>> H = synthetic_from_noisy(noisy, rounding=None, rng=0)
    >>> H.number_of_nodes(), H.graph["privcut"]["epsilon"]
    (15, 1.0)
    >>> all(0.0 < w <= 1.0 for _, _, w in H.edges(data="weight"))
    True
    """
    if not isinstance(noisy, NoisyGraph):
        raise TypeError(
            f"noisy must be a NoisyGraph (from noisy_graph), got {type(noisy).__name__}"
        )
    generation = dict(oracle=oracle, rounding=rounding, tau=tau, max_iterations=max_iterations)
    named = frozenset([RANDOMIZED_RESPONSE])
    setup = _setup(method, beta, len(noisy.nodes), named, memory, progress=progress, **generation)
    rng, began = check_random_state(rng), time.perf_counter()
    plan = plan_measurements(
        noisy.nodes,
        noisy.epsilon,
        ["randomized-response"],
        directed=noisy.directed,
        weight=noisy.weight,
        beta=setup.beta,
    )
    return _release(Measurements.from_noisy(noisy, plan), setup, rng, began, 0.0)


def synthetic_graph(
    G: nx.Graph | sp.sparray | sp.spmatrix,
    epsilon: float,
    *,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
    method: str = "auto",
    memory: float | None = None,
    oracle: str = "spectral",
    rounding: str | None = "random",
    measurements: str | list[str] | dict[str, float] | None = "auto",
    groups: Mapping[Hashable, Hashable] | str | PrivateGroups | None = None,
    workload: Mapping[str, float] | None = None,
    weight: str | None = None,
    beta: float = 0.05,
    tau: float | None = None,
    max_iterations: int = 100,
    rng: RandomState = None,
    progress: bool = False,
) -> nx.Graph | SyntheticArray:
    """Release a synthetic graph on G's nodes whose cuts are close to G's.

    Privacy: (epsilon, 0)-DP under edge-level neighbours (same public node set, one
    pair's weight changed by at most 1). G is read only by the measurements, each with
    Laplace noise (discrete for 0/1 graphs) at its share of epsilon, the shares adding
    up to epsilon (basic composition, Dwork and Roth 2014 Thm 3.16): randomized response
    (GRU12 Lemma 6.1/6.2: one draw per unordered pair), the edge count (sensitivity
    1), block-pair counts of the public ``groups`` (sensitivity 1) and the degrees
    (sensitivity 2: an edge raises two). The split, the fit, the projection and the
    rounding read only the measurements, public values and fresh randomness. With
    ``groups="private"`` G is read first by the community step, at its share of epsilon
    (:func:`~privcut.graph.communities.sweep_communities` by default, McSherry & Talwar
    2007; or :func:`~privcut.graph.communities.private_communities`, Yuan et al. 2023), and the
    measurements' groups and split are functions of its released partition (adaptive
    basic composition; :mod:`privcut.graph.private_groups`).

    The release: the low-dimensional measurements are fitted to consistent estimates
    (weighted least squares in their boxes) and rounded to integer block (or total)
    counts; the graph starts from the block-uniform (or uniform) graph with those counts
    -- clip(z) for randomized response alone -- and is projected onto the constraints
    ``|(x - z)(S, T)| <= tau g(|S|, |T|)`` found by the cut-norm oracle, keeping the
    block sums and degrees as equality constraints (one dual, L-BFGS-B). Rounding keeps
    every block pair's (or the total) edge count exactly (dependent rounding).

    Accuracy: ``H.graph["privcut"]["workload_bounds"]`` bounds the error on each workload
    class, each with probability at least 1 - beta: within-group, between-group and
    group-vs-rest from the block counts (the released counts' distance to the noisy
    counts' tail interval), degree from the degrees, bisection and arbitrary cuts from
    randomized response (certified ``||x - z||_C`` by the Alon–Naor dual or Nikiforov's
    bound, plus the noise's uniform bound, GRU12 §6.1, plus Bernstein's bound for
    rounding, Remark 6.3; their half of beta split evenly between the random terms).
    Every bound is clipped to ``trivial_bound``: no cut of a graph exceeds its matrix
    sum, so every cut's error is at most twice (once for a DiGraph) the larger of the
    released edge count and an upper confidence bound on G's from the measurements
    (:mod:`privcut.graph.bounds`). Beta is split: each class's own bound at beta/2, the
    edge-count bound at beta/2, so each reported minimum holds with probability at
    least 1 - beta. ``cut_error_bound`` is the arbitrary-cut one.
    Randomized response alone: cut errors 1-1.1x the better of z and clip(z) on 10-16
    nodes, 0.2-0.35x z's at 1000 nodes (``benchmarks/synthetic.py``).

    Parameters
    ----------
    G : networkx.Graph, networkx.DiGraph or scipy.sparse array or matrix
        The private graph (read as unweighted unless ``weight`` names an attribute): a
        NetworkX graph, or for large graphs a square sparse adjacency in any format (read
        into CSR once, checked in O(n + nnz) by
        :func:`~privcut.graph.arrays.read_adjacency`: a zero diagonal, symmetric unless
        ``directed``, finite, 0/1 or weights in [0, 1]; no NetworkX object is built on
        this path).
    epsilon : float
        Privacy parameter > 0.
    nodes : sequence of hashable, optional
        For a sparse G only (refused for a NetworkX graph, which has its own): the
        public labels of its rows, distinct, default ``range(n)``, kept in the given
        order (which must be public, e.g. not sorted by degree).
    directed : bool, optional
        For a sparse G only: the public declaration of its kind, default False (G must
        then be symmetric); never inferred from G.
    method : {"auto", "dense", "sparse"}
        The generator, by name from :data:`GENERATORS`: ``"dense"``, the projection on the
        n x n matrix (:class:`~privcut.graph.generation.DenseGenerator`); ``"sparse"``, a
        degree-corrected block model with the fitted counts in O(n + |E|)
        (:class:`~privcut.graph.sparse.SparseGenerator`; low-dimensional measurements
        only, randomized response refused, a 0/1 graph); ``"auto"`` (default) chooses
        from public sizes: ``"dense"`` when its predicted memory
        (:func:`dense_memory`, nine n x n float64 arrays) fits ``memory`` or randomized
        response is named in ``measurements``, ``"sparse"`` when filtered randomized
        response, ``"clustering"`` or ``"assortativity"`` is (``"dense"`` refuses those
        three, before any spend: it would not use them) or otherwise (above
        :data:`SPARSE_NODES` nodes at the default budget). The report's ``method`` and
        ``mechanism`` say which ran and why.
    memory : float, optional
        The memory budget in bytes (public); default :data:`DENSE_MEMORY` (2 GB).
        ``method="auto"`` takes the dense generator only if its predicted footprint fits;
        the dense generator (``method="dense"``, or randomized response named) is refused
        with a ValueError, before any work, when it does not.
    oracle : {"spectral", "alon-naor"}
        Constraint family and separation for randomized response: the normalized cut
        norm by spectral sweeps (§6.2) or the cut norm by the low-rank Alon–Naor solver
        (Lemma 6.2). Graphs of at most 20 nodes are separated exactly by enumeration.
    rounding : {"random", None}
        ``"random"``: a 0/1 graph with each pair an edge with probability x;
        ``None``: the weighted graph (weights in (0, 1], zero pairs omitted).
    measurements : "auto", None, list of str, or mapping name -> share
        ``"auto"`` (default): the edge count, the blocks of ``groups`` (if given) and
        randomized response, split by :func:`~privcut.graph.planning.plan_measurements`
        on ``workload``; for the sparse generator, its
        :meth:`~privcut.graph.sparse.SparseGenerator.default_measurements` (fixed
        shares: the edge count, the degrees and the degree sequence, plus the blocks,
        which keep 0.8 of epsilon, with groups, or ``"clustering"`` and
        ``"assortativity"`` without groups on an undirected graph). On the sparse path of
        an undirected graph read as 0/1 (``weight=None``) of at least
        :data:`~privcut.graph.planning.AUTO_GROUPS_MIN_NODES` nodes without ``groups``
        (:func:`decides_groups`), ``"auto"`` also decides whether to buy private
        communities, as ``groups="private"`` would
        (:func:`~privcut.graph.private_groups.decide_groups`): it draws the community
        sweep's noisy edge count m~ first (0.0175 of epsilon) and buys them when
        ``epsilon * 2 m~ / n >= 12``
        (:data:`~privcut.graph.planning.AUTO_GROUPS_THRESHOLD`: below it the sweep's
        partition is near chance on planted, LFR and real graphs, and
        ``groups="private"`` lost or tied on the acceptance harness; above it, it won on
        wiki-vote; numbers there). Bought: the same mechanism and spends as
        ``groups="private"`` (the count is the sweep's own, nothing extra is spent; given
        the decision, that count is at least ``6 n / epsilon``).
        Not bought: the count's spend, ``"decision: edge-count"``, leads the report's
        ``measurements`` and the release runs at the rest of epsilon. The decision is a
        function of the noisy count and public values (post-processing), so it is
        released: the report's ``groups_decision`` (statistic, threshold, bought); and so
        is everything that follows from it (the report's spends and ``communities``,
        whether the graph has a ``"community"`` attribute). ``groups="none"`` never
        buys (and spends nothing on deciding); the dense, directed and weighted paths
        never decide. ``None`` or
        ``["randomized-response"]``: randomized response alone (GRU12 Lemma 6.2; dense
        generator only); with ``None``, ``groups`` are refused (ValueError: the blocks
        are not measured). A list from
        ``"edge-count"``, ``"degrees"``, ``"degree-sequence"``, ``"blocks"``,
        ``"randomized-response"``, ``"filtered-randomized-response"``, ``"clustering"``
        (triangle corners per degree bin for BTER, undirected 0/1 graphs with
        ``"degrees"``, sparse generator), ``"assortativity"`` (a clipped-degree moment of
        the edges for the degree-assortativity swaps, likewise but with
        ``"degree-sequence"``): those, split the
        same way (``"degree-sequence"``, each group's sorted degrees, and the filtered
        survivors, sparse generator only, Cormode et al. 2012, serve no workload class:
        in a list they take :data:`~privcut.graph.planning.SEQUENCE_SHARE` and
        :data:`~privcut.graph.planning.FILTERED_SHARE`, and
        :data:`~privcut.graph.planning.CLUSTERING_SHARE` and
        :data:`~privcut.graph.planning.ASSORTATIVITY_SHARE`). A mapping: the caller's shares
        (summing to 1).
    groups : mapping node -> group, "private", "none" or PrivateGroups, optional
        A public partition of the nodes, used by ``"blocks"``. It must not depend on
        the edges (or its privacy cost is not counted). None (default): no public
        groups; with ``measurements="auto"`` on the sparse path of an undirected 0/1
        graph of at least 1,000 nodes, private communities are bought when the rule
        above predicts a gain.
        ``"none"`` (:data:`~privcut.graph.private_groups.NO_GROUPS`): no groups and no
        decision. ``"private"`` (or a
        :class:`~privcut.graph.private_groups.PrivateGroups` for another share) buys one
        instead: :data:`~privcut.graph.planning.COMMUNITY_SHARE` of epsilon goes to
        :func:`~privcut.graph.communities.sweep_communities` (one exponential-mechanism
        sweep; ``PrivateGroups(method="super-graph")`` for PrivGraph's community phases,
        Yuan et al. 2023; read as a 0/1 graph, ``weight`` must be None), and the
        rest of the release runs at the remaining epsilon with the released partition as
        its groups (on the sparse path ``"auto"`` spends 0.55 of it on the degree,
        clustering and assortativity measurements,
        ``default_measurements(..., private=True)``; adaptive basic composition:
        epsilon in all; the rest's plan is checked on stand-in groups before any noise
        is drawn, then split on the released
        partition, a function of it only). The partition is released with the graph: node
        attribute ``"community"`` (``SyntheticArray.communities`` for a sparse G), and
        the report's ``communities``; its spends, ``"communities: degrees"``,
        ``"communities: sweep"`` and ``"communities: edge-count"``, lead the
        report's ``measurements``. With one released community, the classes between
        groups are dropped from a declared ``workload``.
    workload : mapping class -> weight, optional
        The declared workload the split is chosen for (classes in
        :data:`~privcut.graph.planning.CLASSES`); default
        :data:`~privcut.graph.planning.DEFAULT_WEIGHTS`.
    weight : str, optional
        NetworkX's convention (as in ``networkx.cut_size``): None (default) reads G as
        unweighted (every edge counts 1, any weight attribute ignored; integer noise);
        an attribute name reads that attribute as weights, which must lie in [0, 1]
        (missing counts 1; grid noise, see :func:`~privcut.graph.noisy.noisy_graph`);
        for a sparse G, any name reads its stored values as the weights (with None,
        every stored nonzero counts 1). A declaration: the noise is never chosen from
        the data.
    beta : float, default 0.05
        Failure probability of each bound (split as above).
    tau : float, optional
        Constraint level (normalized for ``"spectral"``); default the oracle's
        median value on fresh noise matrices of the same law (data-independent).
    max_iterations : int, default 100
        Most separation rounds; the bound is certified whether or not they converge.
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.
    progress : bool, default False
        Show a progress bar with the iteration and the current violation.

    Returns
    -------
    networkx.Graph, networkx.DiGraph or SyntheticArray
        The type follows the input: a NetworkX graph for a NetworkX G, a
        :class:`~privcut.graph.arrays.SyntheticArray` (a ``scipy.sparse.csr_array``, built
        in O(n + |E|) by the sparse generator; symmetric when undirected; its ``.nodes``
        are G's ``nodes``) for a sparse G. On G's nodes; ``H.graph["privcut"]`` is the
        report,
        :class:`~privcut.graph.report.SyntheticRelease` as a dict (mechanism, method,
        epsilon, delta, sampler_tv, effective_delta, beta, weight, oracle, rounding, tau,
        solver, certified_distance, noise_bound, rounding_bound, cut_error_bound,
        trivial_bound, measurements, dropped_measurements, workload, predicted_errors,
        workload_bounds, edge_count, communities). Wall-clock timings are not released
        (they grow with G's edge count): they are logged at DEBUG level on the
        ``privcut`` logger, with ``seconds`` and ``timings`` (the split) as record
        attributes.

    Raises
    ------
    GraphInputError
        For an invalid graph, or weights outside [0, 1] with ``weight`` given; for a
        sparse G also not square, NaN or infinite values, a nonzero diagonal, not
        symmetric with ``directed`` False, or a bad ``nodes`` list; ``nodes`` or
        ``directed`` given with a NetworkX graph.

    Examples
    --------
    The karate club's ``weight`` attribute (interaction counts) is ignored by default:

    >>> G = nx.karate_club_graph()
    >>> H = synthetic_graph(G, epsilon=1.0, rng=0)
    >>> report = H.graph["privcut"]
    >>> sorted(H.nodes) == sorted(G.nodes), report["epsilon"], report["method"]
    (True, 1.0, 'dense')
    >>> [m["name"] for m in report["measurements"]]
    ['edge-count', 'randomized-response']
    >>> report["cut_error_bound"] <= report["trivial_bound"] < 4 * G.number_of_edges()
    True

    With a public partition, most of the budget goes to its block counts, which the
    release keeps exactly:

    >>> G = nx.gnp_random_graph(40, 0.3, seed=1)
    >>> groups = {v: v // 10 for v in G}
    >>> H = synthetic_graph(G, 1.0, groups=groups, rng=0)
    >>> [(m["name"], round(m["share"], 2)) for m in H.graph["privcut"]["measurements"]]
    [('blocks', 0.95), ('randomized-response', 0.05)]
    >>> bounds = H.graph["privcut"]["workload_bounds"]
    >>> bounds["between-group"]["bound"] < bounds["arbitrary-cut"]["bound"]
    True

    A sparse adjacency in gives a sparse adjacency out, the same release as the NetworkX
    graph with the same node order:

    >>> A = nx.to_scipy_sparse_array(G, nodelist=sorted(G))
    >>> K = synthetic_graph(A, 1.0, groups=groups, method="sparse", rng=0)
    >>> type(K).__name__, K.shape, K.graph["privcut"]["method"], K.nodes[:3]
    ('SyntheticArray', (40, 40), 'sparse', (0, 1, 2))
    >>> H = synthetic_graph(G, 1.0, groups=groups, method="sparse", rng=0)
    >>> (nx.to_scipy_sparse_array(H, nodelist=K.nodes) != K).nnz
    0

    Without groups, on 1,000 nodes or more, the sparse path's ``measurements="auto"``
    decides from a noisy edge count whether to buy private communities (here epsilon
    times the noisy average degree is below 12: not bought, the count's spend leads):

    >>> H = synthetic_graph(nx.cycle_graph(1000), 0.5, method="sparse", rng=0)
    >>> decision = H.graph["privcut"]["groups_decision"]
    >>> decision["bought"], decision["statistic"] < decision["threshold"] == 12.0
    (False, True)
    >>> H.graph["privcut"]["measurements"][0]["name"], H.graph["privcut"]["communities"]
    ('decision: edge-count', None)

    Without public groups, ``groups="private"`` buys a partition with 0.35 of epsilon
    and releases it with the graph:

    >>> H = synthetic_graph(G, 1.0, groups="private", method="sparse", rng=0)
    >>> [m["name"] for m in H.graph["privcut"]["measurements"]][:3]
    ['communities: degrees', 'communities: sweep', 'communities: edge-count']
    >>> H.graph["privcut"]["communities"]["communities"] == len(set(
    ...     nx.get_node_attributes(H, "community").values()))
    True
    """
    universe, source = _read_once(G, weight, nodes, directed)
    array = is_array_graph(G)  # the output follows the input's type
    generation = dict(oracle=oracle, rounding=rounding, tau=tau, max_iterations=max_iterations)
    if isinstance(measurements, Iterable) and not isinstance(measurements, (str, Mapping)):
        measurements = list(measurements)  # read once (an iterator is read here)
    choice = resolve_groups(groups)
    public = dict(directed=universe.directed, weight=weight, memory=memory)
    decides = decides_groups(
        universe.n, method=method, measurements=measurements, groups=groups, **public
    )
    groups = None if isinstance(groups, str) and groups == NO_GROUPS else groups
    named = _named(measurements)
    setup = _setup(method, beta, universe.n, named, memory, progress=progress, **generation)
    rng, began = check_random_state(rng), time.perf_counter()
    requested = _resolved(
        measurements, groups, setup.generator, universe.directed, choice is not None
    )
    rest = dict(workload=workload, weight=weight, beta=setup.beta)
    communities = decision = noisy_edges = plan = partition = None
    if decides:
        stand_in = Partition.alternating(universe.n, universe.directed)
        bought = _resolved(measurements, stand_in, setup.generator, False, True)
        _, _, kept = decision_budget(epsilon)
        # both outcomes' plans checked before any noise is drawn
        part = PrivateGroups().split(epsilon)[1]
        plan_for(universe, part, bought, partition=stand_in, **rest)
        plan = plan_for(universe, kept, requested, **rest)  # the release's if not bought
        decision = _read_by(decide_groups, source, epsilon, rng=rng)
        if decision.bought:
            choice, requested, noisy_edges = decision.choice(), bought, decision.noisy_edges
            plan = None
        else:
            epsilon = decision.rest()
    if choice is not None:
        if weight is not None:
            raise ValueError(
                "groups='private' reads G as a 0/1 graph (its communities' noise is "
                f"calibrated to counts); pass weight=None, not weight={weight!r}"
            )
        total, epsilon = epsilon, choice.split(epsilon)[1]
        if decision is None:  # the rest's plan on stand-in groups before any noise is drawn
            stand_in = Partition.alternating(universe.n, universe.directed)
            plan_for(universe, epsilon, requested, partition=stand_in, **rest)
        communities = _read_by(
            release_communities, source, total, choice, rng=rng, noisy_edges=noisy_edges
        )
        partition = Partition.from_labels(labels_of(communities, universe), universe.directed)
        rest["workload"] = _community_workload(workload, communities.found.communities)
    elif groups is not None:  # public groups: checked in plan_measurements' order
        check_epsilon(epsilon)
        partition = Partition.of(universe, groups)
    if plan is None:
        plan = plan_for(universe, epsilon, requested, partition=partition, **rest)
    measured = _measure_last(source, plan, partition, rng)
    noise = time.perf_counter() - began
    return _release(measured, setup, rng, began, noise, array, communities, decision)


def _read_by(step: Callable, source: Callable, *args, **options):
    """``step`` on G as the release reads it (``source()``: the marked copy and its reading's
    keywords), holding no reference to the copy after it (so that :func:`_measure_last`
    can free it)."""
    marked, read = source()
    return step(marked, *args, **options, **read)


def _measure_last(source: Callable, plan, partition: Partition | None, rng) -> Measurements:
    """The release's measurements, its last step that reads G: on G's marked copy handed
    over (:meth:`~privcut.graph.arrays.CheckedAdjacency.hand_over`: no copy), the copy freed
    (``source``'s cache cleared) before the generation."""
    marked, read = source()
    marked.hand_over()
    measured = measure(marked, plan, partition=partition, rng=rng, **read)
    source.cache_clear()
    return measured


def _read_once(
    G, weight: str | None, nodes, directed
) -> tuple[EdgeUniverse, Callable[[], tuple[CheckedAdjacency, dict]]]:
    """G's universe, checked (:meth:`EdgeUniverse.read
    <privcut.graph.universe.EdgeUniverse.read>`: a sparse G is read and checked here,
    once; a NetworkX G checked, its adjacency built by
    :meth:`~privcut.graph.universe.EdgeUniverse.adjacency` on the first call of the
    second value, after every check of the options), and G for the release's steps that
    read it (the decision, the communities, the measurements): that adjacency marked as
    read (:class:`CheckedAdjacency`) with the keyword arguments its steps read it with
    (its own node tuple, the kind), so that each step gets a copy of exactly what reading
    G would have given it, without G being converted and checked again."""
    if is_array_graph(G):
        universe, adjacency = EdgeUniverse.read(G, weight, nodes=nodes, directed=directed)
    else:
        universe, adjacency = EdgeUniverse.of(G, weight, nodes=nodes, directed=directed), None
    check_pairs(universe, "synthetic_graph")

    held = [adjacency]

    @cache
    def source() -> tuple[CheckedAdjacency, dict]:
        checked = held.pop()  # the marked copy alone is kept (review r8 F3')
        checked = universe.adjacency(G, weight) if checked is None else checked
        marked, key = CheckedAdjacency.of(checked, universe.nodes, universe.directed, weight)
        return marked, dict(nodes=key, directed=universe.directed)

    return universe, source
