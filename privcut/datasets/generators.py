"""Seeded synthetic graphs for the regime where randomized response shines: dense ones.

Thin wrappers over NetworkX that fix the seed, keep node labels as integers and record
the planted groups (public by construction) in ``G.graph["groups"]``.
"""

from __future__ import annotations

import networkx as nx

__all__ = ["dense_gnp", "planted_partition", "stochastic_block_model"]


def dense_gnp(n: int, p: float = 0.5, *, seed: int = 0) -> nx.Graph:
    """G(n, p) with a fixed seed (dense by default).

    Examples
    --------
    >>> dense_gnp(100, seed=1).number_of_edges()
    2466
    """
    return nx.gnp_random_graph(n, p, seed=seed)


def stochastic_block_model(sizes: list[int], p: list[list[float]], *, seed: int = 0) -> nx.Graph:
    """A stochastic block model; ``G.graph["groups"]`` maps each node to its block.

    Examples
    --------
    >>> G = stochastic_block_model([20, 30], [[0.5, 0.05], [0.05, 0.4]], seed=1)
    >>> G.number_of_nodes(), G.graph["groups"][0], G.graph["groups"][49]
    (50, 0, 1)
    """
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
    """
    sizes = [size] * groups
    p = [[p_in if a == b else p_out for b in range(groups)] for a in range(groups)]
    return stochastic_block_model(sizes, p, seed=seed)
