"""Graphs as ``scipy.sparse`` adjacency arrays: reading them in (:func:`read_adjacency`, the
one place an array input is checked) and releasing them (:class:`SyntheticArray`).

A square sparse array A on n nodes is a graph with an edge (i, j) wherever A stores a
nonzero: ``nodes`` (a public sequence of n distinct labels, default ``range(n)``, kept in
the given order) names row and column i, and ``directed`` is a public declaration
(default False), never inferred from the data: whether A is symmetric is data. An
undirected graph must be given symmetric, as NetworkX's ``to_scipy_sparse_array`` gives
it. ``weight=None`` (NetworkX's convention) reads every stored nonzero as 1 (explicit
zeros are dropped); any attribute name (e.g. ``"weight"``) reads the stored values as
weights, which must lie in [0, 1]. Reading is O(n + nnz) time and memory: one conversion
to CSR, checks on its stored entries only, nothing n x n.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from privcut.exceptions import GraphInputError

__all__ = [
    "ArrayGraph",
    "SyntheticArray",
    "edge_array",
    "is_array_graph",
    "read_adjacency",
]


def is_array_graph(G: object) -> bool:
    """Whether G is a ``scipy.sparse`` array or matrix (read by :func:`read_adjacency`).

    Examples
    --------
    >>> is_array_graph(sp.eye_array(2)), is_array_graph([[0, 1], [1, 0]])
    (True, False)
    """
    return sp.issparse(G)


@dataclass(frozen=True)
class ArrayGraph:
    """A checked sparse adjacency: the CSR (sorted indices, no duplicates or explicit
    zeros, zero diagonal, symmetric when undirected, 0/1 when read with ``weight=None``),
    its public node labels and its declared kind.

    Examples
    --------
    >>> read_adjacency(sp.csr_array([[0, 2], [2, 0]])).matrix.toarray().tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """

    matrix: sp.csr_array
    nodes: tuple
    directed: bool


class CheckedAdjacency(sp.csr_array):
    """A graph's adjacency as already read and checked, kept with how it was read, so that
    a pipeline of steps that each read G (a release: its decision, community and
    measurement steps) reads and checks it once. Internal to
    :func:`~privcut.graph.synthetic.synthetic_graph`, which never hands one out (not
    exported).

    :func:`read_adjacency` given it back with the same reading (as ``nodes`` the very
    node tuple :meth:`of` returned with it, not merely an equal one; the same kind;
    ``weight`` None again or a name again) returns a fresh copy of its arrays, O(n + nnz)
    copying, without checking it again; any other reading checks it as any sparse
    adjacency. It is made by :meth:`of` on read-only copies of a checked CSR's arrays (an
    in-place change raises; arrays put in their place drop the mark); an array scipy
    derives from it (a copy, a product, a slice) is not marked. The mark is the release
    pipeline's bookkeeping, not a boundary against its caller: code that marks a matrix
    by hand with :meth:`of` and reads it on the tuple returned skips the checks (as
    patching the module would); a matrix marked by hand and read on the caller's own node
    tuple is checked.

    Examples
    --------
    >>> read = read_adjacency(sp.csr_array([[0, 2], [2, 0]]))
    >>> checked, key = CheckedAdjacency.of(read.matrix, read.nodes, read.directed, None)
    >>> again = read_adjacency(checked, nodes=key)
    >>> again.matrix.toarray().tolist(), again.matrix is checked
    ([[0.0, 1.0], [1.0, 0.0]], False)
    >>> checked.reread(None, read.nodes, False) is None  # an equal tuple: checked again
    True
    >>> type(checked.copy()).__name__, checked.copy().reread(None, key, False) is None
    ('CheckedAdjacency', True)

    Handed over, the next reading shares its arrays and the mark is gone:

    >>> checked.hand_over()
    >>> bool(np.shares_memory(read_adjacency(checked, nodes=key).matrix.data, checked.data))
    True
    >>> checked.reread(None, key, False) is None
    True
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._reading: tuple | None = None
        self._handing = False

    @classmethod
    def of(
        cls, matrix: sp.csr_array, nodes: Sequence[Hashable], directed: bool, weight: str | None
    ) -> tuple[CheckedAdjacency, tuple]:
        """Read-only copies of a checked CSR's arrays, marked as read on a new tuple of
        ``nodes`` (returned with it: the key to read it on without checks),
        ``directed``, and as 0/1 (``weight`` None) or weights (a name). O(n + nnz)."""
        copies = (matrix.data.copy(), matrix.indices.copy(), matrix.indptr.copy())
        array = cls(copies, shape=matrix.shape)
        parts = (array.data, array.indices, array.indptr)  # as scipy keeps them
        for part in parts:
            part.flags.writeable = False
        key = tuple(list(nodes))  # a new tuple object
        array._reading = (key, bool(directed), weight is None, parts)
        return array, key

    def reread(self, weight: str | None, nodes: object, directed: bool) -> sp.csr_array | None:
        """A fresh copy of the adjacency when asked for the reading it was made with (and
        its arrays are the ones it was made with), else None. O(n + nnz)."""
        if self._reading is None:
            return None
        key, read_directed, zero_one, parts = self._reading
        if nodes is not key or directed != read_directed or zero_one != (weight is None):
            return None
        now = (self.data, self.indices, self.indptr)
        if any(part is not made for part, made in zip(now, parts, strict=True)):
            return None  # arrays put in place of the checked ones
        if self._handing:  # the last reading: its own arrays, the mark dropped
            self._reading = None
            for part in now:
                part.flags.writeable = True
            return sp.csr_array(now, shape=self.shape)
        copied = (self.data.copy(), self.indices.copy(), self.indptr.copy())
        return sp.csr_array(copied, shape=self.shape)

    def hand_over(self) -> None:
        """Make the next :meth:`reread` the last: it gives this array's own arrays (made
        writable again), not a copy, and drops the mark (a later reading checks it as
        any sparse adjacency). For the release's last step that reads G (the
        measurements): one copy of G less at its peak; the caller drops this array."""
        self._handing = True


def _check_nodes(nodes: Iterable[Hashable] | None, n: int) -> tuple:
    if nodes is None:
        return tuple(range(n))
    ordered = hasattr(nodes, "__getitem__") and hasattr(nodes, "__len__")  # arrays too
    if isinstance(nodes, (str, bytes, Mapping)) or not ordered:
        raise GraphInputError(
            f"nodes must be a sequence of {n} node labels (one per row of G, in the rows' "
            f"order; a list or tuple, not a set), got {type(nodes).__name__}"
        )
    nodes = tuple(nodes)
    if len(nodes) != n:
        raise GraphInputError(
            f"nodes has {len(nodes)} labels and G has {n} rows: pass one label per row, "
            "in the rows' order"
        )
    try:
        distinct = len(set(nodes))
    except TypeError:
        raise GraphInputError("node labels must be hashable (e.g. ints or strings)") from None
    if distinct != n:
        raise GraphInputError("nodes must not repeat a label: pass n distinct labels")
    return nodes


def _check_directed(directed: object) -> bool:
    if directed is None:
        return False
    if not isinstance(directed, (bool, np.bool_)):
        raise TypeError(f"directed must be True or False (a declaration), got {directed!r}")
    return bool(directed)


def _check_weight_name(weight: object) -> None:
    if weight is not None and (not isinstance(weight, str) or not weight):
        raise TypeError(
            f"weight must be None or an edge attribute name (a non-empty str), got {weight!r}"
        )


def _as_csr(G) -> sp.csr_array:
    """G as a fresh canonical float CSR (the caller's G is never modified)."""
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise GraphInputError(
            f"a sparse adjacency must be square (n x n, row and column i the same node), "
            f"got shape {G.shape}"
        )
    if G.dtype.kind not in "biuf":
        raise GraphInputError(
            f"a sparse adjacency must hold real numbers, got dtype {G.dtype}; convert it, "
            "e.g. G.astype(float)"
        )
    matrix = sp.csr_array(G.astype(float))  # cast first: duplicates sum as floats, not wrapped
    matrix.sum_duplicates()  # also sorts the indices
    if not np.all(np.isfinite(matrix.data)):
        raise GraphInputError(
            "the adjacency stores NaN or infinite values; replace or remove them (weights "
            "must be numbers in [0, 1])"
        )
    matrix.eliminate_zeros()
    return matrix


def _check_values(matrix: sp.csr_array, weight: str | None, directed: bool) -> sp.csr_array:
    if weight is None:
        matrix.data[:] = 1.0
    elif matrix.nnz and not (matrix.data.min() >= 0.0 and matrix.data.max() <= 1.0):
        bad = matrix.data[(matrix.data < 0.0) | (matrix.data > 1.0)][0]
        raise GraphInputError(
            f"the adjacency stores the weight {bad!r}; weights must be numbers in [0, 1]: "
            "rescale them, or pass weight=None to treat the graph as unweighted"
        )
    loops = np.count_nonzero(matrix.diagonal())
    if loops:
        raise GraphInputError(
            f"the adjacency has {loops} nonzero diagonal entr{'y' if loops == 1 else 'ies'} "
            "(self-loops); remove them, e.g. G.setdiag(0) then G.eliminate_zeros()"
        )
    if not directed:
        # a 0/1 graph's values are all 1: its pattern alone is transposed (1-byte values)
        values = np.ones(matrix.nnz, dtype=np.int8) if weight is None else matrix.data
        pattern = sp.csr_array((values, matrix.indices, matrix.indptr), shape=matrix.shape)
        transposed = pattern.T.tocsr()
        transposed.sort_indices()
        same = (
            np.array_equal(matrix.indptr, transposed.indptr)
            and np.array_equal(matrix.indices, transposed.indices)
            and (weight is None or np.array_equal(matrix.data, transposed.data))
        )
        if not same:
            raise GraphInputError(
                "the adjacency is not symmetric, and directed=False (the default) declares "
                "an undirected graph: pass directed=True for a directed graph, or symmetrize "
                "it, e.g. G.maximum(G.T)"
            )
    return matrix


def read_adjacency(
    G,
    weight: str | None = None,
    *,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
) -> ArrayGraph:
    """Check a square ``scipy.sparse`` adjacency (any format) and read it into CSR once.

    The one place array inputs are read: :meth:`~privcut.graph.universe.EdgeUniverse.of`
    and :meth:`~privcut.graph.universe.EdgeUniverse.adjacency` both call it. O(n + nnz)
    time and memory (the symmetry check compares the CSR with its transpose's), nothing
    n x n; the caller's G is not modified. A :class:`CheckedAdjacency` asked for the
    reading it was made with is copied, not checked again.

    Parameters
    ----------
    G : scipy.sparse array or matrix
        The private graph: row and column i are node ``nodes[i]``.
    weight : str or None
        None: every stored nonzero counts 1 (explicit zeros dropped). A name (any, e.g.
        ``"weight"``): the stored values are the weights, which must lie in [0, 1].
    nodes : sequence of hashable, optional
        The public node labels, one per row, distinct; default ``range(n)``. Kept in the
        given order (which must be public).
    directed : bool, optional
        The public declaration of the graph's kind; default False (then G must be
        symmetric). Never inferred from G.

    Returns
    -------
    ArrayGraph

    Raises
    ------
    GraphInputError
        Naming the problem and its fix: not square, not real, NaN or infinite values,
        weights outside [0, 1] (with ``weight``), a nonzero diagonal (self-loops), not
        symmetric when undirected, a node list of the wrong length or with repeats.

    Examples
    --------
    >>> A = sp.coo_array(([1.0, 1.0, 1.0], ([0, 1, 1], [1, 0, 2])), shape=(3, 3))
    >>> read = read_adjacency(A, nodes=("a", "b", "c"), directed=True)
    >>> read.nodes, read.directed, read.matrix.nnz
    (('a', 'b', 'c'), True, 3)
    >>> read_adjacency(A)
    Traceback (most recent call last):
    ...
    privcut.exceptions.GraphInputError: the adjacency is not symmetric, ...
    """
    if not is_array_graph(G):
        raise GraphInputError(f"expected a square scipy.sparse adjacency, got {type(G).__name__}")
    _check_weight_name(weight)
    directed = _check_directed(directed)
    if isinstance(G, CheckedAdjacency):
        copied = G.reread(weight, nodes, directed)
        if copied is not None:
            return ArrayGraph(copied, nodes, directed)
    matrix = _as_csr(G)
    nodes = _check_nodes(nodes, matrix.shape[0])
    return ArrayGraph(_check_values(matrix, weight, directed), nodes, directed)


def edge_array(
    rows: np.ndarray, columns: np.ndarray, values: np.ndarray | None, n: int, directed: bool
) -> sp.csr_array:
    """The n x n CSR adjacency of the pairs ``(rows[k], columns[k])``, each listed once
    (distinct, off the diagonal) with weight ``values[k]`` (1 when None); mirrored for an
    undirected graph. Zero weights are dropped. O(n + |E|) time and memory; pairs listed
    in row-major order (and, undirected, with ``rows < columns``), as the generators
    release them, skip the sort (the same array).

    Examples
    --------
    >>> edge_array(np.array([0, 1]), np.array([1, 2]), None, 3, False).toarray().tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    >>> edge_array(np.array([1, 0]), np.array([2, 1]), None, 3, False).toarray().tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    """
    values = np.ones(rows.size) if values is None else np.asarray(values, dtype=float)
    if _row_major(rows, columns, n, directed):
        if not directed:
            return _mirrored(rows, columns, values, n)
        listed = sp.coo_array((values, (rows, columns)), shape=(n, n))
        listed.has_canonical_format = True  # sorted and distinct: nothing to sum or sort
        matrix = listed.tocsr()
        matrix.eliminate_zeros()
        return matrix
    if not directed:
        rows, columns = np.concatenate([rows, columns]), np.concatenate([columns, rows])
        values = np.concatenate([values, values])
    matrix = sp.csr_array((values, (rows, columns)), shape=(n, n))
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    return matrix


def _mirrored(rows: np.ndarray, columns: np.ndarray, values: np.ndarray, n: int) -> sp.csr_array:
    """The symmetric canonical CSR of the distinct pairs ``rows < columns`` listed in
    row-major order, zero weights dropped: the upper triangle's CSR taken as it is listed
    (its row pointers counted, no sort), plus its transpose. The same arrays (values,
    index dtype) as scipy's conversion of the listed pairs, without the COO conversion's
    pass and the zeros' scan when there are none. O(n + |E|)."""
    nonzero = values != 0
    if not nonzero.all():
        rows, columns, values = rows[nonzero], columns[nonzero], values[nonzero]
    # scipy's index dtype for these pairs: 32 bits unless they or the sizes need more
    small = all(np.can_cast(ends.dtype, np.int32) for ends in (rows, columns))
    dtype = np.int32 if small and max(2 * rows.size, n) <= np.iinfo(np.int32).max else np.int64
    indptr = np.zeros(n + 1, dtype=dtype)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    upper = sp.csr_array((values, columns.astype(dtype, copy=False), indptr), shape=(n, n))
    upper.has_canonical_format = True  # listed row by row, columns ascending, distinct
    return upper + upper.T.tocsr()


def index_dtype(high: int) -> np.dtype:
    """The integer dtype for indices below ``high`` (node ids below n, positions below
    |E|): 32 bits where they fit (``high <= 2^31``), half the memory of int64, else 64
    bits. The release's large temporaries of node ids use it; their keys ``i n + j``
    stay int64.

    Examples
    --------
    >>> index_dtype(10**6), index_dtype(2**31), index_dtype(2**31 + 1)
    (dtype('int32'), dtype('int32'), dtype('int64'))
    """
    return np.dtype(np.int32 if high <= 2**31 else np.int64)


def _row_major(rows: np.ndarray, columns: np.ndarray, n: int, directed: bool) -> bool:
    """Whether the pairs are distinct and listed row by row, columns ascending (and in the
    upper triangle when undirected). O(|E|)."""
    if rows.size == 0 or (not directed and not np.all(rows < columns)):
        return False
    keys = rows.astype(np.int64) * n + columns
    return bool(np.all(keys[1:] > keys[:-1]))


class SyntheticArray(sp.csr_array):
    """A released graph as a CSR adjacency array (what :func:`synthetic_graph` returns for
    a sparse input): a ``scipy.sparse.csr_array`` with two attributes more.

    Attributes
    ----------
    graph : dict
        As NetworkX's ``G.graph``: the release's report is ``graph["privcut"]``.
    nodes : tuple or None
        The public node labels of the rows (and columns), in order.
    directed : bool or None
        Whether the release is a directed graph (the input's public declaration).
    communities : numpy.ndarray or None
        With ``groups="private"``: the released community of every node (int64, in the
        order of ``nodes``), part of the release; None otherwise.

    Arrays that scipy derives from a SyntheticArray (copies, sums, products, slices;
    some keep the class, because scipy rebuilds them through ``self.__class__``) do not
    keep the report, the nodes or the kind: theirs are an empty dict and None. Keep the
    release itself, or copy ``graph``, ``nodes`` and ``directed`` over.

    Examples
    --------
    >>> H = SyntheticArray.of(sp.csr_array([[0.0, 1.0], [1.0, 0.0]]), ("a", "b"), {"k": 1})
    >>> H.nodes, H.graph, H.nnz, H.directed
    (('a', 'b'), {'k': 1}, 2, False)
    >>> (H + H).graph, (H + H).nodes
    ({}, None)
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.graph: dict = {}
        self.nodes: tuple | None = None
        self.directed: bool | None = None
        self.communities = None

    @classmethod
    def of(
        cls, matrix: sp.csr_array, nodes: Sequence[Hashable], graph: dict, directed: bool = False
    ) -> SyntheticArray:
        """Wrap a square CSR on ``nodes`` (shared, not copied) with the dict ``graph``."""
        array = cls((matrix.data, matrix.indices, matrix.indptr), shape=matrix.shape)
        array.nodes, array.graph, array.directed = tuple(nodes), graph, bool(directed)
        return array
