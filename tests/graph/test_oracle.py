import copy
import errno
import gc
import hashlib
import hmac
import json
import os
import signal
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import privcut
from privcut import CutOracle, GraphInputError, PrivacyParameterError, PrivcutError
from privcut import files as files_module
from privcut.audit import audit
from privcut.graph import EdgeUniverse, start
from privcut.linear import OnlineRelease, OracleExhaustedWarning
from privcut.linear.online import SparseVector
from privcut.privacy import effective_delta
from tests.auditing import float_sampler_slack, record_sampler_tv


def random_cut(rng, n):
    return (
        rng.choice(n, rng.integers(1, n + 1), replace=False),
        rng.choice(n, rng.integers(1, n + 1), replace=False),
    )


def exact_answers(G):
    universe = EdgeUniverse.of(G)
    A = universe.adjacency(G)
    return lambda S, T: universe.indicator(S) @ (A @ universe.indicator(T))


@pytest.mark.parametrize(
    "idc",
    # multiplicative weights evaluates every query on all 19,901 pairs: ~55 s, benchmark-grade
    ["frieze-kannan", pytest.param("multiplicative-weights", marks=pytest.mark.slow)],
)
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
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=150, start="density", max_edges=19_900, rng=0)
    rng, exact = np.random.default_rng(0), exact_answers(G)
    errors, updates = [], []
    for _ in range(150):
        S, T = random_cut(rng, 200)
        errors.append(abs(oracle.cut(S, T) - exact(S, T)))
        updates.append(oracle.updates)
    assert 0 < oracle.updates <= oracle.max_updates
    assert max(errors) <= oracle.alpha
    assert updates[-1] - updates[-51] < updates[49]  # fewer updates once it has learnt


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
    probe = CutOracle(
        nx.empty_graph(n), epsilon, 0.0, max_edges=max_edges, start="density", max_queries=3, rng=0
    )
    edges = int(np.ceil(probe._engine.calibration.threshold / 2))
    rng = np.random.default_rng(0)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    G = nx.empty_graph(n)
    G.add_edges_from(pairs[p] for p in rng.choice(len(pairs), edges, replace=False))
    neighbour = G.copy()
    neighbour.remove_edge(*next(iter(G.edges())))
    return G, neighbour


class NoiselessComparison(SparseVector):
    """Broken twin: compares the exact gap with the threshold (no comparison noise)."""

    def step(self, true_answer, hypothesis, *, integer=True, sensitivity=2.0, error=0.0):
        answer = true_answer()
        self.queries_answered += 1
        if abs(answer - round(hypothesis)) < self.calibration.threshold:
            return hypothesis, False
        self.updates += 1
        return answer + float(self.calibration.answer.sample(rng=self.generator)), True


@pytest.mark.slow
def test_oracle_passes_its_audit_and_catches_a_noiseless_comparison():
    epsilon, n = 2.0, 50
    pair = _straddling_graphs(epsilon)

    def transcript_with(sparse_vector):
        def transcript(graph, rng):
            oracle = CutOracle(
                graph,
                epsilon,
                0.0,
                max_edges=612,
                start="density",
                max_queries=3,
                rng=rng,
                sparse_vector=sparse_vector,
            )
            first = oracle.cut(range(n), range(n))
            second = (
                oracle.cut(range(25), range(25, n)) if first else oracle.cut(range(10), range(n))
            )
            return first, second, oracle.cut(range(n), range(n))

        return transcript

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OracleExhaustedWarning)
        correct = audit(
            transcript_with(SparseVector), pair, epsilon, samples=400, selection_samples=200, rng=0
        )
        broken = audit(transcript_with(NoiselessComparison), pair, epsilon, samples=150, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


@pytest.mark.slow
def test_a_batch_passes_the_audit_and_catches_a_noiseless_comparison():
    """CutOracle.cuts on graphs straddling the threshold: the batch's transcript is as
    private as cut's, and the audit catches the broken twin through it too."""
    epsilon, n = 2.0, 50
    pair = _straddling_graphs(epsilon)
    queries = [(range(n), range(n)), (range(25), range(25, n)), (range(n), range(n))]

    def transcript_with(sparse_vector):
        def transcript(graph, rng):
            oracle = CutOracle(
                graph, epsilon, 0.0, max_edges=612, start="density", max_queries=3, rng=rng,
                sparse_vector=sparse_vector,
            )  # fmt: skip
            return tuple(oracle.cuts(queries).tolist())

        return transcript

    correct = audit(
        transcript_with(SparseVector), pair, epsilon, samples=300, selection_samples=200, rng=0
    )
    broken = audit(transcript_with(NoiselessComparison), pair, epsilon, samples=150, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


def test_a_resumed_oracle_continues_exactly_like_an_uninterrupted_one(tmp_path):
    G = nx.gnp_random_graph(120, 0.5, seed=3)
    rng = np.random.default_rng(4)
    queries = [random_cut(rng, 120) for _ in range(150)]

    def make():
        generator = np.random.default_rng(5)
        return CutOracle(
            G, 4.0, 1e-6, max_queries=500, start="density", max_edges=7140, rng=generator
        )

    uninterrupted, oracle = make(), make()
    expected = [uninterrupted.cut(S, T) for S, T in queries]
    answers = [oracle.cut(S, T) for S, T in queries[:20]]
    assert 0 < oracle.updates < uninterrupted.updates  # updates before and after the break
    path = tmp_path / "oracle.json"
    oracle.save(path)
    generator = copy.deepcopy(oracle._engine.generator)
    oracle.close()
    with CutOracle.load(path, G, rng=generator) as resumed:
        assert (resumed.queries_answered, resumed.updates) == (20, oracle.updates)
        assert resumed.alpha == oracle.alpha and resumed.epsilon == oracle.epsilon
        assert resumed._engine.threshold_draw == oracle._engine.threshold_draw
        answers += [resumed.cut(S, T) for S, T in queries[20:]]
        assert answers == expected
        assert resumed.queries_answered == uninterrupted.queries_answered == 150
        assert resumed.updates == uninterrupted.updates
        assert resumed._engine.threshold_draw == uninterrupted._engine.threshold_draw
        assert np.array_equal(resumed.idc.matrix(), uninterrupted.idc.matrix())
    assert CutOracle.load(path, G).queries_answered == 150  # autosaved before each answer


def _saved_oracle(tmp_path, queries=1, **options):
    G = nx.gnp_random_graph(20, 0.5, seed=6)
    path = tmp_path / "oracle.json"
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=10, path=path, rng=0, **options)
    for _ in range(queries):
        oracle.cut(range(10), range(10, 20))
    del oracle  # garbage collection releases the state (the old code has no close())
    gc.collect()
    return G, path


def _tamper(path, edit, tag):
    """Edit the saved engine state as an attacker without the key would: then either keep
    the file's checksum field, or recompute it with plain SHA-256."""
    document = json.loads(path.read_text())
    body = json.loads(document["body"])
    edit(body.get("payload", body)["engine"])
    if "spent" in body:
        body["spent"] = {"queries_answered": 0, "updates": 0}
    document["body"] = json.dumps(body, sort_keys=True)
    if tag == "sha256":
        for field in ("sha256", "hmac"):
            if field in document:
                document[field] = hashlib.sha256(document["body"].encode()).hexdigest()
    path.write_text(json.dumps(document))


def _zero_counters(engine):
    engine["queries_answered"] = engine["updates"] = 0


def _tiny_noise(engine):
    engine["calibration"]["comparison"][1] = 1e-9
    if engine["calibration"]["threshold_noise"]:
        engine["calibration"]["threshold_noise"][1] = 1e-9


@pytest.mark.parametrize("edit", [_zero_counters, _tiny_noise])
@pytest.mark.parametrize("tag", ["sha256", "kept"])
def test_an_edited_state_is_refused_even_with_a_recomputed_checksum(tmp_path, edit, tag):
    G, path = _saved_oracle(tmp_path, queries=3)
    _tamper(path, edit, tag)
    with pytest.raises(PrivcutError, match="authentication failed"):
        CutOracle.load(path, G)


def _forge(path, edit):
    """Edit the state as the key's holder could, re-signing it with the key."""
    key = bytes.fromhex(json.loads(Path(f"{path}.key").read_text())["key"])
    document = json.loads(path.read_text())
    body = json.loads(document["body"])
    edit(body["payload"]["engine"])
    document["body"] = json.dumps(body, sort_keys=True)
    message = f"{document['format']}\n{document['body']}".encode()
    document["hmac"] = hmac.new(key, message, hashlib.sha256).hexdigest()
    path.write_text(json.dumps(document))


def test_a_resigned_state_is_still_checked_against_its_public_parameters(tmp_path):
    G, path = _saved_oracle(tmp_path, queries=3)
    original = path.read_text()
    _forge(path, _tiny_noise)
    with pytest.raises(PrivcutError, match="calibration is not the one"):
        CutOracle.load(path, G)
    path.write_text(original)

    def more_updates_than_answers(engine):
        engine["updates"] = engine["queries_answered"] + 1

    _forge(path, more_updates_than_answers)
    with pytest.raises(PrivcutError, match="counters out of bounds"):
        CutOracle.load(path, G)


@pytest.mark.parametrize(
    "options",
    [
        {"idc": "multiplicative-weights", "max_edges": 150},
        {"calibration": "paper", "max_queries": 400},
        {"alpha": 700.0, "max_edges": 150},
        {"idc": "median", "max_edges": 3, "epsilon": 2.0, "delta": 0.1, "nodes": 4},
    ],
)
def test_every_construction_and_calibration_resumes_with_its_calibration(tmp_path, options):
    options = {"epsilon": 1.0, "delta": 1e-6, "max_queries": 10, "nodes": 20, **options}
    G = nx.gnp_random_graph(options.pop("nodes"), 0.5, seed=6)
    path = tmp_path / "oracle.json"
    with CutOracle(G, path=path, rng=0, **options) as oracle:
        oracle.cut([0, 1], [2, 3])
    with CutOracle.load(path, G, rng=1) as resumed:
        assert resumed._engine.calibration == oracle._engine.calibration
        assert resumed.idc.evaluate(_query(resumed)) == oracle.idc.evaluate(_query(oracle))
        assert resumed.queries_answered == 1 and resumed._requested_alpha == oracle._requested_alpha


def _query(oracle):
    return oracle.universe.indicator([0, 1]), oracle.universe.indicator([2, 3])


def test_an_older_copy_of_the_state_is_refused(tmp_path):
    G, path = _saved_oracle(tmp_path, queries=1)
    older = path.read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OracleExhaustedWarning)
        oracle = CutOracle.load(path, G)
        for _ in range(3):
            oracle.cut(range(5), range(5, 20))
    assert oracle.queries_answered == 4
    del oracle
    gc.collect()
    path.write_bytes(older)
    with pytest.raises(PrivcutError, match="older than its record"):
        CutOracle.load(path, G)


def test_load_refuses_truncated_foreign_and_keyless_files_and_other_graphs(tmp_path):
    G, path = _saved_oracle(tmp_path)
    text = path.read_text()
    key = tmp_path / "oracle.json.key"
    assert oct(path.stat().st_mode & 0o777) == oct(key.stat().st_mode & 0o777) == "0o600"
    assert (tmp_path / "oracle.json.key.record").stat().st_mode & 0o777 == 0o600
    path.write_text(text[: len(text) // 2])
    with pytest.raises(PrivcutError, match="truncated or corrupt"):
        CutOracle.load(path, G)
    document = json.loads(text)
    document["format"] = "something-else"
    path.write_text(json.dumps(document))
    with pytest.raises(PrivcutError, match="not a 'privcut-cut-oracle"):
        CutOracle.load(path, G)
    path.write_text(text)
    with pytest.raises(PrivcutError, match="another node set"):
        CutOracle.load(path, nx.gnp_random_graph(21, 0.5, seed=6))
    key.chmod(0o644)
    with pytest.raises(PrivcutError, match="accessible to other users"):
        CutOracle.load(path, G)
    key.rename(tmp_path / "elsewhere.key")
    with pytest.raises(PrivcutError, match=r"key file .* is missing"):
        CutOracle.load(path, G)
    (tmp_path / "elsewhere.key").chmod(0o600)
    (tmp_path / "oracle.json.key.record").rename(tmp_path / "elsewhere.key.record")
    with CutOracle.load(path, G, key_path=tmp_path / "elsewhere.key") as resumed:
        assert resumed.queries_answered == 1


_SECOND_PROCESS = """
import sys
import networkx as nx
from privcut import CutOracle, PrivcutError
try:
    CutOracle.load(sys.argv[1], nx.gnp_random_graph(20, 0.5, seed=6)).close()
except PrivcutError as error:
    print(error)
    sys.exit(3)
"""


def _load_in_another_process(path):
    environment = dict(os.environ, PYTHONPATH=str(Path(privcut.__file__).parents[1]))
    return subprocess.run(
        [sys.executable, "-c", _SECOND_PROCESS, str(path)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )


@pytest.mark.slow
def test_a_held_state_is_refused_to_a_second_oracle_and_a_second_process(tmp_path):
    G = nx.gnp_random_graph(20, 0.5, seed=6)
    path = tmp_path / "oracle.json"
    with CutOracle(G, 1.0, 1e-6, max_queries=10, path=path, rng=0) as oracle:
        oracle.cut(range(10), range(10, 20))
        with pytest.raises(PrivcutError, match=r"oracle\.json: another process .*holds"):
            CutOracle.load(path, G)
        with pytest.raises(PrivcutError, match="already exists"):
            CutOracle(G, 1.0, 1e-6, max_queries=10, path=path, rng=1)
        with pytest.raises(PrivcutError, match="spend the budget twice"):
            oracle.save(tmp_path / "copy.json")
        refused = _load_in_another_process(path)
        assert refused.returncode == 3 and "another process" in refused.stdout
    with pytest.raises(PrivcutError, match="closed"):
        oracle.cut(range(10), range(10, 20))
    assert _load_in_another_process(path).returncode == 0


def test_without_autosave_answers_outdate_the_file_until_the_next_save(tmp_path):
    G, path = _saved_oracle(tmp_path)
    with CutOracle.load(path, G, autosave=False) as resumed:
        resumed.cut(range(10), range(10, 20))
        resumed.save(path)
    with CutOracle.load(path, G, autosave=False) as resumed:
        assert resumed.queries_answered == 2
        resumed.cut(range(10), range(10, 20))
    with pytest.raises(PrivcutError, match="older than its record"):
        CutOracle.load(path, G)


def test_answers_are_withheld_when_the_state_cannot_be_written(tmp_path):
    G = nx.gnp_random_graph(20, 0.5, seed=7)
    path = tmp_path / "state.json"
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=10, path=path, rng=0)
    oracle.cut(range(10), range(10, 20))
    path.unlink()
    path.mkdir()  # the rename onto it fails
    with pytest.raises(PrivcutError, match="answer is withheld"):
        oracle.cut(range(10), range(10, 20))
    with pytest.raises(PrivcutError, match="stopped"):
        oracle.cut(range(10), range(10, 20))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "state.json",
        "state.json.key",
        "state.json.key.record",
    ]


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
        CutOracle(nx.Graph([(0, 1, {"weight": 0.5})]), 1.0, 1e-6, weight="weight")
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
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=5, start="density", max_edges=19_900, rng=0)
    u = {node: 0.9 for node in G}
    value = oracle.rank1(u, u)
    assert oracle.updates == 1
    exact = 0.81 * 2 * G.number_of_edges()
    assert abs(value - exact) <= oracle.alpha
    assert not float(value - exact).is_integer()


def test_autosave_starts_at_construction_and_survives_a_reload(tmp_path):
    G = nx.gnp_random_graph(30, 0.5, seed=10)
    path = tmp_path / "oracle.json"
    with CutOracle(G, 1.0, 1e-6, max_queries=20, path=path, rng=0):
        pass
    with CutOracle.load(path, G) as resumed:
        assert resumed.queries_answered == 0
        resumed.cut(range(15), range(15, 30))
    with CutOracle.load(path, G) as resumed:
        resumed.cut(range(15), range(15, 30))
    assert CutOracle.load(path, G).queries_answered == 2


def test_a_relative_state_path_stays_in_its_folder_after_a_chdir(tmp_path, monkeypatch):
    """A chdir must not move later saves away from the record of the answers given."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    G = nx.gnp_random_graph(20, 0.5, seed=6)
    monkeypatch.chdir(first)
    with CutOracle(G, 1.0, 1e-6, max_queries=10, path="s.json", rng=0) as oracle:
        oracle.cut(range(10), range(10, 20))
        monkeypatch.chdir(second)
        oracle.cut(range(5), range(5, 20))
    assert os.listdir(second) == []
    monkeypatch.chdir(first)
    with CutOracle.load("s.json", G) as resumed:
        assert resumed.queries_answered == 2


def _in_a_forked_child(*actions) -> list[str]:
    """Run each action in a fork's child; report 'answered', 'refused' (PrivcutError) or
    the name of another exception, per action."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        outcomes = []
        try:
            for action in actions:
                try:
                    action()
                    outcomes.append("answered")
                except PrivcutError:
                    outcomes.append("refused")
                except BaseException as error:
                    outcomes.append(type(error).__name__)
            os.write(write, ",".join(outcomes).encode())
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read, "rb") as pipe:
        return pipe.read().decode().split(",")


@pytest.mark.parametrize("saved", [False, True])
def test_a_forked_copy_refuses_to_answer_as_its_noise_would_repeat_the_parents(tmp_path, saved):
    G = nx.gnp_random_graph(20, 0.5, seed=6)
    path = tmp_path / "s.json"
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=10, rng=0, path=path if saved else None)
    release = OnlineRelease(np.array([4, 0, 2]), 1.0, max_queries=5, n=10, rng=0)
    child = _in_a_forked_child(
        lambda: oracle.cut(range(10), range(10, 20)),
        lambda: release.answer([1, 1, 1]),
        lambda: oracle.save(path),
    )
    assert child == ["refused", "refused", "refused"]
    oracle.cut(range(10), range(10, 20))  # the parent goes on
    release.answer([1, 1, 1])
    assert oracle.queries_answered == release.queries_answered == 1
    oracle.close()


def test_a_forked_child_does_not_keep_the_parents_state_locked(tmp_path):
    G = nx.gnp_random_graph(20, 0.5, seed=6)
    path = tmp_path / "s.json"
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=10, rng=0, path=path)
    started, started_write = os.pipe()
    ready, release = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child): lives on until the parent is done
        try:
            os.close(release)
            os.write(started_write, b"1")  # after the fork hooks ran
            os.read(ready, 1)
        finally:
            os._exit(0)
    os.close(ready)
    os.close(started_write)
    try:
        assert os.read(started, 1) == b"1"
        oracle.close()
        with CutOracle.load(path, G) as resumed:  # refused if the child held the lock
            assert resumed.queries_answered == 0
    finally:
        os.close(release)
        os.close(started)
        os.waitpid(pid, 0)


def _failing_writes(monkeypatch, fails):
    """Make privcut's atomic writes of the files for which ``fails(path)`` fail, as on a
    full disk."""
    real = files_module.write_atomically

    def write(target, data, **options):
        if fails(Path(target)):
            raise OSError(errno.ENOSPC, "No space left on device", str(target))
        real(target, data, **options)

    monkeypatch.setattr(files_module, "write_atomically", write)


def test_a_query_whose_state_is_not_saved_leaves_a_state_that_cannot_be_resumed(
    tmp_path, monkeypatch
):
    """The record counts the query before the graph is read; a state write failing after
    that (e.g. only for updates, which make the state longer) leaves the state behind."""
    G = nx.gnp_random_graph(20, 0.5, seed=6)
    path = tmp_path / "s.json"
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=10, path=path, rng=0)
    _failing_writes(monkeypatch, lambda target: target == path)
    with pytest.raises(PrivcutError, match="withheld"):
        oracle.cut(range(10), range(10, 20))
    monkeypatch.undo()
    oracle.close()
    with pytest.raises(PrivcutError, match="older than its record"):
        CutOracle.load(path, G)


def test_the_graph_is_not_read_when_the_query_cannot_be_recorded(tmp_path, monkeypatch):
    G = nx.gnp_random_graph(20, 0.5, seed=6)
    steps = []

    class Counting(SparseVector):
        def step(self, *arguments, **options):
            steps.append(1)
            return super().step(*arguments, **options)

    path = tmp_path / "s.json"
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=10, path=path, rng=0, sparse_vector=Counting)
    _failing_writes(monkeypatch, lambda target: target.name.endswith(".record"))
    with pytest.raises(PrivcutError):
        oracle.cut(range(10), range(10, 20))
    assert steps == []
    with pytest.raises(PrivcutError, match="stopped"):
        oracle.cut(range(10), range(10, 20))


def test_a_loaded_oracle_runs_the_sparse_vector_it_is_given(tmp_path):
    G = nx.gnp_random_graph(20, 0.5, seed=6)
    steps = []

    class Counting(SparseVector):
        def step(self, *arguments, **options):
            steps.append(1)
            return super().step(*arguments, **options)

    path = tmp_path / "s.json"
    with pytest.raises(TypeError, match="testing hook"):
        CutOracle(G, 1.0, 1e-6, max_queries=10, path=path, rng=0, sparse_vector=object)
    assert not path.exists()  # refused before the budget was committed
    CutOracle(G, 1.0, 1e-6, max_queries=10, path=path, rng=0).close()
    with pytest.raises(TypeError, match="testing hook"):
        CutOracle.load(path, G, sparse_vector=Counting.step)
    with CutOracle.load(path, G, rng=1, sparse_vector=Counting) as oracle:
        oracle.cut(range(10), range(10, 20))
    assert steps == [1]


def test_the_record_has_one_size_whatever_the_counters(tmp_path):
    """Whether the record write (before the data are read) succeeds must not depend on the
    data, so its size must not either."""
    G = nx.gnp_random_graph(100, 0.5, seed=6)
    record = tmp_path / "s.json.key.record"
    sizes = set()
    options = {"max_edges": 4950, "start": "density", "max_queries": 30, "rng": 0}
    options["path"] = tmp_path / "s.json"
    with CutOracle(G, 100.0, **options) as oracle:
        sizes.add(record.stat().st_size)
        for k in range(12):
            oracle.cut(range(50 - k), range(50 - k, 100))
            sizes.add(record.stat().st_size)
    assert oracle.updates >= 1 and oracle.queries_answered == 12
    assert len(sizes) == 1


def test_tampered_state_record_and_key_files_raise_privcut_errors(tmp_path):
    G, path = _saved_oracle(tmp_path)
    files = [path, tmp_path / "oracle.json.key.record", tmp_path / "oracle.json.key"]
    contents = {
        "deep nesting": "[" * 2000 + "]" * 2000,
        "non-ASCII tag": json.dumps(
            {"format": "privcut-cut-oracle/2", "hmac": "\u00e9", "body": "{}"}
        ),
        "huge integer": "1" * 5000,
    }
    for file in files:
        original = file.read_bytes()
        for name, text in contents.items():
            file.write_text(text)
            try:
                CutOracle.load(path, G).close()
                outcome = "loaded"
            except PrivcutError:
                outcome = "refused"
            except Exception as error:
                outcome = type(error).__name__
            assert (file.name, name, outcome) == (file.name, name, "refused")
        file.write_bytes(original)
    with CutOracle.load(path, G) as resumed:
        assert resumed.queries_answered == 1


class _Blocked(Exception):
    pass


def _raise_blocked(*_):
    raise _Blocked("load() still blocked after 3 s")


def test_fifos_devices_and_oversized_files_are_refused_without_blocking(tmp_path, monkeypatch):
    G, path = _saved_oracle(tmp_path)
    previous = signal.signal(signal.SIGALRM, _raise_blocked)
    try:
        for file in (path, tmp_path / "oracle.json.key.record", tmp_path / "oracle.json.key"):
            moved = file.rename(tmp_path / "moved")
            os.mkfifo(file, 0o600)
            signal.alarm(3)
            with pytest.raises(PrivcutError, match="not a regular file"):
                CutOracle.load(path, G)
            signal.alarm(0)
            file.unlink()
            file.symlink_to("/dev/zero")
            with pytest.raises(PrivcutError, match="regular file"):
                CutOracle.load(path, G)
            file.unlink()
            moved.rename(file)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    monkeypatch.setattr(files_module, "STATE_LIMIT", path.stat().st_size - 1)
    with pytest.raises(PrivcutError, match="longer than"):
        CutOracle.load(path, G)
    monkeypatch.undo()
    with CutOracle.load(path, G) as resumed:
        assert resumed.queries_answered == 1


def test_a_new_oracle_never_replaces_an_existing_state(tmp_path):
    G, path = _saved_oracle(tmp_path, queries=2)
    record = tmp_path / "oracle.json.key.record"
    before = path.read_bytes(), record.read_bytes()
    other_key = tmp_path / "other.key"
    with pytest.raises(PrivcutError, match=r"already exists.*CutOracle\.load"):
        CutOracle(G, 1.0, 1e-6, max_queries=10, path=path, rng=1)
    with CutOracle.load(path, G):  # held, and another key
        with pytest.raises(PrivcutError, match="already exists"):
            CutOracle(G, 1.0, 1e-6, max_queries=10, path=path, key_path=other_key, rng=1)
    with pytest.raises(PrivcutError, match="already exists"):
        CutOracle(G, 1.0, 1e-6, max_queries=10, rng=1).save(path)
    assert (path.read_bytes(), record.read_bytes()) == before
    assert not other_key.exists()
    with CutOracle.load(path, G) as resumed:
        assert resumed.queries_answered == 2


def _fractional_rank1(graph, calibration, epsilon, rng):
    """One fractional rank-1 query (u = 1/4 on node 0) on a graph; its answer."""
    half = graph.number_of_nodes() // 2
    u = {0: 0.25, **{node: 1.0 for node in range(1, half)}}
    v = {node: 1.0 for node in range(half, 2 * half)}
    oracle = CutOracle(
        graph, epsilon, 1e-6, max_edges=1, start="density", max_queries=2,
        calibration=calibration, rng=rng,
    )  # fmt: skip
    answer = oracle.rank1(u, v)
    assert oracle.updates == 1  # an empty start: the first query is an update round
    return answer


@pytest.mark.slow
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
    (epsilon is the largest accepted and the graph large enough that its answer clears the
    paper's threshold, about 5,300; the leak is deterministic: old answers all had the exact
    answer's fractional part)."""
    G = nx.complete_bipartite_graph(100, 100)
    answers = [_fractional_rank1(G, "paper", 100.0, seed) for seed in range(10)]
    assert len({round(answer % 1.0, 9) for answer in answers}) == len(answers)


def test_zero_weight_edges_do_not_count_as_edges():
    """Issue 15: a weight-0 edge was counted in the noisy edge count (nnz)."""
    G = nx.gnp_random_graph(30, 0.3, seed=0)
    with_zero = G.copy()
    with_zero.add_edge(*next(pair for pair in nx.non_edges(G)), weight=0)
    read = {"weight": "weight", "rng": 5}
    assert CutOracle(with_zero, 1.0, 1e-6, **read).edges == CutOracle(G, 1.0, 1e-6, **read).edges


def test_weights_are_ignored_by_default():
    """NetworkX's convention: weight=None is unweighted, whatever the weight attributes."""
    G = nx.gnp_random_graph(30, 0.3, seed=0)
    weighted = G.copy()
    nx.set_edge_attributes(weighted, 0.5, "weight")
    oracles = [CutOracle(graph, 1.0, 1e-6, rng=5) for graph in (G, weighted)]
    assert oracles[0].edges == oracles[1].edges
    assert oracles[0].cut(range(15), range(15, 30)) == oracles[1].cut(range(15), range(15, 30))
    assert oracles[1].status().weight is None


def test_a_state_is_resumed_with_the_weight_it_was_made_with(tmp_path):
    G = nx.gnp_random_graph(20, 0.5, seed=6)
    path = tmp_path / "oracle.json"
    with CutOracle(G, 1.0, 1e-6, max_queries=10, path=path, weight="weight", rng=0) as oracle:
        oracle.cut(range(10), range(10, 20))
    with pytest.raises(PrivcutError, match="weight='weight'"):
        CutOracle.load(path, G)
    with CutOracle.load(path, G, weight="weight") as resumed:
        assert resumed.queries_answered == 1 and resumed.status().weight == "weight"


def test_status_holds_the_public_facts():
    G = nx.gnp_random_graph(30, 0.5, seed=0)
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=20, rng=0)
    oracle.cut(range(15), range(15, 30))
    status = oracle.status()
    assert (status.queries_answered, status.updates) == (oracle.queries_answered, oracle.updates)
    assert (status.alpha, status.max_updates) == (oracle.alpha, oracle.max_updates)
    assert status.sampler_tv == oracle.sampler_tv
    assert status.effective_delta == oracle.effective_delta
    assert status.edges == oracle.edges and status.sensitivity == 2.0
    report = status.to_dict()
    assert report["calibration"] == "tight" and report["idc"] == "frieze-kannan"
    assert json.loads(json.dumps(report)) == report


@pytest.mark.parametrize("calibration", ["tight", "paper"])
def test_oracle_reports_its_samplers_slack(calibration, monkeypatch):
    """Issue 15: the oracle said delta without the integer samplers' total variation slack:
    the noisy edge count, the comparisons, the answers and the thresholds drawn so far."""
    float_sampler_slack(monkeypatch)
    G = nx.gnp_random_graph(40, 0.5, seed=0)
    drawn = record_sampler_tv(monkeypatch)
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=1000, calibration=calibration, rng=0)
    rng = np.random.default_rng(1)
    for _ in range(30):
        oracle.cut(*random_cut(rng, 40))
    assert not oracle.exhausted
    ahead = oracle._engine.pending.size  # drawn ahead, not used: no output depends on them
    unused = oracle._engine.calibration.comparison.tv_bound(ahead)
    assert oracle.sampler_tv == pytest.approx(drawn() - unused, rel=1e-12)
    assert oracle.sampler_tv > 0.0
    reserve = oracle._engine.calibration.sampler_reserve  # composed only (review F3)
    assert (reserve > 0.0) == oracle._engine.calibration.composed
    expected = 1e-6 - reserve + (1 + np.e) * oracle.sampler_tv
    assert oracle.effective_delta == pytest.approx(expected)


@pytest.mark.parametrize(
    "options",
    [dict(), dict(start="density"), dict(calibration="paper"), dict(max_edges=100.0)],
)
def test_an_infeasible_alpha_is_refused_before_any_spend(monkeypatch, options):
    """Review F8: the calibration's feasibility is checked from public values before the
    measured start (or the noisy count) spends its share; nothing is measured."""
    import privcut.graph.oracle as oracle_module

    spent = []
    monkeypatch.setattr(oracle_module, "measure_start", lambda *a, **k: spent.append(a))
    monkeypatch.setattr(oracle_module.EdgeBounds, "measure", lambda *a: spent.append(a))
    G = nx.gnp_random_graph(40, 0.2, seed=1)
    with pytest.raises(ValueError, match=r"alpha=1\.0 cannot be met whatever the data"):
        CutOracle(G, 1.0, 1e-6, alpha=1.0, max_queries=100, rng=0, **options)
    assert spent == []


def test_the_composed_calibration_reserves_its_samplers_distance(monkeypatch):
    """Review F3: under the composed analysis the noise is calibrated for delta less a reserve
    covering the start's and the k comparison draws' sampler distance, so that the reported
    effective delta stays at most delta (it was 1.16e-6 at k = 1,403 for delta = 1e-6)."""
    G = nx.gnp_random_graph(60, 0.2, seed=2)
    oracle = CutOracle(G, 1.0, 1e-6, max_queries=100, rng=0)
    calibration = oracle._engine.calibration
    assert calibration.composed and calibration.sampler_reserve > 0.0
    worst = oracle.start.sampler_tv + calibration.comparison.tv_bound(oracle.max_queries)
    assert effective_delta(1.0, 1e-6 - calibration.sampler_reserve, worst) <= 1e-6
    assert effective_delta(1.0, 1e-6, worst) > 1e-6  # without the reserve: above delta
    for size in range(1, 30):
        oracle.cut(range(size), range(size, 60))
    assert oracle.sampler_tv > 0.0 and oracle.status().effective_delta <= 1e-6


@pytest.mark.parametrize("epsilon", [1e-200, 5e-324])
@pytest.mark.parametrize(
    "options",
    [{}, {"start": "density"}, {"start": "density", "max_edges": 100, "calibration": "paper"}],
)
def test_sweep37_f14_a_tiny_epsilon_is_refused_clearly(epsilon, options):
    """Sweep 37 F14: at epsilon 5e-324 the measured start's share underflowed to 0 and
    log2 raised "math domain error" (the density start: "epsilon ... got 0.0"; the paper
    calibration overflowed)."""
    with pytest.raises(PrivacyParameterError, match=r"^epsilon too small.*raise epsilon"):
        CutOracle(nx.karate_club_graph(), epsilon, 1e-6, rng=0, **options)


def test_sweep37_f18_rank1_names_its_mappings():
    """Sweep 37 F18: rank1([0], [1]) said "'list' object has no attribute 'items'"."""
    oracle = CutOracle(nx.karate_club_graph(), 1.0, 1e-6, rng=0)
    with pytest.raises(TypeError, match=r"u must be a mapping node -> weight in \[0, 1\]"):
        oracle.rank1([0], [1])
    with pytest.raises(TypeError, match=r"v must be a mapping node -> weight"):
        oracle.rank1({0: 1.0}, [1])
    with pytest.raises(TypeError, match="node 0 of u has 'a'"):
        oracle.rank1({0: "a"}, {1: 1.0})
    assert oracle.queries_answered == 0


def test_a_measured_start_whose_potential_bound_is_zero_still_answers(monkeypatch):
    """The measured start's potential bound is its noisy value plus its error bound,
    clipped at 0: an unlucky draw gives 0, and Frieze-Kannan's update bound was then 0
    updates, for which no calibration exists (CutOracle raised "no tight calibration
    exists", from the noise alone). The bound is at least one update."""
    measured = start._potential
    monkeypatch.setattr(start, "_potential", lambda *a, **k: (measured(*a, **k)[0], 0.0))
    oracle = CutOracle(nx.path_graph(4), 1.0, rng=1)
    assert oracle.start.potential == 0.0
    assert np.isfinite(oracle.cut({0, 1}, {2, 3}))
