"""Noise calibration: the analytic Gaussian mechanism and the classical bound."""

from __future__ import annotations

import math

from scipy.optimize import brentq
from scipy.special import log_ndtr

from privcut.privacy.validation import check_delta, check_epsilon, check_sensitivity

__all__ = ["gaussian_delta", "gaussian_sigma", "gaussian_sigma_classical"]


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

    def excess(log_sigma: float) -> float:
        return _log_gaussian_delta(math.exp(log_sigma), epsilon, sensitivity) - math.log(delta)

    low = high = math.log(sensitivity / epsilon)
    while excess(low) <= 0.0:
        low -= 1.0
    while excess(high) > 0.0:
        high += 1.0
    sigma = math.exp(brentq(excess, low, high, xtol=1e-14, rtol=1e-15))
    # Round up until the condition holds with a relative margin of 1e-10, which covers the
    # floating-point error of evaluating the privacy curve.
    while _log_gaussian_delta(sigma, epsilon, sensitivity) > math.log(delta) - 1e-10:
        sigma *= 1.0 + 1e-12
    return sigma


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
