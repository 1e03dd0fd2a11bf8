"""Releases are functions of noise and public data only (issue 15): node and edge order
follow the node SET, never G's insertion order (leak 3); reports carry no timings and
have the same keys and types whatever the edges (leak 5)."""

import logging
import random

import networkx as nx
import numpy as np
import pytest

from privcut import synthetic_graph
from privcut.exceptions import GraphInputError
from privcut.graph import CutOracle, answer_cuts, iterative_construction, noisy_graph
from privcut.graph.universe import EdgeUniverse, canonical_order

LABELS = [f"v{i}" for i in range(12)]
EDGES = [(LABELS[i], LABELS[j]) for i in range(12) for j in range(i + 1, 12) if (i * j) % 3 == 1]


def same_graph_two_orders():
    """One graph, built twice: from its edges (nodes in order of first appearance, some
    edges reversed) and from the reversed node list, then the edges in another order."""
    first = nx.Graph()
    first.add_edges_from((v, u) if k % 2 else (u, v) for k, (u, v) in enumerate(EDGES))
    first.add_nodes_from(LABELS)
    second = nx.Graph()
    second.add_nodes_from(reversed(LABELS))
    shuffled = list(EDGES)
    random.Random(1).shuffle(shuffled)
    second.add_edges_from(shuffled)
    assert list(first) != list(second) and list(first.edges) != list(second.edges)
    assert nx.utils.edges_equal(first.edges, second.edges)
    return first, second


def layout(H):
    return list(H.nodes), list(H.edges(data=True)), H.graph.get("privcut")


def test_canonical_order_depends_on_the_set_only():
    assert canonical_order(["b", "c", "a"]) == canonical_order(["c", "a", "b"]) == ("a", "b", "c")
    assert canonical_order([3, "x", 1, (0, 1)]) == (1, 3, "x", (0, 1))  # by type name, repr
    with pytest.raises(GraphInputError, match="canonical order"):
        canonical_order([_Same(1), _Same(2)])
    first, second = same_graph_two_orders()
    assert EdgeUniverse.of(first) == EdgeUniverse.of(second)
    assert EdgeUniverse.of(first).nodes == tuple(sorted(LABELS))


class _Same:
    """Labels that are neither comparable nor told apart by (type name, repr)."""

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return "same"


@pytest.mark.parametrize(
    "release",
    [
        lambda G: synthetic_graph(G, 1.0, measurements=None, rng=3),
        lambda G: synthetic_graph(G, 1.0, measurements=None, rounding=None, rng=3),
        lambda G: synthetic_graph(
            G, 1.0, measurements="auto", groups={v: int(v[1:]) % 2 for v in G}, rng=3
        ),
        lambda G: iterative_construction(G, 1.0, 1e-6, distinguisher="noisy-graph", rng=3),
    ],
    ids=["synthetic", "synthetic-weighted", "synthetic-auto", "iterative-construction"],
)
def test_released_graphs_do_not_follow_insertion_order(release):
    first, second = same_graph_two_orders()
    H1, H2 = release(first), release(second)
    assert layout(H1) == layout(H2)
    assert list(H1.nodes) == sorted(LABELS)
    rank = {node: i for i, node in enumerate(H1.nodes)}
    edges = [(rank[u], rank[v]) for u, v in H1.edges()]
    assert edges == sorted(edges) and all(u < v for u, v in edges)  # canonical pair order


def test_noisy_graph_answers_and_oracle_do_not_follow_insertion_order():
    first, second = same_graph_two_orders()
    noisy = [noisy_graph(G, 1.0, rng=5) for G in (first, second)]
    assert noisy[0].nodes == noisy[1].nodes == tuple(sorted(LABELS))
    np.testing.assert_array_equal(noisy[0].matrix, noisy[1].matrix)
    queries = [(LABELS[:4], LABELS[4:]), (LABELS[::2], LABELS[1::2])]
    for strategy in ("noisy-graph", "per-query", "workload", "blocks"):
        answers = [answer_cuts(G, queries, 1.0, strategy=strategy, rng=5) for G in (first, second)]
        np.testing.assert_array_equal(answers[0].values, answers[1].values)
    oracles = [CutOracle(G, 1.0, 1e-6, max_queries=10, rng=5) for G in (first, second)]
    assert oracles[0].universe.nodes == oracles[1].universe.nodes == tuple(sorted(LABELS))
    for S, T in queries:
        assert oracles[0].cut(S, T) == oracles[1].cut(S, T)


def shape(value):
    """Keys and types of a report, recursively (list lengths left out: a list's length
    such as rounds_log's is a noisy output of the mechanism)."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, sorted({repr(shape(item)) for item in value}))
    return type(value).__name__


TIMING_KEYS = {"seconds", "timings", "time", "elapsed"}


def keys(value):
    if isinstance(value, dict):
        return set(value) | set().union(*(keys(item) for item in value.values()))
    if isinstance(value, (list, tuple)):
        return set().union(*(keys(item) for item in value))
    return set()


@pytest.mark.parametrize(
    "release",
    [
        lambda G: synthetic_graph(G, 1.0, measurements=None, rng=0).graph["privcut"],
        lambda G: synthetic_graph(G, 1.0, measurements="auto", rng=0).graph["privcut"],
        lambda G: synthetic_graph(
            G, 1.0, measurements="auto", groups={v: v % 3 for v in G}, rng=0
        ).graph["privcut"],
        lambda G: iterative_construction(G, 1.0, 1e-6, rng=0).graph["privcut"],
        lambda G: vars(noisy_graph(G, 1.0, rng=0)),
        lambda G: vars(answer_cuts(G, [(range(5), range(5, 10))], 1.0, rng=0)),
    ],
    ids=["synthetic", "synthetic-auto", "synthetic-groups", "iterative", "noisy", "cuts"],
)
def test_reports_have_no_timings_and_the_same_shape_for_empty_and_dense_graphs(release):
    empty, dense = nx.empty_graph(10), nx.complete_graph(10)
    reports = release(empty), release(dense)
    assert not keys(reports[0]) & TIMING_KEYS and not keys(reports[1]) & TIMING_KEYS
    assert shape(reports[0]) == shape(reports[1])


def test_timings_are_logged_not_released(caplog):
    with caplog.at_level(logging.DEBUG, logger="privcut"):
        H = synthetic_graph(nx.path_graph(8), 1.0, rng=0)
        iterative_construction(nx.path_graph(8), 1.0, 1e-6, rng=0)
    records = [r for r in caplog.records if r.name == "privcut"]
    assert [r.getMessage().split(":")[0] for r in records] == [
        "synthetic_graph",
        "iterative_construction",
    ]
    assert records[0].seconds >= sum(records[0].timings.values()) * 0.99
    assert {"noise", "threshold", "oracle", "solver", "rounding"} <= set(records[0].timings)
    assert not keys(H.graph["privcut"]) & TIMING_KEYS
