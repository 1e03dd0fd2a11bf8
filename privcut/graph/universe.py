"""The edge universe: a graph as a histogram over vertex pairs (GRU12 §2).

For an undirected ``Graph`` on n nodes the universe is the C(n, 2) unordered
pairs; for a ``DiGraph`` the n(n - 1) ordered pairs. The histogram holds each
pair's weight in [0, 1]. Two graphs are neighbours when they differ in one
pair: one coordinate of the histogram moves by at most 1. The node set is
public; its canonical order (:func:`canonical_order`, a function of the node SET
alone, never of the order in which G's nodes or edges were inserted) fixes the
indices, so every release built on a universe lists nodes and pairs in an order
that reveals nothing about the edges. A ``scipy.sparse`` adjacency instead comes with its
own public node list, kept in the given order, and a declared kind
(:func:`~privcut.graph.arrays.read_adjacency`); it is read in O(n + nnz), never through
NetworkX.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, pairwise, repeat

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.exceptions import GraphInputError
from privcut.graph.arrays import is_array_graph, read_adjacency

__all__ = [
    "EdgeUniverse",
    "canonical_order",
    "check_graph",
    "check_pairs",
    "check_zero_one",
    "check_zero_one_values",
    "multiplicity",
    "stored_entries",
]


def canonical_order(nodes: Iterable[Hashable]) -> tuple:
    """The node labels in an order that depends on the set of labels only.

    Labels that are mutually comparable (all ints, all strings, tuples of those, ...)
    come out sorted. Otherwise (e.g. ints mixed with strings) they are sorted by
    ``(type name, repr)``; if two distinct labels share that key the order would fall
    back to the input order, so that raises instead. An order that followed the input
    would follow the edges whenever a graph was built from its edge list (``list(G)``),
    and a release listing nodes or pairs in that order would reveal them.

    Raises
    ------
    GraphInputError
        When distinct labels are neither mutually comparable nor told apart by
        ``(type name, repr)``.

    Examples
    --------
    >>> canonical_order(["c", "a", "b"])
    ('a', 'b', 'c')
    >>> canonical_order([2, "b", 1, "a"])
    (1, 2, 'a', 'b')
    """
    labels = list(nodes)
    try:
        ordered = sorted(labels)
        if all(a < b for a, b in pairwise(ordered)):
            return tuple(ordered)
    except TypeError:
        pass
    ordered = sorted(labels, key=_label_key)
    for a, b in pairwise(ordered):
        if _label_key(a) == _label_key(b):
            raise GraphInputError(
                f"node labels {a!r} and {b!r} cannot be put in a canonical order (they are "
                "not comparable and share type name and repr); relabel the nodes, e.g. "
                "with nx.convert_node_labels_to_integers after sorting them yourself"
            )
    return tuple(ordered)


def _label_key(node: Hashable) -> tuple[str, str]:
    return (type(node).__name__, repr(node))


def _refuse_declarations(nodes: object, directed: object) -> None:
    """``nodes`` and ``directed`` describe a sparse adjacency; a NetworkX graph has both."""
    if nodes is not None or directed is not None:
        raise GraphInputError(
            "nodes and directed describe a scipy.sparse adjacency; a NetworkX graph carries "
            "its own nodes and kind: drop them (add public nodes with G.add_nodes_from, or "
            "pass a DiGraph for a directed graph)"
        )


def multiplicity(directed: bool) -> int:
    """How many adjacency entries one vertex pair occupies: 2 for a Graph (A[i, j] and
    A[j, i]), 1 for a DiGraph. A pair's weight enters a cut sum ``G(S, T)`` up to this
    many times, and an edge count is the matrix sum divided by it.

    Examples
    --------
    >>> multiplicity(False), multiplicity(True)
    (2, 1)
    """
    return 1 if directed else 2


def check_graph(G: object, weight: str | None = None) -> nx.Graph:
    """Validate an input graph: a NetworkX Graph or DiGraph without self-loops; with
    ``weight`` (an edge attribute name), every edge's weight must be a number in [0, 1]
    (a missing attribute counts 1). With ``weight=None`` (NetworkX's convention, as in
    ``networkx.cut_size``) the graph is unweighted and any weight attribute is ignored.

    Raises
    ------
    GraphInputError
        Naming the problem and what to do about it.

    Examples
    --------
    >>> check_graph(nx.path_graph(3)).number_of_nodes()
    3
    """
    if not isinstance(G, nx.Graph):
        raise GraphInputError(
            f"expected a networkx.Graph or networkx.DiGraph (or, where accepted, a square "
            f"scipy.sparse adjacency), got {type(G).__name__}"
        )
    if G.is_multigraph():
        raise GraphInputError(
            "multigraphs are not supported: collapse parallel edges first, e.g. nx.Graph(G) "
            "(weights must then be re-set to lie in [0, 1])"
        )
    loops = list(nx.selfloop_edges(G))
    if loops:
        raise GraphInputError(
            f"the graph has {len(loops)} self-loop(s), e.g. {loops[0]!r}; remove them with "
            "G.remove_edges_from(nx.selfloop_edges(G))"
        )
    if weight is not None:
        _check_edge_weights(G, weight)
    return G


def _check_edge_weights(G: nx.Graph, weight: str) -> None:
    if not isinstance(weight, str) or not weight:
        raise TypeError(
            f"weight must be None or an edge attribute name (a non-empty str), got {weight!r}"
        )
    for u, v, value in G.edges(data=weight, default=1.0):
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float, np.number))
            or not (0.0 <= float(value) <= 1.0)
        ):
            raise GraphInputError(
                f"edge ({u!r}, {v!r}) has {weight}={value!r}; weights must be numbers in "
                f"[0, 1]: rescale them, or pass weight=None to treat the graph as unweighted"
            )


def check_zero_one(adjacency: sp.csr_array, what: str) -> sp.csr_array:
    """The adjacency matrix, or GraphInputError if a weight is not 0 or 1: for releases
    whose noise is calibrated to count data (checked before any noise is drawn).

    Examples
    --------
    >>> check_zero_one(sp.csr_array(np.eye(2)), "answer_cuts").nnz
    2
    """
    check_zero_one_values(adjacency.data, what)
    return adjacency


def check_zero_one_values(
    values: np.ndarray,
    what: str,
    fix: str = "pass weight=None to treat the graph as unweighted",
) -> np.ndarray:
    """:func:`check_zero_one` on the adjacency's stored values (e.g. from
    :meth:`EdgeUniverse.entries`): the same GraphInputError if one is not 0 or 1, its
    message ending with the ``fix``.

    Examples
    --------
    >>> check_zero_one_values(np.array([1.0, 0.0]), "answer_cuts").tolist()
    [1.0, 0.0]
    """
    if not ((values == 0.0) | (values == 1.0)).all():  # numpy.isin's test, without its setup
        raise GraphInputError(f"{what} releases 0/1 graphs, and a weight is not 0 or 1; {fix}")
    return values


def stored_entries(adjacency: sp.sparray | sp.spmatrix) -> tuple[np.ndarray, ...]:
    """The stored entries of a sparse matrix as ``(rows, columns, values)``, in the order
    of its COO form (row by row for CSR, expanded from ``indptr`` without building one).

    Examples
    --------
    >>> rows, columns, values = stored_entries(sp.csr_array([[0, 2], [3, 0]]))
    >>> rows.tolist(), columns.tolist(), values.tolist()
    ([0, 1], [1, 0], [2, 3])
    """
    if adjacency.format != "csr":
        coo = sp.coo_array(adjacency)
        return coo.row, coo.col, coo.data
    counts = np.diff(adjacency.indptr)
    return np.repeat(np.arange(adjacency.shape[0]), counts), adjacency.indices, adjacency.data


@dataclass(frozen=True)
class EdgeUniverse:
    """The vertex pairs of a node set, in a fixed order.

    Attributes
    ----------
    nodes : tuple
        The node labels; node ``nodes[i]`` has index i. :meth:`of` puts them in
        :func:`canonical_order`; a universe built directly keeps the given order (which
        must then be public).
    directed : bool
        Ordered pairs (DiGraph) or unordered pairs (Graph).

    Examples
    --------
    >>> universe = EdgeUniverse.of(nx.path_graph(3))
    >>> universe.size, universe.pairs()
    (3, [(0, 1), (0, 2), (1, 2)])
    >>> universe.histogram(nx.path_graph(3)).tolist()
    [1.0, 0.0, 1.0]
    """

    nodes: tuple
    directed: bool

    @classmethod
    def of(
        cls,
        G: nx.Graph | sp.sparray | sp.spmatrix,
        weight: str | None = None,
        *,
        nodes: Iterable[Hashable] | None = None,
        directed: bool | None = None,
    ) -> EdgeUniverse:
        """The universe of a validated graph's node set.

        A NetworkX graph (checked as in :func:`check_graph`) gives its nodes in
        :func:`canonical_order` (never G's insertion order, which may follow its edges)
        and its own kind; ``nodes`` and ``directed`` are refused for it. A square
        ``scipy.sparse`` adjacency (any format) is checked by
        :func:`~privcut.graph.arrays.read_adjacency` in O(n + nnz): ``nodes`` (public
        labels of its rows, default ``range(n)``) are kept in the given order and
        ``directed`` (default False) is a declaration, never inferred from G.

        Raises
        ------
        GraphInputError
            Naming the problem and its fix.

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> A = sp.csr_array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
        >>> universe = EdgeUniverse.of(A, nodes=("c", "a", "b"))
        >>> universe.nodes, universe.directed
        (('c', 'a', 'b'), False)
        """
        if is_array_graph(G):
            read = read_adjacency(G, weight, nodes=nodes, directed=directed)
            return cls(read.nodes, read.directed)
        _refuse_declarations(nodes, directed)
        check_graph(G, weight)
        return cls(canonical_order(G), G.is_directed())

    @classmethod
    def read(
        cls,
        G: nx.Graph | sp.sparray | sp.spmatrix,
        weight: str | None = None,
        *,
        nodes: Iterable[Hashable] | None = None,
        directed: bool | None = None,
    ) -> tuple[EdgeUniverse, sp.csr_array]:
        """:meth:`of` and :meth:`adjacency` in one pass: the universe and G's checked CSR
        adjacency in its order (a sparse G is read once, not twice). O(n + |E|).

        Examples
        --------
        >>> universe, adjacency = EdgeUniverse.read(nx.path_graph(3))
        >>> universe.nodes, adjacency.nnz
        ((0, 1, 2), 4)
        """
        if is_array_graph(G):
            read = read_adjacency(G, weight, nodes=nodes, directed=directed)
            return cls(read.nodes, read.directed), read.matrix
        universe = cls.of(G, weight, nodes=nodes, directed=directed)
        return universe, universe.adjacency(G, weight)

    @classmethod
    def read_entries(
        cls,
        G: nx.Graph | sp.sparray | sp.spmatrix,
        weight: str | None = None,
        *,
        nodes: Iterable[Hashable] | None = None,
        directed: bool | None = None,
    ) -> tuple[EdgeUniverse, tuple[np.ndarray, ...]]:
        """:meth:`read` with the adjacency as its entries ``(rows, columns, values)``
        (:meth:`entries`; a sparse G's stored entries), for callers that only scatter them:
        a NetworkX G's CSR matrix is never built. Checks and errors as :meth:`read`.

        Examples
        --------
        >>> universe, (rows, columns, values) = EdgeUniverse.read_entries(nx.path_graph(3))
        >>> sorted(zip(rows.tolist(), columns.tolist()))
        [(0, 1), (1, 0), (1, 2), (2, 1)]
        """
        if is_array_graph(G):
            universe, adjacency = cls.read(G, weight, nodes=nodes, directed=directed)
            return universe, stored_entries(adjacency)
        universe = cls.of(G, weight, nodes=nodes, directed=directed)
        return universe, universe.entries(G, weight)

    @property
    def n(self) -> int:
        """Number of nodes."""
        return len(self.nodes)

    @property
    def multiplicity(self) -> int:
        """Adjacency entries per vertex pair (:func:`multiplicity`)."""
        return multiplicity(self.directed)

    @property
    def size(self) -> int:
        """Number of vertex pairs: C(n, 2) or n(n - 1)."""
        return self.n * (self.n - 1) if self.directed else math.comb(self.n, 2)

    def index(self) -> dict[Hashable, int]:
        """Node label to index (built once per universe; do not modify it)."""
        return self._positions

    @cached_property
    def _positions(self) -> dict[Hashable, int]:
        return {node: i for i, node in enumerate(self.nodes)}

    def integer_index(self) -> np.ndarray | None:
        """For labels that are all ints (not bools) in ``[0, 4n + 1024)``: the array whose
        entry at a label is its index, -1 at other values, so that an integer NumPy array
        of labels is mapped in one vectorised lookup; None for other labels. Built once per
        universe, O(n) (do not modify it).

        Examples
        --------
        >>> EdgeUniverse((2, 0), False).integer_index().tolist()
        [1, -1, 0]
        >>> EdgeUniverse(("a", "b"), False).integer_index() is None
        True
        """
        return self._integer_positions

    @cached_property
    def _integer_positions(self) -> np.ndarray | None:
        if not all(type(node) is int for node in self.nodes):
            return None
        labels = np.array(self.nodes, dtype=np.int64)
        if labels.size and (labels.min() < 0 or labels.max() >= 4 * self.n + 1024):
            return None
        table = np.full(int(labels.max(initial=-1)) + 1, -1, dtype=np.intp)
        table[labels] = np.arange(self.n, dtype=np.intp)
        return table

    def indices(self, nodes: Iterable[Hashable]) -> np.ndarray:
        """Sorted unique indices of a node set; an unknown label raises KeyError naming it."""
        position = self.index()
        try:
            found = [position[node] for node in nodes]
        except KeyError as error:
            raise KeyError(f"node {error.args[0]!r} is not in the graph") from None
        return np.unique(np.array(found, dtype=np.intp))

    def indicator(self, nodes: Iterable[Hashable]) -> np.ndarray:
        """The 0/1 vector of a node set."""
        vector = np.zeros(self.n)
        vector[self.indices(nodes)] = 1.0
        return vector

    def weights(self, values: Mapping[Hashable, float], name: str = "u") -> np.ndarray:
        """A vector in [0, 1]^V from a mapping node -> value (missing nodes are 0); a
        TypeError naming ``name`` for anything but a mapping of real numbers."""
        if not isinstance(values, Mapping):
            raise TypeError(
                f"{name} must be a mapping node -> weight in [0, 1], got "
                f"{type(values).__name__}; e.g. {name}={{0: 1.0, 1: 0.5}} (for node sets, "
                "cut(S, T))"
            )
        position = self.index()
        vector = np.zeros(self.n)
        for node, value in values.items():
            if node not in position:
                raise KeyError(f"node {node!r} is not in the graph")
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise TypeError(
                    f"rank-1 query weights must be real numbers in [0, 1]; node {node!r} of "
                    f"{name} has {value!r}"
                ) from None
            if not 0.0 <= number <= 1.0:
                raise ValueError(
                    f"rank-1 query weights must lie in [0, 1]; node {node!r} has {value!r}"
                )
            vector[position[node]] = number
        return vector

    def pair_index(self) -> tuple[np.ndarray, np.ndarray]:
        """Row and column index of every pair, in histogram order (upper triangle row by row
        for Graph; every off-diagonal cell row by row for DiGraph)."""
        if self.directed:
            rows, columns = np.nonzero(~np.eye(self.n, dtype=bool))
            return rows, columns
        return np.triu_indices(self.n, k=1)

    def pairs(self) -> list[tuple[Hashable, Hashable]]:
        """The pairs as node labels, in histogram order."""
        rows, columns = self.pair_index()
        return [(self.nodes[i], self.nodes[j]) for i, j in zip(rows, columns, strict=True)]

    def edge_index(
        self, G: nx.Graph | sp.sparray | sp.spmatrix, weight: str | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """G's edges as ``(rows, columns, values)`` arrays in this node order, each edge
        once: values 1 for ``weight=None``, else the edges' ``weight`` attribute (missing
        counts 1). For a NetworkX G, in the order G lists them; edges with an endpoint
        outside this universe are left out. O(|E|), one pass over G's edges (and one more
        for the weights). For a sparse G (rows and columns this universe's nodes, checked
        by :meth:`adjacency`), row by row, the upper triangle for an undirected graph.

        Examples
        --------
        >>> rows, columns, values = EdgeUniverse((0, 1, 2), False).edge_index(nx.path_graph(3))
        >>> rows.tolist(), columns.tolist(), values.tolist()
        ([0, 1], [1, 2], [1.0, 1.0])
        """
        if is_array_graph(G):
            coo = self.adjacency(G, weight).tocoo()
            keep = slice(None) if self.directed else coo.row < coo.col
            return (
                coo.row[keep].astype(np.intp),
                coo.col[keep].astype(np.intp),
                coo.data[keep],
            )
        position, count = self.index(), G.number_of_edges()
        labels = chain.from_iterable(G.edges())  # mapped in C, no generator
        ends = np.fromiter(map(position.get, labels, repeat(-1)), dtype=np.intp, count=2 * count)
        rows, columns = ends[0::2], ends[1::2]
        if weight is None:
            values = np.ones(count)
        else:
            found = G.edges(data=weight, default=1.0)
            values = np.fromiter((value for *_, value in found), dtype=float, count=count)
        inside = (rows >= 0) & (columns >= 0)
        return rows[inside], columns[inside], values[inside]

    def adjacency(
        self, G: nx.Graph | sp.sparray | sp.spmatrix, weight: str | None = None
    ) -> sp.csr_array:
        """The adjacency matrix (symmetric for Graph) in this node order: 0/1 for
        ``weight=None``, else the edges' ``weight`` attribute (missing counts 1).
        O(|E|) from :meth:`edge_index`, nothing n x n. A sparse G is read as the
        adjacency of this universe's nodes and kind by
        :func:`~privcut.graph.arrays.read_adjacency` (checked: zero diagonal, symmetric
        when undirected, 0/1 for ``weight=None``, weights in [0, 1] otherwise), O(nnz).

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> A = sp.coo_array(([2.0, 2.0], ([0, 1], [1, 0])), shape=(3, 3))
        >>> EdgeUniverse((0, 1, 2), False).adjacency(A).toarray().tolist()
        [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
        """
        if is_array_graph(G):
            return read_adjacency(G, weight, nodes=self.nodes, directed=self.directed).matrix
        rows, columns, values = self.entries(G, weight)
        return sp.csr_array((values, (rows, columns)), shape=(self.n, self.n))

    def entries(self, G: nx.Graph, weight: str | None = None) -> tuple[np.ndarray, ...]:
        """The entries of a NetworkX G's :meth:`adjacency` as ``(rows, columns, values)``:
        :meth:`edge_index`, mirrored for an undirected graph (each edge's two cells), each
        cell once. O(|E|).

        Examples
        --------
        >>> rows, columns, values = EdgeUniverse((0, 1, 2), False).entries(nx.path_graph(3))
        >>> rows.tolist(), columns.tolist()
        ([0, 1, 1, 2], [1, 2, 0, 1])
        """
        rows, columns, values = self.edge_index(G, weight)
        if not self.directed:
            off = rows != columns
            rows, columns, values = (
                np.concatenate([rows, columns[off]]),
                np.concatenate([columns, rows[off]]),
                np.concatenate([values, values[off]]),
            )
        return rows, columns, values

    def histogram(self, G: nx.Graph, weight: str | None = None) -> np.ndarray:
        """The graph's pair weights, in histogram order."""
        rows, columns = self.pair_index()
        return np.asarray(self.adjacency(G, weight)[rows, columns]).ravel()

    def unweighted_graph(self, chosen: np.ndarray) -> nx.Graph:
        """A graph on these nodes whose edges are the pairs ``chosen`` (histogram
        indices), without weights.

        Examples
        --------
        >>> sorted(EdgeUniverse((0, 1, 2), False).unweighted_graph(np.array([2])).edges)
        [(1, 2)]
        """
        H = nx.DiGraph() if self.directed else nx.Graph()
        H.add_nodes_from(self.nodes)
        rows, columns = self.pair_index()
        H.add_edges_from((self.nodes[rows[p]], self.nodes[columns[p]]) for p in chosen)
        return H

    def graph(self, histogram: np.ndarray, *, keep_zero: bool = False) -> nx.Graph:
        """A graph on these nodes with the histogram's pair weights (zero pairs omitted)."""
        H = nx.DiGraph() if self.directed else nx.Graph()
        H.add_nodes_from(self.nodes)
        rows, columns = self.pair_index()
        chosen = np.arange(rows.size) if keep_zero else np.flatnonzero(histogram)
        H.add_weighted_edges_from(
            (self.nodes[rows[p]], self.nodes[columns[p]], float(histogram[p])) for p in chosen
        )
        return H


def check_pairs(universe: EdgeUniverse, what: str) -> EdgeUniverse:
    """Refuse a universe without vertex pairs (0 or 1 nodes) for a release ``what``.

    Such a graph has no private data at all (every neighbour is the same graph), so
    there is nothing to release; privcut raises rather than returning an empty release,
    the same way for every mechanism.

    Raises
    ------
    GraphInputError
        If the node set has fewer than 2 nodes.

    Examples
    --------
    >>> check_pairs(EdgeUniverse.of(nx.path_graph(2)), "noisy_graph").size
    1
    """
    if universe.size == 0:
        raise GraphInputError(
            f"{what} needs a graph with at least 2 nodes, got {universe.n}: with no vertex "
            "pairs there is no private data to release; add the public nodes to G"
        )
    return universe
