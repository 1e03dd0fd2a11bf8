"""Seeded synthetic graphs: dense ones, where randomized response shines, and large sparse
heavy-tailed community graphs (:func:`community_graph`), for benchmarks at scale.

The dense ones are thin wrappers over NetworkX that fix the seed, keep node labels as
integers and record the planted groups (public by construction) in ``G.graph["groups"]``.
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_scalar

__all__ = ["community_graph", "dense_gnp", "planted_partition", "stochastic_block_model"]


def dense_gnp(n: int, p: float = 0.5, *, seed: int = 0) -> nx.Graph:
    """G(n, p) with a fixed seed (dense by default).

    Examples
    --------
    >>> dense_gnp(100, seed=1).number_of_edges()
    2466

    Raises
    ------
    TypeError, ValueError
        Naming the parameter (n an integer >= 0, p in [0, 1]), before any drawing.
    """
    n = check_scalar(n, "n", int, low=0)
    return nx.gnp_random_graph(n, _check_probability(p, "p"), seed=seed)


def _check_probability(value: object, name: str) -> float:
    """A probability in [0, 1] (NaN refused), or an error naming it."""
    return check_scalar(value, name, low=0.0, high=1.0)


def _check_blocks(sizes: object, p: object) -> tuple[list[int], list[list[float]]]:
    """``sizes`` (integers >= 0) and ``p`` (a symmetric matrix of probabilities, one row
    and column per block) of :func:`stochastic_block_model`, or an error naming them."""
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Iterable):
        raise TypeError(f"sizes must be a list of block sizes, e.g. [20, 30], got {sizes!r}")
    sizes = [check_scalar(size, "each block size", int, low=0) for size in sizes]
    if isinstance(p, (str, bytes)) or not isinstance(p, Iterable):
        raise TypeError(
            f"p must be a list of rows of probabilities, e.g. [[0.5, 0.1], [0.1, 0.4]], got {p!r}"
        )
    rows = [list(row) if isinstance(row, Iterable) else row for row in p]
    if len(rows) != len(sizes) or any(
        not isinstance(row, list) or len(row) != len(sizes) for row in rows
    ):
        raise ValueError(
            f"p must be a {len(sizes)} x {len(sizes)} matrix, one row and column per block "
            f"of sizes={sizes}"
        )
    rows = [[_check_probability(value, "each entry of p") for value in row] for row in rows]
    for a, row in enumerate(rows):
        for b in range(a):
            if row[b] != rows[b][a]:
                raise ValueError(
                    f"p must be symmetric for an undirected graph: p[{a}][{b}] = {row[b]} but "
                    f"p[{b}][{a}] = {rows[b][a]}"
                )
    return sizes, rows


def stochastic_block_model(sizes: list[int], p: list[list[float]], *, seed: int = 0) -> nx.Graph:
    """A stochastic block model; ``G.graph["groups"]`` maps each node to its block.

    Examples
    --------
    >>> G = stochastic_block_model([20, 30], [[0.5, 0.05], [0.05, 0.4]], seed=1)
    >>> G.number_of_nodes(), G.graph["groups"][0], G.graph["groups"][49]
    (50, 0, 1)

    Raises
    ------
    TypeError, ValueError
        Naming the parameter (sizes integers >= 0; p a symmetric len(sizes) x len(sizes)
        matrix of probabilities in [0, 1]), before any drawing.
    """
    sizes, p = _check_blocks(sizes, p)
    G = nx.stochastic_block_model(sizes, p, seed=seed)
    groups = {node: G.nodes[node]["block"] for node in G}
    H = nx.Graph(G.edges())
    H.add_nodes_from(sorted(G))
    H = nx.convert_node_labels_to_integers(H, ordering="sorted")
    H.graph["groups"] = groups
    return H


def planted_partition(
    groups: int, size: int, p_in: float, p_out: float, *, seed: int = 0
) -> nx.Graph:
    """``groups`` blocks of ``size`` nodes, edges with probability p_in inside a block and
    p_out between blocks.

    Examples
    --------
    >>> G = planted_partition(20, 50, 0.3, 0.02, seed=0)
    >>> G.number_of_nodes(), len(set(G.graph["groups"].values()))
    (1000, 20)

    Raises
    ------
    TypeError, ValueError
        Naming the parameter (groups and size integers >= 0, p_in and p_out in [0, 1]),
        before any drawing.
    """
    groups = check_scalar(groups, "groups", int, low=0)
    size = check_scalar(size, "size", int, low=0)
    p_in, p_out = _check_probability(p_in, "p_in"), _check_probability(p_out, "p_out")
    sizes = [size] * groups
    p = [[p_in if a == b else p_out for b in range(groups)] for a in range(groups)]
    return stochastic_block_model(sizes, p, seed=seed)


MAX_NODES = 10**8
"""Most nodes :func:`community_graph` draws (its arrays hold a few values per node)."""

MAX_ROUNDS = 64
"""Most rounds of redrawing :func:`community_graph` spends on replacing duplicate pairs."""


def community_graph(
    n: int,
    groups: int,
    average_degree: float,
    *,
    exponent: float = 2.5,
    mixing: float = 0.1,
    directed: bool = False,
    seed: RandomState = None,
    as_sparse: bool = False,
) -> nx.Graph | tuple[sp.csr_array, np.ndarray]:
    """A heavy-tailed community graph: a degree-corrected block model with power-law
    expected degrees, drawn in O(n + |E| log n) time and O(n + |E|) memory without
    enumerating vertex pairs.

    The model is Karrer & Newman 2011's degree-corrected stochastic block model with
    Chung & Lu 2002's weights (a pair's chance proportional to its ends' weights). Node
    i gets a weight ``theta_i`` from a Pareto law, ``P(theta > x) = x^-(exponent - 1)``
    for ``x >= 1`` (a density ``~ x^-exponent``, so degrees follow a power law with that
    exponent), and belongs to group ``i * groups // n`` (``groups`` contiguous groups
    whose sizes differ by at most one). The graph has exactly
    ``m = round(n * average_degree / 2)`` edges (``n * average_degree`` arcs for a
    DiGraph): ``round(mixing * m)`` between groups, the rest within. A within-group
    edge picks its group with probability proportional to the group's total weight and
    both endpoints in it with probability proportional to their weights; a between-group
    edge picks both endpoints from all nodes by weight, redrawn when they share a group;
    so every node's expected share of edges that leave its group is about ``mixing``.
    Self-loops and repeated pairs are dropped and redrawn (in at most ``MAX_ROUNDS``
    rounds), which trims the largest hubs' degrees a little below their weights, as a
    simple graph must. Endpoints are drawn by inverse CDF (binary search in the
    cumulative weights): O(n + |E| log n) time, O(n + |E|) memory.

    Parameters
    ----------
    n : int
        Number of nodes, labelled 0 .. n - 1.
    groups : int
        Number of public groups, in [1, n].
    average_degree : float
        Mean degree (mean out-degree for a DiGraph), at most a quarter of the pairs a
        node could join (else the sparse drawing is the wrong tool: use
        :func:`stochastic_block_model`).
    exponent : float, default 2.5
        Power-law exponent of the expected degrees, > 2 (finite mean).
    mixing : float, default 0.1
        Fraction of edges between groups, in [0, 1] (0 with one group).
    directed : bool, default False
        Draw a DiGraph (ordered pairs; the same weights for both ends).
    seed : None, int or numpy.random.Generator
        An int for a reproducible graph; None draws from secure randomness.
    as_sparse : bool, default False
        Return ``(A, labels)``: the 0/1 adjacency matrix as a ``scipy.sparse.csr_array``
        (symmetric for an undirected graph, node i in row i) and each node's group as an
        int array, instead of a NetworkX graph (whose ``G.graph["groups"]`` maps each node
        to its group, as for the other generators).

    Raises
    ------
    TypeError, ValueError
        Naming the parameter, before any drawing.

    Examples
    --------
    >>> G = community_graph(1000, 4, 10.0, seed=0)
    >>> G.number_of_nodes(), G.number_of_edges(), G.graph["groups"][999]
    (1000, 5000, 3)
    >>> A, labels = community_graph(1000, 4, 10.0, seed=0, as_sparse=True)
    >>> A.shape, A.nnz, labels[:3].tolist()
    ((1000, 1000), 10000, [0, 0, 0])
    """
    n, groups, average_degree, exponent, mixing = _check_community(
        n, groups, average_degree, exponent, mixing, directed, as_sparse
    )
    rng = _check_seed(seed)
    labels = np.arange(n, dtype=np.int64) * groups // n
    theta = rng.pareto(exponent - 1.0, n) + 1.0
    edges = round(n * average_degree) if directed else round(n * average_degree / 2)
    between = round(mixing * edges)
    draws = _Draws(theta, labels, groups, directed, rng)
    pairs = np.concatenate(
        [draws.unique(draws.within, edges - between), draws.unique(draws.between, between)]
    )
    rows, columns = pairs // n, pairs % n
    if as_sparse:
        return _sparse(n, rows, columns, directed), labels
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(rows.tolist(), columns.tolist(), strict=True))
    G.graph["groups"] = dict(enumerate(labels.tolist()))
    return G


def _check_community(n, groups, average_degree, exponent, mixing, directed, as_sparse):
    """The validated parameters of :func:`community_graph` (a clear error before work)."""
    n = check_scalar(n, "n", int, low=1, high=MAX_NODES)
    groups = check_scalar(groups, "groups", int, low=1, high=n)
    average_degree = check_scalar(average_degree, "average_degree", low=0.0)
    exponent = check_scalar(exponent, "exponent", low=2.0, high=100.0, closed="right")
    mixing = check_scalar(mixing, "mixing", low=0.0, high=1.0)
    for value, name in ((directed, "directed"), (as_sparse, "as_sparse")):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, got {value!r}")
    if groups == 1 and mixing > 0:
        raise ValueError("mixing must be 0 with groups=1: there is no other group to reach")
    sizes = np.bincount(np.arange(n) * groups // n, minlength=groups).astype(float)
    scale = 1.0 if directed else 0.5
    inside = float(np.sum(sizes * (sizes - 1))) * scale
    outside = (n * (n - 1.0) - float(np.sum(sizes * (sizes - 1)))) * scale
    edges = n * average_degree * scale
    if edges * (1 - mixing) > inside / 4 or edges * mixing > outside / 4:
        raise ValueError(
            f"average_degree {average_degree} with mixing {mixing} asks for more than a "
            "quarter of the available within- or between-group pairs; this sparse generator "
            "is for sparse graphs (use stochastic_block_model for dense ones)"
        )
    return n, groups, average_degree, exponent, mixing


def _check_seed(seed: RandomState) -> np.random.Generator:
    """``seed`` as a generator, an error naming ``seed`` (not ``rng``) if it is invalid."""
    try:
        return check_random_state(seed)
    except (TypeError, ValueError) as error:
        raise type(error)(f"seed: {error}".replace("rng", "seed")) from None


class _Draws:
    """Endpoint draws by weight for :func:`community_graph`; a pair is coded ``u * n + v``."""

    def __init__(self, theta, labels, groups, directed, rng):
        self.n, self.labels, self.directed, self.rng = theta.size, labels, directed, rng
        self.cumulative = np.cumsum(theta)
        starts = np.searchsorted(labels, np.arange(groups))
        self.low = np.concatenate([[0.0], self.cumulative])[starts]
        self.high = self.cumulative[np.append(starts[1:], theta.size) - 1]

    def pick(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """One node per entry, by weight among the nodes whose cumulative range is in
        [low, high)."""
        target = low + self.rng.random(np.shape(low)) * (high - low)
        found = np.searchsorted(self.cumulative, target, side="right")
        return np.minimum(found, self.n - 1)

    def within(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """``count`` endpoint pairs inside groups chosen by their total weight."""
        weight = self.high - self.low
        chosen = self.rng.choice(weight.size, size=count, p=weight / weight.sum())
        low, high = self.low[chosen], self.high[chosen]
        return self.pick(low, high), self.pick(low, high)

    def between(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """``count`` endpoint pairs by weight from all nodes, in different groups."""
        u, v = np.empty(0, np.int64), np.empty(0, np.int64)
        total = self.cumulative[-1]
        while u.size < count:
            short = count - u.size
            a = self.pick(np.zeros(2 * short), np.full(2 * short, total))
            b = self.pick(np.zeros(2 * short), np.full(2 * short, total))
            keep = self.labels[a] != self.labels[b]
            u, v = np.concatenate([u, a[keep]]), np.concatenate([v, b[keep]])
        return u[:count], v[:count]

    def unique(self, draw, count: int) -> np.ndarray:
        """``count`` distinct pairs (no self-loops) from ``draw``, as codes in draw order
        (an undirected pair as ``min * n + max``), redrawing the duplicates."""
        found = np.empty(0, np.int64)
        for _ in range(MAX_ROUNDS):
            short = count - found.size
            if short <= 0:
                break
            u, v = draw(short + short // 8 + 16)
            if not self.directed:
                u, v = np.minimum(u, v), np.maximum(u, v)
            codes = np.concatenate([found, (u * self.n + v)[u != v]])
            _, first = np.unique(codes, return_index=True)
            found = codes[np.sort(first)]
        if found.size < count:
            raise ValueError(
                f"placed {found.size} of {count} distinct pairs in {MAX_ROUNDS} rounds: the "
                "weights are too concentrated for this average_degree; raise exponent or "
                "lower average_degree"
            )
        return found[:count]


def _sparse(n: int, rows: np.ndarray, columns: np.ndarray, directed: bool) -> sp.csr_array:
    """The 0/1 adjacency matrix of these pairs (both directions for an undirected graph)."""
    if not directed:
        rows, columns = np.concatenate([rows, columns]), np.concatenate([columns, rows])
    data = np.ones(rows.size)
    return sp.csr_array(sp.coo_array((data, (rows, columns)), shape=(n, n)))
