"""The projection mechanism (SU notes §3, PM notes Alg. 1; Nikolov, Talwar, Zhang 2013).

Release the Gaussian mechanism's answers, then replace them by the nearest
answers some dataset could have produced. Projection onto a closed convex set
that contains the true answers never increases the l2 error (SU notes §2.3),
and when the dataset is small relative to the number of queries it reduces it
dramatically (SU notes Thm 3.1).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import nnls

from privcut.linear.queries import QueryMatrix, answer_error, as_query_matrix, check_histogram
from privcut.linear.release import LinearRelease
from privcut.linear.size import count_budget, dataset_size
from privcut.privacy import Noise, check_beta, check_delta, check_epsilon
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_option

__all__ = ["project_answers", "projection_mechanism"]

CONSTRAINTS = ("cone", "count")
"""The feasible sets: the cone {Fx: x >= 0}, or with a count bound sum(x) <= N."""

GAP_TOLERANCE = 1e-9
"""The capped projection stops when its Frank–Wolfe duality gap (a certified bound on
``f(x) - f*``) is below this fraction of ``||noisy||^2``."""

MAX_STEPS = 50_000


def _cap(y: np.ndarray, total: float) -> np.ndarray:
    """Euclidean projection onto ``{x >= 0, sum(x) <= total}`` (Duchi et al. 2008 for the
    simplex face)."""
    x = np.maximum(y, 0.0)
    if x.sum() <= total:
        return x
    descending = np.sort(y)[::-1]
    cumulative = np.cumsum(descending) - total
    index = np.arange(1, y.size + 1)
    rho = np.flatnonzero(descending - cumulative / index > 0)[-1]
    return np.maximum(y - cumulative[rho] / (rho + 1), 0.0)


def _spectral_norm_squared(F: QueryMatrix, steps: int = 100) -> float:
    """An upper estimate of ``||F||_2^2`` by power iteration on ``F^T F`` (with 5% margin)."""
    vector = np.random.default_rng(0).standard_normal(F.m)
    value = 0.0
    for _ in range(steps):
        image = F.rmatmul(F @ vector)
        value = float(np.linalg.norm(image))
        if value == 0.0:
            return 1.0
        vector = image / value
    return 1.05 * value


def _capped_least_squares(
    F: QueryMatrix, noisy: np.ndarray, total: float
) -> tuple[np.ndarray, float]:
    """``argmin ||F x - noisy||^2`` over ``x >= 0, sum(x) <= total`` by FISTA with restarts.

    Returns the minimiser and its Frank–Wolfe duality gap, which bounds how far the
    objective is above the optimum.
    """
    step = 1.0 / (2.0 * _spectral_norm_squared(F))
    x = _cap(np.zeros(F.m), total)
    y, momentum, gap = x.copy(), 1.0, math.inf
    target = GAP_TOLERANCE * max(1.0, float(noisy @ noisy))
    for iteration in range(MAX_STEPS):
        gradient = 2.0 * F.rmatmul(F @ y - noisy)
        candidate = _cap(y - step * gradient, total)
        next_momentum = (1.0 + math.sqrt(1.0 + 4.0 * momentum**2)) / 2.0
        if np.dot(candidate - x, y - candidate) > 0.0:  # adaptive restart
            next_momentum, y = 1.0, candidate.copy()
        else:
            y = candidate + (momentum - 1.0) / next_momentum * (candidate - x)
        x, momentum = candidate, next_momentum
        if iteration % 20 == 0:
            at_x = 2.0 * F.rmatmul(F @ x - noisy)
            gap = float(at_x @ x - min(0.0, total * at_x.min()))
            if gap <= target:
                break
    return x, gap


def project_answers(
    F: object, noisy: object, *, total: float | None = None
) -> tuple[np.ndarray, np.ndarray, float]:
    """The nearest answers to ``noisy`` that some histogram could give.

    Parameters
    ----------
    F : QueryMatrix or array_like, shape (k, m)
        The queries.
    noisy : array_like, shape (k,)
        Noisy answers.
    total : float, optional
        ``None`` projects onto the cone ``{F x : x >= 0}`` (exactly, by NNLS);
        a number projects onto ``{F x : x >= 0, sum(x) <= total}`` (NNLS if its
        solution already fits, else FISTA to a certified duality gap).

    Returns
    -------
    answers : numpy.ndarray
        The projection ``F x``.
    x : numpy.ndarray
        A fractional histogram that gives them.
    gap : float
        Certified bound on the squared-distance suboptimality (0 when exact).

    Examples
    --------
    >>> answers, x, gap = project_answers(np.eye(2), [3.0, -1.0])
    >>> answers, gap
    (array([3., 0.]), 0.0)
    """
    F = as_query_matrix(F)
    noisy = np.asarray(noisy, dtype=float)
    x, gap = nnls(F.toarray(), noisy, maxiter=20 * F.m)[0], 0.0
    if total is not None and x.sum() > total:
        x, gap = _capped_least_squares(F, noisy, total)
    return F @ x, x, gap


def projection_mechanism(
    F: object,
    h: object,
    epsilon: float,
    delta: float,
    *,
    constraint: str = "cone",
    n_bound: float | None = None,
    count_share: float = 0.1,
    beta: float = 0.05,
    rng: RandomState = None,
) -> LinearRelease:
    """Gaussian noise, then projection onto the answers some dataset could give.

    Privacy: (epsilon, delta)-DP for count histograms differing in one element
    (PM notes Thm 3; SU notes §3). The first step is
    :func:`~privcut.linear.gaussian_mechanism`; the projection is post-processing
    and reads only public things: F, the noisy answers, and the size bound. An
    all-zero F answers zeros with no noise and no count (data-independent, as
    :func:`~privcut.linear.gaussian_mechanism` does).

    ``constraint="cone"`` projects onto ``{F x : x >= 0}``, which holds the truth
    for every dataset, so the l2 error is never larger than the Gaussian
    mechanism's on the same noise. ``constraint="count"`` projects onto the
    smaller set ``{F x : x >= 0, sum(x) <= N}``: ``N = n_bound`` if the caller
    gives a public bound on the dataset size, else ``N`` is a noisy count plus
    its (1 - beta) tail bound, bought with ``count_share * epsilon`` by the
    discrete Laplace mechanism (the dataset size is private and never read into
    a parameter; the Gaussian step then uses the rest, by basic composition).
    On the event that the truth fits (probability >= 1 - beta) the error again
    never exceeds the Gaussian step's, and SU notes eq. 50-55 bound it by
    ``sqrt(2 N sigma max_j ||F_j||_2 sqrt(2 ln 2m) / k)`` per query (RMS).

    Parameters
    ----------
    F : QueryMatrix or array_like, shape (k, m)
        The queries.
    h : array_like, shape (m,)
        The private count histogram.
    epsilon, delta : float
        Privacy parameters, epsilon > 0 and delta in (0, 1).
    constraint : {"cone", "count"}, default "cone"
        The set projected onto.
    n_bound : float, optional
        A public upper bound on ``sum(h)`` for ``constraint="count"``.
    count_share : float, default 0.1
        Share of epsilon spent on the noisy count when ``n_bound`` is not given.
    beta : float, default 0.05
        Failure probability of the count bound.
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.

    Returns
    -------
    LinearRelease
        ``expected_error`` is an upper bound here; ``details`` holds the Gaussian
        answers' noise, the size bound ``N``, the budget split and the
        projection's certified gap.

    Examples
    --------
    >>> F = np.random.default_rng(0).integers(0, 2, size=(2000, 64))
    >>> h = np.zeros(64, dtype=int); h[:5] = 10
    >>> release = projection_mechanism(F, h, 1.0, 1e-6, constraint="count", n_bound=50, rng=0)
    >>> release.expected_error < release.details["gaussian_error"]
    True
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, positive=True)
    beta = check_beta(beta)
    check_option(constraint, "constraint", CONSTRAINTS)
    n_bound, count_epsilon = count_budget(
        n_bound, count_share, epsilon, needed=constraint == "count", name="n_bound"
    )
    F = as_query_matrix(F)
    h = check_histogram(h, F.m, largest=F.l1_sensitivity)
    generator = check_random_state(rng)
    if not F.l2_sensitivity:  # every query is 0: data-independent, as the other mechanisms
        details = {"constraint": constraint, "noise": None}
        return LinearRelease(F @ h, epsilon, delta, "projection", 0.0, 0.0, beta, details=details)

    answer_epsilon = epsilon - count_epsilon
    noise = Noise.for_gaussian(
        answer_epsilon, delta, F.l2_sensitivity, integer=F.integer, coordinates=F.column_support
    )
    noisy = noise.add(
        F @ h, rng=generator, error=answer_error(F, h)
    )  # on a public grid when F is not integer
    total, tv = n_bound, noise.tv_bound(F.k)
    if constraint == "count":
        size = dataset_size(h, n_bound, count_epsilon, generator)
        total, tv = size.upper(beta), tv + size.sampler_tv
    answers, _, gap = project_answers(F, noisy, total=None if constraint == "cone" else total)

    gaussian_error = math.sqrt(noise.variance)
    expected_error = gaussian_error
    if constraint == "count":
        width = total * gaussian_error * F.l2_sensitivity * math.sqrt(2.0 * math.log(2.0 * F.m))
        width += total * noise.grid / 2.0 * F.l1_sensitivity  # the grid rounding, |r_i| <= g/2
        expected_error = min(gaussian_error, math.sqrt(2.0 * width / F.k))
    return LinearRelease(
        answers=answers,
        epsilon=epsilon,
        delta=delta,
        mechanism="projection",
        expected_error=expected_error,
        max_error=None,
        beta=beta,
        sampler_tv=tv,
        details={
            "constraint": constraint,
            "noise": noise.kind,
            "scale": noise.scale,
            "grid": noise.grid,
            "gaussian_error": gaussian_error,
            "n_bound": total,
            "epsilon_count": count_epsilon,
            "epsilon_answers": answer_epsilon,
            "projection_gap": gap,
        },
    )
