"""Exact power-of-two scaling for matrices with entries near float64's limit (~1.8e308).

Sums, squares and factorisations of such entries overflow, with NumPy's RuntimeWarning
and ``inf`` where the true value is finite (``sqrt(a**2 + b**2)`` for ``a = 1e308``).
Scaling every entry by the same power of two is exact (NumPy's ``ldexp``: only the
exponents change, unless an entry is far below the largest one and becomes subnormal),
so a quantity linear (or homogeneous) in the matrix is computed on the scaled matrix and
scaled back, or refused when it is itself beyond float64's range.
:func:`privcut.graph.cut_norm` and :class:`~privcut.linear.QueryMatrix` use this.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["HUGE", "scale_shift", "scaled", "unscaled"]

HUGE = 2.0**256
"""Entries beyond this in absolute value are scaled down (exactly) before sums, squares
or factorisations; up to it, ``k`` of them sum and square without overflow."""


def scale_shift(entries: np.ndarray) -> int:
    """The power of two to scale finite ``entries`` down by: 0 unless one exceeds
    :data:`HUGE`, else the exponent that brings the largest into [1/2, 1).

    Examples
    --------
    >>> scale_shift(np.array([1.0, -3.0])), scale_shift(np.array([1e308]))
    (0, 1024)
    """
    peak = float(np.abs(entries).max(initial=0.0))
    return 0 if peak <= HUGE else math.frexp(peak)[1]


def scaled(matrix: np.ndarray) -> tuple[np.ndarray, int]:
    """``matrix * 2**-shift`` (exactly) and ``shift`` (:func:`scale_shift`; the matrix
    itself when it is 0).

    Examples
    --------
    >>> small, shift = scaled(np.array([[1e308, -1e308]]))
    >>> small.tolist(), shift, unscaled(float(np.abs(small).max()), shift) == 1e308
    ([[0.5562684646268004, -0.5562684646268004]], 1024, True)
    """
    shift = scale_shift(matrix)
    return (np.ldexp(matrix, -shift), shift) if shift else (matrix, 0)


def unscaled(value: float, shift: int) -> float:
    """``value * 2**shift``, the value on the unscaled matrix of one computed on the
    scaled one (for a quantity linear in the matrix).

    Raises
    ------
    OverflowError
        If it is beyond float64's range; callers turn it into an error naming the
        quantity and the fix (rescale the input by 1 / c, multiply the result by c).

    Examples
    --------
    >>> unscaled(0.75, 4)
    12.0
    """
    return math.ldexp(value, shift) if shift else value
