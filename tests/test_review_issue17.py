"""Adversarial review of issue 17's release paths (sparse input and output, the sparse
generator with filtered survivors and fitted degrees, the sparse cut paths).

What passes here is evidence that a path is sound; a test marked ``xfail(strict=True)``
demonstrates a bug (its reason says which), so the suite stays green until it is fixed.
"""

import itertools

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from privcut import synthetic_graph
from privcut.audit import audit
from privcut.graph import CutOracle, EdgeUniverse, answer_cuts
from privcut.graph import workloads as workload_module
from privcut.graph.arrays import read_adjacency
from privcut.graph.fitting import fit_targets
from privcut.graph.measurement import measure
from privcut.graph.partition import Partition
from privcut.graph.planning import plan_measurements
from privcut.graph.sparse import SparseGenerator
from privcut.graph.workloads import CutWorkload

FILTERED = "filtered-randomized-response"
EVERYTHING = ["edge-count", "degrees", "degree-sequence", FILTERED]


def state(generator: np.random.Generator) -> int:
    """The bit generator's position: unchanged iff nothing was drawn."""
    return generator.bit_generator.state["state"]["state"]


# --- sparse input: the release is a function of the graph, not of its storage ----------


def _storages(A: sp.csr_array) -> dict:
    coo = A.tocoo()
    zeros = sp.coo_array(
        (
            np.concatenate([coo.data, [0.0, 0.0]]),
            (np.concatenate([coo.row, [0, 19]]), np.concatenate([coo.col, [19, 0]])),
        ),
        shape=A.shape,
    )
    halves = sp.coo_array(
        (
            np.concatenate([coo.data, coo.data]) / 2,
            (np.concatenate([coo.row, coo.row]), np.concatenate([coo.col, coo.col])),
        ),
        shape=A.shape,
    )
    wraps = sp.coo_array(
        (
            np.full(2 * coo.nnz, 128, dtype=np.uint8),
            (np.concatenate([coo.row, coo.row]), np.concatenate([coo.col, coo.col])),
        ),
        shape=A.shape,
    )
    return {
        "explicit zeros": zeros,
        "duplicates": halves,
        "uint8 duplicates": wraps,
        "bool": A.astype(bool),
        "int8": A.astype(np.int8),
        "coo": coo,
        "csc": A.tocsc(),
        "lil matrix": sp.lil_matrix(A),
        "scaled": A * 7,
    }


def test_same_graph_in_any_storage_gives_the_same_release():
    """Explicit zeros, duplicates (also small-int ones that once wrapped to 0 when summed
    in uint8), dtypes, formats and stored values (weight=None) change nothing: same
    release and report at the same seed. Caught the uint8 wrap (fixed in read_adjacency)."""
    A = sp.csr_array(nx.to_scipy_sparse_array(nx.gnp_random_graph(20, 0.2, seed=4)))

    def release(X):
        H = synthetic_graph(X, 1.0, measurements=EVERYTHING, rng=5)
        return H.toarray(), H.graph["privcut"], H.nodes

    expected = release(A)
    for name, X in _storages(A).items():
        found = release(X)
        assert np.array_equal(found[0], expected[0]), name
        assert found[1:] == expected[1:], name


def test_valid_neighbouring_arrays_read_alike():
    """Every valid neighbour of a valid array (one pair added or removed, a weight moved
    within [0, 1]; undirected and directed) reads without error: no error can tell
    neighbours apart."""
    G = nx.gnp_random_graph(6, 0.4, seed=1)
    for directed in (False, True):
        H = G.to_directed() if directed else G
        for u, v in itertools.permutations(range(6), 2):
            if not directed and u > v:
                continue
            other = H.copy()
            if other.has_edge(u, v):
                other.remove_edge(u, v)
            else:
                other.add_edge(u, v)
            for graph in (H, other):
                A = sp.csr_array(nx.to_scipy_sparse_array(graph, nodelist=range(6)))
                read_adjacency(A, directed=directed)
                read_adjacency(A * 0.3, "weight", directed=directed)


# --- public refusals come before any draw -----------------------------------------------


def test_synthetic_graph_refusals_come_before_any_draw():
    """Over a grid of public options (method, measurements, groups, rounding, tau, memory)
    on an array, a directed array and a NetworkX graph: every error leaves the generator
    untouched (raised before any noise)."""
    G = nx.gnp_random_graph(8, 0.3, seed=2)
    A = sp.csr_array(nx.to_scipy_sparse_array(G))
    D = sp.csr_array(nx.to_scipy_sparse_array(nx.gnp_random_graph(8, 0.3, seed=2, directed=True)))
    groups = {v: v % 3 for v in range(8)}
    names = [
        [FILTERED],
        {FILTERED: 1.0},
        ["randomized-response", FILTERED],
        ["blocks", FILTERED],
        ["degree-sequence", FILTERED],
        None,
        "auto",
    ]
    grid = itertools.product(["auto", "dense", "sparse"], names, [None, groups], ["random", None])
    raised = 0
    for (X, extra), (method, measurements, grouped, rounding) in itertools.product(
        [(G, {}), (A, {}), (D, {"directed": True})], grid
    ):
        generator = np.random.default_rng(0)
        before = state(generator)
        try:
            synthetic_graph(
                X, 1.0, method=method, measurements=measurements, groups=grouped,
                rounding=rounding, rng=generator, **extra,
            )  # fmt: skip
        except (ValueError, TypeError):
            raised += 1
            assert state(generator) == before, (method, measurements, grouped, rounding)
    assert raised > 50  # the grid does reach the refusals


# --- the sparse generator: counts kept exactly, edge cases ------------------------------


class Spy(SparseGenerator):
    """The honest generator, remembering its integer block counts."""

    def counts(self, measured, targets, rng):
        self.seen = super().counts(measured, targets, rng)
        return self.seen


CASES = [
    ("empty", nx.empty_graph(5), None, ["edge-count", "degrees", FILTERED]),
    ("two nodes", nx.path_graph(2), None, EVERYTHING),
    ("two nodes directed", nx.DiGraph([(0, 1)]), None, EVERYTHING),
    ("isolated nodes", nx.Graph([(0, 1)]), None, ["edge-count", "degrees"]),
    ("singleton groups", nx.path_graph(4), {i: i for i in range(4)}, ["blocks", "degrees"]),
    ("one-node group", nx.path_graph(5), {0: 0, 1: 1, 2: 1, 3: 1, 4: 1}, ["blocks", FILTERED]),
    ("full block pairs", nx.complete_graph(6), {i: i % 2 for i in range(6)}, ["blocks"]),
    ("directed groups", nx.complete_graph(5).to_directed(), {i: i % 2 for i in range(5)},
     ["blocks", "degrees", "degree-sequence", FILTERED]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "G", "groups", "names"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("epsilon", [0.05, 1.0, 90.0])
def test_sparse_generator_keeps_every_count_on_edge_cases(name, G, groups, names, epsilon):
    if name == "isolated nodes":
        G.add_nodes_from(range(2, 7))
    universe = EdgeUniverse.of(G)
    partition = Partition.of(universe, groups) if groups is not None else None
    plan = plan_measurements(
        universe.nodes, epsilon, names, groups=groups, directed=universe.directed
    )
    measured = measure(G, plan, partition=partition, rng=1)
    generator = Spy()
    done = generator.generate(
        measured, fit_targets(measured), generator.options(), np.random.default_rng(2)
    )
    n = universe.n
    keys = done.rows * n + done.columns
    assert np.unique(keys).size == keys.size and (done.rows != done.columns).all()
    if not universe.directed:
        assert (done.rows < done.columns).all()
    if partition is not None:
        assert np.array_equal(done.block_sums(partition), generator.seen)
    else:
        assert done.edge_count == generator.seen[0]
    if epsilon == 90.0 and names == ["blocks"]:  # noise-free counts of full block pairs
        assert sorted(done.graph().edges) == sorted(G.edges)


# --- answer_cuts: the closed-form sensitivity bound --------------------------------------


def _adversarial_workloads(n: int, seed: int):
    """Workloads that stress the bound: repeated (V, V), nested sides, S = T, one node in
    every S and every T."""
    rng = np.random.default_rng(seed)
    everyone = set(range(n))
    yield [(everyone, everyone)] * 5
    yield [(set(range(i + 1)), set(range(i, n))) for i in range(n - 1)]
    yield [({0} | set(rng.choice(n, 3).tolist()), {0, 1} | set(rng.choice(n, 4).tolist()))
           for _ in range(7)]  # fmt: skip
    yield [(set(rng.choice(n, 5).tolist()),) * 2 for _ in range(6)]


@pytest.mark.parametrize("directed", [False, True])
def test_closed_form_sensitivity_bound_covers_the_exact_value(directed, monkeypatch):
    """The bound above MAX_SENSITIVITY_BLOCKS (a public constant, set to 0 here) is at
    least the exact scan on adversarial workloads, and tight on k copies of (V, V)."""
    universe = EdgeUniverse(tuple(range(12)), directed)
    for seed in range(3):
        for queries in _adversarial_workloads(12, seed):
            exact = CutWorkload.of(universe, queries).sensitivities()
            monkeypatch.setattr(workload_module, "MAX_SENSITIVITY_BLOCKS", 0)
            bound = CutWorkload.of(universe, queries).sensitivities()
            monkeypatch.undo()
            assert bound[0] >= exact[0] - 1e-12 and bound[1] >= exact[1] - 1e-12, queries
    everyone = set(range(12))
    monkeypatch.setattr(workload_module, "MAX_SENSITIVITY_BLOCKS", 0)
    bound = CutWorkload.of(universe, [(everyone, everyone)] * 5).sensitivities()
    scale = 1.0 if directed else 2.0
    assert bound == pytest.approx((5 * scale, scale * np.sqrt(5)))


class Quartered(CutWorkload):
    """A deliberately broken twin: the bound path's sensitivities divided by 4."""

    def sensitivities(self):
        l1, l2 = super().sensitivities()
        return l1 / 4.0, l2 / 4.0


@pytest.mark.slow
def test_workload_release_on_the_bound_path_passes_its_audit(monkeypatch):
    """The workload strategy at the closed-form bound (2M = 4 here, the exact value 3):
    the audit finds nothing; its quartered twin is caught."""
    monkeypatch.setattr(workload_module, "MAX_SENSITIVITY_BLOCKS", 0)
    G = nx.Graph([(0, 1), (1, 2), (2, 3), (3, 4)])
    neighbour = G.copy()
    neighbour.add_edge(1, 3)
    queries = [({1, 2, 3}, {1, 2, 3}), ({1}, {3, 4}), ({1, 3}, {0, 3})]
    universe = EdgeUniverse.of(G)

    def release(kind):
        workload = kind.of(universe, queries)
        return lambda g, rng: answer_cuts(g, workload, 1.0, strategy="workload", rng=rng).raw

    correct = audit(release(CutWorkload), (G, neighbour), 1.0, samples=500, rng=0)
    # 3000 samples: at 1000 this twin is near the audit's power (seeds 0-13: 1 miss at 1e-3,
    # seed 0's p = 0.010); at 3000 every seed 0-13 catches it at p <= 4e-15 (review 4)
    broken = audit(release(Quartered), (G, neighbour), 1.0, samples=1500, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


# --- the whole sparse array release, directed, every measurement ------------------------


@pytest.mark.slow
def test_directed_array_release_with_every_measurement_passes_its_audit():
    """A directed array with groups, the blocks, both degree measurements and filtered
    survivors, one arc apart; the output is the released arc set with the report's
    edge count and solver iterations (the data-dependent parts of the report)."""
    nodes = tuple(range(5))
    G = nx.DiGraph([(0, 1), (1, 2), (2, 0), (3, 4)])
    G.add_nodes_from(nodes)
    neighbour = G.copy()
    neighbour.add_edge(1, 3)
    groups = {v: v % 2 for v in nodes}
    names = ["blocks", "degrees", "degree-sequence", FILTERED]

    def mechanism(A, rng):
        H = synthetic_graph(
            A, 1.0, directed=True, groups=groups, measurements=names, method="sparse", rng=rng
        )
        report = H.graph["privcut"]
        arcs = tuple(zip(*H.nonzero(), strict=True))
        return (tuple(sorted(arcs)), report["edge_count"], report["solver"]["iterations"])

    pair = tuple(sp.csr_array(nx.to_scipy_sparse_array(g, nodelist=nodes)) for g in (G, neighbour))
    result = audit(mechanism, pair, 1.0, samples=300, rng=0)
    assert result.p_value >= 0.01


# --- bugs --------------------------------------------------------------------------------


def test_answer_cuts_takes_a_directed_array():
    """Was a bug: answer_cuts (like CutOracle, noisy_graph, filtered_randomized_response)
    had no nodes/directed declarations for a sparse G (tests/graph/test_array_inputs.py)."""
    A = sp.csr_array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    answers = answer_cuts(A, [({0}, {1, 2})], 1.0, directed=True, rng=0)
    assert answers.values.shape == (1,)


def test_dense_release_above_the_dense_limit_is_refused_before_any_draw():
    n = 5_000_000  # n x n float64 is 182 TiB: more than any address space, never allocated
    generator = np.random.default_rng(0)
    before = state(generator)
    with pytest.raises(ValueError, match=r"DENSE|memory|sparse"):
        synthetic_graph(
            sp.csr_array((n, n)),
            1.0,
            measurements=["edge-count", "randomized-response"],
            rng=generator,
        )
    assert state(generator) == before


def test_oracle_refuses_paper_calibration_without_delta_before_any_draw():
    generator = np.random.default_rng(0)
    before = state(generator)
    with pytest.raises(ValueError, match="delta > 0"):
        CutOracle(nx.path_graph(10), 1.0, 0.0, calibration="paper", rng=generator)
    assert state(generator) == before


def test_an_unordered_node_set_is_refused():
    A = sp.csr_array(nx.to_scipy_sparse_array(nx.path_graph(3)))
    with pytest.raises((TypeError, ValueError)):
        EdgeUniverse.of(A, nodes={"c", "a", "b"})
