"""The "degree-sequence" measurement (Hay, Li, Miklau, Jensen 2009): sensitivity, audit,
the isotonic fit, graphical and consistent targets, and the degree histogram it buys."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcut.audit import audit, neighbouring_graphs
from privcut.graph import EdgeUniverse, synthetic_graph
from privcut.graph.fitting import fit_targets
from privcut.graph.measurement import measure, sorted_sequence, statistic
from privcut.graph.partition import Partition
from privcut.graph.planning import SEQUENCE_SHARE, plan_measurements
from privcut.graph.sequence import (
    fit_sequence,
    is_graphical,
    isotonic,
    make_graphical,
    rank_matched,
    round_keeping_sum,
)
from privcut.privacy import Noise

SEQ = "degree-sequence"


def exact_sequence(G, groups=None):
    universe = EdgeUniverse.of(G)
    partition = Partition.of(universe, groups) if groups else None
    return statistic(SEQ, universe.adjacency(G, None), partition, G.is_directed())


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(3, 12),
    p=st.floats(0.0, 1.0),
    directed=st.booleans(),
    grouped=st.booleans(),
    seed=st.integers(0, 10**6),
)
def test_an_edge_flip_moves_the_sorted_sequence_in_two_positions_by_one(
    n, p, directed, grouped, seed
):
    G = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    groups = {v: v % 3 for v in G} if grouped else None
    rng = np.random.default_rng(seed)
    u, v = (int(x) for x in rng.choice(n, 2, replace=False))
    H = next(neighbouring_graphs(G, pairs=[(u, v)]))
    change = exact_sequence(H, groups) - exact_sequence(G, groups)
    assert np.count_nonzero(change) == 2
    assert np.abs(change).max() == 1
    assert np.abs(change).sum() == 2  # the l1 sensitivity


def test_the_sequence_is_sorted_within_groups_and_hides_who_has_which_degree():
    G = nx.star_graph(4)  # degrees 4, 1, 1, 1, 1
    assert exact_sequence(G).tolist() == [1, 1, 1, 1, 4]
    relabelled = nx.relabel_nodes(G, {0: 3, 3: 0})
    assert exact_sequence(relabelled).tolist() == [1, 1, 1, 1, 4]
    groups = {0: "a", 1: "b", 2: "a", 3: "b", 4: "a"}
    assert exact_sequence(G, groups).tolist() == [1, 1, 4, 1, 1]
    D = nx.DiGraph([(0, 1), (0, 2), (1, 2)])
    assert exact_sequence(D).tolist() == [0, 1, 2, 0, 1, 2]
    assert sorted_sequence(np.array([2.0, 0.0, 1.0]), None, False).tolist() == [0, 1, 2]


def test_plans_take_it_from_lists_and_shares_never_from_auto():
    plan = plan_measurements(range(50), 1.0, ["edge-count", SEQ])
    assert plan.measurements == ("edge-count", SEQ)
    assert plan.epsilons == pytest.approx((1.0 - SEQUENCE_SHARE, SEQUENCE_SHARE))
    assert plan.noise[1] == Noise.for_laplace(0.5, 2.0, integer=True, coordinates=2)
    assert "degree" not in plan.predicted  # no per-node claim from a sequence
    groups = {v: v % 5 for v in range(50)}
    blocks = plan_measurements(range(50), 1.0, [SEQ, "blocks"], groups=groups)
    assert blocks.measurements == (SEQ, "blocks")
    assert SEQ not in plan_measurements(range(50), 1.0, "auto", groups=groups).measurements
    alone = plan_measurements(range(50), 1.0, [SEQ])
    assert alone.epsilons == (1.0,)
    with pytest.raises(ValueError, match="0/1 graph"):
        plan_measurements(range(50), 1.0, [SEQ], weight="weight")
    with pytest.raises(ValueError, match="not answered"):
        plan_measurements(range(50), 1.0, [SEQ], workload={"degree": 1.0})


def pava_min_max(y):
    """The isotonic regression by its min-max formula (Robertson, Wright, Dykstra 1988):
    ``x_i = max_{j <= i} min_{k >= i} mean(y[j..k])``, brute force."""
    n = len(y)
    return np.array(
        [
            max(min(np.mean(y[j : k + 1]) for k in range(i, n)) for j in range(i + 1))
            for i in range(n)
        ]
    )


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-5, 8), min_size=1, max_size=8))
def test_the_isotonic_fit_is_the_least_squares_non_decreasing_sequence(values):
    y = np.array(values, dtype=float)
    fitted = isotonic(y)
    assert np.allclose(fitted, pava_min_max(y))
    assert np.all(np.diff(fitted) >= -1e-12)
    # no non-decreasing sequence is nearer: any monotone perturbation is worse
    rng = np.random.default_rng(len(values))
    for _ in range(20):
        other = np.sort(fitted + rng.normal(0, 0.5, y.size))
        assert np.sum((other - y) ** 2) >= np.sum((fitted - y) ** 2) - 1e-9


def test_rounding_keeps_the_sum_and_the_box():
    x = np.array([0.2, 0.7, 1.5, 2.9, 3.0])
    for total in range(5, 10):
        rounded = round_keeping_sum(x, total, 3.0)
        assert rounded.sum() == total and rounded.max() <= 3 and rounded.min() >= 0
        assert np.all(np.abs(rounded - x) < 1.0 + 1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 7), min_size=1, max_size=8))
def test_the_erdos_gallai_test_agrees_with_networkx(values):
    assert is_graphical(np.array(values)) == nx.is_graphical(values)
    repaired = make_graphical(np.array(values))
    assert nx.is_graphical(repaired.tolist())
    assert np.all(repaired <= np.array(values))


def test_the_directed_repair_is_digraphical():
    out, inn = np.array([3, 3, 0, 0]), np.array([0, 0, 3, 3])
    assert not is_graphical(np.concatenate([out, inn]), directed=True)
    repaired = make_graphical(np.concatenate([out, inn]), directed=True)
    assert nx.is_digraphical(repaired[4:].tolist(), repaired[:4].tolist())
    assert repaired[:4].sum() == repaired[4:].sum()


def measured(G, epsilon, names, groups=None, seed=0):
    universe = EdgeUniverse.of(G)
    plan = plan_measurements(
        universe.nodes, epsilon, names, groups=groups, directed=G.is_directed()
    )
    partition = Partition.of(universe, groups) if groups else None
    return measure(G, plan, partition=partition, rng=np.random.default_rng(seed))


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("epsilon", [0.3, 1.0, 10.0])
def test_fitted_degrees_are_graphical_integers_matching_the_edge_count(directed, epsilon):
    G = nx.gnp_random_graph(40, 0.15, seed=3, directed=directed)
    record = measured(G, epsilon, {"edge-count": 0.5, SEQ: 0.5})
    targets = fit_targets(record)
    degrees = targets.degrees
    assert targets.degree_kind == SEQ
    assert np.array_equal(degrees, np.rint(degrees)) and degrees.min() >= 0
    ints = degrees.astype(int).tolist()
    if directed:
        assert nx.is_digraphical(ints[40:], ints[:40])
        # the repair may lower the totals (a random pairing of out- and in-degrees)
        assert sum(ints[:40]) == sum(ints[40:]) <= round(targets.total)
    else:
        assert nx.is_graphical(ints)
        assert sum(ints) <= 2 * targets.total + 1 and sum(ints) >= 2 * targets.total - 7


def test_fitted_degrees_sum_to_the_fitted_group_totals():
    G = nx.stochastic_block_model(
        [20, 25, 15], [[0.3, 0.05, 0.02], [0.05, 0.2, 0.05], [0.02, 0.05, 0.4]], seed=1
    )
    groups = {v: G.nodes[v]["block"] for v in G}
    record = measured(G, 5.0, {"edge-count": 0.2, SEQ: 0.4, "blocks": 0.4}, groups)
    targets = fit_targets(record)
    partition = record.partition
    first, second = partition.blocks
    totals = np.bincount(first, targets.blocks, partition.g) + np.bincount(
        second, targets.blocks, partition.g
    )
    found = np.bincount(partition.labels, targets.degrees, partition.g)
    assert np.all(np.abs(found - totals) <= 1.0 + 1e-9)
    assert found.sum() % 2 == 0
    # the sorted fit within each group is close to the truth at this epsilon
    truth = exact_sequence(G, groups)
    fitted = sorted_sequence(targets.degrees, partition, False)
    assert np.abs(fitted - truth).mean() < 2.0


def test_degrees_go_to_nodes_in_the_public_random_order_only():
    """Two releases of one graph with the same noise but another order differ only by
    the permutation: the fit never looks at who had which degree."""
    G = nx.star_graph(9)
    record = measured(G, 50.0, {"edge-count": 0.5, SEQ: 0.5})
    fitted = fit_sequence(record, None, 9.0)
    assert sorted(fitted.tolist()) == [1.0] * 9 + [9.0]
    hub = int(np.argmax(fitted))
    assert hub == int(record.get(SEQ).order[0][-1])  # the last of the random order


def test_a_release_from_a_sequence_reports_no_per_node_degree_bound():
    G = nx.gnp_random_graph(30, 0.2, seed=2)
    H = synthetic_graph(G, 1.0, measurements=["edge-count", SEQ], rng=0)
    report = H.graph["privcut"]
    assert "degree" not in report["workload_bounds"]
    assert nx.is_graphical([d for _, d in H.degree()])
    D = nx.gnp_random_graph(20, 0.2, seed=2, directed=True)
    H = synthetic_graph(D, 1.0, measurements=["edge-count", SEQ], rng=0)
    assert H.is_directed() and H.number_of_nodes() == 20


def repeated(plan, coordinates):
    def mechanism(graph, rng, size):
        rows = [measure(graph, plan, rng=rng).get(SEQ).values for _ in range(size)]
        return np.array([row[coordinates] for row in rows]).astype(int)

    return mechanism


def noisy_sequence(noise, coordinates):
    """The measurement with ``noise`` on the exact sorted sequence, ``size`` releases at
    once."""

    def mechanism(graph, rng, size):
        exact = exact_sequence(graph)[coordinates]
        return (exact + noise.sample((size, len(coordinates)), rng=rng)).astype(int)

    return mechanism


@pytest.mark.slow
def test_the_sequence_passes_its_audit_and_catches_sensitivity_one():
    """path_graph(5) has the sorted sequence [1, 1, 2, 2, 2]; adding (0, 2) gives
    [1, 2, 2, 2, 3], positions 1 and 4. The broken twin is the plan for 2 epsilon, whose
    noise is calibrated for sensitivity 1 at epsilon 1 (drawn vectorised: that noise on the
    exact sequence)."""
    G = nx.path_graph(5)
    pair = (G, next(neighbouring_graphs(G, pairs=[(0, 2)])))
    change = exact_sequence(pair[1]) - exact_sequence(G)
    assert np.flatnonzero(change).tolist() == [1, 4]
    plan = plan_measurements(range(5), 1.0, {SEQ: 1.0})
    broken_plan = plan_measurements(range(5), 2.0, {SEQ: 1.0})
    assert broken_plan.noise[0] == Noise.for_laplace(1.0, 1.0, integer=True, coordinates=2)
    correct = audit(repeated(plan, [1, 4]), pair, 1.0, samples=1500, vectorized=True, rng=0)
    twin = noisy_sequence(broken_plan.noise[0], [1, 4])
    broken = audit(twin, pair, 1.0, samples=1500, vectorized=True, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


@pytest.mark.slow
def test_the_sequence_beats_noisy_degrees_on_a_heavy_tailed_histogram():
    """Degree-histogram KL of the release against the original (privcut.evaluate),
    epsilon 1, on a 1,000-node heavy-tailed community graph."""
    from privcut.datasets import community_graph
    from privcut.evaluate import structure

    G = community_graph(1000, 4, 6.0, seed=1)
    kl = {}
    for names in (["edge-count", SEQ], ["edge-count", "degrees"]):
        H = synthetic_graph(G, 1.0, measurements=names, rng=2)
        kl[names[1]] = structure(G, H).degree_kl
    assert kl[SEQ] < kl["degrees"]
    assert kl[SEQ] < 0.8


def test_rank_matched_is_the_lexsort_of_group_noisy_degree_and_tie_order():
    """The node of the k-th smallest (group, noisy degree, public tie order) gets its
    group's k-th smallest fitted degree, with integer noisy degrees (the radix path) and
    fractional ones, one group or several, one half or two."""
    rng = np.random.default_rng(3)
    for trial in range(40):
        n, halves = int(rng.integers(1, 30)), 1 + trial % 2
        labels = rng.integers(0, 1 + trial % 3, n)
        fitted = rng.integers(0, 6, halves * n).astype(float)
        noisy = rng.integers(-3, 4, halves * n) / (1.0 if trial % 4 else 2.0)
        order = tuple(rng.permutation(n) for _ in range(halves))
        expected = np.empty(halves * n)
        for h, permutation in enumerate(order):
            tie = np.argsort(permutation)
            ranked = np.lexsort((tie, noisy[h * n : (h + 1) * n], labels))
            values = fitted[h * n : (h + 1) * n]
            expected[h * n + ranked] = values[np.lexsort((values, labels))]
        assert rank_matched(fitted, noisy, order, labels).tolist() == expected.tolist()


def test_round_keeping_sum_moves_the_entries_the_stable_sort_picks():
    """The entries rounded up (down) are the largest (smallest) fractions, ties to the
    earlier entry, as the stable sort of the fractions picks them (now by a partition)."""
    rng = np.random.default_rng(4)
    for _ in range(60):
        n = int(rng.integers(1, 25))
        x = rng.integers(0, 12, n) / 4.0  # fractions 0, 1/4, 1/2, 3/4: many ties
        floors = np.floor(x)
        total = int(floors.sum()) + int(rng.integers(-n, n + 1))
        result = round_keeping_sum(x, total, 3.0)
        short, fraction = total - int(floors.sum()), x - floors
        expected = floors.copy()
        if short > 0:
            room = np.flatnonzero(floors < 3.0)
            expected[room[np.argsort(-fraction[room], kind="stable")[:short]]] += 1.0
        elif short < 0:
            room = np.flatnonzero(floors > 0)
            expected[room[np.argsort(fraction[room], kind="stable")[:-short]]] -= 1.0
        assert result.tolist() == expected.tolist()
