"""Composition theorems: what a sequence of private computations costs in all."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import NamedTuple

from privcut.exceptions import PrivacyParameterError
from privcut.privacy.validation import MAX_COUNT, check_delta, check_epsilon

__all__ = ["PrivacyCost", "advanced_composition", "basic_composition", "effective_delta"]


class PrivacyCost(NamedTuple):
    """An (epsilon, delta) pair: a guarantee, a spend, or what remains of a budget."""

    epsilon: float
    delta: float


def basic_composition(costs: Iterable[tuple[float, float]]) -> PrivacyCost:
    """The cost of running (epsilon_i, delta_i)-DP computations in sequence.

    Basic composition (Dwork, Kenthapadi, McSherry, Mironov, Naor 2006; Dwork
    & Roth 2014, Thm 3.16): the sequence, even chosen adaptively, is
    (sum epsilon_i, sum delta_i)-DP; delta is a probability, so the sum is capped at 1
    (a guarantee with delta 1 says nothing).

    Examples
    --------
    >>> basic_composition([(0.5, 0.0), (0.25, 1e-6)])
    PrivacyCost(epsilon=0.75, delta=1e-06)
    """
    checked = [(check_epsilon(eps), check_delta(dlt)) for eps, dlt in costs]
    return PrivacyCost(
        math.fsum(eps for eps, _ in checked), min(1.0, math.fsum(d for _, d in checked))
    )


def advanced_composition(epsilon0: float, delta0: float, k: int, delta_slack: float) -> PrivacyCost:
    """The cost of k adaptively chosen (epsilon0, delta0)-DP computations.

    Dwork, Rothblum, Vadhan 2010 (*Boosting and Differential Privacy*), the
    form used in GRU12 (Thm 2.4 and the proof of Thm 7.2): the k-fold
    composition is (epsilon', k delta0 + delta_slack)-DP with
    ``epsilon' = sqrt(2 k ln(1/delta_slack)) epsilon0 + k epsilon0 (e**epsilon0 - 1)``;
    delta is a probability, so it is capped at 1 (a guarantee with delta 1 says nothing).
    For small k, :func:`basic_composition`'s ``(k epsilon0, k delta0)`` can be smaller.

    Parameters
    ----------
    epsilon0 : float
        Each computation's epsilon > 0.
    delta0 : float
        Each computation's delta in [0, 1).
    k : int
        Number of computations, >= 1.
    delta_slack : float
        The extra delta' in (0, 1) that buys the square-root growth.

    Returns
    -------
    PrivacyCost

    Examples
    --------
    >>> cost = advanced_composition(0.01, 0.0, 1000, 1e-6)
    >>> round(cost.epsilon, 4), cost.delta
    (1.7628, 1e-06)
    """
    epsilon0 = check_epsilon(epsilon0, "epsilon0")
    delta0 = check_delta(delta0, "delta0")
    delta_slack = check_delta(delta_slack, "delta_slack", positive=True)
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= MAX_COUNT:
        raise PrivacyParameterError(f"k must be an integer in [1, 2**53], got {k!r}")
    epsilon = math.sqrt(2.0 * k * math.log(1.0 / delta_slack)) * epsilon0 + k * epsilon0 * (
        math.expm1(epsilon0)
    )
    return PrivacyCost(epsilon, min(1.0, k * delta0 + delta_slack))


def effective_delta(epsilon: float, delta: float, sampler_tv: float) -> float:
    """The delta that an (epsilon, delta)-DP mechanism run with samplers within total
    variation ``sampler_tv`` of exact actually guarantees: ``delta + (1 + e**epsilon)
    sampler_tv`` (each output probability moves by at most ``sampler_tv`` on either side),
    capped at 1: delta is a probability, and a guarantee with delta 1 says nothing (the
    slack reaches it from epsilon about 22 for the integer samplers' bounds).

    Examples
    --------
    >>> effective_delta(0.0, 0.0, 1e-9)
    2e-09
    >>> effective_delta(100.0, 0.0, 1e-40)
    1.0
    """
    return min(1.0, delta + (1.0 + math.exp(epsilon)) * sampler_tv)
