"""MWEM: offline multiplicative weights with the exponential mechanism.

Hardt, Ligett, McSherry, *A Simple and Practical Algorithm for Differentially
Private Data Release* (NeurIPS 2012); PM notes §1 item 4; the multiplicative
weights update is GRU12 Alg. 5.
"""

from __future__ import annotations

import math

import numpy as np

from privcut.linear.queries import as_query_matrix, check_histogram, max_entry
from privcut.linear.release import LinearRelease
from privcut.linear.size import count_budget, dataset_size
from privcut.privacy import Noise, check_beta, check_epsilon
from privcut.privacy.noise import float_sum_error
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.selection import exponential_mechanism
from privcut.privacy.validation import check_scalar

__all__ = ["mwem"]


def mwem(
    F: object,
    h: object,
    epsilon: float,
    *,
    rounds: int = 10,
    n: float | None = None,
    count_share: float = 0.1,
    beta: float = 0.05,
    rng: RandomState = None,
) -> LinearRelease:
    """Answer linear queries with a synthetic histogram built by MWEM.

    Start from the uniform histogram of total ``n_hat``. Each round picks a badly
    answered query with the exponential mechanism (score ``|F_i A - F_i h|``,
    sensitivity ``max |F|``), measures it with Laplace noise, and reweights the
    synthetic histogram multiplicatively towards every measurement so far (the
    replay of Hardt, Ligett, McSherry's practical variant, free post-processing).
    The answers are those of the average of the rounds' histograms.

    Privacy: (epsilon, 0)-DP for count histograms differing in one element, by
    basic composition: the size ``n_hat`` is the caller's public ``n`` or a noisy
    count bought with ``count_share * epsilon`` (the size is private and never
    read into a parameter), and each of the ``rounds`` rounds spends half of its
    equal share of the rest on the selection and half on the measurement
    (Hardt, Ligett, McSherry 2012, Thm 2.1).

    An all-zero F answers zeros, exactly, with no noise and no count (nothing is read
    from ``h`` but its checks), as every mechanism of :mod:`privcut.linear` does: the
    release is 0-DP, recorded at the given ``epsilon`` (a bound, as always; a caller's
    budget may count it as free).

    Accuracy: for queries with entries in [0, 1] and a public ``n``, with
    probability at least ``1 - 2 rounds / k`` every answer is within
    ``2 n sqrt(ln m / rounds) + 10 rounds ln k / epsilon`` (their Thm 2.2);
    reported in ``details["theorem_bound"]``. No expected error is given.

    Parameters
    ----------
    F : QueryMatrix or array_like, shape (k, m)
        The queries (made dense).
    h : array_like, shape (m,)
        The private count histogram.
    epsilon : float
        Privacy parameter > 0.
    rounds : int, default 10
        Number of select-measure-update rounds T.
    n : float, optional
        A public value for the dataset size; without it a noisy count is bought.
    count_share : float, default 0.1
        Share of epsilon for the noisy count when ``n`` is not given.
    beta : float, default 0.05
        Kept for the release record.
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.

    Returns
    -------
    LinearRelease
        ``details`` holds the synthetic histogram, the queries measured, the size
        used and the budget split.

    Examples
    --------
    >>> F = np.random.default_rng(0).integers(0, 2, size=(50, 16))
    >>> release = mwem(F, np.arange(16), 1.0, rounds=5, n=120, rng=0)
    >>> release.details["synthetic"].sum().round(6), len(release.details["measured"])
    (np.float64(120.0), 5)
    """
    epsilon = check_epsilon(epsilon)
    beta = check_beta(beta)
    rounds = check_scalar(rounds, "rounds", int)
    n, count_epsilon = count_budget(n, count_share, epsilon)
    query = as_query_matrix(F)
    h = check_histogram(h, query.m, largest=query.l1_sensitivity)
    dense = query.toarray()
    if not dense.any():  # every query is 0: zeros, data-independent, as the other mechanisms
        details = {"synthetic": None, "measured": [], "n_hat": None, "epsilon_count": 0.0}
        return LinearRelease(
            np.zeros(query.k), epsilon, 0.0, "mwem", 0.0, 0.0, beta, details=details
        )
    sensitivity = max_entry(dense)
    generator = check_random_state(rng)

    size = dataset_size(h, n, count_epsilon, generator)
    round_epsilon = (epsilon - count_epsilon) / rounds
    noise = Noise.for_laplace(  # one answer per measurement: on a public grid if not integer
        round_epsilon / 2.0, sensitivity, integer=query.integer, coordinates=1
    )
    truth = dense @ h
    error = float_sum_error(h.size, float(h.sum()) * float(np.abs(dense).max(initial=0.0)))
    synthetic = np.full(query.m, size.value / query.m)
    log_weights = np.zeros(query.m)  # synthetic = size * softmax(log_weights), kept in logs
    average = np.zeros(query.m)
    measured = []
    for _ in range(rounds):
        errors = np.abs(dense @ synthetic - truth)
        chosen = exponential_mechanism(errors, round_epsilon / 2.0, sensitivity, rng=generator)
        measurement = float(noise.add(truth[chosen], rng=generator, error=error))
        measured.append((chosen, measurement))
        for index, value in measured:  # replaying past measurements is post-processing
            row = dense[index]
            log_weights += row * (value - row @ synthetic) / (2.0 * size.value)
            weights = np.exp(log_weights - log_weights.max())  # no overflow at tiny epsilon
            synthetic = size.value * weights / weights.sum()
        average += synthetic / rounds

    theorem_bound = 2.0 * size.value * math.sqrt(math.log(query.m) / rounds) + (
        10.0 * rounds * math.log(query.k) / epsilon
    )
    return LinearRelease(
        answers=dense @ average,
        epsilon=epsilon,
        delta=0.0,
        mechanism="mwem",
        expected_error=None,
        max_error=None,
        beta=beta,
        sampler_tv=rounds * noise.tv_bound(1) + size.sampler_tv,
        details={
            "synthetic": average,
            "measured": measured,
            "n_hat": size.value,
            "epsilon_count": count_epsilon,
            "epsilon_round": round_epsilon,
            "theorem_bound": theorem_bound,
            "theorem_failure_probability": min(1.0, 2.0 * rounds / query.k),
        },
    )
