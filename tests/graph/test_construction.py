import networkx as nx
import numpy as np
import pytest

from privcut import GraphInputError, PrivacyParameterError, iterative_construction
from privcut.audit import audit
from privcut.evaluate import max_cut_error
from privcut.graph.construction import ExactSearch, Exponential, NoisyGraphSearch, PowerMethod
from privcut.linear.iterative import IterativeConstruction, access_epsilon
from privcut.privacy import discrete_laplace_tv_bound
from privcut.privacy.calibration import zcdp_budget
from tests.auditing import float_sampler_slack, record_sampler_tv


def first_query(distinguisher):
    def mechanism(graph, rng):
        H = iterative_construction(
            graph, 1.0, 1e-3, distinguisher=distinguisher, max_edges=10, rng=rng
        )
        first = H.graph["privcut"]["rounds_log"][0]
        return tuple(first["S"]), tuple(first["T"])

    return mechanism


class NoiselessPowerMethod(PowerMethod):
    """Broken: the power method without its Gaussian noise."""

    def __call__(self, construction, epsilon0, generator):
        H = construction.matrix()
        x = generator.standard_normal(self.n)
        x /= np.linalg.norm(x)
        for _ in range(self.iterations):
            y = self.adjacency @ x - H @ x
            x = y / max(np.linalg.norm(y), 1e-300)
        side = (x > 0).astype(float)
        return side, side


class ArgmaxExponential(Exponential):
    """Broken: the best candidate instead of a sample from the exponential mechanism."""

    def __call__(self, construction, epsilon0, generator):
        H = construction.matrix()
        truth = np.einsum("kn,kn->k", self.S, (self.adjacency @ self.T.T).T)
        guess = np.einsum("kn,kn->k", self.S @ H, self.T)
        chosen = int(np.argmax(np.abs(truth - guess)))
        return self.S[chosen], self.T[chosen]


class SearchOnTheGraph(NoisyGraphSearch):
    """Broken: the 'noisy-graph' search run on the adjacency itself."""

    @classmethod
    def build(cls, data):
        return cls(data.adjacency.toarray(), data.rr_epsilon)


@pytest.mark.parametrize(
    ("distinguisher", "broken"),
    [
        ("power-method", NoiselessPowerMethod),
        ("exponential", ArgmaxExponential),
        ("noisy-graph", SearchOnTheGraph),
    ],
)
@pytest.mark.slow
def test_each_private_distinguisher_passes_its_audit_and_a_leaky_one_is_caught(
    distinguisher, broken
):
    """A path with an isolated node, and the neighbour that connects it: an exact search
    tells them apart by whether the node is in the first proposed cut."""
    G = nx.path_graph(4)
    G.add_node(4)
    neighbour = G.copy()
    neighbour.add_edge(3, 4)
    correct = audit(first_query(distinguisher), (G, neighbour), 1.0, 1e-3, samples=200, rng=0)
    leaky = audit(first_query(broken), (G, neighbour), 1.0, 1e-3, samples=150, rng=0)
    assert broken.name == distinguisher
    assert correct.p_value >= 0.01
    assert leaky.p_value <= 1e-3


@pytest.mark.parametrize("accountant", ["zcdp", "paper"])
def test_rounds_compose_to_the_budget(accountant):
    epsilon0 = access_epsilon(1.0, 1e-6, 40, accountant)
    if accountant == "zcdp":  # 40 pure accesses, each epsilon0^2 / 2 zCDP
        assert 40 * epsilon0**2 / 2 == pytest.approx(zcdp_budget(1.0, 1e-6))
    else:  # Thm 7.2 with B = 20 rounds
        assert epsilon0 == pytest.approx(1.0 / (4 * np.sqrt(20 * np.log(1e6))))
    assert access_epsilon(1.0, 0.0, 40, accountant) == pytest.approx(1.0 / 40)


def test_alpha_covers_the_check_noise():
    ic = IterativeConstruction(1.0, 1e-6, bound=lambda a: int(np.ceil(1e6 / a**2)))
    eta = ic.check.max_error(ic.rounds, ic.beta / 2)
    assert ic.alpha == pytest.approx(4 * eta, rel=1e-6)
    assert ic.rounds == int(np.ceil(1e6 / (ic.alpha / 2) ** 2))


@pytest.mark.parametrize("distinguisher", ["power-method", "exponential", "noisy-graph"])
def test_release_reports_its_rounds_and_stays_within_the_measured_range(distinguisher):
    G = nx.planted_partition_graph(2, 30, 0.7, 0.1, seed=1)
    H = iterative_construction(G, 1.0, 1e-6, distinguisher=distinguisher, rng=0)
    report = H.graph["privcut"]
    assert report["private"] and report["distinguisher"] == distinguisher
    assert 1 <= report["rounds"] <= report["max_rounds"]
    assert report["updates"] == sum(r["updated"] for r in report["rounds_log"])
    assert report["budget"]["edge count"] == pytest.approx(0.1)
    cost = report["distinguisher_cost_per_round"]
    if distinguisher == "power-method":
        assert cost["rho"] == pytest.approx(report["epsilon0"] ** 2 / 2)
    elif distinguisher == "exponential":
        assert cost["epsilon"] == report["epsilon0"]
    else:
        assert cost["epsilon"] == 0.0 and report["budget"]["randomized response"] > 0
    assert list(H.nodes) == sorted(G.nodes)
    assert all(0.0 < w <= 1.0 for _, _, w in H.edges(data="weight"))
    assert max_cut_error(G, H, rng=0).lower <= report["alpha"]


def test_exact_search_needs_an_explicit_opt_in_and_is_labelled():
    G = nx.planted_partition_graph(2, 30, 0.7, 0.1, seed=2)
    with pytest.raises(ValueError, match="NOT private"):
        iterative_construction(G, 1.0, 1e-6, distinguisher="exact")
    H = iterative_construction(G, 1.0, 1e-6, distinguisher="exact", allow_nonprivate=True)
    report = H.graph["privcut"]
    assert not report["private"] and "NOT PRIVATE" in report["mechanism"]


def test_exact_search_learns_a_planted_partition():
    """With a (non-private) cut-norm search the construction updates towards the blocks; at
    this size the block structure is well above the check's 3 alpha / 4."""
    G = nx.planted_partition_graph(2, 150, 0.6, 0.05, seed=0)
    H = iterative_construction(G, 1.0, 1e-6, distinguisher="exact", allow_nonprivate=True, rng=0)
    uniform = iterative_construction(G, 1.0, 1e-6, distinguisher="exponential", rng=0)
    assert H.graph["privcut"]["updates"] > 0
    assert max_cut_error(G, H, rng=0).upper < max_cut_error(G, uniform, rng=0).lower


def test_random_rounding_and_multiplicative_weights():
    G = nx.gnp_random_graph(30, 0.3, seed=3)
    H = iterative_construction(
        G,
        1.0,
        1e-6,
        idc="multiplicative-weights",
        distinguisher="noisy-graph",
        rounding="random",
        rng=0,
    )
    assert H.graph["privcut"]["idc"] == "multiplicative-weights"
    assert all("weight" not in data for _, _, data in H.edges(data=True))


def test_bad_options_are_refused():
    G = nx.path_graph(5)
    with pytest.raises(ValueError, match="distinguisher must be"):
        iterative_construction(G, 1.0, 1e-6, distinguisher="svd")
    with pytest.raises(ValueError, match="idc must be"):
        iterative_construction(G, 1.0, 1e-6, idc="median")
    with pytest.raises(ValueError, match="needs delta > 0"):
        iterative_construction(G, 1.0, 0.0)
    with pytest.raises(GraphInputError, match="undirected"):
        iterative_construction(nx.DiGraph([(0, 1)]), 1.0, 1e-6)
    with pytest.raises(ValueError, match="accountant must be"):
        iterative_construction(G, 1.0, 1e-6, distinguisher="exponential", accountant="rdp")


def test_zero_weight_edges_do_not_count_as_edges():
    """Issue 15: a weight-0 edge was counted in the noisy edge count (nnz), which sets the
    hypothesis's start and so every round's hypothesis answer."""
    G = nx.gnp_random_graph(30, 0.3, seed=0)
    with_zero = G.copy()
    with_zero.add_edge(*next(pair for pair in nx.non_edges(G)), weight=0)
    reports = []
    for graph in (G, with_zero):
        H = iterative_construction(
            graph, 1.0, 1e-3, distinguisher="power-method", weight="weight", rng=5
        )
        reports.append({k: v for k, v in H.graph["privcut"].items() if k != "seconds"})
        reports.append(sorted(H.edges()))
    assert reports[0] == reports[2]
    assert reports[1] == reports[3]


def test_weights_are_ignored_by_default_and_read_as_0_1_on_request():
    """NetworkX's convention: weight=None is unweighted, whatever the weight attributes;
    weight="weight" reads them, and these releases take 0/1 weights only."""
    G = nx.gnp_random_graph(20, 0.3, seed=0)
    weighted = G.copy()
    nx.set_edge_attributes(weighted, 0.5, "weight")
    plain = iterative_construction(G, 1.0, 1e-3, distinguisher="exponential", rng=1)
    ignored = iterative_construction(weighted, 1.0, 1e-3, distinguisher="exponential", rng=1)
    assert plain.graph["privcut"] == ignored.graph["privcut"]
    assert plain.graph["privcut"]["weight"] is None
    with pytest.raises(GraphInputError, match="0/1 graphs"):
        iterative_construction(weighted, 1.0, 1e-3, weight="weight", rng=1)


def test_the_report_is_typed_and_its_bound_is_clipped_to_the_trivial_one():
    G = nx.gnp_random_graph(12, 0.3, seed=0)
    H = iterative_construction(G, 1.0, 1e-6, distinguisher="exponential", rng=0)
    report = H.graph["privcut"]
    assert report["cut_error_bound"]["bound"] == min(report["alpha"], report["trivial_bound"])
    assert report["cut_error_bound"]["source"] in ("GRU12 Thm 7.3", "edge counts")
    released = sum(w for _, _, w in H.edges(data="weight"))
    assert report["trivial_bound"] >= 2 * released
    assert report["solver"]["iterations"] == report["rounds"]
    assert report["solver"]["cuts"] == report["updates"]
    assert report["solver"]["converged"] == report["stopped_by_check"]
    cost = report["distinguisher_cost_per_round"]
    assert set(cost) == {"private", "epsilon", "rho", "once", "iterations", "candidates"}
    assert report["cor74_alpha"] > 0


def test_a_non_private_research_variant_needs_the_opt_in():
    class Leaky(ExactSearch):
        name = "leaky"

    G = nx.path_graph(6)
    with pytest.raises(ValueError, match="NOT private"):
        iterative_construction(G, 1.0, 1e-6, distinguisher=Leaky)
    H = iterative_construction(G, 1.0, 1e-6, distinguisher=Leaky, allow_nonprivate=True, rng=0)
    assert H.graph["privcut"]["distinguisher"] == "leaky"
    assert not H.graph["privcut"]["private"]


@pytest.mark.parametrize(("epsilon", "delta"), [(0.5, 0.9), (50.0, 1e-6)])
def test_paper_accountant_outside_thm_7_2_is_refused(epsilon, delta):
    """Issue 15: Thm 7.2's epsilon0 was used where its advanced composition does not give
    (epsilon, delta) (delta near 1, or epsilon beyond the theorem's epsilon < 1)."""
    with pytest.raises(PrivacyParameterError, match="accountant='zcdp'"):
        IterativeConstruction(epsilon, delta, bound=lambda a: 1, accountant="paper")
    G = nx.gnp_random_graph(20, 0.3, seed=0)
    with pytest.raises(PrivacyParameterError, match=r"Thm 7\.2"):
        iterative_construction(G, epsilon, delta, distinguisher="exponential", accountant="paper")


def test_paper_accountant_within_its_conditions_composes_to_epsilon():
    ic = IterativeConstruction(0.9, 1e-6, bound=lambda a: 5, accountant="paper")
    k = ic.accesses_per_round * ic.rounds
    composed = np.sqrt(2 * k * np.log(1e6)) * ic.epsilon0 + k * ic.epsilon0 * np.expm1(ic.epsilon0)
    assert composed <= 0.9


@pytest.mark.parametrize("distinguisher", ["power-method", "exponential"])
def test_iterative_construction_reports_its_samplers_slack(distinguisher, monkeypatch):
    """Issue 15: the report said delta without the integer samplers' total variation slack:
    the noisy edge count and every round's discrete Laplace check."""
    float_sampler_slack(monkeypatch)
    G = nx.gnp_random_graph(20, 0.3, seed=0)
    drawn = record_sampler_tv(monkeypatch)
    H = iterative_construction(G, 1.0, 1e-3, distinguisher=distinguisher, rng=0)
    report = H.graph["privcut"]
    assert report["sampler_tv"] == pytest.approx(drawn(), rel=1e-12)
    assert report["sampler_tv"] > 0.0
    assert report["effective_delta"] == pytest.approx(1e-3 + (1 + np.e) * report["sampler_tv"])


def test_noisy_graph_distinguisher_reports_one_draw_per_pair():
    G = nx.gnp_random_graph(20, 0.3, seed=0)
    H = iterative_construction(G, 1.0, 1e-3, distinguisher="noisy-graph", max_edges=60, rng=0)
    report = H.graph["privcut"]
    rounds = report["rounds"]
    check = 2.0 / report["epsilon0"]  # sensitivity 2 over epsilon0
    rr = report["budget"]["randomized response"]
    expected = 190 * discrete_laplace_tv_bound(1 / rr) + rounds * discrete_laplace_tv_bound(check)
    assert report["sampler_tv"] == pytest.approx(expected, rel=1e-12)
