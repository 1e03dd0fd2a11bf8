"""Public groups: a partition of the nodes fixed without the edges, and its block pairs.

The ``"blocks"`` measurement counts the edges of every block pair; the generator keeps
those counts exactly and the bounds step reads the group workload classes from them.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from privcut.exceptions import GraphInputError
from privcut.graph.universe import EdgeUniverse

__all__ = ["Partition"]


@dataclass(frozen=True)
class Partition:
    """A public partition of the nodes into groups, and its block pairs.

    Block pairs are unordered ``(a, b)``, ``a <= b``, for a Graph and ordered for a DiGraph;
    ``pairs[k]`` is the number of vertex pairs in block pair k.

    Examples
    --------
    >>> import networkx as nx
    >>> universe = EdgeUniverse.of(nx.path_graph(4))
    >>> partition = Partition.of(universe, {0: "x", 1: "x", 2: "y", 3: "y"})
    >>> partition.pairs.tolist()  # (x, x), (x, y), (y, y)
    [1, 4, 1]
    >>> partition.block_sums(nx.to_numpy_array(nx.path_graph(4))).tolist()
    [1.0, 1.0, 1.0]
    """

    labels: np.ndarray
    names: tuple
    directed: bool

    @classmethod
    def of(cls, universe: EdgeUniverse, groups: Mapping[Hashable, Hashable]) -> Partition:
        """The partition of the universe's nodes given by a mapping node -> group."""
        if not isinstance(groups, Mapping):
            raise TypeError(f"groups must be a mapping node -> group, got {type(groups).__name__}")
        missing = [node for node in universe.nodes if node not in groups]
        if missing:
            raise GraphInputError(
                f"groups has no group for {len(missing)} node(s), e.g. {missing[:3]!r}; "
                "give every node a (public) group"
            )
        if len(groups) != universe.n:
            extra = [node for node in groups if node not in universe.index()]
            raise GraphInputError(f"groups names node(s) not in the graph, e.g. {extra[:3]!r}")
        names: dict[Hashable, int] = {}
        try:
            labels = [names.setdefault(groups[node], len(names)) for node in universe.nodes]
        except TypeError as error:
            raise TypeError(f"group labels must be hashable: {error}") from None
        return cls(np.array(labels, dtype=np.intp), tuple(names), universe.directed)

    @classmethod
    def from_labels(cls, labels: np.ndarray, directed: bool) -> Partition:
        """The partition whose node i is in group ``labels[i]`` (integers): the same as
        :meth:`of` on ``dict(zip(universe.nodes, labels.tolist()))``, groups numbered in
        the order of their first node and named by their labels (Python ints), in
        O(n log n) without a per-node Python step.

        Examples
        --------
        >>> partition = Partition.from_labels(np.array([7, 3, 7, 5]), False)
        >>> partition.labels.tolist(), partition.names
        ([0, 1, 0, 2], (7, 3, 5))
        """
        values, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
        order = np.argsort(first)
        rank = np.empty(order.size, dtype=np.intp)
        rank[order] = np.arange(order.size)
        return cls(rank[inverse.ravel()], tuple(values[order].tolist()), bool(directed))

    @classmethod
    def alternating(cls, n: int, directed: bool) -> Partition:
        """Two groups of alternate nodes (0, 1, 0, 1, ...; one group for one node): the
        same as :meth:`of` on ``{node: i % 2 for i, node in enumerate(nodes)}``, in O(n)
        without a per-node Python step.

        Examples
        --------
        >>> partition = Partition.alternating(5, False)
        >>> partition.labels.tolist(), partition.names, partition.sizes.tolist()
        ([0, 1, 0, 1, 0], (0, 1), [3, 2])
        """
        labels = np.arange(n, dtype=np.intp) % 2
        return cls(labels, tuple(range(min(n, 2))), bool(directed))

    @property
    def g(self) -> int:
        """Number of groups."""
        return len(self.names)

    @cached_property
    def sizes(self) -> np.ndarray:
        return np.bincount(self.labels, minlength=self.g)

    @cached_property
    def blocks(self) -> tuple[np.ndarray, np.ndarray]:
        """The block pairs as (first group, second group) arrays."""
        if self.directed:
            first, second = np.indices((self.g, self.g))
            return first.ravel(), second.ravel()
        return np.triu_indices(self.g)

    @property
    def size(self) -> int:
        """Number of block pairs."""
        return self.blocks[0].size

    @cached_property
    def pairs(self) -> np.ndarray:
        first, second = self.blocks
        counts = self.sizes[first] * self.sizes[second]
        inside = first == second
        counts[inside] -= self.sizes[first[inside]]
        if not self.directed:
            counts[inside] //= 2
        return counts

    @cached_property
    def _table(self) -> np.ndarray:
        """Block pair index of every (group, group)."""
        table = np.empty((self.g, self.g), dtype=np.intp)
        first, second = self.blocks
        table[first, second] = np.arange(self.size)
        if not self.directed:
            table[second, first] = np.arange(self.size)
        return table

    @cached_property
    def indicator(self) -> np.ndarray:
        """The n x g 0/1 membership matrix."""
        return np.eye(self.g)[self.labels]

    def block_of(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """The block pair of every vertex pair (rows[p], columns[p])."""
        return self._table[self.labels[rows], self.labels[columns]]

    def block_sums(self, matrix) -> np.ndarray:
        """Pair weight in every block pair, from an n x n (dense or sparse) matrix with zero
        diagonal; an undirected pair inside a group appears twice in the matrix. A sparse
        matrix is summed over its stored entries, O(nnz) (no n x g indicator; a CSR's
        entries read in place, their row groups repeated from the row pointers, int32
        where the groups fit)."""
        if sp.issparse(matrix):
            if matrix.format == "csr":
                labels = self.labels.astype(np.int32 if self.g**2 < 2**31 else np.intp)
                first = np.repeat(labels, np.diff(matrix.indptr))
                second, data = labels[matrix.indices], matrix.data
            else:
                entries = sp.coo_array(matrix)
                first, second = self.labels[entries.row], self.labels[entries.col]
                data = entries.data
            blocks = self._table.ravel()[first * self.g + second]
            sums = np.bincount(blocks, np.asarray(data, dtype=float), self.size)
            return sums if self.directed else sums / 2.0
        P = self.indicator
        sums = np.asarray(P.T @ (matrix @ P))
        first, second = self.blocks
        values = sums[first, second]
        if not self.directed:
            values[first == second] /= 2.0
        return values

    def expand(self, values: np.ndarray) -> np.ndarray:
        """The n x n matrix holding each block pair's value on its vertex pairs."""
        return np.asarray(values)[self._table][self.labels][:, self.labels]

    def rest(self) -> list[np.ndarray]:
        """For each group a, the block pairs of the cut (a, V - a)."""
        first, second = self.blocks
        if self.directed:
            return [np.flatnonzero((first == a) & (second != a)) for a in range(self.g)]
        return [
            np.flatnonzero((first != second) & ((first == a) | (second == a)))
            for a in range(self.g)
        ]
