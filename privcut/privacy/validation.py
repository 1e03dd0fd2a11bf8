"""Validation of parameters before any data is read, shared by every mechanism.

The privacy parameters (:func:`check_epsilon`, :func:`check_delta`, :func:`check_beta`)
and the generic checks of a number with its type and bounds (:func:`check_scalar`) and
of an option from a set (:func:`check_option`). Every public mechanism calls these
first, before it reads any private data or spends any budget, so that a bad parameter
can never cost privacy.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from privcut.exceptions import PrivacyParameterError

__all__ = [
    "as_real",
    "check_beta",
    "check_delta",
    "check_epsilon",
    "check_option",
    "check_positive",
    "check_real",
    "check_scalar",
    "check_sensitivity",
    "epsilon_too_small",
]


def _shown(value: object) -> str:
    """``repr(value)`` for an error message, cut to 40 characters (a huge int is long)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def as_real(value: object, name: str) -> float:
    """Return ``value`` as a float if it is a real number (not a bool), else raise
    :class:`~privcut.PrivacyParameterError` (an int beyond the float range becomes +-inf).

    Examples
    --------
    >>> as_real(3, "epsilon")
    3.0
    """
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
    number = as_real(value, name)
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


def epsilon_too_small(noise: str, fix: str = "raise epsilon") -> PrivacyParameterError:
    """The error for an epsilon so small that the noise scale of ``noise`` would pass the
    integer samplers' cap of 2**40 (to be raised before any draw), naming the ``fix``.

    Examples
    --------
    >>> str(epsilon_too_small("the edge count"))[:56]
    'epsilon too small: the noise scale of the edge count wou'
    """
    return PrivacyParameterError(
        f"epsilon too small: the noise scale of {noise} would exceed 2**40; noise that "
        f"large swamps any count, so {fix}"
    )


def check_real(values: object, what: str, real: str = "its .real part") -> None:
    """Refuse an array of complex dtype, whose float conversion would drop the imaginary
    parts with only numpy's ComplexWarning (a list of Python complex numbers already fails
    the conversion); the message names ``real`` as the fix.

    Examples
    --------
    >>> check_real(np.ones(2), "A") is None
    True
    """
    dtype = getattr(values, "dtype", None)
    if isinstance(dtype, np.dtype) and dtype.kind == "c":
        raise ValueError(
            f"{what} must hold real numbers, got complex dtype {dtype}; pass {real} if the "
            "imaginary parts are 0"
        )


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
    number = as_real(delta, name)
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
    number = as_real(beta, "beta")
    if not 0.0 < number < 1.0:
        raise ValueError(
            f"beta must lie in (0, 1), got {beta!r}; it is the probability "
            "that the stated error bound fails, e.g. beta=0.05"
        )
    return number


def check_scalar(
    value: object,
    name: str,
    kind: type = float,
    *,
    low: float | None = None,
    high: float | None = None,
    closed: str = "both",
) -> float | int:
    """Validate a numeric option: its type, finiteness and bounds (scikit-learn's
    ``check_scalar`` habit), returned as a Python ``int`` or ``float``.

    Parameters
    ----------
    value : object
        The candidate.
    name : str
        The option's name, used in the error message.
    kind : {float, int}
        ``int`` accepts integers only; ``float`` any real number. Bools are refused.
    low, high : float, optional
        Bounds (``None``: unbounded on that side). ``int`` options with neither bound
        are limited to [1, 2**53].
    closed : {"both", "left", "right", "neither"}
        Which bounds are attained.

    Raises
    ------
    TypeError
        If ``value`` is not of the kind (or is a bool).
    ValueError
        If it is NaN, infinite or out of bounds; the message names the range.

    Examples
    --------
    >>> check_scalar(3, "rounds", int, low=1)
    3
    >>> check_scalar(0.5, "share", low=0.0, high=1.0, closed="neither")
    0.5
    """
    if kind not in (int, float):
        raise TypeError(f"kind must be int or float, got {kind!r}")
    wanted = numbers.Integral if kind is int else numbers.Real
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, wanted):
        article = "an integer" if kind is int else "a real number"
        raise TypeError(
            f"{name} must be {article}, got {_shown(value)} of type {type(value).__name__}"
        )
    if kind is int and low is None and high is None:
        low, high = 1, MAX_COUNT
    try:
        number = int(value) if kind is int else float(value)
    except OverflowError:  # an int beyond the float range: out of every float range
        number = math.inf if value > 0 else -math.inf
    left = low is None or (number >= low if closed in ("both", "left") else number > low)
    right = high is None or (number <= high if closed in ("both", "right") else number < high)
    if (kind is float and not math.isfinite(number)) or not (left and right):
        raise ValueError(f"{name} must be {_range(kind, low, high, closed)}, got {_shown(value)}")
    return number


def _range(kind: type, low: float | None, high: float | None, closed: str) -> str:
    """The allowed range in words, e.g. "a finite number in (0, 1]"."""
    what = "an integer" if kind is int else "a finite number"
    low, high = _bound_text(low), _bound_text(high)
    if low is None and high is None:
        return what
    if high is None:
        return f"{what} {'>=' if closed in ('both', 'left') else '>'} {low}"
    if low is None:
        return f"{what} {'<=' if closed in ('both', 'right') else '<'} {high}"
    opening = "[" if closed in ("both", "left") else "("
    closing = "]" if closed in ("both", "right") else ")"
    return f"{what} in {opening}{low}, {high}{closing}"


def _bound_text(bound: float | None) -> str | None:
    if bound is None:
        return None
    if bound == MAX_COUNT:
        return "2**53"
    return f"{bound:,}" if isinstance(bound, int) else f"{bound:g}"


def check_option(value: object, name: str, options: tuple) -> object:
    """Validate a choice from a fixed set of options (compared by equality).

    Raises
    ------
    ValueError
        Naming the options, if ``value`` is not one of them.

    Examples
    --------
    >>> check_option("spectral", "oracle", ("spectral", "alon-naor"))
    'spectral'
    """
    try:
        found = any(value == option and type(value) is type(option) for option in options)
    except (TypeError, ValueError):  # e.g. an array compared elementwise
        found = False
    if not found:
        shown = ", ".join(repr(option) for option in options)
        raise ValueError(f"{name} must be one of {shown}; got {_shown(value)}")
    return value
