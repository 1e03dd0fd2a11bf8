"""Private communities (issue 18): a noisy super-graph of random groups, Louvain on it, and a
batched exponential-mechanism adjustment, as one edge-level epsilon-DP mechanism.

The steps follow PrivGraph's "Community Initialization" and "Community Adjustment"
(**Yuan et al. 2023**), reworked so that nothing costs more than O(n + |E|) per step:

1. *Random groups* (public randomness, independent of G): the nodes are split uniformly
   at random into ``g = ceil(n / group_size)`` groups.
2. *Noisy super-graph* (``share * epsilon``): every unordered pair of groups {a, b}
   (a = b included) has an edge count (arcs for a directed graph); each count gets
   discrete Laplace noise of scale ``1 / (share * epsilon)`` and is kept when the noisy
   value reaches a public threshold ``theta >= 1`` (filtered randomized response over
   block pairs, :mod:`privcut.graph.filtered`, Cormode et al. 2012): the kept zero-count
   pairs are drawn without visiting the g^2 / 2 pairs one by one. With ``theta = 1`` this
   keeps exactly the information of the counts clipped at 0.
3. *Louvain* (**Blondel et al. 2008**) on the kept weighted super-graph merges the groups
   into K communities: post-processing.
4. *Edge count* (``count_share * epsilon``): the number of edges plus discrete Laplace
   noise, for the public size penalty of step 5.
5. *Adjustment* (the rest of epsilon): ``rounds`` passes; each pass splits the nodes
   uniformly at random into ``batches`` batches, and every node of a batch draws, all at
   once, a community among the K by the exponential mechanism with the monotone score
   "neighbours in the community" minus a public size penalty (:func:`adjust`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.exceptions import GraphInputError
from privcut.graph.filtered import (
    pair_ends,
    pair_indices,
    survival_probability,
    uniform_non_edges,
)
from privcut.graph.universe import EdgeUniverse, check_zero_one
from privcut.privacy import Noise, check_epsilon, exact_split
from privcut.privacy.noise import geometric
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_scalar
from privcut.records import Record, Spend

__all__ = [
    "CommunityMechanism",
    "PrivateCommunities",
    "SweepMechanism",
    "private_communities",
    "sweep_communities",
]

GROUPS = 128
"""The default number of random groups: ``group_size`` defaults to ``max(20, ceil(n /
GROUPS))`` (PrivGraph's 20 on small graphs). Random groups mix the communities, so more
groups add little signal to the super-graph but cost Louvain time (measured in
``benchmarks/communities.py``: 128 groups were as accurate as 356-1135 and 5-10 times
faster on wiki-vote and gnutella)."""

SUPER_GRAPH_SIZE = 8
"""Kept block pairs expected from the zero-count pairs alone, per node: the threshold of
step 2 is the smallest ``theta >= 1`` with ``pairs * P(Z >= theta) <= SUPER_GRAPH_SIZE * n``
(public values only), which bounds the super-graph Louvain sees to O(n + |E|) edges."""


CHUNK = 2**20
"""The adjacency entries :func:`sweep` gathers (its rows in the sweep's order) at a time,
about 12 MiB with their cells: no copy of a large graph's whole adjacency (240 MiB at
10^7 edges), 1.7 times faster at 10^6 nodes; one gather below this many entries
(benchmarks/RESULTS.md, "Issue 18: the release at scale, generation side")."""


@dataclass(frozen=True, eq=False)  # an array field: compare releases field by field
class PrivateCommunities(Record):
    """A privately released partition of the nodes (:func:`private_communities`).

    Attributes
    ----------
    labels : numpy.ndarray of int64
        The community of every node, ``0 .. communities - 1``, in the order of ``nodes``.
    nodes : tuple
        The node labels: canonical order for a NetworkX graph, the given public order for
        a sparse adjacency.
    communities : int
        The number of (non-empty) communities.
    epsilon : float
        The total privacy parameter: edge-level (epsilon, 0)-DP.
    spends : tuple of Spend
        One per private step: the super-graph counts, the adjustment's choices and the
        edge count of the size penalty.
    super_groups : int
        The number g of public random groups of the super-graph (a function of the node
        count and ``group_size``).

    Examples
    --------
    >>> import networkx as nx
    >>> found = private_communities(nx.path_graph(4), 1.0, group_size=2, rng=0)
    >>> found.nodes, found.labels.shape, [spend.name for spend in found.spends]
    ((0, 1, 2, 3), (4,), ['super-graph', 'adjustment', 'edge-count'])
    """

    labels: np.ndarray
    nodes: tuple
    communities: int
    epsilon: float
    spends: tuple
    super_groups: int

    def groups(self) -> dict[Hashable, int]:
        """The mapping node -> community (e.g. ``groups=`` of a later release).

        Examples
        --------
        >>> import networkx as nx
        >>> found = private_communities(nx.path_graph(3), 1.0, rng=0)
        >>> sorted(found.groups())
        [0, 1, 2]
        """
        return dict(zip(self.nodes, self.labels.tolist(), strict=True))


@dataclass(frozen=True)
class CommunityMechanism:
    """The steps of :func:`private_communities` with their parameters (checked on creation).

    The privacy-relevant choices are methods (:meth:`super_graph_noise`, :meth:`measure`,
    :meth:`node_epsilon`, :meth:`edge_count`), so that tests can build deliberately broken
    variants by subclassing. Use :func:`private_communities` for releases.

    Examples
    --------
    >>> CommunityMechanism(share=0.25, count_share=0.05, rounds=2).node_epsilon(2.0)
    0.35
    """

    group_size: int | None = None
    resolution: float = 1.0
    share: float = 0.2
    batches: int = 64
    rounds: int = 1
    balance: float = 1.0
    count_share: float = 0.05

    def __post_init__(self) -> None:
        if self.group_size is not None:
            check_scalar(self.group_size, "group_size", int, low=1)
        check_scalar(self.resolution, "resolution", low=0.0, closed="neither")
        check_scalar(self.share, "share", low=0.0, high=1.0, closed="neither")
        check_scalar(self.batches, "batches", int, low=1)
        check_scalar(self.rounds, "rounds", int, low=1)
        check_scalar(self.balance, "balance", low=0.0)
        check_scalar(self.count_share, "count_share", low=0.0, high=1.0, closed="neither")
        if self.share + self.count_share >= 1.0:
            raise ValueError(
                f"share + count_share = {self.share + self.count_share:g} leaves nothing for "
                "the adjustment; make their sum less than 1 (e.g. share=0.2, count_share=0.05)"
            )

    @property
    def adjustment_share(self) -> float:
        """The adjustment's fraction of epsilon: ``1 - share - count_share``."""
        return 1.0 - self.share - self.count_share

    def parts(self, epsilon: float) -> tuple[float, float, float]:
        """The super-graph's, the edge count's and the adjustment's epsilons: ``share``,
        ``count_share`` and ``adjustment_share`` of ``epsilon``, adding up to it exactly
        (:func:`~privcut.privacy.exact_split`; the adjustment takes the remainder).

        Examples
        --------
        >>> CommunityMechanism(share=0.25, count_share=0.25).parts(2.0)
        (0.5, 0.5, 1.0)
        """
        return exact_split(epsilon, (self.share, self.count_share, self.adjustment_share))

    def super_graph_noise(self, epsilon: float) -> Noise:
        """Step 2's noise: discrete Laplace for ``share * epsilon`` at sensitivity 1."""
        return Noise.for_laplace(self.parts(epsilon)[0], 1.0, integer=True)

    def node_epsilon(self, epsilon: float) -> float:
        """Step 5's epsilon per node choice: ``adjustment_share * epsilon / (2 rounds)`` (an
        edge flip changes the scores of two nodes, each choosing once per round), rounded
        down so that ``2 rounds`` choices never spend more than the adjustment's part."""
        part = Fraction(self.parts(epsilon)[2])
        node = float(part / (2 * self.rounds))
        return math.nextafter(node, 0.0) if 2 * self.rounds * Fraction(node) > part else node

    def measure(
        self,
        positions: np.ndarray,
        counts: np.ndarray,
        g: int,
        theta: int,
        noise: Noise,
        rng: np.random.Generator,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Step 2: the block pairs (sorted positions among the ``g (g + 1) / 2``, see
        :func:`block_counts`) whose count plus ``noise`` reaches ``theta``, and those noisy
        values (int64). ``positions`` and ``counts`` are the pairs with a positive count.

        Every pair's noisy value is its count plus an independent discrete Laplace draw;
        the zero-count pairs are not visited: each survives independently with the public
        probability ``p = P(Z >= theta)``, so their survivors are a uniform random set of
        Binomial(zero pairs, p) of them (:func:`~privcut.graph.filtered.uniform_non_edges`)
        and each survivor's value is ``theta`` plus a geometric draw (the discrete Laplace
        tail beyond ``theta >= 1``), exactly as in filtered randomized response. The
        binomial draw is NumPy's, whose distance from exact has no proof we know of (as
        there): not in any ``sampler_tv``.
        """
        values = counts + np.atleast_1d(noise.sample(counts.size, rng=rng))
        kept = values >= theta
        pairs = g * (g + 1) // 2
        p = survival_probability(1.0 / noise.scale, theta)
        k = int(rng.binomial(pairs - positions.size, p))
        survivors = uniform_non_edges(positions, pairs, k, g + 1, False, rng)
        extra = theta + np.atleast_1d(geometric(noise.scale, k, rng=rng))
        found = np.concatenate([positions[kept], survivors])
        order = np.argsort(found, kind="stable")
        return found[order], np.concatenate([values[kept], extra]).astype(np.int64)[order]

    def edge_count(self, edges: int, epsilon: float, rng: np.random.Generator) -> int:
        """Step 4: the number of edges plus discrete Laplace noise for ``count_share *
        epsilon`` (sensitivity 1), clipped at 0."""
        noise = Noise.for_laplace(self.parts(epsilon)[1], 1.0, integer=True)
        return max(int(noise.add(np.array([edges]), rng=rng)[0]), 0)

    def spends(self, epsilon: float) -> tuple[Spend, Spend, Spend]:
        """The three private steps' shares of the budget. The adjustment's ``epsilon`` is its
        whole share (``2 rounds`` choices at :meth:`node_epsilon` each, the most an edge
        flip touches); its ``noise`` is ``"exponential"`` (the exponential mechanism) and its
        ``scale`` the temperature ``1 / node_epsilon`` of the choice's logits.

        Examples
        --------
        >>> spends = CommunityMechanism(share=0.25, count_share=0.25).spends(2.0)
        >>> [(spend.name, spend.epsilon) for spend in spends]
        [('super-graph', 0.5), ('adjustment', 1.0), ('edge-count', 0.5)]
        """
        noise = self.super_graph_noise(epsilon)
        node = self.node_epsilon(epsilon)
        super_graph, counted, adjustment = self.parts(epsilon)
        count = Noise.for_laplace(counted, 1.0, integer=True)
        return (
            Spend("super-graph", self.share, super_graph, noise.kind, noise.scale, 1.0),
            Spend("adjustment", self.adjustment_share, adjustment, "exponential", 1 / node, 1.0),
            Spend("edge-count", self.count_share, counted, count.kind, count.scale, 1.0),
        )

    def release(
        self,
        G,
        epsilon: float,
        *,
        nodes: Sequence[Hashable] | None = None,
        directed: bool | None = None,
        rng: RandomState = None,
    ) -> PrivateCommunities:
        """Run the five steps on G (see :func:`private_communities`)."""
        epsilon = check_epsilon(epsilon)
        universe, adjacency = read_graph(G, "private_communities", nodes, directed)
        spends = self.spends(epsilon)
        n = universe.n
        generator = check_random_state(rng)
        size = self.group_size or max(20, math.ceil(n / GROUPS))
        groups = generator.permutation(n) // size
        g = math.ceil(n / size)
        positions, counts = block_counts(adjacency, groups, g, universe.directed)
        noise = self.super_graph_noise(epsilon)
        theta = super_graph_threshold(self.parts(epsilon)[0], g, n)
        kept, values = self.measure(positions, counts, g, theta, noise, generator)
        initial = louvain_labels(kept, values, g, self.resolution, generator)[groups]
        edges = adjacency.nnz if universe.directed else adjacency.nnz // 2
        noisy_edges = self.edge_count(edges, epsilon, generator)
        penalty = self.balance * 2.0 * noisy_edges / float(n) ** 2
        labels = adjust(
            adjacency,
            initial,
            self.node_epsilon(epsilon),
            generator,
            penalty=penalty,
            batches=self.batches,
            rounds=self.rounds,
            directed=universe.directed,
        )
        found, labels = np.unique(labels, return_inverse=True)
        return PrivateCommunities(
            labels.astype(np.int64), universe.nodes, int(found.size), epsilon, spends, g
        )


def read_graph(
    G, caller: str, nodes: Sequence[Hashable] | None, directed: bool | None
) -> tuple[EdgeUniverse, sp.csr_array]:
    """G's public node set and 0/1 adjacency for a community mechanism named ``caller``:
    a GraphInputError for a weighted, self-looped or empty graph (before any draw).

    Examples
    --------
    >>> universe, adjacency = read_graph(nx.path_graph(3), "sweep_communities", None, None)
    >>> universe.n, adjacency.nnz
    (3, 4)
    """
    universe, adjacency = EdgeUniverse.read(G, None, nodes=nodes, directed=directed)
    check_zero_one(adjacency, caller)
    if universe.n == 0:
        raise GraphInputError("G has no nodes; private communities need at least one node")
    return universe, adjacency


def super_graph_threshold(epsilon: float, g: int, n: int) -> int:
    """Step 2's public threshold: the smallest ``theta >= 1`` with ``pairs * P(Z >= theta)
    <= SUPER_GRAPH_SIZE * n`` for the ``pairs = g (g + 1) / 2`` block pairs.

    Examples
    --------
    >>> super_graph_threshold(0.2, 100, 2000), super_graph_threshold(0.2, 5000, 10**5)
    (1, 11)
    """
    pairs = g * (g + 1) // 2
    theta = 1
    while pairs * survival_probability(epsilon, theta) > SUPER_GRAPH_SIZE * n:
        theta += 1
    return theta


def block_counts(
    adjacency: sp.csr_array, groups: np.ndarray, g: int, directed: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The unordered group pairs {a, b} (a = b included) holding at least one edge (arc for
    a ``directed`` adjacency), as sorted positions of ``(min, max + 1)`` in the undirected
    pair order of ``g + 1`` nodes (:func:`~privcut.graph.filtered.pair_indices`; a
    bijection onto ``range(g (g + 1) / 2)``), and their edge counts. An edge flip moves
    exactly one count by 1. O(|E| log |E|) time, O(|E|) memory.

    Examples
    --------
    >>> A = sp.csr_array(nx.to_scipy_sparse_array(nx.path_graph(4)))
    >>> [x.tolist() for x in block_counts(A, np.array([0, 0, 1, 1]), 2, False)]
    [[0, 1, 2], [1, 1, 1]]
    """
    coo = adjacency.tocoo()
    keep = coo.data != 0 if directed else (coo.data != 0) & (coo.row < coo.col)
    first, second = groups[coo.row[keep]], groups[coo.col[keep]]
    low, high = np.minimum(first, second), np.maximum(first, second)
    positions = pair_indices(low, high + 1, g + 1, False)
    return np.unique(positions, return_counts=True)


def louvain_labels(
    positions: np.ndarray,
    values: np.ndarray,
    g: int,
    resolution: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Step 3: the Louvain community of each of ``g`` groups, given the kept block pairs
    (positions as in :func:`block_counts`) and their positive noisy counts as weights.
    Post-processing; the seed is drawn from ``rng``. O(g + kept pairs) memory, plus
    Louvain's time.

    Examples
    --------
    >>> louvain_labels(np.array([1]), np.array([5]), 3, 1.0, np.random.default_rng(0)).tolist()
    [0, 0, 1]
    """
    first, second = pair_ends(positions, g + 1, False)
    graph = nx.Graph()
    graph.add_nodes_from(range(g))
    graph.add_weighted_edges_from(
        zip(first.tolist(), (second - 1).tolist(), values.tolist(), strict=True)
    )
    seed = int(rng.integers(2**31))
    found = nx.community.louvain_communities(
        graph, weight="weight", resolution=resolution, seed=seed
    )
    of_group = np.empty(g, dtype=np.int64)
    for label, members in enumerate(sorted(found, key=min)):
        of_group[sorted(members)] = label
    return of_group


def adjust(
    adjacency: sp.csr_array,
    initial: np.ndarray,
    epsilon: float,
    rng: np.random.Generator,
    *,
    penalty: float = 0.0,
    batches: int = 64,
    rounds: int = 1,
    directed: bool = False,
) -> np.ndarray:
    """Step 5: ``rounds`` passes of batched exponential-mechanism choices.

    Each pass splits the nodes uniformly at random (fresh randomness) into ``batches``
    batches of sizes differing by at most one, and visits the batches in turn. Every node
    u of a batch draws a community ``a`` among ``0 .. K-1`` (K = ``initial.max() + 1``)
    with probability proportional to ``exp(epsilon * (s_u(a) - penalty * |a|))``, where
    ``s_u(a)`` is u's number of neighbours with label a (out- plus in-neighbours for a
    ``directed`` adjacency) and ``|a|`` the size of community a, both under the labels
    at the start of the batch; the batch's draws are independent given those labels and
    are applied together.

    Privacy: each draw is ``epsilon``-DP in u's adjacency row for the labels fixed. An
    edge flip adds or removes one neighbour of u, so it moves exactly one score
    ``s_u(a)`` by 1, all in the same direction (a monotone score of sensitivity 1), and
    the penalty is the same on both graphs: the exponential mechanism with weights
    ``exp(epsilon * score)`` (not ``epsilon / 2``) is then ``epsilon``-DP (McSherry &
    Talwar 2007, the monotone case: the changed weight moves by at most ``e^epsilon``
    and the normaliser in the same direction by at most as much).

    Sampling, in O(deg u) per node: write ``exp(epsilon s) = 1 + (exp(epsilon s) - 1)``,
    so the law is a mixture of the public base law ``w(a) = exp(-epsilon penalty |a|)``
    over all K labels (mass ``Z0``) and of the law ``w(a) (exp(epsilon s_u(a)) - 1)``
    over u's neighbours' labels only (zero elsewhere). A Gumbel-max race between the
    base (log mass ``log Z0``) and each neighbour label (log weight ``log w(a) + epsilon
    s + log(1 - exp(-epsilon s))``) picks the component exactly; a base win then draws
    from the base law by inverse CDF. Zero-score labels are thus never enumerated per
    node. Floating point: the race's draws are numpy's Gumbel draws, with the caveats
    of :func:`~privcut.privacy.exponential_mechanism`.

    Complexity: O(|E| log |E|) time per pass plus O(n + K) per batch (the sizes), O(n + |E| + K)
    memory; nothing n x n or n x K.

    Examples
    --------
    >>> A = sp.csr_array(nx.to_scipy_sparse_array(nx.disjoint_union(
    ...     nx.complete_graph(3), nx.complete_graph(3))))
    >>> adjust(A, np.array([0, 0, 0, 1, 1, 1]), 50.0, np.random.default_rng(0)).tolist()
    [0, 0, 0, 1, 1, 1]
    """
    labels = np.array(initial, dtype=np.int64)
    n, k = labels.size, int(labels.max()) + 1
    both = (adjacency + adjacency.T).tocsr() if directed else sp.csr_array(adjacency)
    for _ in range(rounds):
        for batch in np.array_split(rng.permutation(n), batches):
            if batch.size:
                sizes = np.bincount(labels, minlength=k)
                labels[batch] = choose(both, labels, batch, sizes, epsilon, penalty, rng)
    return labels


def choose(
    both: sp.csr_array,
    labels: np.ndarray,
    batch: np.ndarray,
    sizes: np.ndarray,
    epsilon: float,
    penalty: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """One batch of :func:`adjust`: the new label of every node of ``batch`` (see there).

    Examples
    --------
    >>> A = sp.csr_array(nx.to_scipy_sparse_array(nx.star_graph(3)))  # centre 0
    >>> labels = np.array([1, 0, 0, 1])
    >>> choose(A, labels, np.array([0]), np.array([2, 2]), 60.0, 0.0, np.random.default_rng(0))
    array([0])
    """
    k = sizes.size
    base = -epsilon * penalty * sizes.astype(float)
    top = base.max()
    cumulative = np.cumsum(np.exp(base - top))
    log_base_mass = top + math.log(cumulative[-1])
    rows = both[batch]
    owner = np.repeat(np.arange(batch.size, dtype=np.int64), np.diff(rows.indptr))
    codes, where = np.unique(owner * k + labels[rows.indices], return_inverse=True)
    scores = np.bincount(where, weights=rows.data)
    node, label = codes // k, codes % k
    logits = base[label] + epsilon * scores + np.log(-np.expm1(-epsilon * scores))
    keys = logits + rng.gumbel(size=codes.size)
    best = np.full(batch.size, -np.inf)
    np.maximum.at(best, node, keys)
    chosen = np.empty(batch.size, dtype=np.int64)
    winner = keys == best[node]
    chosen[node[winner]] = label[winner]
    from_base = log_base_mass + rng.gumbel(size=batch.size) >= best
    spots = rng.random(batch.size) * cumulative[-1]
    drawn = np.minimum(np.searchsorted(cumulative, spots, side="right"), k - 1)
    return np.where(from_base, drawn, chosen)


def private_communities(
    G,
    epsilon: float,
    *,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
    group_size: int | None = None,
    resolution: float = 1.0,
    share: float = 0.2,
    rng: RandomState = None,
    batches: int = 64,
    rounds: int = 1,
    balance: float = 1.0,
    count_share: float = 0.05,
) -> PrivateCommunities:
    """A partition of G's nodes into communities, edge-level epsilon-DP (PrivGraph's
    community phases, **Yuan et al. 2023**, batched and sparse; see the module docstring
    for the five steps).

    Privacy: (epsilon, 0)-DP under edge-level neighbours (same public node set, one vertex
    pair differs: unordered for an undirected graph, ordered for a directed one). Proof.
    Step 1, the Louvain seed and the batch splits are randomness independent of G.
    Step 2: a flip of the pair (x, y) changes the count of exactly one unordered group
    pair {group(x), group(y)} by 1, so the vector of all ``g (g + 1) / 2`` counts has l1
    sensitivity 1 and the noisy counts are ``share * epsilon``-DP (discrete Laplace
    mechanism, Ghosh, Roughgarden, Sundararajan 2009); keeping those at least the public
    ``theta`` is post-processing, and the shortcut for the zero-count pairs draws the same
    law (see :meth:`CommunityMechanism.measure`); step 3 is post-processing. Step 4 is
    the discrete Laplace mechanism at ``count_share * epsilon`` (sensitivity 1). Fix the
    outputs of steps 2-4 and the batch splits. Step 5 is a sequence of batches; given
    the labels before a batch (the transcript so far), its nodes' draws are independent,
    so the transcript's probability is the product over all ``n * rounds`` draws of each
    draw's conditional probability given the labels before its batch. A draw of node u
    depends on G only through u's adjacency row (the labels and sizes are transcript,
    the penalty is a function of step 4's output and n). A flip of (x, y) changes only
    rows x and y (for a directed graph, x's out-row and y's in-row, both in ``A + A^T``),
    so only the ``2 * rounds`` draws of x and y change their conditional law, each by a
    factor in ``[e^-e_c, e^e_c]`` with ``e_c = (1 - share - count_share) * epsilon / (2
    rounds)`` (:func:`adjust`: a monotone score of sensitivity 1). The transcript's
    likelihood ratio is the product of those factors: ``(1 - share - count_share) *
    epsilon``-DP (adaptive basic composition; the released labels are post-processing of
    the last labels). Basic composition with steps 2 and 4 gives epsilon. Batching does
    not change the count of affected draws, whether x and y share a batch or not. The
    floating-point caveats of the samplers are those of :class:`~privcut.privacy.Noise`
    and :func:`~privcut.privacy.exponential_mechanism`.

    The released labels (communities renumbered ``0 .. K-1`` in increasing order of step 3's
    labels), their count and the spends are functions of the noisy output and public
    inputs only.

    :func:`sweep_communities` recovers several times more (NMI against Louvain and planted
    partitions, ``benchmarks/communities.py``) at the same epsilon from epsilon 0.5 on.

    Complexity: O(rounds (|E| log |E| + batches (n + K)) + kept) time and O(n + |E| + kept)
    memory for K <= g communities and ``kept <= |E| + O(n)`` (expected) super-graph
    pairs, plus Louvain on the g-node super-graph (g <= 128 by default); nothing n x n,
    g x g or n x K.

    Parameters
    ----------
    G : networkx.Graph, networkx.DiGraph or square scipy.sparse adjacency
        The private graph, unweighted (0/1; NetworkX weights are ignored, a sparse G's
        stored nonzeros count 1).
    epsilon : float
        The total privacy parameter > 0.
    nodes, directed : optional
        A sparse G's public node labels (default ``range(n)``) and kind (default False);
        refused for a NetworkX graph (see :meth:`~privcut.graph.EdgeUniverse.of`).
    group_size : int, optional
        Nodes per random group of step 1; default ``max(20, ceil(n / GROUPS))`` with
        ``GROUPS = 128`` (PrivGraph's N1 = 20 up to 2,560 nodes, at most 128 groups above).
    resolution : float, default 1.0
        Louvain's resolution (> 0); larger gives more, smaller communities.
    share : float, default 0.2
        The fraction of epsilon spent on step 2's super-graph.
    rng : None, int or numpy.random.Generator
        ``None`` (secure randomness) for real releases; seeds are for tests.
    batches : int, default 64
        Batches per adjustment pass (public; more is closer to PrivGraph's one node at a
        time, fewer is faster).
    rounds : int, default 1
        Adjustment passes; the adjustment's share is split evenly between them.
    balance : float, default 1.0
        Weight (>= 0) of the size penalty ``balance * d * |a| / n`` of the adjustment, with
        ``d`` the noisy average degree of step 4: against one giant community.
    count_share : float, default 0.05
        The fraction of epsilon spent on step 4's edge count. ``share + count_share`` must
        be below 1; the rest goes to the adjustment.

    Returns
    -------
    PrivateCommunities

    Raises
    ------
    PrivacyParameterError, GraphInputError, TypeError, ValueError
        For a bad epsilon or parameter, or a bad graph (no nodes, self-loops, an
        asymmetric undirected adjacency, ...): before any random draw.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.disjoint_union(nx.complete_graph(10), nx.complete_graph(10))
    >>> found = private_communities(G, 8.0, group_size=5, rng=1)
    >>> found.labels.shape, 1 <= found.communities <= 4
    ((20,), True)
    >>> sum(spend.epsilon for spend in found.spends)
    8.0
    """
    mechanism = CommunityMechanism(
        group_size=group_size,
        resolution=resolution,
        share=share,
        batches=batches,
        rounds=rounds,
        balance=balance,
        count_share=count_share,
    )
    return mechanism.release(G, epsilon, nodes=nodes, directed=directed, rng=rng)


def sweep_labels(epsilon: float) -> int:
    """The default number of labels of :func:`sweep_communities`: ``round(6 epsilon)``
    clipped to ``[2, 16]`` (a public function of epsilon). Few labels order at a small
    epsilon, many recover more at a large one (a choice with score differences ``s`` is
    close to uniform over K labels unless ``epsilon s`` is about ``log K`` or more); the
    constants are measured in ``benchmarks/communities.py`` (benchmarks/RESULTS.md,
    "Issue 18: community detection, third round": 2-3 labels best at epsilon 0.2-0.5,
    4-8 at 1, 8-16 at 2).

    Examples
    --------
    >>> [sweep_labels(epsilon) for epsilon in (0.1, 0.5, 1.0, 2.0, 8.0)]
    [2, 3, 6, 12, 16]
    """
    return min(16, max(2, math.floor(6.0 * epsilon + 0.5)))


@dataclass(frozen=True)
class SweepMechanism:
    """The steps of :func:`sweep_communities` with their parameters (checked on creation).

    The privacy-relevant choices are methods (:meth:`parts`, :meth:`noisy_degrees`,
    :meth:`edge_count`, :meth:`sweep_epsilon`), so that tests can build deliberately broken
    variants by subclassing. Use :func:`sweep_communities` for releases.

    Examples
    --------
    >>> SweepMechanism(degree_share=0.25, count_share=0.25).parts(2.0)
    (0.5, 0.5, 1.0)
    """

    labels: int | None = None
    batches: int = 512
    degree_share: float = 0.1
    count_share: float = 0.05
    balance: float = 1.0

    def __post_init__(self) -> None:
        if self.labels is not None:
            check_scalar(self.labels, "labels", int, low=1)
        check_scalar(self.batches, "batches", int, low=1)
        check_scalar(self.degree_share, "degree_share", low=0.0, high=1.0, closed="neither")
        check_scalar(self.count_share, "count_share", low=0.0, high=1.0, closed="neither")
        check_scalar(self.balance, "balance", low=0.0, high=1000.0)
        if self.degree_share + self.count_share >= 1.0:
            raise ValueError(
                f"degree_share + count_share = {self.degree_share + self.count_share:g} leaves "
                "nothing for the sweep; make their sum less than 1 (e.g. degree_share=0.1, "
                "count_share=0.05)"
            )

    def parts(self, epsilon: float) -> tuple[float, float, float]:
        """The noisy degrees', the edge count's and the sweep's epsilons, adding up to
        ``epsilon`` exactly (:func:`~privcut.privacy.exact_split`)."""
        rest = 1.0 - self.degree_share - self.count_share
        return exact_split(epsilon, (self.degree_share, self.count_share, rest))

    def sweep_epsilon(self, epsilon: float) -> float:
        """The epsilon of every label choice of the sweep: the sweep's whole part (an edge
        flip changes the law of one choice only, see :func:`sweep`)."""
        return self.parts(epsilon)[2]

    def degree_noise(self, epsilon: float) -> Noise:
        """Step 1's noise: discrete Laplace for ``degree_share * epsilon`` at l1 sensitivity
        2 (a flip moves two degrees by 1)."""
        return Noise.for_laplace(self.parts(epsilon)[0], 2.0, integer=True)

    def noisy_degrees(
        self, degrees: np.ndarray, epsilon: float, rng: np.random.Generator
    ) -> np.ndarray:
        """Step 1: every node's degree plus discrete Laplace noise (int64, not clipped)."""
        noise = self.degree_noise(epsilon)
        return degrees.astype(np.int64) + np.atleast_1d(noise.sample(degrees.size, rng=rng))

    def edge_count(self, edges: int, epsilon: float, rng: np.random.Generator) -> int:
        """Step 2: the number of edges (arcs) plus discrete Laplace noise for ``count_share *
        epsilon`` (sensitivity 1), at least 1."""
        noise = Noise.for_laplace(self.parts(epsilon)[1], 1.0, integer=True)
        return max(int(noise.add(np.array([edges]), rng=rng)[0]), 1)

    def spends(self, epsilon: float) -> tuple[Spend, Spend, Spend]:
        """The three private steps' spends; the sweep's ``noise`` is ``"exponential"`` and
        its ``scale`` the temperature ``1 / sweep_epsilon``.

        Examples
        --------
        >>> spends = SweepMechanism(degree_share=0.25, count_share=0.25).spends(2.0)
        >>> [(spend.name, spend.epsilon) for spend in spends]
        [('degrees', 0.5), ('sweep', 1.0), ('edge-count', 0.5)]
        """
        degrees, counted, swept = self.parts(epsilon)
        rest = 1.0 - self.degree_share - self.count_share
        noise = self.degree_noise(epsilon)
        count = Noise.for_laplace(counted, 1.0, integer=True)
        return (
            Spend("degrees", self.degree_share, degrees, noise.kind, noise.scale, 2.0),
            Spend("sweep", rest, swept, "exponential", 1 / self.sweep_epsilon(epsilon), 1.0),
            Spend("edge-count", self.count_share, counted, count.kind, count.scale, 1.0),
        )

    def release(
        self,
        G,
        epsilon: float,
        *,
        nodes: Sequence[Hashable] | None = None,
        directed: bool | None = None,
        rng: RandomState = None,
        noisy_edges: int | None = None,
    ) -> PrivateCommunities:
        """Run the four steps on G (see :func:`sweep_communities`; ``noisy_edges``, step
        2's output when the caller drew it already with :meth:`edge_count` at this
        epsilon)."""
        epsilon = check_epsilon(epsilon)
        if noisy_edges is not None:
            check_scalar(noisy_edges, "noisy_edges", int, low=1)
        universe, adjacency = read_graph(G, "sweep_communities", nodes, directed)
        spends = self.spends(epsilon)
        generator = check_random_state(rng)
        if self.labels is not None and self.labels > universe.n:
            raise ValueError(
                f"labels = {self.labels} is more than the graph's {universe.n} nodes; give "
                f"at most {universe.n} (or None for sweep_labels(epsilon))"
            )
        both = sp.csr_array(adjacency + adjacency.T if universe.directed else adjacency)
        degrees = np.rint(np.asarray(both.sum(axis=1)).ravel())  # integer entries: exact
        noisy = self.noisy_degrees(degrees, epsilon, generator)
        edges = adjacency.nnz if universe.directed else adjacency.nnz // 2
        if noisy_edges is None:
            noisy_edges = self.edge_count(edges, epsilon, generator)
        ties = generator.permutation(universe.n)
        order = np.lexsort((ties, -noisy))
        labels = sweep(
            both,
            order,
            sweep_labels(epsilon) if self.labels is None else self.labels,
            self.sweep_epsilon(epsilon),
            generator,
            weights=np.maximum(noisy, 0).astype(float),
            total=2.0 * noisy_edges,
            balance=self.balance,
            batches=min(self.batches, universe.n),  # more: empty batches, the same law
        )
        found, labels = np.unique(labels, return_inverse=True)
        return PrivateCommunities(
            labels.astype(np.int64), universe.nodes, int(found.size), epsilon, spends, 0
        )


def sweep(
    both: sp.csr_array,
    order: np.ndarray,
    k: int,
    epsilon: float,
    rng: np.random.Generator,
    *,
    weights: np.ndarray,
    total: float,
    balance: float = 1.0,
    batches: int = 512,
) -> np.ndarray:
    """One sweep of exponential-mechanism label choices from no labels at all.

    Every node starts unlabelled. The nodes, in the public ``order`` cut into ``batches``
    consecutive batches (sizes differing by at most one), choose a label among ``0 .. k-1``
    batch by batch: node u draws ``a`` with probability proportional to ``exp(epsilon *
    (s_u(a) - balance * w_u * W(a) / total))``, where ``s_u(a)`` is the number of u's
    *already labelled* neighbours (earlier batches) with label a (summed weights of
    ``both``), ``w_u`` u's public weight (a noisy degree) and ``W(a)`` the summed weights of
    the nodes labelled a so far: a modularity-like penalty (the expected ``s_u(a)`` of a
    random graph with those degrees, **Newman 2006**). A batch's draws are independent given
    the labels before it and applied together.

    Privacy: ``epsilon``-DP in the graph given ``order``, ``weights`` and ``total`` (public
    or released before). A flip of the pair (x, y) changes ``both[x, y]`` and ``both[y,
    x]`` by 1. If x's batch comes before y's, x's draw does not depend on the pair (y is
    unlabelled then, so it enters none of x's scores) and y's draw has one score ``s_y(a)``
    moved by 1, a monotone score of sensitivity 1: its conditional law moves by a factor in
    ``[e^-epsilon, e^epsilon]`` (the exponential mechanism with weights ``exp(epsilon *
    score)``, McSherry & Talwar 2007, the monotone case); symmetrically the other way
    round; in the same batch neither draw depends on it. The transcript's probability is
    the product of the draws' conditional probabilities given the earlier batches, so its
    likelihood ratio is that one factor: epsilon-DP (one choice per node, and each edge
    enters the choice of its later end only; a second sweep from labels would charge both
    ends).

    Complexity: O(|E| log |E| + n k) time (the draws are an O(batch k) Gumbel race per
    batch), O(n + k) memory besides ``both``, plus O(k n / batches) for a batch's scores and
    O(:data:`CHUNK` + the largest batch's entries) for the rows gathered.

    Examples
    --------
    >>> A = sp.csr_array(nx.to_scipy_sparse_array(nx.disjoint_union(
    ...     nx.complete_graph(4), nx.complete_graph(4))))
    >>> labels = sweep(A, np.array([0, 4, 1, 5, 2, 6, 3, 7]), 2, 30.0,
    ...     np.random.default_rng(0), weights=np.full(8, 3.0), total=24.0, batches=8)
    >>> len(set(labels[:4].tolist())), len(set(labels[4:].tolist()))
    (1, 1)
    """
    n = both.shape[0]
    labels = np.full(n, -1, dtype=np.int64)
    mass = np.zeros(k)
    scale = balance / total if total > 0 else 0.0
    size = order.size
    width = k + 1  # a row's scores after a first cell for its unlabelled neighbours, dropped
    weighed = weights[order]
    low, extra = divmod(size, batches)  # np.array_split's batches: the first `extra` one longer
    bounds = np.concatenate(([0], np.cumsum(np.where(np.arange(batches) < extra, low + 1, low))))
    # the rows in order gathered a chunk of batches at a time (the batches starting in one
    # CHUNK of entries): each batch's rows are then a slice of its chunk's, and no copy of
    # the whole adjacency is made (one chunk below CHUNK entries)
    entries = np.concatenate(([0], np.cumsum(np.diff(both.indptr)[order])))[bounds]
    chunk = entries[:-1] // CHUNK
    closing = bounds[np.searchsorted(chunk, chunk, side="right")]
    offset = until = 0  # the rows of the chunk gathered (none yet)
    spans = zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)
    for batch, (start, stop) in enumerate(spans):
        if stop == start:
            continue
        if stop > until:
            offset, until = start, int(closing[batch])
            ordered = both[order[offset:until]]
            indptr, indices, data = ordered.indptr, ordered.indices, ordered.data
            cells = np.repeat(
                np.arange(until - offset, dtype=np.int64) * width + 1, np.diff(indptr)
            )
        first, last = indptr[start - offset], indptr[stop - offset]
        cell = labels[indices[first:last]]  # -1: unlabelled, into the row's first cell
        cell += cells[first:last]
        cell -= (start - offset) * width
        scores = np.bincount(cell, weights=data[first:last], minlength=(stop - start) * width)
        scores = scores.reshape(stop - start, width)[:, 1:]
        logits = epsilon * (scores - scale * np.outer(weighed[start:stop], mass))
        logits -= logits.max(axis=1, keepdims=True)  # the same law, rounding near 0
        chosen = np.argmax(logits + rng.gumbel(size=logits.shape), axis=1)
        labels[order[start:stop]] = chosen
        mass += np.bincount(chosen, weights=weighed[start:stop], minlength=k)
    return labels


def sweep_communities(
    G,
    epsilon: float,
    *,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
    labels: int | None = None,
    batches: int = 512,
    degree_share: float = 0.1,
    count_share: float = 0.05,
    balance: float = 1.0,
    rng: RandomState = None,
    noisy_edges: int | None = None,
) -> PrivateCommunities:
    """A partition of G's nodes into at most ``labels`` communities, edge-level epsilon-DP:
    one sweep of exponential-mechanism label choices from no labels, nodes in decreasing
    noisy degree (issue 18, third round; several times :func:`private_communities`' NMI
    in ``benchmarks/communities.py``).

    1. *Noisy degrees* (``degree_share * epsilon``): every node's degree (``A + A^T`` row
       sums for a directed graph) plus discrete Laplace noise of scale ``2 / (degree_share
       * epsilon)``.
    2. *Edge count* (``count_share * epsilon``): the number of edges (arcs) plus discrete
       Laplace noise, at least 1.
    3. *Order* (post-processing): the nodes by decreasing noisy degree, ties broken by a
       uniformly random permutation.
    4. *Sweep* (the rest): :func:`sweep` in that order, each node choosing once among
       ``labels`` labels by the exponential mechanism, with the score "already labelled
       neighbours in the community" minus a modularity-like penalty (noisy degrees,
       noisy edge count).

    Privacy: (epsilon, 0)-DP under edge-level neighbours (same public node set, one vertex
    pair differs: unordered for an undirected graph, ordered for a directed one). Proof.
    Step 1: a flip of (x, y) moves the degrees of x and y by 1 each (also in ``A + A^T``
    for a directed graph), an l1 sensitivity of 2: the discrete Laplace mechanism
    (Ghosh, Roughgarden, Sundararajan 2009) at ``degree_share * epsilon``. Step 2: the
    discrete Laplace mechanism at sensitivity 1 and ``count_share * epsilon``. Step 3 is
    post-processing of step 1 and public randomness. Step 4, given steps 1-3's outputs, is
    ``(1 - degree_share - count_share) * epsilon``-DP (:func:`sweep`: each pair enters
    the choice of its later end only, one exponential-mechanism draw with a monotone score
    of sensitivity 1, McSherry & Talwar 2007). Adaptive basic composition (Dwork & Roth
    2014, Thm 3.16) gives epsilon; the released labels (renumbered ``0 .. K-1`` by
    increasing sweep label) are post-processing. The floating-point caveats of the
    samplers are those of :class:`~privcut.privacy.Noise` and
    :func:`~privcut.privacy.exponential_mechanism`: the choices are float Gumbel-max races
    on logits shifted so that each row's largest is 0, and NumPy's Gumbel draws lie in
    about [-3.6, 36.7], so a label trailing the best by more than about 40 in ``epsilon *
    score`` is never chosen (an additive delta of about 3e-18 per such choice); the
    release's ``sampler_tv`` counts the discrete Laplace draws only.

    The record's ``super_groups`` is 0 (no random groups); its spends are ``"degrees"``,
    ``"sweep"`` and ``"edge-count"``.

    Complexity: O(|E| log |E| + n (labels + log n)) time, O(n + |E| + labels n / batches)
    memory; nothing n x n or n x labels.

    Parameters
    ----------
    G : networkx.Graph, networkx.DiGraph or square scipy.sparse adjacency
        The private graph, unweighted (0/1; NetworkX weights are ignored, a sparse G's
        stored nonzeros count 1).
    epsilon : float
        The total privacy parameter > 0.
    nodes, directed : optional
        A sparse G's public node labels (default ``range(n)``) and kind (default False);
        refused for a NetworkX graph (see :meth:`~privcut.graph.EdgeUniverse.of`).
    labels : int, optional
        The number of labels to choose from (the most communities released), at most the
        number of nodes; default :func:`sweep_labels` of epsilon (2 up to epsilon 0.25, 6
        at 1, 16 from 2.6 on).
    batches : int, default 512
        Batches of the sweep (public): more is closer to one node at a time (a node sees
        the labels of the earlier batches only), fewer is faster; more than the number of
        nodes runs as one node per batch.
    degree_share, count_share : float, default 0.1 and 0.05
        The fractions of epsilon spent on the noisy degrees and the edge count; their sum
        must be below 1, the rest goes to the sweep.
    balance : float, default 1.0
        Weight (in [0, 1000]) of the modularity-like penalty against one giant community.
    rng : None, int or numpy.random.Generator
        ``None`` (secure randomness) for real releases; seeds are for tests.
    noisy_edges : int, optional
        Step 2's output when it was already drawn, with exactly step 2's law
        (``SweepMechanism(...).edge_count(edges, epsilon, rng)`` at this epsilon and these
        shares), e.g. by ``measurements="auto"``'s decision to buy communities
        (:func:`~privcut.graph.private_groups.decide_groups`, which reads it first): the
        step is then not drawn again, and its spend ``"edge-count"`` stays in the record
        (it is that count's; the privacy claim is unchanged, the order of the steps does
        not matter to composition). Default None: drawn here.

    Returns
    -------
    PrivateCommunities

    Raises
    ------
    PrivacyParameterError, GraphInputError, TypeError, ValueError
        For a bad epsilon or parameter, or a bad graph (no nodes, self-loops, an
        asymmetric undirected adjacency, ...): before any random draw.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.disjoint_union(nx.complete_graph(10), nx.complete_graph(10))
    >>> found = sweep_communities(G, 8.0, labels=4, rng=1)
    >>> found.labels.shape, 1 <= found.communities <= 4
    ((20,), True)
    >>> [spend.name for spend in found.spends], sum(spend.epsilon for spend in found.spends)
    (['degrees', 'sweep', 'edge-count'], 8.0)
    """
    mechanism = SweepMechanism(
        labels=labels,
        batches=batches,
        degree_share=degree_share,
        count_share=count_share,
        balance=balance,
    )
    return mechanism.release(
        G, epsilon, nodes=nodes, directed=directed, rng=rng, noisy_edges=noisy_edges
    )
