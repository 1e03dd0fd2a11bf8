import networkx as nx
import numpy as np
import pytest

from privcut import GraphInputError, PrivacyParameterError
from privcut.audit import audit, neighbouring_graphs
from privcut.graph import cut_value, noisy_graph
from privcut.privacy import discrete_laplace, discrete_laplace_tv_bound
from tests.auditing import assert_on_grid, in_laplace_image

EPSILON = 0.5


def cells(matrix):
    """Both A[i, j] and A[j, i] for every pair: what a careless release would expose."""
    return matrix[~np.eye(matrix.shape[0], dtype=bool)]


@pytest.mark.slow
def test_noisy_graph_passes_its_audit_and_catches_double_noise():
    G = nx.Graph([(0, 1), (1, 2), (2, 3)])
    neighbour = next(neighbouring_graphs(G, pairs=[(0, 2)]))

    def released(graph, rng):
        return cells(noisy_graph(graph, EPSILON, rng=rng).matrix)

    def double_noise(graph, rng):
        """Independent noise on A[i, j] and A[j, i]: each cell is 1/epsilon, but the pair is
        seen twice, so only 2 epsilon-DP."""
        A = nx.to_numpy_array(graph, nodelist=sorted(graph))
        return cells(A + discrete_laplace(1 / EPSILON, A.shape, rng=rng))

    correct = audit(released, (G, neighbour), EPSILON, samples=10_000, rng=0)
    broken = audit(double_noise, (G, neighbour), EPSILON, samples=10_000, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


@pytest.mark.slow
@pytest.mark.parametrize("directed", [False, True])
def test_error_bound_covers_at_least_1_minus_beta_of_cuts(directed):
    beta = 0.1
    G = nx.gnp_random_graph(30, 0.3, seed=3, directed=directed)
    rng = np.random.default_rng(4)
    cuts = [
        (
            set(rng.choice(30, rng.integers(1, 30), replace=False)),
            set(rng.choice(30, rng.integers(1, 30), replace=False)),
        )
        for _ in range(10)
    ]
    truth = [cut_value(G, S, T) for S, T in cuts]
    misses = trials = 0
    for seed in range(200):
        noisy = noisy_graph(G, EPSILON, rng=seed)
        for (S, T), value in zip(cuts, truth, strict=True):
            misses += abs(noisy.cut(S, T) - value) > noisy.error_bound(S, T, beta)
            trials += 1
    assert misses / trials <= beta + 3 * np.sqrt(beta * (1 - beta) / trials)


def test_uniform_bound_covers_the_worst_cut():
    G = nx.gnp_random_graph(12, 0.5, seed=5)
    A = nx.to_numpy_array(G)
    from privcut.graph.cutnorm import cut_norm

    exceed = 0
    for seed in range(50):
        noisy = noisy_graph(G, EPSILON, rng=seed)
        exceed += cut_norm(noisy.matrix - A, method="exact").value > noisy.uniform_error_bound(0.1)
    assert exceed <= 5 + 3 * np.sqrt(5)


def test_weights_need_a_declaration():
    G = nx.Graph([(0, 1, {"weight": 0.5})])
    with pytest.raises(GraphInputError, match="integer_weights=False"):
        noisy_graph(G, 1.0, rng=0)
    noisy = noisy_graph(G, 1.0, integer_weights=False, rng=0)
    assert noisy.noise.kind == "laplace"


def test_bad_epsilon_is_refused_before_the_graph_is_read():
    with pytest.raises(PrivacyParameterError):
        noisy_graph("not a graph", -1.0)


def test_labels_and_cuts_follow_the_input_nodes():
    G = nx.Graph([("a", "b"), ("b", "c")])
    noisy = noisy_graph(G, 100.0, rng=0)  # essentially noiseless
    assert noisy.nodes == ("a", "b", "c")
    assert noisy.cut({"a"}, {"b", "c"}) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("directed", [False, True])
def test_noisy_graph_reports_its_samplers_slack(directed):
    """Issue 15: graph releases said delta = 0 without the integer sampler's total variation
    slack that LinearRelease reports; one discrete Laplace draw per vertex pair."""
    G = nx.gnp_random_graph(12, 0.3, seed=0, directed=directed)
    noisy = noisy_graph(G, 0.5, rng=0)
    pairs = 12 * 11 // (1 if directed else 2)
    assert noisy.sampler_tv == pytest.approx(pairs * discrete_laplace_tv_bound(2.0), rel=1e-12)
    assert noisy.sampler_tv > 0.0
    assert noisy.effective_delta == pytest.approx((1 + np.exp(0.5)) * noisy.sampler_tv)


def _weighted_pair(weight):
    G = nx.empty_graph(4)
    neighbour = G.copy()
    neighbour.add_edge(0, 1, weight=weight)
    return G, neighbour


@pytest.mark.parametrize("weight", [1.0, 0.3])
def test_weighted_noisy_graph_hides_its_low_order_bits(weight):
    """Reviewer's finding (Mironov 2012): with integer_weights=False, A[0, 1] was the float
    w + numpy Laplace draw, an exact raw draw when w = 0 and rarely otherwise (old audit
    p = 5.7e-168). Now it is on a public grid with discrete noise."""
    epsilon = 0.7

    def exact_draw(graph, rng):
        value = noisy_graph(graph, epsilon, integer_weights=False, rng=rng).matrix[0, 1]
        return in_laplace_image(float(value), 1.0 / epsilon)

    result = audit(exact_draw, _weighted_pair(weight), epsilon, samples=1500, rng=0)
    assert result.p_value >= 0.01


def test_weighted_noisy_graph_releases_multiples_of_its_grid_and_reports_their_slack():
    G, _ = _weighted_pair(0.3)
    G.add_edge(2, 3, weight=0.123456789)
    noisy = noisy_graph(G, 0.7, integer_weights=False, rng=0)
    grid = getattr(noisy.noise, "grid", 0.0)
    assert_on_grid(noisy.matrix, grid)
    assert noisy.noise.scale == pytest.approx((1.0 + 2 * grid) / 0.7)  # sensitivity 1 / g + 2
    pairs = 6
    unit_scale = noisy.noise.scale / grid
    assert noisy.sampler_tv == pytest.approx(pairs * discrete_laplace_tv_bound(unit_scale))
    assert noisy.sampler_tv > 0.0
