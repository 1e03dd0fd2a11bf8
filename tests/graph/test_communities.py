"""Private communities (issue 18): PrivGraph's community phases, sparse and batched, as one
edge-level epsilon-DP mechanism. The record, recovery of planted communities, array and
NetworkX input agreeing, the batched sampler's law, bad input refused before any draw, and
audits with broken twins."""

import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from privcut import GraphInputError, PrivacyParameterError
from privcut.audit import audit
from privcut.datasets import community_graph
from privcut.evaluate import normalized_mutual_information as nmi
from privcut.graph import CommunityMechanism, PrivateCommunities, private_communities
from privcut.graph.communities import (
    adjust,
    block_counts,
    choose,
    louvain_labels,
    super_graph_threshold,
)
from privcut.records import Spend


def canonical(labels):
    """Labels renumbered by first appearance: the partition itself, not its numbering."""
    seen = {}
    return tuple(seen.setdefault(label, len(seen)) for label in labels.tolist())


def test_nmi_helper():
    assert nmi([0, 0, 1, 1], [5, 5, 3, 3]) == pytest.approx(1.0)
    assert nmi([0, 0, 1, 1], [0, 1, 0, 1]) == pytest.approx(0.0)


def test_record_fields():
    G = nx.relabel_nodes(nx.karate_club_graph(), {i: f"n{i:02d}" for i in range(34)})
    found = private_communities(G, 2.0, group_size=5, share=0.25, rng=0)
    assert isinstance(found, PrivateCommunities)
    assert found.nodes == tuple(sorted(G))
    assert found.labels.dtype == np.int64 and found.labels.shape == (34,)
    assert found.communities == np.unique(found.labels).size
    assert set(found.labels.tolist()) == set(range(found.communities))
    assert found.epsilon == 2.0
    assert all(isinstance(spend, Spend) for spend in found.spends)
    assert [spend.name for spend in found.spends] == ["super-graph", "adjustment", "edge-count"]
    assert math.fsum(spend.epsilon for spend in found.spends) == pytest.approx(2.0)
    assert math.fsum(spend.share for spend in found.spends) == 1.0
    assert found.spends[0].epsilon == 0.5 and found.spends[0].noise == "discrete_laplace"
    assert found.spends[0].scale == 2.0 and found.spends[0].sensitivity == 1.0
    assert found.spends[1].epsilon == pytest.approx(1.4) and found.spends[1].scale == 1 / 0.7
    assert found.spends[2].epsilon == pytest.approx(0.1)
    groups = found.groups()
    assert list(groups) == list(found.nodes)
    assert [groups[node] for node in found.nodes] == found.labels.tolist()
    plain = found.to_dict()
    assert plain["communities"] == found.communities and len(plain["labels"]) == 34


def test_seeded_runs_repeat_and_differ():
    G = nx.karate_club_graph()
    first = private_communities(G, 1.0, group_size=4, rng=3).labels
    assert np.array_equal(first, private_communities(G, 1.0, group_size=4, rng=3).labels)
    others = [private_communities(G, 1.0, group_size=4, rng=s).labels for s in range(4, 8)]
    assert any(not np.array_equal(first, other) for other in others)


@pytest.mark.parametrize(("epsilon", "factor"), [(1.0, 2.0), (4.0, 20.0)])
def test_recovers_planted_communities(epsilon, factor):
    A, planted = community_graph(2000, 10, 20, seed=0, as_sparse=True)
    scores = [nmi(planted, private_communities(A, epsilon, rng=s).labels) for s in range(3)]
    shuffled = np.random.default_rng(0).permutation(planted)
    chance = max(nmi(shuffled, private_communities(A, epsilon, rng=s).labels) for s in range(3))
    print(f"epsilon={epsilon}: NMI {np.round(scores, 3).tolist()}, chance {chance:.4f}")
    assert min(scores) > factor * chance


@pytest.mark.parametrize("directed", [False, True])
def test_array_and_networkx_agree(directed):
    G = nx.gnp_random_graph(60, 0.1, seed=1, directed=directed)
    A = nx.to_scipy_sparse_array(G, nodelist=range(60), weight=None)
    from_graph = private_communities(G, 2.0, group_size=6, rng=5)
    from_array = private_communities(A, 2.0, group_size=6, directed=directed, rng=5)
    assert from_graph.nodes == from_array.nodes == tuple(range(60))
    assert np.array_equal(from_graph.labels, from_array.labels)
    labels = [f"v{i}" for i in reversed(range(60))]  # a given order is kept
    named = private_communities(A, 2.0, group_size=6, directed=directed, nodes=labels, rng=5)
    assert named.nodes == tuple(labels) and np.array_equal(named.labels, from_array.labels)


def test_single_node():
    found = private_communities(sp.csr_array((1, 1)), 1.0, nodes=["only"], rng=0)
    assert found.groups() == {"only": 0} and found.communities == 1


def test_directed_scores_count_both_ends():
    # a directed star into node 0: node 0's out-row is empty, its in-edges must still count
    A = sp.csr_array(([1.0] * 5, ([1, 2, 3, 4, 5], [0] * 5)), shape=(6, 6))
    found = private_communities(A, 100.0, directed=True, group_size=1, rng=0)
    assert found.communities == 1


@pytest.mark.parametrize(("epsilon", "penalty"), [(0.7, 0.0), (0.7, 0.3), (3.0, 0.05)])
def test_batched_choice_has_the_exponential_mechanism_law(epsilon, penalty):
    # node 0 of a star has 1, 2 and 0 neighbours labelled 0, 1, 2 (label 3 too); the batch
    # repeats node 0, so its draws are independent draws of one choice.
    A = sp.csr_array(nx.to_scipy_sparse_array(nx.star_graph(3), weight=None))
    labels = np.array([3, 0, 1, 1])
    sizes = np.array([5, 2, 9, 1])
    draws = choose(
        A,
        labels,
        np.zeros(40000, dtype=np.int64),
        sizes,
        epsilon,
        penalty,
        np.random.default_rng(0),
    )
    scores = np.array([1, 2, 0, 0]) - penalty * sizes
    exact = np.exp(epsilon * scores) / np.exp(epsilon * scores).sum()
    observed = np.bincount(draws, minlength=4) / draws.size
    assert np.abs(observed - exact).max() < 4 * np.sqrt(0.25 / draws.size)


def test_bad_input_refused_before_any_draw():
    G = nx.path_graph(5)
    generator = np.random.default_rng(0)
    state = generator.bit_generator.state
    loop = nx.path_graph(3)
    loop.add_edge(1, 1)
    cases = [
        (PrivacyParameterError, lambda: private_communities(G, 0.0, rng=generator)),
        (ValueError, lambda: private_communities(G, 1.0, share=1.0, rng=generator)),
        (ValueError, lambda: private_communities(G, 1.0, share=0.0, rng=generator)),
        (ValueError, lambda: private_communities(G, 1.0, group_size=0, rng=generator)),
        (TypeError, lambda: private_communities(G, 1.0, group_size=2.5, rng=generator)),
        (ValueError, lambda: private_communities(G, 1.0, resolution=0.0, rng=generator)),
        (ValueError, lambda: private_communities(G, 1.0, batches=0, rng=generator)),
        (TypeError, lambda: private_communities(G, 1.0, rounds=1.0, rng=generator)),
        (ValueError, lambda: private_communities(G, 1.0, rounds=0, rng=generator)),
        (ValueError, lambda: private_communities(G, 1.0, balance=-1.0, rng=generator)),
        (ValueError, lambda: private_communities(G, 1.0, count_share=0.0, rng=generator)),
        (ValueError, lambda: private_communities(G, 1.0, share=0.6, count_share=0.4)),
        (GraphInputError, lambda: private_communities(nx.Graph(), 1.0, rng=generator)),
        (GraphInputError, lambda: private_communities(loop, 1.0, rng=generator)),
        (GraphInputError, lambda: private_communities(G, 1.0, nodes=range(5), rng=generator)),
        (GraphInputError, lambda: private_communities(sp.csr_array([[0, 1], [0, 0]]), 1.0)),
        (GraphInputError, lambda: private_communities(sp.eye_array(3), 1.0, rng=generator)),
        (GraphInputError, lambda: private_communities([[0, 1], [1, 0]], 1.0, rng=generator)),
    ]
    for error, call in cases:
        with pytest.raises(error):
            call()
        assert generator.bit_generator.state == state


class NoiselessSuperGraph(CommunityMechanism):
    """Broken twin: the super-graph's block counts released without noise."""

    def measure(self, positions, counts, g, theta, noise, rng):
        return positions, counts


def super_graph_audit(mechanism, epsilon=1.0, samples=500):
    """Audit steps 1-3 (random groups of one node, the filtered noisy super-graph, Louvain)
    at the super-graph's share of epsilon: the number of Louvain communities on the empty
    6-node graph and with one edge more. An exact super-graph is the graph itself, and
    Louvain gives 6 singletons on the empty graph but at most 5 communities once (0, 1) is
    an edge."""
    empty = sp.csr_array((6, 6))
    edge = sp.csr_array(([1.0, 1.0], ([0, 1], [1, 0])), shape=(6, 6))

    def communities(A, rng):
        groups = rng.permutation(6)
        positions, counts = block_counts(A, groups, 6, False)
        theta = super_graph_threshold(mechanism.share * epsilon, 6, 6)
        noise = mechanism.super_graph_noise(epsilon)
        kept, values = mechanism.measure(positions, counts, 6, theta, noise, rng)
        return int(louvain_labels(kept, values, 6, 1.0, rng).max()) + 1

    return audit(communities, (empty, edge), mechanism.share * epsilon, samples=samples, rng=0)


@pytest.mark.slow
def test_audit_super_graph_with_broken_twin():
    honest = super_graph_audit(CommunityMechanism(group_size=1))
    broken = super_graph_audit(NoiselessSuperGraph(group_size=1), samples=200)
    print(f"honest p={honest.p_value:.3g}, noiseless twin p={broken.p_value:.3g}")
    assert honest.p_value > 0.01
    assert broken.p_value < 1e-3


@pytest.mark.slow
@pytest.mark.parametrize("directed", [False, True])
def test_audit_partition_on_edge_flip(directed):
    kind = nx.DiGraph if directed else nx.Graph
    G = kind([(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
    flipped = G.copy()
    flipped.remove_edge(2, 3)
    result = audit(
        lambda H, rng: canonical(
            private_communities(H, 1.0, group_size=2, batches=2, rng=rng).labels
        ),
        (G, flipped),
        1.0,
        samples=400,  # the honest super-graph partition (no longer the default: the sweep's)
        rng=1,
    )
    print(f"partition audit p={result.p_value:.3g}, event {result.event}")
    assert result.p_value > 0.01


class GreedyChoices(CommunityMechanism):
    """Broken twin: every adjustment choice at ``4 * epsilon``, about ten times the correct
    ``adjustment_share * epsilon / (2 rounds)``."""

    def node_epsilon(self, epsilon):
        return 4.0 * epsilon


def adjustment_audit(mechanism, epsilon=1.0, samples=400):
    """Audit the adjustment (:func:`adjust`, all its ``rounds``) alone, at its share of
    epsilon, from fixed initial labels on a 5-node star and the star without (0, 1): the
    released labels of all nodes."""
    star = sp.csr_array(nx.to_scipy_sparse_array(nx.star_graph(4), weight=None))
    flipped = star.copy()
    flipped[0, 1] = flipped[1, 0] = 0
    flipped.eliminate_zeros()
    initial = np.array([0, 1, 1, 0, 1])
    return audit(
        lambda A, rng: tuple(
            adjust(
                A,
                initial,
                mechanism.node_epsilon(epsilon),
                rng,
                penalty=0.2,
                batches=2,
                rounds=mechanism.rounds,
            ).tolist()
        ),
        (star, flipped),
        mechanism.adjustment_share * epsilon,
        samples=samples,
        rng=0,
    )


@pytest.mark.slow
def test_audit_adjustment_with_broken_twin():
    honest = adjustment_audit(CommunityMechanism(rounds=2))
    broken = adjustment_audit(GreedyChoices())
    print(f"honest p={honest.p_value:.3g}, greedy twin p={broken.p_value:.3g}")
    assert honest.p_value > 0.01
    assert broken.p_value < 1e-3
