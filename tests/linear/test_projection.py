import numpy as np
import pytest

from privcut import PrivacyParameterError
from privcut.linear import QueryMatrix, gaussian_mechanism
from privcut.linear.projection import _cap, project_answers, projection_mechanism
from tests.auditing import audit_answers
from tests.linear.test_mechanisms import understated

EPSILON, DELTA = 0.5, 1e-3


def reference_projection(F, noisy, total=None):
    cp = pytest.importorskip("cvxpy")  # the sdp extra
    x = cp.Variable(F.shape[1], nonneg=True)
    constraints = [] if total is None else [cp.sum(x) <= total]
    problem = cp.Problem(cp.Minimize(cp.sum_squares(F @ x - noisy)), constraints)
    problem.solve(solver="CLARABEL")
    return problem.value


@pytest.mark.parametrize("total", [None, 3.0, 1e6])
def test_projection_matches_a_general_solver(total):
    rng = np.random.default_rng(0)
    F = rng.integers(0, 2, size=(40, 12)).astype(float)
    noisy = F @ rng.integers(0, 3, 12) + rng.normal(0, 4, 40)
    answers, x, gap = project_answers(F, noisy, total=total)
    assert np.all(x >= 0) and (total is None or x.sum() <= total * (1 + 1e-12))
    np.testing.assert_allclose(answers, F @ x)
    best = reference_projection(F, noisy, total)
    assert np.sum((answers - noisy) ** 2) <= best * (1 + 1e-6) + 1e-9
    assert gap >= 0.0


def test_capped_simplex_projection_is_exact():
    cp = pytest.importorskip("cvxpy")  # the sdp extra
    rng = np.random.default_rng(1)
    for _ in range(20):
        y, total = rng.normal(0, 2, 8), rng.uniform(0.1, 5)
        x = cp.Variable(8, nonneg=True)
        cp.Problem(cp.Minimize(cp.sum_squares(x - y)), [cp.sum(x) <= total]).solve()
        np.testing.assert_allclose(_cap(y, total), x.value, atol=1e-6)


def small_dataset_runs(constraint, runs=25):
    """k = 2000 random counting queries, n = 50 elements over m = 64."""
    rng = np.random.default_rng(2)
    F = rng.integers(0, 2, size=(2000, 64))
    for run in range(runs):
        h = np.bincount(rng.integers(0, 64, 50), minlength=64)
        truth = F @ h
        projected = projection_mechanism(F, h, EPSILON, DELTA, constraint=constraint, rng=run)
        gaussian = gaussian_mechanism(F, h, EPSILON, DELTA, rng=run)
        yield (
            np.linalg.norm(projected.answers - truth),
            np.linalg.norm(gaussian.answers - truth),
            projected,
        )


def test_projection_never_increases_the_error_and_cuts_it_on_small_data():
    errors = np.array([run[:2] for run in small_dataset_runs("cone")])
    assert np.all(errors[:, 0] <= errors[:, 1] * (1 + 1e-9))
    assert errors[:, 0].mean() < errors[:, 1].mean() / 5


def test_count_constrained_projection_beats_gaussian_and_its_bound_holds():
    runs = list(small_dataset_runs("count", runs=10))
    errors = np.array([run[:2] for run in runs])
    assert errors[:, 0].mean() < errors[:, 1].mean() / 5
    bound = runs[0][2].expected_error
    assert np.sqrt(np.mean(errors[:, 0] ** 2 / 2000)) <= bound
    assert runs[0][2].details["epsilon_count"] == pytest.approx(0.1 * EPSILON)


@pytest.mark.slow
def test_projection_passes_its_audit_and_catches_wrong_sensitivity(neighbours):
    F = np.array([[1, 1, 0, 0, 1], [0, 1, 1, 0, 0], [0, 1, 1, 1, 1]])
    correct = audit_answers(
        lambda h, rng: projection_mechanism(F, h, EPSILON, DELTA, rng=rng),
        neighbours,
        EPSILON,
        DELTA,
        samples=1000,
    )
    broken = audit_answers(
        lambda h, rng: projection_mechanism(understated(F, 1, 0.2), h, EPSILON, DELTA, rng=rng),
        neighbours,
        EPSILON,
        DELTA,
        samples=1000,
    )
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


def test_bad_arguments_are_refused_before_any_noise():
    F, h = np.eye(3), [1, 2, 3]
    generator = np.random.default_rng(0)
    state = generator.bit_generator.state
    with pytest.raises(ValueError, match="constraint"):
        projection_mechanism(F, h, 1.0, 1e-6, constraint="box", rng=generator)
    with pytest.raises(ValueError, match="count_share"):
        projection_mechanism(F, h, 1.0, 1e-6, constraint="count", count_share=1.0, rng=generator)
    with pytest.raises(PrivacyParameterError):
        projection_mechanism(F, h, 1.0, 1e-6, constraint="count", n_bound=-5, rng=generator)
    with pytest.raises(PrivacyParameterError):
        projection_mechanism(F, h, 1.0, 0.0, rng=generator)
    assert generator.bit_generator.state == state


def test_public_bound_spends_nothing_on_the_count():
    release = projection_mechanism(
        QueryMatrix(np.eye(3)), [1, 2, 3], 1.0, 1e-6, constraint="count", n_bound=10, rng=0
    )
    assert release.details["epsilon_count"] == 0.0 and release.details["n_bound"] == 10


@pytest.mark.parametrize("constraint", ["cone", "count"])
def test_sweep37_f19_an_all_zero_F_answers_zeros_like_the_gaussian_mechanism(constraint):
    """Sweep 37 F19: projection_mechanism raised "sensitivity must be finite and > 0, got
    0.0" where laplace, gaussian, factorization and knorm release zeros."""
    F, h = np.zeros((2, 4)), [1, 2, 3, 4]
    release = projection_mechanism(F, h, 1.0, 1e-6, constraint=constraint, rng=0)
    expected = gaussian_mechanism(F, h, 1.0, 1e-6, rng=0)
    assert release.answers.tolist() == expected.answers.tolist() == [0.0, 0.0]
    assert release.expected_error == 0.0 and release.sampler_tv == 0.0
