"""The cut oracle under the composed calibration (delta > 0, moderate max_queries): its
audit on edge-flip neighbours straddling the threshold, with a broken twin caught, and
its promise on a small graph."""

import warnings

import networkx as nx
import numpy as np
import pytest

from privcut import CutOracle
from privcut.audit import audit
from privcut.linear import OracleExhaustedWarning
from privcut.linear.online import SparseVector

EPSILON, DELTA, N, MAX_EDGES = 2.0, 1e-3, 50, 612


def _straddling_graphs():
    """A graph whose query (V, V) = 2|E| is at or just above the composed calibration's
    threshold (the hypothesis starts at 0 under a public max_edges), and an edge-flip
    neighbour one edge below."""
    probe = CutOracle(nx.empty_graph(N), EPSILON, DELTA, max_edges=MAX_EDGES, max_queries=3, rng=0)
    calibration = probe.status().to_dict()
    assert calibration["calibration"] == "tight"
    threshold = probe._engine.calibration.threshold
    edges = int(np.ceil(threshold / 2))
    rng = np.random.default_rng(0)
    pairs = [(i, j) for i in range(N) for j in range(i + 1, N)]
    G = nx.empty_graph(N)
    G.add_edges_from(pairs[p] for p in rng.choice(len(pairs), edges, replace=False))
    neighbour = G.copy()
    neighbour.remove_edge(*next(iter(G.edges())))
    return G, neighbour


class ExactComparison(SparseVector):
    """Broken twin: compares the exact answer with the threshold and adds the comparison
    noise only to what it releases (the outcome of the comparison is then exact)."""

    def step(self, true_answer, hypothesis, *, integer=True, sensitivity=2.0, error=0.0):
        answer = true_answer()
        self.queries_answered += 1
        if abs(answer - hypothesis) <= self.calibration.threshold:
            return hypothesis, False
        self.updates += 1
        return float(self.calibration.comparison.add(answer, rng=self.generator)), True


def _transcript_with(sparse_vector):
    def transcript(graph, rng):
        oracle = CutOracle(
            graph,
            EPSILON,
            DELTA,
            max_edges=MAX_EDGES,
            max_queries=3,
            rng=rng,
            sparse_vector=sparse_vector,
        )
        first = oracle.cut(range(N), range(N))
        second = oracle.cut(range(25), range(25, N)) if first else oracle.cut(range(10), range(N))
        return first, second, oracle.cut(range(N), range(N))

    return transcript


def test_the_straddling_oracle_uses_the_composed_calibration():
    G, neighbour = _straddling_graphs()
    oracle = CutOracle(G, EPSILON, DELTA, max_edges=MAX_EDGES, max_queries=3, rng=0)
    calibration = oracle._engine.calibration
    assert calibration.answer is None and calibration.threshold_noise is None
    assert calibration.comparison.kind == "discrete_gaussian"
    assert 2 * G.number_of_edges() >= calibration.threshold > 2 * neighbour.number_of_edges()


@pytest.mark.slow
def test_the_composed_oracle_passes_its_audit_and_catches_an_exact_comparison():
    pair = _straddling_graphs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OracleExhaustedWarning)
        correct = audit(
            _transcript_with(SparseVector),
            pair,
            EPSILON,
            DELTA,
            samples=1500,
            selection_samples=800,
            rng=0,
        )
        broken = audit(_transcript_with(ExactComparison), pair, EPSILON, DELTA, samples=300, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


def test_the_composed_promise_holds_on_a_small_graph():
    """G(60, 0.5) with a public edge bound (empty start, so updates happen): every answer
    within alpha, and answers off the hypothesis are noisy answers."""
    G = nx.gnp_random_graph(60, 0.5, seed=2)
    A = nx.to_numpy_array(G, nodelist=range(60))
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=200, max_edges=1770 * 0.6, start="density", rng=1)
    assert oracle._engine.calibration.answer is None
    rng = np.random.default_rng(3)
    errors = []
    for _ in range(200):
        S = rng.choice(60, rng.integers(1, 61), replace=False)
        T = rng.choice(60, rng.integers(1, 61), replace=False)
        errors.append(abs(oracle.cut(S.tolist(), T.tolist()) - A[np.ix_(S, T)].sum()))
    assert max(errors) <= oracle.alpha
    assert 0 < oracle.updates <= min(oracle.max_updates, 200)
