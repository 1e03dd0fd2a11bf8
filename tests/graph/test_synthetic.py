import itertools

import networkx as nx
import numpy as np
import pytest

from privcut import GraphInputError, PrivacyParameterError, synthetic_graph
from privcut.audit import audit, neighbouring_graphs
from privcut.graph import EdgeUniverse, cut_norm, noisy_graph, synthetic_from_noisy
from privcut.graph import synthetic as synthetic_module
from privcut.graph.synthetic import size_scale

REPORT_KEYS = {
    "mechanism",
    "epsilon",
    "delta",
    "oracle",
    "rounding",
    "beta",
    "tau",
    "lp_objective",
    "iterations",
    "cuts",
    "converged",
    "certified_distance",
    "noise_bound",
    "rounding_bound",
    "cut_error_bound",
    "measurements",
    "seconds",
    "timings",
}


def adjacency(G, H):
    return EdgeUniverse.of(G).adjacency(H).toarray()


def exact_error(A, B):
    return cut_norm(B - A, method="exact").value


@pytest.mark.parametrize("oracle", ["spectral", "alon-naor"])
def test_accuracy_against_z_and_clip_on_enumerable_graphs(oracle):
    """Issue 5's grid at n = 10: every run within 2.5x of z's max cut error, every cell's
    mean within 1.25x of the better of z and clip(z), the bound holding in >= 1 - beta."""
    beta, seeds, runs, covered = 0.05, 20, 0, 0
    for p, epsilon in itertools.product((0.2, 0.5), (0.5, 1.0, 2.0)):
        errors = {"z": [], "clip": [], "x": []}
        for seed in range(seeds):
            G = nx.gnp_random_graph(10, p, seed=seed)
            A = adjacency(G, G)
            noisy = noisy_graph(G, epsilon, rng=1000 + seed)
            H = synthetic_from_noisy(noisy, oracle=oracle, rounding=None, beta=beta, rng=seed)
            errors["z"].append(exact_error(A, noisy.matrix))
            errors["clip"].append(exact_error(A, np.clip(noisy.matrix, 0.0, 1.0)))
            errors["x"].append(exact_error(A, adjacency(G, H)))
            assert errors["x"][-1] <= 2.5 * errors["z"][-1]
            runs += 1
            covered += errors["x"][-1] <= H.graph["privcut"]["cut_error_bound"]
        means = {name: np.mean(values) for name, values in errors.items()}
        assert means["x"] <= 1.25 * min(means["z"], means["clip"]), (p, epsilon, means)
    assert covered >= (1 - beta) * runs


def test_accuracy_on_sixteen_nodes():
    for seed in range(3):
        G = nx.gnp_random_graph(16, 0.2, seed=seed)
        A = adjacency(G, G)
        noisy = noisy_graph(G, 1.0, rng=seed)
        H = synthetic_from_noisy(noisy, rounding=None, rng=seed)
        error = exact_error(A, adjacency(G, H))
        assert error <= 2.5 * exact_error(A, noisy.matrix)
        assert error <= H.graph["privcut"]["cut_error_bound"]


def test_sparse_graph_beats_z_and_clip_at_a_few_hundred_nodes():
    """On sparse graphs clipping adds ~0.3 per non-edge; the release must undo that."""
    G = nx.fast_gnp_random_graph(300, 0.05, seed=1)
    A = adjacency(G, G)
    noisy = noisy_graph(G, 1.0, rng=2)
    H = synthetic_from_noisy(noisy, rounding=None, rng=3)
    x = cut_norm(adjacency(G, H) - A, rng=0)
    z = cut_norm(noisy.matrix - A, rng=0)
    clip = cut_norm(np.clip(noisy.matrix, 0.0, 1.0) - A, rng=0)
    assert x.upper_bound <= 1.25 * z.value
    assert x.upper_bound < clip.value
    assert x.upper_bound <= H.graph["privcut"]["cut_error_bound"]


def test_pipeline_passes_its_audit_and_catches_reading_the_graph_after_noising(monkeypatch):
    epsilon = 1.0
    G = nx.path_graph(5)
    neighbour = next(neighbouring_graphs(G, pairs=[(0, 2)]))
    rows, columns = EdgeUniverse.of(G).pair_index()

    def released(graph, rng):
        return adjacency(graph, synthetic_graph(graph, epsilon, rounding=None, rng=rng))[
            rows, columns
        ]

    def reads_graph(graph, rng):
        """Projects the private adjacency instead of clip(z): a leak after noising."""
        with monkeypatch.context() as patch:
            patch.setattr(synthetic_module, "_centre", lambda noisy: adjacency(graph, graph))
            return released(graph, rng)

    pair = (G, neighbour)
    correct = audit(released, pair, epsilon, samples=1500, selection_samples=1000, rng=0)
    broken = audit(reads_graph, pair, epsilon, samples=400, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


def test_report_and_graph():
    G = nx.gnp_random_graph(25, 0.3, seed=4)
    H = synthetic_graph(G, 2.0, rounding=None, rng=0)
    report = H.graph["privcut"]
    assert REPORT_KEYS <= set(report)
    assert list(H.nodes) == list(G.nodes)
    assert report["epsilon"] == 2.0 and report["delta"] == 0.0
    assert report["measurements"][0]["share"] == 1.0
    assert report["noise_bound"] == noisy_graph(G, 2.0, rng=0).uniform_error_bound(0.05)
    assert report["rounding_bound"] == 0.0
    assert report["cut_error_bound"] == report["certified_distance"] + report["noise_bound"]
    assert set(report["timings"]) >= {"noise", "threshold", "oracle", "solver", "rounding"}
    weights = [w for _, _, w in H.edges(data="weight")]
    assert weights and all(0.0 < w <= 1.0 for w in weights)


def test_random_rounding_stays_within_its_bound():
    G = nx.gnp_random_graph(12, 0.4, seed=5)
    noisy = noisy_graph(G, 1.0, rng=0)
    weighted = synthetic_from_noisy(noisy, rounding=None, rng=1)
    x = adjacency(G, weighted)
    for seed in range(20):
        H = synthetic_from_noisy(noisy, rounding="random", rng=1 if seed == 0 else seed)
        report = H.graph["privcut"]
        assert all("weight" not in data for _, _, data in H.edges(data=True))
        assert report["rounding_bound"] > 0
        if seed == 0:  # same randomness as the weighted release up to the rounding
            assert exact_error(x, adjacency(G, H)) <= report["rounding_bound"]
    expected = synthetic_module._rounding_bound(x, False, 0.025)
    assert report["cut_error_bound"] == pytest.approx(
        report["certified_distance"] + report["noise_bound"] + report["rounding_bound"]
    )
    assert expected > 0


def test_rounding_bound_covers_the_rounding_error():
    rng = np.random.default_rng(0)
    x = np.triu(rng.uniform(size=(10, 10)), k=1)
    x += x.T
    bound = synthetic_module._rounding_bound(x, False, 0.05)
    for _ in range(50):
        draws = np.triu(rng.random((10, 10)), k=1)
        draws += draws.T
        rounded = (draws < x).astype(float)
        assert cut_norm(rounded - x, method="exact").value <= bound


def test_directed_graphs_release_directed_graphs():
    G = nx.gnp_random_graph(12, 0.3, seed=6, directed=True)
    H = synthetic_graph(G, 1.0, rounding=None, rng=0)
    assert H.is_directed()
    A, X = adjacency(G, G), adjacency(G, H)
    assert not np.allclose(X, X.T)
    assert exact_error(A, X) <= H.graph["privcut"]["cut_error_bound"]


def test_a_loose_tau_returns_clipped_noise_and_a_tight_one_stops_at_the_cap():
    G = nx.gnp_random_graph(10, 0.3, seed=7)
    noisy = noisy_graph(G, 1.0, rng=0)
    loose = synthetic_from_noisy(noisy, rounding=None, tau=1e6, rng=0)
    assert loose.graph["privcut"]["cuts"] == 0
    assert np.array_equal(adjacency(G, loose), np.clip(noisy.matrix, 0.0, 1.0))
    tight = synthetic_from_noisy(noisy, oracle="alon-naor", rounding=None, tau=1e-3, rng=0)
    report = tight.graph["privcut"]
    assert not report["converged"] and report["cuts"] >= 1
    assert report["lp_objective"] <= report["certified_distance"]


def test_max_iterations_bounds_the_work_and_the_bound_stays_certified():
    G = nx.gnp_random_graph(40, 0.05, seed=8)
    H = synthetic_graph(G, 1.0, rounding=None, max_iterations=1, rng=0)
    report = H.graph["privcut"]
    assert report["iterations"] == 1 and report["cuts"] <= 1
    A = adjacency(G, G)
    assert cut_norm(adjacency(G, H) - A, rng=0).value <= report["cut_error_bound"]


def test_size_scale_grows_like_the_noise():
    scale = size_scale(50)
    assert scale.shape == (50, 50)
    assert np.allclose(scale, scale.T)
    assert scale[49, 49] == pytest.approx(50.0)
    assert np.all(np.diff(scale[0, :25]) > 0)
    noise_scale = np.sqrt(np.outer(np.arange(1, 51), np.arange(1, 51)))
    assert np.all(scale >= noise_scale)  # never tighter than §6.2's sqrt(|S| |T|)


@pytest.mark.parametrize(
    ("keyword", "value", "error", "message"),
    [
        ("oracle", "sdp", ValueError, "oracle must be one of"),
        ("rounding", "threshold", ValueError, "rounding must be"),
        ("max_iterations", 0, ValueError, "max_iterations"),
        ("max_iterations", 2.5, ValueError, "max_iterations"),
        ("tau", -1.0, PrivacyParameterError, "tau"),
        ("beta", 1.5, ValueError, "beta"),
    ],
)
def test_bad_options_are_refused_before_any_noise(keyword, value, error, message):
    with pytest.raises(error, match=message):
        synthetic_graph(nx.path_graph(4), 1.0, rng=0, **{keyword: value})


def test_bad_graphs_and_epsilons_are_refused():
    with pytest.raises(PrivacyParameterError):
        synthetic_graph(nx.path_graph(4), 0.0)
    with pytest.raises(GraphInputError):
        synthetic_graph(nx.Graph([(0, 1, {"weight": 3.0})]), 1.0)
    with pytest.raises(GraphInputError):
        synthetic_graph("not a graph", 1.0)
