"""Measuring a release: cut errors and structural statistics against the private graph
(non-private, for evaluation).

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

:func:`cut_errors` and :class:`WorkloadClasses` read graphs as CSR matrices and build
nothing n x n (a NoisyGraph is n x n already); :func:`max_cut_error` is dense (the cut
norm). The structural statistics (:func:`structure`, :func:`structure_of`) are sparse, for
graphs of 10^6 edges and more; they describe the undirected 0/1 pattern, so the weight
arguments only choose what is read and checked. Community detection (:func:`louvain`, and
:func:`structure` with ``communities``) runs NetworkX's pure-Python Louvain: seconds up to
about 10^5 edges.

Every function takes G and H each as a NetworkX graph or a square ``scipy.sparse``
adjacency (a :class:`~privcut.graph.arrays.SyntheticArray`, what ``synthetic_graph``
returns for a sparse input, among them), read by
:func:`~privcut.graph.arrays.read_adjacency` in O(n + |E|): a sparse G's rows are the
nodes ``nodes`` (default: a SyntheticArray's ``.nodes``, else ``range(n)``) of the
declared kind ``directed`` (default False); a sparse H's rows are ``release_nodes``
(the same defaults), and H is read as G's kind (a release has its original's). The nodes
of G and H are matched by label, so H may list them in another order.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy import stats
from scipy.sparse.linalg import eigsh

from privcut.exceptions import GraphInputError
from privcut.graph.arrays import is_array_graph, read_adjacency
from privcut.graph.cutnorm import cut_norm
from privcut.graph.cuts import CHUNK, cut_sums
from privcut.graph.limits import check_dense_nodes
from privcut.graph.noisy import NoisyGraph
from privcut.graph.partition import Partition
from privcut.graph.universe import EdgeUniverse, check_graph
from privcut.graph.workloads import check_queries
from privcut.privacy import check_epsilon, discrete_laplace
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_scalar
from privcut.records import Record

__all__ = [
    "GraphStructure",
    "MaxCutError",
    "StructureComparison",
    "WorkloadClasses",
    "clustering_by_degree",
    "cut_errors",
    "louvain",
    "max_cut_error",
    "normalized_mutual_information",
    "random_cuts",
    "relative_error",
    "structure",
    "structure_of",
]

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


def _read(
    G: object, weight: str | None, nodes: Sequence | None, directed: bool | None
) -> tuple[EdgeUniverse, sp.csr_array]:
    """G's universe and checked CSR adjacency read with ``weight`` (n x n, also for
    n = 0), O(n + |E|): a NetworkX graph in :func:`~privcut.graph.universe.canonical_order`,
    a sparse G on ``nodes`` (default: a SyntheticArray's ``.nodes``, else ``range(n)``)
    in that order."""
    if is_array_graph(G):
        return EdgeUniverse.read(G, weight, nodes=_labels_of(G, nodes), directed=directed)
    if not isinstance(G, nx.Graph):
        raise GraphInputError(
            "G must be a networkx graph or a square scipy.sparse adjacency (with nodes= and "
            f"directed=), got {type(G).__name__}"
        )
    universe = EdgeUniverse.of(G, weight, nodes=nodes, directed=directed)
    return universe, _sparse(universe, G, weight)


def _labels_of(A: sp.sparray, nodes: Sequence | None) -> Sequence | None:
    """The row labels of a sparse graph: ``nodes`` if given, else a SyntheticArray's."""
    return getattr(A, "nodes", None) if nodes is None else nodes


def _matrix(
    universe: EdgeUniverse,
    H: object,
    release_weight: str | None,
    release_nodes: Sequence | None = None,
) -> np.ndarray | sp.csr_array:
    """H's adjacency matrix in the universe's node order, its nodes matched by label: a
    graph's CSR matrix read with ``release_weight`` (its weights checked first; O(|E|),
    nothing n x n), a sparse H's CSR on ``release_nodes`` (default: a SyntheticArray's
    ``.nodes``, else ``range(n)``; read with the universe's kind) permuted into the
    universe's order in O(n + |E|), or a NoisyGraph's dense noisy matrix (itself, or a
    reordered copy if its node order differs: a noisy graph is n x n already)."""
    if is_array_graph(H):
        return _array_matrix(universe, H, release_weight, _labels_of(H, release_nodes))
    if release_nodes is not None:
        raise GraphInputError(
            "release_nodes labels the rows of a sparse H; a networkx graph or a NoisyGraph "
            "H carries its own nodes: drop release_nodes"
        )
    if not isinstance(H, (nx.Graph, NoisyGraph)):
        raise GraphInputError(
            "H must be a networkx graph, a NoisyGraph or a square scipy.sparse adjacency, "
            f"got {type(H).__name__}"
        )
    if set(H.nodes) != set(universe.nodes):
        raise GraphInputError("G and H must have the same node set")
    if isinstance(H, NoisyGraph):
        if tuple(H.nodes) == tuple(universe.nodes):
            return H.matrix
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
    return _sparse(universe, H, release_weight)


def _array_matrix(
    universe: EdgeUniverse, H: sp.sparray, release_weight: str | None, labels: Sequence | None
) -> sp.csr_array:
    """A sparse H's checked CSR (read as the universe's kind) in the universe's order."""
    kind = getattr(H, "directed", None)
    if kind is not None and kind != universe.directed:
        raise GraphInputError(
            f"G is {'directed' if universe.directed else 'undirected'} and the release H "
            f"{'directed' if kind else 'undirected'}: compare graphs of one kind"
        )
    if H.ndim == 2 and H.shape[0] != universe.n:
        raise GraphInputError(
            f"G and H must have the same node set: G has {universe.n} nodes and H has "
            f"{H.shape[0]} rows"
        )
    try:
        read = read_adjacency(H, release_weight, nodes=labels, directed=universe.directed)
    except GraphInputError as error:
        weights = release_weight is not None and "[0, 1]" in str(error)
        hint = " (for H, pass release_weight=None)" if weights else ""
        raise GraphInputError(
            f"the release H, read with release_weight={release_weight!r}: {error}{hint}"
        ) from None
    if read.nodes == universe.nodes:
        return read.matrix
    position = {node: i for i, node in enumerate(read.nodes)}
    try:
        order = np.fromiter((position[v] for v in universe.nodes), np.intp, universe.n)
    except KeyError:
        raise GraphInputError(
            "G and H must have the same node set: label H's rows with release_nodes= (a "
            "SyntheticArray's .nodes are used by default; else they are 0..n-1)"
        ) from None
    return sp.csr_array(read.matrix[order][:, order])


def _sparse(universe: EdgeUniverse, G: nx.Graph, weight: str | None) -> sp.csr_array:
    """G's CSR adjacency matrix read with ``weight`` (n x n, also for n = 0), O(|E|)."""
    if universe.n == 0:
        return sp.csr_array((0, 0))
    return universe.adjacency(G, weight)


def _dense(matrix: np.ndarray | sp.sparray) -> np.ndarray:
    """A matrix as a dense array (for the cut norm, which is dense by nature)."""
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)


def _group_map(groups: Mapping | Sequence | None, nodes: tuple) -> Mapping | None:
    """Groups as a mapping node -> group: a mapping as given, or a sequence (or array)
    of one group per node in the universe's order (for a sparse G: per row)."""
    if groups is None or isinstance(groups, Mapping):
        return groups
    if isinstance(groups, (str, bytes)) or not isinstance(groups, (Sequence, np.ndarray)):
        raise TypeError(f"groups must be a mapping or a sequence, got {groups!r}")
    if len(groups) != len(nodes):
        raise GraphInputError(f"groups has {len(groups)} entries for {len(nodes)} nodes")
    return dict(zip(nodes, np.asarray(groups).tolist(), strict=True))


def _row_sums(matrix: np.ndarray | sp.sparray) -> np.ndarray:
    """Row sums of a dense or sparse matrix, as a flat float array."""
    return np.asarray(matrix.sum(axis=1), dtype=float).ravel()


class WorkloadClasses:
    """The cut workloads of a graph by class, and their true values.

    With public ``groups``: every group's internal edge count (``"within-group"``), the
    cut between every two groups (``"between-group"``, each ordered pair for a
    DiGraph), and every group against the rest (``"group-vs-rest"``). Always: every
    node's degree (``"degree"``; out-degree for a DiGraph) and ``bisections`` random
    balanced bisections (``"bisection"``, S a uniformly random half, T the rest). G is
    read with ``weight`` (None: every edge counts 1), every graph H evaluated with the
    ``release_weight`` of :meth:`answers` and :meth:`errors` (default ``"weight"``: a
    privcut release's weights; see the module docstring). G and H may each be a NetworkX
    graph or a square ``scipy.sparse`` adjacency (a SyntheticArray among them): a sparse G
    on the public ``nodes`` (default: its ``.nodes`` if a SyntheticArray, else
    ``range(n)``), of the declared kind ``directed`` (default False); ``groups`` a mapping
    node -> group or a sequence of one group per node (in G's node order: per row for a
    sparse G); H's nodes are matched to G's by label.

    Sparse: G and a graph H are read as CSR matrices; evaluating a graph takes
    O((|E| + n) b) time for b bisections, and the bisections are kept as an n x b boolean
    array (b bytes per node: keep b small on large graphs), nothing n x n.

    Examples
    --------
    >>> G = nx.florentine_families_graph()
    >>> work = WorkloadClasses(G, {v: len(v) % 2 for v in G}, bisections=10, rng=0)
    >>> sorted(work.errors(G, release_weight=None).values())  # G answers its own exactly
    [0.0, 0.0, 0.0, 0.0, 0.0]
    >>> A = nx.to_scipy_sparse_array(G, nodelist=work.universe.nodes)  # the same, as sparse
    >>> sparse = WorkloadClasses(A, work.partition.labels, nodes=work.universe.nodes,
    ...                          bisections=10, rng=0)
    >>> all((sparse.truth[c] == work.truth[c]).all() for c in work.truth)
    True
    """

    def __init__(
        self,
        G: nx.Graph | sp.sparray,
        groups: Mapping | Sequence | None = None,
        *,
        bisections: int = 1000,
        weight: str | None = None,
        rng: RandomState = None,
        nodes: Sequence[Hashable] | None = None,
        directed: bool | None = None,
    ):
        bisections = check_scalar(bisections, "bisections", int, low=1, high=MAX_DRAWS)
        self.weight = weight
        self.universe, adjacency = _read(G, weight, nodes, directed)
        groups = _group_map(groups, self.universe.nodes)
        self.partition = None if groups is None else Partition.of(self.universe, groups)
        generator = check_random_state(rng)
        n = self.universe.n
        self.sides = np.zeros((bisections, n), dtype=bool)
        for row in self.sides:
            row[generator.permutation(n)[: n // 2]] = True
        self.truth = self._answers(adjacency)

    def answers(
        self,
        H: nx.Graph | NoisyGraph | sp.sparray,
        release_weight: str | None = "weight",
        *,
        release_nodes: Sequence[Hashable] | None = None,
    ) -> dict[str, np.ndarray]:
        """H's answers to every workload class, a graph H read with ``release_weight``
        (default: a privcut release's ``"weight"``, in [0, 1]; None counts every edge 1).
        A sparse H's rows are the nodes ``release_nodes`` (default: a SyntheticArray's
        ``.nodes``, else ``range(n)``), matched to G's by label."""
        return self._answers(_matrix(self.universe, H, release_weight, release_nodes))

    def _answers(self, matrix: np.ndarray | sp.csr_array) -> dict[str, np.ndarray]:
        """The answers of the graph with this sparse (or dense noisy) adjacency matrix:
        O(nnz b + n b) time for b bisections, bisections taken CHUNK at a time."""
        found = {"degree": _row_sums(matrix)}
        if self.partition is not None:
            found |= self.group_answers(self.partition.block_sums(matrix))
        sides = self.sides.T  # n x b, bool
        found["bisection"] = cut_sums(matrix, sides, ~sides)
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
        H: nx.Graph | NoisyGraph | sp.sparray | dict[str, np.ndarray],
        release_weight: str | None = "weight",
        *,
        release_nodes: Sequence[Hashable] | None = None,
    ) -> dict[str, float]:
        """Mean absolute error per class, of a graph or a sparse adjacency (read with
        ``release_weight`` on ``release_nodes``, as in :meth:`answers`), a noisy graph, or
        answers by class."""
        if isinstance(H, dict):
            found = H
        else:
            found = self.answers(H, release_weight, release_nodes=release_nodes)
        return {c: float(np.mean(np.abs(found[c] - self.truth[c]))) for c in found}


def cut_errors(
    G: nx.Graph | sp.sparray,
    H: nx.Graph | NoisyGraph | sp.sparray,
    queries: Sequence[Cut],
    weight: str | None = None,
    *,
    release_weight: str | None = "weight",
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
    release_nodes: Sequence[Hashable] | None = None,
) -> np.ndarray:
    """``|H(S, T) - G(S, T)|`` for each query (S, T).

    Sparse: G and a graph H are read as CSR matrices and the queries answered CHUNK at a
    time, O((|E_G| + |E_H| + n) k) time and O(|E_G| + |E_H| + n CHUNK) memory for k
    queries on n nodes (a NoisyGraph H is n x n already).

    Parameters
    ----------
    G : networkx.Graph, networkx.DiGraph or scipy.sparse array
        The private graph (a square sparse adjacency: row i is node ``nodes[i]``).
    H : networkx.Graph, networkx.DiGraph, NoisyGraph or scipy.sparse array
        A release on the same nodes (matched by label; a SyntheticArray carries its own).
    queries : sequence of (S, T)
        Node sets (labels).
    weight : str or None, default None
        How G is read: None counts every edge 1 (any weight attribute ignored, as in
        NetworkX); an edge attribute name reads its values (in [0, 1]).
    release_weight : str or None, default "weight"
        How a graph H is read: ``"weight"`` reads a privcut release's weights (in [0, 1];
        a rounded release has none, so each of its edges counts 1); None counts every
        edge of H as 1. Ignored for a NoisyGraph.
    nodes : sequence of hashable, optional
        The labels of a sparse G's rows: default its ``.nodes`` for a SyntheticArray,
        else ``range(n)`` (refused for a NetworkX G, which carries its own).
    directed : bool, optional
        A sparse G's declared kind (default False: G symmetric); H is read as the same.
    release_nodes : sequence of hashable, optional
        The labels of a sparse H's rows, as ``nodes`` for G (in any order).

    Examples
    --------
    >>> G = nx.path_graph(4)
    >>> H = nx.Graph([(0, 1), (1, 2), (0, 3)])
    >>> cut_errors(G, H, [({0}, {3}), ({0, 1}, {2, 3})]).tolist()
    [1.0, 1.0]
    >>> H[0][3]["weight"] = 0.5  # a fractional release's edge
    >>> cut_errors(G, H, [({0}, {3})]).tolist()
    [0.5]
    >>> A = nx.to_scipy_sparse_array(G, nodelist=[3, 2, 1, 0])  # G's rows in another order
    >>> cut_errors(A, H, [({0}, {3})], nodes=[3, 2, 1, 0]).tolist()
    [0.5]
    """
    queries = check_queries(queries)
    universe, G_matrix = _read(G, weight, nodes, directed)
    H_matrix = _matrix(universe, H, release_weight, release_nodes)
    errors = np.zeros(len(queries))
    for start in range(0, len(queries), CHUNK):
        part = queries[start : start + CHUNK]
        S = np.column_stack([universe.indicator(S) for S, _ in part])
        T = np.column_stack([universe.indicator(T) for _, T in part])
        errors[start : start + len(part)] = np.abs(
            cut_sums(H_matrix, S, T) - cut_sums(G_matrix, S, T)
        )
    return errors


def random_cuts(
    G: nx.Graph | sp.sparray,
    k: int,
    *,
    rng: RandomState = None,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
) -> list[tuple[set, set]]:
    """k random cuts: S and T independent uniformly random node subsets (each node 1/2).

    G is a NetworkX graph or a square sparse adjacency on ``nodes`` of the kind
    ``directed`` (as in :func:`cut_errors`); the cuts are sets of labels. O(n k) time.

    Examples
    --------
    >>> cuts = random_cuts(nx.path_graph(10), 3, rng=0)
    >>> len(cuts), all(isinstance(S, set) for S, _ in cuts)
    (3, True)
    """
    k = check_scalar(k, "k", int, low=1, high=MAX_DRAWS)
    nodes = list(_read(G, None, nodes, directed)[0].nodes)
    generator = check_random_state(rng)
    draws = generator.random((k, 2, len(nodes))) < 0.5
    return [
        ({nodes[i] for i in np.flatnonzero(s)}, {nodes[i] for i in np.flatnonzero(t)})
        for s, t in draws
    ]


def max_cut_error(
    G: nx.Graph | sp.sparray,
    H: nx.Graph | NoisyGraph | sp.sparray,
    *,
    method: str = "auto",
    weight: str | None = None,
    release_weight: str | None = "weight",
    rng: RandomState = None,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
    release_nodes: Sequence[Hashable] | None = None,
) -> MaxCutError:
    """The largest cut error ``||A_G - A_H||_C``: exact for at most 20 nodes, else an interval.

    Uses :func:`~privcut.graph.cutnorm.cut_norm` on the difference of the adjacency
    matrices: the cut it finds gives ``lower``, its certificate gives ``upper``. G is read
    with ``weight`` (None: every edge counts 1, as in NetworkX), a graph H with
    ``release_weight`` (default ``"weight"``: a privcut release's weights in [0, 1]; None
    counts every edge of H as 1), as in :func:`cut_errors`; G and H may be sparse
    adjacencies (``nodes``, ``directed`` and ``release_nodes`` as in :func:`cut_errors`,
    nodes matched by label). The cut norm works on the dense n x n difference: it
    refuses more than :data:`~privcut.graph.limits.DENSE_NODES` nodes (:func:`cut_errors` and
    :class:`WorkloadClasses` are sparse).

    Examples
    --------
    >>> result = max_cut_error(nx.complete_graph(5), nx.empty_graph(5))
    >>> result.lower, result.upper
    (20.0, 20.0)
    """
    universe, G_matrix = _read(G, weight, nodes, directed)
    check_dense_nodes(
        universe.n,
        "max_cut_error (the cut norm of the dense difference)",
        "cut_errors on random_cuts, or WorkloadClasses (both sparse)",
    )
    difference = _dense(_matrix(universe, H, release_weight, release_nodes)) - _dense(G_matrix)
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


MAX_PRODUCT = 4 * 10**6
"""Most entries of one chunk of the sparse product that counts triangles (memory bound)."""


@dataclass(frozen=True)
class GraphStructure(Record):
    """Structural statistics of one graph's undirected 0/1 pattern (see :func:`structure_of`).

    Attributes
    ----------
    nodes, edges : int
        Node count and (undirected) edge count.
    max_degree : int
        The largest degree.
    mean_degree : float
        ``2 * edges / nodes`` (0 without nodes).
    degree_histogram : tuple of int
        ``degree_histogram[k]`` nodes have degree k.
    triangles : int
        Number of triangles.
    transitivity : float
        Global clustering, ``3 * triangles / connected triples`` (0 without triples), as
        ``networkx.transitivity``.
    average_clustering : float
        Mean local clustering over all nodes (nodes of degree < 2 count 0), as
        ``networkx.average_clustering``.
    assortativity : float
        Degree assortativity (Newman 2002): the Pearson correlation of the degrees
        at the two ends of an edge, over both orientations of every edge, as
        ``networkx.degree_assortativity_coefficient`` (NaN without edges or when every
        edge's ends have one degree).
    modularity : float or None
        Modularity of the given groups (Newman 2006) (None without groups), as
        ``networkx.community.modularity`` (NaN without edges).

    Examples
    --------
    >>> found = structure_of(nx.complete_graph(4), groups={0: 0, 1: 0, 2: 1, 3: 1})
    >>> found.triangles, found.transitivity, round(found.modularity, 4)
    (4, 1.0, -0.1667)
    """

    nodes: int
    edges: int
    max_degree: int
    mean_degree: float
    degree_histogram: tuple
    triangles: int
    transitivity: float
    average_clustering: float
    assortativity: float
    modularity: float | None


@dataclass(frozen=True)
class StructureComparison(Record):
    """A release's structure against the original's (see :func:`structure`).

    Attributes
    ----------
    original, release : GraphStructure
        The statistics of G and of H, side by side.
    degree_kl : float
        ``sum_k p_k log((p_k + e) / (q_k + e))``, p and q the normalised degree histograms
        of G and H padded to one length, e the machine epsilon (0 for identical degrees).
        The definition of PrivGraph's evaluation code (``cal_kl``; **Yuan et al. 2023**),
        so the numbers compare with theirs. e only keeps empty bins finite: a degree H has
        and G lacks costs nothing, a degree G has and H lacks costs ``p_k ln(p_k / e)``,
        about ``p_k (36 + ln p_k)``, so the value is dominated by the share of G's nodes
        whose degree H never has (an Erdős–Rényi release of a heavy-tailed graph: 10-20).
    top : int
        Size of the top sets compared by eigenvector centrality.
    centrality_jaccard : float
        Jaccard similarity of the ``top`` most central nodes of G and of H.
    centrality_spearman : float
        Spearman rank correlation of the two centrality vectors over all nodes (NaN when
        one is constant).
    centrality_mae : float
        Mean absolute difference of the two (unit-norm) eigenvector centralities over G's
        ``top`` most central nodes (0 when ``top`` is 0).
    triangle_error, transitivity_error, assortativity_error : float
        Relative errors ``|h - g| / |g|`` of the triangle count, the global clustering
        (transitivity) and the degree assortativity, g of G and h of H (0 when
        ``h == g``, inf when only g is 0, NaN when either is NaN).
    modularity_error : float or None
        Relative error of the modularity of one partition, on H against on G: the given
        ``groups``, else G's Louvain communities (None without groups when communities
        are not detected).
    nmi : float or None
        Normalized mutual information of G's and H's Louvain communities (see
        :func:`normalized_mutual_information`; None when communities are not detected).
    communities : int or None
        Number of G's Louvain communities (None when not detected).

    Examples
    --------
    >>> found = structure(nx.path_graph(4), nx.star_graph(3), top=0.5)
    >>> found.original.max_degree, found.release.max_degree, found.top
    (2, 3, 2)
    >>> sorted(found.to_dict())[:3]
    ['assortativity_error', 'centrality_jaccard', 'centrality_mae']
    """

    original: GraphStructure
    release: GraphStructure
    degree_kl: float
    top: int
    centrality_jaccard: float
    centrality_spearman: float
    centrality_mae: float
    triangle_error: float
    transitivity_error: float
    assortativity_error: float
    modularity_error: float | None = None
    nmi: float | None = None
    communities: int | None = None


def structure_of(
    G: nx.Graph | sp.sparray,
    *,
    groups: Mapping | Sequence | None = None,
    weight: str | None = None,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
) -> GraphStructure:
    """Structural statistics of a graph, computed sparsely (non-private, for evaluation).

    Statistics are of the undirected 0/1 pattern: a DiGraph (or a sparse adjacency
    declared ``directed=True``) is read as its undirected view (an edge wherever either
    direction is), and any nonzero weight counts as an edge (``weight`` only chooses which
    attribute is read and checked, as elsewhere in this module; a weight of 0 is no edge).
    Triangles per node come from two sparse products of the degree-ordered orientation U of the
    edges (Schank & Wagner 2005), ``(U @ U) * U`` and ``(U.T @ U) * U``, over chunks of rows (at
    most about ``MAX_PRODUCT`` product entries at a time): O(|E| min(d_max, sqrt|E|)) time,
    O(n + |E| + MAX_PRODUCT) memory; everything else is O(n + |E|). Nothing is n x n.

    Parameters
    ----------
    G : networkx.Graph, networkx.DiGraph or scipy.sparse array
        The graph, or a square sparse adjacency (zero diagonal, symmetric unless declared
        directed; row i is node ``nodes[i]``; a SyntheticArray among them).
    groups : mapping node -> group or sequence, optional
        A partition whose modularity to report: a mapping from node label, or a sequence
        of one group per node in G's order (for a sparse matrix: per row).
    weight : str or None, default None
        How G is read (None: every edge, or stored nonzero, counts 1; a name reads that
        attribute, or the stored values, checked to lie in [0, 1]).
    nodes : sequence of hashable, optional
        A sparse G's row labels (default: a SyntheticArray's ``.nodes``, else
        ``range(n)``); refused for a NetworkX G.
    directed : bool, optional
        A sparse G's declared kind (default False); refused for a NetworkX G.

    Examples
    --------
    >>> found = structure_of(nx.karate_club_graph())
    >>> found.edges, found.triangles, round(found.transitivity, 4)
    (78, 45, 0.2557)
    """
    universe, adjacency = _read(G, weight, nodes, directed)
    return _structure(_symmetric(adjacency), _labels(groups, universe))


def structure(
    G: nx.Graph | sp.sparray,
    H: nx.Graph | sp.sparray,
    *,
    groups: Mapping | Sequence | None = None,
    weight: str | None = None,
    release_weight: str | None = "weight",
    top: float = 0.01,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
    release_nodes: Sequence[Hashable] | None = None,
    communities: bool | Sequence | np.ndarray = False,
    seed: int = 0,
) -> StructureComparison:
    """What a release H preserves of G's structure: :func:`structure_of` for both, the
    degree-histogram KL divergence, the relative errors of the triangle count, global
    clustering, assortativity and modularity, the centrality of the most central nodes,
    and (with ``communities``) the agreement of the Louvain communities.

    G and H are each a NetworkX graph or a square sparse adjacency (a SyntheticArray among
    them) on one node set, matched by label (G read with ``weight``, H with
    ``release_weight``; ``nodes``, ``directed`` and ``release_nodes`` as in
    :func:`cut_errors`: a sparse H is read as G's kind). Statistics are of the
    undirected 0/1 patterns (see
    :func:`structure_of`). Eigenvector centrality is the leading eigenvector of the
    symmetric adjacency (``scipy.sparse.linalg.eigsh``, largest algebraic, started from
    the square roots of the degrees, tolerance 1e-8), as
    ``networkx.eigenvector_centrality_numpy``; the top sets are the ``ceil(top * n)``
    most central nodes (ties by node order). Time: :func:`structure_of`'s twice, plus
    O(|E|) per eigensolver iteration; nothing is n x n. With ``communities``,
    :func:`louvain` runs on each graph (NetworkX's pure-Python Louvain: seconds up to
    about 10^5 edges, slow far beyond). No other randomness is used.

    Parameters
    ----------
    G, H : networkx.Graph, networkx.DiGraph or scipy.sparse array
        The original and the release.
    groups : mapping node -> group or sequence, optional
        A public partition whose modularity to report for both (as in
        :func:`structure_of`); its modularity's relative error is ``modularity_error``.
    weight, release_weight : str or None
        How G and H are read (see the module docstring).
    top : float, default 0.01
        Fraction of the nodes in the top sets, in (0, 1].
    nodes, directed, release_nodes : optional
        For a sparse G and H, as in :func:`cut_errors`.
    communities : bool or sequence, default False
        True: detect communities with :func:`louvain` (seed ``seed``) on G and H for
        ``nmi`` (and, without ``groups``, ``modularity_error`` of G's communities). Or
        G's communities found already (``louvain(G, seed=seed)``, one label per node in
        G's order), to skip running Louvain on G again.
    seed : int, default 0
        The Louvain seed, the same for G and H.

    Examples
    --------
    >>> G = nx.karate_club_graph()
    >>> found = structure(G, G, release_weight=None, top=0.1)
    >>> found.degree_kl, found.top, found.centrality_jaccard, found.triangle_error
    (0.0, 4, 1.0, 0.0)
    >>> H = nx.gnm_random_graph(34, 78, seed=1)
    >>> found = structure(G, H, release_weight=None, communities=True)
    >>> found.communities, found.nmi < 0.5, found.modularity_error > 0.5
    (4, True, True)
    """
    top = check_scalar(top, "top", low=0.0, high=1.0, closed="right")
    seed = check_scalar(seed, "seed", int, low=0)
    universe, adjacency = _read(G, weight, nodes, directed)
    A = _symmetric(adjacency)
    B = _symmetric(_release_matrix(universe, H, release_weight, release_nodes))
    labels = _labels(groups, universe)
    found = _communities(A, B, communities, seed)
    original, release = _structure(A, labels), _structure(B, labels)
    count = math.ceil(top * A.shape[0]) if A.shape[0] else 0
    first, second = _centrality(A), _centrality(B)
    chosen = [np.argsort(-c, kind="stable")[:count] for c in (first, second)]
    sets = [set(c.tolist()) for c in chosen]
    union = len(sets[0] | sets[1])
    reference = found[0] if labels is None and found is not None else labels
    return StructureComparison(
        original=original,
        release=release,
        degree_kl=_degree_kl(original, release),
        top=count,
        centrality_jaccard=len(sets[0] & sets[1]) / union if union else 1.0,
        centrality_spearman=_spearman(first, second),
        centrality_mae=float(np.abs(first - second)[chosen[0]].mean()) if count else 0.0,
        triangle_error=relative_error(original.triangles, release.triangles),
        transitivity_error=relative_error(original.transitivity, release.transitivity),
        assortativity_error=relative_error(original.assortativity, release.assortativity),
        modularity_error=_modularity_error(A, B, reference),
        nmi=None if found is None else normalized_mutual_information(*found),
        communities=None if found is None else int(np.unique(found[0]).size),
    )


def _degree_kl(original: GraphStructure, release: GraphStructure) -> float:
    """``sum_k p_k log((p_k + e) / (q_k + e))`` of the padded normalised histograms."""
    p, q = _histogram(original), _histogram(release)
    size = max(p.size, q.size)
    p, q = np.pad(p, (0, size - p.size)), np.pad(q, (0, size - q.size))
    e = np.finfo(float).eps
    return float(np.sum(p * np.log((p + e) / (q + e)))) if size else 0.0


def _communities(
    A: sp.csr_array, B: sp.csr_array, communities: bool | Sequence | np.ndarray, seed: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """G's and H's Louvain labels (G's as given, if given), or None when not asked."""
    if isinstance(communities, (bool, np.bool_)):
        return (louvain(A, seed=seed), louvain(B, seed=seed)) if communities else None
    given = _codes(communities, "communities")
    if given.size != A.shape[0]:
        raise GraphInputError(
            f"communities has {given.size} entries for {A.shape[0]} nodes: pass True, or "
            "one label per node of G (louvain(G, seed=seed))"
        )
    return given, louvain(B, seed=seed)


def _codes(labels: object, name: str) -> np.ndarray:
    """One label per item as int codes 0..k-1 (numbered in sorted label order)."""
    if isinstance(labels, (str, bytes, Mapping)) or not hasattr(labels, "__len__"):
        raise TypeError(f"{name} must be a sequence of one label per item, got {labels!r}")
    try:
        array = np.asarray(labels)
        if array.ndim != 1:
            raise TypeError
        return np.unique(array, return_inverse=True)[1].ravel().astype(np.int64)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be a flat sequence of comparable labels (e.g. ints), got {labels!r}"
        ) from None


def _modularity_error(A: sp.csr_array, B: sp.csr_array, labels: np.ndarray | None):
    """The relative error of the partition's modularity on B against on A (None without)."""
    if labels is None:
        return None
    return relative_error(
        _modularity(A, np.diff(A.indptr), labels), _modularity(B, np.diff(B.indptr), labels)
    )


def relative_error(original: float, release: float) -> float:
    """``|release - original| / |original|``: 0 when equal, inf when only the original is
    0, NaN when either is NaN.

    Examples
    --------
    >>> relative_error(4, 3), relative_error(0, 0), relative_error(0, 1)
    (0.25, 0.0, inf)
    """
    for name, value in (("original", original), ("release", release)):
        if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
            raise TypeError(f"{name} must be a real number, got {value!r}")
    original, release = float(original), float(release)
    if math.isnan(original) or math.isnan(release):
        return math.nan
    if release == original:
        return 0.0
    return abs(release - original) / abs(original) if original else math.inf


def clustering_by_degree(
    G: nx.Graph | sp.sparray, *, bins: int = 20, directed: bool | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Mean local clustering coefficient of the nodes of each degree, in logarithmic
    degree bins (nodes of degree >= 2): the curve BTER fits (**SKP12**). Non-private,
    for evaluation.

    Read as :func:`structure_of` reads G (the undirected 0/1 pattern), triangles per
    node as there: O(|E| min(d_max, sqrt|E|)) time, O(n + |E|) memory, nothing n x n.

    Parameters
    ----------
    G : networkx.Graph, networkx.DiGraph or scipy.sparse array
        The graph, or a square sparse adjacency.
    bins : int, default 20
        Geometric bin edges (>= 2) between degree 2 and the maximum degree plus one
        (rounded down to integers, duplicates merged).
    directed : bool, optional
        A sparse G's declared kind (default False); refused for a NetworkX G.

    Returns
    -------
    centres, means : numpy.ndarray
        Each non-empty bin's geometric centre and its nodes' mean local clustering (both
        empty when no node has degree 2 or more).

    Examples
    --------
    >>> centres, means = clustering_by_degree(nx.complete_graph(5))
    >>> centres.round(2).tolist(), means.tolist()
    ([4.47], [1.0])
    """
    bins = check_scalar(bins, "bins", int, low=2)
    A = _symmetric(_read(G, None, None, directed)[1])
    degree = np.diff(A.indptr)
    has = degree >= 2
    if not has.any():
        return np.zeros(0), np.zeros(0)
    local = _triangles(A, degree)[has] / (degree[has] * (degree[has] - 1) / 2)
    edges = np.unique(np.geomspace(2, degree.max() + 1, bins).astype(int))
    which = np.digitize(degree[has], edges)
    kept = [b for b in np.unique(which) if 0 < b < edges.size]
    centres = np.array([np.sqrt(edges[b - 1] * edges[b]) for b in kept])
    return centres, np.array([local[which == b].mean() for b in kept])


def louvain(
    G: nx.Graph | sp.sparray,
    *,
    seed: int = 0,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
) -> np.ndarray:
    """Louvain communities (Blondel et al. 2008) of G's undirected 0/1 pattern, as one
    label per node (non-private, for evaluation).

    Runs ``networkx.community.louvain_communities`` (resolution 1, the given ``seed``) on
    the pattern, built as a NetworkX graph on the nodes 0..n-1 in G's order with the edges
    added row by row (Louvain's result depends on that order and on ``seed``); communities
    are numbered by their smallest node index. Read in O(n + |E|); NetworkX's Louvain is pure
    Python, about 2 s for 10^5 edges on one core here and memory of a NetworkX
    graph (a few hundred bytes per edge): meant for graphs up to about 10^5-10^6 edges.

    Parameters
    ----------
    G : networkx.Graph, networkx.DiGraph or scipy.sparse array
        The graph (a sparse one on ``nodes`` of the kind ``directed``, as in
        :func:`cut_errors`).
    seed : int, default 0
        Louvain's node-order seed.
    nodes, directed : optional
        For a sparse G, as in :func:`cut_errors`.

    Returns
    -------
    numpy.ndarray of int
        ``labels[i]`` is the community of the i-th node in G's order (a NetworkX G's
        canonical order, a sparse G's rows).

    Examples
    --------
    >>> G = nx.disjoint_union(nx.complete_graph(4), nx.complete_graph(4))
    >>> louvain(G).tolist()
    [0, 0, 0, 0, 1, 1, 1, 1]
    """
    seed = check_scalar(seed, "seed", int, low=0)
    A = _symmetric(_read(G, None, nodes, directed)[1])
    labels = np.zeros(A.shape[0], dtype=np.int64)
    if A.shape[0] == 0:
        return labels
    graph = nx.Graph()
    graph.add_nodes_from(range(A.shape[0]))
    upper = sp.triu(A, k=1, format="coo")
    graph.add_edges_from(zip(upper.row.tolist(), upper.col.tolist(), strict=True))
    found = nx.community.louvain_communities(graph, seed=seed)
    for number, community in enumerate(sorted(found, key=min)):
        labels[list(community)] = number
    return labels


def normalized_mutual_information(first: Sequence, second: Sequence) -> float:
    """Normalized mutual information of two partitions of the same items, arithmetic
    normalisation (Danon et al. 2005): ``2 I(X; Y) / (H(X) + H(Y))``.

    1 for identical partitions (also both trivial: ``H(X) + H(Y) = 0``), near 0 for
    independent ones. Sparse: the contingency table's nonzero cells only, O(n log n).

    Parameters
    ----------
    first, second : sequence
        One label per item, in the same item order (any hashable labels).

    Examples
    --------
    >>> normalized_mutual_information([0, 0, 1, 1], ["a", "a", "b", "b"])
    1.0
    >>> round(normalized_mutual_information([0, 0, 1, 1], [0, 1, 0, 1]), 12)
    0.0
    """
    x, y = _codes(first, "first"), _codes(second, "second")
    if x.size != y.size:
        raise ValueError(
            f"first and second label {x.size} and {y.size} items: label the same items"
        )
    n = x.size
    if n == 0:
        return 1.0
    cells = np.unique(x * (int(y.max()) + 1) + y, return_counts=True)[1] / n
    joint = -np.sum(cells * np.log(cells))
    entropy = [-np.sum(p * np.log(p)) for p in (np.bincount(x) / n, np.bincount(y) / n)]
    total = entropy[0] + entropy[1]
    if total <= 0:
        return 1.0
    return float(max(0.0, 2 * (total - joint) / total))


def _histogram(found: GraphStructure) -> np.ndarray:
    """The normalised degree histogram."""
    counts = np.array(found.degree_histogram, dtype=float)
    return counts / counts.sum() if counts.size else counts


def _spearman(first: np.ndarray, second: np.ndarray) -> float:
    """Spearman's rank correlation (NaN if either vector is constant or too short)."""
    if first.size < 2 or np.ptp(first) == 0 or np.ptp(second) == 0:
        return math.nan
    return float(stats.spearmanr(first, second).statistic)


def _release_matrix(
    universe: EdgeUniverse, H: object, weight: str | None, nodes: Sequence | None
) -> sp.csr_array:
    """H's CSR adjacency in the universe's order (a NetworkX H read as its own kind)."""
    if isinstance(H, NoisyGraph) or not (is_array_graph(H) or isinstance(H, nx.Graph)):
        raise GraphInputError(
            f"H must be a networkx graph or a square scipy.sparse adjacency, got {type(H).__name__}"
        )
    if isinstance(H, nx.Graph):
        universe = EdgeUniverse(universe.nodes, H.is_directed())
    return _matrix(universe, H, weight, nodes)


def _symmetric(A: sp.sparray) -> sp.csr_array:
    """The 0/1 pattern of ``A + A.T``, as a CSR array with sorted indices."""
    A = sp.csr_array(A)
    A.data = (A.data != 0).astype(float)
    A.eliminate_zeros()
    pattern = sp.csr_array(A + A.T)
    pattern.data[:] = 1.0
    pattern.sort_indices()
    return pattern


def _labels(groups: Mapping | Sequence | None, universe: EdgeUniverse) -> np.ndarray | None:
    """Each node's group as an int array in node order (None without groups)."""
    if groups is None:
        return None
    return Partition.of(universe, _group_map(groups, universe.nodes)).labels


def _structure(A: sp.csr_array, labels: np.ndarray | None) -> GraphStructure:
    """The statistics of a symmetric 0/1 CSR pattern."""
    n = A.shape[0]
    degree = np.diff(A.indptr)
    edges = int(degree.sum()) // 2
    per_node = _triangles(A, degree)
    triangles = int(per_node.sum()) // 3
    triples = degree * (degree - 1) / 2
    local = np.divide(per_node, triples, out=np.zeros(n), where=triples > 0)
    return GraphStructure(
        nodes=n,
        edges=edges,
        max_degree=int(degree.max()) if n else 0,
        mean_degree=2 * edges / n if n else 0.0,
        degree_histogram=tuple(np.bincount(degree).tolist()),
        triangles=triangles,
        transitivity=float(3 * triangles / triples.sum()) if triples.sum() else 0.0,
        average_clustering=float(local.mean()) if n else 0.0,
        assortativity=_assortativity(A, degree),
        modularity=None if labels is None else _modularity(A, degree, labels),
    )


def _triangles(A: sp.csr_array, degree: np.ndarray) -> np.ndarray:
    """Triangles at each node, by the degree-ordered orientation (Schank & Wagner 2005):
    U keeps each edge from its lower-ranked end (rank by degree, then index) to the
    higher. A triangle a < b < c in rank is counted once in ``(U @ U) * U`` at (a, c)
    (credited to a and c) and once in ``(U.T @ U) * U`` at (b, c) (credited to b); every
    out-degree in U is at most sqrt(2|E|), so the products stay near O(|E|^1.5)."""
    n = A.shape[0]
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((np.arange(n), degree))] = np.arange(n)
    rows = np.repeat(np.arange(n), degree)
    keep = rank[rows] < rank[A.indices]
    U = sp.csr_array((np.ones(int(keep.sum())), (rows[keep], A.indices[keep])), shape=A.shape)
    lowest, highest = _masked_sums(U, U, U)
    middle, _ = _masked_sums(sp.csr_array(U.T), U, U)
    return np.rint(lowest + highest + middle).astype(np.int64)


def _masked_sums(L: sp.csr_array, R: sp.csr_array, M: sp.csr_array):
    """Row and column sums of ``(L @ R) * M``, over chunks of rows whose product has at
    most about MAX_PRODUCT entries."""
    n = L.shape[0]
    row_sums, column_sums = np.zeros(n), np.zeros(M.shape[1])
    work = np.cumsum(L @ np.diff(R.indptr).astype(float))  # product entries, at most
    start = 0
    while start < n:
        limit = (work[start - 1] if start else 0.0) + MAX_PRODUCT
        stop = max(start + 1, int(np.searchsorted(work, limit, side="right")))
        found = sp.csr_array((L[start:stop] @ R).multiply(M[start:stop]))
        row_sums[start:stop] = found.sum(axis=1)
        column_sums += np.bincount(found.indices, weights=found.data, minlength=M.shape[1])
        start = stop
    return row_sums, column_sums


def _assortativity(A: sp.csr_array, degree: np.ndarray) -> float:
    """Pearson correlation of the degrees at the ends of every edge (both orientations)."""
    if A.nnz == 0:
        return math.nan
    ends = degree[A.indices].astype(float)
    starts = np.repeat(degree.astype(float), degree)
    if np.ptp(ends) == 0:
        return math.nan
    return float(np.corrcoef(starts, ends)[0, 1])


def _modularity(A: sp.csr_array, degree: np.ndarray, labels: np.ndarray) -> float:
    """Newman's modularity: sum over groups of (internal edges / m - (degree sum / 2m)^2)."""
    if A.nnz == 0:
        return math.nan
    rows = np.repeat(labels, degree)
    inside = np.bincount(rows[labels[A.indices] == rows], minlength=labels.max() + 1)
    totals = np.bincount(labels, weights=degree, minlength=labels.max() + 1)
    twice = float(A.nnz)
    return float(np.sum(inside / twice - (totals / twice) ** 2))


def _centrality(A: sp.csr_array) -> np.ndarray:
    """Eigenvector centrality: the leading eigenvector of A, non-negative, unit norm
    (uniform for a graph without edges)."""
    n = A.shape[0]
    if A.nnz == 0:
        return np.full(n, 1.0 / math.sqrt(n)) if n else np.zeros(0)
    if n < 3:
        vector = np.linalg.eigh(A.toarray())[1][:, -1]
    else:
        start = np.sqrt(np.diff(A.indptr)) + 1.0
        vector = eigsh(A, k=1, which="LA", v0=start, tol=1e-8)[1][:, 0]
    vector = vector * np.sign(vector.sum())
    return vector / np.linalg.norm(vector)
