"""The dataset size: private under add/remove neighbours, so public or bought with noise."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privcut.privacy import Noise
from privcut.privacy.validation import check_positive, check_scalar

__all__ = ["SizeEstimate", "check_share", "count_budget", "dataset_size"]


@dataclass(frozen=True)
class SizeEstimate:
    """A public stand-in for the number of elements ``n = sum(h)``.

    Attributes
    ----------
    value : float
        The caller's public bound, or the noisy count (at least 1).
    epsilon : float
        The budget the estimate cost (0 for a public value).
    noise : Noise or None
        The noise of the estimate (``None`` for a public value).
    """

    value: float
    epsilon: float
    noise: Noise | None

    def upper(self, beta: float) -> float:
        """A bound that is at least n with probability 1 - beta (``value`` if public)."""
        if self.noise is None:
            return self.value
        return self.value + self.noise.max_error(1, beta)

    @property
    def sampler_tv(self) -> float:
        """Distance of the estimate's noise from exact (0 if public)."""
        return 0.0 if self.noise is None else self.noise.tv_bound(1)


def check_share(share: object, name: str) -> float:
    """Validate a share of epsilon named ``name``: a real number in (0, 1).

    Pass the name of the share being checked (``"rr_share"``, ...): it is the name the
    error message gives.

    Raises
    ------
    TypeError
        If ``share`` is not a real number (or is a bool).
    ValueError
        If it is NaN or outside (0, 1); the message names ``name``.

    Examples
    --------
    >>> check_share(0.1, "count_share")
    0.1
    """
    return check_scalar(share, name, low=0.0, high=1.0, closed="neither")


def count_budget(
    n: object, count_share: object, epsilon: float, *, needed: bool = True, name: str = "n"
) -> tuple[float | None, float]:
    """Validate a public size ``n`` and the budget a noisy count would take instead.

    Returns ``(n, count_epsilon)``: the validated public size (or ``None``), and
    ``count_share * epsilon`` when a size is ``needed`` but not given, else 0.
    """
    if n is not None:
        return check_positive(n, name), 0.0
    return None, check_share(count_share, "count_share") * epsilon if needed else 0.0


def dataset_size(
    h: np.ndarray, n: float | None, epsilon: float, generator: np.random.Generator
) -> SizeEstimate:
    """``n`` if the caller gave it (public), else ``sum(h)`` plus discrete Laplace noise.

    The noisy count is (epsilon, 0)-DP: adding or removing an element changes
    the count by 1. Call it with validated arguments, after every other check.
    """
    if n is not None:
        return SizeEstimate(float(n), 0.0, None)
    noise = Noise.for_laplace(epsilon, 1.0, integer=True)
    return SizeEstimate(max(1.0, float(h.sum() + noise.sample(rng=generator))), epsilon, noise)
