"""The configuration-model pairing of integer stubs within block pairs (Molloy & Reed
1995): integer degrees consistent with the block counts (:func:`stub_degrees`), every
group's stubs shuffled and dealt to its block pairs (:func:`deal`), then joined at random,
a self-loop or repeat sent back to be joined again, the stubs still left joined by
double-edge swaps, the rare rest drawn by weight (:func:`paired`); all block pairs at once
by segment operations. A step of :mod:`privcut.graph.sparse`; post-processing (reads no
graph). Time O(n + |E| log |E|) per round, memory O(n + |E|).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from privcut.graph.arrays import index_dtype
from privcut.graph.blockdraw import MAX_ROUNDS, Side, pair_keys, rejection_uniform
from privcut.graph.sequence import box_shift, round_keeping_sum
from privcut.graph.sorting import stable_argsort

if TYPE_CHECKING:
    from privcut.graph.blockmodel import Blocks

STALL_SHARE = 1 / 16
"""A round of rejoining (:func:`rejoined`) or of the last weighted draws (:func:`_rest`)
that places fewer than this share of the stubs still left ends the step, the rest going
on to the next step (the double-edge swaps, then uniform edges): the stubs a stall leaves
are mostly a hub's whose partners are all neighbours already, so more rounds of the same
step place few of them at a whole round's cost (on wiki-vote 24 of 31 rejoining rounds
placed 1-3% each, and a block pair's last stubs at one hub went through 32 rounds of
weighted draws that could place none; on the distributed engine every round asks the
workers). The swaps' rounds go on (they keep placing 2-15% a round where rejoining
stalls). A stall is read off the step's own draws: post-processing."""


def _stalled(placed: int, left: int) -> bool:
    """Whether a round that placed ``placed`` stubs of the ``placed + left`` it had
    stalls (:data:`STALL_SHARE`)."""
    return placed < STALL_SHARE * (placed + left)


def stub_degrees(degrees, members, first, second, counts, n: int) -> np.ndarray:
    """Integer degrees nearest the fitted ``degrees`` whose every group's sum is the
    group's share of the integer block counts (``counts[k]`` edges between groups
    ``first[k]`` and ``second[k]``): a Graph's group a needs ``2 c_aa + sum c_ab`` edge
    ends, a DiGraph's (out- then in-degrees) ``sum_b c_ab`` out and ``sum_b c_ba`` in.
    Per group, :func:`~privcut.graph.sequence.box_shift` to that sum in [0, n - 1] and
    :func:`~privcut.graph.sequence.round_keeping_sum`, or, for a group whose degrees are
    already integers in [0, n - 1] with that sum, those degrees: the answer the two give
    (:func:`_on_share`). Post-processing; O(n) per group.

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
            values = part[nodes]
            if _on_share(values, share, n - 1.0):
                result[h * n + nodes] = values
                continue
            fitted = box_shift(values, n - 1.0, float(share))
            result[h * n + nodes] = round_keeping_sum(fitted, share, n - 1.0)
    return result


def _on_share(values: np.ndarray, share: int, high: float) -> bool:
    """Whether ``values`` (not empty) are integers in [0, ``high``] summing to ``share``.
    Then ``box_shift`` to that sum moves them by its root search's tolerance (1e-12: the
    root is 0, as a shift up raises an entry below ``high`` and a shift down lowers a
    positive one), each entry ends within 1 of its value, floored to it or one less, and
    ``round_keeping_sum`` adds the one back on exactly the entries floored down (the only
    positive fractions): the values themselves. In the default release most groups'
    degrees are of that kind (the rank-matched fitted degrees on the edge count), and the
    searches are skipped. O(len(values))."""
    if values.size == 0 or not (values.min() >= 0 and values.max() <= high):  # NaN too
        return False
    return bool(np.all(np.rint(values) == values)) and int(values.sum()) == share


def deal(stubs: np.ndarray, blocks: Blocks, generator) -> tuple:
    """Every block pair's stubs as ``(rows, columns, block)``, sorted by block pair: each
    group's stubs (node a repeated ``stubs[a]`` times; out-stubs for rows, in-stubs for
    columns of a DiGraph), shuffled, dealt in block order, 2 c to a Graph's block (a, a)
    (halved into its two sides). O(n + |E| log |E| + block pairs), no loop over them.
    Node ids and block pairs in 4 bytes where they fit (:func:`~privcut.graph.arrays.
    index_dtype`): the pairing's peak is a few arrays of |E| of them."""
    n, directed = blocks.n, blocks.directed
    first, second = np.asarray(blocks.first), np.asarray(blocks.second)
    counts = np.asarray(blocks.counts, dtype=np.int64)
    members = blocks.members if blocks.members else [np.zeros(0, np.intp)]
    nodes = np.concatenate(members).astype(index_dtype(n), copy=False)
    labels = np.repeat(np.arange(len(blocks.members)), [m.size for m in blocks.members])
    halves = (stubs[:n], stubs[n:]) if directed else (stubs,)
    sizes = np.array([m.size for m in blocks.members], dtype=np.int64)
    piles, starts = [], []
    for half in halves:
        piles.append(_pile(nodes, half[nodes], labels, generator))
        ends = np.concatenate([[0], np.cumsum(half[nodes])])  # each group's pile starts
        starts.append(ends[np.cumsum(sizes) - sizes])
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
    block = np.arange(counts.size, dtype=index_dtype(counts.size))
    return rows, columns, np.repeat(block, counts)


def _pile(nodes: np.ndarray, stubs: np.ndarray, labels: np.ndarray, generator) -> np.ndarray:
    """The nodes' stubs (node ``nodes[i]`` repeated ``stubs[i]`` times) in ascending group
    order (``labels``), uniformly shuffled within each group: :func:`deal`'s and
    :func:`deal_range`'s one shuffle. O(stubs)."""
    if labels.max(initial=0) < 2**16:  # 2-byte groups: a quarter of the stubs' bytes
        labels = labels.astype(np.uint16)
    return np.repeat(nodes, stubs)[_within(np.repeat(labels, stubs), generator)]


def _offsets(groups: np.ndarray, amounts: np.ndarray) -> np.ndarray:
    """Where each take starts in its group's pile when the takes are served in order."""
    order = np.argsort(groups, kind="stable")
    taken = np.cumsum(amounts[order]) - amounts[order]
    sorted_ = groups[order]
    base = taken[np.searchsorted(sorted_, sorted_)]
    result = np.empty(groups.size, dtype=np.int64)
    result[order] = taken - base
    return result


def _first_copies(keys: np.ndarray, valid: np.ndarray, taken: np.ndarray) -> tuple:
    """The valid positions whose key is new (not in the sorted ``taken``), of each key its
    first valid position only, as a mask, and the sorted union of ``taken`` and the
    accepted keys: one stable sort of the valid keys, whose distinct keys come out
    sorted and are looked up in ``taken`` in that order. O(k log k + |taken|)."""
    where = np.flatnonzero(valid)
    ordered = keys[where]
    order = stable_argsort(ordered)
    ordered = ordered[order]
    first = np.ones(ordered.size, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    distinct, chosen = ordered[first], where[order[first]]
    small = taken.size < distinct.size  # binary searches for the fewer side, same answer
    fresh = ~(_holds(taken, distinct) if small else _member(distinct, taken))
    mask = np.zeros(keys.size, dtype=bool)
    mask[chosen[fresh]] = True
    if taken.size == 0:  # the new keys, sorted already
        return mask, distinct[fresh]
    return mask, np.sort(np.concatenate([taken, distinct[fresh]]), kind="stable")


def _accepted(keys: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """The valid positions, each key's first valid position only (as a mask)."""
    where = np.flatnonzero(valid)
    _, first = np.unique(keys[where], return_index=True)
    mask = np.zeros(keys.size, dtype=bool)
    mask[where[first]] = True
    return mask


def _ranks(segments: np.ndarray) -> np.ndarray:
    """Each entry's position within its run of a sorted array of non-negative integer
    segments. O(k + largest segment)."""
    sizes = np.bincount(segments)
    return np.arange(segments.size) - (np.cumsum(sizes) - sizes)[segments]


def _spans(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The indices ``starts[k] .. starts[k] + sizes[k] - 1`` of every k, in order. O(sum)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    ends = np.cumsum(sizes)
    return np.repeat(np.asarray(starts, dtype=np.int64) - ends + sizes, sizes) + np.arange(
        ends[-1] if ends.size else 0
    )


def paired(dealt, blocks: Blocks, chosen: np.ndarray, generator):
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
    rows, columns, block = dealt if inside.all() else (part[inside] for part in dealt)
    taken = blocks.taken_keys(chosen)
    pooled = (np.asarray(blocks.first) == np.asarray(blocks.second)) & (not directed)
    edges, left, have = _joined((rows, columns, block), pooled, n, directed, generator, taken)
    swapped = _swapped(edges, left, blocks.counts.size, n, directed, generator, have)
    (rows, columns, block), left = swapped
    keys = pair_keys(rows, columns, n, directed)
    if left[0].size == 0:
        return keys, 0
    rest = completed(left, have, blocks, lambda k: keys[block == k], generator)
    return np.concatenate([keys, rest]), int(rest.size)


def completed(left, have: KeySet, blocks: Blocks, keys_of, generator) -> np.ndarray:
    """The last edges of the block pairs with stubs ``left`` after the swaps: drawn by
    weight (:func:`_rest`), and where a block pair is still short after
    :data:`MAX_ROUNDS` rounds, uniformly among its pairs (``keys_of(k)``: block pair k's
    keys so far, besides those drawn here). ``have`` answers for every key with an end
    among the left stubs' nodes. Returns the keys drawn. O(stubs left) per round."""
    n, directed = blocks.n, blocks.directed
    pooled = (np.asarray(blocks.first) == np.asarray(blocks.second)) & (not directed)
    rest, short = _rest(left, pooled, have, n, directed, generator)
    if short.any():  # still short after MAX_ROUNDS rounds: uniformly in the block pair
        more = np.bincount(left[2], minlength=short.size) - np.bincount(
            rest[1], minlength=short.size
        )
        for k in np.flatnonzero(short):
            a, b = blocks.first[k], blocks.second[k]
            sides = [Side(blocks.members[c], np.ones(blocks.members[c].size)) for c in (a, b)]
            mine = np.concatenate([keys_of(k), rest[0][rest[1] == k], blocks.excluded(k)])
            found = rejection_uniform(*sides, int(more[k]), mine, n, directed, generator)
            rest = (
                np.concatenate([rest[0], found]),
                np.concatenate([rest[1], np.full(found.size, k)]),
            )
    return rest[0]


def _rest(left, pooled, have: KeySet, n, directed, generator):
    """Block pairs' last edges, one per left stub pair, by successive sampling without
    replacement with the left stubs as weights (a node by its left stubs in the block
    pair: a uniform pick among them), self-loops and keys in ``have`` rejected, in draw
    order, for up to :data:`MAX_ROUNDS` rounds or until one stalls (:data:`STALL_SHARE`),
    all block pairs at once. Returns the keys with their block pairs, and which block
    pairs are still short. O(stubs left) per round."""
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
        keys = pair_keys(rows, columns, n, directed)
        fresh = np.flatnonzero(_accepted(keys, (rows != columns) & ~have.has(keys)))
        fresh = fresh[_ranks(block[fresh]) < need[block[fresh]]]
        have.add(keys[fresh])
        found.append(keys[fresh])
        where.append(block[fresh])
        need -= np.bincount(block[fresh], minlength=need.size)
        if _stalled(fresh.size, int(need.sum())):
            break
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
    pair): the i-th row stub joins the i-th column stub (a self-loop or repeat, all but
    the first copy of a key, or a key in ``taken`` is refused), then the refused stubs go
    through :func:`rejoined`, :data:`MAX_ROUNDS` rounds in all. Returns the edges and the
    stubs left, each as (rows, columns, block), and the keys of the edges and ``taken``
    (sorted) as a :class:`KeySet`."""
    rows, columns, block = stubs
    keys = pair_keys(rows, columns, n, directed)
    joined, base = _first_copies(keys, rows != columns, taken)
    have = KeySet(base)
    first = rows[joined], columns[joined], block[joined]
    left = rows[~joined], columns[~joined], block[~joined]
    more, left = rejoined(left, pooled, n, directed, generator, have, MAX_ROUNDS - 1)
    edges = tuple(np.concatenate(part) for part in zip(first, more, strict=True))
    return edges, left, have


def rejoined(left, pooled, n, directed, generator, have: KeySet, rounds: int):
    """The refused stubs ``left = (rows, columns, block)`` (sorted by block pair) of a
    configuration-model round, shuffled within their block pairs (:func:`_reshuffled`)
    and joined again, a self-loop, repeat or key in ``have`` refused (``have`` gets the
    new keys; it must answer for every key between the left stubs' nodes), for up to
    ``rounds`` rounds or until one stalls (:data:`STALL_SHARE`). Returns the new edges
    and the stubs left, as (rows, columns, block). O(stubs left) per round."""
    rows, columns, block = left
    kept, empty = [], tuple(part[:0] for part in left)  # the stubs' dtypes
    if rows.size:
        rows, columns = _reshuffled(rows, columns, block, pooled, generator)
    for _ in range(rounds):
        if rows.size == 0:
            break
        keys = pair_keys(rows, columns, n, directed)
        joined = _accepted(keys, (rows != columns) & ~have.has(keys))
        have.add(keys[joined])
        kept.append((rows[joined], columns[joined], block[joined]))
        rows, columns, block = rows[~joined], columns[~joined], block[~joined]
        if _stalled(int(np.count_nonzero(joined)), rows.size):
            break
        if rows.size:
            rows, columns = _reshuffled(rows, columns, block, pooled, generator)
    edges = tuple(np.concatenate(part) for part in zip(empty, *kept, strict=True))
    return edges, (rows, columns, block)


def _holds(keys: np.ndarray, distinct: np.ndarray) -> np.ndarray:
    """Whether each of the sorted, distinct ``distinct`` is among ``keys`` (any order):
    ``_member(distinct, sorted keys)``, with the binary searches made for ``keys`` instead,
    when they are the fewer. O(len(keys) log len(distinct) + len(distinct))."""
    found = np.zeros(distinct.size, dtype=bool)
    if distinct.size and keys.size:
        spot = np.minimum(np.searchsorted(distinct, keys), distinct.size - 1)
        found[spot[distinct[spot] == keys]] = True
    return found


def _member(keys: np.ndarray, sorted_: np.ndarray) -> np.ndarray:
    """Whether each key is in the sorted array. O(keys log sorted)."""
    if sorted_.size == 0:
        return np.zeros(keys.size, dtype=bool)
    spot = np.minimum(np.searchsorted(sorted_, keys), sorted_.size - 1)
    return sorted_[spot] == keys


@dataclass
class KeySet:
    """A set of pair keys: a large sorted ``base`` with few keys ``added`` and
    ``removed`` (sorted), so a change costs O(changes log |E|), not O(|E|); a subclass
    may hold the base elsewhere (:meth:`in_base`)."""

    base: np.ndarray
    added: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    removed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def has(self, keys: np.ndarray) -> np.ndarray:
        """Whether each key is in the set."""
        inside = self.in_base(keys) & ~_member(keys, self.removed)
        return inside | _member(keys, self.added)

    def in_base(self, keys: np.ndarray) -> np.ndarray:
        """Whether each key is in the base."""
        return _member(keys, self.base)

    def add(self, keys: np.ndarray) -> None:
        """Add keys not in the set."""
        back = _member(keys, self.removed)
        self.removed = self.removed[~_member(self.removed, np.sort(keys[back]))]
        self.added = _merged(self.added, keys[~back])

    def drop(self, keys: np.ndarray) -> None:
        """Remove keys in the set."""
        extra = _member(keys, self.added)
        self.added = self.added[~_member(self.added, np.sort(keys[extra]))]
        self.removed = _merged(self.removed, keys[~extra])


def _merged(ordered: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The sorted ``ordered`` with ``keys`` put in, sorted: the few keys sorted, then the
    two runs merged (a stable sort finds them). O(|ordered| + k log k)."""
    return np.sort(np.concatenate([ordered, np.sort(keys)]), kind="stable")


def _within(segment: np.ndarray, generator) -> np.ndarray:
    """A uniformly random order within each segment, the segments kept in ascending order
    (a random permutation, then a stable sort by segment,
    :func:`~privcut.graph.sorting.stable_argsort`; none for one segment)."""
    shuffled = generator.permutation(segment.size)
    if segment.size == 0 or segment.min() == segment.max():
        return shuffled
    return shuffled[stable_argsort(segment[shuffled])]


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


def _swapped(edges, left, size, n, directed, generator, have: KeySet):
    """Stubs the configuration model left, joined by double-edge swaps
    (:func:`swap_rounds`) with the edges of their block pairs (``size`` block pairs;
    :class:`Slots` holds those edges); ``have`` (updated) holds the ``edges`` and every
    key they are drawn without (a key names its block pair, so other block pairs' keys
    never answer a question here). Returns edges and stubs left, as (rows, columns,
    block)."""
    need = np.bincount(left[2], minlength=size)
    involved = need[edges[2]] > 0
    slots = Slots.of([part[involved] for part in edges], need)
    left = swap_rounds(slots, left, have, n, directed, generator)
    rest = [part[~involved] for part in edges]
    edges = tuple(np.concatenate(pair) for pair in zip(rest, slots.edges(), strict=True))
    return edges, left


def swap_rounds(slots, left, have: KeySet, n, directed, generator):
    """Stubs left ``(u, v, block)`` joined by double-edge swaps (every degree kept): a left
    pair (u, v) and a uniformly random edge (x, y) of its block pair become the edges
    (u, y) and (x, v) when both are new, distinct and no self-loops (each edge serves one
    swap a round), for up to :data:`MAX_ROUNDS` rounds; a block pair with fewer edges
    than left pairs is not swapped. ``slots`` holds the block pairs' edges by index
    (``starts``, ``sizes``, ``read``, ``write``, ``append``: :class:`Slots`, or a
    distributed store), ``have`` answers for every key with an end among the left stubs'
    nodes (it is updated). Returns the stubs left. O(stubs left) per round plus the
    store's reads."""
    u, v, mine = left
    size = slots.sizes.size
    for _ in range(MAX_ROUNDS):
        need = np.bincount(mine, minlength=size)
        able = (need > 0) & (slots.sizes >= need)
        if not able.any():
            break
        active = np.flatnonzero(able[mine])
        pick = _partners(slots.starts[mine[active]], slots.sizes[mine[active]], generator)
        (x, y), ua, va = slots.read(pick), u[active], v[active]
        new = np.concatenate([pair_keys(ua, y, n, directed), pair_keys(x, va, n, directed)])
        unique, counts = np.unique(new, return_counts=True)
        clear = ~have.has(new) & (counts[np.searchsorted(unique, new)] == 1)
        ok = (ua != y) & (x != va) & clear[: active.size] & clear[active.size :]
        # a dropped (x, y) is asked again only with an end among the left nodes: held
        have.drop(pair_keys(x[ok], y[ok], n, directed))
        have.add(np.concatenate([new[: active.size][ok], new[active.size :][ok]]))
        slots.write(pick[ok], ua[ok], y[ok])  # (u, y) for (x, y)
        slots.append(x[ok], va[ok], mine[active[ok]])
        stay = np.ones(u.size, dtype=bool)
        stay[active[ok]] = False
        u, v, mine = u[stay], v[stay], mine[stay]
    return u, v, mine


@dataclass
class Slots:
    """Block pairs' edges in fixed regions (block pair k's ``sizes[k]`` edges first from
    ``starts[k]``, room for ``room[k]`` more after them), so a swap writes in place."""

    rows: np.ndarray
    columns: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray

    @classmethod
    def of(cls, edges, room: np.ndarray) -> Slots:
        rows, columns, block = edges
        sizes = np.bincount(block, minlength=room.size)
        starts = np.cumsum(sizes + room) - sizes - room
        order = stable_argsort(block)
        where = _spans(starts, sizes)  # block pair k's edges to its first sizes[k] slots
        total = int((sizes + room).sum())
        buffers = np.zeros(total, rows.dtype), np.zeros(total, columns.dtype)
        buffers[0][where], buffers[1][where] = rows[order], columns[order]
        return cls(buffers[0], buffers[1], starts, sizes)

    def append(self, rows: np.ndarray, columns: np.ndarray, block: np.ndarray) -> None:
        """Add edges after their block pairs' (``block`` sorted)."""
        where = self.starts[block] + self.sizes[block] + _ranks(block)
        self.rows[where], self.columns[where] = rows, columns
        self.sizes += np.bincount(block, minlength=self.sizes.size)

    def read(self, where: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The edges at these indices."""
        return self.rows[where], self.columns[where]

    def write(self, where: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> None:
        """Replace the edges at these indices."""
        self.rows[where], self.columns[where] = rows, columns

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The edges held, as (rows, columns, block), sorted by block pair."""
        block = np.repeat(
            np.arange(self.sizes.size, dtype=index_dtype(self.sizes.size)), self.sizes
        )
        where = _spans(self.starts, self.sizes)
        return self.rows[where], self.columns[where], block


def deal_range(nodes, halves, labels, quotas, generator) -> tuple:
    """One node range's share of :func:`deal` on the distributed engine: per half (the
    stubs, or out- then in-stubs of a DiGraph) the range's stubs (node ``nodes[i]``
    repeated ``halves[h][i]`` times) shuffled within their groups (``labels``) and cut,
    in group order, into the range's quota of every slot (``quotas[h]``: how many of the
    range's stubs each slot takes, the slots in ascending group order, a group's quotas
    adding up to its stubs here). Returns each stub's slot and node, per
    half. With the quotas drawn as a sequential multivariate hypergeometric over the
    ranges, every slot gets a uniformly random subset of its group's stubs of its size:
    the law of :func:`deal`'s shuffled pile cut into consecutive takes. O(stubs).

    Examples
    --------
    >>> ((slot, pile),) = deal_range(np.array([4, 5]), [np.array([2, 1])], np.zeros(2, int),
    ...                              [np.array([1, 2])], np.random.default_rng(0))
    >>> slot.tolist(), sorted(pile.tolist())
    ([0, 1, 1], [4, 4, 5])
    """
    dealt = []
    for half, quota in zip(halves, quotas, strict=True):
        pile = _pile(nodes, half, labels, generator)
        dealt.append((np.repeat(np.arange(quota.size), quota), pile))
    return tuple(dealt)


def join_targets(target, side, node, generator_of) -> tuple:
    """The configuration model within targets (pieces of block pairs) on the distributed
    engine: a target's side-0 stubs join its side-1 stubs in a uniformly random order
    (side 2, a Graph's block (a, a): one pile, shuffled, its first half joining its
    second), as :func:`deal`'s takes are joined (the i-th row stub with the i-th column
    stub of uniformly shuffled piles). ``generator_of(t)`` is target t's own stream. The
    stubs are sorted first (stubs of one node are alike), so the result is a function
    of the stubs and the streams only. Returns rows, columns, target and each pair's
    position in its target. O(stubs log stubs).

    Examples
    --------
    >>> rows, columns, target, position = join_targets(
    ...     np.zeros(4, int), np.array([0, 0, 1, 1]), np.array([0, 1, 2, 3]),
    ...     lambda t: np.random.default_rng(t))
    >>> rows.tolist(), sorted(columns.tolist()), position.tolist()
    ([0, 1], [2, 3], [0, 1])
    """
    order = np.lexsort((node, side, target))
    target, side, node = target[order], side[order], node[order]
    bounds = np.flatnonzero(np.diff(target)) + 1
    rows, columns, where = [], [], []
    for start, stop in zip(np.r_[0, bounds], np.r_[bounds, target.size], strict=True):
        if start == stop:
            continue
        generator, nodes = generator_of(int(target[start])), node[start:stop]
        if side[start] == 2:
            pile = nodes[generator.permutation(nodes.size)]
            half = nodes.size // 2
            pair = pile[:half], pile[half:]
        else:
            cut = start + int(np.searchsorted(side[start:stop], 1))
            pair = node[start:cut], node[cut:stop][generator.permutation(stop - cut)]
        rows.append(pair[0])
        columns.append(pair[1])
        where.append(np.full(pair[0].size, target[start]))
    none = np.zeros(0, dtype=np.int64)
    rows, columns, where = (np.concatenate([none, *part]) for part in (rows, columns, where))
    return rows, columns, where, _ranks(where)


def first_copies(keys, rows, columns, order) -> np.ndarray:
    """Which pairs the first configuration-model round keeps on the distributed engine:
    no self-loop, and of a key's copies the first in ``order`` (its target, then its
    position: :func:`_accepted` on the pairs so sorted). All copies of a key are in one
    hash bucket, so this runs per bucket. The copies are exchangeable (the same two
    nodes' stubs), so keeping the lowest has the law of :func:`_joined`'s first copy in
    draw order: the kept keys and the refused stubs are the same whichever copy is kept.
    O(pairs log pairs).

    Examples
    --------
    >>> first_copies(np.array([7, 7, 9]), np.array([1, 1, 2]), np.array([3, 3, 2]),
    ...              np.array([5, 4, 0])).tolist()
    [False, True, False]
    """
    sort = np.argsort(order, kind="stable")
    kept = np.zeros(keys.size, dtype=bool)
    kept[sort] = _accepted(keys[sort], rows[sort] != columns[sort])
    return kept
