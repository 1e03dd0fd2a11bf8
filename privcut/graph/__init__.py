"""The graph layer: graphs as histograms over vertex pairs, cuts, cut norms, noisy graphs."""

from privcut.graph.cuts import cut_queries, cut_value, rank1_queries
from privcut.graph.noisy import NoisyGraph, noisy_graph
from privcut.graph.universe import EdgeUniverse, check_graph

__all__ = [
    "EdgeUniverse",
    "NoisyGraph",
    "check_graph",
    "cut_queries",
    "cut_value",
    "noisy_graph",
    "rank1_queries",
]
