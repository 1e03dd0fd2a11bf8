"""Private communities: PrivGraph's community phases (Yuan et al. 2023) as one mechanism.

A partition of the nodes released under edge-level differential privacy, in four steps:

1. *Random groups* (public randomness, independent of G): the nodes are split uniformly
   at random into ``ceil(n / group_size)`` groups.
2. *Noisy super-graph* (``share * epsilon``): the number of edges of every block pair of
   those groups (:meth:`~privcut.graph.partition.Partition.block_sums`) gets discrete
   Laplace noise of scale ``1 / (share * epsilon)``, clipped at 0. One vertex pair lies in
   exactly one block pair, so an edge flip moves one count by 1: l1 sensitivity 1, and the
   counts are ``share * epsilon``-DP (discrete Laplace mechanism, Ghosh, Roughgarden,
   Sundararajan 2009).
3. *Louvain* (**Blondel et al. 2008**) on the noisy super-graph merges the groups into K
   communities: post-processing of step 2's output and public randomness.
4. *Adjustment* (``(1 - share) * epsilon``): one pass over the nodes in a uniformly random
   order; each node in turn picks a community among the K of step 3 by the exponential
   mechanism (McSherry & Talwar 2007) with score its number of edges into each under the
   current labels (those of step 3, updated by the choices already made).

The steps follow PrivGraph's "Community Initialization" and "Community Adjustment"
(**Yuan et al. 2023**), with integer noise and the super-graph counts clipped at 0.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.exceptions import GraphInputError
from privcut.graph.partition import Partition
from privcut.graph.universe import EdgeUniverse, check_zero_one
from privcut.privacy import Noise, check_epsilon, exponential_mechanism
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_scalar
from privcut.records import Record, Spend

__all__ = ["CommunityMechanism", "PrivateCommunities", "private_communities"]


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
        One per private step: the super-graph counts and the adjustment's choices.

    Examples
    --------
    >>> import networkx as nx
    >>> found = private_communities(nx.path_graph(4), 1.0, group_size=2, rng=0)
    >>> found.nodes, found.labels.shape, [spend.name for spend in found.spends]
    ((0, 1, 2, 3), (4,), ['super-graph', 'adjustment'])
    """

    labels: np.ndarray
    nodes: tuple
    communities: int
    epsilon: float
    spends: tuple

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

    The privacy-relevant choices are methods (:meth:`super_graph_noise`,
    :meth:`node_epsilon`, :meth:`measure`), so that tests can build deliberately broken
    variants by subclassing. Use :func:`private_communities` for releases.

    Examples
    --------
    >>> CommunityMechanism(share=0.25).node_epsilon(2.0)
    0.75
    """

    group_size: int = 20
    resolution: float = 1.0
    share: float = 0.5

    def __post_init__(self) -> None:
        check_scalar(self.group_size, "group_size", int, low=1)
        check_scalar(self.resolution, "resolution", low=0.0, closed="neither")
        check_scalar(self.share, "share", low=0.0, high=1.0, closed="neither")

    def super_graph_noise(self, epsilon: float) -> Noise:
        """Step 2's noise: discrete Laplace for ``share * epsilon`` at sensitivity 1."""
        return Noise.for_laplace(self.share * epsilon, 1.0, integer=True)

    def node_epsilon(self, epsilon: float) -> float:
        """Step 4's epsilon per node choice: ``(1 - share) * epsilon / 2`` (an edge flip
        changes the scores of two nodes; basic composition over those two choices)."""
        return (1.0 - self.share) * epsilon / 2.0

    def measure(self, partition: Partition, adjacency: sp.csr_array, noise: Noise, rng):
        """Step 2: every block pair's edge count plus ``noise``, clipped at 0 (int64)."""
        counts = np.rint(partition.block_sums(adjacency)).astype(np.int64)
        return np.maximum(noise.add(counts, rng=rng), 0)

    def spends(self, epsilon: float) -> tuple[Spend, Spend]:
        """The two private steps' shares of the budget. The adjustment's ``epsilon`` is its
        whole share (two choices at :meth:`node_epsilon` each, the most an edge flip
        touches); its ``noise`` is ``"exponential"`` (the exponential mechanism) and its
        ``scale`` the temperature ``2 sensitivity / node_epsilon`` of the choice's logits.

        Examples
        --------
        >>> [spend.epsilon for spend in CommunityMechanism(share=0.25).spends(2.0)]
        [0.5, 1.5]
        """
        noise = self.super_graph_noise(epsilon)
        node = self.node_epsilon(epsilon)
        return (
            Spend("super-graph", self.share, self.share * epsilon, noise.kind, noise.scale, 1.0),
            Spend("adjustment", 1.0 - self.share, 2.0 * node, "exponential", 2.0 / node, 1.0),
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
        """Run the four steps on G (see :func:`private_communities`)."""
        epsilon = check_epsilon(epsilon)
        universe, adjacency = EdgeUniverse.read(G, None, nodes=nodes, directed=directed)
        check_zero_one(adjacency, "private_communities")
        if universe.n == 0:
            raise GraphInputError("G has no nodes; private communities need at least one node")
        spends = self.spends(epsilon)
        generator = check_random_state(rng)
        groups = generator.permutation(universe.n) // self.group_size
        k = math.ceil(universe.n / self.group_size)
        partition = Partition(groups, tuple(range(k)), universe.directed)
        counts = self.measure(partition, adjacency, self.super_graph_noise(epsilon), generator)
        initial = louvain_labels(partition, counts, self.resolution, generator)[groups]
        node_epsilon = self.node_epsilon(epsilon)
        labels = adjust(adjacency, initial, node_epsilon, generator, directed=universe.directed)
        found, labels = np.unique(labels, return_inverse=True)
        return PrivateCommunities(
            labels.astype(np.int64), universe.nodes, int(found.size), epsilon, spends
        )


def louvain_labels(
    partition: Partition, counts: np.ndarray, resolution: float, rng: np.random.Generator
) -> np.ndarray:
    """Step 3: the Louvain community of every group of ``partition``, given the (noisy,
    non-negative) edge count of every block pair. A directed partition's ordered block
    pairs (a, b) and (b, a) add up to one undirected weight. Post-processing; the seed is
    drawn from ``rng``. O(g^2) for g groups (plus Louvain's time on g nodes).

    Examples
    --------
    >>> partition = Partition(np.array([0, 1, 2]), (0, 1, 2), False)
    >>> counts = np.array([0, 5, 0, 0, 0, 0])  # blocks (0,0) (0,1) (0,2) (1,1) (1,2) (2,2)
    >>> louvain_labels(partition, counts, 1.0, np.random.default_rng(0)).tolist()
    [0, 0, 1]
    """
    first, second = partition.blocks
    if partition.directed:
        first, second = np.minimum(first, second), np.maximum(first, second)
    shape = (partition.g, partition.g)
    weights = sp.coo_array((np.asarray(counts, dtype=np.int64), (first, second)), shape=shape)
    weights = weights.tocsr().tocoo()  # duplicates (a directed pair's two orders) summed
    positive = weights.data > 0
    rows, columns = weights.row[positive], weights.col[positive]
    graph = nx.Graph()
    graph.add_nodes_from(range(partition.g))
    graph.add_weighted_edges_from(
        zip(rows.tolist(), columns.tolist(), weights.data[positive].tolist(), strict=True)
    )
    seed = int(rng.integers(2**31))
    found = nx.community.louvain_communities(
        graph, weight="weight", resolution=resolution, seed=seed
    )
    of_group = np.empty(partition.g, dtype=np.int64)
    for label, members in enumerate(sorted(found, key=min)):
        of_group[sorted(members)] = label
    return of_group


def adjust(
    adjacency: sp.csr_array,
    initial: np.ndarray,
    epsilon: float,
    rng: np.random.Generator,
    *,
    directed: bool = False,
) -> np.ndarray:
    """Step 4: one pass over the nodes in a uniformly random order (fresh randomness); each
    node in turn draws a community among ``0 .. K-1`` (K = ``initial.max() + 1``) by the
    exponential mechanism at ``epsilon`` (sensitivity 1), with score its number of
    neighbours in each community under the current labels (``initial``, updated by the
    choices already made; for a ``directed`` adjacency, out- plus in-neighbours).
    O(n K + |E|) time, O(n + |E|) memory.

    Examples
    --------
    >>> A = sp.csr_array(nx.to_scipy_sparse_array(nx.disjoint_union(
    ...     nx.complete_graph(3), nx.complete_graph(3))))
    >>> adjust(A, np.array([0, 0, 0, 1, 1, 1]), 50.0, np.random.default_rng(0)).tolist()
    [0, 0, 0, 1, 1, 1]
    """
    labels = np.array(initial, dtype=np.int64)
    k = int(labels.max()) + 1
    both = (adjacency + adjacency.T).tocsr() if directed else sp.csr_array(adjacency)
    indptr, indices, weights = both.indptr, both.indices, both.data
    for node in rng.permutation(labels.size):
        span = slice(indptr[node], indptr[node + 1])
        scores = np.bincount(labels[indices[span]], weights[span], minlength=k)
        labels[node] = exponential_mechanism(scores, epsilon, 1.0, rng=rng)
    return labels


def private_communities(
    G,
    epsilon: float,
    *,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
    group_size: int = 20,
    resolution: float = 1.0,
    share: float = 0.5,
    rng: RandomState = None,
) -> PrivateCommunities:
    """A partition of G's nodes into communities, edge-level epsilon-DP (PrivGraph's
    community phases, **Yuan et al. 2023**; see the module docstring for the steps).

    Privacy: (epsilon, 0)-DP under edge-level neighbours (same public node set, one vertex
    pair differs: unordered for an undirected graph, ordered for a directed one). Proof.
    Step 1 and the Louvain seed are randomness independent of G. Step 2 is the discrete
    Laplace mechanism at ``share * epsilon`` (one pair is in one block pair: sensitivity 1;
    Ghosh, Roughgarden, Sundararajan 2009); step 3 is post-processing of it. Fix step 2's
    output, hence step 3's labels, and the visiting order. Step 4 is n mechanisms run in
    turn: node u's draws its community by the exponential mechanism from scores
    ``s_u(a) = #{neighbours w of u with current label a}`` (out- plus in-neighbours when
    directed), a function of u's own adjacency row and of the choices already made (the
    transcript so far). Fix that transcript: a flip of the pair (x, y) changes only rows
    x and y, so every other node's scores, hence its choice's conditional distribution,
    are the same under G and G'; x's and y's scores move by at most 1 each (sensitivity
    1), and their choices are exponential mechanisms at ``(1 - share) * epsilon / 2``, each
    that DP (McSherry & Talwar 2007). The transcript's probability is the product of the
    choices' conditional probabilities, so its ratio between G and G' is the product of
    the two changed factors: ``(1 - share) * epsilon``-DP (adaptive basic composition of the
    two affected choices; the released labels are post-processing of the transcript).
    Adaptive basic composition with step 2 gives
    ``share * epsilon + (1 - share) * epsilon = epsilon``. (Only one score of each end
    moves, and in one direction, so each choice is in fact ``(1 - share) * epsilon / 4``-DP
    in the exponential mechanism's usual bound; the stated claim does not use this
    slack.) The floating-point caveats of the samplers are those of
    :class:`~privcut.privacy.Noise` and :func:`~privcut.privacy.exponential_mechanism`.

    The released labels (communities renumbered ``0 .. K-1`` in increasing order of step 3's
    labels), their count and the spends are functions of the noisy output and public
    inputs only.

    Complexity: O(n K + |E| + g^2) time and memory for g = ceil(n / group_size) groups and
    K communities, plus Louvain on the g-node super-graph and one exponential-mechanism
    call per node; nothing n x n. Raise ``group_size`` for very large n.

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
    group_size : int, default 20
        Nodes per random group of step 1 (PrivGraph's N1 = 20).
    resolution : float, default 1.0
        Louvain's resolution (> 0); larger gives more, smaller communities.
    share : float, default 0.5
        The fraction of epsilon spent on step 2 (strictly between 0 and 1); the rest goes
        to step 4.
    rng : None, int or numpy.random.Generator
        ``None`` (secure randomness) for real releases; seeds are for tests.

    Returns
    -------
    PrivateCommunities

    Raises
    ------
    PrivacyParameterError, GraphInputError, TypeError
        For a bad epsilon, share, group_size or resolution, or a bad graph (no nodes,
        self-loops, an asymmetric undirected adjacency, ...): before any random draw.

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
    mechanism = CommunityMechanism(group_size=group_size, resolution=resolution, share=share)
    return mechanism.release(G, epsilon, nodes=nodes, directed=directed, rng=rng)
