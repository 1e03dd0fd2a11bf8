"""The cut oracle's measured start (issue 20): factored answers, the budget's split, bad
input before any spend, the state file, and the audit of its new measurement."""

from __future__ import annotations

import math
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from privcut import CutOracle
from privcut.audit import audit, neighbouring_graphs
from privcut.exceptions import GraphInputError, PrivcutError
from privcut.files import StateFile
from privcut.graph import oracle as oracle_module
from privcut.graph import start as start_module
from privcut.graph.hypotheses import EdgeBounds
from privcut.graph.start import BlockStart, measure_start
from privcut.graph.universe import EdgeUniverse


def _random_start(directed: bool, g: int = 3, n: int = 9, seed: int = 0) -> BlockStart:
    rng = np.random.default_rng(seed)
    left = rng.random(n)
    right = rng.random(n) if directed else left
    omega = rng.random((g, g)) * 3.0
    if not directed:
        omega = omega + omega.T
    return BlockStart(left, right, rng.integers(0, g, n), omega, directed)


@pytest.mark.parametrize(("directed", "g", "n"), [(False, 3, 9), (True, 3, 9), (False, 17, 60)])
def test_start_answers_are_the_dense_matrix_s_and_a_batch_is_one_by_one(directed, g, n):
    start, rng = _random_start(directed, g, n), np.random.default_rng(1)
    P = start.matrix()
    assert np.all(np.diagonal(P) == 0.0)
    us = (rng.random((40, n)) < 0.5).astype(float)
    vs = rng.random((40, n)) * (rng.random((40, n)) < 0.6)  # fractional rank-1 queries too
    one = np.array([start.answer(u, v) for u, v in zip(us, vs, strict=True)])
    batch = start.answers(sp.csr_array(us), sp.csr_array(vs))
    assert np.array_equal(one, batch)  # to the last bit
    assert np.allclose(one, np.einsum("qi,ij,qj->q", us, P, vs))
    assert np.array_equal(batch[5:9], start.answers(sp.csr_array(us[5:9]), sp.csr_array(vs[5:9])))
    pairs = P if directed else np.triu(P, 1)
    assert math.isclose(start.squares(), float(np.sum(pairs**2)))


def test_edge_sum_counts_each_edge_once_clipped_at_one():
    start = _random_start(False)
    G = nx.gnp_random_graph(9, 0.5, seed=2)
    A = nx.to_scipy_sparse_array(G, nodelist=range(9), format="csr")
    P = np.minimum(start.matrix(), 1.0)
    expected = sum(P[i, j] for i, j in G.edges())
    assert abs(start.edge_sum(A) / 2**20 - expected) <= G.number_of_edges() * 2**-20


def _groups(n: int, g: int) -> dict:
    return {node: node * g // n for node in range(n)}


@pytest.mark.parametrize(
    "options",
    [
        {"start": "density"},
        {"start": "density", "max_edges": 2000.0},
        {},
        {"max_edges": 2000.0},
        {"groups": _groups(60, 3)},
        {"groups": _groups(60, 3), "max_edges": 2000.0, "start_share": 0.37},
        {"groups": "private"},
    ],
)
def test_every_spend_is_named_and_they_add_up_to_epsilon_exactly(options):
    G = nx.gnp_random_graph(60, 0.3, seed=3)
    oracle = CutOracle(G, 0.7, 1e-6, max_queries=50, rng=0, **options)
    spends = oracle.status().spends
    assert spends[-1].name == "sparse-vector"
    assert sum(Fraction(spend.epsilon) for spend in spends) == Fraction(0.7)
    names = [spend.name for spend in spends]
    assert ("edge-count" in names) == ("max_edges" not in options)
    assert ("blocks" in names) == ("groups" in options)
    assert ("communities: sweep" in names) == (options.get("groups") == "private")
    assert oracle.status().start == options.get("start", "measured")


def test_the_measured_start_is_the_hypothesis_and_its_potential_bounds_the_truth():
    G = nx.stochastic_block_model([30, 30], [[0.6, 0.05], [0.05, 0.6]], seed=4)
    groups = _groups(60, 2)
    oracle = CutOracle(G, 4.0, 1e-6, max_queries=20, groups=groups, rng=0)
    P = oracle.start.start.matrix()
    assert np.array_equal(oracle.idc.matrix(), P)
    A = nx.to_numpy_array(G, nodelist=range(60))
    upper = np.triu_indices(60, 1)
    assert float(np.sum((A - P)[upper] ** 2)) <= oracle.status().potential
    inside = oracle.cut(range(30), range(30))
    assert abs(inside - A[:30, :30].sum()) < 60  # the block count, not the density


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"start_share": 0.0}, ValueError, "start_share"),
        ({"start_share": 1.5}, ValueError, "start_share"),
        ({"start_share": "a"}, TypeError, "start_share"),
        ({"start": "empty"}, ValueError, "start"),
        ({"start": "measured", "idc": "multiplicative-weights"}, ValueError, "frieze-kannan"),
        ({"count_share": 0.1}, ValueError, "start_share"),
        ({"start": "density", "groups": {0: 0}}, ValueError, "groups"),
        ({"groups": {node: 0 for node in range(5)}}, GraphInputError, "no group"),
        ({"groups": {node: 0 for node in range(-1, 6)}}, GraphInputError, "not in the graph"),
        ({"groups": "public"}, TypeError, "mapping"),
        ({"groups": "private", "G": nx.path_graph(6, nx.DiGraph)}, ValueError, "undirected"),
    ],
)
def test_bad_start_input_is_refused_before_any_spend(monkeypatch, options, error, match):
    def spent(*args, **kwargs):
        raise AssertionError("budget spent before the input was checked")

    monkeypatch.setattr(oracle_module, "measure_start", spent)
    monkeypatch.setattr(EdgeBounds, "measure", spent)
    G = options.pop("G", nx.path_graph(6))
    with pytest.raises(error, match=match):
        CutOracle(G, 1.0, 1e-6, **options)


@pytest.mark.parametrize("directed", [False, True])
def test_a_measured_start_round_trips_through_its_state_file(tmp_path, directed):
    G = nx.gnp_random_graph(40, 0.3, seed=5, directed=directed)
    groups, path = _groups(40, 4), tmp_path / "oracle.json"
    queries = [(range(10 * k), range(10 * k, 40)) for k in range(1, 4)]
    with CutOracle(G, 2.0, 1e-6, max_queries=10, groups=groups, path=path, rng=0) as oracle:
        oracle.cuts(queries)
        before = oracle.status()
    with CutOracle.load(path, G, rng=1) as resumed:
        assert resumed.status() == before
        assert np.array_equal(resumed.idc.matrix(), oracle.idc.matrix())
        resumed.cut(range(5), range(5, 40))


def test_a_state_of_the_previous_format_is_refused_naming_both(tmp_path):
    path = tmp_path / "old.json"
    store = StateFile.create(path, "privcut-cut-oracle/2", None)
    store.advance({"queries_answered": 0, "updates": 0})
    store.write({}, {"queries_answered": 0, "updates": 0})
    store.close()
    with pytest.raises(PrivcutError, match=r"privcut-cut-oracle/2.*privcut-cut-oracle/4"):
        CutOracle.load(path, nx.path_graph(4))


def test_an_altered_saved_start_is_refused(tmp_path):
    G, path = nx.gnp_random_graph(20, 0.4, seed=6), tmp_path / "oracle.json"
    with CutOracle(G, 1.0, 1e-6, max_queries=5, path=path, rng=0):
        pass
    store, state, spent = StateFile.open(path, oracle_module.FORMAT, None)
    state["start"]["spends"][0]["epsilon"] *= 2.0  # more budget than recorded
    store.write(state, spent)
    store.close()
    with pytest.raises(PrivcutError, match="malformed oracle state"):
        CutOracle.load(path, G)


def _potential_only(monkeypatch):
    """Nearly all of the start's budget on the potential, so the audit sees its noise."""
    split = {"edge-count": 0.01, "degrees": 0.01, start_module.POTENTIAL: 0.98}
    monkeypatch.setitem(start_module.SPLIT, False, split)


@pytest.mark.slow
def test_the_start_passes_its_audit_and_catches_a_quarter_of_the_potential_noise(monkeypatch):
    """The start's whole output on an edge-flip pair, read through its new measurement (the
    noisy Y = |E| - 2 sum min(P, 1)): at epsilon it passes; the broken twin calibrates Y
    for sensitivity 1/4 (a quarter of the noise) and is caught."""
    _potential_only(monkeypatch)
    G = nx.path_graph(6)
    pair = (G, next(neighbouring_graphs(G, pairs=[(0, 3)])))

    def mechanism(graph, rng):
        universe, A = EdgeUniverse.read(graph, None)
        bought = measure_start(A, universe, 1.0, 0.05, rng=rng)
        return round(bought.deviation, 6)

    correct = audit(mechanism, pair, 1.0, samples=500, selection_samples=500, rng=0)
    monkeypatch.setattr(start_module, "POTENTIAL_SENSITIVITY", 0.25)
    # caught at p <= 5e-7 at rng 0-9 with 250 samples (<= 8e-21 with 500)
    broken = audit(mechanism, pair, 1.0, samples=250, selection_samples=250, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3
