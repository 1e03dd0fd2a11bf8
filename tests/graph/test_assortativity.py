"""The ``"assortativity"`` measurement (edge counts between noisy log-degree classes) and
the degree-assortativity swaps of the sparse generator (issue 18)."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from privcut import synthetic_graph
from privcut.audit import audit
from privcut.graph import assortativity, planning
from privcut.graph.assortativity import (
    SENSITIVITY,
    assortative_swaps,
    assortativity_target,
    attenuation,
    class_count,
    count_assortativity,
    csr_joint_degree_counts,
    degree_assortativity,
    degree_classes,
    joint_degree_counts,
)
from privcut.graph.measurement import measure
from privcut.graph.planning import plan_measurements
from privcut.graph.sparse import SparseGenerator
from privcut.privacy import Noise


def _upper(A) -> tuple[np.ndarray, np.ndarray]:
    coo = sp.coo_array(A)
    upper = coo.row < coo.col
    return coo.row[upper], coo.col[upper]


@settings(max_examples=40, deadline=None)
@given(
    st.integers(4, 14),
    st.floats(0.1, 0.7),
    st.integers(0, 2**31),
    st.integers(0, 2**31),
)
def test_one_flip_moves_exactly_one_count_by_one(n, density, graph_seed, seed):
    """Random graphs, random public classes (noisy degrees), a random pair flipped: the
    joint-degree counts move by exactly the stated l1 sensitivity 1."""
    rng = np.random.default_rng(seed)
    A = nx.to_scipy_sparse_array(nx.gnp_random_graph(n, density, seed=graph_seed))
    count = class_count(n)
    classes = degree_classes(rng.normal(n / 3, n / 4, n), count)
    i, j = rng.choice(n, 2, replace=False)
    B = sp.lil_array(A)
    B[i, j] = B[j, i] = 1 - B[i, j]
    before = joint_degree_counts(*_upper(A), classes, count)
    after = joint_degree_counts(*_upper(sp.csr_array(B)), classes, count)
    assert np.abs(after - before).sum() == SENSITIVITY == 1.0


def test_counts_give_newman_r_with_exact_classes():
    """With one class per degree value scored by that degree, the counts' r is
    networkx's degree assortativity."""
    G = nx.barabasi_albert_graph(200, 3, seed=4)
    A = nx.to_scipy_sparse_array(G, nodelist=range(200))
    degrees = np.asarray(A.sum(axis=1)).ravel()
    values, classes = np.unique(degrees, return_inverse=True)
    counts = joint_degree_counts(*_upper(A), classes, values.size)
    expected = nx.degree_assortativity_coefficient(G)
    assert count_assortativity(counts, values) == pytest.approx(expected)
    assert degree_assortativity(*_upper(A), degrees) == pytest.approx(expected)


def test_attenuation_and_target():
    degrees = np.repeat([1.0, 3.0, 7.0, 15.0, 31.0], 40)
    scores = np.array([0.0, 1.0, 2.5, 5.0, 11.0, 23.0])
    rng = np.random.default_rng(0)
    exact = Noise.for_laplace(1e6, 2.0, integer=True)
    assert attenuation(degrees, exact, scores, rng) == pytest.approx(1.0, abs=0.05)
    blurred = attenuation(degrees, Noise.for_laplace(0.1, 2.0, integer=True), scores, rng)
    assert 0.05 <= blurred < 0.6
    # a clear signal is kept (divided by the attenuation); noise level reads as about 0
    a, b = np.triu_indices(2)
    counts = np.where(a != b, 900.0, 100.0)
    sharp = assortativity_target(counts, exact, np.array([1.0, 2.0]), 1.0, rng)
    assert sharp == pytest.approx(count_assortativity(counts, np.array([1.0, 2.0])), abs=1e-3)
    loud = Noise.for_laplace(0.01, 1.0, integer=True)
    assert abs(assortativity_target(counts, loud, np.array([1.0, 2.0]), 0.3, rng)) < 0.05


@pytest.mark.parametrize("target", [-0.3, 0.3])
def test_swaps_keep_degrees_blocks_and_fixed_edges_and_move_r(target):
    G = nx.barabasi_albert_graph(400, 3, seed=2)
    rows, columns = np.sort(np.array(G.edges), axis=1).T
    n = 400
    degrees = np.bincount(np.concatenate([rows, columns]), minlength=n).astype(float)
    labels = np.arange(n) % 3
    fixed_mask = np.arange(rows.size) % 5 == 0
    fixed = rows[fixed_mask] * n + columns[fixed_mask]
    free_rows, free_columns = rows[~fixed_mask], columns[~fixed_mask]
    before = degree_assortativity(rows, columns, degrees)
    new_rows, new_columns, passes = assortative_swaps(
        free_rows, free_columns, fixed, degrees, target, np.random.default_rng(0), labels=labels
    )
    assert 1 <= passes
    all_rows = np.concatenate([new_rows, fixed // n])
    all_columns = np.concatenate([new_columns, fixed % n])
    after = degree_assortativity(all_rows, all_columns, degrees)
    assert abs(after - target) < abs(before - target) - 0.1
    assert (all_rows < all_columns).all()  # no loops, one orientation
    keys = all_rows * n + all_columns
    assert np.unique(keys).size == keys.size  # no repeats
    assert (np.bincount(np.concatenate([all_rows, all_columns]), minlength=n) == degrees).all()

    def block_counts(r, c):
        low, high = np.minimum(labels[r], labels[c]), np.maximum(labels[r], labels[c])
        return np.bincount(low * 3 + high, minlength=9)

    assert (block_counts(new_rows, new_columns) == block_counts(free_rows, free_columns)).all()
    assert free_rows.tolist() == rows[~fixed_mask].tolist()  # the input is not changed


@pytest.mark.parametrize("labelled", [False, True])
def test_swaps_towards_a_lower_r_meet_it_in_one_pass(labelled):
    """The sorted pairing (each block pair's edges by log2(d_a d_b), first with last) and
    the refills of what repeats refused meet a disassortative target within TOLERANCE in
    one pass (a random pairing took two or three here), keeping every degree and block
    pair."""
    n = 2000
    G = nx.barabasi_albert_graph(n, 4, seed=3)
    rows, columns = np.sort(np.array(G.edges), axis=1).T
    degrees = np.bincount(np.concatenate([rows, columns]), minlength=n).astype(float)
    labels = np.arange(n) % 3 if labelled else None
    new_rows, new_columns, passes = assortative_swaps(
        rows, columns, np.zeros(0, np.int64), degrees, -0.25, np.random.default_rng(1), labels
    )
    assert passes == 1
    assert abs(degree_assortativity(new_rows, new_columns, degrees) + 0.25) <= 1e-3
    assert (np.bincount(np.concatenate([new_rows, new_columns]), minlength=n) == degrees).all()
    if labelled:
        low = np.minimum(labels[new_rows], labels[new_columns])
        high = np.maximum(labels[new_rows], labels[new_columns])
        before = np.minimum(labels[rows], labels[columns]) * 3
        before += np.maximum(labels[rows], labels[columns])
        assert (np.bincount(low * 3 + high, minlength=9) == np.bincount(before, minlength=9)).all()


@pytest.mark.parametrize("labelled", [False, True])
def test_swaps_weighing_a_few_pairs_at_a_time_swap_alike(labelled, monkeypatch):
    """The pairs weighed a chunk at a time (PAIR_CHUNK), the sums carried over: the same
    swaps as weighing them all at once."""
    G = nx.barabasi_albert_graph(300, 3, seed=5)
    rows, columns = np.sort(np.array(G.edges), axis=1).T
    degrees = np.bincount(np.concatenate([rows, columns]), minlength=300).astype(float)
    labels = np.arange(300) % 2 if labelled else None
    fixed = np.zeros(0, np.int64)
    swapped = {}
    for chunk in (2**18, 7):
        monkeypatch.setattr(assortativity, "PAIR_CHUNK", chunk)
        swapped[chunk] = assortative_swaps(
            rows, columns, fixed, degrees, -0.3, np.random.default_rng(3), labels=labels
        )
    (rows_a, columns_a, passes_a), (rows_b, columns_b, passes_b) = swapped.values()
    assert passes_a == passes_b >= 1 and (rows_a != rows).any()
    assert rows_a.tolist() == rows_b.tolist() and columns_a.tolist() == columns_b.tolist()


def test_the_release_meets_the_original_assortativity():
    """A strongly disassortative graph at a large epsilon: the default sparse release
    takes the swaps and lands near the original's r, far from where it starts."""
    G = nx.barabasi_albert_graph(1500, 4, seed=1)
    H = nx.Graph(G)
    hubs = sorted(G, key=G.degree, reverse=True)[:30]
    H.remove_edges_from([(u, v) for u in hubs for v in hubs if H.has_edge(u, v)])
    original = nx.degree_assortativity_coefficient(H)
    released = synthetic_graph(H, 50.0, method="sparse", rng=0)
    assert "assortativity swaps" in released.graph["privcut"]["mechanism"]
    assert abs(nx.degree_assortativity_coefficient(released) - original) < 0.03


def test_planner_and_measure_refuse_assortativity_where_it_does_not_apply():
    with pytest.raises(ValueError, match="add 'degrees'"):
        plan_measurements(range(10), 1.0, ["edge-count", "assortativity"])
    with pytest.raises(ValueError, match="undirected"):
        plan_measurements(range(10), 1.0, ["degrees", "assortativity"], directed=True)
    with pytest.raises(ValueError, match="0/1 graph"):
        plan_measurements(range(10), 1.0, ["degrees", "assortativity"], weight="weight")
    plan = plan_measurements(range(10), 1.0, ["edge-count", "degrees", "assortativity"])
    assert plan.epsilons[-1] == pytest.approx(planning.ASSORTATIVITY_SHARE)
    assert sum(plan.epsilons) == 1.0
    measured = measure(nx.path_graph(10), plan, rng=0)
    k = class_count(10)
    assert measured.get("assortativity").values.shape == (k * (k + 1) // 2,)
    with pytest.raises(ValueError, match="undirected"):
        measure(nx.path_graph(10, create_using=nx.DiGraph), plan, rng=0)
    assert "assortativity" not in SparseGenerator.default_measurements(False, directed=True)
    assert "assortativity" not in SparseGenerator.default_measurements(False, clustering=False)


def test_bad_input_to_the_swaps():
    rows, columns = np.array([0, 2]), np.array([1, 3])
    fixed, degrees = np.zeros(0, np.int64), np.ones(4)
    with pytest.raises(ValueError, match="target"):
        assortative_swaps(rows, columns, fixed, degrees, 1.5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="passes"):
        assortative_swaps(rows, columns, fixed, degrees, 0.0, np.random.default_rng(0), passes=-1)
    with pytest.raises(ValueError, match="n"):
        class_count(0)


def _star_pair(leaves: int):
    """A star on nodes 1.. around node 0, without and with the pair {1, 2}."""
    A = nx.to_scipy_sparse_array(nx.star_graph(leaves), nodelist=range(leaves + 1))
    B = sp.lil_array(A)
    B[1, 2] = B[2, 1] = 1
    return sp.csr_array(A), sp.csr_array(B)


@pytest.mark.slow
@pytest.mark.parametrize("broken", [False, True])
def test_the_assortativity_measurement_passes_its_audit_and_catches_a_broken_twin(
    broken, monkeypatch
):
    """The noisy counts summed over the class pairs (they move by exactly 1 whatever the
    noisy classes, so the sum isolates the flip) on a star and the star plus one pair,
    claim the plan's total epsilon (degrees and assortativity together are (epsilon,
    0)-DP). Broken twin: the sensitivity understated (0.1 instead of 1)."""
    monkeypatch.setitem(planning.SENSITIVITY, "assortativity", 0.1 if broken else SENSITIVITY)
    plan = plan_measurements(range(8), 1.0, {"degrees": 0.1, "assortativity": 0.9})

    def mechanism(A, rng, size):
        return np.array(
            [int(measure(A, plan, rng=rng).get("assortativity").values.sum()) for _ in range(size)]
        )

    result = audit(mechanism, _star_pair(7), 1.0, samples=500, vectorized=True, rng=0)
    if broken:
        assert result.p_value <= 1e-3
    else:
        assert result.p_value >= 0.01


@pytest.mark.parametrize("name", ["clustering", "assortativity"])
def test_the_dense_generator_refuses_the_swap_measurements_before_any_spend(name):
    G = nx.gnp_random_graph(30, 0.2, seed=1)
    named = ["edge-count", "degrees", name]
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match=f"method='dense' does not use the '{name}'.*'sparse'"):
        synthetic_graph(G, 1.0, method="dense", measurements=named, rng=rng)
    with pytest.raises(ValueError, match="different generators"):
        synthetic_graph(G, 1.0, measurements=[*named, "randomized-response"], rng=rng)
    assert rng.bit_generator.state == before  # refused before any draw
    report = synthetic_graph(G, 1.0, measurements=named, rng=0).graph["privcut"]
    assert "method 'auto': sparse" in report["mechanism"]
    assert name in [m["name"] for m in report["measurements"]]
    dense = synthetic_graph(G, 1.0, method="dense", rng=0).graph["privcut"]
    assert name not in [m["name"] for m in dense["measurements"]]  # "auto" never takes it


def test_csr_joint_degree_counts_are_the_upper_edges_counts():
    rng = np.random.default_rng(5)
    for size in (2, 9, 40):
        A = sp.csr_array(nx.to_scipy_sparse_array(nx.gnp_random_graph(size, 0.3, seed=size)))
        count = class_count(size)
        classes = rng.integers(0, count, size)
        expected = joint_degree_counts(*_upper(A), classes, count)
        assert csr_joint_degree_counts(A, classes, count).tolist() == expected.tolist()
