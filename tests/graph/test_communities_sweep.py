"""Private communities by one sweep (issue 18, third round): the record, recovery of planted
communities, array and NetworkX input agreeing, the accounting claim (an edge enters the
choice of its later end only), bad input refused before any draw, and audits with a
broken twin."""

import itertools
import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from privcut import GraphInputError, PrivacyParameterError
from privcut.audit import audit
from privcut.datasets import community_graph
from privcut.evaluate import normalized_mutual_information as nmi
from privcut.graph import PrivateCommunities, SweepMechanism, communities, sweep_communities
from privcut.graph.communities import sweep


def canonical(labels):
    """Labels renumbered by first appearance: the partition itself, not its numbering."""
    seen = {}
    return tuple(seen.setdefault(label, len(seen)) for label in labels.tolist())


def test_record_fields():
    G = nx.relabel_nodes(nx.karate_club_graph(), {i: f"n{i:02d}" for i in range(34)})
    found = sweep_communities(G, 2.0, labels=3, degree_share=0.25, count_share=0.25, rng=0)
    assert isinstance(found, PrivateCommunities)
    assert found.nodes == tuple(sorted(G)) and found.labels.shape == (34,)
    assert found.communities == np.unique(found.labels).size <= 3
    assert set(found.labels.tolist()) == set(range(found.communities))
    assert [spend.name for spend in found.spends] == ["degrees", "sweep", "edge-count"]
    assert [spend.epsilon for spend in found.spends] == [0.5, 1.0, 0.5]
    assert math.fsum(spend.share for spend in found.spends) == 1.0
    assert found.spends[0].sensitivity == 2.0 and found.spends[0].scale == 4.0
    assert found.spends[1].noise == "exponential" and found.spends[1].scale == 1.0
    assert found.super_groups == 0 and found.epsilon == 2.0


def test_recovers_planted_communities():
    A, planted = community_graph(2000, 10, 20, seed=0, as_sparse=True)
    scores = [nmi(planted, sweep_communities(A, 2.0, rng=s).labels) for s in range(2)]
    shuffled = np.random.default_rng(0).permutation(planted)
    chance = max(nmi(shuffled, sweep_communities(A, 2.0, rng=s).labels) for s in range(2))
    print(f"NMI {np.round(scores, 3).tolist()}, chance {chance:.4f}")
    assert min(scores) > 0.3 and min(scores) > 20 * chance


@pytest.mark.parametrize("directed", [False, True])
def test_array_and_networkx_agree(directed):
    G = nx.gnp_random_graph(60, 0.1, seed=1, directed=directed)
    A = nx.to_scipy_sparse_array(G, nodelist=range(60), weight=None)
    from_graph = sweep_communities(G, 2.0, rng=5)
    from_array = sweep_communities(A, 2.0, directed=directed, rng=5)
    assert from_graph.nodes == from_array.nodes == tuple(range(60))
    assert np.array_equal(from_graph.labels, from_array.labels)


def test_directed_scores_count_both_ends():
    # a directed star into node 0 (the highest noisy degree at this epsilon, so first): the
    # leaves' out-arcs must count, so they all follow node 0
    A = sp.csr_array(([1.0] * 5, ([1, 2, 3, 4, 5], [0] * 5)), shape=(6, 6))
    found = sweep_communities(A, 100.0, directed=True, labels=2, balance=0.0, rng=0)
    assert found.communities == 1


def test_an_edge_enters_the_later_end_only():
    # the accounting claim: with the same draws, removing (x, y) changes nothing before the
    # batch of its later end y
    G = nx.gnp_random_graph(40, 0.2, seed=2)
    A = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(40), weight=None))
    order = np.random.default_rng(1).permutation(40)
    x, y = next(
        (u, v) for u, v in G.edges if np.flatnonzero(order == u) < 20 <= np.flatnonzero(order == v)
    )
    B = A.copy()
    B[x, y] = B[y, x] = 0
    B.eliminate_zeros()
    runs = [
        sweep(
            M,
            order,
            4,
            1.0,
            np.random.default_rng(3),
            weights=np.full(40, 8.0),
            total=300.0,
            batches=40,
        )
        for M in (A, B)
    ]
    later = int(np.flatnonzero(order == y)[0])
    assert np.array_equal(runs[0][order[:later]], runs[1][order[:later]])


def test_bad_input_refused_before_any_draw():
    G = nx.path_graph(5)
    generator = np.random.default_rng(0)
    state = generator.bit_generator.state
    loop = nx.path_graph(3)
    loop.add_edge(1, 1)
    cases = [
        (PrivacyParameterError, lambda: sweep_communities(G, 0.0, rng=generator)),
        (ValueError, lambda: sweep_communities(G, 1.0, labels=0, rng=generator)),
        (TypeError, lambda: sweep_communities(G, 1.0, labels=2.0, rng=generator)),
        (ValueError, lambda: sweep_communities(G, 1.0, batches=0, rng=generator)),
        (ValueError, lambda: sweep_communities(G, 1.0, degree_share=0.0, rng=generator)),
        (ValueError, lambda: sweep_communities(G, 1.0, count_share=1.0, rng=generator)),
        (ValueError, lambda: sweep_communities(G, 1.0, degree_share=0.6, count_share=0.4)),
        (ValueError, lambda: sweep_communities(G, 1.0, balance=-1.0, rng=generator)),
        (ValueError, lambda: sweep_communities(G, 1.0, balance=1e300, rng=generator)),
        (ValueError, lambda: sweep_communities(G, 1.0, labels=10**12, rng=generator)),
        (GraphInputError, lambda: sweep_communities(nx.Graph(), 1.0, rng=generator)),
        (GraphInputError, lambda: sweep_communities(loop, 1.0, rng=generator)),
        (GraphInputError, lambda: sweep_communities(sp.csr_array([[0, 1], [0, 0]]), 1.0)),
    ]
    for error, call in cases:
        with pytest.raises(error):
            call()
        assert generator.bit_generator.state == state


def test_more_batches_than_nodes_is_one_node_per_batch():
    G = nx.karate_club_graph()
    one = sweep_communities(G, 2.0, labels=3, batches=34, rng=5)
    many = sweep_communities(G, 2.0, labels=3, batches=10**9, rng=5)
    assert np.array_equal(one.labels, many.labels)


def naive_sweep(both, order, k, epsilon, rng, weights, total, batches):
    """:func:`sweep` as first written: each batch's rows gathered, its labelled neighbours'
    weights summed per label (the draws the same, in the same order)."""
    labels, mass = np.full(both.shape[0], -1), np.zeros(k)
    for batch in np.array_split(order, batches):
        if not batch.size:
            continue
        rows = both[batch]
        owner = np.repeat(np.arange(batch.size), np.diff(rows.indptr))
        found = labels[rows.indices]
        known = found >= 0
        scores = np.bincount(
            owner[known] * k + found[known], weights=rows.data[known], minlength=batch.size * k
        ).reshape(batch.size, k)
        logits = epsilon * (scores - 1.0 / total * np.outer(weights[batch], mass))
        logits -= logits.max(axis=1, keepdims=True)
        chosen = np.argmax(logits + rng.gumbel(size=logits.shape), axis=1)
        labels[batch] = chosen
        mass += np.bincount(chosen, weights=weights[batch], minlength=k)
    return labels


@pytest.mark.parametrize("chunk", [None, 16])
@pytest.mark.parametrize("batches", [1, 7, 40, 200])
def test_sweep_is_the_naive_batched_sweep(batches, chunk, monkeypatch):
    """Also with the rows gathered a few batches at a time (a CHUNK of 16 entries)."""
    if chunk is not None:
        monkeypatch.setattr(communities, "CHUNK", chunk)
    G = nx.gnp_random_graph(90, 0.08, seed=batches)
    for u, v in G.edges:
        G[u][v]["weight"] = 1.0 + (u * v) % 3  # uneven scores: rounding alike too
    both = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(90)))
    order = np.random.default_rng(1).permutation(90)
    weights = np.asarray(both.sum(axis=1)).ravel()
    args = (both, order, 4, 1.5)
    fast = sweep(
        *args,
        np.random.default_rng(2),
        weights=weights,
        total=float(weights.sum()),
        batches=batches,
    )
    naive = naive_sweep(*args, np.random.default_rng(2), weights, float(weights.sum()), batches)
    assert np.array_equal(fast, naive)


def exact_log_law(both, order, k, epsilon, weights, total, batches):
    """The exact log-probability of every label vector of :func:`sweep` (balance 1)."""
    B, n = both.toarray(), both.shape[0]
    parts = [part for part in np.array_split(order, batches) if part.size]
    law = {}
    for labels in itertools.product(range(k), repeat=n):
        labels, log_p = np.array(labels), 0.0
        mass, done = np.zeros(k), np.zeros(n, dtype=bool)
        for part in parts:
            for u in part:
                scores = np.array([B[u, done & (labels == a)].sum() for a in range(k)])
                logits = epsilon * (scores - weights[u] * mass / total)
                log_p += logits[labels[u]] - np.logaddexp.reduce(logits)
            np.add.at(mass, labels[part], weights[part])
            done[part] = True
        law[tuple(labels)] = log_p
    return law


def test_the_sweeps_exact_law_is_epsilon_dp_on_an_edge_flip():
    # every order of a 4-node path with and without the pair (0, 2): the exact
    # log-likelihood ratio of every labelling is at most epsilon, and the flip matters
    path = sp.csr_array(nx.to_scipy_sparse_array(nx.path_graph(4), weight=None))
    chord = path.copy()
    chord[0, 2] = chord[2, 0] = 1.0
    weights, epsilon, worst = np.array([1.0, 2.0, 3.0, 1.0]), 1.3, 0.0
    for order in itertools.permutations(range(4)):
        for batches in (2, 4):
            one, other = (
                exact_log_law(A, np.array(order), 2, epsilon, weights, 6.0, batches)
                for A in (path, chord)
            )
            worst = max(worst, max(abs(one[x] - other[x]) for x in one))
    assert 0.5 * epsilon < worst <= epsilon + 1e-12


class GreedySweep(SweepMechanism):
    """Broken twin: every choice of the sweep at ``4 * epsilon`` instead of its part."""

    def sweep_epsilon(self, epsilon):
        return 4.0 * epsilon


def sweep_audit(mechanism, epsilon=1.0, samples=400):
    """Audit the sweep alone at its part of epsilon, in a fixed order (a public input of
    :func:`sweep`), on a 5-node star and the star without (0, 4): the labels of all
    nodes."""
    star = sp.csr_array(nx.to_scipy_sparse_array(nx.star_graph(4), weight=None))
    flipped = star.copy()
    flipped[0, 4] = flipped[4, 0] = 0
    flipped.eliminate_zeros()
    order = np.array([0, 1, 2, 3, 4])
    return audit(
        lambda A, rng: tuple(
            sweep(
                A,
                order,
                2,
                mechanism.sweep_epsilon(epsilon),
                rng,
                weights=np.full(5, 2.0),
                total=8.0,
                batches=5,
            ).tolist()
        ),
        (star, flipped),
        mechanism.parts(epsilon)[2],
        samples=samples,
        rng=0,
    )


@pytest.mark.slow
def test_audit_sweep_with_broken_twin():
    honest = sweep_audit(SweepMechanism(labels=2))
    broken = sweep_audit(GreedySweep(labels=2))
    print(f"honest p={honest.p_value:.3g}, greedy twin p={broken.p_value:.3g}")
    assert honest.p_value > 0.01
    assert broken.p_value < 1e-3


@pytest.mark.slow
def test_audit_partition_on_edge_flip():
    G = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
    flipped = G.copy()
    flipped.remove_edge(2, 3)
    result = audit(
        lambda H, rng: canonical(sweep_communities(H, 1.0, labels=2, batches=6, rng=rng).labels),
        (G, flipped),
        1.0,
        samples=400,
        rng=1,
    )
    print(f"partition audit p={result.p_value:.3g}, event {result.event}")
    assert result.p_value > 0.01
