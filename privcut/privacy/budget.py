"""Privacy budget accounting."""

from __future__ import annotations

import math
import threading
from fractions import Fraction

from privcut.exceptions import BudgetExceededError, PrivacyParameterError
from privcut.privacy.composition import PrivacyCost
from privcut.privacy.validation import as_real, check_delta, check_epsilon

__all__ = ["PrivacyBudget", "exact_split"]

SPLIT_SLACK = Fraction(1, 2**51)
"""Relative slack allowed past the total: the rounding error of splitting a float total into
floats such as ``total / k`` (each share rounds by at most 2**-53 of itself, so k shares sum
to at most ``total * (1 + 2**-53)``). No sequence of spends can exceed the total by more."""


def exact_split(epsilon: float, shares: tuple[float, ...]) -> tuple[float, ...]:
    """Epsilons proportional to ``shares`` whose exact sum (as rationals) is ``epsilon``,
    so a report's spends add up to its total with no rounding: each but the last is
    ``epsilon * share`` correctly rounded (the float product), the last the remainder.
    When that remainder is not a float, the others are rounded to multiples of
    ``math.ulp(epsilon)`` instead (a change of at most half of it each), so the remainder
    is a multiple too, at most epsilon: a float, exact.

    Parameters
    ----------
    epsilon : float
        The total.
    shares : tuple of float
        Positive fractions summing to 1 (up to rounding).

    Examples
    --------
    >>> parts = exact_split(0.3, (0.1, 0.3, 0.6))
    >>> sum(Fraction(part) for part in parts) == Fraction(0.3)
    True
    """
    whole = Fraction(epsilon)
    parts = [float(whole * Fraction(share)) for share in shares[:-1]]
    last = whole - sum(Fraction(part) for part in parts)
    if Fraction(float(last)) != last:
        quantum = Fraction(math.ulp(epsilon))
        parts = [float(round(whole * Fraction(share) / quantum) * quantum) for share in shares[:-1]]
        last = whole - sum(Fraction(part) for part in parts)
    return (*parts, float(last))


def _check_spend(value: object, name: str) -> float:
    number = as_real(value, name)
    if not math.isfinite(number) or number < 0.0:
        raise PrivacyParameterError(f"{name} to spend must be finite and >= 0, got {value!r}")
    return number


class PrivacyBudget:
    """A total (epsilon, delta) that mechanisms draw on by basic composition.

    Spends are summed exactly, as rationals, so floating-point rounding can
    never let many small spends drift past the total; the only slack is
    :data:`SPLIT_SLACK` (2**-51 of the total), which lets a total split into
    float shares such as ``total / 1000`` be spent in full. Safe to share
    between threads.

    Parameters
    ----------
    epsilon : float
        Total epsilon in (0, 100] (the rule of :func:`~privcut.privacy.check_epsilon`).
    delta : float, default 0.0
        Total delta in [0, 1).

    Examples
    --------
    >>> budget = PrivacyBudget(1.0, 1e-6)
    >>> budget.spend(0.25)
    PrivacyCost(epsilon=0.25, delta=0.0)
    >>> budget.remaining
    PrivacyCost(epsilon=0.75, delta=1e-06)
    """

    def __init__(self, epsilon: float, delta: float = 0.0) -> None:
        self._total = PrivacyCost(check_epsilon(epsilon), check_delta(delta))
        self._spent = (Fraction(0), Fraction(0))
        self._ledger: list[tuple[str | None, PrivacyCost]] = []
        self._lock = threading.Lock()

    @property
    def total(self) -> PrivacyCost:
        """The (epsilon, delta) this budget was created with."""
        return self._total

    @property
    def spent(self) -> PrivacyCost:
        """The (epsilon, delta) spent so far, by basic composition."""
        return PrivacyCost(float(self._spent[0]), float(self._spent[1]))

    @property
    def remaining(self) -> PrivacyCost:
        """What can still be spent: ``total - spent``, never negative."""
        eps, dlt = (
            max(Fraction(0), Fraction(t) - s) for t, s in zip(self._total, self._spent, strict=True)
        )
        return PrivacyCost(float(eps), float(dlt))

    @property
    def ledger(self) -> tuple[tuple[str | None, PrivacyCost], ...]:
        """Every accepted spend in order, as ``(label, PrivacyCost)``."""
        return tuple(self._ledger)

    def spend(self, epsilon: float, delta: float = 0.0, *, label: str | None = None) -> PrivacyCost:
        """Spend (epsilon, delta), or raise and leave the budget unchanged.

        Call it *before* computing the answer it pays for.

        Parameters
        ----------
        epsilon : float
            The epsilon to spend, finite and >= 0.
        delta : float, default 0.0
            The delta to spend, in [0, 1).
        label : str, optional
            What the spend is for, kept in :attr:`ledger`.

        Returns
        -------
        PrivacyCost
            The amount spent.

        Raises
        ------
        BudgetExceededError
            If the spend would take the total past the budget.
        PrivacyParameterError
            If epsilon or delta is invalid.
        """
        cost = PrivacyCost(_check_spend(epsilon, "epsilon"), check_delta(delta))
        with self._lock:
            after = tuple(s + Fraction(c) for s, c in zip(self._spent, cost, strict=True))
            limits = (Fraction(t) * (1 + SPLIT_SLACK) for t in self._total)
            if any(used > limit for used, limit in zip(after, limits, strict=True)):
                raise BudgetExceededError(
                    f"spending epsilon={cost.epsilon!r}, delta={cost.delta!r} would exceed the "
                    f"budget: only {self.remaining} of {self._total} remains; lower the request "
                    "or start from a larger budget"
                )
            self._spent = after
            self._ledger.append((label, cost))
        return cost

    def __repr__(self) -> str:
        eps, dlt = self.spent
        return (
            f"PrivacyBudget(epsilon={self._total.epsilon!r}, delta={self._total.delta!r}; "
            f"spent epsilon={eps!r}, delta={dlt!r})"
        )
