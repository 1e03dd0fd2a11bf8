"""The ``"clustering"`` measurement (capped projection, triangle corners per noisy-degree
bin) and the BTER affinity blocks of the sparse generator (issue 18)."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from privcut import synthetic_graph
from privcut.audit import audit
from privcut.datasets import community_graph
from privcut.graph import affinity, clustering, planning
from privcut.graph.affinity import affinity_edges
from privcut.graph.clustering import (
    BIN_EDGES,
    bin_clustering,
    binned_corners,
    capped_projection,
    clustering_sensitivity,
    degree_bins,
    projected_corners,
    triangle_corners,
)
from privcut.graph.fitting import fit_targets
from privcut.graph.measurement import measure
from privcut.graph.planning import plan_measurements
from privcut.graph.sparse import SparseGenerator
from privcut.privacy import Noise

BINS = len(BIN_EDGES) + 1


def _edges(A) -> set:
    coo = sp.coo_array(A)
    return {(int(i), int(j)) for i, j in zip(coo.row, coo.col, strict=True) if i < j}


def _flipped(A, i, j):
    B = sp.lil_array(A)
    B[i, j] = B[j, i] = 1 - B[i, j]
    return sp.csr_array(B)


@pytest.mark.parametrize("priority", [False, True])
def test_one_flip_moves_at_most_three_projected_edges_and_the_bound(priority):
    """Random flips on a dense random graph with a small cap: the projection's degrees
    stay <= cap, at most 3 projected edges change, the binned corners move by at most
    9 (cap - 1) in l1 and the pooled corners by at most 6 (cap - 1) (the stated
    sensitivities)."""
    rng = np.random.default_rng(0)
    n, cap = 40, 5
    A = nx.to_scipy_sparse_array(nx.gnp_random_graph(n, 0.3, seed=1))
    weights = rng.normal(10, 3, n) if priority else None
    bins = degree_bins(rng.integers(0, 20, n))
    before = capped_projection(A, cap, salt=3, priority=weights)
    corners = binned_corners(triangle_corners(before), bins, BINS)
    worst = pooled = 0.0
    for _ in range(60):
        i, j = rng.choice(n, 2, replace=False)
        after = capped_projection(_flipped(A, i, j), cap, salt=3, priority=weights)
        assert int(after.sum(axis=1).max()) <= cap
        assert len(_edges(before) ^ _edges(after)) <= 3
        moved = binned_corners(triangle_corners(after), bins, BINS) - corners
        worst = max(worst, np.abs(moved).sum())
        pooled = max(pooled, abs(moved.sum()))
    assert 0 < worst <= clustering_sensitivity(cap)
    assert 0 < pooled <= clustering_sensitivity(cap, bins=1)


def test_the_cap_and_the_bins_follow_the_released_degrees():
    """A sparse graph (99% of the degrees small) is measured pooled at a small cap, a graph
    with many high degrees in bins at the largest cap; the noise is the one of that cap."""
    sparse = nx.random_regular_graph(4, 200, seed=0)
    dense = nx.gnp_random_graph(200, 0.5, seed=0)
    names = {"degrees": 0.3, "degree-sequence": 0.4, "clustering": 0.3}
    for G, cap, bins in ((sparse, clustering.MIN_CAP, 1), (dense, clustering.DEFAULT_CAP, 3)):
        record = measure(G, plan_measurements(G.nodes, 50.0, names), rng=0).get("clustering")
        assert record.values.size == bins
        assert record.sensitivity == clustering_sensitivity(cap, bins)
        assert clustering.cap_of(record.sensitivity, bins) == cap
    low = plan_measurements(dense.nodes, 0.2, names)  # clustering at epsilon 0.06: pooled
    assert measure(dense, low, rng=0).get("clustering").values.size == 1


def test_triangle_corners_match_networkx_and_a_large_cap_keeps_the_graph():
    G = nx.powerlaw_cluster_graph(120, 4, 0.6, seed=2)
    A = nx.to_scipy_sparse_array(G, nodelist=range(120))
    expected = list(dict(sorted(nx.triangles(G).items())).values())
    assert triangle_corners(A).tolist() == expected
    assert _edges(capped_projection(A, 120)) == _edges(A)


@pytest.mark.parametrize("collide", [False, True])
def test_triangle_corners_match_networkx_on_random_graphs(collide, monkeypatch):
    """The wedge count with its filter of hashed pairs is exact on small random graphs of
    every density (degree ties in the orientation included), also when every pair hashes
    to one slot (``collide``: the filter passes every wedge, the row lookup alone decides)
    and the wedges are listed a few at a time (chunks ending inside a tail's run), on
    sparse graphs with few triangles too; diagonal entries, explicit zeros and duplicate
    entries are not edges or count once."""
    if collide:
        monkeypatch.setattr(
            clustering, "_pair_slots", lambda first, second, bits: np.zeros(first.size, int)
        )
        monkeypatch.setattr(clustering, "_CHUNK", 5)
    rng = np.random.default_rng(7)
    for trial in range(12):
        n = int(rng.integers(1, 30))
        G = nx.gnp_random_graph(n, rng.uniform(0.0, 1.0), seed=trial)
        A = nx.to_scipy_sparse_array(G, nodelist=range(n))
        assert triangle_corners(A).tolist() == list(dict(sorted(nx.triangles(G).items())).values())
    for trial in range(3):  # sparse: few closed wedges (found by their wedge counts)
        G = nx.gnm_random_graph(300, 600, seed=trial)
        A = nx.to_scipy_sparse_array(G, nodelist=range(300))
        assert triangle_corners(A).tolist() == list(dict(sorted(nx.triangles(G).items())).values())
    rows, columns = [0, 1, 1, 2, 0, 2, 2, 0, 3, 0], [1, 0, 2, 1, 2, 0, 2, 3, 0, 1]
    data = [1.0, 1, 1, 1, 1, 1, 1, 0, 0, 1]  # a triangle, a loop, a zero pair, a duplicate
    A = sp.coo_array((data, (rows, columns)), shape=(4, 4))
    assert triangle_corners(A).tolist() == [1, 1, 1, 0]
    big = 70_000  # pair keys b n + c beyond 32 bits, tails grouped by scipy
    clique = big - 1 - 7 * np.arange(5)
    rows, columns = np.repeat(clique, 5), np.tile(clique, 5)
    A = sp.csr_array((np.ones(25), (rows, columns)), shape=(big, big))  # K5, with its loops
    corners = triangle_corners(A)
    assert corners[clique].tolist() == [6] * 5 and corners.sum() == 30


def _reference_kept(A, cap, salt, priority):
    """The projection by its definition: each end ordered by (node, priority rank of the
    other end, hash rank, position among the edges seen from rows then columns)."""
    coo = sp.coo_array(A)
    upper = coo.row < coo.col
    n = A.shape[0]
    keys = np.sort(coo.row[upper].astype(np.int64) * n + coo.col[upper])
    rows, columns = keys // n, keys % n
    m = rows.size
    rank = clustering._mix(keys, salt)
    ends, others = np.concatenate([rows, columns]), np.concatenate([columns, rows])
    level = np.zeros(n) if priority is None else np.unique(priority, return_inverse=True)[1]
    order = np.lexsort((np.arange(2 * m), np.concatenate([rank, rank]), level[others], ends))
    position = np.empty(2 * m, dtype=np.int64)
    starts = np.searchsorted(ends[order], np.arange(n))
    position[order] = np.arange(2 * m) - starts[ends[order]]
    keep = (position[:m] < cap) & (position[m:] < cap)
    return {(int(i), int(j)) for i, j in zip(rows[keep], columns[keep], strict=True)}


@pytest.mark.parametrize("coarse", [False, True])
def test_the_projection_keeps_the_first_cap_edges_of_the_stated_order(coarse, monkeypatch):
    """The fast projection (a radix sort of the ends above the cap only) keeps exactly the
    edges of the definition, also when hash ranks tie (``coarse``: ranks of 3 bits), and
    the corners counted on it without its CSR (the measurement's path, from a CSR or a
    COO adjacency) are networkx's triangles of those edges."""
    if coarse:
        mix = clustering._mix
        monkeypatch.setattr(clustering, "_mix", lambda keys, salt: mix(keys, salt) & np.uint64(7))
    rng = np.random.default_rng(5)
    for trial in range(40):
        n = int(rng.integers(2, 50))
        A = nx.to_scipy_sparse_array(
            nx.gnp_random_graph(n, rng.uniform(0.05, 0.9), seed=trial), nodelist=range(n)
        )
        cap, salt = int(rng.integers(2, 10)), int(rng.integers(0, 2**63))
        # integer priorities (shifted, no sort) or halves (their dense ranks)
        priority = None if trial % 2 else rng.integers(0, 4, n) / (1.0 + (trial % 4 == 0))
        expected = _reference_kept(A, cap, salt, priority)
        assert _edges(capped_projection(A, cap, salt, priority=priority)) == expected
        H = nx.Graph(expected)
        H.add_nodes_from(range(n))
        corners = projected_corners(A if trial % 3 else sp.coo_array(A), cap, salt, priority)
        assert corners.tolist() == list(dict(sorted(nx.triangles(H).items())).values())


def test_bins_and_clustering_estimate():
    assert degree_bins(np.array([0, 3.9, 4, 15.9, 16, 1e9])).tolist() == [0, 0, 1, 1, 2, 2]
    noise = Noise.for_laplace(1.0, 1.0, integer=True)
    degrees = np.array([3.0, 3.0, 10.0, 10.0, 40.0])
    bins = degree_bins(degrees)
    # the ratio corners / capped wedges (6, 56 and 28 wedges at cap 8); the gate is 4.24
    c = bin_clustering(np.array([4.8, 28.0, 0.0]), bins, degrees, noise, cap=8)
    assert c.round(12).tolist() == [0.8, 0.5, 0.0]
    # a bin at noise level takes the nearest higher bin's estimate
    c = bin_clustering(np.array([3.0, 28.0, 0.0]), bins, degrees, noise, cap=8)
    assert c.round(12).tolist() == [0.5, 0.5, 0.0]
    # all bins at noise level: the step is off
    assert bin_clustering(np.zeros(3), degree_bins(degrees), degrees, noise).tolist() == [0] * 3
    # pooled: the ratio well above the noise, pulled below it (not to 0) at 2 noise sd, 0 at
    # or below 1 sd (a triangle-free graph's count is noise: no BTER triangles from it)
    wide = Noise.for_laplace(1.0, 100.0, integer=True)
    sd = np.sqrt(wide.variance)
    assert clustering.pooled_clustering(5000.0, 1e4, wide) == pytest.approx(0.5, abs=0.01)
    near = clustering.pooled_clustering(2 * sd, 1e4, wide)
    assert 0.0 < near < 2 * sd / 1e4
    assert clustering.pooled_clustering(sd, 1e4, wide) == 0.0
    assert clustering.pooled_clustering(0.5 * sd, 1e4, wide) == 0.0


def test_affinity_blocks_follow_the_degrees():
    degrees = np.array([1, 2, 2, 2, 3, 3, 3, 3, 70])
    rows, columns = affinity_edges(degrees, np.ones(9), np.random.default_rng(0), cap=64)
    within = np.bincount(np.concatenate([rows, columns]), minlength=9)
    assert within[0] == 0 and within[8] == 0  # degree 1 and above the cap: no block
    assert within[1:4].tolist() == [2, 2, 2]  # one block of 3 at density 1
    assert within[4:8].tolist() == [3, 3, 3, 3]
    assert (rows < columns).all()
    none = affinity_edges(degrees, np.zeros(9), np.random.default_rng(0))
    assert none[0].size == 0


def _reference_affinity(degrees, rho, rng, cap):
    """affinity_edges by its definition: the blocks of each size in turn (ascending), each
    drawing its pairs in numpy.triu_indices order."""
    eligible = np.flatnonzero((degrees >= 2) & (degrees <= cap) & (rho > 0.0))
    shuffled = eligible[rng.permutation(eligible.size)]
    order = shuffled[np.argsort(degrees[shuffled], kind="stable")]
    starts, sizes, i = [], [], 0
    while i < order.size:
        size = int(degrees[order[i]]) + 1
        end = i + int((degrees[order[i:]] == degrees[order[i]]).sum())
        for start in range(i, end, size):
            starts.append(start)
            sizes.append(min(size, order.size - start))
        i = starts[-1] + size
    starts, sizes = np.array(starts, dtype=np.int64), np.array(sizes, dtype=np.int64)
    rows, columns = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    for size in np.unique(sizes[sizes >= 2]):
        first = starts[sizes == size]
        members = order[first[:, None] + np.arange(size)]
        a, b = np.triu_indices(int(size), 1)
        block, pair = np.nonzero(rng.random((first.size, a.size)) < rho[order[first]][:, None])
        u, v = members[block, a[pair]], members[block, b[pair]]
        rows.append(np.minimum(u, v))
        columns.append(np.maximum(u, v))
    return np.concatenate(rows), np.concatenate(columns)


@pytest.mark.parametrize("draws", [2**22, 5])
def test_affinity_edges_draw_every_block_in_turn(draws, monkeypatch):
    """Drawing all blocks' pairs at once, or a few blocks at a time, gives the edges (and
    leaves the generator where) drawing each size's blocks in turn does."""
    monkeypatch.setattr(affinity, "_BLOCK_DRAWS", draws)
    for seed in range(20):
        r = np.random.default_rng(seed)
        n, cap = int(r.integers(0, 300)), int(r.integers(2, 40))
        degrees, rho = r.integers(0, 45, n), np.where(r.random(n) < 0.2, 0.0, r.random(n))
        first, second = np.random.default_rng(seed), np.random.default_rng(seed)
        got = affinity_edges(degrees, rho, first, cap)
        expected = _reference_affinity(degrees, rho, second, cap)
        for x, y in zip(got, expected, strict=True):
            assert np.array_equal(x, y) and x.dtype == y.dtype
        assert first.random() == second.random()


def test_the_planner_refuses_clustering_without_degrees_or_on_the_wrong_graph():
    with pytest.raises(ValueError, match="add 'degrees'"):
        plan_measurements(range(10), 1.0, ["edge-count", "clustering"])
    with pytest.raises(ValueError, match="undirected"):
        plan_measurements(range(10), 1.0, ["degrees", "clustering"], directed=True)
    with pytest.raises(ValueError, match="0/1 graph"):
        plan_measurements(range(10), 1.0, ["degrees", "clustering"], weight="weight")
    plan = plan_measurements(range(10), 1.0, ["edge-count", "degrees", "clustering"])
    assert plan.epsilons[-1] == pytest.approx(planning.CLUSTERING_SHARE)
    assert sum(plan.epsilons) == 1.0


def test_measure_refuses_clustering_on_a_digraph_before_any_spend():
    plan = plan_measurements(range(5), 1.0, ["degrees", "clustering"])
    with pytest.raises(ValueError, match="undirected"):
        measure(nx.path_graph(5, create_using=nx.DiGraph), plan, rng=0)


def test_bad_input_to_the_projection():
    with pytest.raises(TypeError, match=r"scipy\.sparse"):
        capped_projection(np.eye(3))
    with pytest.raises(ValueError, match="square"):
        capped_projection(sp.csr_array(np.ones((2, 3))))
    with pytest.raises(ValueError, match="cap"):
        capped_projection(sp.csr_array(np.eye(3)), cap=1)
    with pytest.raises(ValueError, match="square"):
        projected_corners(sp.csr_array(np.ones((2, 3))))


def test_projected_corners_count_a_duplicate_entry_once():
    pairs = [(0, 1), (0, 1), (0, 2), (1, 2), (1, 3), (1, 4), (2, 5), (2, 6)]  # (0, 1) twice
    rows, columns = np.array(pairs).T
    A = sp.coo_array((np.ones(16), (np.append(rows, columns), np.append(columns, rows))))
    expected = triangle_corners(capped_projection(A, 8))
    assert projected_corners(A, 8).tolist() == expected.tolist() == [1, 1, 1, 0, 0, 0, 0]


def test_sparse_defaults_take_clustering_without_groups_on_undirected_graphs_only():
    defaults = SparseGenerator.default_measurements(False)
    assert defaults == {
        "edge-count": 0.1,
        "degrees": 0.25,
        "degree-sequence": 0.45,
        "clustering": 0.15,
        "assortativity": 0.05,
    }
    assert "clustering" not in SparseGenerator.default_measurements(False, directed=True)
    assert "clustering" not in SparseGenerator.default_measurements(True)
    D = nx.gnp_random_graph(30, 0.2, seed=0, directed=True)
    H = synthetic_graph(D, 1.0, method="sparse", rng=0)
    assert "clustering" not in H.graph["privcut"]["mechanism"]


def test_bter_keeps_the_edge_count_and_restores_triangles():
    """At a large epsilon on a clustered graph: the block edges count towards the fitted
    total (kept exactly) and the release has many more triangles than without them."""
    G = community_graph(2000, 20, 10.0, seed=3, mixing=0.05)
    names = {"edge-count": 0.1, "degrees": 0.25, "degree-sequence": 0.5, "clustering": 0.15}
    plan = plan_measurements(G.nodes, 20.0, names)
    measured = measure(G, plan, rng=0)
    targets = fit_targets(measured)
    generator = SparseGenerator()
    done = generator.generate(measured, targets, generator.options(), np.random.default_rng(1))
    count = generator.counts(measured, targets, np.random.default_rng(1))
    assert done.edge_count == float(count.sum())
    assert "BTER" in done.mechanism
    plain = synthetic_graph(G, 20.0, method="sparse", measurements=["edge-count", "degrees"])
    with_blocks = sum(nx.triangles(done.graph()).values())
    without = sum(nx.triangles(plain).values())
    assert with_blocks > 3 * without


def _pair(common: int):
    """Nodes a = 0 and b = 1 with ``common`` common neighbours, without and with {a, b}."""
    n = common + 2
    rows = np.concatenate([np.zeros(common), np.ones(common)]).astype(int)
    columns = np.concatenate([np.arange(2, n), np.arange(2, n)])
    A = sp.csr_array((np.ones(2 * common), (rows, columns)), shape=(n, n))
    A = sp.csr_array(A + A.T)
    return A, _flipped(A, 0, 1)


def _released(plan, top: bool):
    def mechanism(A, rng, size):
        values = [measure(A, plan, rng=rng).get("clustering").values for _ in range(size)]
        return np.array([v[-1] if top else v.sum() for v in values]).astype(int)

    return mechanism


def _understated(plan, cap: int):
    """The measurement with its sensitivity taken as 3, ``size`` releases at once, for
    degrees at most the cap (every edge projected): the graph's triangle corners plus the
    noise summed over the bins."""
    epsilon = plan.epsilons[plan.measurements.index("clustering")]

    def mechanism(A, rng, size):
        assert A.sum(axis=1).max() <= cap
        count = clustering.bin_count(cap, epsilon)
        noise = Noise.for_laplace(epsilon, 3.0, integer=True, coordinates=count)
        exact = int(triangle_corners(A).sum())
        return exact + noise.sample((size, count), rng=rng).sum(axis=1)

    return mechanism


def _unprojected(plan, cap: int):
    """The measurement of the raw graph's corners (the projection skipped), ``size``
    releases at once: the noisy degrees' top bin's corners plus that bin's noise."""
    epsilon = plan.epsilons[plan.measurements.index("clustering")]
    degree_noise = plan.noise[plan.measurements.index("degrees")]

    def mechanism(A, rng, size):
        count = clustering.bin_count(cap, epsilon)
        sensitivity = clustering_sensitivity(cap, count)
        noise = Noise.for_laplace(epsilon, sensitivity, integer=True, coordinates=count)
        degrees = np.asarray(A.sum(axis=1)).ravel()
        noisy_degrees = degrees + degree_noise.sample((size, degrees.size), rng=rng)
        top = degree_bins(noisy_degrees) == count - 1
        return (top * triangle_corners(A)).sum(axis=1) + noise.sample(size, rng=rng)

    return mechanism


@pytest.mark.slow
@pytest.mark.parametrize(
    ("pooled", "broken", "common"),
    [
        (False, None, 7),
        (False, "sensitivity understated", 7),
        (False, "projection skipped", 120),
        (True, None, 7),
        (True, "sensitivity understated", 7),
    ],
)
def test_the_clustering_measurement_passes_its_audit_and_catches_broken_twins(
    broken, common, pooled, monkeypatch
):
    """The measurement at cap D = 8 (the proof holds for every cap; a small one keeps the
    graphs small), with bins (sensitivity 9 (D - 1) = 63) or pooled (one value, 6 (D - 1)
    = 42: the cap :func:`choose_cap` picks is forced, and bins are forced by lowering the
    largest cap to 8). Two nodes with ``common`` common neighbours, the pair between them
    flipped. With 7 (degrees at most the cap) every edge is projected and the flip closes
    7 triangles: 21 corners against the noise's 63 / 0.9 or 42 / 0.9. With 120 the raw
    graph gains 120 triangles, 240 corners at the two ends, and the projection almost none
    (each end keeps its edges to the lowest noisy degrees first; the other end's is
    high). The audited output is the noisy corners summed over the bins (independent of
    the bins, which the noisy degrees fix; pooled, the one value), or with 120 those of
    the top bin (degree >= 16), where the two ends always fall; its claim is the plan's
    total epsilon (degrees and clustering together are (epsilon, 0)-DP). Broken twins: the
    sensitivity understated (3, one triangle's corners, as if uncapped counts moved by
    one triangle), and the projection skipped (the raw graph's corners)."""
    from privcut.graph import measurement

    cap = 8
    monkeypatch.setattr(measurement, "choose_cap", lambda estimate: cap)
    if not pooled:
        monkeypatch.setattr(clustering, "DEFAULT_CAP", cap)
    pair = _pair(common)
    plan = plan_measurements(range(common + 2), 1.0, {"degrees": 0.1, "clustering": 0.9})
    assert measure(pair[0], plan, rng=0).get("clustering").values.size == (1 if pooled else 3)
    samples = 500 if pooled else 1000  # the pooled path differs only in the count and bound
    if broken is None:
        mechanism = _released(plan, common > 7)
    else:  # the twins drawn vectorised
        twin = _understated if broken == "sensitivity understated" else _unprojected
        mechanism = twin(plan, cap)
    result = audit(mechanism, pair, 1.0, samples=samples, vectorized=True, rng=0)
    if broken is None:
        assert result.p_value >= 0.01
    else:
        assert result.p_value <= 1e-3


@pytest.mark.slow
@pytest.mark.parametrize("broken", [False, True])
def test_the_adaptive_cap_passes_its_audit_and_catches_a_cap_from_true_degrees(broken):
    """The stop-28 review (F3): the cap is chosen from the released degrees only. Nodes 0
    and 1 each joined to 11 leaves, the pair (0, 1) flipped: the true 99% degree goes from
    11 to 12, across 2^3.5, so a cap from the true degrees would be 8 on one graph and 16 on
    the other (no triangles either way: only the pooled noise's scale 6 (D - 1) / epsilon
    differs). Honest: passes; the twin choosing the cap from the true degrees: caught."""
    n = 40
    rows, columns = [0] * 11 + [1] * 11, list(range(2, 13)) + list(range(13, 24))
    A = sp.csr_array((np.ones(22), (rows, columns)), shape=(n, n))
    A = sp.csr_array(A + A.T)
    B = sp.csr_array(A + sp.csr_array(([1.0, 1.0], ([0, 1], [1, 0])), shape=(n, n)))
    true_caps = [clustering.choose_cap(M.sum(axis=1).astype(float)) for M in (A, B)]
    assert true_caps == [8, 16]
    plan = plan_measurements(range(n), 1.0, {"degrees": 0.1, "clustering": 0.9})
    epsilon = plan.epsilons[plan.measurements.index("clustering")]

    def released(M, rng, size):
        draws = [measure(M, plan, rng=rng).get("clustering").values for _ in range(size)]
        return np.array([values.sum() for values in draws])

    def cap_from_true_degrees(M, rng, size):
        """The measurement with the cap chosen from M's true degrees, ``size`` releases at
        once: no triangles, so the released value is the pooled noise alone."""
        cap = clustering.choose_cap(M.sum(axis=1).astype(float))
        count = clustering.bin_count(cap, epsilon)
        assert not triangle_corners(M).any()
        sensitivity = clustering.clustering_sensitivity(cap, count)
        noise = Noise.for_laplace(epsilon, sensitivity, integer=True, coordinates=count)
        return noise.sample((size, count), rng=rng).sum(axis=1).astype(float)

    # the twin's scales differ 2.1x: caught at p <= 5e-12 at rng 0-9 with 5000 samples
    mechanism, samples = (cap_from_true_degrees, 5000) if broken else (released, 300)
    result = audit(mechanism, (A, B), 1.0, samples=samples, vectorized=True, rng=0)
    print(f"broken={broken}: p={result.p_value:.3g} ({result.event})")
    assert (result.p_value <= 1e-3) if broken else (result.p_value >= 0.01)
