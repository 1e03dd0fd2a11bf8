import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privcut import PrivacyBudget, PrivacyParameterError
from privcut.privacy import (
    advanced_composition,
    check_delta,
    check_epsilon,
    check_sensitivity,
    discrete_gaussian,
    discrete_laplace,
    gaussian,
    gaussian_sigma,
    laplace,
)

not_numbers = st.one_of(
    st.booleans(),
    st.text(),
    st.complex_numbers(),
    st.none(),
    st.just(np.bool_(True)),
    st.lists(st.floats(), max_size=2),
)
non_finite = st.sampled_from([math.nan, math.inf, -math.inf, np.float64("nan")])
not_positive = st.one_of(
    not_numbers, non_finite, st.floats(max_value=0.0), st.integers(max_value=0)
)
bad_delta = st.one_of(
    not_numbers,
    non_finite,
    st.floats(max_value=0.0, exclude_max=True),
    st.floats(min_value=1.0),
    st.integers(min_value=1),
    st.integers(max_value=-1),
)


@given(not_positive)
def test_bad_epsilon_is_refused_everywhere(value):
    for call in (
        lambda: check_epsilon(value),
        lambda: PrivacyBudget(value),
        lambda: gaussian_sigma(value, 1e-6),
        lambda: advanced_composition(value, 0.0, 10, 1e-6),
    ):
        with pytest.raises(PrivacyParameterError):
            call()


@given(bad_delta)
def test_bad_delta_is_refused_everywhere(value):
    for call in (
        lambda: check_delta(value),
        lambda: PrivacyBudget(1.0, value),
        lambda: gaussian_sigma(1.0, value),
        lambda: advanced_composition(0.1, value, 10, 1e-6),
    ):
        with pytest.raises(PrivacyParameterError):
            call()


@given(not_positive)
def test_bad_sensitivity_and_scale_are_refused(value):
    for call in (
        lambda: check_sensitivity(value),
        lambda: gaussian_sigma(1.0, 1e-6, sensitivity=value),
        lambda: laplace(value, rng=0),
        lambda: gaussian(value, rng=0),
        lambda: discrete_laplace(value, rng=0),
        lambda: discrete_gaussian(value, rng=0),
    ):
        with pytest.raises(PrivacyParameterError):
            call()


@given(st.one_of(st.floats(min_value=1e-12, max_value=100.0), st.integers(1, 100)))
def test_valid_epsilon_comes_back_as_float(value):
    checked = check_epsilon(value)
    assert isinstance(checked, float) and checked == float(value)


@pytest.mark.parametrize("value", [100.5, 800.0, 1e300])
def test_epsilon_above_the_documented_limit_is_refused(value):
    with pytest.raises(PrivacyParameterError, match="at most 100"):
        check_epsilon(value)


def test_delta_zero_is_allowed_unless_positive_required():
    assert check_delta(0.0) == 0.0
    with pytest.raises(PrivacyParameterError, match=r"\(0, 1\)"):
        check_delta(0.0, positive=True)
    with pytest.raises(PrivacyParameterError):
        gaussian_sigma(1.0, 0.0)


def test_error_is_a_value_error_and_names_the_parameter():
    with pytest.raises(ValueError, match=r"epsilon must be a real number.*str"):
        check_epsilon("1.0")


def test_bad_scale_is_refused_before_any_randomness_is_drawn():
    generator = np.random.default_rng(0)
    state = generator.bit_generator.state
    with pytest.raises(PrivacyParameterError):
        discrete_laplace(-1.0, size=10, rng=generator)
    assert generator.bit_generator.state == state
