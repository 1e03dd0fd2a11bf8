"""Online query release with an iterative database construction (GRU12 Algorithm 1).

An analyst asks linear queries one at a time; each is answered from a public
hypothesis unless the data disagree with it by more than a threshold, in which
case a noisy answer is released and the hypothesis is updated (an iterative
database construction, :mod:`privcut.linear.idc`). At most B(alpha) updates are
ever needed, so the sparse-vector analysis below pays for B(alpha) noisy answers,
whatever the number of queries; for moderate query counts (and delta > 0) paying for
every comparison is cheaper, and the tight calibration takes whichever promises less.

Two calibrations, both fixed before the data are touched:

``"paper"``
    Exactly Algorithm 1: ``Z ~ Lap(sigma)`` on every answer with
    ``sigma = 1000 sqrt(B) log(4/delta) / epsilon``, threshold
    ``T = 4 sigma log(2k/beta)``, alpha from eq. (3), promised error ``5T/4``
    (Thm 4.1 for privacy, Thm 4.9 for accuracy). Discrete Laplace noise (the
    proof uses only the density ratio under integer shifts).
``"tight"``
    The smaller promise of two analyses, each fixed before the data are touched.

    *Composed* (delta > 0 only). Every data access compares the noisy answer
    ``Q(D) + Z_t``, ``Z_t ~ DGauss(sigma)`` with ``sigma = D sqrt(k / (2 rho))``, against
    the hypothesis, and releases it on an update (the paper's loop, with Gaussian noise
    and a different accounting). Privacy: the transcript is a post-processing of the k
    noisy answers (the hypothesis is a function of released outputs, so each query is
    D-sensitive given the past); each is ``D^2 / (2 sigma^2)``-zCDP (Canonne, Kamath &
    Steinke 2020), k of them compose adaptively to ``rho`` (Bun & Steinke 2016,
    Lemma 2.3), and ``rho = zcdp_budget(epsilon, delta - reserve)`` converts to
    (epsilon, delta - reserve) (Canonne, Kamath & Steinke 2020, Prop. 12); the
    ``reserve`` (:attr:`Calibration.sampler_reserve`) covers the integer samplers'
    distance from exact, so that the real samplers keep (epsilon, delta) for integer
    queries (:func:`~privcut.privacy.effective_delta`). Accuracy: with probability 1 - beta
    every ``|Z_t| <= eta`` (union bound over k draws); an update then happens only
    where ``|Q(D) - Q(D_t)| > T - eta = alpha_idc`` and releases an answer within
    ``eta < alpha_idc``; every other answer is within ``T + eta``, whatever the
    hypothesis. Neither privacy nor accuracy counts updates, so ``alpha_idc = eta + 1``,
    the promise is ``3 eta + 1``, every one of the k queries may update
    (``max_updates = k``), and the hypothesis may be updated by any rule that reads only
    released values (post-processing; :class:`~privcut.graph.CutOracle` keeps the
    hypothesis's degrees, see :class:`~privcut.graph.hypotheses.FactoredFriezeKannan`).

    *Sparse vector*. The same mechanism analysed as a sequence of at most B(alpha)
    AboveThreshold instances, each followed by one numeric answer (Dwork & Roth 2014,
    Alg. 3 NumericSparse, with the threshold/query noise split of Lyu, Su & Li 2017,
    Alg. 1 / Thm 2 with c = 1). Each instance compares
    ``|Q(D) - round(Q(D_t))| + nu_t`` against ``T + tau`` with ``tau ~ DLap(D/e1)``
    drawn once per instance and ``nu_t ~ DLap(2D/e2)`` fresh per query; it is
    (e1 + e2, 0)-DP for any adaptively chosen sequence of D-sensitive queries (the
    hypothesis depends only on released outputs, so ``|Q(D) - round(Q(D_t))|`` is
    D-sensitive). The instance ends at the first query above threshold; the
    threshold noise is then redrawn -- a new instance, accounted as such. The
    numeric answer gets discrete Laplace (delta = 0: pure composition of the
    instances and answers) or discrete Gaussian noise (delta > 0: each pure
    instance is (e^2/2)-zCDP, Bun & Steinke 2016 Prop. 3.3; zCDP composes and
    converts to (epsilon, delta) by Canonne, Kamath & Steinke 2020 Prop. 12).
    None of the broken variants of Lyu, Su & Li (no query noise, threshold noise
    reused across instances, outputting the noisy query value) is used.

Accuracy (sparse vector): beta is split among the threshold draws, the comparisons and
the answers (a few public splits are searched). With the threshold draws within
``eta_tau`` (union bound over B draws, two-sided) and every answer noise below
``alpha_idc``, a comparison fails in one direction only: given the past (which fixes
the gap ``g = |Q(D) - round(Q(D_t))|`` and the instance's ``tau``, independent of the
fresh ``nu_t``), an update with ``|Q(D) - Q(D_t)| < alpha_idc`` needs
``nu_t > T - alpha_idc - 1/2 - tau >= eta_nu`` and is possible only when
``g < alpha_idc + 1/2``; a non-update beyond ``alpha = T + eta_tau + eta_nu + 1/2``
needs ``nu_t < -eta_nu`` and is possible only when ``g > alpha - 1/2``. So each
comparison fails with probability at most ``P[nu > eta_nu] = P[|nu| > eta_nu] / 2``,
and the union bound over the k comparisons is one-sided. Then updates happen only
where the hypothesis is off by at least ``alpha_idc = T - eta_tau - eta_nu - 1/2``
with released answers within ``alpha_idc`` (Def. 3.1), so at most B(alpha_idc) occur,
and every answer is within ``alpha``. The threshold is chosen to minimise ``alpha``.

Where main's factor went (509a688; ``benchmarks/oracle_alpha.py``, RESULTS.md "Issue 20:
tighter guarantee"): on 1000 nodes (m = 499,500 pairs, D = 2), |E| = 16,064 from a
noisy count, 0.9 of (1, 1e-6), k = 1,403, beta = 0.0375, the sparse vector promised

======================  ========  =============================================
term                    value     from
======================  ========  =============================================
alpha_idc               16,083    B = m |E| D^2 / alpha_idc^2 = 123 updates
2 eta_tau               5,562     DLap(302) over B threshold draws, beta/3
2 eta_nu                8,862     DLap(381) over k comparisons, beta/3, two-sided
alpha                   30,508    alpha_idc + 2 (eta_tau + eta_nu) + 1
======================  ========  =============================================

Half is the update bound (the potential ``m |E|`` at sensitivity 2 is 3.2e10), half
the Laplace tails: each instance costs ``e^2/2`` for e = e1 + e2, the comparisons get
``(1 - 0.39) e / (2 D)`` of it and pay ``log(3 k / beta) = 11.6`` scales. The composed
analysis drops the threshold, the factor 2 and the split, pays Gaussian tails (``4.2
sigma``) and ``sqrt(k)`` instead of ``sqrt(B)``: 4,723 (0.15x; 4,761 with the sampler
reserve of review F3, whose reserve is 1.6e-7 of the 1e-6). At delta = 0 and for
large k (here from k = 45,140) the sparse vector stays: the one-sided union bound and
the searched shares and splits take 5% off (39,858 to 38,112 at delta = 0).
Tried and not kept (measured in the benchmark): composing the instances with the exact
Rényi curve of pure DP (randomised response's, the largest of any epsilon-DP mechanism,
Kairouz, Oh & Viswanath 2015) instead of ``e^2/2`` (0.4-3.5% off the sparse vector,
and a slow calibration); Zhu & Wang's (2020) Gaussian sparse vector, whose
``log(k_i) / (a - 1)`` per instance costs more than the composed analysis everywhere
measured (22,831 here).
Restricting queries to disjoint (S, T) would give sensitivity 1 and ``max ||c||^2 =
floor(n^2/4)`` instead of ``m D^2`` (:func:`frieze_kannan_bound`): 2,362 here.
"""

from __future__ import annotations

import math
import os
import threading
import warnings
import weakref
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np

from privcut.exceptions import PrivacyParameterError, PrivcutError
from privcut.linear.idc import FriezeKannan, Median, MultiplicativeWeights
from privcut.linear.queries import check_histogram
from privcut.linear.size import SizeEstimate, count_budget, dataset_size
from privcut.privacy import Noise, check_beta, check_delta, check_epsilon, effective_delta
from privcut.privacy.calibration import zcdp_budget
from privcut.privacy.noise import float_sum_error
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_option, check_positive, check_scalar

__all__ = [
    "NOISE_CHUNK",
    "Calibration",
    "OnlineRelease",
    "OracleExhaustedWarning",
    "ProcessGuard",
    "SamplerReserveWarning",
    "SparseVector",
    "calibrate",
    "check_alpha",
    "check_sparse_vector",
    "frieze_kannan_bound",
    "solve_increasing",
    "warn_exhausted",
]

CALIBRATIONS = ("tight", "paper")

NOISE_CHUNK = 256
"""Comparison draws made at once by :class:`SparseVector` (one vectorised call)."""
IDCS = ("frieze-kannan", "multiplicative-weights", "median")
_GRID = 400
"""Candidate IDC accuracies (log-spaced) tried by the tight calibration."""
_SHARES = (0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99)
"""Fractions of each round's budget given to the comparison (the rest to the answer, whose
noise need only stay below alpha_idc)."""
BETA_SPLITS = ((1 / 3, 1 / 3, 1 / 3), (0.4, 0.5, 0.1), (0.3, 0.6, 0.1), (0.5, 0.45, 0.05))
"""Splits of beta among the threshold draws, the comparisons and the answers."""
_RESERVE_ROUNDS = 20
"""Fixed-point rounds for the composed analysis's sampler reserve (it settles in two or
three)."""
_SPLIT = 1.0 / (1.0 + 2.0 ** (2.0 / 3.0))
"""Threshold share of a comparison's epsilon (Lyu, Su & Li 2017, Sec. 4.2, c = 1)."""


class ProcessGuard:
    """Tie an object that draws secret noise to the process that made it.

    After ``os.fork`` the child holds a copy of the parent's generator and
    sparse-vector state: its draws repeat the parent's, so an answer released by
    each process, for two different queries, differ by exactly the true
    difference (no privacy at all), and both would spend one budget. ``check``
    refuses any process but the owner; in a fork's child every live guard is also
    marked at once (``os.register_at_fork``), whatever its process id, and every
    open :class:`~privcut.files.StateFile` releases the child's copy of its lock
    descriptor.

    Examples
    --------
    >>> guard = ProcessGuard("this release")
    >>> guard.check()  # the process that made it: allowed
    >>> guard.pid == os.getpid()
    True
    """

    def __init__(self, what: str) -> None:
        self.what, self.pid, self.forked = what, os.getpid(), False
        _LIVE_GUARDS.add(self)

    def check(self) -> None:
        """Raise :class:`~privcut.exceptions.PrivcutError` outside the owning process."""
        if self.forked or os.getpid() != self.pid:
            raise PrivcutError(
                f"{self.what} belongs to process {self.pid}, not to this one "
                f"({os.getpid()}, a fork's child): its copy of the noise generator would "
                "repeat the parent's draws and reveal exact differences of answers; make a "
                "new one (or load its state once the parent has closed it) in this process"
            )


_LIVE_GUARDS: weakref.WeakSet = weakref.WeakSet()


def _stop_in_child() -> None:
    """After a fork, in the child: stop every guarded object (a
    :class:`~privcut.files.StateFile` drops the child's copies of its locks by its own hook)."""
    for guard in list(_LIVE_GUARDS):
        guard.forked = True


os.register_at_fork(after_in_child=_stop_in_child)


class OracleExhaustedWarning(UserWarning):
    """A query was answered from the hypothesis alone: the update or query budget is spent."""


class SamplerReserveWarning(UserWarning):
    """The composed calibration keeps no sampler reserve (it would take half of delta or
    more, e.g. for many queries, a large measured start or a small delta): the release's
    ``effective_delta`` exceeds its nominal delta by the samplers' distance from exact."""


@dataclass(frozen=True)
class Calibration:
    """Algorithm 1's parameters, all fixed before any data access.

    Attributes
    ----------
    name : str
        ``"tight"`` or ``"paper"``.
    alpha : float
        The promised maximum error over the first ``max_queries`` answers.
    alpha_idc : float
        The accuracy target the iterative construction is built with.
    max_updates : int
        Updates before the release stops using the data: B(alpha_idc) for the sparse
        vector and the paper (their privacy pays per update); ``max_queries`` for the
        composed analysis, whose privacy and accuracy hold for any number of updates.
    threshold : float
        T.
    comparison : Noise
        Paper and composed: the noise on every answer read from the data (compared, and
        released on an update); sparse vector: the fresh noise on each comparison.
    threshold_noise, answer : Noise or None
        Sparse vector only: the per-instance threshold noise and the numeric answers'
        noise; both None for the paper and composed calibrations.
    epsilon, delta, beta : float
        The guarantee of this part of the release and the failure probability of alpha.
    sampler_reserve : float
        Composed analysis: the part of ``delta`` its noise is not calibrated for, kept
        for the integer samplers' distance from exact (``(1 + e**epsilon') T`` for the
        total variation bound ``T`` of the earlier parts' draws and of ``max_queries``
        comparison draws, and the whole release's epsilon'), so that
        ``effective_delta(epsilon', delta - sampler_reserve, T) <= delta`` when every
        answer is an integer query's (fractional queries' grid noise is not covered).
        0 for the other calibrations, whose samplers' distance is reported as
        ``effective_delta``.
    """

    name: str
    alpha: float
    alpha_idc: float
    max_updates: int
    threshold: float
    comparison: Noise
    threshold_noise: Noise | None
    answer: Noise | None
    epsilon: float
    delta: float
    beta: float
    sampler_reserve: float = 0.0

    @property
    def composed(self) -> bool:
        """Whether this is the composed analysis (tight, no separate answer noise): every
        query's noisy answer is paid for, so the hypothesis may be updated by any rule
        that reads only released values (post-processing)."""
        return self.name == "tight" and self.answer is None

    def to_dict(self) -> dict:
        state = asdict(self)
        for key in ("comparison", "threshold_noise", "answer"):
            noise = getattr(self, key)
            state[key] = None if noise is None else [noise.kind, noise.scale]
        return state

    @classmethod
    def from_dict(cls, state: dict) -> Calibration:
        state = dict(state)
        for key in ("comparison", "threshold_noise", "answer"):
            state[key] = None if state[key] is None else Noise(*state[key])
        return cls(**state)


def solve_increasing(function: Callable[[float], float], low: float, high: float) -> float:
    """The smallest alpha >= low (to relative 1e-9) where an increasing function of alpha
    is >= 0, by doubling ``high`` and bisecting on log alpha.

    Examples
    --------
    >>> round(solve_increasing(lambda a: a * a - 2.0, 1e-6, 1.0), 6)
    1.414214
    """
    while function(high) < 0.0:
        high *= 2.0
    for _ in range(200):
        middle = math.sqrt(low * high)
        if function(middle) < 0.0:
            low = middle
        else:
            high = middle
        if high / low < 1.0 + 1e-9:
            break
    return high


def frieze_kannan_bound(potential: float, max_norm: float) -> Callable[[float], int]:
    """B(alpha) for Frieze–Kannan in answer units, for :func:`calibrate`'s ``bound``:
    ``alpha -> ceil(potential * max_norm / alpha**2)``.

    GRU12 Thm 5.1's potential argument with the query norm kept: for data x and
    hypothesis x_t (vectors over the universe), a query ``Q(x) = <c, x>`` with
    ``||c||^2 <= max_norm``, an update where ``|<c, x - x_t>| >= alpha`` and the step
    ``x_{t+1} = x_t + sign * (alpha / max_norm) c`` towards the (correctly signed) noisy
    answer lowers ``||x - x_t||^2`` by ``2 (alpha / max_norm) |<c, x - x_t>| -
    (alpha / max_norm)^2 ||c||^2 >= alpha^2 / max_norm``; so at most
    ``potential * max_norm / alpha^2`` updates happen from a start with
    ``||x - x_1||^2 <= potential``. Cut queries ``c_ij = u_i v_j + u_j v_i`` on the
    m vertex pairs of an undirected graph have ``max_norm = 4 m`` (S = T = V, sensitivity
    2, today's :func:`~privcut.graph.hypotheses.update_bound`); disjoint S, T have
    ``||c||^2 = |S||T| <= floor(n^2 / 4)`` and sensitivity 1.

    Parameters
    ----------
    potential : float
        A public bound on ``||x - x_1||^2`` (>= 0).
    max_norm : float
        A public bound on every query's ``||c||^2`` (> 0); the hypothesis must step by
        ``alpha / max_norm`` per unit of c for the bound to hold.

    Examples
    --------
    >>> bound = frieze_kannan_bound(16_064, 1000**2 // 4)
    >>> bound(2000.0)
    1004
    """
    potential = check_scalar(potential, "potential", low=0.0)
    max_norm = check_scalar(max_norm, "max_norm", low=0.0, closed="neither")
    return lambda alpha: math.ceil(potential * max_norm / alpha**2)


def _paper(bound, epsilon, delta, sensitivity, k, beta, alpha) -> Calibration:
    if delta <= 0.0:
        raise ValueError(
            "calibration='paper' is Algorithm 1, which needs delta > 0 (its sigma has "
            "log(4/delta)); use calibration='tight' for delta = 0"
        )
    log_terms = math.log(4.0 / delta)

    def sigma(a: float) -> float:
        return 1000.0 * sensitivity * math.sqrt(bound(a)) * log_terms / epsilon

    given = alpha is not None
    if alpha is None:  # eq. (3): alpha = 3000 sqrt(B(alpha)) log(4/delta) log(k/beta) / epsilon
        try:
            alpha = solve_increasing(
                lambda a: a - 3.0 * sigma(a) * math.log(max(k, 2) / beta), 1e-6, 1.0
            )
        except OverflowError:  # alpha**2 past float64: alpha about 1e154 or more
            raise PrivacyParameterError(
                f"epsilon too small: at epsilon={epsilon!r} calibration='paper' has no alpha "
                "within float64's range (its noise would swamp any answer); raise epsilon"
            ) from None
    threshold = 4.0 * sigma(alpha) * math.log(2.0 * k / beta)
    if not 4.0 * alpha / 3.0 <= threshold <= 2.0 * alpha:
        raise ValueError(
            f"Thm 4.9 needs T = {threshold:.4g} in [4 alpha / 3, 2 alpha] = "
            f"[{4 * alpha / 3:.4g}, {2 * alpha:.4g}], which fails for "
            f"{'this alpha' if given else 'the alpha of eq. (3)'} (max_queries={k}, "
            f"beta={beta}); use calibration='tight', or more queries or a smaller beta"
        )
    noise = Noise("discrete_laplace", sigma(alpha))
    return Calibration(
        "paper",
        1.25 * threshold,
        alpha,
        bound(alpha),
        threshold,
        noise,
        None,
        None,
        epsilon,
        delta,
        beta,
    )


def _tight_candidate(bound, alpha_idc, share, split, epsilon, delta, rho, sensitivity, k, beta):
    """The sparse-vector calibration for one IDC accuracy, one budget share and one split
    ``(threshold, comparison, answer)`` of the failure probability beta; None if invalid.
    The comparisons' union bound is one-sided (see the module docstring): ``max_error`` at
    twice the comparisons' share bounds each draw's upper tail by ``share / k``."""
    c = bound(alpha_idc)
    if c < 1:
        return None
    if delta > 0.0:
        round_epsilon = math.sqrt(2.0 * share * rho / c)
        answer_rho = (1.0 - share) * rho / c
        answer = Noise("discrete_gaussian", sensitivity / math.sqrt(2.0 * answer_rho))
    else:
        round_epsilon = share * epsilon / c
        answer = Noise("discrete_laplace", sensitivity / ((1.0 - share) * epsilon / c))
    threshold_noise = Noise("discrete_laplace", sensitivity / (_SPLIT * round_epsilon))
    comparison = Noise("discrete_laplace", 2.0 * sensitivity / ((1 - _SPLIT) * round_epsilon))
    beta_threshold, beta_comparison, beta_answer = (beta * part for part in split)
    eta = threshold_noise.max_error(c, beta_threshold) + comparison.max_error(
        k, 2.0 * beta_comparison
    )
    if answer.max_error(c, beta_answer) >= alpha_idc:
        return None
    threshold = alpha_idc + eta + 0.5
    return Calibration(
        "tight",
        threshold + eta + 0.5,
        alpha_idc,
        c,
        threshold,
        comparison,
        threshold_noise,
        answer,
        epsilon,
        delta,
        beta,
    )


def _composed_candidate(alpha_idc, epsilon, delta, sensitivity, k, beta, prior_tv, tv_epsilon):
    """The composed calibration (delta > 0) for one IDC accuracy, or the best one (just above
    the noise's union bound) for ``alpha_idc=None``; None if invalid.

    The integer samplers' distance from exact is paid from delta: the noise is calibrated
    for ``delta - reserve`` with ``reserve = (1 + e^tv_epsilon) (prior_tv + T_k)``, ``T_k``
    the total variation bound of k draws of the comparison noise: the release with exact
    samplers is (epsilon, delta - reserve)-DP and the real one, if its k answers are
    integer queries', is within ``prior_tv + T_k`` of it, so (epsilon, delta)-DP
    (:func:`~privcut.privacy.effective_delta`). A fractional query's grid noise draws
    integers at about ``1 / grid`` times the scale, whose bound is that many times larger
    (3.1e-8 a draw at sigma 374.5): not reserved (it would rule out the composed analysis),
    but counted in the release's ``sampler_tv``. ``T_k`` grows with sigma: the reserve is
    found by a fixed point (a few rounds). When it would take half of delta or more (from
    k = 2,968 at 0.9 of (1, 1e-6) and D = 2; 14,853 at delta = 1e-5; earlier for a small
    delta or a large ``prior_tv``, e.g. a measured start on 400,000 nodes), none is kept,
    as for the sparse vector: :func:`calibrate` then warns (:class:`SamplerReserveWarning`)
    and the samplers' distance is reported in the release's ``effective_delta``, above
    delta.
    """

    def noise(calibrated: float) -> Noise:
        rho = zcdp_budget(epsilon, calibrated)
        return Noise("discrete_gaussian", sensitivity * math.sqrt(k / (2.0 * rho)))

    factor = 1.0 + math.exp(tv_epsilon)
    calibrated: float | None = delta
    for _ in range(_RESERVE_ROUNDS):
        comparison = noise(calibrated)
        needed = factor * (prior_tv + comparison.tv_bound(k))
        if calibrated + needed <= delta:
            break
        calibrated = delta - needed
        if calibrated < delta / 2.0:
            break
    else:
        calibrated = None
    if calibrated is None or calibrated < delta / 2.0:  # no reserve fits: none is kept
        calibrated = delta
        comparison = noise(delta)
    # a fractional query's answer gets the grid noise of the same privacy: its bound too
    eta = max(comparison.max_error(k, beta), comparison.on_grid(sensitivity).max_error(k, beta))
    if alpha_idc is None:
        alpha_idc = eta + 1.0
    if eta >= alpha_idc:
        return None
    threshold = alpha_idc + eta
    return Calibration(
        "tight",
        threshold + eta,
        alpha_idc,
        k,  # every query may update: neither privacy nor accuracy counts updates here
        threshold,
        comparison,
        None,
        None,
        epsilon,
        delta,
        beta,
        delta - calibrated,
    )


def _tight(
    bound, epsilon, delta, sensitivity, k, beta, alpha, scale, prior_tv=0.0, tv_epsilon=None
) -> Calibration:
    rho = zcdp_budget(epsilon, delta) if delta > 0.0 else 0.0

    def best(targets, shares, splits) -> list[Calibration]:
        found = (
            _tight_candidate(bound, float(a), s, p, epsilon, delta, rho, sensitivity, k, beta)
            for a in targets
            for s in shares
            for p in splits
        )
        return [c for c in found if c is not None]

    if alpha is not None:
        candidates = best([alpha], _SHARES, BETA_SPLITS)
    else:  # the whole grid at one share and split, then every share and split near its best
        grid = np.geomspace(1e-3, 1e3, _GRID) * scale
        coarse = best(grid, _SHARES[3:4], BETA_SPLITS[:1])
        if coarse:
            near = min(coarse, key=lambda c: c.alpha).alpha_idc
            coarse += best(grid[(grid > near / 1.5) & (grid < near * 1.5)], _SHARES, BETA_SPLITS)
        candidates = coarse
    if delta > 0.0:
        composed = _composed_candidate(
            alpha,
            epsilon,
            delta,
            sensitivity,
            k,
            beta,
            prior_tv,
            epsilon if tv_epsilon is None else tv_epsilon,
        )
        candidates += [] if composed is None else [composed]
    if not candidates:
        raise ValueError(
            f"no tight calibration exists for alpha={alpha!r}: the answers' noise would "
            "exceed it; leave alpha=None to choose it"
        )
    return min(candidates, key=lambda c: c.alpha)


def calibrate(
    bound: Callable[[float], int],
    epsilon: float,
    delta: float,
    *,
    max_queries: int,
    beta: float = 0.05,
    calibration: str = "tight",
    sensitivity: float = 1.0,
    alpha: float | None = None,
    scale: float = 1.0,
    prior_tv: float = 0.0,
    tv_epsilon: float | None = None,
) -> Calibration:
    """Choose Algorithm 1's parameters from public values only.

    Parameters
    ----------
    bound : callable
        ``B(alpha)``, the iterative construction's update bound (non-increasing).
    epsilon, delta : float
        The budget of the online part.
    max_queries : int
        k, the number of answers the guarantee covers.
    beta : float
        Failure probability of the promised alpha.
    calibration : {"tight", "paper"}
        See the module docstring.
    sensitivity : float
        The queries' sensitivity (integer for integer data).
    alpha : float, optional
        The construction's accuracy target; default: the paper's eq. (3), or the
        value minimising the promised error (tight).
    scale : float
        A public size that centres the tight search (e.g. the largest answer).
    prior_tv, tv_epsilon : float
        For the composed analysis's reserve (:attr:`Calibration.sampler_reserve`): the
        samplers' total variation bound of the parts of the release drawn before this one
        (e.g. a noisy count; public: a function of the noise scales), and the whole
        release's epsilon (default ``epsilon``).

    Examples
    --------
    >>> bound = lambda a: math.ceil(1e8 / a**2)
    >>> tight = calibrate(bound, 1.0, 1e-6, max_queries=1000, scale=1e4)
    >>> paper = calibrate(bound, 1.0, 1e-6, max_queries=1000, calibration="paper")
    >>> tight.alpha < paper.alpha / 50
    True
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    beta = check_beta(beta)
    check_option(calibration, "calibration", CALIBRATIONS)
    if calibration == "paper":
        return _paper(bound, epsilon, delta, sensitivity, max_queries, beta, alpha)
    chosen = _tight(
        bound, epsilon, delta, sensitivity, max_queries, beta, alpha, scale, prior_tv, tv_epsilon
    )
    if chosen.composed and chosen.sampler_reserve == 0.0:  # public: the calibration's
        warnings.warn(
            f"the composed calibration keeps no sampler reserve at delta={delta:g}, "
            f"max_queries={max_queries} (it would take half of delta or more): the "
            "release's effective_delta exceeds delta by its samplers' distance from "
            "exact; give a larger delta or fewer max_queries to keep delta exact",
            SamplerReserveWarning,
            stacklevel=2,
        )
    return chosen


def check_alpha(
    alpha: float | None,
    epsilon: float,
    delta: float,
    *,
    max_queries: int,
    beta: float,
    calibration: str = "tight",
    sensitivity: float = 1.0,
) -> None:
    """Refuse, from public values only, an explicit ``alpha`` that no calibration can meet
    whatever the data and the measurements made before the calibration: call it before
    any budget is spent.

    The update bound B(alpha) that :func:`calibrate` reads may depend on a measurement
    (a noisy count, a measured start), but it is at least 1, and every calibration is
    easiest at B = 1: the sparse vector's answer noise grows with B, the paper's
    threshold ``T`` grows with ``sqrt(B)`` (Thm 4.9 needs ``T <= 2 alpha``), and the
    composed analysis does not read B. So an alpha that fails at B = 1 fails for every
    measurement. One that passes may still fail for a large measured B (then after the
    measurement's spend); ``alpha=None`` never fails.

    Parameters
    ----------
    alpha : float or None
        The requested accuracy target (None: nothing to check).
    epsilon, delta, max_queries, beta, calibration, sensitivity
        As for :func:`calibrate`: the online part's budget and failure probability.

    Raises
    ------
    ValueError
        Naming alpha, the smallest alpha any measurement could allow, and the fix; or
        that ``calibration="paper"`` needs delta > 0.

    Examples
    --------
    >>> check_alpha(1e5, 1.0, 1e-6, max_queries=100, beta=0.05)
    >>> check_alpha(1.0, 1.0, 1e-6, max_queries=100, beta=0.05)
    Traceback (most recent call last):
    ...
    ValueError: alpha=1.0 cannot be met whatever the data: ...
    """
    if calibration == "paper" and delta <= 0.0:
        _paper(lambda a: 1, epsilon, delta, sensitivity, max_queries, beta, alpha)  # its error
    if alpha is None:
        return
    alpha = check_positive(alpha, "alpha")

    def feasible(target: float) -> bool:
        if calibration == "paper":
            sigma = 1000.0 * sensitivity * math.log(4.0 / delta) / epsilon  # at B = 1
            return 4.0 * sigma * math.log(2.0 * max_queries / beta) <= 2.0 * target
        try:
            _tight(lambda a: 1, epsilon, delta, sensitivity, max_queries, beta, target, 1.0)
        except ValueError:
            return False
        return True

    if not feasible(alpha):
        smallest = solve_increasing(lambda a: 1.0 if feasible(a) else -1.0, alpha, 2.0 * alpha)
        raise ValueError(
            f"alpha={alpha!r} cannot be met whatever the data: even at the smallest update "
            f"bound the noise of calibration={calibration!r} needs alpha >= {smallest:.4g} "
            f"(max_queries={max_queries}, epsilon={epsilon:g}, delta={delta:g}); give a "
            "larger alpha, or leave alpha=None to choose it (checked before any budget is "
            "spent)"
        )


class SparseVector:
    """The data-touching loop of Algorithm 1 under a fixed :class:`Calibration`.

    ``step(true_answer, hypothesis_answer)`` reads the data through
    ``true_answer()`` only while updates remain; it returns the released answer
    and whether it was an update round. :class:`OnlineRelease` and
    :class:`~privcut.graph.CutOracle` run it; their ``sparse_vector`` argument (see
    :func:`check_sparse_vector`) lets a privacy audit substitute a subclass.

    Examples
    --------
    >>> calibration = calibrate(lambda a: 4, 1.0, 0.0, max_queries=10, scale=100.0)
    >>> engine = SparseVector(calibration, 10, np.random.default_rng(0))
    >>> engine.step(lambda: 0.0, 0.0)  # the hypothesis is right: no update
    (0.0, False)
    """

    def __init__(self, calibration: Calibration, max_queries: int, generator):
        self.calibration = calibration
        self.max_queries = int(max_queries)
        self.generator = generator
        self.queries_answered = 0
        self.updates = 0
        self.grid_draws = 0  # answers released with grid noise (fractional queries)
        self.threshold_draw = self._draw_threshold()
        self.pending = np.zeros(0, dtype=np.int64)  # comparison draws made ahead (secret)

    def _comparison_draw(self) -> float:
        """The next draw of the comparison noise. Draws are made :data:`NOISE_CHUNK` at a
        time (one vectorised call) and used in order: i.i.d. draws independent of the data
        and the queries, so the same law as one draw per query, and a one-by-one session
        and a batch consume them alike. The draws not yet used are secret state, kept with
        the threshold draw (:meth:`state`)."""
        if self.pending.size == 0:
            draws = self.calibration.comparison.sample(NOISE_CHUNK, rng=self.generator)
            self.pending = np.asarray(draws, dtype=np.int64)
        draw, self.pending = self.pending[0], self.pending[1:]
        return float(draw)

    def _draw_threshold(self) -> float:
        noise = self.calibration.threshold_noise
        return 0.0 if noise is None else float(noise.sample(rng=self.generator))

    @property
    def exhausted(self) -> bool:
        return (
            self.updates >= self.calibration.max_updates
            or self.queries_answered >= self.max_queries
        )

    @property
    def released_noise(self) -> Noise:
        """The noise whose draw is released with an update's answer: the comparison's when
        the calibration has no separate answer noise (paper and composed calibrations, which
        compare the noisy answer itself), else the answer's (sparse vector)."""
        calibration = self.calibration
        return calibration.comparison if calibration.answer is None else calibration.answer

    def sampler_tv(self, sensitivity: float = 1.0) -> float:
        """Bound on the total variation distance from exact of the integer noise this loop
        has drawn so far (as :attr:`~privcut.linear.LinearRelease.sampler_tv`): one
        comparison draw per query answered from the data, and per update an answer draw and
        a new threshold draw (sparse vector), counting the first threshold draw; the answers
        of fractional queries (at the public ``sensitivity`` they were released with) with
        their grid noise's bound. Public: a function of the calibration and the counts of
        answers, updates and grid draws, all released.

        Examples
        --------
        >>> calibration = calibrate(lambda a: 4, 1.0, 0.0, max_queries=10, scale=100.0)
        >>> engine = SparseVector(calibration, 10, np.random.default_rng(0))
        >>> before = engine.sampler_tv()
        >>> _ = engine.step(lambda: 0.0, 0.0)
        >>> engine.sampler_tv() >= before
        True
        """
        calibration, released = self.calibration, self.released_noise
        answers, on_grid, tv = self.queries_answered, self.grid_draws, 0.0
        if calibration.answer is not None:  # sparse vector: comparisons apart from answers
            tv += calibration.comparison.tv_bound(answers)
            answers = self.updates
        tv += released.tv_bound(answers - on_grid)
        tv += released.on_grid(sensitivity, 1).tv_bound(on_grid)
        if calibration.threshold_noise is not None:
            tv += calibration.threshold_noise.tv_bound(1 + self.updates)
        return tv

    def _release(self, answer: float, integer: bool, sensitivity: float, error: float) -> float:
        """``answer`` plus a draw of :attr:`released_noise`, or, when the query's answers are
        not integers (integer noise on a real answer would reveal its fractional part, and
        float noise its low-order bits, Mironov 2012), the answer on a public grid with grid
        noise of
        the same privacy at this ``sensitivity`` (:meth:`~privcut.privacy.Noise.on_grid`,
        one answer: scale times at most ``1 + 1/1024``)."""
        noise = self.released_noise
        if not integer:
            noise = noise.on_grid(sensitivity, 1)
            self.grid_draws += 1
        elif noise is self.calibration.comparison:  # paper, composed: integer noise, in order
            return float(answer) + self._comparison_draw()
        return float(noise.add(answer, rng=self.generator, error=error))

    def step(
        self,
        true_answer: Callable[[], float],
        hypothesis: float,
        *,
        integer: bool = True,
        sensitivity: float = 1.0,
        error: float = 0.0,
    ) -> tuple[float, bool]:
        """One query: compare, and release either the hypothesis or a noisy answer.
        ``integer`` declares (from the query alone) that every answer is an integer;
        ``sensitivity`` is the answers' (public) sensitivity, the one calibrated for.

        The tight calibration's comparison adds integer noise to a possibly real gap and
        releases only the comparison's outcome: AboveThreshold's shift argument (Lyu, Su,
        Li 2017) only needs shifts by the integer sensitivity, which stay on the integer
        noise's lattice, so real-valued gaps need no grid there. ``error`` bounds the float
        error of a real answer (:func:`~privcut.privacy.noise.float_sum_error`); one the
        grid noise is not calibrated for is refused before the data are read."""
        calibration = self.calibration
        if not integer:
            grid = self.released_noise.on_grid(sensitivity, 1).grid
            if not error <= grid / 4.0:
                raise ValueError(
                    "the query's floating-point error bound exceeds a quarter of the noise "
                    f"grid ({grid:g}); ask an integer query, or give a smaller public size bound"
                )
        answer = true_answer()
        self.queries_answered += 1
        if calibration.answer is None:  # paper or composed: compare the noisy answer
            noisy = self._release(answer, integer, sensitivity, error)
            if abs(noisy - hypothesis) <= calibration.threshold:
                return hypothesis, False
        else:
            gap = abs(answer - round(hypothesis))
            noise = self._comparison_draw()
            if gap + noise < calibration.threshold + self.threshold_draw:
                return hypothesis, False
            noisy = self._release(answer, integer, sensitivity, error)
        self.updates += 1
        if not self.exhausted:
            self.threshold_draw = self._draw_threshold()  # a new AboveThreshold instance
        return noisy, True

    def state(self) -> dict:
        return {
            "calibration": self.calibration.to_dict(),
            "max_queries": self.max_queries,
            "queries_answered": self.queries_answered,
            "updates": self.updates,
            "grid_draws": self.grid_draws,
            "threshold_draw": self.threshold_draw,
            "pending": self.pending.tolist(),
        }

    @classmethod
    def from_state(cls, state: dict, generator) -> SparseVector:
        engine = cls.__new__(cls)
        engine.calibration = Calibration.from_dict(state["calibration"])
        engine.max_queries = int(state["max_queries"])
        engine.generator = generator
        engine.queries_answered = int(state["queries_answered"])
        engine.updates = int(state["updates"])
        engine.grid_draws = int(state["grid_draws"])
        engine.threshold_draw = float(state["threshold_draw"])
        engine.pending = np.asarray(state["pending"], dtype=np.int64).reshape(-1)
        return engine


def check_sparse_vector(sparse_vector: object) -> type[SparseVector]:
    """The ``sparse_vector`` argument of :class:`OnlineRelease` and
    :class:`~privcut.graph.CutOracle`: :class:`SparseVector` or a subclass, else TypeError.

    A testing hook for privacy audits: an audit passes a deliberately broken subclass
    (e.g. one that compares without noise) as the broken twin it must catch. A real
    release keeps the default :class:`SparseVector`; the privacy claims hold for it
    alone, and any other class voids them.

    Examples
    --------
    >>> check_sparse_vector(SparseVector).__name__
    'SparseVector'
    """
    if not (isinstance(sparse_vector, type) and issubclass(sparse_vector, SparseVector)):
        raise TypeError(
            f"sparse_vector must be SparseVector (the default) or a subclass of it, got "
            f"{sparse_vector!r}; it is a testing hook for privacy audits"
        )
    return sparse_vector


def _idc_for_histogram(idc: str, m: int, n: float, k: int) -> tuple[Callable, Callable]:
    """``(bound, make)`` for an IDC on histograms with at most n elements (``||h||^2 <= n^2``
    for Frieze–Kannan). Multiplicative weights and median assume exactly n elements, so
    they get one more, slack, element that holds ``n - sum(h)`` and no query touches."""
    if idc == "frieze-kannan":
        return (
            lambda a: FriezeKannan(m, a, n * n).max_updates,
            lambda a: FriezeKannan(m, a, n * n),
        )
    if idc == "multiplicative-weights":
        return (
            lambda a: MultiplicativeWeights.updates_bound(m + 1, a, n),
            lambda a: MultiplicativeWeights(m + 1, a, n),
        )
    return (
        lambda a: Median.updates_bound(m + 1, a, n, k),
        lambda a: Median(m + 1, a, n, k),
    )


@lru_cache(maxsize=64)
def _histogram_calibration(
    idc: str,
    m: int,
    n: float,
    k: int,
    epsilon: float,
    delta: float,
    beta: float,
    calibration: str,
    alpha: float | None,
    prior_tv: float = 0.0,
    tv_epsilon: float | None = None,
) -> Calibration:
    """:func:`calibrate` for an IDC on histograms: public values only, so cached."""
    bound = _idc_for_histogram(idc, m, n, k)[0]
    return calibrate(
        bound,
        epsilon,
        delta,
        max_queries=k,
        beta=beta,
        calibration=calibration,
        alpha=alpha,
        scale=n,
        prior_tv=prior_tv,
        tv_epsilon=tv_epsilon,
    )


class OnlineRelease:
    """Answer linear queries on a count histogram one at a time (GRU12 Algorithm 1).

    Privacy: (epsilon, delta)-DP for add/remove-one-element neighbours over the
    whole adaptive transcript (Thm 4.1 for ``calibration="paper"``; the composed or
    sparse-vector analysis of the module docstring for ``"tight"``), plus, when ``n`` is not
    given, ``count_share * epsilon`` of it spent first on a noisy element count
    (basic composition). Queries must have entries in [-1, 1] (sensitivity 1;
    [0, 1] for the multiplicative weights and median constructions).

    Accuracy: ``.alpha`` bounds the error of the first ``max_queries`` answers
    with probability ``1 - beta`` (Thm 4.9, or the tight analysis), for any
    adaptively chosen queries.

    Fractional queries (an entry not an integer) are released on a public noise grid,
    which needs the answer's floating-point error
    (:func:`~privcut.privacy.noise.float_sum_error` of m terms of total magnitude ``n``)
    at most a quarter of the grid.
    That bound is computed from public values only: the public ``n`` (a histogram with
    more than ``n`` elements is refused at construction, before any spend), or without it
    the noisy count's upper bound (a released value; the float-error bound then holds on
    the same probability ``1 - beta/4`` event as the accuracy claim). When it exceeds a
    quarter of the grid (large ``n`` and m at a small epsilon), every fractional query is
    refused with a ``ValueError`` before the data are read, whatever the data; integer
    queries are always answered.

    Parameters
    ----------
    h : array_like
        The private count histogram.
    epsilon, delta : float
        The privacy budget.
    max_queries : int
        Answers covered by the guarantee; later ones come from the hypothesis alone.
    idc : {"frieze-kannan", "multiplicative-weights", "median"}
        The iterative database construction.
    n : float, optional
        A public upper bound on the number of elements; without it a noisy count
        buys one with ``count_share`` of epsilon.
    count_share : float, default 0.1
    alpha : float, optional
        The construction's accuracy target (default: solved, see :func:`calibrate`).
    beta : float, default 0.05
    calibration : {"tight", "paper"}
    rng : None, int or numpy.random.Generator
    sparse_vector : type, default SparseVector
        The class that runs the data-touching loop: a testing hook for privacy audits
        (:func:`check_sparse_vector`). Keep the default: the privacy claim above holds
        for :class:`SparseVector` only.

    Examples
    --------
    >>> h = np.array([400, 0, 250, 100])
    >>> release = OnlineRelease(h, 1.0, 1e-6, max_queries=50, n=1000, rng=0)
    >>> abs(release.answer([1, 1, 1, 1]) - 750) <= release.alpha
    True
    """

    def __init__(
        self,
        h: object,
        epsilon: float,
        delta: float = 0.0,
        *,
        max_queries: int,
        idc: str = "frieze-kannan",
        n: float | None = None,
        count_share: float = 0.1,
        alpha: float | None = None,
        beta: float = 0.05,
        calibration: str = "tight",
        rng: RandomState = None,
        sparse_vector: type[SparseVector] = SparseVector,
    ) -> None:
        epsilon, delta, beta = check_epsilon(epsilon), check_delta(delta), check_beta(beta)
        max_queries = check_scalar(max_queries, "max_queries", int)
        check_option(idc, "idc", IDCS)
        sparse_vector = check_sparse_vector(sparse_vector)
        n, count_epsilon = count_budget(n, count_share, epsilon)
        self.h = check_histogram(h, np.size(h))
        self._owner = ProcessGuard("this OnlineRelease")
        if n is not None and self.h.sum() > n:
            raise ValueError(
                "the histogram holds more elements than the public bound n; pass an n at "
                "least the number of elements (a public bound), or n=None to buy a noisy count"
            )
        check_alpha(  # public values only, before the noisy count's spend
            alpha,
            epsilon - count_epsilon,
            delta,
            max_queries=max_queries,
            beta=beta * (0.75 if n is None else 1.0),
            calibration=calibration,
        )
        generator = check_random_state(rng)
        size = dataset_size(self.h, n, count_epsilon, generator)  # spend before answering
        bound_n = size.upper(beta / 4.0) if size.noise is not None else size.value
        # A query's float error from the public bound only, never from sum(h): whether a
        # fractional query is refused must not depend on the private total.
        self._error = float_sum_error(self.h.size, bound_n)
        self.size: SizeEstimate = size
        self.calibration = _histogram_calibration(
            idc,
            self.h.size,
            bound_n,
            max_queries,
            epsilon - count_epsilon,
            delta,
            beta * (0.75 if size.noise is not None else 1.0),
            calibration,
            alpha,
            size.sampler_tv,
            epsilon,
        )
        make = _idc_for_histogram(idc, self.h.size, bound_n, max_queries)[1]
        self.idc = make(self.calibration.alpha_idc)
        self.epsilon, self.delta, self.beta = epsilon, delta, beta
        self._engine = sparse_vector(self.calibration, max_queries, generator)
        self._lock = threading.Lock()
        self._low = -1.0 if idc == "frieze-kannan" else 0.0

    alpha = property(lambda self: self.calibration.alpha, doc="The promised max error.")

    @property
    def sampler_tv(self) -> float:
        """Bound on the total variation distance of the integer noise drawn so far from
        exact: the noisy element count's (when ``n`` was not given) and the answering
        loop's (:meth:`SparseVector.sampler_tv`)."""
        return self.size.sampler_tv + self._engine.sampler_tv(1.0)

    @property
    def effective_delta(self) -> float:
        """The delta the transcript so far guarantees with the integer samplers' distance
        from exact, as :attr:`~privcut.graph.CutOracle.effective_delta`: ``delta'`` plus
        ``(1 + e**epsilon) * sampler_tv``, ``delta'`` being ``delta`` less the composed
        analysis's :attr:`Calibration.sampler_reserve` (``delta`` for the other
        calibrations); at most ``delta`` under the composed analysis with a reserve while
        every query is an integer query.

        Examples
        --------
        >>> release = OnlineRelease(np.array([5, 3]), 1.0, 1e-6, max_queries=4, n=10, rng=0)
        >>> _ = release.answer([1, 0])
        >>> 0.0 < release.effective_delta <= 1e-6
        True
        """
        reserve = self.calibration.sampler_reserve
        return effective_delta(self.epsilon, self.delta - reserve, self.sampler_tv)

    max_updates = property(lambda self: self.calibration.max_updates, doc="B(alpha).")
    queries_answered = property(lambda self: self._engine.queries_answered)
    updates = property(lambda self: self._engine.updates)
    exhausted = property(lambda self: self._engine.exhausted)

    def answer(self, query: object) -> float:
        """Answer one linear query (a vector of length m)."""
        try:
            vector = np.asarray(query, dtype=float)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"a query must be a vector of {self.h.size} real numbers") from None
        if vector.shape != self.h.shape:
            raise ValueError(f"a query must be a vector of length {self.h.size}")
        if vector.min(initial=0.0) < self._low or vector.max(initial=0.0) > 1.0:
            raise ValueError(f"query entries must lie in [{self._low:g}, 1] (sensitivity 1)")
        if self.idc.m > vector.size:  # the slack element
            vector = np.append(vector, 0.0)
        integer = bool(np.all(vector == np.round(vector)))
        self._owner.check()
        with self._lock:
            hypothesis = self.idc.evaluate(vector)
            if self._engine.exhausted:
                warn_exhausted()
                return hypothesis
            value, updated = self._engine.step(
                lambda: float(vector[: self.h.size] @ self.h),
                hypothesis,
                integer=integer,
                sensitivity=1.0,  # entries in [-1, 1], one element changes
                error=self._error,
            )
            if updated:
                self.idc.update(vector, value)
            return value


def warn_exhausted() -> None:
    """Warn (:class:`OracleExhaustedWarning`) that an answer came from the hypothesis alone,
    without a data access: the update or query budget is spent. Shared by
    :class:`OnlineRelease` and :class:`~privcut.graph.CutOracle`.

    Examples
    --------
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_exhausted()
    >>> caught[0].category.__name__
    'OracleExhaustedWarning'
    """
    warnings.warn(
        "answered from the hypothesis alone (no data access): the update or query budget "
        "is spent; the error promise covers only the first max_queries answers",
        OracleExhaustedWarning,
        stacklevel=3,
    )
