"""Measuring a release: cut errors against the private graph (non-private, for evaluation).

These functions read the private graph: use them to evaluate mechanisms on
test data, never to decide what to release. G and a release H are read each with its
own argument, in the NetworkX weight convention (None counts every edge 1, any weight
attribute ignored; an attribute name reads it, values in [0, 1]):

- ``weight`` (default None) reads G, as the release that made H did;
- ``release_weight`` (default ``"weight"``) reads a graph H. privcut's fractional
  releases (e.g. ``rounding=None``) store their weights in [0, 1] under ``"weight"``;
  a rounded release has no weight attribute, so every edge counts 1 either way. Pass
  ``release_weight=None`` for an H whose weight attribute is not a weight in [0, 1]
  (e.g. G itself, with interaction counts). A :class:`~privcut.graph.NoisyGraph` H is
  its noisy matrix whatever the argument.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np

from privcut.exceptions import GraphInputError
from privcut.graph.cutnorm import cut_norm
from privcut.graph.noisy import NoisyGraph
from privcut.graph.partition import Partition
from privcut.graph.universe import EdgeUniverse, check_graph
from privcut.graph.workloads import check_queries
from privcut.privacy import check_epsilon, discrete_laplace
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_scalar

__all__ = ["MaxCutError", "WorkloadClasses", "cut_errors", "max_cut_error", "random_cuts"]

Cut = tuple[Iterable[Hashable], Iterable[Hashable]]


@dataclass(frozen=True)
class MaxCutError:
    """``max_{S,T} |G(S, T) - H(S, T)|`` located in ``[lower, upper]``.

    Attributes
    ----------
    lower : float
        The error of the cut (S, T), achieved.
    upper : float
        Certified upper bound (equal to ``lower`` when computed exactly).
    S, T : set
        Node labels of the worst cut found.
    method : str
        The cut norm method used.
    """

    lower: float
    upper: float
    S: set
    T: set
    method: str


MAX_DRAWS = 10**6
"""Most random cuts or bisections one evaluation draws (evaluate in batches beyond)."""


def _matrix(
    universe: EdgeUniverse, H: nx.Graph | NoisyGraph, release_weight: str | None
) -> np.ndarray:
    """H's dense (noisy) adjacency matrix in the universe's node order (a graph read with
    ``release_weight``, its weights checked first)."""
    if not isinstance(H, (nx.Graph, NoisyGraph)):
        raise GraphInputError(f"H must be a networkx graph or a NoisyGraph, got {type(H).__name__}")
    if set(H.nodes) != set(universe.nodes):
        raise GraphInputError("G and H must have the same node set")
    if isinstance(H, NoisyGraph):
        order = {node: i for i, node in enumerate(H.nodes)}
        positions = [order[node] for node in universe.nodes]
        return H.matrix[np.ix_(positions, positions)]
    check_graph(H)
    try:
        check_graph(H, release_weight)
    except GraphInputError as error:
        raise GraphInputError(
            f"the release H, read with release_weight={release_weight!r}: {error} (for H, "
            "pass release_weight=None)"
        ) from None
    return _dense(universe, H, release_weight)


def _dense(universe: EdgeUniverse, G: nx.Graph, weight: str | None) -> np.ndarray:
    """G's dense adjacency matrix read with ``weight`` (n x n, also for n = 0)."""
    if universe.n == 0:
        return np.zeros((0, 0))
    return universe.adjacency(G, weight).toarray()


def _adjacency(
    G: nx.Graph, H: nx.Graph | NoisyGraph, weight: str | None, release_weight: str | None
) -> tuple[EdgeUniverse, np.ndarray]:
    """The dense difference ``A_H - A_G`` in G's node order (G read with ``weight``, H with
    ``release_weight``), after checking the node sets."""
    universe = EdgeUniverse.of(G, weight)
    return universe, _matrix(universe, H, release_weight) - _dense(universe, G, weight)


class WorkloadClasses:
    """The cut workloads of a graph by class, and their true values.

    With public ``groups``: every group's internal edge count (``"within-group"``), the
    cut between every two groups (``"between-group"``, each ordered pair for a
    DiGraph), and every group against the rest (``"group-vs-rest"``). Always: every
    node's degree (``"degree"``; out-degree for a DiGraph) and ``bisections`` random
    balanced bisections (``"bisection"``, S a uniformly random half, T the rest). G is
    read with ``weight`` (None: every edge counts 1), every graph H evaluated with the
    ``release_weight`` of :meth:`answers` and :meth:`errors` (default ``"weight"``: a
    privcut release's weights; see the module docstring).

    Examples
    --------
    >>> G = nx.florentine_families_graph()
    >>> work = WorkloadClasses(G, {v: len(v) % 2 for v in G}, bisections=10, rng=0)
    >>> sorted(work.errors(G, release_weight=None).values())  # G answers its own exactly
    [0.0, 0.0, 0.0, 0.0, 0.0]
    """

    def __init__(
        self,
        G: nx.Graph,
        groups: dict | None = None,
        *,
        bisections: int = 1000,
        weight: str | None = None,
        rng: RandomState = None,
    ):
        bisections = check_scalar(bisections, "bisections", int, low=1, high=MAX_DRAWS)
        self.weight = weight
        self.universe = EdgeUniverse.of(G, weight)
        self.partition = None if groups is None else Partition.of(self.universe, groups)
        generator = check_random_state(rng)
        n = self.universe.n
        self.sides = np.zeros((bisections, n))
        for row in self.sides:
            row[generator.permutation(n)[: n // 2]] = 1.0
        self.truth = self._answers(_dense(self.universe, G, weight))

    def answers(
        self, H: nx.Graph | NoisyGraph, release_weight: str | None = "weight"
    ) -> dict[str, np.ndarray]:
        """H's answers to every workload class, a graph H read with ``release_weight``
        (default: a privcut release's ``"weight"``, in [0, 1]; None counts every edge 1)."""
        return self._answers(_matrix(self.universe, H, release_weight))

    def _answers(self, matrix: np.ndarray) -> dict[str, np.ndarray]:
        """The answers of the graph with this dense (noisy) adjacency matrix."""
        found = {"degree": matrix.sum(axis=1)}
        if self.partition is not None:
            found |= self.group_answers(self.partition.block_sums(matrix))
        left = matrix.T @ self.sides.T
        found["bisection"] = np.einsum("jk,kj->k", left, 1.0 - self.sides)
        return found

    def group_answers(self, blocks: np.ndarray) -> dict[str, np.ndarray]:
        """The group classes' answers from block-pair counts (as ``Partition.blocks``)."""
        first, second = self.partition.blocks
        found = {"within-group": blocks[first == second]}
        if self.partition.g > 1:
            found["between-group"] = blocks[first != second]
            found["group-vs-rest"] = np.array([blocks[ids].sum() for ids in self.partition.rest()])
        return found

    def single_purpose_errors(self, epsilon: float, rng: RandomState = None) -> dict[str, float]:
        """Mean absolute error per class of the best single-purpose answers at ``epsilon``:
        the block counts with discrete Laplace noise at the full epsilon, clipped to their
        box, for the group classes; one noisy edge count (again at the full epsilon) times
        ``|S| |T| / pairs`` for bisections. A baseline for a release that answers them all
        at once (evaluation only: it reads the true counts, and spends no budget of G's).

        Examples
        --------
        >>> from privcut.datasets import planted_partition
        >>> G = planted_partition(4, 10, 0.5, 0.05, seed=0)
        >>> work = WorkloadClasses(G, G.graph["groups"], bisections=20, rng=0)
        >>> sorted(work.single_purpose_errors(1.0, rng=0))
        ['between-group', 'bisection', 'group-vs-rest', 'within-group']
        """
        epsilon, rng = check_epsilon(epsilon), check_random_state(rng)
        partition = self.partition
        if partition is None:
            raise ValueError("single_purpose_errors needs the public groups: pass groups=")
        first, second = partition.blocks
        blocks = np.empty(partition.size)
        blocks[first == second] = self.truth["within-group"]
        blocks[first != second] = self.truth["between-group"]
        noise = discrete_laplace(1.0 / epsilon, blocks.size, rng=rng)
        answers = self.group_answers(np.clip(blocks + noise, 0, partition.pairs))
        edges = blocks.sum() + discrete_laplace(1.0 / epsilon, rng=rng)
        n, size = self.universe.n, self.universe.size
        share = (n // 2) * (n - n // 2) / size
        answers["bisection"] = np.full(self.sides.shape[0], edges * share)
        return self.errors(answers)

    def errors(
        self,
        H: nx.Graph | NoisyGraph | dict[str, np.ndarray],
        release_weight: str | None = "weight",
    ) -> dict[str, float]:
        """Mean absolute error per class, of a graph (read with ``release_weight``, as in
        :meth:`answers`), a noisy graph, or answers by class."""
        found = H if isinstance(H, dict) else self.answers(H, release_weight)
        return {c: float(np.mean(np.abs(found[c] - self.truth[c]))) for c in found}


def cut_errors(
    G: nx.Graph,
    H: nx.Graph | NoisyGraph,
    queries: Sequence[Cut],
    weight: str | None = None,
    *,
    release_weight: str | None = "weight",
) -> np.ndarray:
    """``|H(S, T) - G(S, T)|`` for each query (S, T).

    Parameters
    ----------
    G : networkx.Graph or networkx.DiGraph
        The private graph.
    H : networkx.Graph, networkx.DiGraph or NoisyGraph
        A release on the same nodes.
    queries : sequence of (S, T)
        Node sets.
    weight : str or None, default None
        How G is read: None counts every edge 1 (any weight attribute ignored, as in
        NetworkX); an edge attribute name reads its values (in [0, 1]).
    release_weight : str or None, default "weight"
        How a graph H is read: ``"weight"`` reads a privcut release's weights (in [0, 1];
        a rounded release has none, so each of its edges counts 1); None counts every
        edge of H as 1. Ignored for a NoisyGraph.

    Examples
    --------
    >>> G = nx.path_graph(4)
    >>> H = nx.Graph([(0, 1), (1, 2), (0, 3)])
    >>> cut_errors(G, H, [({0}, {3}), ({0, 1}, {2, 3})]).tolist()
    [1.0, 1.0]
    >>> H[0][3]["weight"] = 0.5  # a fractional release's edge
    >>> cut_errors(G, H, [({0}, {3})]).tolist()
    [0.5]
    """
    universe, difference = _adjacency(G, H, weight, release_weight)
    return np.array(
        [
            abs(universe.indicator(S) @ difference @ universe.indicator(T))
            for S, T in check_queries(queries)
        ]
    )


def random_cuts(G: nx.Graph, k: int, *, rng: RandomState = None) -> list[tuple[set, set]]:
    """k random cuts: S and T independent uniformly random node subsets (each node 1/2).

    Examples
    --------
    >>> cuts = random_cuts(nx.path_graph(10), 3, rng=0)
    >>> len(cuts), all(isinstance(S, set) for S, _ in cuts)
    (3, True)
    """
    k = check_scalar(k, "k", int, low=1, high=MAX_DRAWS)
    nodes = list(EdgeUniverse.of(G).nodes)
    generator = check_random_state(rng)
    draws = generator.random((k, 2, len(nodes))) < 0.5
    return [
        ({nodes[i] for i in np.flatnonzero(s)}, {nodes[i] for i in np.flatnonzero(t)})
        for s, t in draws
    ]


def max_cut_error(
    G: nx.Graph,
    H: nx.Graph | NoisyGraph,
    *,
    method: str = "auto",
    weight: str | None = None,
    release_weight: str | None = "weight",
    rng: RandomState = None,
) -> MaxCutError:
    """The largest cut error ``||A_G - A_H||_C``: exact for at most 20 nodes, else an interval.

    Uses :func:`~privcut.graph.cutnorm.cut_norm` on the difference of the adjacency
    matrices: the cut it finds gives ``lower``, its certificate gives ``upper``. G is read
    with ``weight`` (None: every edge counts 1, as in NetworkX), a graph H with
    ``release_weight`` (default ``"weight"``: a privcut release's weights in [0, 1]; None
    counts every edge of H as 1), as in :func:`cut_errors`.

    Examples
    --------
    >>> result = max_cut_error(nx.complete_graph(5), nx.empty_graph(5))
    >>> result.lower, result.upper
    (20.0, 20.0)
    """
    universe, difference = _adjacency(G, H, weight, release_weight)
    if universe.n == 0:  # no cut has any pair: every error is 0
        return MaxCutError(lower=0.0, upper=0.0, S=set(), T=set(), method="exact")
    found = cut_norm(difference, method=method, rng=rng)
    return MaxCutError(
        lower=found.value,
        upper=found.upper_bound,
        S={universe.nodes[i] for i in found.S},
        T={universe.nodes[i] for i in found.T},
        method=found.method,
    )
