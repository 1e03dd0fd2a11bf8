"""Validation of privacy parameters, shared by every mechanism.

Every public mechanism calls these checks first, before it reads any private
data or spends any budget, so that a bad parameter can never cost privacy.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from privcut.exceptions import PrivacyParameterError

__all__ = [
    "check_beta",
    "check_delta",
    "check_epsilon",
    "check_positive",
    "check_sensitivity",
]


def _shown(value: object) -> str:
    """``repr(value)`` for an error message, cut to 40 characters (a huge int is long)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _as_real(value: object, name: str) -> float:
    """Return ``value`` as a float if it is a real number (not a bool), else raise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise PrivacyParameterError(
            f"{name} must be a real number, got {_shown(value)} of type {type(value).__name__}; "
            f"pass a float such as {name}=1.0"
        )
    try:
        return float(value)
    except OverflowError:  # an int beyond the float range: infinite for every check here
        return math.inf if value > 0 else -math.inf


def check_positive(value: object, name: str) -> float:
    """Return ``value`` as a float after checking it is finite and > 0.

    Parameters
    ----------
    value : object
        The candidate parameter.
    name : str
        The parameter's name, used in the error message.

    Returns
    -------
    float

    Raises
    ------
    PrivacyParameterError
        If ``value`` is not a real number, is a bool, NaN, infinite, or <= 0.

    Examples
    --------
    >>> check_positive(2, "scale")
    2.0
    """
    number = _as_real(value, name)
    if not math.isfinite(number) or number <= 0.0:
        raise PrivacyParameterError(f"{name} must be finite and > 0, got {_shown(value)}")
    return number


MAX_EPSILON = 100.0
"""Largest epsilon privcut accepts. At epsilon = 100 the guarantee bounds probability
ratios by e^100 (about 2.7e43), which says nothing about any event a release can show, so
nothing is lost by refusing more; and beyond about 700 a count's noise scale 1/epsilon has
``exp(-1/scale)`` below the smallest float, so the noise and its error bounds would
degenerate (the release would be the exact data)."""

MAX_COUNT = 2**53
"""Largest count (of queries, rounds, iterations) privcut accepts: floats hold every
integer up to it exactly."""


def check_count(value: object, name: str, maximum: int = MAX_COUNT) -> int:
    """Return ``value`` as an int after checking it is an integer in [1, maximum] (not a
    bool); ``maximum`` defaults to 2**53.

    Examples
    --------
    >>> check_count(3, "rounds")
    3
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {_shown(value)}")
    if value > maximum:
        limit = "2**53" if maximum == MAX_COUNT else f"{maximum:,}"
        raise ValueError(
            f"{name} must be at most {limit}, got {_shown(value)}; give a smaller {name}"
        )
    return int(value)


def check_epsilon(epsilon: object, name: str = "epsilon") -> float:
    """Validate a privacy parameter epsilon: a finite float in (0, MAX_EPSILON].

    Raises
    ------
    PrivacyParameterError
        If epsilon is not a real number, not finite, <= 0 or above ``MAX_EPSILON`` (100,
        where the guarantee is already vacuous; see its note).

    Examples
    --------
    >>> check_epsilon(0.5)
    0.5
    """
    number = check_positive(epsilon, name)
    if number > MAX_EPSILON:
        raise PrivacyParameterError(
            f"{name} must be at most {MAX_EPSILON:g}, got {_shown(epsilon)}: a guarantee of "
            f"e^{MAX_EPSILON:g} is already vacuous; use a smaller {name} (at most 100)"
        )
    return number


def check_delta(delta: object, name: str = "delta", *, positive: bool = False) -> float:
    """Validate a privacy parameter delta: a float in [0, 1), or (0, 1) if ``positive``.

    Parameters
    ----------
    delta : object
        The candidate delta.
    name : str, default "delta"
        The parameter's name, used in the error message.
    positive : bool, default False
        Require delta > 0 (e.g. for the Gaussian mechanism).

    Examples
    --------
    >>> check_delta(1e-6)
    1e-06
    """
    number = _as_real(delta, name)
    if not 0.0 <= number < 1.0 or (positive and number == 0.0):
        interval = "(0, 1)" if positive else "[0, 1)"
        raise PrivacyParameterError(
            f"{name} must lie in {interval}, got {delta!r}; "
            "delta is a failure probability and should be much smaller than 1/n"
        )
    return number


def check_sensitivity(sensitivity: object, name: str = "sensitivity") -> float:
    """Validate a query sensitivity: a finite float > 0.

    Examples
    --------
    >>> check_sensitivity(1)
    1.0
    """
    return check_positive(sensitivity, name)


def check_beta(beta: object) -> float:
    """Validate a failure probability beta for an error bound: a float in (0, 1).

    Examples
    --------
    >>> check_beta(0.05)
    0.05
    """
    number = _as_real(beta, "beta")
    if not 0.0 < number < 1.0:
        raise ValueError(
            f"beta must lie in (0, 1), got {beta!r}; it is the probability "
            "that the stated error bound fails, e.g. beta=0.05"
        )
    return number
