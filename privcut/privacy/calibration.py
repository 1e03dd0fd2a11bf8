"""Noise calibration: the analytic Gaussian mechanism and the classical bound."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.optimize import brentq, minimize_scalar
from scipy.special import log_ndtr

from privcut.exceptions import PrivacyParameterError
from privcut.privacy.validation import check_delta, check_epsilon, check_sensitivity

__all__ = [
    "discrete_gaussian_sigma",
    "gaussian_delta",
    "gaussian_sigma",
    "gaussian_sigma_classical",
    "zcdp_budget",
    "zcdp_delta",
]


def gaussian_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    """The smallest delta for which N(0, sigma**2) noise is (epsilon, delta)-DP.

    Balle & Wang 2018 (*Improving the Gaussian Mechanism for Differential
    Privacy*, Thm 8): adding N(0, sigma**2) to a query of l2 sensitivity
    Delta is (epsilon, delta)-DP if and only if
    ``Phi(Delta/(2 sigma) - epsilon sigma/Delta)
    - e**epsilon Phi(-Delta/(2 sigma) - epsilon sigma/Delta) <= delta``.
    Evaluated in log space, so it stays accurate for deltas down to 1e-300.

    Examples
    --------
    >>> round(gaussian_delta(3.73, 1.0), 7)
    1e-05
    """
    sigma = check_sensitivity(sigma, "sigma")
    epsilon = check_epsilon(epsilon)
    sensitivity = check_sensitivity(sensitivity)
    return math.exp(_log_gaussian_delta(sigma, epsilon, sensitivity))


def _log_gaussian_delta(sigma: float, epsilon: float, sensitivity: float) -> float:
    """``log`` of :func:`gaussian_delta`, for validated arguments (``-inf`` when it is 0)."""
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    log_first = float(log_ndtr(a - b))
    log_second = epsilon + float(log_ndtr(-a - b))
    ratio = -math.expm1(log_second - log_first)
    return log_first + math.log(ratio) if ratio > 0.0 else -math.inf


def gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest sigma for which the Gaussian mechanism is (epsilon, delta)-DP.

    This is the analytic Gaussian mechanism of Balle & Wang 2018 (Alg. 1): the
    exact privacy curve of :func:`gaussian_delta` is solved for sigma
    numerically, and the result is rounded *up*, so the returned sigma always
    satisfies the condition. It holds for every epsilon > 0, unlike the
    classical bound (:func:`gaussian_sigma_classical`), and is always smaller.

    Parameters
    ----------
    epsilon : float
        Privacy parameter > 0.
    delta : float
        Privacy parameter in (0, 1).
    sensitivity : float, default 1.0
        The query's l2 sensitivity > 0.

    Returns
    -------
    float

    Examples
    --------
    >>> round(gaussian_sigma(1.0, 1e-5), 2)
    3.73
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, positive=True)
    sensitivity = check_sensitivity(sensitivity)
    return sensitivity * _unit_gaussian_sigma(epsilon, delta)


@lru_cache(maxsize=256)
def _unit_gaussian_sigma(epsilon: float, delta: float) -> float:
    """:func:`gaussian_sigma` at sensitivity 1: the privacy curve depends on sigma / Delta
    only, so sigma scales linearly with the sensitivity."""

    def excess(log_sigma: float) -> float:
        return _log_gaussian_delta(math.exp(log_sigma), epsilon, 1.0) - math.log(delta)

    start = -math.log(epsilon)
    low = _step_until(lambda x: excess(x) > 0.0, start, -1.0, "epsilon", epsilon)
    high = _step_until(lambda x: excess(x) <= 0.0, start, 1.0, "delta", delta)
    sigma = math.exp(brentq(excess, low, high, xtol=1e-14, rtol=1e-15))
    # Round up until the condition holds with a relative margin of 1e-10, which covers the
    # floating-point error of evaluating the privacy curve.
    return _nudge(sigma, 1.0, lambda s: _log_gaussian_delta(s, epsilon, 1.0), delta)


MAX_STEPS = 200
"""Most steps of a bracketing or rounding search in the calibrations: each brackets a
log-scale range of one unit (or doubles a rounding step), so 200 steps cover every float."""


def _step_until(done, start: float, step: float, name: str, value: float) -> float:
    """The first ``start + i * step`` (i < MAX_STEPS) where ``done`` holds: a bounded search,
    raising PrivacyParameterError (naming ``name``) when the curve never gets there."""
    point = start
    try:
        for _ in range(MAX_STEPS):
            if done(point):
                return point
            point += step
    except OverflowError:  # exp(point) beyond the float range
        pass
    raise PrivacyParameterError(
        f"{name}={value!r} is outside the range the calibration can solve for; "
        "use epsilon in [1e-6, 100] and delta in [1e-300, 0.5]"
    )


def _nudge(value: float, direction: float, log_delta, delta: float) -> float:
    """Move ``value`` up (direction 1) or down (-1) by relative steps 1e-12, 2e-12, 4e-12,
    ... until ``log_delta(value)`` is below ``log(delta)`` with a margin of 1e-10: at most
    MAX_STEPS evaluations, each step at most halving or 1.5-folding the value."""
    step = 1e-12
    for _ in range(MAX_STEPS):
        if log_delta(value) <= math.log(delta) - 1e-10:
            return value
        value *= 1.0 + direction * step
        step = min(2.0 * step, 0.5)
    raise PrivacyParameterError(
        f"delta={delta!r} is outside the range the calibration can solve for; "
        "use delta in [1e-300, 0.5]"
    )


def gaussian_sigma_classical(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The classical Gaussian calibration ``sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon``.

    Dwork & Roth 2014 (*The Algorithmic Foundations of DP*, Thm 3.22) prove it
    only for epsilon < 1, and it is loose; it is here for comparison with
    :func:`gaussian_sigma`, which privcut's mechanisms use.

    Examples
    --------
    >>> round(gaussian_sigma_classical(1.0, 1e-5), 2)
    4.84
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, positive=True)
    sensitivity = check_sensitivity(sensitivity)
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def _log_zcdp_delta(rho: float, epsilon: float) -> float:
    """log of :func:`zcdp_delta` for validated arguments."""

    def log_delta(log_order_minus_one: float) -> float:
        order_minus_one = math.exp(log_order_minus_one)
        order = 1.0 + order_minus_one
        return (
            order_minus_one * (order * rho - epsilon)
            + order_minus_one * log_order_minus_one
            - order * math.log(order)
        )

    grid = np.linspace(-25.0, 25.0, 201)
    values = [log_delta(x) for x in grid]
    best = int(np.argmin(values))
    low, high = grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]
    refined = minimize_scalar(log_delta, bounds=(low, high), method="bounded")
    return min(0.0, values[best], float(refined.fun))


def zcdp_delta(rho: float, epsilon: float) -> float:
    """The delta for which a rho-zCDP mechanism is (epsilon, delta)-DP.

    Canonne, Kamath, Steinke 2020 (Prop. 12 with Rényi order alpha; zCDP gives
    Rényi divergence alpha * rho at every order): for every alpha > 1,
    ``delta = exp((alpha - 1)(alpha rho - epsilon)) / (alpha - 1) * (1 - 1/alpha)**alpha``
    works; this returns the smallest over a numerical search in alpha (any alpha
    gives a valid delta, so an imperfect search only loosens the bound).
    Tighter than the classical ``epsilon = rho + 2 sqrt(rho ln(1/delta))``.

    Examples
    --------
    >>> zcdp_delta(0.01, 1.0) < 1e-10
    True
    """
    rho = check_sensitivity(rho, "rho")
    epsilon = check_epsilon(epsilon)
    return math.exp(_log_zcdp_delta(rho, epsilon))


def zcdp_budget(epsilon: float, delta: float) -> float:
    """The largest rho for which rho-zCDP implies (epsilon, delta)-DP (by :func:`zcdp_delta`).

    Use it to split an (epsilon, delta) budget among Gaussian mechanisms by zCDP
    composition (rhos add up).

    Examples
    --------
    >>> round(zcdp_budget(1.0, 1e-5), 4)
    0.0306
    """
    return _largest_rho(check_epsilon(epsilon), check_delta(delta, positive=True))


def discrete_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest sigma for which discrete Gaussian noise is (epsilon, delta)-DP.

    The multivariate discrete Gaussian with parameter sigma, added to an integer
    query of l2 sensitivity Delta, is (Delta**2 / (2 sigma**2))-zCDP (Canonne,
    Kamath, Steinke 2020); :func:`zcdp_delta` converts that to (epsilon,
    delta). The result is rounded up so that the condition holds. It is 4-15%
    above the continuous :func:`gaussian_sigma` (8% at epsilon=1, delta=1e-5),
    the price of integer noise without floating-point leaks.

    Examples
    --------
    >>> round(discrete_gaussian_sigma(1.0, 1e-5), 2)
    4.05
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, positive=True)
    sensitivity = check_sensitivity(sensitivity)
    return sensitivity / math.sqrt(2.0 * _largest_rho(epsilon, delta))


@lru_cache(maxsize=256)
def _largest_rho(epsilon: float, delta: float) -> float:
    """The largest rho whose zCDP guarantee gives (epsilon, delta)-DP, rounded down."""

    def excess(log_rho: float) -> float:
        return _log_zcdp_delta(math.exp(log_rho), epsilon) - math.log(delta)

    start = math.log(epsilon)
    low = _step_until(lambda x: excess(x) <= 0.0, start, -1.0, "delta", delta)
    high = _step_until(lambda x: excess(x) > 0.0, start, 1.0, "epsilon", epsilon)
    rho = math.exp(brentq(excess, low, high, xtol=1e-13))
    return _nudge(rho, -1.0, lambda r: _log_zcdp_delta(r, epsilon), delta)
