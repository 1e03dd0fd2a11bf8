"""The public size limit of the releases that hold something n x n.

Most of privcut's cut releases work on the CSR adjacency matrix in O(n k + |E|) time and
memory (k the number of queries). A few are dense by nature: randomized response on every
vertex pair (``answer_cuts(strategy="noisy-graph")``) holds an n x n noisy matrix, and
multiplicative weights or the median construction (``CutOracle(idc=...)``) a weight per
vertex pair. Above :data:`DENSE_NODES` nodes they refuse, from the public node count alone
and before any privacy budget is spent, with a message naming the sparse alternative.
"""

from __future__ import annotations

__all__ = ["DENSE_NODES", "check_dense_nodes"]

DENSE_NODES = 10_000
"""Most nodes a release that holds an n x n array accepts.

The arithmetic: at n = 10^4 one n x n float64 matrix is 10^8 x 8 B = 0.8 GB, and a pair
vector over the C(n, 2) = 5 x 10^7 unordered pairs with its int64 row and column indices
(multiplicative weights) is 5 x 10^7 x 24 B = 1.2 GB; the noise draws and one query
vector add about as much again, so such a release peaks at 2-3 GB, within a 4-8 GB
machine. At 2 x 10^4 nodes one dense matrix alone is 3.2 GB and the peak some 10 GB."""


def check_dense_nodes(n: int, what: str, alternative: str) -> None:
    """Refuse a release ``what`` that holds n x n values when ``n > DENSE_NODES``.

    A function of the public node count only, called before any privacy budget is spent.

    Raises
    ------
    ValueError
        Naming ``what``, the node count, the limit, the memory an n x n float64 array
        would take and the ``alternative`` to use instead.

    Examples
    --------
    >>> check_dense_nodes(100, "noisy-graph", 'strategy="blocks"')
    >>> check_dense_nodes(20_000, "noisy-graph", 'strategy="blocks"')
    Traceback (most recent call last):
    ...
    ValueError: noisy-graph holds an n x n array (3.2 GB as float64 at 20000 nodes) and \
accepts at most privcut.graph.limits.DENSE_NODES = 10000 nodes; use strategy="blocks"
    """
    if n > DENSE_NODES:
        raise ValueError(
            f"{what} holds an n x n array ({8.0 * n * n / 1e9:.1f} GB as float64 at {n} nodes) "
            f"and accepts at most privcut.graph.limits.DENSE_NODES = {DENSE_NODES} nodes; "
            f"use {alternative}"
        )
