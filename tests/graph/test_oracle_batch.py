"""CutOracle.cuts: a batch answers exactly as cut one by one, in order."""

import copy
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from privcut import CutOracle, PrivcutError
from privcut.files import StateFile
from privcut.linear import OracleExhaustedWarning
from privcut.linear.online import SparseVector


def random_cuts(n, q, seed):
    rng = np.random.default_rng(seed)
    return [
        (
            rng.choice(n, rng.integers(1, n + 1), replace=False).tolist(),
            rng.choice(n, rng.integers(1, n + 1), replace=False).tolist(),
        )
        for _ in range(q)
    ]


def make(G, **options):
    options = {
        "max_queries": 500,
        "max_edges": 14_280,
        "start": "density",
        "rng": np.random.default_rng(5),
    } | options
    return CutOracle(G, 4.0, 1e-6, **options)


def one_by_one(oracle, queries):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OracleExhaustedWarning)
        return np.array([oracle.cut(S, T) for S, T in queries])


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("calibration", ["tight", "paper"])
def test_a_batch_answers_exactly_as_cut_one_by_one_across_updates(directed, calibration):
    G = nx.gnp_random_graph(120, 0.5, seed=3, directed=directed)
    queries = random_cuts(120, 300, seed=4)  # more than one block of 256
    sequential, batched = make(G, calibration=calibration), make(G, calibration=calibration)
    expected = one_by_one(sequential, queries)
    answers = batched.cuts(queries)
    assert answers.dtype == float and np.array_equal(answers, expected)
    assert batched.updates == sequential.updates
    assert calibration == "paper" or batched.updates > 1  # across updates
    assert batched._engine.state() == sequential._engine.state()
    assert batched.sampler_tv == sequential.sampler_tv


@pytest.mark.parametrize("directed", [False, True])
def test_small_pairs_as_arrays_lists_and_repeats_answer_as_cut_one_by_one(directed):
    # small sides take the gathered true answers, integer arrays the vectorised lookup
    G = nx.gnp_random_graph(120, 0.5, seed=3, directed=directed)
    rng = np.random.default_rng(7)
    queries = []
    for j in range(300):
        s, t = rng.integers(0, 120, rng.integers(1, 26)), rng.integers(0, 120, rng.integers(1, 26))
        queries.append((s.astype(np.int32), t) if j % 3 else (s.tolist(), set(t.tolist())))
    truths = ([], [])

    def recording(found):
        class Recording(SparseVector):  # the true answers read, compared below
            def step(self, true_answer, *arguments, **options):
                found.append(true_answer())
                return super().step(lambda: found[-1], *arguments, **options)

        return Recording

    sequential, batched = (make(G, sparse_vector=recording(found)) for found in truths)
    assert np.array_equal(batched.cuts(queries), one_by_one(sequential, queries))
    assert batched._engine.state() == sequential._engine.state()
    assert truths[0] == truths[1] and len(truths[0]) == 300
    labelled = nx.relabel_nodes(G, {i: f"v{i}" for i in G}) if not directed else None
    if labelled is not None:  # labels that are not ints: the dict lookup
        named = [([f"v{i}" for i in s], [f"v{i}" for i in t]) for s, t in queries]
        assert np.array_equal(make(labelled).cuts(named), one_by_one(make(labelled), named))


def test_the_matrix_form_answers_as_the_pairs():
    G = nx.gnp_random_graph(120, 0.5, seed=3)
    queries = random_cuts(120, 100, seed=6)
    S, T = np.zeros((100, 120)), np.zeros((100, 120), dtype=np.int8)
    for j, (s, t) in enumerate(queries):
        S[j, s], T[j, t] = 1.0, 1
    expected = make(G).cuts(queries)
    assert np.array_equal(make(G).cuts((S, T)), expected)
    assert np.array_equal(make(G).cuts((sp.csr_array(S), sp.coo_array(T))), expected)
    repeated = [(s + s[:3], np.array(t)) for s, t in queries]  # labels repeated, arrays
    assert np.array_equal(make(G).cuts(repeated), expected)


def test_a_batch_across_a_save_and_load_continues_as_one_by_one(tmp_path):
    G = nx.gnp_random_graph(120, 0.5, seed=3)
    queries = random_cuts(120, 60, seed=7)
    expected = one_by_one(make(G), queries)
    oracle = make(G, path=tmp_path / "oracle.json")  # autosaved before every answer
    answers = list(oracle.cuts(queries[:25]))
    assert oracle.updates > 0
    generator = copy.deepcopy(oracle._engine.generator)
    oracle.close()
    with CutOracle.load(tmp_path / "oracle.json", G, rng=generator) as resumed:
        assert resumed.queries_answered == 25
        answers += list(resumed.cuts(queries[25:]))
    assert np.array_equal(answers, expected)
    assert CutOracle.load(tmp_path / "oracle.json", G).queries_answered == 60


def test_exhaustion_mid_batch_answers_the_rest_from_the_hypothesis_with_one_warning():
    G = nx.gnp_random_graph(30, 0.5, seed=8)
    queries = random_cuts(30, 300, seed=9)  # more than one block
    expected = one_by_one(make(G, max_queries=5, max_edges=None), queries)
    oracle = make(G, max_queries=5, max_edges=None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        answers = oracle.cuts(queries)
    assert [w.category for w in caught] == [OracleExhaustedWarning]
    assert np.array_equal(answers, expected) and oracle.queries_answered == 5
    with pytest.warns(OracleExhaustedWarning):  # exhausted before the batch
        assert np.array_equal(oracle.cuts(queries[5:]), expected[5:])


def test_a_failed_save_mid_batch_stops_and_keeps_the_answers_given(tmp_path, monkeypatch):
    G = nx.gnp_random_graph(20, 0.5, seed=7)
    queries = random_cuts(20, 6, seed=10)
    expected = one_by_one(make(G, max_edges=None), queries)
    oracle = make(G, max_edges=None, path=tmp_path / "state.json")
    write, calls = StateFile.write, []

    def failing(self, payload, spent):
        calls.append(spent)
        if len(calls) == 4:  # the fourth answer's save
            raise OSError("disk full")
        write(self, payload, spent)

    monkeypatch.setattr(StateFile, "write", failing)
    with pytest.raises(PrivcutError, match="at query 3 of a batch of 6: 3 were answered") as info:
        oracle.cuts(queries)
    assert np.array_equal(info.value.answers, expected[:3])
    with pytest.raises(PrivcutError, match="stopped"):
        oracle.cuts(queries)


@pytest.mark.parametrize(
    ("queries", "error", "match"),
    [
        ([({0}, {1}), ({0}, {"x"})], KeyError, r"queries\[1\]: node 'x' is not in the graph"),
        ([(np.array([0]), np.array([1])), ({0}, np.array([7]))], KeyError, r"\[1\]: node 7 "),
        ([(np.array([0]), np.array([-1]))], KeyError, r"queries\[0\]: node -1 is not"),
        ([(np.array([9]), {1}), ({0}, {"x"})], KeyError, r"queries\[0\]: node 9 is not"),
        ([(np.array([9]), {1}), 5], KeyError, r"queries\[0\]: node 9 is not"),
        ([({0}, "01")], TypeError, r"queries\[0\]: T must be a collection"),
        ([({0}, None)], TypeError, r"queries\[0\]: T must be a collection"),
        ([({0}, {1}, {2})], TypeError, r"queries\[0\] must be a pair"),
        ([{0, 1}], TypeError, r"queries\[0\] must be a pair"),
        ([([[0]], {1})], TypeError, r"queries\[0\]: S must hold node labels"),
        ("ab", TypeError, "queries must be a sequence of"),
        (5, TypeError, "queries must be a sequence of"),
        ((np.ones((2, 5)), np.ones((3, 5))), ValueError, "one shape"),
        ((np.ones((2, 4)), np.ones((2, 4))), ValueError, "one column per node"),
        ((np.full((2, 5), 0.5), np.ones((2, 5))), ValueError, "0/1 indicator"),
        ((np.full((2, 5), np.nan), np.ones((2, 5))), ValueError, "0/1 indicator"),
    ],
)
def test_bad_batches_are_refused_before_any_spend(queries, error, match):
    oracle = CutOracle(nx.path_graph(5), 1.0, rng=0)
    state = oracle._engine.generator.bit_generator.state
    with pytest.raises(error, match=match):
        oracle.cuts(queries)
    assert oracle.queries_answered == 0
    assert oracle._engine.generator.bit_generator.state == state


def test_an_empty_batch_reads_and_spends_nothing():
    oracle = CutOracle(nx.path_graph(5), 1.0, rng=0)
    state = oracle._engine.generator.bit_generator.state
    for empty in ([], (np.zeros((0, 5)), np.zeros((0, 5)))):
        answers = oracle.cuts(empty)
        assert answers.shape == (0,) and answers.dtype == float
    assert oracle.queries_answered == 0
    assert oracle._engine.generator.bit_generator.state == state
