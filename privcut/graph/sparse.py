"""The sparse generator: a released 0/1 graph drawn in O(n + |E|) time and memory from the
fitted low-dimensional targets, behind :class:`~privcut.graph.generation.GraphGenerator`.

The model is a degree-corrected block model (Karrer & Newman 2011) with Chung–Lu weights
(Chung & Lu 2002): the fitted block-pair edge counts (or the fitted total without groups)
are rounded to integers by dependent rounding (the same rounding the dense generator keeps
its counts with), and each block pair receives exactly that many distinct vertex pairs,
its endpoints drawn with probability proportional to the nodes' fitted degrees within
their groups (out-degrees for the source and in-degrees for the target of a DiGraph's arc;
uniform within groups when the degrees were not measured). A block pair is drawn by
successive sampling without replacement: candidate pairs by inverse CDF on the cumulative
weights (:func:`numpy.searchsorted`), self-loops and repeats rejected and redrawn in draw
order; a block pair whose count exceeds :data:`ENUMERATE_FRACTION` of its pairs (or with
at most :data:`ENUMERATE_PAIRS` pairs) is enumerated (blocks are public) and sampled by
the Efraimidis–Spirakis keys (Efraimidis & Spirakis 2006), the same law. So every block
pair's edge count equals its fitted integer count exactly.

With degrees measured the fitted degrees are met exactly, not only in expectation (a
Chung–Lu draw spreads each degree about its target like a Poisson law, which widens the
degree histogram: on the wiki-vote graph at epsilon 1 the histogram KL of the drawn
degrees to the fitted ones was 0.11-0.41). The fitted degrees are rounded to integers
whose every group's sum is the group's share of the integer block counts
(:func:`stub_degrees`: "consistent with the edge count and block counts"); each group's
edge ends (stubs) are shuffled and dealt to its block pairs, 2 c_aa to a block (a, a)
and c_ab to a block (a, b) from each side; within a block pair the stubs are joined at
random (the configuration model, Molloy & Reed 1995), a self-loop or repeat sends its two
stubs back to be shuffled and joined again, the stubs still left are joined by
double-edge swaps with the block pair's edges (every degree kept), and the rare rest are
drawn by weight (their count is the generator's ``terms["unmatched"]``); all block pairs
go through these steps together (segment operations: a pair key names its block pair, so
repeats are found globally, and stubs are shuffled and swap partners picked within their
block pair), so the cost is per round, not per block pair. Enumerated block
pairs keep the weighted draw, corrected :data:`CORRECTIONS` times by
``(fitted + 1) / (drawn + 1)`` against Chung–Lu saturation. Time O(n + |E| log |E|) per
round, memory O(n + |E|).

With ``"filtered-randomized-response"`` measured (Cormode et al. 2012), its survivors
enter first, each by its posterior edge probability (:func:`posterior_probability`; see
:meth:`SparseGenerator.survivors`): the kept survivors count towards their block pair's
integer count (still kept exactly) and the rest of the count (and of the degrees,
:func:`stub_degrees` again) is drawn as above among the block pair's other pairs.
O(n + |E| + survivors).

With ``"clustering"`` measured (undirected, with integer degrees), the BTER step
[SKP12, KPPS14] (:mod:`privcut.graph.affinity`, :meth:`SparseGenerator.affinity`) comes
next: nodes of similar fitted degree d form affinity blocks of size d + 1, each an
Erdős–Rényi graph of density ``c^(1/3)`` for its degree bin's clustering estimate c
(:func:`~privcut.graph.clustering.bin_clustering` over the wedges the measurement's
projection keeps of the model, in expectation:
:func:`~privcut.graph.affinity.expected_wedges`; gated off at noise level; one estimate
for all degrees when the measurement is pooled); the block
edges are taken off the counts and the stubs like the kept survivors, and the excess
degrees are joined by the configuration model above, so the edge count stays the fitted
one. O(n log n + |E|).

With ``"assortativity"`` measured (undirected, with integer degrees), the last step
(:mod:`privcut.graph.assortativity`, :meth:`SparseGenerator.assortativity`) swaps pairs of
configuration-model edges within their block pair, ``(a, b), (c, d) -> (a, d), (c, b)``
(Xulvi-Brunet & Sokolov 2004), towards the degree assortativity the noisy clipped-degree
moment estimates (Newman 2003): every degree, block-pair count, BTER block edge and kept
survivor stays. O(|E| log |E|) per pass, at most
:data:`~privcut.graph.assortativity.PASSES` passes. Those swaps break hub-hub edges, which
close most of a hub-heavy graph's triangles; the triangle-closing swaps
(:func:`~privcut.graph.affinity.closing_swaps`, dK-2.5-style: Orsini et al. 2015) then
rewire the edges among the hubs (degrees above the BTER cap, at most
:data:`~privcut.graph.affinity.CORE_SIZE`) until the triangles with a hub-hub edge number
what they did before, at the same degrees, block-pair counts and assortativity.
O(|E| + k^3) once and O(|E| log |E| + k^2) per pass for k hubs, at most
:data:`~privcut.graph.affinity.CLOSING_PASSES` passes.

Nothing here reads the graph: the generator sees only the measurements, the fitted
targets and fresh randomness, so the release is post-processing of the measurements
(Dwork and Roth 2014 Prop. 2.1) and keeps their (epsilon, 0)-DP guarantee under
edge-level neighbours. There is no full randomized response on this path, hence no bound of
the generator's own on every cut (``Bound.none()``): bisections and arbitrary cuts get
the trivial bound (:func:`~privcut.graph.bounds.release_bounds`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.graph.affinity import (
    affinity_edges,
    closing_swaps,
    core_triangles,
    expected_wedges,
    node_rho,
)
from privcut.graph.arrays import edge_array, index_dtype
from privcut.graph.assortativity import assortative_swaps, assortativity_target
from privcut.graph.blockdraw import (
    ENUMERATE_FRACTION,
    ENUMERATE_PAIRS,
    MAX_ROUNDS,
    key_ends,
    pair_count,
    pair_keys,
)
from privcut.graph.blockmodel import Blocks, corrected, group_members, node_weights
from privcut.graph.clustering import above_gate, cap_of
from privcut.graph.filtered import pair_ends
from privcut.graph.fitting import Targets
from privcut.graph.generation import ORACLES, Generated
from privcut.graph.measurement import Measurements, moment_of
from privcut.graph.pairing import stub_degrees
from privcut.graph.partition import Partition
from privcut.graph.planning import ASSORTATIVITY, CLUSTERING, FILTERED
from privcut.graph.rounding import dependent_rounding
from privcut.graph.survivors import Survivors, posterior_probability
from privcut.graph.universe import EdgeUniverse
from privcut.privacy import check_beta
from privcut.privacy.validation import check_option, check_scalar
from privcut.records import Bound, SolverSummary

__all__ = [
    "ENUMERATE_FRACTION",
    "ENUMERATE_PAIRS",
    "MAX_ROUNDS",
    "SparseGenerated",
    "SparseGenerator",
    "SparseOptions",
    "posterior_probability",
    "stub_degrees",
]


CORRECTIONS = 3
"""Rounds of the multiplicative degree correction
(:func:`~privcut.graph.blockmodel.corrected`) before the final draw, when degrees were
measured and some block pair is enumerated (the solver summary's iterations)."""

MECHANISM = (
    "degree-corrected block model with the fitted integer counts "
    "(Karrer & Newman 2011; fitted integer degrees by the configuration model, Molloy & "
    "Reed 1995, weights by Chung & Lu 2002)"
)


BTER = " + BTER affinity blocks (Seshadhri, Kolda, Pinar 2012)"

SWAPS = (
    " + degree-assortativity swaps (Xulvi-Brunet & Sokolov 2004)"
    " + triangle-closing swaps among the hubs (dK-2.5, Orsini et al. 2015)"
)

SURVIVORS = " + filtered randomized response survivors by posterior (Cormode et al. 2012)"


@dataclass(frozen=True)
class SparseOptions:
    """:class:`SparseGenerator`'s checked options.

    Attributes
    ----------
    rounding : {"random"}
        A sparse release is a 0/1 graph; ``None`` (weighted) is refused.
    beta : float
        Failure probability of the generator's own bound (it has none; kept for the
        interface).
    progress : bool
        Accepted for the interface (the generator is fast; no bar).

    Examples
    --------
    >>> SparseOptions.checked().rounding
    'random'
    """

    rounding: str = "random"
    beta: float = 0.025
    progress: bool = False

    @classmethod
    def checked(cls, **options) -> SparseOptions:
        """The options, each checked (a clear error before any work). ``oracle``,
        ``tau`` and ``max_iterations`` belong to randomized response: ``oracle`` and
        ``max_iterations`` are checked and unused, a ``tau`` is refused."""
        oracle = options.pop("oracle", ORACLES[0])
        check_option(oracle, "oracle", ORACLES)
        check_scalar(options.pop("max_iterations", 100), "max_iterations", int)
        if options.pop("tau", None) is not None:
            raise ValueError(
                "tau is randomized response's constraint level; the sparse generator "
                "does not use randomized response (use method='dense')"
            )
        options = {**cls().__dict__, **options}
        if options["rounding"] != "random":
            raise ValueError(
                f"rounding={options['rounding']!r}: the sparse generator releases a 0/1 "
                "graph, rounding must be 'random' (use method='dense' for a weighted graph)"
            )
        options["beta"] = check_beta(options["beta"])
        options["progress"] = bool(options["progress"])
        return cls(**options)


@dataclass(frozen=True)
class SparseGenerated(Generated):
    """:class:`SparseGenerator`'s result: the released edges as index arrays, O(|E|).

    Attributes
    ----------
    universe : EdgeUniverse
    rows, columns : numpy.ndarray
        The released edges' node indices (``rows < columns`` for a Graph), sorted by pair.
    mechanism, solver, bound, terms, timings
        As :class:`~privcut.graph.generation.Generated`.

    Examples
    --------
    >>> done = SparseGenerated(EdgeUniverse((0, 1, 2), False), np.array([0, 1]),
    ...                        np.array([1, 2]), "example", SolverSummary(None, 0, 0, True),
    ...                        Bound.none(), {})
    >>> sorted(done.graph().edges), done.edge_count, done.degrees().tolist()
    ([(0, 1), (1, 2)], 2.0, [1.0, 2.0, 1.0])
    >>> done.array().nnz
    4
    """

    universe: EdgeUniverse
    rows: np.ndarray
    columns: np.ndarray
    mechanism: str
    solver: SolverSummary
    bound: Bound
    terms: dict
    timings: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def edge_count(self) -> float:
        """The number of released edges."""
        return float(self.rows.size)

    def block_sums(self, partition: Partition) -> np.ndarray:
        """The released edges counted per block pair of ``partition``."""
        blocks = partition.block_of(self.rows, self.columns)
        return np.bincount(blocks, minlength=partition.size).astype(float)

    def degrees(self) -> np.ndarray:
        """The released degrees (out- then in-degrees for a DiGraph)."""
        n = self.universe.n
        out = np.bincount(self.rows, minlength=n).astype(float)
        into = np.bincount(self.columns, minlength=n).astype(float)
        return np.concatenate([out, into]) if self.universe.directed else out + into

    def array(self) -> sp.csr_array:
        """The released 0/1 CSR adjacency (symmetric for a Graph) in O(n + |E|), no
        NetworkX object."""
        universe = self.universe
        return edge_array(self.rows, self.columns, None, universe.n, universe.directed)

    def graph(self) -> nx.Graph:
        """The released unweighted NetworkX graph on the universe's nodes."""
        nodes = self.universe.nodes
        H = nx.DiGraph() if self.universe.directed else nx.Graph()
        H.add_nodes_from(nodes)
        H.add_edges_from(
            (nodes[i], nodes[j])
            for i, j in zip(self.rows.tolist(), self.columns.tolist(), strict=True)
        )
        return H


class SparseGenerator:
    """A degree-corrected block model with the fitted integer block counts (Karrer & Newman
    2011, Chung & Lu 2002): the release in O(n + |E|) time and memory, never enumerating
    the vertex pairs (see the module docstring). Post-processing of the low-dimensional
    measurements; randomized response is not used (refused by
    :func:`~privcut.graph.synthetic.synthetic_graph` with ``method="sparse"``).

    Examples
    --------
    >>> from privcut.graph.fitting import fit_targets
    >>> from privcut.graph.measurement import measure
    >>> from privcut.graph.planning import plan_measurements
    >>> plan = plan_measurements(range(30), 1.0, ["edge-count", "degrees"])
    >>> measured = measure(nx.cycle_graph(30), plan, rng=0)
    >>> generator = SparseGenerator()
    >>> targets, rng = fit_targets(measured), np.random.default_rng(0)
    >>> done = generator.generate(measured, targets, generator.options(), rng)
    >>> done.edge_count == float(generator.counts(measured, targets, np.random.default_rng(0))[0])
    True
    """

    name = "sparse"

    @staticmethod
    def default_measurements(
        groups: bool, directed: bool = False, clustering: bool = True, private: bool = False
    ) -> dict[str, float]:
        """What ``measurements="auto"`` resolves to on the sparse path (shares of epsilon):
        both degree measurements, the per-node ``"degrees"`` (which node has which
        degree; the degree class) and the ``"degree-sequence"`` (Hay et al. 2009: the
        degree distribution), fitted together by
        :func:`~privcut.graph.sequence.rank_matched`; with groups most of the budget stays
        on the blocks. Measured by ``benchmarks/degrees.py`` at epsilon 1 over 5 seeds (see
        benchmarks/RESULTS.md): without groups, on the 7,115-node wiki-vote graph,
        degree-histogram KL 0.412 (0.32-0.49; 1.08 with the edge count and the degrees
        alone, 0.44 with the edge count and the sequence) and per-node degree MAE 4.5
        (2.8 with the degrees alone, 42 with the sequence alone); with the 10 groups of a
        10,000-node heavy-tailed community graph, KL 0.28 (4.8 with the edge count and
        the blocks alone) for between-group block-count errors 1.41x those of the edge
        count and blocks alone (1.2 against 0.8 edges; 1.30x at epsilon 0.5, 1.62x at
        epsilon 2, 0.4 against 0.3 edges). Without groups on an undirected graph
        :data:`~privcut.graph.planning.CLUSTERING_SHARE` goes to ``"clustering"`` (triangle
        corners per degree bin for the BTER step, :mod:`privcut.graph.affinity`), taken
        from the degrees and the sequence; ``clustering=False`` leaves it out (the
        shares of a directed graph) for an engine that does not count triangles. With
        ``private=True`` (groups bought by ``groups="private"``, a partition far weaker
        than public groups) the blocks get 0.45 and the degrees, the sequence and the
        clustering the rest: measured by ``benchmarks/social.py`` (5 seeds; RESULTS.md,
        "Issue 18: shares for groups='private'") against the shares for public groups, at
        epsilon 1 degree KL 0.66 against 0.93 on wiki-vote, 0.19 against 0.38 on gnutella
        and 0.19 against 0.31 on the LFR graph, triangle RE 0.03 against 0.21 on
        wiki-vote, for a mean error on the cuts between the released communities of 2.9
        against 1.6 on wiki-vote (PrivGraph's between its own: 7.2) and degree
        assortativity RE 1.35 against 0.63 (the BTER step's). Undirected with clustering,
        :data:`~privcut.graph.planning.ASSORTATIVITY_SHARE` (0.05, taken from the
        sequence) goes to ``"assortativity"`` (a clipped-degree moment of the edges, met
        by the degree-assortativity swaps): measured by ``benchmarks/social.py`` and
        ``benchmarks/assortativity.py`` (5 and 3 seeds; RESULTS.md, "Issue 18:
        assortativity"), at epsilon 1 assortativity RE 0.13 against 1.33 without the
        swaps on wiki-vote, 0.46 against 1.01 on gnutella and 0.12 against 3.38 on the LFR
        graph (the peers about 1.0), for eigenvector-centrality MAE 0.103 against 0.094 on
        the LFR graph, with the joint-degree counts it then was; the moment that replaced
        them (RESULTS.md, "Issue 18: a clipped-degree moment for the assortativity
        measurement") gives 0.31 / 0.13 / 0.14 at epsilon 0.5 / 1 / 2 on wiki-vote,
        0.21 / 0.28 / 0.28 on gnutella and 0.39 / 0.25 / 0.27 on the LFR graph; the swaps
        break hub-hub edges of the configuration model (triangle
        RE 0.32 against 0.04 on wiki-vote), which the triangle-closing swaps among the hubs
        give back (RESULTS.md, "Issue 18: triangles with assortativity": triangle RE
        0.07 at epsilon 1, 5 seeds, at the same assortativity RE); a wiki-vote release
        takes 0.25-0.34 CPU s with them on a loaded 2-core machine (RESULTS.md, "Issue 18:
        release speed, fourth round"; the closing swaps 0.11-0.13 s of it,
        ``benchmarks/closing_speed.py``).

        Examples
        --------
        >>> SparseGenerator.default_measurements(True)["blocks"]
        0.8
        >>> SparseGenerator.default_measurements(False)["clustering"]
        0.15
        """
        if groups and private and (directed or not clustering):
            return {"edge-count": 0.05, "blocks": 0.45, "degrees": 0.15, "degree-sequence": 0.35}
        if groups and private:
            return {
                "edge-count": 0.05,
                "blocks": 0.45,
                "degrees": 0.15,
                "degree-sequence": 0.2,
                "clustering": 0.1,
                "assortativity": 0.05,
            }
        if groups:
            return {"edge-count": 0.05, "blocks": 0.8, "degrees": 0.05, "degree-sequence": 0.1}
        if directed or not clustering:
            return {"edge-count": 0.1, "degrees": 0.3, "degree-sequence": 0.6}
        return {
            "edge-count": 0.1,
            "degrees": 0.25,
            "degree-sequence": 0.45,
            "clustering": 0.15,
            "assortativity": 0.05,
        }

    def options(self, **given) -> SparseOptions:
        """:meth:`SparseOptions.checked`."""
        return SparseOptions.checked(**given)

    def counts(
        self, measured: Measurements, targets: Targets, rng: np.random.Generator
    ) -> np.ndarray:
        """The integer edge count of every block pair (one entry, the total, without
        groups): the fitted values, dependently rounded so their sum is kept (the hook a
        test's broken twin overrides)."""
        values = targets.blocks if targets.blocks is not None else np.array([targets.total])
        whole = np.floor(values)
        extra = dependent_rounding(values - whole, np.zeros(values.size, dtype=np.intp), rng)
        return (whole + extra).astype(np.int64)

    def posterior(
        self, measured: Measurements, rows: np.ndarray, columns: np.ndarray, prior: np.ndarray
    ) -> np.ndarray:
        """Each filtered survivor's probability of entering as an edge:
        :func:`posterior_probability` of its prior at the measurement's epsilon (reads only
        the measurement; the hook a test's broken twin overrides)."""
        return posterior_probability(prior, measured.get(FILTERED).epsilon)

    def survivors(
        self,
        measured: Measurements,
        blocks: Blocks,
        block: np.ndarray,
        weights: tuple[np.ndarray, np.ndarray],
        rng: np.random.Generator,
    ) -> Survivors | None:
        """The filtered survivors that enter as edges, per block pair (None without the
        measurement): each independently with probability :meth:`posterior` of its prior
        r (its block pair's integer count times its weight product -- the integer stubs
        with degrees measured, else uniform -- over the block pair's total, capped at 1);
        where more are kept than the block pair's count, a uniformly random subset of
        that size (:meth:`Survivors.remaining` then takes them off the counts and the
        stubs). The rest of the count is drawn
        among the block pair's non-survivors (a survivor not kept stays out: its fate was
        its posterior), or among all pairs but the kept ones when the non-survivors are
        too few. Approximation: the non-survivors keep their prior r, though not
        surviving lowers it slightly (odds times ``(1 - e^eps P) / (1 - P)``, P = P(Z >=
        theta) the public survival chance of a non-edge, near 1 for the default
        threshold). ``block`` is each survivor's block pair. O(n + survivors + block
        pairs)."""
        record = measured.get(FILTERED)
        if record is None:
            return None
        n, directed = blocks.n, blocks.directed
        rows, columns = pair_ends(record.pairs, n, directed)
        prior = blocks.prior(rows, columns, block, *weights)
        keep = rng.random(rows.size) < self.posterior(measured, rows, columns, prior)
        order = np.argsort(block, kind="stable")
        splits = np.cumsum(np.bincount(block, minlength=blocks.counts.size))[:-1]
        keys = np.split(pair_keys(rows, columns, n, directed)[order], splits)
        kept, excluded = [], []
        for k, (found, chosen) in enumerate(zip(keys, np.split(keep[order], splits), strict=True)):
            a, b, count = blocks.first[k], blocks.second[k], int(blocks.counts[k])
            taken = found[chosen]
            if taken.size > count:
                taken = np.sort(rng.choice(taken, size=count, replace=False))
            size_a, size_b = blocks.members[a].size, blocks.members[b].size
            free = pair_count(size_a, size_b, a == b, directed) - found.size
            kept.append(taken)
            excluded.append(found if free >= count - taken.size else taken)
        return Survivors(kept, excluded)

    def affinity(
        self,
        measured: Measurements,
        blocks: Blocks,
        stubs: np.ndarray | None,
        kept: np.ndarray,
        rng: np.random.Generator,
    ) -> Survivors | None:
        """BTER phase 1 (:mod:`privcut.graph.affinity`): the affinity blocks' edges per
        block pair, as :class:`Survivors` whose :meth:`~Survivors.remaining` leaves the
        excess degrees and the rest of every count to the configuration-model draw (None
        without ``"clustering"`` or without integer degrees). The clustering per bin is
        the noisy corners over the wedges the measurement's projection keeps of the model
        without the blocks (:meth:`wedges`); a pooled measurement gives one estimate for
        all degrees (:func:`~privcut.graph.clustering.pooled_clustering`). Block edges
        already ``kept`` (filtered survivors) are left out, and where a block pair gets
        more than its count a uniformly random subset of that size is kept, so every block
        pair's count, and the total, stays the fitted integer one. Post-processing; O(n log n +
        |E|)."""
        record, degrees = measured.get(CLUSTERING), measured.get("degrees")
        if record is None or stubs is None or degrees is None:
            return None
        if not above_gate(record.values, record.noise).any():  # at noise level: off
            return None
        n, partition = blocks.n, measured.partition
        wedges = self.wedges(measured, blocks, stubs, rng)
        cap = cap_of(record.sensitivity, record.values.size)
        rho = node_rho(record.values, record.noise, degrees.values, stubs, cap, wedges=wedges)
        rows, columns = affinity_edges(stubs, rho, rng)
        keys = rows * n + columns
        fresh = ~np.isin(keys, kept)
        rows, columns, keys = rows[fresh], columns[fresh], keys[fresh]
        if partition is None:
            block = np.zeros(keys.size, dtype=np.intp)
        else:
            block = partition.block_of(rows, columns)
        chosen = []
        for k, count in enumerate(np.asarray(blocks.counts)):
            found = np.sort(keys[block == k])  # distinct: the blocks share no pair
            if found.size > count:
                found = np.sort(rng.choice(found, size=int(count), replace=False))
            chosen.append(found)
        if blocks.taken is None:  # sorted and distinct: their union with nothing
            return Survivors(chosen, list(chosen))
        excluded = [np.union1d(old, new) for old, new in zip(blocks.taken, chosen, strict=True)]
        return Survivors(chosen, excluded)

    def wedges(
        self,
        measured: Measurements,
        blocks: Blocks,
        stubs: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Per noisy-degree bin, the wedges the measured triangle corners are out of: the
        expected wedges the measurement's capped projection (at the cap it was taken at,
        :func:`~privcut.graph.clustering.cap_of` its record) keeps of a configuration-model
        graph of the integer degrees ``stubs``
        (:func:`~privcut.graph.affinity.expected_wedges`, O(n log n)). It replaces a
        drawn proxy (a whole draw of the model and its capped projection,
        :func:`~privcut.graph.affinity.projected_wedges`: about 0.09 s of a 0.37 s
        wiki-vote release) that it matches within 0.1-3% on the social graphs of
        ``benchmarks/social.py``; with groups it ignores the block structure of the
        proxy's edges. Post-processing of the released degrees and the fitted ones (no
        privacy spend; ``blocks`` and ``rng`` are unused, kept for a subclass that draws
        the proxy)."""
        record = measured.get(CLUSTERING)
        cap = cap_of(record.sensitivity, record.values.size)
        return expected_wedges(stubs, measured.get("degrees").values, cap)

    def blocks(
        self, measured: Measurements, targets: Targets, rng: np.random.Generator
    ) -> tuple[Blocks, np.ndarray | None]:
        """The block pairs with their integer counts (:meth:`counts`) and the integer
        degrees (:func:`stub_degrees`; None without degrees measured): the generator's
        first step, shared with the distributed engine (:mod:`privcut.graph.dask`).
        O(n + block pairs)."""
        universe, partition = measured.universe, measured.partition
        n, directed = universe.n, universe.directed
        counts = self.counts(measured, targets, rng)
        grouped = targets.blocks is not None
        labels = partition.labels if grouped else np.zeros(n, dtype=np.intp)
        first, second = partition.blocks if grouped else ([0], [0])
        blocks = Blocks(group_members(labels), first, second, counts, n, directed)
        stubs = None
        if targets.degrees is not None:
            stubs = stub_degrees(targets.degrees, blocks.members, first, second, counts, n)
        return blocks, stubs

    def target(self, measured: Measurements, degrees: np.ndarray, rng) -> float:
        """The degree assortativity the swaps aim at: Newman's r of the clipped degrees
        from the noisy clipped-degree moment and the release's ``degrees``, shrunk towards
        0 at noise level (:func:`~privcut.graph.assortativity.assortativity_target`, at
        the cap and centre the measurement took,
        :func:`~privcut.graph.measurement.moment_of`). Reads only the measurements and
        the release (the hook a test's broken twin overrides; ``rng`` unused, kept for
        one that draws)."""
        record, universe = measured.get(ASSORTATIVITY), measured.universe
        cap, centre = moment_of(measured.records, measured.partition, universe.n)
        return assortativity_target(float(record.values[0]), record.noise, degrees, cap, centre)

    def assortativity(
        self,
        measured: Measurements,
        held: list[np.ndarray],
        kept: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray | None:
        """The configuration-model edges ``pairs`` (keys ``i n + j``, i < j; given as
        ``held = [pairs]``, taken out of it when the swaps apply, so that the caller holds
        no reference to them while they run: 8 |E| bytes less at the release's peak) after the
        degree-assortativity swaps (:func:`~privcut.graph.assortativity.assortative_swaps`
        towards :meth:`target`, within the block pairs of the partition), the ``kept``
        edges (BTER blocks, filtered survivors) fixed, then the triangle-closing swaps
        (:func:`~privcut.graph.affinity.closing_swaps`) among the hubs (degrees above the
        BTER cap) until the triangles with a hub-hub edge
        (:func:`~privcut.graph.affinity.core_triangles`) number what they did before the
        assortativity swaps; None without ``"assortativity"``. The assortativity swaps
        break hub-hub edges (in a configuration model the triangles on an edge grow like
        the product of its ends' degrees, the sum those swaps lower), which the BTER blocks
        cannot make up (they stop at the cap): on wiki-vote they took 0.32 of the
        triangles, and the closing swaps give back all but 0.04-0.10 at the same degrees,
        block-pair counts and assortativity (benchmarks/RESULTS.md, "Issue 18: triangles
        with assortativity"). Post-processing of the released measurements (no privacy
        spend); O(|E| log |E|) per pass of either, plus O(k^3) once and O(k^2) per
        closing pass for the k <= :data:`~privcut.graph.affinity.CORE_SIZE` hubs."""
        if measured.get(ASSORTATIVITY) is None:
            return None
        n = measured.universe.n
        index = index_dtype(n)  # node ids in 4 bytes where they fit: the swaps' peak
        pairs = held.pop()
        first, second = (pairs // n).astype(index), (pairs % n).astype(index)
        del pairs
        kept_first, kept_second = key_ends(kept, n)
        degrees = sum(
            np.bincount(ends, minlength=n) for ends in (first, second, kept_first, kept_second)
        ).astype(float)
        target = self.target(measured, degrees, rng)
        partition = measured.partition
        labels = None if partition is None else partition.labels
        rows, columns, _ = assortative_swaps(
            first, second, kept, degrees, target, rng, labels=labels
        )
        # the triangles the swaps took from the hubs, closed again at the same r
        before = core_triangles(
            np.concatenate([first, kept_first]), np.concatenate([second, kept_second]), degrees
        )
        del first, second  # freed before the closing swaps
        rows, columns, _ = closing_swaps(rows, columns, kept, degrees, before, rng, labels=labels)
        return rows * n + columns

    def generate(
        self,
        measured: Measurements,
        targets: Targets,
        options: SparseOptions,
        rng: np.random.Generator,
    ) -> SparseGenerated:
        """Draw every block pair's edges, the kept filtered survivors first (see the
        class); O(n + |E| + survivors)."""
        universe, partition = measured.universe, measured.partition
        if targets.total is None or measured.noisy is not None:
            raise ValueError(
                "the sparse generator takes the low-dimensional measurements only (edge "
                "count, blocks, degrees), not randomized response; use method='dense'"
            )
        start = time.perf_counter()
        n, directed = universe.n, universe.directed
        grouped = targets.blocks is not None
        blocks, stubs = self.blocks(measured, targets, rng)
        out, into = node_weights(None if stubs is None else stubs.astype(float), n, directed)
        survivors, kept = None, np.zeros(0, dtype=np.int64)
        if measured.get(FILTERED) is not None:
            rows, columns = pair_ends(measured.get(FILTERED).pairs, n, directed)
            block = partition.block_of(rows, columns) if grouped else np.zeros(rows.size, int)
            survivors = self.survivors(measured, blocks, block, (out, into), rng)
        if survivors is not None:
            blocks, stubs, kept = survivors.remaining(blocks, stubs)
            out, into = node_weights(None if stubs is None else stubs.astype(float), n, directed)
        affinity = self.affinity(measured, blocks, stubs, kept, rng)
        if affinity is not None:
            blocks, stubs, block_kept = affinity.remaining(blocks, stubs)
            kept = np.concatenate([kept, block_kept])
            out, into = node_weights(stubs.astype(float), n, directed)
        pairs, unmatched = blocks.draw(out, into, rng, stubs)
        rounds = CORRECTIONS if stubs is not None and blocks.enumerated else 0
        for _ in range(rounds):
            out, into = corrected(pairs, out, into, stubs, n, directed)
            pairs, unmatched = blocks.draw(out, into, rng, stubs)
        held = [pairs]  # the swaps take the edges out (freed while they run)
        del pairs
        swapped = None if directed else self.assortativity(measured, held, kept, rng)
        pairs = held.pop() if swapped is None else swapped
        solver = SolverSummary(None, rounds, 0, True)
        timings = {"generation": time.perf_counter() - start}
        terms = {"rounding": options.rounding, "unmatched": unmatched}
        mechanism = MECHANISM + (SURVIVORS if survivors is not None else "")
        mechanism += BTER if affinity is not None else ""
        mechanism += SWAPS if swapped is not None else ""
        pairs = np.sort(np.concatenate([kept, pairs]))
        return SparseGenerated(
            universe, *key_ends(pairs, n), mechanism, solver, Bound.none(), terms, timings
        )
