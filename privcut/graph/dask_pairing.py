"""The configuration model of :mod:`privcut.graph.pairing` on Dask: per-partition
generation with independent streams, the client holding O(n + block pairs + P x slots)
and the stubs the first round leaves, never O(|E|) arrays. A step of
:mod:`privcut.graph.dask`; post-processing (reads no graph).

Streams. The client draws one 128-bit root from the release generator (the OS secure
source by default), after every noise draw and after the integer counts, so the noise is
unchanged; task i's stream is ``numpy.random.SeedSequence(root, spawn_key=(i,))``, which is
``SeedSequence(root).spawn(...)[i]`` (:func:`stream`): range task r takes key r, target
t key P + t. SeedSequence hashes the root with the spawn key into the generator's
state, so distinct keys give distinct, independent streams: no two tasks share one.

The law, step by step against :func:`~privcut.graph.pairing.deal` and
:func:`~privcut.graph.pairing.paired` (the same fitted integer degrees ``stubs`` and
counts):

1. Deal. In memory, each group's pile of stubs is uniformly shuffled and cut into its
   block pairs' takes, so every take gets a uniformly random subset of the pile of its
   size. Here every take is cut further into targets of at most ``partition_edges``
   pairs (public sizes: a function of the counts), the nodes into P ranges of about equal
   stubs, and the client draws, per group, how many of each slot's stubs come from each
   range by a sequential multivariate hypergeometric (:meth:`numpy.random.Generator.
   multivariate_hypergeometric`): the law of the counts of a uniformly random assignment.
   Each range task shuffles its own stubs within their groups and cuts them by its
   quotas (:func:`~privcut.graph.pairing.deal_range`): given the counts, a uniformly
   random assignment. So every slot gets a uniformly random subset, all slots jointly a
   uniformly random partition of the pile: the in-memory law.
2. Join. The stubs go to their targets by a Dask shuffle on the target; each target
   joins its side-0 stubs with a uniform shuffle of its side-1 stubs (a Graph's block
   (a, a): one pile, shuffled, halves joined; :func:`~privcut.graph.pairing.join_targets`).
   With step 1, every block pair's stubs are joined by a uniformly random matching: the
   law of joining the i-th row stub with the i-th column stub of shuffled piles.
3. First copies. A Dask shuffle on the pair key brings a key's copies together; the
   first round keeps non-loops and, of a key's copies, the lowest (target, position)
   (:func:`~privcut.graph.pairing.first_copies`). The copies join the same two nodes, so
   the kept keys and the refused stubs do not depend on which copy is kept: the law of
   :func:`~privcut.graph.pairing.paired`'s first round.
4. The rest, in the client with the in-memory code and the release generator: the
   refused stubs (few for sparse graphs: 1% of the pairs in the benchmark) are rejoined
   (:func:`~privcut.graph.pairing.rejoined`), swapped
   (:func:`~privcut.graph.pairing.swap_rounds` over :class:`RemoteSlots`: partners
   picked by global index among the block pair's edges, read from the workers by bucket
   and row) and completed (:func:`~privcut.graph.pairing.completed`), each round asking
   the workers which candidate keys are kept (:class:`RemoteKeySet`: one
   ``dask.compute`` over the buckets, the client's changes held locally). The steps ask
   the same questions of the same set as in memory (the in-memory swaps' set holds only
   the block pairs with stubs left, and a key names its block pair, so their answers
   agree), and the in-memory order of a block pair's edges does not matter (partners are
   uniform over the indices), so these steps have the in-memory law given step 3's.

Hence the release has the law of the in-memory sparse release for the same measurements
(the tests compare both over many seeded runs); the seeded draws differ. Not distributed
(the in-memory generator runs in the client, :mod:`privcut.graph.dask` says when): no
degrees measured (block pairs drawn by weight), or a block pair small or dense enough to
be enumerated (its weighted draw and the degree corrections read every edge).

Costs: a range task O(its stubs), a target task O(its stubs log), a key bucket O(its
pairs log); two shuffles of 17 bytes a stub and 40 bytes a pair; a worker holds the O(n)
integer degrees and labels (shared by its range tasks), its buckets of pairs (41 bytes a
pair) and of released edges (16 bytes an edge), persisted; the client O(n) for the
degrees, O(P x slots) quotas, O(refused stubs), and one or two round trips to the
workers per round of its steps (about 3 x :data:`~privcut.graph.blockdraw.MAX_ROUNDS`
rounds at most).
A group's pile must stay under 10^9 stubs (NumPy's hypergeometric limit).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from privcut.graph.blockdraw import MAX_ROUNDS, pair_keys
from privcut.graph.blockmodel import Blocks
from privcut.graph.pairing import (
    KeySet,
    completed,
    deal_range,
    first_copies,
    join_targets,
    rejoined,
    swap_rounds,
)

__all__ = [
    "PairingPlan",
    "RemoteKeySet",
    "RemoteSlots",
    "distributed_pairing",
    "plan_pairing",
    "stream",
]

_POSITION = 32  # a pair's order key: target << 32 | position in the target

_STUBS = pd.DataFrame(
    {"target": np.zeros(0, np.int64), "side": np.zeros(0, np.int8), "node": np.zeros(0, np.int64)}
)
_PAIRS = pd.DataFrame({name: np.zeros(0, np.int64) for name in ("row", "column", "block", "key")})
_PAIRS["order"] = np.zeros(0, np.int64)
_MARKED = _PAIRS.assign(kept=np.zeros(0, bool))
_EDGES = pd.DataFrame({"u": np.zeros(0, np.int64), "v": np.zeros(0, np.int64)})


def stream(root: int, key: int) -> np.random.Generator:
    """Task ``key``'s generator: ``SeedSequence(root, spawn_key=(key,))``, equal to
    ``SeedSequence(root).spawn(key + 1)[key]``.

    Examples
    --------
    >>> a, b = stream(7, 0).random(), stream(7, 1).random()
    >>> a != b, a == np.random.default_rng(np.random.SeedSequence(7).spawn(2)[0]).random()
    (True, True)
    """
    return np.random.default_rng(np.random.SeedSequence(root, spawn_key=(key,)))


@dataclass(frozen=True)
class PairingPlan:
    """The client's public plan of the distributed pairing (functions of the fitted
    integer degrees and counts and of the client's draws).

    Attributes
    ----------
    bounds : numpy.ndarray
        The P + 1 node bounds of the ranges.
    target_block : numpy.ndarray
        Each target's block pair.
    slot_target, slot_side : tuple of numpy.ndarray
        Per half, each slot's target and side (0 rows, 1 columns, 2 a pooled pile), the
        slots in ascending group order.
    quotas : tuple of numpy.ndarray
        Per half, a P x slots table: how many of range r's stubs each slot takes.
    root : int
        The 128-bit root of the tasks' streams.
    parts : int
        The output's partition count, ``ceil(edges / partition_edges)``.

    Examples
    --------
    >>> from privcut.graph.blockmodel import group_members
    >>> blocks = Blocks(group_members(np.zeros(4, int)), [0], [0], np.array([2]), 4, False)
    >>> plan = plan_pairing(blocks, np.ones(4, int), 1, np.random.default_rng(0))
    >>> plan.bounds.tolist(), plan.slot_side[0].tolist(), plan.quotas[0].sum(axis=1).tolist()
    ([0, 2, 4], [2, 2], [2, 2])
    """

    bounds: np.ndarray
    target_block: np.ndarray
    slot_target: tuple
    slot_side: tuple
    quotas: tuple
    root: int
    parts: int


def _slots(blocks: Blocks, sizes: np.ndarray, target_block: np.ndarray) -> list:
    """Per half, each slot's group, target, side and size, sorted by group: a target of
    block pair (a, b) takes its rows from a's pile (out-stubs) and its columns from b's
    (in-stubs), a Graph's (a, a) target twice its size from a's one pile."""
    first = np.asarray(blocks.first)[target_block]
    second = np.asarray(blocks.second)[target_block]
    targets = np.arange(target_block.size)
    if blocks.directed:
        kinds = [[(first, targets, 0, sizes)], [(second, targets, 1, sizes)]]
    else:
        same, apart = first == second, first != second
        kinds = [
            [
                (first[apart], targets[apart], 0, sizes[apart]),
                (second[apart], targets[apart], 1, sizes[apart]),
                (first[same], targets[same], 2, 2 * sizes[same]),
            ]
        ]
    halves = []
    for kind in kinds:
        group, target, size = (np.concatenate([part[i] for part in kind]) for i in (0, 1, 3))
        side = np.concatenate([np.full(part[0].size, part[2], np.int8) for part in kind])
        order = np.lexsort((target, group))
        halves.append((group[order], target[order], side[order], size[order]))
    return halves


def plan_pairing(blocks: Blocks, stubs: np.ndarray, partition_edges: int, generator):
    """The distributed pairing's plan: targets of at most ``partition_edges`` pairs,
    ranges of about equal stubs, the quotas (a sequential multivariate hypergeometric per
    group and half, drawn from ``generator``) and the streams' root (drawn first).
    O(n + P x slots).

    Examples
    --------
    >>> from privcut.graph.blockmodel import group_members
    >>> blocks = Blocks(group_members(np.zeros(6, int)), [0], [0], np.array([4]), 6, False)
    >>> plan = plan_pairing(blocks, np.array([2, 2, 1, 1, 1, 1]), 2, np.random.default_rng(0))
    >>> plan.parts, plan.target_block.tolist(), plan.quotas[0].sum(axis=0).tolist()
    (2, [0, 0], [4, 4])
    """
    n, directed = blocks.n, blocks.directed
    root = int.from_bytes(generator.bytes(16), "little")
    counts = np.asarray(blocks.counts, dtype=np.int64)
    parts = max(1, math.ceil(int(counts.sum()) / partition_edges))
    per = np.where(counts > 0, -(-counts // partition_edges), 0)
    target_block = np.repeat(np.arange(counts.size), per)
    rank = np.arange(target_block.size) - np.searchsorted(target_block, target_block)
    size = counts[target_block] // per[target_block]
    size = size + (rank < counts[target_block] % per[target_block])
    halves = (stubs[:n], stubs[n:]) if directed else (stubs,)
    weight = np.cumsum(sum(halves))
    cuts = np.searchsorted(weight, np.linspace(0, weight[-1], parts + 1)[1:-1], side="right")
    bounds = np.concatenate([[0], cuts, [n]]).astype(np.int64)
    labels = np.zeros(n, dtype=np.intp)
    for g, members in enumerate(blocks.members):
        labels[members] = g
    where = np.repeat(np.arange(parts), np.diff(bounds))
    g = len(blocks.members)
    targets, sides, quotas = [], [], []
    for half, (group, target, side, slot_size) in zip(
        halves, _slots(blocks, size, target_block), strict=True
    ):
        have = np.bincount(where * g + labels, half, parts * g).reshape(parts, g).astype(np.int64)
        quota = np.zeros((parts, group.size), dtype=np.int64)
        starts = np.searchsorted(group, np.arange(g + 1))
        for a in range(g):
            remaining = slot_size[starts[a] : starts[a + 1]].astype(np.int64)
            for r in np.flatnonzero(have[:, a]):
                drawn = generator.multivariate_hypergeometric(remaining, int(have[r, a]))
                quota[r, starts[a] : starts[a + 1]] = drawn
                remaining = remaining - drawn
        targets.append(target)
        sides.append(side)
        quotas.append(quota)
    return PairingPlan(
        bounds, target_block, tuple(targets), tuple(sides), tuple(quotas), root, parts
    )


def _range(r, plan: PairingPlan, halves, labels) -> pd.DataFrame:
    """Range task r: its stubs dealt to slots, as rows (target, side, node)."""
    lo, hi = plan.bounds[r], plan.bounds[r + 1]
    dealt = deal_range(
        np.arange(lo, hi),
        [half[lo:hi] for half in halves],
        labels[lo:hi],
        [quota[r] for quota in plan.quotas],
        stream(plan.root, r),
    )
    frames = [
        pd.DataFrame(
            {"target": plan.slot_target[h][slot], "side": plan.slot_side[h][slot], "node": pile}
        )
        for h, (slot, pile) in enumerate(dealt)
    ]
    return pd.concat(frames, ignore_index=True).astype(_STUBS.dtypes.to_dict())


def _join(frame: pd.DataFrame, plan: PairingPlan, n: int, directed: bool) -> pd.DataFrame:
    """A target bucket's pairs: joined per target with the target's own stream."""
    ranges = plan.bounds.size - 1
    rows, columns, target, position = join_targets(
        frame["target"].to_numpy(),
        frame["side"].to_numpy(),
        frame["node"].to_numpy(),
        lambda t: stream(plan.root, ranges + t),
    )
    return pd.DataFrame(
        {
            "row": rows,
            "column": columns,
            "block": plan.target_block[target],
            "key": pair_keys(rows, columns, n, directed),
            "order": (target << _POSITION) | position,
        }
    ).astype(_PAIRS.dtypes.to_dict())


def _mark(frame: pd.DataFrame) -> pd.DataFrame:
    """A key bucket's pairs, each marked kept or refused by the first round: the kept
    first, by block pair and key (so a block pair's kept edges are a run, read by
    position and searched by key)."""
    kept = first_copies(
        frame["key"].to_numpy(),
        frame["row"].to_numpy(),
        frame["column"].to_numpy(),
        frame["order"].to_numpy(),
    )
    order = np.lexsort((frame["key"].to_numpy(), frame["block"].to_numpy(), ~kept))
    return frame.assign(kept=kept).iloc[order].reset_index(drop=True)


def _contains(frame: pd.DataFrame, block: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Whether each key (of block pair ``block``) is among a bucket's kept keys (kept
    first, by block pair and key). O(keys log bucket)."""
    count = int(frame["kept"].to_numpy().sum())
    blocks, mine = frame["block"].to_numpy()[:count], frame["key"].to_numpy()[:count]
    found = np.zeros(keys.size, dtype=bool)
    for k in np.unique(block):
        run = mine[np.searchsorted(blocks, k) : np.searchsorted(blocks, k, side="right")]
        asked = block == k
        if run.size:
            spot = np.minimum(np.searchsorted(run, keys[asked]), run.size - 1)
            found[asked] = run[spot] == keys[asked]
    return found


@dataclass
class RemoteKeySet(KeySet):
    """The kept keys on the workers (one ``dask.compute`` over the buckets per question),
    with the client's changes (``added``, ``removed``): what the client's steps ask about
    every key. ``base`` stays empty. O(changes) in the client.

    Examples
    --------
    >>> row = {"row": [0], "column": [1], "block": [0], "key": [1], "order": [0]}
    >>> buckets = dd.from_pandas(pd.DataFrame({**row, "kept": [True]}), npartitions=1)
    >>> have = RemoteKeySet(np.zeros(0, np.int64), buckets=buckets.to_delayed(),
    ...                     labels=np.zeros(3, np.intp), table=np.zeros((1, 1), np.intp), n=3)
    >>> have.add(np.array([5]))
    >>> have.has(np.array([1, 2, 5])).tolist()
    [True, False, True]
    """

    buckets: list = field(default_factory=list)
    labels: np.ndarray | None = None
    table: np.ndarray | None = None
    n: int = 0

    def in_base(self, keys: np.ndarray) -> np.ndarray:
        """Whether each key is a kept edge on the workers."""
        unique = np.unique(keys)
        if unique.size == 0:
            return np.zeros(keys.size, dtype=bool)
        block = self.table[self.labels[unique // self.n], self.labels[unique % self.n]]
        found = dask.compute(*[dask.delayed(_contains)(b, block, unique) for b in self.buckets])
        return np.logical_or.reduce(found)[np.searchsorted(unique, keys)]


def _block_counts(frame: pd.DataFrame, size: int) -> np.ndarray:
    """A bucket's kept edges per block pair."""
    return np.bincount(frame["block"].to_numpy()[frame["kept"].to_numpy()], minlength=size)


def _at(frame: pd.DataFrame, where: np.ndarray) -> np.ndarray:
    """A bucket's edges (row, column) at these rows."""
    return np.stack([frame["row"].to_numpy()[where], frame["column"].to_numpy()[where]])


def _block_keys(frame: pd.DataFrame, block: int) -> np.ndarray:
    """A bucket's kept keys of one block pair."""
    kept = frame["kept"].to_numpy() & (frame["block"].to_numpy() == block)
    return frame["key"].to_numpy()[kept]


@dataclass
class RemoteSlots:
    """The edges of the block pairs with stubs left, for
    :func:`~privcut.graph.pairing.swap_rounds`: block pair k's indices are
    ``starts[k] ..``; the first ``remote[k]`` are the kept edges on the workers (bucket
    by bucket; a bucket holds its kept edges first, by block pair, so they are read by
    bucket and row, one ``dask.compute`` a round), the next its edges in the client
    (``local``), then room for one appended edge per left pair. Overwritten remote edges
    are kept in the client and their old keys listed in ``dropped``. O(left pairs +
    client edges) in the client.

    Examples
    --------
    >>> row = {"row": [0], "column": [1], "block": [0], "key": [1], "order": [0]}
    >>> buckets = dd.from_pandas(pd.DataFrame({**row, "kept": [True]}), npartitions=1)
    >>> none = np.zeros(0, np.int64)
    >>> slots = RemoteSlots.of(buckets.to_delayed(), np.array([[1]]), (none, none, none),
    ...                        np.array([1]), 3, False)
    >>> [part.tolist() for part in slots.read(np.array([0]))]
    [[0], [1]]
    >>> slots.write(np.array([0]), np.array([0]), np.array([2]))
    >>> slots.dropped, [part.tolist() for part in slots.client_edges()]
    ([1], [[0], [2], [0]])
    """

    buckets: list
    counts: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray
    remote: np.ndarray
    local_starts: np.ndarray
    rows: np.ndarray
    columns: np.ndarray
    n: int
    directed: bool
    changed: dict = field(default_factory=dict)
    seen: dict = field(default_factory=dict)
    dropped: list = field(default_factory=list)

    @classmethod
    def of(cls, buckets, counts, local, room, n, directed) -> RemoteSlots:
        """``counts``: buckets x block pairs kept edges; ``local``: the client's edges
        (rows, columns, block); ``room``: per block pair, how many may be appended."""
        remote = counts.sum(axis=0)
        mine = np.bincount(local[2], minlength=remote.size)
        starts = np.cumsum(remote + mine + room) - remote - mine - room
        local_starts = np.cumsum(mine + room) - mine - room
        order = np.argsort(local[2], kind="stable")
        block = local[2][order]
        where = local_starts[block] + np.arange(block.size) - np.searchsorted(block, block)
        rows = np.zeros(int((mine + room).sum()), np.int64)
        columns = np.zeros_like(rows)
        rows[where], columns[where] = local[0][order], local[1][order]
        return cls(
            buckets, counts, starts, remote + mine, remote, local_starts, rows, columns, n, directed
        )

    def _split(self, where: np.ndarray):
        """Each index's block pair and offset in it."""
        block = np.searchsorted(self.starts, where, side="right") - 1
        return block, where - self.starts[block]

    def read(self, where: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The edges at these indices (remote ones fetched by bucket and position)."""
        block, offset = self._split(where)
        rows, columns = np.zeros(where.size, np.int64), np.zeros(where.size, np.int64)
        local = offset >= self.remote[block]
        spot = self.local_starts[block[local]] + offset[local] - self.remote[block[local]]
        rows[local], columns[local] = self.rows[spot], self.columns[spot]
        fetch = []
        for i in np.flatnonzero(~local):
            if int(where[i]) in self.changed:
                rows[i], columns[i] = self.changed[int(where[i])]
            else:
                fetch.append(i)
        fetch = np.array(fetch, dtype=np.int64)
        if fetch.size:
            cumulative = np.cumsum(self.counts[:, block[fetch]], axis=0)
            bucket = (cumulative <= offset[fetch]).sum(axis=0)
            before = cumulative[bucket, np.arange(fetch.size)] - self.counts[bucket, block[fetch]]
            runs = np.cumsum(self.counts, axis=1) - self.counts  # a block pair's first row
            row = runs[bucket, block[fetch]] + offset[fetch] - before
            tasks = [
                dask.delayed(_at)(self.buckets[b], row[bucket == b]) for b in np.unique(bucket)
            ]
            found = dask.compute(*tasks)
            for b, pair in zip(np.unique(bucket), found, strict=True):
                mine = fetch[bucket == b]
                rows[mine], columns[mine] = pair[0], pair[1]
            self.seen.update(
                (int(i), (int(r), int(c)))
                for i, r, c in zip(where[fetch], rows[fetch], columns[fetch], strict=True)
            )
        return rows, columns

    def write(self, where: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> None:
        """Replace the edges at these indices (read before; a remote edge's old key
        dropped)."""
        block, offset = self._split(where)
        local = offset >= self.remote[block]
        spot = self.local_starts[block[local]] + offset[local] - self.remote[block[local]]
        self.rows[spot], self.columns[spot] = rows[local], columns[local]
        for i in np.flatnonzero(~local):
            if int(where[i]) not in self.changed:
                row, column = self.seen[int(where[i])]
                ends = np.array([row]), np.array([column])
                self.dropped.append(int(pair_keys(*ends, self.n, self.directed)[0]))
            self.changed[int(where[i])] = (int(rows[i]), int(columns[i]))

    def append(self, rows: np.ndarray, columns: np.ndarray, block: np.ndarray) -> None:
        """Add edges after their block pairs' (``block`` sorted)."""
        rank = np.arange(block.size) - np.searchsorted(block, block)
        spot = self.local_starts[block] + self.sizes[block] - self.remote[block] + rank
        self.rows[spot], self.columns[spot] = rows, columns
        self.sizes += np.bincount(block, minlength=self.sizes.size)

    def client_edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The edges held in the client (its own and the overwritten remote ones)."""
        held = self.sizes - self.remote
        block = np.repeat(np.arange(held.size), held)
        spot = self.local_starts[block] + np.arange(block.size) - np.searchsorted(block, block)
        changed = np.array(list(self.changed.values()), dtype=np.int64).reshape(-1, 2)
        moved = self._split(np.array(list(self.changed), dtype=np.int64))[0]
        return (
            np.concatenate([self.rows[spot], changed[:, 0]]),
            np.concatenate([self.columns[spot], changed[:, 1]]),
            np.concatenate([block, moved]),
        )


def _released(frame: pd.DataFrame, dropped: np.ndarray, extra: pd.DataFrame, n: int, directed):
    """A bucket's released edges: its kept pairs but the dropped keys, plus ``extra``,
    canonical (``u < v`` for a Graph), sorted by pair."""
    kept = frame["kept"].to_numpy() & ~np.isin(frame["key"].to_numpy(), dropped)
    keys = np.sort(np.concatenate([frame["key"].to_numpy()[kept], extra]))
    return pd.DataFrame({"u": keys // n, "v": keys % n})


def _tally(frame: pd.DataFrame, n: int, directed: bool, labels, table) -> tuple:
    """A bucket's released degrees and block counts."""
    u, v = frame["u"].to_numpy(), frame["v"].to_numpy()
    out, into = np.bincount(u, minlength=n), np.bincount(v, minlength=n)
    degrees = np.concatenate([out, into]) if directed else out + into
    blocks = np.bincount(table[labels[u], labels[v]], minlength=int(table.max()) + 1)
    return degrees, blocks


def _sum(*parts):
    return tuple(sum(part[h] for part in parts) for h in range(len(parts[0])))


def distributed_pairing(
    blocks: Blocks, stubs: np.ndarray, partition_edges: int, generator, timings=None
):
    """The configuration model of :func:`~privcut.graph.pairing.paired` for every block
    pair of ``blocks`` (none enumerated), distributed as the module says: the released
    edges as a Dask DataFrame (int64 ``u``, ``v``, canonical, each partition sorted by
    pair, ``ceil(edges / partition_edges)`` partitions: hash buckets of the pair key),
    how many edges the last step drew by weight, and the released degrees and block
    counts (O(n), by a tree reduction). Runs on the current Dask scheduler; the released
    edges are persisted on the workers. ``timings`` (a dict, optional) gets the seconds
    of each step (for the log only).

    Examples
    --------
    >>> from privcut.graph.blockmodel import group_members
    >>> stubs = np.full(40, 2)
    >>> blocks = Blocks(group_members(np.zeros(40, int)), [0], [0], np.array([40]), 40, False)
    >>> edges, unmatched, degrees, counts = distributed_pairing(
    ...     blocks, stubs, 25, np.random.default_rng(0))
    >>> edges.npartitions, len(edges.compute()), degrees.tolist() == stubs.tolist()
    (2, 40, True)
    """
    n, directed = blocks.n, blocks.directed
    timings = {} if timings is None else timings
    start = time.perf_counter()
    plan = plan_pairing(blocks, stubs, partition_edges, generator)
    timings["plan"] = time.perf_counter() - start
    halves = (stubs[:n], stubs[n:]) if directed else (stubs,)
    labels = np.zeros(n, dtype=np.intp)
    for g, members in enumerate(blocks.members):
        labels[members] = g
    first, second = np.asarray(blocks.first), np.asarray(blocks.second)
    table = np.zeros((len(blocks.members),) * 2, dtype=np.intp)
    table[first, second] = np.arange(first.size)
    if not directed:
        table[second, first] = np.arange(first.size)
    shared = dask.delayed(plan), dask.delayed(halves), dask.delayed(labels)
    tasks = [dask.delayed(_range)(r, *shared) for r in range(plan.bounds.size - 1)]
    dealt = dd.from_delayed(tasks, meta=_STUBS, verify_meta=False)
    by_target = dealt.shuffle(on="target", npartitions=plan.parts)
    pairs = by_target.map_partitions(_join, plan, n, directed, meta=_PAIRS)
    marked = pairs.shuffle(on="key", npartitions=plan.parts).map_partitions(_mark, meta=_MARKED)
    marked = marked.persist()
    buckets = marked.to_delayed()
    left = marked[~marked["kept"]][["row", "column", "block"]].compute()
    left = left.sort_values(["block", "row", "column"], kind="stable")
    left = tuple(left[name].to_numpy().astype(np.int64) for name in ("row", "column", "block"))
    timings["workers"] = time.perf_counter() - start - timings["plan"]
    timings["refused"] = left[0].size
    dropped, extra, unmatched = np.zeros(0, np.int64), np.zeros(0, np.int64), 0
    if left[0].size:
        dropped, extra, unmatched = _finish(blocks, left, buckets, (labels, table), generator)
    timings["client"] = time.perf_counter() - start - timings["plan"] - timings["workers"]
    parts = [
        dask.delayed(_released)(bucket, dropped, extra if b == 0 else extra[:0], n, directed)
        for b, bucket in enumerate(buckets)
    ]
    released = dd.from_delayed(parts, meta=_EDGES, verify_meta=False).persist()
    held = dask.delayed(labels), dask.delayed(table)
    tallies = [dask.delayed(_tally)(part, n, directed, *held) for part in released.to_delayed()]
    degrees, counts = dask.compute(_tree(tallies))[0]
    timings["tally"] = (
        time.perf_counter() - start - sum(timings[step] for step in ("plan", "workers", "client"))
    )
    return released, unmatched, degrees, counts


def _tree(items: list):
    """A tree reduction of delayed tallies, 8 at a time."""
    while len(items) > 1:
        items = [dask.delayed(_sum)(*items[k : k + 8]) for k in range(0, len(items), 8)]
    return items[0]


def _finish(blocks: Blocks, left, buckets, groups, generator):
    """The client's part: the refused stubs rejoined, swapped and completed by the
    in-memory steps, asking the workers whether a key is kept (:class:`RemoteKeySet`;
    ``groups``: the node labels and the block-pair table). Returns the dropped kept keys,
    the client's keys and how many came from the last step."""
    n, directed = blocks.n, blocks.directed
    labels, table = groups
    size = blocks.counts.size
    pooled = (np.asarray(blocks.first) == np.asarray(blocks.second)) & (not directed)
    empty = np.zeros(0, dtype=np.int64)
    have = RemoteKeySet(empty, buckets=buckets, labels=labels, table=table, n=n)
    client, left = rejoined(left, pooled, n, directed, generator, have, MAX_ROUNDS - 1)
    dropped = np.zeros(0, np.int64)
    if left[0].size:
        need = np.bincount(left[2], minlength=size)
        involved = need[client[2]] > 0
        tallies = [dask.delayed(_block_counts)(bucket, size) for bucket in buckets]
        counts = np.stack(dask.compute(*tallies))
        local = [part[involved] for part in client]
        slots = RemoteSlots.of(buckets, counts, local, need, n, directed)
        left = swap_rounds(slots, left, have, n, directed, generator)
        held = slots.client_edges()
        apart = [part[~involved] for part in client]
        client = tuple(np.concatenate(pair) for pair in zip(apart, held, strict=True))
        dropped = np.array(slots.dropped, dtype=np.int64)
    keys = pair_keys(client[0], client[1], n, directed)
    if left[0].size == 0:
        return dropped, keys, 0

    def keys_of(k: int) -> np.ndarray:
        found = dask.compute(*[dask.delayed(_block_keys)(bucket, k) for bucket in buckets])
        remote = np.concatenate(found)
        return np.concatenate([remote[~np.isin(remote, dropped)], keys[client[2] == k]])

    rest = completed(left, have, blocks, keys_of, generator)
    return dropped, np.concatenate([keys, rest]), int(rest.size)
