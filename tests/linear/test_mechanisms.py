import json

import numpy as np
import pytest
from scipy.sparse.linalg import aslinearoperator

from privcut import PrivacyParameterError
from privcut.audit import audit
from privcut.linear import (
    QueryMatrix,
    factorization_mechanism,
    factorize,
    gaussian_mechanism,
    knorm_mechanism,
    laplace_mechanism,
    mwem,
    projection_mechanism,
    small_db,
)
from privcut.privacy import Noise
from tests.auditing import (
    assert_on_grid,
    audit_answers,
    audit_twin,
    float_sampler_slack,
    in_laplace_image,
)

F = np.array([[1, 1, 0, 0, 1], [0, 1, 1, 0, 0], [0, 1, 1, 1, 1]])
EPSILON, DELTA = 0.5, 1e-3


def understated(matrix, l1, l2):
    """A broken query matrix that claims smaller sensitivities than it has."""
    return QueryMatrix.implicit(
        aslinearoperator(np.asarray(matrix, dtype=float)),
        l1_sensitivity=l1,
        l2_sensitivity=l2,
        integer=True,
    )


@pytest.mark.slow
def test_laplace_mechanism_passes_its_audit_and_catches_wrong_sensitivity(neighbours):
    correct = audit_answers(
        lambda h, rng: laplace_mechanism(F, h, EPSILON, rng=rng), neighbours, EPSILON, samples=3000
    )
    broken = audit_twin(
        lambda h, rng: laplace_mechanism(understated(F, 1, 1), h, EPSILON, rng=rng),
        lambda h: F @ h,
        neighbours,
        EPSILON,
        samples=3000,
    )
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


@pytest.mark.slow
def test_gaussian_mechanism_passes_its_audit_and_catches_wrong_sensitivity(neighbours):
    correct = audit_answers(
        lambda h, rng: gaussian_mechanism(F, h, EPSILON, DELTA, rng=rng),
        neighbours,
        EPSILON,
        DELTA,
        samples=5000,
    )
    broken = audit_twin(
        lambda h, rng: gaussian_mechanism(understated(F, 1, 0.5), h, EPSILON, DELTA, rng=rng),
        lambda h: F @ h,
        neighbours,
        EPSILON,
        DELTA,
        samples=5000,
    )
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


@pytest.mark.parametrize("queries", [F, F / 3.0], ids=["integer", "real"])
@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_measured_error_matches_the_promise(queries, mechanism):
    h = np.array([30, 10, 20, 0, 50])
    rng = np.random.default_rng(1)
    releases = [
        laplace_mechanism(queries, h, EPSILON, beta=0.1, rng=rng)
        if mechanism == "laplace"
        else gaussian_mechanism(queries, h, EPSILON, DELTA, beta=0.1, rng=rng)
        for _ in range(4000)
    ]
    errors = np.array([r.answers for r in releases]) - queries @ h
    promised = releases[0]
    rms = np.sqrt(np.mean(errors**2))
    assert rms == pytest.approx(promised.expected_error, rel=0.04)
    exceed = np.mean(np.abs(errors).max(axis=1) > promised.max_error)
    assert exceed <= 0.1 + 3 * np.sqrt(0.1 * 0.9 / 4000)
    assert (promised.details["noise"].startswith("discrete")) == (queries is F)


def test_integer_queries_give_integer_answers():
    answers = laplace_mechanism(F, [1, 2, 3, 4, 5], 1.0, rng=0).answers
    assert np.array_equal(answers, np.round(answers))
    assert laplace_mechanism(F, [1, 2, 3, 4, 5], 1.0, rng=0).effective_delta < 1e-10


def test_data_independent_queries_are_answered_exactly():
    release = laplace_mechanism(np.zeros((2, 3)), [1, 2, 3], 1.0, rng=0)
    np.testing.assert_array_equal(release.answers, [0.0, 0.0])
    assert release.expected_error == 0.0


def test_bad_parameters_are_refused_before_any_noise():
    generator = np.random.default_rng(0)
    state = generator.bit_generator.state
    with pytest.raises(PrivacyParameterError):
        laplace_mechanism(F, [1, 2, 3, 4, 5], -1.0, rng=generator)
    with pytest.raises(PrivacyParameterError):
        gaussian_mechanism(F, [1, 2, 3, 4, 5], 1.0, 0.0, rng=generator)
    with pytest.raises(ValueError, match="beta"):
        laplace_mechanism(F, [1, 2, 3, 4, 5], 1.0, beta=1.5, rng=generator)
    with pytest.raises(ValueError, match="shape"):
        laplace_mechanism(F, [1, 2, 3], 1.0, rng=generator)
    assert generator.bit_generator.state == state


def test_laplace_mechanism_with_real_queries_hides_its_low_order_bits():
    """Reviewer's finding (Mironov 2012): F = [[1, 0.5]] made the answer h_0 + h_1 / 2 plus a
    numpy Laplace float, an exact raw draw for h = [0, 0] and rarely for [0, 1] (old audit
    p = 4.9e-173). Now the answer is on a public grid with discrete noise."""
    epsilon, queries = 0.7, np.array([[1.0, 0.5]])

    def exact_draw(h, rng):
        answer = laplace_mechanism(queries, h, epsilon, rng=rng).answers[0]
        return in_laplace_image(float(answer), 1.0 / epsilon)

    pair = (np.array([0, 0]), np.array([0, 1]))
    assert audit(exact_draw, pair, epsilon, samples=1500, rng=0).p_value >= 0.01


@pytest.mark.parametrize("mechanism", [laplace_mechanism, gaussian_mechanism])
def test_real_queries_get_answers_on_the_grid_and_its_slack(mechanism, monkeypatch):
    float_sampler_slack(monkeypatch)
    queries = np.array([[1.0, 0.3, 0.0], [0.1, 0.0, 0.7], [0.0, 0.25, 1.0]])
    args = (EPSILON,) if mechanism is laplace_mechanism else (EPSILON, DELTA)
    release = mechanism(queries, [3, 1, 4], *args, rng=0)
    grid = release.details.get("grid", 0.0)
    assert_on_grid(release.answers, grid)
    unit = Noise(release.details["noise"], release.details["scale"], grid).units
    assert release.sampler_tv == pytest.approx(unit.tv_bound(3)) and release.sampler_tv > 0.0
    # two nonzeros per column: the grid-unit sensitivity is Delta / g + 2 (l1) or + sqrt 2
    if mechanism is laplace_mechanism:
        assert release.details["scale"] == pytest.approx((1.7 + 2 * 2 * grid) / EPSILON)


def test_answers_whose_float_error_could_cross_the_grid_are_refused():
    """A review found that at counts near 2^52 the float spacing of 0.3 h exceeds the grid, so
    neighbouring counts moved the rounded answer by 2048 grid steps against a calibrated 1230:
    audit p = 1e-300 at epsilon 1. Such inputs now lie outside the stated domain."""
    huge = 5152836805496513
    with pytest.raises(ValueError, match="floating-point error"):
        laplace_mechanism([[0.3]], [huge], 1.0, rng=0)
    with pytest.raises(ValueError, match="floating-point error"):
        gaussian_mechanism([[0.3, 0.1]], [huge // 2, 7], 1.0, 1e-6, rng=0)
    assert laplace_mechanism([[0.3]], [10**6], 1.0, rng=0).answers.shape == (1,)


def every_release():
    """One release of each linear mechanism, on integer and real-valued queries."""
    h = np.array([1, 2, 0, 3, 1])
    return [
        laplace_mechanism(F, h, 1.0, rng=0),
        laplace_mechanism(F * 0.5, h, 1.0, rng=0),
        gaussian_mechanism(F, h, 1.0, 1e-6, rng=0),
        factorization_mechanism(F, h, 1.0, 1e-6, strategy="binary-tree", rng=0),
        projection_mechanism(F, h, 1.0, 1e-6, constraint="count", rng=0),
        knorm_mechanism(F, h, 1.0, rng=0),
        mwem(F, h, 1.0, rounds=2, n=7, rng=0),
        small_db(F, h, 1.0, size=2, n=7, rng=0),
    ]


def test_every_release_is_plain_data_as_a_dict():
    for release in every_release():
        report = release.to_dict()
        assert json.loads(json.dumps(report)) == report, release.mechanism
        assert report["answers"] == release.answers.tolist()
        assert report["effective_delta"] == release.effective_delta
        assert list(report)[:3] == ["answers", "epsilon", "delta"]
        assert report["details"].keys() == release.details.keys()


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: knorm_mechanism(F, [1] * 5, 1.0, sampler="x"), "sampler"),
        (lambda: projection_mechanism(F, [1] * 5, 1.0, 1e-6, constraint="ball"), "constraint"),
        (lambda: factorize(F, "greedy"), "strategy"),
    ],
)
def test_an_unknown_option_is_named_with_the_choices(call, name):
    with pytest.raises(ValueError, match=f"{name} must be one of"):
        call()
