"""Degrees done well on the sparse path (issue 17): the fitted degrees are consistent with
the block counts, the generator meets them, and the released degree histogram is close to
the private one."""

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from privcut import synthetic_graph
from privcut.datasets.generators import community_graph
from privcut.graph import EdgeUniverse
from privcut.graph.fitting import fit_targets
from privcut.graph.measurement import measure
from privcut.graph.partition import Partition
from privcut.graph.planning import plan_measurements
from privcut.graph.sequence import (
    box_shift,
    is_graphical,
    rank_matched,
    round_keeping_sum,
    smooth_plateaus,
)
from privcut.graph.sparse import SparseGenerator, stub_degrees

WIKI = next(
    (
        folder / "shared" / "data" / "wiki-vote.edges"
        for folder in Path(__file__).resolve().parents
        if (folder / "shared" / "data" / "wiki-vote.edges").exists()
    ),
    None,
)


def degree_kl(first, second) -> float:
    """The issue's KL: sum p log((p + e) / (q + e)) over the padded normalised histograms."""
    p, q = (np.bincount(np.asarray(d, dtype=np.int64)).astype(float) for d in (first, second))
    p, q = p / p.sum(), q / q.sum()
    size = max(p.size, q.size)
    p, q = np.pad(p, (0, size - p.size)), np.pad(q, (0, size - q.size))
    e = np.finfo(float).eps
    return float(np.sum(p * np.log((p + e) / (q + e))))


def _measured(G, groups, names, epsilon, rng):
    universe = EdgeUniverse.of(G)
    partition = Partition.of(universe, groups) if groups is not None else None
    plan = plan_measurements(
        universe.nodes, epsilon, names, groups=groups, directed=universe.directed
    )
    return measure(G, plan, partition=partition, rng=rng)


@pytest.mark.parametrize(("groups", "directed"), [(False, False), (True, False), (True, True)])
def test_the_generator_meets_its_dealt_degrees(groups, directed):
    """The configuration model and the double-edge swaps keep every dealt degree exactly;
    only an edge of the last weighted step moves degrees: its two ends gain one each and
    the two stubs it replaces stay unused (out- and in-stubs for a DiGraph), so the L1
    distance of the released degrees to the dealt ones is at most 4 per such edge, and
    their sums are equal (every block count is kept and the dealt degrees sum to twice
    the counts)."""
    G = community_graph(2000, 4, 10.0, seed=0, directed=directed)
    labels = G.graph["groups"] if groups else None
    names = SparseGenerator.default_measurements(groups, directed)
    # the BTER block edges (test_clustering) are drawn before the stubs: measure without them
    names = names if "clustering" not in names else [n for n in names if n != "clustering"]
    measured = _measured(G, labels, names, 1.0, 0)
    targets = fit_targets(measured)
    generator = SparseGenerator()
    done = generator.generate(measured, targets, generator.options(), np.random.default_rng(0))
    counts = generator.counts(measured, targets, np.random.default_rng(0))
    partition = measured.partition
    members = (
        [np.arange(measured.universe.n)]
        if partition is None
        else [np.flatnonzero(partition.labels == a) for a in range(partition.g)]
    )
    first, second = partition.blocks if partition is not None else ([0], [0])
    dealt = stub_degrees(targets.degrees, members, first, second, counts, measured.universe.n)
    drawn = done.degrees()
    assert done.solver.iterations == 0  # no block pair enumerated: every one takes stubs
    assert drawn.sum() == dealt.sum() == 2 * counts.sum()
    assert np.abs(drawn - dealt).sum() <= 4 * done.terms["unmatched"]
    assert done.terms["unmatched"] <= 0.01 * done.edge_count  # the last step is rare


def test_dealt_degrees_agree_with_the_block_counts():
    G = community_graph(1500, 3, 8.0, seed=1)
    labels = G.graph["groups"]
    measured = _measured(G, labels, ["edge-count", "blocks", "degrees"], 1.0, 2)
    targets = fit_targets(measured)
    counts = SparseGenerator().counts(measured, targets, np.random.default_rng(0))
    partition = measured.partition
    members = [np.flatnonzero(partition.labels == a) for a in range(partition.g)]
    first, second = partition.blocks
    dealt = stub_degrees(targets.degrees, members, first, second, counts, measured.universe.n)
    ends = np.bincount(first, counts, partition.g) + np.bincount(second, counts, partition.g)
    assert [int(dealt[m].sum()) for m in members] == ends.astype(int).tolist()
    assert dealt.min() >= 0 and dealt.max() <= measured.universe.n - 1


@pytest.mark.parametrize("directed", [False, True])
def test_stub_degrees_on_their_shares_are_the_root_searches_answer(directed):
    """Integer degrees whose group sums already are the shares come back as they are, the
    answer the root searches (box_shift, round_keeping_sum on every group) give; others
    (one off, or not integers) get those searches."""
    rng = np.random.default_rng(3)
    for trial in range(60):
        n, g = int(rng.integers(2, 60)), int(rng.integers(1, 4))
        labels = rng.integers(0, g, n)
        members = [np.flatnonzero(labels == a) for a in range(g)]
        pairs = np.divmod(np.arange(g * g), g) if directed else np.triu_indices(g)
        counts = rng.integers(0, n, pairs[0].size)
        needs = [np.bincount(pairs[0], counts, g), np.bincount(pairs[1], counts, g)]
        needs = needs if directed else [needs[0] + needs[1]]
        if any((need > (n - 1) * np.bincount(labels, minlength=g)).any() for need in needs):
            continue  # more ends than the groups hold
        degrees = np.zeros(n * len(needs))
        for h, need in enumerate(needs):
            for a, nodes in enumerate(members):  # random integers in [0, n - 1] with that sum
                if nodes.size:
                    ends = rng.choice(np.repeat(nodes, n - 1), int(need[a]), replace=False)
                    degrees[h * n : (h + 1) * n] += np.bincount(ends, minlength=n)
        if trial % 3 == 1:
            degrees[rng.integers(0, degrees.size)] += 1.0
        elif trial % 3 == 2:
            degrees += rng.random(degrees.size) / 2
        got = stub_degrees(degrees, members, *pairs, counts, n)
        expected = np.zeros(degrees.size, dtype=np.int64)
        for h, need in enumerate(needs):
            for a, nodes in enumerate(members):
                share = int(np.rint(need[a]))
                fitted = box_shift(degrees[h * n : (h + 1) * n][nodes], n - 1.0, float(share))
                expected[h * n + nodes] = round_keeping_sum(fitted, share, n - 1.0)
        assert got.dtype == expected.dtype and np.array_equal(got, expected)


def test_smoothing_keeps_order_and_true_jumps():
    rng = np.random.default_rng(0)
    fit = np.sort(rng.integers(0, 20, 200)).astype(float)
    smooth = smooth_plateaus(fit, 2.0)
    assert np.all(np.diff(smooth) >= 0) and np.abs(smooth - fit).max() <= 2.0
    star = np.array([1.0] * 9 + [9.0])
    assert smooth_plateaus(star, 0.5).tolist()[:5] == [1.0] * 5


def test_rank_matching_keeps_the_multiset_and_follows_the_noisy_ranks():
    G = nx.barabasi_albert_graph(300, 3, seed=0)
    measured = _measured(
        G, None, {"edge-count": 0.1, "degrees": 0.45, "degree-sequence": 0.45}, 4.0, 0
    )
    targets = fit_targets(measured)
    true = np.array([G.degree(v) for v in measured.universe.nodes])
    assert is_graphical(targets.degrees.astype(int))
    assert np.corrcoef(targets.degrees, true)[0, 1] > 0.9
    shuffled = rank_matched(
        targets.degrees,
        -measured.get("degrees").values,
        measured.get("degree-sequence").order,
        np.zeros(true.size, dtype=np.intp),
    )
    assert sorted(shuffled) == sorted(targets.degrees)


def _kl_of_releases(G, seeds, epsilon=1.0):
    true = np.array([d for _, d in G.degree()])
    found = []
    for seed in range(seeds):
        # the shares without groups (measurements "auto" buys communities on these graphs
        # at epsilon 1, at a degree KL of about 0.64 on wiki-vote: RESULTS.md, "Issue 18:
        # auto private communities")
        H = synthetic_graph(G, epsilon, method="sparse", groups="none", rng=seed)
        found.append(degree_kl(true, [H.degree(v) for v in G]))
    return found


@pytest.mark.slow
def test_default_sparse_release_keeps_the_degree_histogram():
    """The issue's structure item on a generated heavy-tailed graph: mean KL below 0.5 at
    epsilon 1 with the default measurements (no groups)."""
    G = community_graph(10_000, 10, 20.0, seed=0)
    found = _kl_of_releases(G, 3)
    assert np.mean(found) < 0.5, found


@pytest.mark.slow
@pytest.mark.skipif(WIKI is None, reason="shared/data/wiki-vote.edges is not here")
def test_default_sparse_release_keeps_wiki_votes_degree_histogram():
    G = nx.Graph()
    G.add_edges_from(np.loadtxt(WIKI, dtype=np.int64, ndmin=2).tolist())
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    found = _kl_of_releases(G, 3)
    assert np.mean(found) < 0.5, found
