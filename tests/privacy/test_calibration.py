import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from privcut.privacy import gaussian_delta, gaussian_sigma, gaussian_sigma_classical


def test_published_values_at_epsilon_1_delta_1e5():
    assert gaussian_sigma(1.0, 1e-5) == pytest.approx(3.73, abs=0.005)
    assert gaussian_sigma_classical(1.0, 1e-5) == pytest.approx(4.84, abs=0.005)


def test_sensitivity_scales_sigma_linearly():
    assert gaussian_sigma(0.5, 1e-6, sensitivity=3.0) == pytest.approx(
        3.0 * gaussian_sigma(0.5, 1e-6), rel=1e-9
    )


@settings(max_examples=200)
@given(
    epsilon=st.floats(min_value=1e-3, max_value=30.0),
    log_delta=st.floats(min_value=-30.0, max_value=-0.5),
)
def test_sigma_is_the_smallest_that_meets_delta(epsilon, log_delta):
    delta = 10.0**log_delta
    sigma = gaussian_sigma(epsilon, delta)
    assert gaussian_delta(sigma, epsilon) <= delta
    assert gaussian_delta(sigma * (1 - 1e-9), epsilon) > delta * (1 - 1e-6)


@given(epsilon=st.floats(min_value=1e-3, max_value=0.999), delta=st.floats(1e-12, 0.1))
def test_analytic_calibration_beats_the_classical_bound(epsilon, delta):
    assert gaussian_sigma(epsilon, delta) < gaussian_sigma_classical(epsilon, delta)


@pytest.mark.parametrize(("sigma", "epsilon"), [(3.73, 1.0), (1.0, 0.5), (10.0, 0.2), (0.7, 3.0)])
def test_delta_matches_the_hockey_stick_divergence_by_integration(sigma, epsilon):
    """delta(epsilon) = integral of max(0, p(x) - e^epsilon q(x)) for N(0, s^2) vs N(1, s^2)."""
    p, q = stats.norm(0.0, sigma), stats.norm(1.0, sigma)
    crossing = 0.5 - epsilon * sigma**2  # p > e^eps q exactly left of this point
    numeric, _ = integrate.quad(
        lambda x: p.pdf(x) - math.exp(epsilon) * q.pdf(x), -np.inf, crossing, epsabs=1e-14
    )
    assert gaussian_delta(sigma, epsilon) == pytest.approx(numeric, rel=1e-6)
