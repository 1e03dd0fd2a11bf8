"""SmallDB: the exponential mechanism over small synthetic databases.

Blum, Ligett, Roth 2008; Dwork & Roth 2014 §4.1 (Alg. 5); PM notes §1 item 3.
"""

from __future__ import annotations

import math

import numpy as np

from privcut.linear.queries import (
    as_query_matrix,
    check_histogram,
    histograms_of_size,
    max_entry,
)
from privcut.linear.release import LinearRelease
from privcut.linear.size import count_budget, dataset_size
from privcut.privacy import check_beta, check_epsilon
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.selection import exponential_mechanism
from privcut.privacy.validation import check_scalar

__all__ = ["MAX_CANDIDATES", "small_db"]

MAX_CANDIDATES = 200_000
"""Most candidate databases SmallDB will enumerate."""

_CHUNK = 4096


def small_db(
    F: object,
    h: object,
    epsilon: float,
    *,
    size: int | None = None,
    alpha: float = 0.5,
    n: float | None = None,
    count_share: float = 0.1,
    beta: float = 0.05,
    rng: RandomState = None,
) -> LinearRelease:
    """Answer linear queries with a small synthetic database chosen by the exponential mechanism.

    Candidates are all histograms y of ``size`` elements; each is scaled to the
    dataset size, ``(n_hat / size) y``, and scored by minus its largest query
    error, ``-max_i |F_i h - (n_hat / size) F_i y|``, which moves by at most
    ``max |F|`` when one element is added or removed. The exponential mechanism
    picks one, and its answers are released.

    Privacy: (epsilon, 0)-DP for count histograms differing in one element: the
    exponential mechanism (McSherry & Talwar 2007) with the rest of the budget
    after ``n_hat``, which is the caller's public ``n`` or a noisy count bought
    with ``count_share * epsilon`` (basic composition).

    An all-zero F answers zeros, exactly, with no selection and no count (nothing is
    read from ``h`` but its checks), as every mechanism of :mod:`privcut.linear` does:
    the release is 0-DP, recorded at the given ``epsilon`` (a bound, as always; a
    caller's budget may count it as free).

    Accuracy: some candidate has normalised error at most alpha when
    ``size >= ln(k) / alpha**2`` (Blum, Ligett, Roth 2008), and with probability
    1 - beta the chosen one is within ``2 max|F| (ln C + ln(1/beta)) / epsilon``
    of the best of the C candidates; ``details`` reports that selection slack.

    Parameters
    ----------
    F : QueryMatrix or array_like, shape (k, m)
        The queries (made dense).
    h : array_like, shape (m,)
        The private count histogram.
    epsilon : float
        Privacy parameter > 0.
    size : int, optional
        Elements in each candidate; default ``ceil(ln(k) / alpha**2)``.
    alpha : float, default 0.5
        Target normalised error that sets the default size.
    n : float, optional
        A public value for the dataset size; without it a noisy count is bought.
    count_share : float, default 0.1
        Share of epsilon for the noisy count when ``n`` is not given.
    beta : float, default 0.05
        Failure probability of the selection slack.
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.

    Returns
    -------
    LinearRelease

    Raises
    ------
    ValueError
        If there would be more than :data:`MAX_CANDIDATES` candidates, naming how
        many, before any data is read.

    Examples
    --------
    >>> release = small_db(np.eye(3), [5, 0, 5], 1.0, size=4, n=10, rng=0)
    >>> release.details["candidates"], release.details["synthetic"].sum()
    (15, np.float64(10.0))
    """
    epsilon = check_epsilon(epsilon)
    beta = check_beta(beta)
    alpha = check_scalar(alpha, "alpha", low=0.0, closed="neither")
    n, count_epsilon = count_budget(n, count_share, epsilon)
    query = as_query_matrix(F)
    if size is None:
        size = max(1, math.ceil(math.log(max(query.k, 2)) / alpha**2))
    size = check_scalar(size, "size", int)
    count = math.comb(query.m + size - 1, size)
    if count > MAX_CANDIDATES:
        raise ValueError(
            f"SmallDB would enumerate C({query.m} + {size} - 1, {size}) = {count:.3g} "
            f"candidate databases of {size} elements over a universe of {query.m}; the "
            f"limit is {MAX_CANDIDATES:,}. Use a smaller size (a larger alpha), or mwem"
        )
    h = check_histogram(h, query.m, largest=query.l1_sensitivity)
    dense = query.toarray()
    if not dense.any():  # every query is 0: zeros, data-independent, as the other mechanisms
        details = {"synthetic": None, "size": size, "candidates": count, "n_hat": None}
        details["epsilon_count"] = 0.0
        return LinearRelease(
            np.zeros(query.k), epsilon, 0.0, "small_db", 0.0, 0.0, beta, details=details
        )
    sensitivity = max_entry(dense)
    generator = check_random_state(rng)

    estimate = dataset_size(h, n, count_epsilon, generator)
    candidates = histograms_of_size(query.m, size)
    truth = dense @ h
    scale = estimate.value / size
    scores = np.concatenate(
        [
            -np.abs(scale * (candidates[start : start + _CHUNK] @ dense.T) - truth).max(axis=1)
            for start in range(0, count, _CHUNK)
        ]
    )
    select_epsilon = epsilon - count_epsilon
    chosen = exponential_mechanism(scores, select_epsilon, sensitivity, rng=generator)
    synthetic = scale * candidates[chosen]
    slack = 2.0 * sensitivity * (math.log(count) + math.log(1.0 / beta)) / select_epsilon
    return LinearRelease(
        answers=dense @ synthetic,
        epsilon=epsilon,
        delta=0.0,
        mechanism="small_db",
        expected_error=None,
        max_error=None,
        beta=beta,
        sampler_tv=estimate.sampler_tv,
        details={
            "synthetic": synthetic,
            "size": size,
            "candidates": count,
            "n_hat": estimate.value,
            "epsilon_count": count_epsilon,
            "selection_slack": slack,
        },
    )
