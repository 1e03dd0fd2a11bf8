"""Private selection: the exponential mechanism."""

from __future__ import annotations

import numpy as np

from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_epsilon, check_sensitivity

__all__ = ["exponential_mechanism"]


def exponential_mechanism(
    scores: object, epsilon: float, sensitivity: float, *, rng: RandomState = None
) -> int:
    """Pick an index with probability proportional to ``exp(epsilon * score / (2 sensitivity))``.

    Privacy: (epsilon, 0)-DP when every score changes by at most ``sensitivity``
    between neighbouring datasets (McSherry & Talwar 2007). Accuracy: with
    probability 1 - beta the chosen score is at least
    ``max(scores) - 2 sensitivity (ln(len(scores)) + ln(1/beta)) / epsilon``.

    Sampled by the Gumbel-max trick (``argmax(logit + Gumbel noise)``), which has
    exactly this distribution; scores are shifted by their maximum first, so
    large scores do not overflow.

    Parameters
    ----------
    scores : array_like of float
        One finite score per candidate (computed from the private data).
    epsilon : float
        Privacy parameter > 0.
    sensitivity : float
        Bound on how much any score moves between neighbours, > 0.
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.

    Returns
    -------
    int

    Examples
    --------
    >>> exponential_mechanism([0.0, 0.0, 50.0], epsilon=1.0, sensitivity=1.0, rng=0)
    2
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = check_sensitivity(sensitivity)
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 1 or scores.size == 0 or not np.all(np.isfinite(scores)):
        raise ValueError("scores must be a non-empty 1-D array of finite numbers")
    with np.errstate(over="ignore"):  # a gap beyond float range is a zero weight, as it should be
        logits = epsilon * (scores - scores.max()) / (2.0 * sensitivity)
    return int(np.argmax(logits + check_random_state(rng).gumbel(size=scores.size)))
