import math
from decimal import Context, Decimal, getcontext, localcontext

import numpy as np
import pytest
from scipy import stats

from privcut import PrivacyParameterError
from privcut.privacy import (
    Noise,
    discrete_gaussian,
    discrete_gaussian_tv_bound,
    discrete_laplace,
    discrete_laplace_tv_bound,
    gaussian,
    laplace,
    noise,
)
from privcut.privacy.noise import (
    FLOAT_RTOL,
    MAX_SCALE,
    geometric,
    geometric_tv_bound,
    laplace_moments,
)

FALSE_ALARM = 1e-6
DRAWS = 200_000


def chi_square_p_value(draws, support, pmf):
    """Chi-square goodness of fit of integer draws to ``pmf`` on ``support`` (tails pooled)."""
    expected = pmf * draws.size
    keep = expected >= 20
    low, high = support[keep][0], support[keep][-1]
    observed = np.bincount(np.clip(draws, low - 1, high + 1) - (low - 1))
    observed = np.pad(observed, (0, high - low + 3 - observed.size))
    expected = np.concatenate(
        [[expected[support < low].sum()], expected[keep], [expected[support > high].sum()]]
    )
    return stats.chisquare(observed, expected * observed.sum() / expected.sum()).pvalue


def discrete_laplace_pmf(support, scale):
    return math.tanh(0.5 / scale) * np.exp(-np.abs(support) / scale)


def discrete_gaussian_pmf(support, sigma):
    weights = np.exp(-(support.astype(float) ** 2) / (2 * sigma**2))
    return weights / weights.sum()


@pytest.mark.parametrize("scale", [0.3, 1.0, 3.7, 50.0])
def test_discrete_laplace_fits_its_distribution(scale):
    support = np.arange(-int(60 * scale) - 30, int(60 * scale) + 31)
    draws = discrete_laplace(scale, DRAWS, rng=1)
    assert chi_square_p_value(draws, support, discrete_laplace_pmf(support, scale)) > FALSE_ALARM


@pytest.mark.parametrize("sigma", [0.4, 1.0, 2.5, 10.0, 120.0])
def test_discrete_gaussian_fits_its_distribution(sigma):
    support = np.arange(-int(12 * sigma) - 10, int(12 * sigma) + 11)
    draws = discrete_gaussian(sigma, DRAWS, rng=2)
    assert chi_square_p_value(draws, support, discrete_gaussian_pmf(support, sigma)) > FALSE_ALARM


def test_secure_default_randomness_has_the_right_distribution():
    draws = discrete_laplace(2.0, DRAWS)
    support = np.arange(-150, 151)
    assert chi_square_p_value(draws, support, discrete_laplace_pmf(support, 2.0)) > FALSE_ALARM
    assert not np.array_equal(draws[:50], discrete_laplace(2.0, 50))


@pytest.mark.parametrize("scale", [0.5, 4.0])
def test_laplace_fits_its_distribution(scale):
    draws = laplace(scale, DRAWS, rng=3)
    assert stats.kstest(draws, stats.laplace(scale=scale).cdf).pvalue > FALSE_ALARM


@pytest.mark.parametrize("sigma", [0.5, 4.0])
def test_gaussian_fits_its_distribution(sigma):
    draws = gaussian(sigma, DRAWS, rng=4)
    assert stats.kstest(draws, stats.norm(scale=sigma).cdf).pvalue > FALSE_ALARM


@pytest.mark.parametrize("sampler", [laplace, gaussian, discrete_laplace, discrete_gaussian])
def test_shapes_types_and_reproducibility(sampler):
    single = sampler(2.0, rng=5)
    assert np.ndim(single) == 0
    block = sampler(2.0, (3, 4), rng=5)
    assert block.shape == (3, 4)
    np.testing.assert_array_equal(block, sampler(2.0, (3, 4), rng=np.random.default_rng(5)))
    if sampler in (discrete_laplace, discrete_gaussian):
        assert isinstance(single, np.int64) and block.dtype == np.int64


def test_integer_samplers_refuse_scales_beyond_exact_float_integers():
    with pytest.raises(PrivacyParameterError, match="2\\*\\*40"):
        discrete_laplace(MAX_SCALE * 2)


def test_discrete_gaussian_refuses_sigma_whose_proposals_leave_the_range():
    # sigma = 2**40 proposes at floor(sigma) + 1 > 2**40: refused before any draw, by the
    # sampler, its TV bound and Noise alike (review 37 M1: the sampler drew there)
    generator = np.random.default_rng(0)
    state = generator.bit_generator.state
    for refuse in (
        lambda: discrete_gaussian(MAX_SCALE, rng=generator),
        lambda: discrete_gaussian_tv_bound(MAX_SCALE),
        lambda: Noise("discrete_gaussian", MAX_SCALE),
        lambda: Noise("gaussian", MAX_SCALE, grid=1.0),
    ):
        with pytest.raises(PrivacyParameterError, match="below 2\\*\\*40"):
            refuse()
    assert generator.bit_generator.state == state
    below = MAX_SCALE - 0.5
    assert discrete_gaussian_tv_bound(below) < 1.0
    assert Noise("discrete_gaussian", below).add(np.zeros(2), rng=0).shape == (2,)


@pytest.mark.usefixtures("forty_digits")
def test_float_acceptance_probability_meets_its_error_bound():
    for sigma in (0.4, 2.5, 10.0, 1234.5):
        t = math.floor(sigma) + 1
        tau = sigma**2 / t
        ys = np.arange(0, 40 * t, max(1, t // 50))
        computed = np.exp(-((np.abs(ys) - tau) ** 2) / (2.0 * sigma**2))
        for y, value in zip(ys, computed, strict=True):
            z = (Decimal(int(y)) - Decimal(sigma) ** 2 / t) ** 2 / (2 * Decimal(sigma) ** 2)
            assert abs(Decimal(float(value)) - (-z).exp()) <= Decimal(FLOAT_RTOL)


class IntegersOnly(np.random.Generator):
    """A seeded generator that refuses every floating-point draw."""

    def random(self, *args, **kwargs):
        raise AssertionError("a floating-point uniform draw")

    def standard_exponential(self, *args, **kwargs):
        raise AssertionError("a floating-point exponential draw")


def test_laplace_and_geometric_samplers_draw_bounded_integers_only():
    """The exact samplers never touch a float draw (a float sampler's law is not exact:
    Mironov 2012), so their slack is 0; the discrete Gaussian's acceptance step does."""
    generator = IntegersOnly(np.random.PCG64(3))
    for scale in (1e-300, 0.3, 1.0, 7.77, 1e6, MAX_SCALE):
        assert discrete_laplace(scale, 50, rng=generator).dtype == np.int64
        assert geometric(scale, 50, rng=generator).min() >= 0
        assert discrete_laplace_tv_bound(scale) == 0.0 == geometric_tv_bound(scale)
    with pytest.raises(AssertionError, match="floating-point"):
        discrete_gaussian(2.0, 50, rng=generator)
    assert 0 < discrete_gaussian_tv_bound(2.0) < 1e-13


@pytest.mark.parametrize("scale", [1e-3, 0.5, 1.0, 30.0, 1e4, 1e5])
def test_the_discrete_gaussians_slack_is_tiny(scale):
    assert 0 < discrete_gaussian_tv_bound(scale) < 1e-13


@pytest.fixture
def forty_digits():
    """The decimal context at 40 digits for the test, restored after it."""
    with localcontext(Context(prec=40)):
        yield


def exact_log(u, digits=40):
    with localcontext() as context:
        context.prec = digits
        return Decimal(u).ln()


def test_float_log_step_meets_the_error_bound_the_fast_path_assumes():
    """The geometric sampler's fast path rests on |fl(-s log u) - (-s log u)| <= FLOAT_RTOL
    (-s log u) for its u = (w + 1) 2^-64 (floats in (0, 1]), with NumPy's logarithm and
    with ``math.log`` (a call of a few draws)."""
    rng = np.random.default_rng(6)
    w = np.concatenate(
        [
            rng.bit_generator.random_raw(2000),
            (np.exp(-rng.uniform(0, 44, 2000)) * 2.0**64).astype(np.uint64),
            np.array([0, 1, 2, 2**63, 2**64 - 2, 2**64 - 1], dtype=np.uint64),
        ]
    )
    grid = (w.astype(float) + 1.0) * 2.0**-64
    for scale in (0.3, 1.0, 7.77, 1e3, 3.3e6):
        computed = np.log(grid) * -scale
        single = [math.log(u) * -scale for u in grid.tolist()]
        worst = 0.0
        for u, value, one in zip(grid, computed, single, strict=True):
            exact = -Decimal(scale) * exact_log(float(u))
            if exact != 0:
                for found in (value, one):
                    worst = max(worst, abs(float((Decimal(float(found)) - exact) / exact)))
        assert worst <= FLOAT_RTOL, (scale, worst)


@pytest.mark.parametrize("scale", [1e-300, 0.37, 2.5, 1234.5, 2.0**36])
def test_the_fast_paths_certain_floors_are_the_exact_ones(scale):
    """Wherever the float path calls a draw's floor certain, the exact path (decimal
    arithmetic on the same first 64 bits of U) gives the same floor, also for the bits
    closest to the bounds exp(-m / scale) where floors change."""
    rng = np.random.default_rng(7)
    m = np.arange(0, 40) if scale < 1e4 else np.round(scale * rng.uniform(0, 30, 40))
    near = np.exp(-m / scale) * 2.0**64
    w = np.concatenate(
        [
            rng.bit_generator.random_raw(300),
            *[
                np.clip(near + shift, 0, 2.0**64 - 4096).astype(np.uint64)
                for shift in (-2048, 0, 2048)
            ],
            np.array([0, 1, 2**64 - 1], dtype=np.uint64),
        ]
    )
    floor, certain = noise._certain(w.astype(float), scale)
    assert certain.mean() > 0.5
    for value, down in zip(w[certain], floor[certain], strict=True):
        assert noise._exact_floor(value, scale, rng) == down
    for value in w.tolist():  # one at a time, in Python floats: the same floors
        one, sure = noise._certain(float(value), scale, math.log, math.floor, max)
        assert not sure or one == noise._exact_floor(value, scale, rng)


@pytest.mark.parametrize("scale", [0.37, 6.5])
def test_the_exact_path_alone_has_the_law_whatever_the_callers_decimal_context(monkeypatch, scale):
    """Every draw sent to the exact path (decimal arithmetic, more of U's bits as needed):
    the discrete Laplace still fits its law, also when the caller's decimal context has 6
    digits (review 39 F1: some operations ran in it, so the margin vanished, and near a
    bound the path gave wrong floors or never decided)."""
    monkeypatch.setattr(
        noise, "_certain", lambda wide, *_: (np.zeros_like(wide), np.zeros_like(wide, dtype=bool))
    )
    support = np.arange(-int(60 * scale) - 30, int(60 * scale) + 31)
    with localcontext(Context(prec=60)):  # U's first word at the bound m = 3
        boundary = int((-3 / Decimal(scale)).exp() * 2**64)
    before = getcontext().prec
    with localcontext() as context:
        context.prec = 6
        draws = discrete_laplace(scale, 5_000, rng=8)
        floors = [
            noise._exact_floor(boundary + d, scale, np.random.default_rng(d + 1))
            for d in (-1, 0, 1)
        ]
    assert getcontext().prec == before
    assert chi_square_p_value(draws, support, discrete_laplace_pmf(support, scale)) > FALSE_ALARM
    assert floors[0] == 3 and floors[2] == 2 and floors[1] in (2, 3)


def test_every_bit_generator_gives_the_sampler_full_words():
    """Review 39 F2: MT19937's raw outputs have 32 bits; read as 64-bit words, U was below
    2**-32 and every geometric draw at scale 1 was 22."""
    draws = geometric(1.0, DRAWS, rng=np.random.Generator(np.random.MT19937(1)))
    p = math.exp(-1.0)
    assert abs((draws >= 1).mean() - p) <= 5.5 * math.sqrt(p * (1 - p) / DRAWS)


@pytest.mark.parametrize("scale", [1e-3, 0.3, 2.5, 1234.5, 2.0**30])
def test_geometric_has_its_exact_tail(scale):
    draws = geometric(scale, DRAWS, rng=5)
    for m in (1, 2, 5):
        m = m if scale < 1e4 else int(m * scale / 3)
        p = math.exp(-m / scale)
        assert abs((draws >= m).mean() - p) <= 5.5 * math.sqrt(p * (1 - p) / DRAWS) + 1e-12


@pytest.mark.parametrize("epsilon", [0.05, 0.7, 1.0, 20.0])
@pytest.mark.parametrize("coordinates", [1, 3, 100])
def test_grid_noise_pays_the_rounding_with_little_inflation(epsilon, coordinates):
    """Grid noise for real answers: grid-unit sensitivity Delta / g + 2c (l1) or
    Delta_2 / g + 2 sqrt(c) (l2) (rounding plus float error of at most g / 4 a side), the
    scale raised by at most 1/1024, a power-of-two grid."""
    sensitivity = 1.5
    laplace_noise = Noise.for_laplace(epsilon, sensitivity, integer=False, coordinates=coordinates)
    grid = laplace_noise.grid
    assert math.frexp(grid)[0] == 0.5
    slack = 2 * coordinates
    assert laplace_noise.scale / grid == pytest.approx((sensitivity / grid + slack) / epsilon)
    assert 1.0 < laplace_noise.scale / (sensitivity / epsilon) <= 1.0 + 1.0 / 1024
    integer = Noise.for_gaussian(epsilon, 1e-6, sensitivity, integer=True)
    gaussian_noise = Noise.for_gaussian(
        epsilon, 1e-6, sensitivity, integer=False, coordinates=coordinates
    )
    root, g = 2 * math.sqrt(coordinates), gaussian_noise.grid
    units = gaussian_noise.scale / g
    assert units == pytest.approx(integer.scale / sensitivity * (sensitivity / g + root))
    assert 1.0 < gaussian_noise.scale / integer.scale <= 1.0 + 1.0 / 1024
    assert gaussian_noise.tv_bound(5) == 5 * discrete_gaussian_tv_bound(units)
    assert laplace_noise.tv_bound(5) == 5 * discrete_laplace_tv_bound(laplace_noise.scale / grid)


def test_grid_noise_needs_the_changed_coordinates_and_keeps_the_discrete_privacy():
    with pytest.raises(TypeError, match="coordinates"):
        Noise.for_laplace(1.0, 1.0, integer=False)
    base = Noise("discrete_laplace", 4.0)  # epsilon = 2 / 4 at sensitivity 2
    real = base.on_grid(2.0, 3)
    assert (2.0 / real.grid + 2 * 3) / (real.scale / real.grid) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="power of two"):
        Noise("laplace", 1.0, 0.3)


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
def test_grid_noise_error_bounds_cover_the_rounding(kind):
    """The released error is grid * Z plus a rounding of at most grid / 2 per answer: the
    reported variance, mean absolute error, max_error and sum_tail bound it (a coarse grid
    here, so that the rounding matters)."""
    noise = Noise(kind, 1.0, 0.5)
    rng = np.random.default_rng(5)
    y = np.full((4000, 20), 0.25)  # every answer rounds by exactly grid / 2
    errors = noise.add(y, rng=rng) - y
    assert np.all(np.abs(errors / noise.grid - np.round(errors / noise.grid)) == 0.5)
    assert np.mean(errors**2) <= noise.variance * 1.05
    assert np.mean(np.abs(errors)) <= noise.mean_absolute * 1.05
    assert np.mean(np.abs(errors).max(axis=1) > noise.max_error(20, 0.05)) <= 0.05
    tail = noise.sum_tail({1.0: 20}, math.log(0.05))
    assert np.mean(np.abs(errors.sum(axis=1)) >= tail) <= 0.05


@pytest.mark.parametrize("integer", [True, False])
def test_sweep37_f1_laplace_moments_past_float_range_are_inf_not_an_error(integer):
    variance, absolute = laplace_moments(1e200, integer)
    assert variance == math.inf and absolute == pytest.approx(1e200)
    assert laplace_moments(1e100, integer)[0] == pytest.approx(2e200)
    assert laplace_moments(1e300, integer)[0] == math.inf
