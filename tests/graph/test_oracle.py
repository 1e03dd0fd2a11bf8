import copy
import json
import threading
import warnings

import networkx as nx
import numpy as np
import pytest

from privcut import CutOracle, GraphInputError, PrivcutError
from privcut.audit import audit
from privcut.graph import EdgeUniverse
from privcut.linear import OracleExhaustedWarning
from privcut.linear import online as online_module
from tests.auditing import record_sampler_tv


def random_cut(rng, n):
    return (
        rng.choice(n, rng.integers(1, n + 1), replace=False),
        rng.choice(n, rng.integers(1, n + 1), replace=False),
    )


def exact_answers(G):
    universe = EdgeUniverse.of(G)
    A = universe.adjacency(G)
    return lambda S, T: universe.indicator(S) @ (A @ universe.indicator(T))


@pytest.mark.parametrize("idc", ["frieze-kannan", "multiplicative-weights"])
@pytest.mark.parametrize("calibration", ["tight", "paper"])
def test_errors_stay_within_alpha_and_far_below_per_query_laplace(idc, calibration):
    """Issue 6's accuracy check, scaled down (the full 20 x 5000 run is benchmarks/oracle.py)."""
    G = nx.gnp_random_graph(200, 0.5, seed=0)
    universe = EdgeUniverse.of(G)
    A = universe.adjacency(G)
    k, within, means = 1000, 0, []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        oracle = CutOracle(G, 1.0, 1e-6, idc=idc, max_queries=k, calibration=calibration, rng=seed)
        errors = []
        for _ in range(k):
            S, T = random_cut(rng, 200)
            u, v = np.zeros(200), np.zeros(200)
            u[S], v[T] = 1.0, 1.0
            errors.append(abs(oracle.cut(S, T) - u @ (A @ v)))
        within += max(errors) <= oracle.alpha
        means.append(np.mean(errors))
    assert within == 3
    laplace_mean = k * 2.0 / 1.0  # per-query discrete Laplace at epsilon / k, sensitivity 2
    assert np.mean(means) * 10 <= laplace_mean


def test_tight_alpha_is_far_below_the_papers():
    G = nx.gnp_random_graph(60, 0.5, seed=0)
    tight = CutOracle(G, 1.0, 1e-6, max_queries=500, max_edges=1770, rng=0)
    paper = CutOracle(G, 1.0, 1e-6, max_queries=500, max_edges=1770, calibration="paper")
    assert tight.alpha * 50 < paper.alpha


def test_an_empty_start_learns_by_updates():
    """With a public edge bound the hypothesis starts empty, so big cuts force updates."""
    G = nx.gnp_random_graph(200, 0.5, seed=1)
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=150, max_edges=19_900, rng=0)
    rng, exact = np.random.default_rng(0), exact_answers(G)
    errors = []
    for _ in range(150):
        S, T = random_cut(rng, 200)
        errors.append(abs(oracle.cut(S, T) - exact(S, T)))
    assert 0 < oracle.updates <= oracle.max_updates
    assert max(errors) <= oracle.alpha
    assert np.mean(errors[-50:]) < np.mean(errors[:10])


def test_rank1_queries_and_directed_graphs():
    G = nx.gnp_random_graph(40, 0.4, seed=2, directed=True)
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=50, rng=0)
    u = {node: 0.5 for node in range(20)}
    v = {node: 1.0 for node in range(20, 40)}
    exact = sum(0.5 for s, t in G.edges() if s < 20 <= t)
    assert abs(oracle.rank1(u, v) - exact) <= oracle.alpha
    assert oracle.sensitivity == 1.0
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        oracle.rank1({0: 2.0}, v)
    with pytest.raises(KeyError, match="not in the graph"):
        oracle.cut([99], [0])


def _straddling_graphs(epsilon, n=50, max_edges=612):
    """A graph whose query (V, V) = 2|E| sits just above the threshold, and a neighbour one
    edge below it."""
    probe = CutOracle(nx.empty_graph(n), epsilon, 0.0, max_edges=max_edges, max_queries=3, rng=0)
    edges = int(np.ceil(probe._engine.calibration.threshold / 2))
    rng = np.random.default_rng(0)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    G = nx.empty_graph(n)
    G.add_edges_from(pairs[p] for p in rng.choice(len(pairs), edges, replace=False))
    neighbour = G.copy()
    neighbour.remove_edge(*next(iter(G.edges())))
    return G, neighbour


def test_oracle_passes_its_audit_and_catches_a_noiseless_comparison(monkeypatch):
    epsilon, n = 2.0, 50
    pair = _straddling_graphs(epsilon)

    def transcript(graph, rng):
        oracle = CutOracle(graph, epsilon, 0.0, max_edges=612, max_queries=3, rng=rng)
        first = oracle.cut(range(n), range(n))
        second = oracle.cut(range(25), range(25, n)) if first else oracle.cut(range(10), range(n))
        return first, second, oracle.cut(range(n), range(n))

    def without_noise(engine, true_answer, hypothesis, integer=True):
        answer = true_answer()
        engine.queries_answered += 1
        if abs(answer - round(hypothesis)) < engine.calibration.threshold:
            return hypothesis, False
        engine.updates += 1
        return answer + float(engine.calibration.answer.sample(rng=engine.generator)), True

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OracleExhaustedWarning)
        correct = audit(transcript, pair, epsilon, samples=1500, selection_samples=800, rng=0)
        monkeypatch.setattr(online_module.SparseVector, "step", without_noise)
        broken = audit(transcript, pair, epsilon, samples=300, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


def test_save_load_continues_exactly(tmp_path):
    G = nx.gnp_random_graph(120, 0.5, seed=3)
    rng = np.random.default_rng(4)
    queries = [random_cut(rng, 120) for _ in range(150)]
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=500, max_edges=7140, rng=np.random.default_rng(5))
    for S, T in queries[:100]:
        oracle.cut(S, T)
    assert oracle.updates > 0
    path = tmp_path / "oracle.json"
    oracle.save(path)
    resumed = CutOracle.load(path, G, rng=copy.deepcopy(oracle._engine.generator))
    assert (resumed.queries_answered, resumed.updates) == (100, oracle.updates)
    assert resumed.alpha == oracle.alpha and resumed.epsilon == oracle.epsilon
    assert resumed._engine.threshold_draw == oracle._engine.threshold_draw
    for S, T in queries[100:]:
        assert resumed.cut(S, T) == oracle.cut(S, T)
    assert resumed.updates == oracle.updates and resumed.queries_answered == 150


def test_load_refuses_corrupt_altered_and_foreign_files(tmp_path):
    G = nx.gnp_random_graph(20, 0.5, seed=6)
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=10, rng=0)
    path = tmp_path / "oracle.json"
    oracle.save(path)
    text = path.read_text()
    truncated = tmp_path / "truncated.json"
    truncated.write_text(text[: len(text) // 2])
    with pytest.raises(PrivcutError, match="truncated or corrupt"):
        CutOracle.load(truncated, G)
    document = json.loads(text)
    document["body"] = document["body"].replace('"queries_answered": 0', '"queries_answered": 1')
    altered = tmp_path / "altered.json"
    altered.write_text(json.dumps(document))
    with pytest.raises(PrivcutError, match="checksum mismatch"):
        CutOracle.load(altered, G)
    with pytest.raises(PrivcutError, match="another node set"):
        CutOracle.load(path, nx.gnp_random_graph(21, 0.5, seed=6))
    document = json.loads(text)
    document["format"] = "something-else"
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps(document))
    with pytest.raises(PrivcutError, match="not a 'privcut-cut-oracle"):
        CutOracle.load(foreign, G)


def test_answers_are_withheld_when_the_state_cannot_be_written(tmp_path):
    G = nx.gnp_random_graph(20, 0.5, seed=7)
    path = tmp_path / "state.json"
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=10, path=path, rng=0)
    oracle.cut(range(10), range(10, 20))
    assert CutOracle.load(path, G).queries_answered == 1
    oracle.path = tmp_path / "missing" / "state.json"
    with pytest.raises(PrivcutError, match="answer is withheld"):
        oracle.cut(range(10), range(10, 20))
    with pytest.raises(PrivcutError, match="stopped"):
        oracle.cut(range(10), range(10, 20))


def test_exhausted_oracle_answers_from_the_hypothesis_with_a_warning():
    G = nx.gnp_random_graph(30, 0.5, seed=8)
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=2, rng=0)
    oracle.cut(range(10), range(10, 30))
    oracle.cut(range(5), range(5, 30))
    assert oracle.exhausted
    with pytest.warns(OracleExhaustedWarning):
        value = oracle.cut(range(10), range(10, 30))
    assert value == oracle.idc.evaluate(
        (
            oracle.universe.indicator(range(10)),
            oracle.universe.indicator(range(10, 30)),
        )
    )
    assert oracle.queries_answered == 2


def test_median_construction_only_for_tiny_graphs():
    tiny = nx.path_graph(4)
    oracle = CutOracle(tiny, 2.0, 0.1, idc="median", max_queries=5, max_edges=3, rng=0)
    assert abs(oracle.cut([0, 1], [2, 3]) - 1.0) <= oracle.alpha
    with pytest.raises(ValueError, match="median construction would hold"):
        CutOracle(nx.empty_graph(1500), 1.0, 1e-6, idc="median", max_queries=5, max_edges=10)


def test_concurrent_queries_are_all_counted():
    G = nx.gnp_random_graph(60, 0.5, seed=9)
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=1000, rng=0)

    def ask():
        for _ in range(50):
            oracle.cut(range(30), range(30, 60))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert oracle.queries_answered == 200


def test_bad_input_is_refused_before_any_spend():
    G = nx.path_graph(5)
    with pytest.raises(GraphInputError, match="0/1 graph"):
        CutOracle(nx.Graph([(0, 1, {"weight": 0.5})]), 1.0, 1e-6)
    with pytest.raises(ValueError, match="idc must be"):
        CutOracle(G, 1.0, 1e-6, idc="svd")
    with pytest.raises(ValueError, match="max_edges"):
        CutOracle(G, 1.0, 1e-6, max_edges=-3)
    with pytest.raises(ValueError, match="needs delta > 0"):
        CutOracle(G, 1.0, 0.0, calibration="paper")
    with pytest.raises(ValueError, match="max_queries"):
        CutOracle(G, 1.0, 1e-6, max_queries=0)


def test_fractional_rank1_answers_get_continuous_noise():
    """Integer noise on a real answer would reveal its fractional part."""
    G = nx.gnp_random_graph(200, 0.5, seed=11)
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=5, max_edges=19_900, rng=0)
    u = {node: 0.9 for node in G}
    value = oracle.rank1(u, u)
    assert oracle.updates == 1
    exact = 0.81 * 2 * G.number_of_edges()
    assert abs(value - exact) <= oracle.alpha
    assert not float(value - exact).is_integer()


def test_autosave_starts_at_construction_and_survives_a_reload(tmp_path):
    G = nx.gnp_random_graph(30, 0.5, seed=10)
    path = tmp_path / "oracle.json"
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=20, path=path, rng=0)
    assert CutOracle.load(path, G, autosave=False).queries_answered == 0
    oracle.cut(range(15), range(15, 30))
    resumed = CutOracle.load(path, G)
    resumed.cut(range(15), range(15, 30))
    assert CutOracle.load(path, G).queries_answered == 2


def _fractional_rank1(graph, calibration, epsilon, rng):
    """One fractional rank-1 query (u = 1/4 on node 0) on a graph; its answer."""
    half = graph.number_of_nodes() // 2
    u = {0: 0.25, **{node: 1.0 for node in range(1, half)}}
    v = {node: 1.0 for node in range(half, 2 * half)}
    oracle = CutOracle(
        graph, epsilon, 1e-6, max_edges=1, max_queries=2, calibration=calibration, rng=rng
    )
    answer = oracle.rank1(u, v)
    assert oracle.updates == 1  # an empty start: the first query is an update round
    return answer


def test_fractional_rank1_answer_hides_its_fractional_part():
    """Issue 15: integer noise on u^T A v with u(0) = 1/4 released its fractional part, 1/4 with
    the edge (0, half) and 0 without it."""
    G = nx.complete_bipartite_graph(30, 30)
    neighbour = G.copy()
    neighbour.remove_edge(0, 30)

    def fractional_part(graph, rng):
        return round(_fractional_rank1(graph, "tight", 1.0, rng) % 1.0, 6)

    result = audit(fractional_part, (G, neighbour), 1.0, 1e-6, samples=400, rng=0)
    assert result.p_value >= 0.01


def test_fractional_rank1_answer_hides_its_fractional_part_under_paper_calibration():
    """The same leak through Algorithm 1's comparison noise, which is also the released noise
    (epsilon is large so that a small graph's answer clears the paper's threshold; the leak is
    deterministic: old answers all had the exact answer's fractional part)."""
    G = nx.complete_bipartite_graph(30, 30)
    answers = [_fractional_rank1(G, "paper", 2000.0, seed) for seed in range(10)]
    assert len({round(answer % 1.0, 9) for answer in answers}) == len(answers)


def test_zero_weight_edges_do_not_count_as_edges():
    """Issue 15: a weight-0 edge was counted in the noisy edge count (nnz)."""
    G = nx.gnp_random_graph(30, 0.3, seed=0)
    with_zero = G.copy()
    with_zero.add_edge(*next(pair for pair in nx.non_edges(G)), weight=0)
    assert CutOracle(with_zero, 1.0, 1e-6, rng=5).edges == CutOracle(G, 1.0, 1e-6, rng=5).edges


@pytest.mark.parametrize("calibration", ["tight", "paper"])
def test_oracle_reports_its_samplers_slack(calibration, monkeypatch):
    """Issue 15: the oracle said delta without the integer samplers' total variation slack:
    the noisy edge count, the comparisons, the answers and the thresholds drawn so far."""
    G = nx.gnp_random_graph(40, 0.5, seed=0)
    drawn = record_sampler_tv(monkeypatch)
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=1000, calibration=calibration, rng=0)
    rng = np.random.default_rng(1)
    for _ in range(30):
        oracle.cut(*random_cut(rng, 40))
    assert not oracle.exhausted
    assert oracle.sampler_tv == pytest.approx(drawn(), rel=1e-12)
    assert oracle.sampler_tv > 0.0
    assert oracle.effective_delta == pytest.approx(1e-6 + (1 + np.e) * oracle.sampler_tv)
