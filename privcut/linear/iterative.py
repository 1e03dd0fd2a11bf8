"""The Iterative Construction mechanism (GRU12 §7, Algorithm 3, Thm 7.2-7.3).

A private distinguisher proposes a query on which the hypothesis looks wrong; a
noisy answer checks it; if the hypothesis is off by at least 3 alpha / 4 the
iterative database construction is updated (at accuracy alpha / 2), else the
hypothesis is released. At most B(alpha / 2) rounds run, so the data are read
at most twice per round.

Accounting (``accountant``):

``"paper"``
    Thm 7.2: every access is epsilon0-DP with
    ``epsilon0 = epsilon / (4 sqrt(B log(1/delta)))`` (advanced composition of 2B
    pure accesses, Dwork, Rothblum & Vadhan 2010). Thm 7.2 is stated for
    epsilon, delta < 1, and even there its proof needs the composed
    ``sqrt(2k log(1/delta)) epsilon0 + k epsilon0 (e^epsilon0 - 1) <= epsilon`` (k
    accesses), which fails for delta near 1 or large epsilon: :func:`check_accountant`
    checks exactly that (at one round, the worst case: the bound falls as k grows)
    and refuses otherwise.
``"zcdp"`` (default)
    Each pure epsilon0 access is (epsilon0^2 / 2)-zCDP (Bun & Steinke 2016,
    Prop. 3.3) and a Gaussian step is Delta^2 / (2 sigma^2)-zCDP; the 2B accesses
    compose to ``B epsilon0^2``, which must not exceed the rho of (epsilon, delta)
    (Canonne, Kamath & Steinke 2020 conversion): ``epsilon0 = sqrt(rho / B)``,
    about 1.5x the paper's at delta = 1e-6. With delta = 0 it is basic composition,
    ``epsilon0 = epsilon / 2B``.

Accuracy (Thm 7.3, with the check's own tail): with probability 1 - beta every
check is within ``alpha / 4`` of the truth when ``alpha >= 4 eta`` (eta the
check noise's union bound over the rounds); the release is then alpha-accurate
for every query class member if the distinguisher finds, with probability
``1 - beta / 2B``, a query within ``F(epsilon0) <= alpha / 2`` of the worst one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from privcut.exceptions import PrivacyParameterError
from privcut.linear.online import solve_increasing
from privcut.privacy import Noise, check_beta, check_delta, check_epsilon
from privcut.privacy.calibration import zcdp_budget
from privcut.privacy.validation import check_option

__all__ = [
    "ACCOUNTANTS",
    "IterativeConstruction",
    "RoundRecord",
    "access_epsilon",
    "check_accountant",
]

ACCOUNTANTS = ("zcdp", "paper")


def access_epsilon(epsilon: float, delta: float, accesses: int, accountant: str) -> float:
    """The per-access epsilon0 that lets ``accesses`` pure epsilon0-DP accesses compose to
    (epsilon, delta) under ``accountant`` (see the module docstring).

    Examples
    --------
    >>> paper = access_epsilon(1.0, 1e-6, 20, "paper")
    >>> tight = access_epsilon(1.0, 1e-6, 20, "zcdp")
    >>> round(paper, 4), tight > paper
    (0.0213, True)
    """
    check_option(accountant, "accountant", ACCOUNTANTS)
    if delta == 0.0:
        return epsilon / accesses
    if accountant == "paper":  # 2B accesses: epsilon / (4 sqrt(B log(1/delta))), B = accesses/2
        return epsilon / (4.0 * math.sqrt(accesses / 2.0 * math.log(1.0 / delta)))
    return math.sqrt(2.0 * zcdp_budget(epsilon, delta) / accesses)


def check_accountant(
    epsilon: float, delta: float, accountant: str, accesses_per_round: int = 2
) -> None:
    """Refuse ``accountant="paper"`` where Thm 7.2's advanced composition does not give
    (epsilon, delta): its k accesses at ``epsilon0 = access_epsilon(...)`` compose to
    ``sqrt(2k log(1/delta)) epsilon0 + k epsilon0 (e^epsilon0 - 1)`` (Dwork, Rothblum &
    Vadhan 2010), which must not exceed epsilon. It decreases in k, so checking one round
    (``k = accesses_per_round``) covers every number of rounds, from public values only.

    Raises
    ------
    PrivacyParameterError
        Naming the condition and the fix (``accountant="zcdp"``, valid for every
        epsilon and delta).

    Examples
    --------
    >>> check_accountant(1.0, 1e-6, "paper")
    >>> check_accountant(0.5, 0.9, "paper")
    Traceback (most recent call last):
    ...
    privcut.exceptions.PrivacyParameterError: accountant='paper' (GRU12 Thm 7.2...
    """
    if accountant != "paper" or delta == 0.0:
        return
    k = accesses_per_round
    epsilon0 = access_epsilon(epsilon, delta, k, accountant)
    composed = math.sqrt(2.0 * k * math.log(1.0 / delta)) * epsilon0 + k * epsilon0 * math.expm1(
        epsilon0
    )
    if composed > epsilon:
        raise PrivacyParameterError(
            f"accountant='paper' (GRU12 Thm 7.2, stated for epsilon, delta < 1) does not "
            f"give (epsilon, delta) = ({epsilon:g}, {delta:g}): its advanced composition of "
            f"{k} accesses at epsilon0 = {epsilon0:.4g} is {composed:.4g}-DP, above epsilon; "
            "use accountant='zcdp', valid for every epsilon and delta"
        )


@dataclass
class RoundRecord:
    """One round: the proposed query, the check's noisy answer, the hypothesis's answer and
    whether it updated (all of it part of the release)."""

    query: object
    noisy_answer: float
    hypothesis_answer: float
    updated: bool


@dataclass
class IterativeConstruction:
    """Algorithm 3's loop and accounting, over any queries, construction and distinguisher.

    Parameters
    ----------
    epsilon, delta : float
        The budget of the rounds (distinguisher plus check, ``accesses_per_round``
        pure-equivalent accesses each).
    bound : callable
        ``B(alpha)``, the construction's update bound.
    sensitivity : float
        The queries' sensitivity (sets the check noise).
    beta : float
    accountant : {"zcdp", "paper"}
    accesses_per_round : int, default 2
        2 when the distinguisher reads the data each round, 1 when it does not.
    alpha : float, optional
        The target; default the smallest alpha with ``alpha >= 4 eta``.

    Examples
    --------
    >>> ic = IterativeConstruction(1.0, 1e-6, bound=lambda a: math.ceil(1e6 / a**2))
    >>> ic.rounds >= 1 and ic.alpha >= 4 * ic.check.max_error(ic.rounds, ic.beta / 2)
    True
    """

    epsilon: float
    delta: float
    bound: Callable[[float], int]
    sensitivity: float = 1.0
    beta: float = 0.05
    accountant: str = "zcdp"
    accesses_per_round: int = 2
    alpha: float | None = None
    records: list[RoundRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.epsilon = check_epsilon(self.epsilon)
        self.delta = check_delta(self.delta)
        self.beta = check_beta(self.beta)
        check_option(self.accountant, "accountant", ACCOUNTANTS)
        check_accountant(self.epsilon, self.delta, self.accountant, self.accesses_per_round)
        if self.alpha is None:
            self.alpha = self._solve_alpha()
        self.rounds = max(1, self.bound(self.alpha / 2.0))
        self.epsilon0 = self._epsilon0(self.rounds)
        self.check = Noise("discrete_laplace", self.sensitivity / self.epsilon0)

    def _epsilon0(self, rounds: int) -> float:
        return access_epsilon(
            self.epsilon, self.delta, self.accesses_per_round * rounds, self.accountant
        )

    def _eta(self, alpha: float) -> float:
        rounds = max(1, self.bound(alpha / 2.0))
        noise = Noise("discrete_laplace", self.sensitivity / self._epsilon0(rounds))
        return noise.max_error(rounds, self.beta / 2.0)

    def _solve_alpha(self) -> float:
        """The smallest alpha with alpha >= 4 eta(B(alpha / 2)) (increasing in alpha)."""
        return solve_increasing(lambda alpha: alpha - 4.0 * self._eta(alpha), 1e-6, 1.0)

    def run(
        self,
        distinguish: Callable[[int], object],
        answer: Callable[[object], float],
        construction,
        generator,
    ) -> bool:
        """Run the rounds; True if the check stopped it (the hypothesis passed), False if
        all B rounds were used. ``distinguish(t)`` proposes a query (privately),
        ``answer(q)`` is the exact data answer, read only to add the check noise."""
        for t in range(self.rounds):
            query = distinguish(t)
            noisy = answer(query) + float(self.check.sample(rng=generator))
            hypothesis = construction.evaluate(query)
            passed = abs(noisy - hypothesis) < 0.75 * self.alpha
            self.records.append(RoundRecord(query, noisy, hypothesis, not passed))
            if passed:
                return True
            construction.update(query, noisy)
        return False
