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

    Sampled by the Gumbel-max trick (``argmax(logit + Gumbel noise)``); scores are
    shifted by their maximum first, so large scores do not overflow. With exact
    Gumbel draws this has exactly the mechanism's distribution; numpy's draws are not
    exact. Each is ``-log(-log U)`` with U uniform on the grid ``{j 2^-53 : 0 < j < 2^53}``,
    so it takes finitely many values in ``[-log(53 ln 2), 53 ln 2] = [-3.604, 36.737]``:

    * a candidate whose logit trails the best by more than ``53 ln 2 + ln(53 ln 2)
      = 40.34`` is never chosen (its exact probability is below ``e^-40.34 = 3.0e-18``),
      so the (epsilon, 0) claim holds for the exact sampler only; the implementation is
      (epsilon, delta)-DP with a delta of the order of the bound below;
    * the grid alone (exact arithmetic on the grid values) moves the choice's
      distribution by at most ``k 2^-52`` in total variation for k candidates: couple
      U' = ceil(2^53 U) / 2^53 with a continuous U (the rejection of U' = 1 costs
      ``k 2^-53``); candidate i's comparison with the best of the others flips only when
      U_i falls in the one grid cell holding that threshold (``2^-53`` each);
    * floating-point rounding of the logs and of ``logit + G`` (a few ulps of numbers
      below 64, about ``2^-45``) changes the choice only when two perturbed logits lie
      that close, of probability about ``k 2^-44 / e`` (the Gumbel density is at most
      1/e); this part is an estimate, not a proved bound.

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
