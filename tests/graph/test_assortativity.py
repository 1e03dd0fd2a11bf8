"""The ``"assortativity"`` measurement (a clipped-degree moment of the edges, its cap and
centre from the noisy degree sequence) and the degree-assortativity swaps of the sparse
generator (issue 18)."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from privcut import synthetic_graph
from privcut.audit import audit
from privcut.exceptions import PrivacyParameterError
from privcut.graph import assortativity, measurement, planning
from privcut.graph.assortativity import (
    CAP_LIMIT,
    assortative_swaps,
    assortativity_target,
    clipped_moment,
    degree_assortativity,
    largest_cap,
    moment_parameters,
    moment_sensitivity,
    most_cap,
    sequence_distribution,
)
from privcut.graph.measurement import measure, moment_of
from privcut.graph.planning import largest_noise, plan_measurements
from privcut.graph.sparse import SparseGenerator
from privcut.privacy import Noise
from tests.auditing import float_sampler_slack


def _upper(A) -> tuple[np.ndarray, np.ndarray]:
    coo = sp.coo_array(A)
    upper = coo.row < coo.col
    return coo.row[upper], coo.col[upper]


def _flipped(A, i: int, j: int) -> sp.csr_array:
    B = sp.lil_array(A)
    B[i, j] = B[j, i] = 1 - B[i, j]
    return sp.csr_array(B)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(4, 14),
    st.floats(0.1, 0.7),
    st.integers(1, 12),
    st.integers(0, 2**31),
    st.integers(0, 2**31),
)
def test_one_flip_moves_the_moment_by_at_most_its_sensitivity(n, density, cap, graph_seed, seed):
    """Random graphs, a random public cap and centre in [0, cap], a random pair flipped:
    the clipped moment moves by at most the stated l1 sensitivity 3 D^2 - 2 D."""
    rng = np.random.default_rng(seed)
    A = sp.csr_array(nx.to_scipy_sparse_array(nx.gnp_random_graph(n, density, seed=graph_seed)))
    centre = int(rng.integers(0, cap + 1))
    i, j = rng.choice(n, 2, replace=False)
    change = clipped_moment(_flipped(A, i, j), cap, centre) - clipped_moment(A, cap, centre)
    assert abs(change) <= moment_sensitivity(cap) == 3 * cap * cap - 2 * cap


def _widest_pair():
    """Nodes 0 and 1 of degree 2, each joined to two nodes of a K4 (degree 4), without and
    with the pair {0, 1}: at cap 3 and centre 0 the moment moves by exactly 3 D^2 - 2 D."""
    G = nx.complete_graph([2, 3, 4, 5])
    G.add_edges_from([(0, 2), (0, 3), (1, 4), (1, 5)])
    A = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(6)))
    return A, _flipped(A, 0, 1)


def test_the_sensitivity_is_reached():
    A, B = _widest_pair()
    assert clipped_moment(B, 3, 0) - clipped_moment(A, 3, 0) == moment_sensitivity(3) == 21


def test_the_moment_is_exact_in_64_bits():
    """The cap is held at most at the public CAP_LIMIT and at the largest one whose moment
    cannot overflow on n nodes, and a larger one is refused (public values only)."""
    hubs = np.full(10**6, 5000.0)  # a distribution whose 0.95 cap would be 5,000
    assert moment_parameters(hubs) == (CAP_LIMIT, CAP_LIMIT) == (512, 512)
    assert most_cap(10**7) == largest_cap(10**7) == 214  # the 64-bit bound binds
    assert most_cap(10**6) == CAP_LIMIT < largest_cap(10**6)
    assert most_cap(20) == 19  # no fitted degree is above n - 1
    A = sp.csr_array(nx.to_scipy_sparse_array(nx.path_graph(3)))
    assert isinstance(clipped_moment(A, 2, 1), int)
    with pytest.raises(ValueError, match="cap"):
        clipped_moment(A, largest_cap(3) + 1, 0)
    with pytest.raises(ValueError, match="centre"):
        clipped_moment(A, 2, 3)


def test_the_moment_gives_newman_r_unclipped():
    """With the cap at the largest degree, the target from the exact moment (no noise, a
    flat prior) is networkx's degree assortativity, whatever the centre."""
    G = nx.barabasi_albert_graph(200, 3, seed=4)
    A = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(200)))
    degrees = np.diff(A.indptr).astype(float)
    expected = nx.degree_assortativity_coefficient(G)
    exact = Noise.for_laplace(1e9, 1.0, integer=True)
    cap = int(degrees.max())
    for centre in (0, 5, cap):
        value = clipped_moment(A, cap, centre)
        found = assortativity_target(value, exact, degrees, cap, centre, prior=1e6)
        assert found == pytest.approx(expected, abs=1e-6)
    assert degree_assortativity(*_upper(A), degrees) == pytest.approx(expected)


def test_the_target_shrinks_at_noise_level():
    G = nx.barabasi_albert_graph(300, 2, seed=1)
    A = sp.csr_array(nx.to_scipy_sparse_array(G, nodelist=range(300)))
    degrees = np.diff(A.indptr).astype(float)
    cap, centre = moment_parameters(degrees)
    value = clipped_moment(A, cap, centre)
    exact = Noise.for_laplace(1e6, 1.0, integer=True)
    sharp = assortativity_target(value, exact, degrees, cap, centre)
    rows, columns = _upper(A)
    clipped = np.minimum(degrees, cap)  # r of the clipped degrees over the edges' ends
    ends = np.concatenate([clipped[rows], clipped[columns]])
    other = np.concatenate([clipped[columns], clipped[rows]])
    assert sharp == pytest.approx(np.corrcoef(ends, other)[0, 1], abs=1e-3)
    loud = Noise.for_laplace(1e-3, moment_sensitivity(cap), integer=True)
    assert abs(assortativity_target(value, loud, degrees, cap, centre)) < 1e-3
    assert assortativity_target(value, loud, np.zeros(5), cap, centre) == 0.0


def test_the_cap_and_centre_come_from_each_groups_fitted_sequence():
    values = np.array([2.0, 1.0, 3.0, 9.0, 7.0])  # groups 0 (three nodes) and 1 (two)
    labels = np.array([1, 0, 0, 1, 0])
    fitted = sequence_distribution(values, labels)
    assert fitted.tolist() == [1.5, 1.5, 3.0, 4.0, 4.0]  # each group's isotonic fit, in [0, 4]
    # edge ends reached (sorted): 1.5, 3, 6, 10, 14 of 14; centre: the clipped ends' mean
    assert moment_parameters(fitted) == (4, 3)  # 45.5 / 14 rounded
    assert moment_parameters(fitted, share=0.2) == (2, 2)  # 26.5 / 14 rounded
    plan = plan_measurements(range(6), 1.0, ["edge-count", "degree-sequence", "assortativity"])
    measured = measure(nx.path_graph(6), plan, rng=0)
    record = measured.get("assortativity")
    cap, _ = moment_of(measured.records, None, 6)
    assert record.values.shape == (1,) and record.sensitivity == moment_sensitivity(cap)
    assert record.noise.scale == pytest.approx(moment_sensitivity(cap) / record.epsilon)


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
    with pytest.raises(ValueError, match="add 'degree-sequence'"):
        plan_measurements(range(10), 1.0, ["edge-count", "degrees", "assortativity"])
    with pytest.raises(ValueError, match="undirected"):
        plan_measurements(range(10), 1.0, ["degree-sequence", "assortativity"], directed=True)
    with pytest.raises(ValueError, match="0/1 graph"):
        plan_measurements(range(10), 1.0, ["degree-sequence", "assortativity"], weight="weight")
    plan = plan_measurements(range(10), 1.0, ["edge-count", "degree-sequence", "assortativity"])
    assert plan.epsilons[-1] == pytest.approx(planning.ASSORTATIVITY_SHARE)
    assert sum(plan.epsilons) == 1.0
    measured = measure(nx.path_graph(10), plan, rng=0)
    assert measured.get("assortativity").values.shape == (1,)
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
    with pytest.raises(ValueError, match="cap"):
        moment_sensitivity(0)


@pytest.mark.slow
@pytest.mark.parametrize("broken", [False, True])
def test_the_assortativity_measurement_passes_its_audit_and_catches_a_broken_twin(
    broken, monkeypatch
):
    """The noisy moment alone, at the public cap 3 and centre 0 that the earlier
    ``"degree-sequence"`` fixes (adaptive composition: the measurement must be
    epsilon-DP for every value of it; pinned here where the moment moves by exactly its
    sensitivity), claims its own epsilon. Broken twin: the sensitivity taken as the new
    edge's term alone, D^2, forgetting the neighbours' terms."""
    monkeypatch.setattr(measurement, "moment_of", lambda records, partition, n: (3, 0))
    plan = plan_measurements(range(6), 1.0, {"degree-sequence": 0.1, "assortativity": 0.9})

    def honest(A, rng, size):
        return np.array(
            [int(measure(A, plan, rng=rng).get("assortativity").values[0]) for _ in range(size)]
        )

    def new_term_only(A, rng, size):
        """The measurement at sensitivity D^2 = 9, ``size`` releases at once: the moment at
        cap 3 and centre 0 plus its discrete Laplace noise."""
        epsilon = plan.epsilons[plan.measurements.index("assortativity")]
        noise = Noise.for_laplace(epsilon, 9.0, integer=True, coordinates=1)
        return clipped_moment(A, 3, 0) + noise.sample(size, rng=rng)

    mechanism = new_term_only if broken else honest
    result = audit(mechanism, _widest_pair(), 0.9, samples=1000, vectorized=True, rng=0)
    if broken:
        assert result.p_value <= 1e-3
    else:
        assert result.p_value >= 0.01


@pytest.mark.parametrize("name", ["clustering", "assortativity"])
def test_the_dense_generator_refuses_the_swap_measurements_before_any_spend(name):
    G = nx.gnp_random_graph(30, 0.2, seed=1)
    named = ["edge-count", "degrees", "degree-sequence", name]
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


def test_the_stated_slack_does_not_depend_on_the_cap_the_data_chose(monkeypatch):
    """Review 38 F3: the measured cap follows the released degrees, so the sampler's
    total-variation bound is stated at the largest public cap: two graphs on the same
    nodes with caps far apart state the same bound, at least that of the noise drawn."""
    float_sampler_slack(monkeypatch)
    n, epsilon = 300, 1.0
    plan = plan_measurements(range(n), epsilon, ["edge-count", "degree-sequence", "assortativity"])
    sparse = nx.gnm_random_graph(n, 300, seed=1)
    dense = nx.gnm_random_graph(n, 12000, seed=1)
    records = [measure(G, plan, rng=0).get("assortativity") for G in (sparse, dense)]
    assert records[0].sensitivity < records[1].sensitivity  # the data chose the caps
    stated = [record.sampler_tv for record in records]
    assert stated[0] == stated[1] > 0.0
    noise, _ = largest_noise("assortativity", records[0].epsilon, n)
    assert noise.scale == moment_sensitivity(most_cap(n)) / records[0].epsilon
    assert all(s >= r.noise.tv_bound(r.draws) for s, r in zip(stated, records, strict=True))


def test_a_plan_whose_largest_moment_noise_passes_the_cap_is_refused_before_any_spend():
    """Review 38 F2: at an epsilon where the assortativity noise at the largest cap the
    data could choose would pass the samplers' 2**40, the plan is refused (before the
    measurement charges the budget), whatever the graph's own cap."""
    nodes = range(2000)
    with pytest.raises(PrivacyParameterError, match=r"epsilon too small.*'assortativity'"):
        plan_measurements(nodes, 1e-5, ["edge-count", "degree-sequence", "assortativity"])
    plan_measurements(nodes, 1e-3, ["edge-count", "degree-sequence", "assortativity"])
