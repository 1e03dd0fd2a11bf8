import numpy as np
import pytest
from scipy import stats

from privcut import PrivacyParameterError
from privcut.audit import audit
from privcut.linear.knorm import KNormBody, _noise, knorm_mechanism
from tests.auditing import audit_answers

F = np.array([[1, 1, 0, 0, 1], [0, 1, 1, 0, 0], [0, 1, 1, 1, 1]], dtype=float)
H = np.array([3, 1, 2, 0, 5])
EPSILON = 0.5
BODY = KNormBody.of(F, triangulate=True)


def test_exact_sampler_is_uniform_on_k():
    """For z uniform on a d-dimensional star body, ||z||_K**d is uniform on [0, 1]."""
    rng = np.random.default_rng(0)
    points = np.array([BODY.sample_exact(rng) for _ in range(20_000)])
    assert stats.kstest(BODY.gauge(points) ** 3, "uniform").pvalue > 1e-6
    assert np.mean((points**2).sum(axis=1)) == pytest.approx(BODY.second_moment(), rel=0.02)


def test_radius_follows_gamma_d_plus_one():
    rng = np.random.default_rng(1)
    radii = [_noise(BODY, EPSILON, rng, "exact", 0)[0] for _ in range(5000)]
    assert stats.kstest(radii, stats.gamma(4, scale=1 / EPSILON).cdf).pvalue > 1e-6


def test_noise_has_density_exp_minus_epsilon_k_norm():
    """End to end: ||a - F h||_K is Gamma(d, 1/epsilon) when a has density ~ exp(-eps ||.||_K)."""
    answers = np.array([knorm_mechanism(F, H, EPSILON, rng=i).answers for i in range(4000)])
    norms = BODY.gauge((answers - F @ H) @ BODY.basis)
    assert stats.kstest(norms, stats.gamma(3, scale=1 / EPSILON).cdf).pvalue > 1e-6


@pytest.mark.slow
def test_error_matches_the_exact_formula_and_the_theorem_bound():
    runs = [knorm_mechanism(F, H, EPSILON, beta=0.1, rng=i) for i in range(4000)]
    errors = np.array([r.answers for r in runs]) - F @ H
    assert np.sqrt(np.mean(errors**2)) == pytest.approx(runs[0].expected_error, rel=0.05)
    rng = np.random.default_rng(2)
    mean_norm = np.mean([np.linalg.norm(BODY.sample_exact(rng)) for _ in range(20_000)])
    theorem_bound = (3 + 1) / EPSILON * mean_norm  # HT10 Thm 4.3, l2 error
    assert np.mean(np.linalg.norm(errors, axis=1)) <= theorem_bound * 1.02
    assert np.mean(np.abs(errors).max(axis=1) > runs[0].max_error) <= 0.1


@pytest.mark.slow
def test_knorm_passes_its_audit_and_catches_a_shrunken_body(neighbours):
    shrunken = KNormBody.of(F / 4, triangulate=True)

    def shrunken_noise(rng):
        radius, point = _noise(shrunken, EPSILON, rng, "exact", 0)
        return shrunken.basis @ (radius * point)

    # the noise knorm_mechanism adds for F / 4, draw for draw, from one triangulation
    zero = knorm_mechanism(F / 4, np.zeros(5, dtype=int), EPSILON, rng=0).answers
    assert np.array_equal(zero, shrunken_noise(np.random.default_rng(0)))

    def broken(h, rng, size):
        """Noise from K / 4: calibrated to a quarter of the queries' sensitivity."""
        return F @ h + np.array([shrunken_noise(rng) for _ in range(size)])

    correct = audit_answers(
        lambda h, rng: knorm_mechanism(F, h, EPSILON, rng=rng), neighbours, EPSILON, samples=400
    )
    caught = audit(broken, neighbours, EPSILON, samples=400, vectorized=True, rng=0)
    assert correct.p_value >= 0.01
    assert caught.p_value <= 1e-3


def test_rank_deficient_and_one_dimensional_queries():
    repeated = np.array([[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]])
    release = knorm_mechanism(repeated, [2, 5, 1], 1.0, rng=0)
    assert release.details["dimension"] == 1
    assert release.answers[0] == pytest.approx(release.answers[1])
    assert knorm_mechanism(np.zeros((2, 3)), [1, 1, 1], 1.0, rng=0).expected_error == 0.0


@pytest.mark.slow
def test_hit_and_run_is_flagged_uncertified_and_roughly_uniform():
    release = knorm_mechanism(F, H, EPSILON, sampler="hit-and-run", walk_steps=50, rng=0)
    assert release.details["certified"] is False and release.expected_error is None
    rng = np.random.default_rng(3)
    z = np.zeros(3)
    samples = []
    for _ in range(800):  # two LPs a step (HiGHS): about 3 ms each
        direction = rng.standard_normal(3)
        direction /= np.linalg.norm(direction)
        z = (
            z
            + rng.uniform(-BODY._chord_end(z, -direction), BODY._chord_end(z, direction))
            * direction
        )
        samples.append(z)
    samples = np.array(samples[200:])
    assert np.all(BODY.gauge(samples) <= 1 + 1e-9)
    assert np.mean((samples**2).sum(axis=1)) == pytest.approx(BODY.second_moment(), rel=0.15)


def test_large_dimensions_are_refused_before_any_noise():
    generator = np.random.default_rng(0)
    state = generator.bit_generator.state
    with pytest.raises(ValueError, match="dimension 8, beyond the 7"):
        knorm_mechanism(np.eye(8), np.ones(8, dtype=int), 1.0, rng=generator)
    with pytest.raises(ValueError, match="dimension 31, beyond the 30"):
        knorm_mechanism(
            np.eye(31), np.ones(31, dtype=int), 1.0, sampler="hit-and-run", rng=generator
        )
    with pytest.raises(ValueError, match="sampler"):
        knorm_mechanism(np.eye(2), [1, 1], 1.0, sampler="grid", rng=generator)
    assert generator.bit_generator.state == state


def test_small_singular_directions_are_not_released_without_noise():
    """Issue 15: F = diag(1, 1e-11) lost its second direction at the rank cut-off, and the
    release then carried answers[1] = 1e-11 h[1] exactly, noiseless, while claiming
    certified (epsilon, 0)-DP."""
    thin = np.diag([1.0, 1e-11])
    for h in ([4, 7], [4, 8]):
        release = knorm_mechanism(thin, h, 1.0, rng=0)
        assert release.details["certified"]
        assert release.answers[1] == 0.0  # the same whatever h[1] is
        assert release.details["residual_singular_value"] == 1e-11


@pytest.mark.parametrize("epsilon", [5e-324, 1e-200, 1e-12])
def test_sweep37_f17_a_noise_scale_past_2_to_the_40_is_refused(epsilon):
    """Sweep 37 F17: knorm_mechanism released [-inf, -inf] at epsilon 5e-324 (and noise
    of 4e199 at 1e-200) where the other mechanisms refuse a scale above 2**40."""
    with pytest.raises(PrivacyParameterError, match=r"would exceed 2\*\*40.*raise epsilon"):
        knorm_mechanism(np.ones((2, 4)), [1, 2, 3, 4], epsilon, rng=0)
    assert knorm_mechanism(np.ones((2, 4)), [1, 2, 3, 4], 2e-12, rng=0).answers.shape == (2,)
