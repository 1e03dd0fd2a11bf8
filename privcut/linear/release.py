"""What a linear-query mechanism returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from privcut.privacy.composition import effective_delta
from privcut.records import Record

__all__ = ["LinearRelease"]


@dataclass(frozen=True)
class LinearRelease(Record):
    """Noisy answers to linear queries, with the privacy spent and the error promised.

    :meth:`to_dict` gives it as plain Python data (answers as a list, details plain), with
    ``effective_delta`` after ``sampler_tv``.

    Attributes
    ----------
    answers : numpy.ndarray
        Estimates of ``F @ h``, one per query.
    epsilon, delta : float
        The mechanism's privacy guarantee under add/remove-one neighbours.
    mechanism : str
        Which mechanism produced the answers.
    expected_error : float or None
        The root-mean-square error per query, ``sqrt(E ||answers - F h||^2 / k)``
        (SU notes eq. 5), computed without the data; ``None`` where the theory
        gives none.
    max_error : float or None
        A bound with ``P[max_i |answers_i - (F h)_i| > max_error] <= beta``;
        ``None`` where the theory gives none.
    beta : float
        The failure probability of ``max_error``.
    sampler_tv : float
        Bound on the total variation distance of the mechanism's integer noise (in grid
        units for real-valued answers, see :class:`~privcut.privacy.Noise`) from exact
        (0 for noise-free releases and the K-norm mechanism's continuous noise): the
        release is
        ``(epsilon, delta + (1 + e**epsilon) * sampler_tv)``-DP, see
        :attr:`effective_delta`.
    details : dict
        Mechanism-specific facts (noise kind and scale, strategy, budget shares).

    Examples
    --------
    >>> release = LinearRelease(np.array([3.0]), 1.0, 0.0, "laplace", 1.4, 4.2, 0.05)
    >>> release.to_dict()["answers"], release.to_dict()["effective_delta"]
    ([3.0], 0.0)
    """

    answers: np.ndarray
    epsilon: float
    delta: float
    mechanism: str
    expected_error: float | None
    max_error: float | None
    beta: float
    sampler_tv: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def effective_delta(self) -> float:
        """``delta`` plus the slack of the integer samplers' distance from exact."""
        return effective_delta(self.epsilon, self.delta, self.sampler_tv)

    def to_dict(self) -> dict[str, Any]:
        """The release as plain Python data, in field order, ``effective_delta`` included."""
        fields = super().to_dict()
        details = fields.pop("details")
        return {**fields, "effective_delta": self.effective_delta, "details": details}
