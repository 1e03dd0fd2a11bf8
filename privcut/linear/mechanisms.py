"""Additive-noise mechanisms for linear queries: Laplace and Gaussian.

Neighbouring relation throughout: count histograms that differ by adding or
removing one element (one coordinate changes by 1), see
:mod:`privcut.linear.queries`.
"""

from __future__ import annotations

import math

import numpy as np

from privcut.linear.queries import QueryMatrix, answer_error, as_query_matrix, check_histogram
from privcut.linear.release import LinearRelease
from privcut.privacy import Noise, check_beta, check_delta, check_epsilon
from privcut.privacy.random import RandomState

__all__ = ["gaussian_mechanism", "laplace_mechanism"]


def _release(
    F: QueryMatrix,
    h: np.ndarray,
    noise: Noise | None,
    *,
    epsilon: float,
    delta: float,
    mechanism: str,
    beta: float,
    rng: RandomState,
) -> LinearRelease:
    """``F h`` plus independent noise per query (none for data-independent queries)."""
    exact = F @ h
    if noise is None:
        return LinearRelease(
            exact, epsilon, delta, mechanism, 0.0, 0.0, beta, details={"noise": None}
        )
    return LinearRelease(
        answers=noise.add(exact, rng=rng, error=answer_error(F, h)),
        epsilon=epsilon,
        delta=delta,
        mechanism=mechanism,
        expected_error=math.sqrt(noise.variance),
        max_error=noise.max_error(F.k, beta),
        beta=beta,
        sampler_tv=noise.tv_bound(F.k),
        details={"noise": noise.kind, "scale": noise.scale, "grid": noise.grid},
    )


def laplace_mechanism(
    F: object, h: object, epsilon: float, *, beta: float = 0.05, rng: RandomState = None
) -> LinearRelease:
    """Answer linear queries with Laplace noise scaled to their l1 sensitivity.

    Privacy: (epsilon, 0)-DP for count histograms differing in one element
    (Dwork, McSherry, Nissim, Smith 2006; GRU12 Thm 2.3). When every entry of
    F is an integer the answers are integers and the noise is discrete Laplace
    (Ghosh, Roughgarden, Sundararajan 2009), exact up to ``sampler_tv``; otherwise
    the answers are released on a public power-of-two grid with discrete Laplace noise
    in grid units, calibrated for the rounding's extra sensitivity (``F.column_support``
    answers move by at most one more grid step), so no floating-point bit leaks
    (Mironov 2012; see :class:`~privcut.privacy.Noise`); the scale grows by a factor at
    most ``1 + 1/1024`` and ``sampler_tv`` includes the grid noise's.

    Accuracy: each answer's error has variance at most ``2 b**2`` (b = the noise
    scale, about l1 sensitivity / epsilon; plus the rounding's at most
    ``(grid / 2)**2`` on the grid), and ``P[max error > b ln(k / beta)] <= beta``
    (union bound on exact tails; ``max_error`` is the discrete bound).

    Parameters
    ----------
    F : QueryMatrix or array_like, shape (k, m)
        The queries.
    h : array_like, shape (m,)
        The private count histogram (non-negative integers).
    epsilon : float
        Privacy parameter > 0.
    beta : float, default 0.05
        Failure probability of the reported ``max_error``.
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.

    Returns
    -------
    LinearRelease

    Examples
    --------
    >>> release = laplace_mechanism([[1, 1, 0], [0, 1, 1]], [5, 2, 7], epsilon=1.0, rng=0)
    >>> release.answers.shape, release.epsilon, release.details["noise"]
    ((2,), 1.0, 'discrete_laplace')
    """
    epsilon = check_epsilon(epsilon)
    beta = check_beta(beta)
    F = as_query_matrix(F)
    h = check_histogram(h, F.m, largest=F.l1_sensitivity)
    sensitivity = F.l1_sensitivity
    noise = (
        Noise.for_laplace(epsilon, sensitivity, integer=F.integer, coordinates=F.column_support)
        if sensitivity
        else None
    )
    return _release(
        F, h, noise, epsilon=epsilon, delta=0.0, mechanism="laplace", beta=beta, rng=rng
    )


def gaussian_mechanism(
    F: object,
    h: object,
    epsilon: float,
    delta: float,
    *,
    beta: float = 0.05,
    rng: RandomState = None,
) -> LinearRelease:
    """Answer linear queries with Gaussian noise scaled to their l2 sensitivity.

    Privacy: (epsilon, delta)-DP for count histograms differing in one element.
    The noise is the discrete Gaussian, calibrated through its zCDP guarantee
    (Canonne, Kamath, Steinke 2020), exact up to ``sampler_tv``. SU notes eq. 6
    and 16. When every entry of F is an integer it is added to the integer answers;
    otherwise the answers are released on a public power-of-two grid with the noise in
    grid units, calibrated at l2 sensitivity ``Delta_2 / grid + sqrt(F.column_support)``
    for the rounding, so no floating-point bit leaks (Mironov 2012; see
    :class:`~privcut.privacy.Noise`): sigma grows by a factor at most ``1 + 1/1024``
    over the discrete calibration (which is some 5-9% above the analytic continuous
    Gaussian's, Balle & Wang 2018, whose float release would leak).

    Accuracy: each answer's error has variance sigma**2 (at most, plus the rounding's
    ``(grid / 2)**2`` on the grid), and ``max_error`` bounds all k errors with
    probability 1 - beta.

    Parameters
    ----------
    F : QueryMatrix or array_like, shape (k, m)
        The queries.
    h : array_like, shape (m,)
        The private count histogram (non-negative integers).
    epsilon : float
        Privacy parameter > 0.
    delta : float
        Privacy parameter in (0, 1).
    beta : float, default 0.05
        Failure probability of the reported ``max_error``.
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.

    Returns
    -------
    LinearRelease

    Examples
    --------
    >>> release = gaussian_mechanism(np.eye(3), [5, 2, 7], 1.0, 1e-6, rng=0)
    >>> release.details["noise"], round(release.expected_error, 2)
    ('discrete_gaussian', 4.53)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, positive=True)
    beta = check_beta(beta)
    F = as_query_matrix(F)
    h = check_histogram(h, F.m, largest=F.l1_sensitivity)
    sensitivity = F.l2_sensitivity
    noise = (
        Noise.for_gaussian(
            epsilon, delta, sensitivity, integer=F.integer, coordinates=F.column_support
        )
        if sensitivity
        else None
    )
    return _release(
        F, h, noise, epsilon=epsilon, delta=delta, mechanism="gaussian", beta=beta, rng=rng
    )
