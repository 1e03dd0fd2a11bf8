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

Nothing here reads the graph: the generator sees only the measurements, the fitted
targets and fresh randomness, so the release is post-processing of the measurements
(Dwork and Roth 2014 Prop. 2.1) and keeps their (epsilon, 0)-DP guarantee under
edge-level neighbours. There is no full randomized response on this path, hence no bound of
the generator's own on every cut (``Bound.none()``): bisections and arbitrary cuts get
the trivial bound (:func:`~privcut.graph.bounds.release_bounds`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.graph.arrays import edge_array
from privcut.graph.filtered import pair_ends
from privcut.graph.fitting import Targets
from privcut.graph.generation import ORACLES, Generated
from privcut.graph.measurement import Measurements
from privcut.graph.partition import Partition
from privcut.graph.planning import FILTERED
from privcut.graph.rounding import dependent_rounding
from privcut.graph.sequence import box_shift, round_keeping_sum
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


ENUMERATE_FRACTION = 0.25
"""A block pair whose count exceeds this fraction of its vertex pairs is enumerated (its
pairs are then at most 4x its edges, so memory stays O(|E|))."""

ENUMERATE_PAIRS = 4096
"""A block pair with at most this many vertex pairs is enumerated."""

MAX_ROUNDS = 32
"""Most rounds of redrawing rejected pairs by weight; the pairs still missing then come
uniformly from the block pair (which always finishes: the count is at most
ENUMERATE_FRACTION of its pairs)."""

CORRECTIONS = 3
"""Rounds of the multiplicative degree correction (:func:`_corrected`) before the final
draw, when degrees were measured and some block pair is enumerated (the solver summary's
iterations)."""

MECHANISM = (
    "degree-corrected block model with the fitted integer counts "
    "(Karrer & Newman 2011; fitted integer degrees by the configuration model, Molloy & "
    "Reed 1995, weights by Chung & Lu 2002)"
)


SURVIVORS = " + filtered randomized response survivors by posterior (Cormode et al. 2012)"


def posterior_probability(prior: np.ndarray, epsilon: float) -> np.ndarray:
    """``p = e^epsilon r / (e^epsilon r + 1 - r)``: the posterior probability that a pair
    of prior edge probability r is an edge, given that it survived filtered randomized
    response at ``epsilon`` with any value (threshold >= 1). Post-processing.

    Why the likelihood ratio is exactly ``e^epsilon``: the pair's noisy value is ``x +
    Z`` with x its 0/1 value and Z discrete Laplace, ``P(Z = z) = c q^|z|``, ``q =
    e^-epsilon``. It survives with value v >= theta >= 1. As an edge that has
    probability ``P(Z = v - 1) = c q^(v - 1)``, as a non-edge ``P(Z = v) = c q^v``
    (both v - 1 and v are >= 0): ratio ``q^-1 = e^epsilon`` for every v, so the value
    adds nothing beyond survival, and survival itself has ratio ``P(Z >= theta - 1) /
    P(Z >= theta) = e^epsilon`` (the tail ``q^t / (1 + q)`` for t >= 0). Bayes: odds
    ``r / (1 - r)`` times ``e^epsilon``. Pairs' noises are independent, so the survival
    of other pairs says nothing more about this one (given the prior).

    Examples
    --------
    >>> posterior_probability(np.array([0.0, 0.5, 1.0]), float(np.log(3.0))).round(12).tolist()
    [0.0, 0.75, 1.0]
    """
    prior = np.asarray(prior, dtype=float)
    boosted = np.exp(epsilon) * prior
    chance = np.divide(boosted, boosted + (1.0 - prior), out=np.zeros_like(prior), where=prior > 0)
    return np.minimum(chance, 1.0)


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


@dataclass(frozen=True)
class _Side:
    """One end of a block pair: its members (sorted indices) and their weights' CDF."""

    members: np.ndarray
    weights: np.ndarray

    @classmethod
    def of(cls, members: np.ndarray, weights: np.ndarray) -> _Side:
        chosen = weights[members]
        if not chosen.sum() > 0.0:
            chosen = np.ones(members.size)
        return cls(members, chosen)

    def draw(self, count: int, generator: np.random.Generator, uniform: bool) -> np.ndarray:
        if uniform:
            return self.members[generator.integers(0, self.members.size, count)]
        cumulative = np.cumsum(self.weights)
        spots = generator.random(count) * cumulative[-1]
        picks = np.minimum(np.searchsorted(cumulative, spots, side="right"), self.members.size - 1)
        return self.members[picks]


def _keys(rows: np.ndarray, columns: np.ndarray, n: int, directed: bool) -> np.ndarray:
    """Each pair's integer key (row-major on the canonical orientation)."""
    if not directed:
        rows, columns = np.minimum(rows, columns), np.maximum(rows, columns)
    return rows.astype(np.int64) * n + columns


def _first_new(keys: np.ndarray, have: np.ndarray) -> np.ndarray:
    """The keys not in ``have``, each once, in draw order."""
    unique, first = np.unique(keys, return_index=True)
    fresh = ~np.isin(unique, have, assume_unique=True)
    return keys[np.sort(first[fresh])]


def _rejection(source, target, count, n, directed, generator, taken=None) -> np.ndarray:
    """``count`` distinct pairs by successive draws, self-loops, repeats and the keys
    ``taken`` (sorted; none by default) rejected."""
    taken = np.zeros(0, dtype=np.int64) if taken is None else taken
    have = np.zeros(0, dtype=np.int64)
    for round_ in range(MAX_ROUNDS + 1):
        need = count - have.size
        if need == 0:
            break
        uniform = round_ == MAX_ROUNDS
        draws = max(need, 16)
        rows = source.draw(draws, generator, uniform)
        columns = target.draw(draws, generator, uniform)
        keep = rows != columns
        excluded = np.sort(np.concatenate([taken, have]))
        fresh = _first_new(_keys(rows[keep], columns[keep], n, directed), excluded)
        have = np.concatenate([have, fresh[:need]])
        if uniform and have.size < count:
            excluded = np.concatenate([taken, have])
            rest = _rejection_uniform(
                source, target, count - have.size, excluded, n, directed, generator
            )
            return np.concatenate([have, rest])
    return have


def _accepted(keys: np.ndarray, valid: np.ndarray, taken: np.ndarray) -> np.ndarray:
    """The positions of the valid keys that are new (not in the sorted ``taken``), each
    key's first valid position only."""
    where = np.flatnonzero(valid)
    _, first = np.unique(keys[where], return_index=True)
    chosen = where[first]
    spot = np.minimum(np.searchsorted(taken, keys[chosen]), max(taken.size - 1, 0))
    fresh = taken[spot] != keys[chosen] if taken.size else np.ones(chosen.size, dtype=bool)
    mask = np.zeros(keys.size, dtype=bool)
    mask[chosen[fresh]] = True
    return mask


def _ranks(segments: np.ndarray) -> np.ndarray:
    """Each entry's position within its run of a sorted segment array."""
    return np.arange(segments.size) - np.searchsorted(segments, segments)


def _spans(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The indices ``starts[k] .. starts[k] + sizes[k] - 1`` of every k, in order. O(sum)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    ends = np.cumsum(sizes)
    return np.repeat(np.asarray(starts, dtype=np.int64) - ends + sizes, sizes) + np.arange(
        ends[-1] if ends.size else 0
    )


def _paired(dealt, blocks: _Blocks, chosen: np.ndarray, generator):
    """The chosen block pairs' edges from their dealt stubs ``dealt = (rows, columns,
    block)`` (sorted by block pair), every node meeting its dealt degree exactly unless
    the last step is needed: the configuration model (Molloy & Reed 1995;
    :func:`_joined`), then double-edge swaps (:func:`_swapped`) for the stubs it leaves,
    then successive draws with the stubs still left as weights (:func:`_rest`). All block
    pairs at once (a pair key names its block pair, so repeats are found globally).
    Pairs among the ``taken`` keys are never formed. Returns the keys and how many came
    from that last step. O(|E| log |E|) plus O(stubs left) per round."""
    n, directed = blocks.n, blocks.directed
    inside = chosen[dealt[2]]
    rows, columns, block = (part[inside] for part in dealt)
    taken = blocks.taken_keys(chosen)
    pooled = (np.asarray(blocks.first) == np.asarray(blocks.second)) & (not directed)
    edges, left = _joined((rows, columns, block), pooled, n, directed, generator, taken)
    swapped = _swapped(edges, left, blocks.counts.size, n, directed, generator, taken)
    (rows, columns, block), left, have = swapped
    keys = _keys(rows, columns, n, directed)
    if left[0].size == 0:
        return keys, 0
    rest, short = _rest(left, pooled, have, n, directed, generator)
    if short.any():  # still short after MAX_ROUNDS rounds: uniformly in the block pair
        more = np.bincount(left[2], minlength=short.size) - np.bincount(
            rest[1], minlength=short.size
        )
        for k in np.flatnonzero(short):
            a, b = blocks.first[k], blocks.second[k]
            sides = [_Side(blocks.members[c], np.ones(blocks.members[c].size)) for c in (a, b)]
            mine = np.concatenate([keys[block == k], rest[0][rest[1] == k], blocks.excluded(k)])
            found = _rejection_uniform(*sides, int(more[k]), mine, n, directed, generator)
            rest = (
                np.concatenate([rest[0], found]),
                np.concatenate([rest[1], np.full(found.size, k)]),
            )
    return np.concatenate([keys, rest[0]]), int(rest[0].size)


def _rest(left, pooled, have: _KeySet, n, directed, generator):
    """Block pairs' last edges, one per left stub pair, by successive sampling without
    replacement with the left stubs as weights (a node by its left stubs in the block
    pair: a uniform pick among them), self-loops and keys in ``have`` rejected, in draw
    order, for up to :data:`MAX_ROUNDS` rounds, all block pairs at once. Returns the keys
    with their block pairs, and which block pairs are still short. O(stubs left) per
    round."""
    u, v, mine = left
    pool = pooled[mine]
    sources = np.concatenate([u, v[pool]]), np.concatenate([mine, mine[pool]])
    targets = np.concatenate([v, u[pool]]), np.concatenate([mine, mine[pool]])
    sides = []
    for nodes, block in (sources, targets):
        order = np.argsort(block, kind="stable")
        sizes = np.bincount(block, minlength=pooled.size)
        sides.append((nodes[order], np.cumsum(sizes) - sizes, sizes))
    need = np.bincount(mine, minlength=pooled.size)
    found, where = [], []
    for _ in range(MAX_ROUNDS):
        if not need.any():
            break
        draws = np.where(need > 0, np.maximum(need, 16), 0)
        block = np.repeat(np.arange(need.size), draws)
        rows, columns = (
            nodes[starts[block] + (generator.random(block.size) * sizes[block]).astype(np.int64)]
            for nodes, starts, sizes in sides
        )
        keys = _keys(rows, columns, n, directed)
        fresh = np.flatnonzero(_accepted(keys, (rows != columns) & ~have.has(keys), keys[:0]))
        fresh = fresh[_ranks(block[fresh]) < need[block[fresh]]]
        have.add(keys[fresh])
        found.append(keys[fresh])
        where.append(block[fresh])
        need -= np.bincount(block[fresh], minlength=need.size)
    return (np.concatenate(found), np.concatenate(where)), need > 0


def _reshuffled(rows, columns, block, pooled, generator):
    """The stubs shuffled again within their block pairs (sorted by block pair): the
    columns, or for a Graph's block (a, a) (``pooled``) both sides as one pile."""
    rows, columns = rows.copy(), columns.copy()
    pool = pooled[block]
    apart = ~pool
    if apart.any():
        columns[apart] = columns[apart][_within(block[apart], generator)]
    if pool.any():
        both = np.concatenate([rows[pool], columns[pool]])
        segment = np.concatenate([block[pool], block[pool]])
        order = _within(segment, generator)
        both, segment = both[order], segment[order]
        half = np.bincount(block[pool], minlength=pooled.size)[segment]
        low = _ranks(segment) < half
        rows[pool], columns[pool] = both[low], both[~low]
    return rows, columns


def _joined(stubs, pooled, n, directed, generator, taken):
    """The configuration model on dealt stubs ``(rows, columns, block)`` (sorted by block
    pair): the i-th row stub joins the i-th column stub; a self-loop or repeat returns
    both stubs, which are shuffled within their block pair (:func:`_reshuffled`) and
    joined again, for up to :data:`MAX_ROUNDS` rounds. Returns the edges and the stubs
    left, each as (rows, columns, block)."""
    rows, columns, block = stubs
    kept, have, none = [], None, np.zeros(0, dtype=np.int64)
    for _ in range(MAX_ROUNDS):
        keys = _keys(rows, columns, n, directed)
        if have is None:  # the first round: the taken keys, then its own in one sort
            joined = _accepted(keys, rows != columns, taken)
            have = _KeySet(np.sort(np.concatenate([taken, keys[joined]])))
        else:
            joined = _accepted(keys, (rows != columns) & ~have.has(keys), none)
            have.add(keys[joined])
        kept.append((rows[joined], columns[joined], block[joined]))
        rows, columns, block = rows[~joined], columns[~joined], block[~joined]
        if rows.size == 0:
            break
        rows, columns = _reshuffled(rows, columns, block, pooled, generator)
    edges = tuple(np.concatenate(part) for part in zip(*kept, strict=True))
    return edges, (rows, columns, block)


def _member(keys: np.ndarray, sorted_: np.ndarray) -> np.ndarray:
    """Whether each key is in the sorted array. O(keys log sorted)."""
    if sorted_.size == 0:
        return np.zeros(keys.size, dtype=bool)
    spot = np.minimum(np.searchsorted(sorted_, keys), sorted_.size - 1)
    return sorted_[spot] == keys


@dataclass
class _KeySet:
    """A set of pair keys: a large sorted ``base`` with few keys ``added`` and
    ``removed`` (sorted), so a change costs O(changes log |E|), not O(|E|)."""

    base: np.ndarray
    added: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    removed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def has(self, keys: np.ndarray) -> np.ndarray:
        """Whether each key is in the set."""
        inside = _member(keys, self.base) & ~_member(keys, self.removed)
        return inside | _member(keys, self.added)

    def add(self, keys: np.ndarray) -> None:
        """Add keys not in the set."""
        back = _member(keys, self.removed)
        self.removed = self.removed[~_member(self.removed, np.sort(keys[back]))]
        self.added = np.sort(np.concatenate([self.added, keys[~back]]))

    def drop(self, keys: np.ndarray) -> None:
        """Remove keys in the set."""
        extra = _member(keys, self.added)
        self.added = self.added[~_member(self.added, np.sort(keys[extra]))]
        self.removed = np.sort(np.concatenate([self.removed, keys[~extra]]))


def _within(segment: np.ndarray, generator) -> np.ndarray:
    """A uniformly random order within each segment, the segments kept in ascending order
    (a random permutation, then a stable sort by segment: radix for few segments)."""
    shuffled = generator.permutation(segment.size)
    labels = segment[shuffled]
    if labels.size and labels.max() < 2**16:
        labels = labels.astype(np.uint16)
    return shuffled[np.argsort(labels, kind="stable")]


def _partners(starts: np.ndarray, sizes: np.ndarray, generator) -> np.ndarray:
    """For every entry i an index in ``starts[i] .. starts[i] + sizes[i] - 1``, distinct
    where the ranges are shared: uniform draws, a repeat drawn again until none is left
    (symmetric in the indices, so a uniformly random injection). ``sizes[i]`` at least
    the entries sharing the range."""
    picks = starts + (generator.random(starts.size) * sizes).astype(np.int64)
    while True:
        _, first = np.unique(picks, return_index=True)
        again = np.ones(picks.size, dtype=bool)
        again[first] = False
        if not again.any():
            return picks
        draws = generator.random(int(again.sum()))
        picks[again] = starts[again] + (draws * sizes[again]).astype(np.int64)


def _swapped(edges, left, size, n, directed, generator, taken):
    """Stubs the configuration model left, joined by double-edge swaps (every degree
    kept): a left pair (u, v) and a random edge (x, y) of its block pair become the edges
    (u, y) and (x, v) when both are new, distinct and no self-loops (each edge serves one
    swap a round), for up to :data:`MAX_ROUNDS` rounds; a block pair with fewer edges
    than left pairs is not swapped. All block pairs with stubs left at once (``size``
    block pairs; :class:`_Slots` holds their edges, the pair keys kept sorted, each round
    merging its few changes in O(their edges)). Returns edges and stubs left, as (rows,
    columns, block), and the keys of the block pairs with stubs left (with ``taken``)."""
    (u, v, mine), need = left, np.bincount(left[2], minlength=size)
    involved = need[edges[2]] > 0
    slots = _Slots.of([part[involved] for part in edges], need)
    have = _KeySet(np.sort(np.concatenate([_keys(*slots.edges()[:2], n, directed), taken])))
    for _ in range(MAX_ROUNDS):
        need = np.bincount(mine, minlength=size)
        able = (need > 0) & (slots.sizes >= need)
        if not able.any():
            break
        active = np.flatnonzero(able[mine])
        pick = _partners(slots.starts[mine[active]], slots.sizes[mine[active]], generator)
        x, y, ua, va = slots.rows[pick], slots.columns[pick], u[active], v[active]
        new = np.concatenate([_keys(ua, y, n, directed), _keys(x, va, n, directed)])
        unique, counts = np.unique(new, return_counts=True)
        clear = ~have.has(new) & (counts[np.searchsorted(unique, new)] == 1)
        ok = (ua != y) & (x != va) & clear[: active.size] & clear[active.size :]
        have.drop(_keys(x[ok], y[ok], n, directed))
        have.add(np.concatenate([new[: active.size][ok], new[active.size :][ok]]))
        slots.rows[pick[ok]], slots.columns[pick[ok]] = ua[ok], y[ok]  # (u, y) for (x, y)
        slots.append(x[ok], va[ok], mine[active[ok]])
        stay = np.ones(u.size, dtype=bool)
        stay[active[ok]] = False
        u, v, mine = u[stay], v[stay], mine[stay]
    rest = [part[~involved] for part in edges]
    edges = tuple(np.concatenate(pair) for pair in zip(rest, slots.edges(), strict=True))
    return edges, (u, v, mine), have


@dataclass
class _Slots:
    """Block pairs' edges in fixed regions (block pair k's ``sizes[k]`` edges first from
    ``starts[k]``, room for ``room[k]`` more after them), so a swap writes in place."""

    rows: np.ndarray
    columns: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray

    @classmethod
    def of(cls, edges, room: np.ndarray) -> _Slots:
        rows, columns, block = edges
        sizes = np.bincount(block, minlength=room.size)
        starts = np.cumsum(sizes + room) - sizes - room
        order = np.argsort(block, kind="stable")
        where = starts[block[order]] + _ranks(block[order])
        total = int((sizes + room).sum())
        buffers = np.zeros(total, np.int64), np.zeros(total, np.int64)
        buffers[0][where], buffers[1][where] = rows[order], columns[order]
        return cls(buffers[0], buffers[1], starts, sizes)

    def append(self, rows: np.ndarray, columns: np.ndarray, block: np.ndarray) -> None:
        """Add edges after their block pairs' (``block`` sorted)."""
        where = self.starts[block] + self.sizes[block] + _ranks(block)
        self.rows[where], self.columns[where] = rows, columns
        self.sizes += np.bincount(block, minlength=self.sizes.size)

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The edges held, as (rows, columns, block), sorted by block pair."""
        block = np.repeat(np.arange(self.sizes.size), self.sizes)
        where = self.starts[block] + _ranks(block)
        return self.rows[where], self.columns[where], block


def stub_degrees(degrees, members, first, second, counts, n: int) -> np.ndarray:
    """Integer degrees nearest the fitted ``degrees`` whose every group's sum is the
    group's share of the integer block counts (``counts[k]`` edges between groups
    ``first[k]`` and ``second[k]``): a Graph's group a needs ``2 c_aa + sum c_ab`` edge
    ends, a DiGraph's (out- then in-degrees) ``sum_b c_ab`` out and ``sum_b c_ba`` in.
    Per group, :func:`~privcut.graph.sequence.box_shift` to that sum in [0, n - 1] and
    :func:`~privcut.graph.sequence.round_keeping_sum`. Post-processing; O(n) per group.

    Examples
    --------
    >>> members = [np.array([0, 1]), np.array([2, 3])]
    >>> stub_degrees(np.array([1.2, 0.9, 2.4, 1.6]), members, np.array([0, 0, 1]),
    ...              np.array([0, 1, 1]), np.array([1, 1, 1]), 4).tolist()
    [2, 1, 2, 1]
    """
    g, directed = len(members), np.asarray(degrees).size == 2 * n
    needs = [np.bincount(first, counts, g), np.bincount(second, counts, g)]
    needs = needs if directed else [needs[0] + needs[1]]
    result = np.zeros(np.asarray(degrees).size, dtype=np.int64)
    for h, need in enumerate(needs):
        part = np.asarray(degrees, dtype=float)[h * n : (h + 1) * n]
        for a, nodes in enumerate(members):
            share = int(np.rint(need[a]))
            fitted = box_shift(part[nodes], n - 1.0, float(share))
            result[h * n + nodes] = round_keeping_sum(fitted, share, n - 1.0)
    return result


def _deal(stubs: np.ndarray, blocks: _Blocks, generator) -> tuple:
    """Every block pair's stubs as ``(rows, columns, block)``, sorted by block pair: each
    group's stubs (node a repeated ``stubs[a]`` times; out-stubs for rows, in-stubs for
    columns of a DiGraph), shuffled, dealt in block order, 2 c to a Graph's block (a, a)
    (halved into its two sides). O(n + |E| log |E| + block pairs), no loop over them."""
    n, directed = blocks.n, blocks.directed
    first, second = np.asarray(blocks.first), np.asarray(blocks.second)
    counts = np.asarray(blocks.counts, dtype=np.int64)
    nodes = np.concatenate(blocks.members) if blocks.members else np.zeros(0, np.intp)
    labels = np.repeat(np.arange(len(blocks.members)), [m.size for m in blocks.members])
    halves = (stubs[:n], stubs[n:]) if directed else (stubs,)
    piles, starts = [], []
    for half in halves:
        group = np.repeat(labels, half[nodes])
        pile = np.repeat(nodes, half[nodes])[_within(group, generator)]
        piles.append(pile)
        starts.append(np.searchsorted(group, np.arange(len(blocks.members))))
    if directed:
        row_start = starts[0][first] + _offsets(first, counts)
        column_start = starts[1][second] + _offsets(second, counts)
        rows, columns = piles[0][_spans(row_start, counts)], piles[1][_spans(column_start, counts)]
    else:
        same = first == second
        groups = np.concatenate([first, second[~same]])
        offsets = _offsets(
            groups, np.concatenate([np.where(same, 2 * counts, counts), counts[~same]])
        )
        row_start = starts[0][first] + offsets[: first.size]
        column_start = row_start + counts
        column_start[~same] = starts[0][second[~same]] + offsets[first.size :]
        rows, columns = piles[0][_spans(row_start, counts)], piles[0][_spans(column_start, counts)]
    return rows, columns, np.repeat(np.arange(counts.size), counts)


def _offsets(groups: np.ndarray, amounts: np.ndarray) -> np.ndarray:
    """Where each take starts in its group's pile when the takes are served in order."""
    order = np.argsort(groups, kind="stable")
    taken = np.cumsum(amounts[order]) - amounts[order]
    sorted_ = groups[order]
    base = taken[np.searchsorted(sorted_, sorted_)]
    result = np.empty(groups.size, dtype=np.int64)
    result[order] = taken - base
    return result


def _rejection_uniform(source, target, count, have, n, directed, generator) -> np.ndarray:
    """The last pairs uniformly from the block pair (each round keeps a constant share)."""
    found = np.zeros(0, dtype=np.int64)
    while found.size < count:
        draws = max(count - found.size, 16)
        rows = source.draw(draws, generator, True)
        columns = target.draw(draws, generator, True)
        keep = rows != columns
        taken = np.sort(np.concatenate([have, found]))
        fresh = _first_new(_keys(rows[keep], columns[keep], n, directed), taken)
        found = np.concatenate([found, fresh[: count - found.size]])
    return found


def _enumerated(source, target, count, same, n, directed, generator, taken) -> np.ndarray:
    """``count`` distinct pairs of a small or dense block pair other than the ``taken``
    keys, without replacement with probability proportional to the product of the ends'
    weights (Efraimidis–Spirakis keys ``E / w``; pairs of weight 0 come last, uniformly)."""
    if same and not directed:
        left, right = np.triu_indices(source.members.size, k=1)
    else:
        left, right = (
            part.ravel() for part in np.indices((source.members.size, target.members.size))
        )
        if same:
            left, right = left[left != right], right[left != right]
    if taken.size:
        free = ~np.isin(_keys(source.members[left], target.members[right], n, directed), taken)
        left, right = left[free], right[free]
    weights = source.weights[left] * target.weights[right]
    exponential = generator.exponential(size=weights.size)
    positive = weights > 0.0
    keys = np.where(positive, exponential / np.where(positive, weights, 1.0), exponential)
    chosen = np.lexsort((keys, ~positive))[:count]
    return _keys(source.members[left[chosen]], target.members[right[chosen]], n, directed)


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
    def default_measurements(groups: bool) -> dict[str, float]:
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
        epsilon 2, 0.4 against 0.3 edges).

        Examples
        --------
        >>> SparseGenerator.default_measurements(True)["blocks"]
        0.8
        """
        if groups:
            return {"edge-count": 0.05, "blocks": 0.8, "degrees": 0.05, "degree-sequence": 0.1}
        return {"edge-count": 0.1, "degrees": 0.3, "degree-sequence": 0.6}

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
        blocks: _Blocks,
        block: np.ndarray,
        weights: tuple[np.ndarray, np.ndarray],
        rng: np.random.Generator,
    ) -> _Survivors | None:
        """The filtered survivors that enter as edges, per block pair (None without the
        measurement): each independently with probability :meth:`posterior` of its prior
        r (its block pair's integer count times its weight product -- the integer stubs
        with degrees measured, else uniform -- over the block pair's total, capped at 1);
        where more are kept than the block pair's count, a uniformly random subset of
        that size (:meth:`_Survivors.remaining` then takes them off the counts and the
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
        keys = np.split(_keys(rows, columns, n, directed)[order], splits)
        kept, excluded = [], []
        for k, (found, chosen) in enumerate(zip(keys, np.split(keep[order], splits), strict=True)):
            a, b, count = blocks.first[k], blocks.second[k], int(blocks.counts[k])
            taken = found[chosen]
            if taken.size > count:
                taken = np.sort(rng.choice(taken, size=count, replace=False))
            size_a, size_b = blocks.members[a].size, blocks.members[b].size
            free = _pair_count(size_a, size_b, a == b, directed) - found.size
            kept.append(taken)
            excluded.append(found if free >= count - taken.size else taken)
        return _Survivors(kept, excluded)

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
        counts = self.counts(measured, targets, rng)
        grouped = targets.blocks is not None
        labels = partition.labels if grouped else np.zeros(n, dtype=np.intp)
        first, second = partition.blocks if grouped else ([0], [0])
        blocks = _Blocks(_members(labels), first, second, counts, n, directed)
        stubs = None
        if targets.degrees is not None:
            stubs = stub_degrees(targets.degrees, blocks.members, first, second, counts, n)
        out, into = _weights(None if stubs is None else stubs.astype(float), n, directed)
        survivors, kept = None, np.zeros(0, dtype=np.int64)
        if measured.get(FILTERED) is not None:
            rows, columns = pair_ends(measured.get(FILTERED).pairs, n, directed)
            block = partition.block_of(rows, columns) if grouped else np.zeros(rows.size, int)
            survivors = self.survivors(measured, blocks, block, (out, into), rng)
        if survivors is not None:
            blocks, stubs, kept = survivors.remaining(blocks, stubs)
            out, into = _weights(None if stubs is None else stubs.astype(float), n, directed)
        pairs, unmatched = blocks.draw(out, into, rng, stubs)
        rounds = CORRECTIONS if stubs is not None and blocks.enumerated else 0
        for _ in range(rounds):
            out, into = _corrected(pairs, out, into, stubs, n, directed)
            pairs, unmatched = blocks.draw(out, into, rng, stubs)
        solver = SolverSummary(None, rounds, 0, True)
        timings = {"generation": time.perf_counter() - start}
        terms = {"rounding": options.rounding, "unmatched": unmatched}
        mechanism = MECHANISM + (SURVIVORS if survivors is not None else "")
        pairs = np.sort(np.concatenate([kept, pairs]))
        return SparseGenerated(
            universe, pairs // n, pairs % n, mechanism, solver, Bound.none(), terms, timings
        )


@dataclass(frozen=True)
class _Blocks:
    """The block pairs to draw: every group's members, the pairs' groups and counts."""

    members: list
    first: np.ndarray
    second: np.ndarray
    counts: np.ndarray
    n: int
    directed: bool
    taken: tuple | None = None
    """Per block pair, the sorted keys its edges are drawn without (filtered survivors),
    or None."""

    def triples(self):
        """Every block pair's two groups and count."""
        return zip(self.first, self.second, self.counts, strict=True)

    def excluded(self, k: int) -> np.ndarray:
        """The sorted keys block pair k's edges are drawn without."""
        return np.zeros(0, dtype=np.int64) if self.taken is None else self.taken[k]

    def enumerates(self) -> np.ndarray:
        """Per block pair, whether it is small or dense enough to draw by enumeration
        (:func:`_enumerated`; counting its ``taken`` keys). O(block pairs)."""
        sizes = np.array([members.size for members in self.members], dtype=np.int64)
        first, second = np.asarray(self.first), np.asarray(self.second)
        size_a, size_b, same = sizes[first], sizes[second], first == second
        pairs = np.where(
            same, size_a * (size_a - 1) // (1 if self.directed else 2), size_a * size_b
        )
        taken = [0] * first.size if self.taken is None else [keys.size for keys in self.taken]
        wanted = np.asarray(self.counts, dtype=np.int64) + np.asarray(taken, dtype=np.int64)
        return (pairs <= ENUMERATE_PAIRS) | (wanted > ENUMERATE_FRACTION * pairs)

    def taken_keys(self, chosen: np.ndarray) -> np.ndarray:
        """The sorted keys the chosen block pairs' edges are drawn without."""
        if self.taken is None:
            return np.zeros(0, dtype=np.int64)
        keys = [self.taken[k] for k in np.flatnonzero(chosen)]
        return np.sort(np.concatenate(keys)) if keys else np.zeros(0, dtype=np.int64)

    @property
    def enumerated(self) -> bool:
        """Whether some block pair with edges is drawn by enumeration (:func:`_enumerated`)."""
        return bool(np.any(self.enumerates() & (np.asarray(self.counts) > 0)))

    def draw(self, out, into, rng: np.random.Generator, stubs=None) -> tuple[np.ndarray, int]:
        """Every block pair's edges, as sorted pair keys: by these weights, or with
        integer ``stubs`` (degrees, out then in for a DiGraph) by pairing the stubs
        :func:`_deal` hands the block pairs (:func:`_paired`, all at once); and how many
        edges the pairing's last step drew by weight (0 without stubs). Block pairs drawn
        by weight go one by one (:func:`_block_pair`)."""
        counts = np.asarray(self.counts)
        alone = counts > 0
        if stubs is not None:
            alone &= self.enumerates()
        keys, unmatched = [], 0
        for k in np.flatnonzero(alone):
            a, b, count = self.first[k], self.second[k], int(counts[k])
            source, target = _Side.of(self.members[a], out), _Side.of(self.members[b], into)
            keys.append(
                _block_pair(
                    source, target, count, a == b, self.n, self.directed, rng, self.excluded(k)
                )
            )
        if stubs is not None:
            dealt = _deal(stubs, self, rng)
            pair, unmatched = _paired(dealt, self, (counts > 0) & ~alone, rng)
            keys.append(pair)
        pairs = np.sort(np.concatenate(keys)) if keys else np.zeros(0, dtype=np.int64)
        return pairs, unmatched

    def prior(self, rows: np.ndarray, columns: np.ndarray, block: np.ndarray, out, into):
        """Each pair's prior edge probability under the model: its block pair's integer
        count times its ends' weight product over the block pair's total weight product
        (the sides' weights as :class:`_Side` takes them: uniform in a group of weight
        0), capped at 1. O(n + pairs)."""
        labels = np.empty(self.n, dtype=np.intp)
        for group, members in enumerate(self.members):
            labels[members] = group
        g = len(self.members)
        out, into = _in_groups(out, labels, g), _in_groups(into, labels, g)
        first, second = np.asarray(self.first), np.asarray(self.second)
        mass = np.bincount(labels, out, g)[first] * np.bincount(labels, into, g)[second]
        same = first == second
        mass[same] -= np.bincount(labels, out * into, g)[first[same]]
        if not self.directed:
            mass[same] /= 2.0
        weight = self.counts[block] * out[rows] * into[columns]
        ratio = np.divide(weight, mass[block], out=np.zeros(rows.size), where=mass[block] > 0)
        return np.minimum(ratio, 1.0)


def _in_groups(weights: np.ndarray, labels: np.ndarray, g: int) -> np.ndarray:
    """The weights, with every group of total weight 0 made uniform (as :class:`_Side`)."""
    empty = ~(np.bincount(labels, weights, g) > 0.0)
    return np.where(empty[labels], 1.0, weights)


@dataclass(frozen=True)
class _Survivors:
    """Every block pair's kept survivors and the keys its rest is drawn without."""

    kept: list
    excluded: list

    def remaining(self, blocks: _Blocks, stubs: np.ndarray | None):
        """What is left to draw once the kept survivors are in: the block pairs with their
        counts lowered by the kept ones and their excluded keys as ``taken``; the stubs
        with the kept edges' ends taken off, refitted to the lowered counts
        (:func:`stub_degrees`, which keeps each group's sum consistent even where a node
        had fewer stubs than kept edges); and the kept keys. Post-processing; O(n + |E|)."""
        counts = blocks.counts - np.array([kept.size for kept in self.kept], dtype=np.int64)
        rest = replace(blocks, counts=counts, taken=tuple(self.excluded))
        kept = np.concatenate(self.kept) if self.kept else np.zeros(0, dtype=np.int64)
        if stubs is not None:
            n = blocks.n
            ends = np.bincount(kept // n, minlength=n), np.bincount(kept % n, minlength=n)
            used = np.concatenate(ends) if blocks.directed else ends[0] + ends[1]
            left = np.maximum(stubs - used, 0).astype(float)
            stubs = stub_degrees(left, blocks.members, blocks.first, blocks.second, counts, n)
        return rest, stubs, kept


def _corrected(pairs, out, into, degrees, n, directed):
    """The weights times ``(fitted + 1) / (drawn + 1)`` per node: a multiplicative step
    towards the fitted degrees where rejecting repeats took edges from the largest weights
    (reads only the fitted degrees and the last draw: post-processing)."""
    rows, columns = pairs // n, pairs % n
    drawn_out = np.bincount(rows, minlength=n).astype(float)
    drawn_in = np.bincount(columns, minlength=n).astype(float)
    if directed:
        out = out * (degrees[:n] + 1.0) / (drawn_out + 1.0)
        return out, into * (degrees[n:] + 1.0) / (drawn_in + 1.0)
    both = out * (degrees + 1.0) / (drawn_out + drawn_in + 1.0)
    return both, both


def _weights(degrees: np.ndarray | None, n: int, directed: bool):
    """The out- and in-weights: the fitted degrees, or uniform."""
    if degrees is None:
        return np.ones(n), np.ones(n)
    if directed:
        return degrees[:n], degrees[n:]
    return degrees, degrees


def _members(labels: np.ndarray) -> list[np.ndarray]:
    """Every group's node indices, sorted, in O(n)."""
    order = np.argsort(labels, kind="stable")
    bounds = np.cumsum(np.bincount(labels))
    return np.split(order, bounds[:-1])


def _pair_count(size_a: int, size_b: int, same: bool, directed: bool) -> int:
    """The vertex pairs of a block pair."""
    return size_a * (size_a - 1) // (1 if directed else 2) if same else size_a * size_b


def _enumerates(size_a: int, size_b: int, count: int, same: bool, directed: bool) -> bool:
    """Whether a block pair is small or dense enough to draw by :func:`_enumerated`."""
    pairs = _pair_count(size_a, size_b, same, directed)
    return pairs <= ENUMERATE_PAIRS or count > ENUMERATE_FRACTION * pairs


def _block_pair(source, target, count, same, n, directed, rng, taken) -> np.ndarray:
    """``count`` distinct pairs of one block pair other than the sorted ``taken`` keys
    (distinct pairs of this block pair), as keys."""
    size_a, size_b = source.members.size, target.members.size
    pairs = _pair_count(size_a, size_b, same, directed)
    if count + taken.size > pairs:
        raise ValueError(
            f"a block pair has {pairs} vertex pairs, asked for {count} edges besides "
            f"{taken.size} taken"
        )
    if _enumerates(size_a, size_b, count + taken.size, same, directed):
        return _enumerated(source, target, count, same, n, directed, rng, taken)
    return _rejection(source, target, count, n, directed, rng, taken)
