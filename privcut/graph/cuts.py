"""Cut and rank-1 queries (GRU12 §2) as linear queries over the edge universe.

A cut query is ``G(S, T) = sum_{s in S, t in T} A[s, t]`` with A the weighted
adjacency matrix (symmetric for undirected graphs, so a pair inside S n T
counts twice). A rank-1 query generalises it to ``u^T A v`` for u, v in
[0, 1]^V; a cut query is the rank-1 query of the indicator vectors. As linear
queries over the pair histogram they are kept in product form, so answering k
of them costs sparse products with the adjacency matrix, never a dense k x m
array.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from privcut.graph.universe import EdgeUniverse
from privcut.linear.queries import QueryMatrix

__all__ = ["CHUNK", "check_node_set", "cut_queries", "cut_sums", "cut_value", "rank1_queries"]

CHUNK = 256
"""Queries evaluated together by :func:`cut_sums` (an n x CHUNK block of floats)."""


def check_node_set(nodes: object, name: str) -> Iterable[Hashable]:
    """Check that ``nodes`` (the side ``name`` of a cut query) is a collection of labels.

    Raises
    ------
    TypeError
        Naming ``name``, for None, a string (whose characters would be taken as labels)
        or anything that is not iterable.

    Examples
    --------
    >>> check_node_set({0, 1}, "S")
    {0, 1}
    """
    if nodes is None or isinstance(nodes, (str, bytes)) or not isinstance(nodes, Iterable):
        raise TypeError(
            f"{name} must be a collection of node labels (a set or list), got "
            f"{type(nodes).__name__}; e.g. {name}={{0, 1}}"
        )
    return nodes


def _pair_matrix(universe: EdgeUniverse, histogram: np.ndarray) -> sp.csr_array:
    """The (symmetric for Graph) adjacency matrix holding a histogram's pair weights."""
    rows, columns = universe.pair_index()
    matrix = sp.csr_array((histogram, (rows, columns)), shape=(universe.n, universe.n))
    return matrix if universe.directed else matrix + matrix.T


def _off_diagonal_max(matrix: np.ndarray) -> float:
    np.fill_diagonal(matrix, 0.0)
    return float(matrix.max(initial=0.0))


def rank1_queries(universe: EdgeUniverse, U: np.ndarray, V: np.ndarray) -> QueryMatrix:
    """The rank-1 queries ``u_q^T A v_q`` (columns of U and V, entries in [0, 1]).

    Over the pair histogram the query q has coefficient ``u_i v_j + u_j v_i`` on
    the unordered pair {i, j} (Graph) or ``u_i v_j`` on the ordered pair (DiGraph).
    The sensitivities are computed exactly from these coefficients: the l1
    sensitivity is the largest ``sum_q coefficient`` over pairs and the l2
    sensitivity the root of the largest ``sum_q coefficient**2`` (n x n products,
    without forming the k x m matrix).

    Examples
    --------
    >>> universe = EdgeUniverse.of(nx.complete_graph(3))
    >>> Q = rank1_queries(universe, np.array([[1.0], [0.0], [0.0]]), np.ones((3, 1)))
    >>> Q @ universe.histogram(nx.complete_graph(3)), Q.l1_sensitivity
    (array([2.]), 1.0)
    """
    U = np.asarray(U, dtype=float).reshape(universe.n, -1)
    V = np.asarray(V, dtype=float).reshape(universe.n, -1)
    if U.shape != V.shape:
        raise ValueError(f"U and V must have the same shape, got {U.shape} and {V.shape}")
    if (
        U.min(initial=0.0) < 0.0
        or V.min(initial=0.0) < 0.0
        or max(U.max(initial=0.0), V.max(initial=0.0)) > 1.0
    ):
        raise ValueError("rank-1 query vectors must have entries in [0, 1]")
    k = U.shape[1]
    rows, columns = universe.pair_index()

    def matvec(histogram: np.ndarray) -> np.ndarray:
        A = _pair_matrix(universe, np.ravel(histogram))
        return np.sum(U * (A @ V), axis=0)

    def rmatvec(y: np.ndarray) -> np.ndarray:
        weighted = (U * np.ravel(y)) @ V.T
        if not universe.directed:
            weighted = weighted + weighted.T
        return weighted[rows, columns]

    totals = U @ V.T
    squares = (U**2) @ (V**2).T
    if not universe.directed:
        totals = totals + totals.T
        squares = squares + squares.T + 2.0 * (U * V) @ (U * V).T
    operator = LinearOperator(
        (k, universe.size),
        matvec=matvec,
        rmatvec=rmatvec,
        matmat=lambda H: np.column_stack([matvec(column) for column in H.T]),
        dtype=float,
    )
    integer = bool(np.all(U == np.round(U)) and np.all(V == np.round(V)))
    return QueryMatrix.implicit(
        operator,
        l1_sensitivity=_off_diagonal_max(totals),
        l2_sensitivity=float(np.sqrt(_off_diagonal_max(squares))),
        integer=integer,
    )


def cut_queries(
    universe: EdgeUniverse, queries: Sequence[tuple[Iterable[Hashable], Iterable[Hashable]]]
) -> QueryMatrix:
    """The cut queries ``Q_{S,T}`` for pairs of node sets, as rank-1 queries of indicators.

    Examples
    --------
    >>> G = nx.path_graph(4)
    >>> Q = cut_queries(EdgeUniverse.of(G), [({0, 1}, {2, 3}), ({1}, {0, 2})])
    >>> Q @ EdgeUniverse.of(G).histogram(G)
    array([1., 2.])
    """
    S = (
        np.column_stack([universe.indicator(s) for s, _ in queries])
        if queries
        else np.zeros((universe.n, 0))
    )
    T = (
        np.column_stack([universe.indicator(t) for _, t in queries])
        if queries
        else np.zeros((universe.n, 0))
    )
    return rank1_queries(universe, S, T)


def cut_value(
    G: nx.Graph, S: Iterable[Hashable], T: Iterable[Hashable], weight: str | None = None
) -> float:
    """The exact (non-private) cut value ``G(S, T) = sum_{s in S, t in T} A[s, t]``.

    For disjoint S and T of an undirected graph this is the number of edges between
    them, ``networkx.cut_size(G, S, T)``, or with ``weight`` their total weight,
    ``networkx.cut_size(G, S, T, weight=weight)``. When S and T overlap, an edge with
    both ends in S n T counts twice (A is symmetric; GRU12 §2). For a DiGraph only edges
    from S to T count.

    Parameters
    ----------
    G : networkx.Graph or networkx.DiGraph
        The graph.
    S, T : collections of node labels
        The two sides.
    weight : str or None, default None
        None: every edge counts 1 (any weight attribute ignored, as in NetworkX); an edge
        attribute name: its values, which must lie in [0, 1] (a missing one counts 1).

    Raises
    ------
    GraphInputError
        For multigraphs, self-loops or (with ``weight``) weights outside [0, 1].
    KeyError
        Naming a node of S or T that is not in G.

    Examples
    --------
    >>> cut_value(nx.path_graph(4), {0, 1}, {2, 3})
    1.0
    >>> cut_value(nx.complete_graph(3), {0, 1}, {0, 1})
    2.0
    >>> G = nx.Graph([(0, 1, {"weight": 0.5})])
    >>> cut_value(G, {0}, {1}), cut_value(G, {0}, {1}, weight="weight")
    (1.0, 0.5)
    """
    universe = EdgeUniverse.of(G, weight)
    S, T = universe.indicator(check_node_set(S, "S")), universe.indicator(check_node_set(T, "T"))
    if universe.n == 0:
        return 0.0
    return float(S @ (universe.adjacency(G, weight) @ T))


def cut_sums(adjacency, S: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Every cut sum ``S[:, q]^T A T[:, q]`` of a square matrix A (sparse or dense).

    ``adjacency`` may also be a callable ``X -> A @ X``. Computed ``CHUNK`` queries at a
    time: O(nnz(A) k + n k) time and O(n CHUNK) extra memory for n x k indicator (or
    weight) matrices S and T; nothing n x n.

    Examples
    --------
    >>> A = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> cut_sums(A, np.array([[1.0, 1.0], [0.0, 1.0]]), np.array([[0.0, 1.0], [1.0, 1.0]]))
    array([1., 2.])
    """
    if sp.issparse(adjacency):
        adjacency = sp.csr_array(adjacency)
    product = adjacency if callable(adjacency) else adjacency.__matmul__
    k = S.shape[1]
    sums = np.zeros(k)
    for start in range(0, k, CHUNK):
        part = slice(start, min(k, start + CHUNK))
        left, right = np.asarray(S[:, part], float), np.asarray(T[:, part], float)
        sums[part] = np.sum(left * np.asarray(product(right)), axis=0)
    return sums
