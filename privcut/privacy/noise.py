"""Noise samplers: continuous Laplace and Gaussian, integer discrete Laplace and Gaussian.

Integer data gets integer noise. Real-valued answers get *grid* noise (the
``"laplace"`` and ``"gaussian"`` kinds of :class:`Noise`): the answer is rounded to a
public grid ``gamma`` (a power of two) and discrete noise is added in grid units,
``gamma * (round(y / gamma) + Z)``, so the release is a function of an integer
mechanism's output and its low-order bits carry nothing about ``y`` (Mironov, *On
significance of the least significant bits for differential privacy*, CCS 2012, shows
that ``y + laplace(b)`` in IEEE floats does). :meth:`Noise.for_laplace` and
:meth:`Noise.for_gaussian` calibrate it; :meth:`Noise.add` releases with it. The raw
float samplers :func:`laplace` and :func:`gaussian` remain for callers that need
continuous draws, and are *not* safe to add to data.

The geometric and discrete Laplace samplers are exact and vectorised: a geometric draw is
``floor(scale E)`` for ``E = -log U``, by inversion of U's bits, decided in float64 where
its error bound makes the floor certain and in decimal arithmetic with more of U's bits
elsewhere (:func:`geometric`), so their law is the exact one (given float64's logarithm
within :data:`FLOAT_RTOL`, which the tests measure) and :func:`discrete_laplace_tv_bound`
is 0 up to float64 underflow (it bounds the law's mass beyond 2**53, below
``exp(-2**13)``). The discrete Gaussian's rejection step compares a uniform float with a
float64 acceptance probability (Canonne, Kamath, Steinke 2020, Algorithm 3, in floats): its
distance from exact is bounded, the bound proved in the docstring and the floating-point
claim it rests on checked by the tests, and :func:`discrete_gaussian_tv_bound` returns it.
A mechanism that is (epsilon, delta)-DP with exact noise is (epsilon, delta + (1 +
e^epsilon) * eta)-DP with noise at total variation distance eta from exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Context, Decimal, localcontext
from fractions import Fraction
from functools import lru_cache

import numpy as np
from scipy.optimize import brentq, minimize_scalar
from scipy.special import ndtri

from privcut.exceptions import PrivacyParameterError
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import (
    check_option,
    check_positive,
    check_scalar,
    epsilon_too_small,
)

__all__ = [
    "Noise",
    "discrete_gaussian",
    "discrete_gaussian_tv_bound",
    "discrete_laplace",
    "discrete_laplace_tv_bound",
    "float_sum_error",
    "gaussian",
    "geometric",
    "geometric_tv_bound",
    "laplace",
]

Size = None | int | tuple[int, ...]

GRID = 2.0**-53
"""Resolution of ``Generator.random()``: it returns ``k * GRID`` for uniform ``k < 2**53``."""

FLOAT_RTOL = 2.0**-48
"""Bound on the absolute error of the discrete Gaussian's acceptance probability as computed
in float64 (about 32 ulp; the tests measure the actual error against 40-digit arithmetic)."""

POINT_MASS_SIGMA = 1.0 / 32.0
"""Below this sigma the discrete Gaussian sampler returns 0: the exact law's mass off 0 is
below ``3 exp(-512)`` there (and sigma**2 may underflow, which the rejection loop needs)."""

MAX_SCALE = 2.0**40
"""Largest scale the integer samplers take: a draw then reaches 2**53, where float64 stops
holding integers exactly, with probability below ``exp(-2**13)``."""


def _check_scale(value: object, name: str) -> float:
    scale = math.inf if value == math.inf else check_positive(value, name)  # inf: 1 / tiny
    if scale > MAX_SCALE:
        raise PrivacyParameterError(
            f"{name} must be at most 2**40 for integer noise, got {value!r}; "
            "noise that large swamps any count, so raise epsilon"
        )
    return scale


def _check_sigma(value: object, name: str) -> float:
    """:func:`_check_scale` for a discrete Gaussian's sigma: below 2**40, so that its
    proposals' discrete Laplace scale ``floor(sigma) + 1`` is within the sampler's range."""
    sigma = _check_scale(value, name)
    if sigma >= MAX_SCALE:
        raise PrivacyParameterError(
            f"{name} must be below 2**40 for discrete Gaussian noise (its proposals' scale "
            f"floor(sigma) + 1 is at most 2**40), got {value!r}; noise that large swamps "
            "any count, so raise epsilon"
        )
    return sigma


MAX_DRAWS = 2**28
"""Most draws one sampler call makes (2 GiB of float64); draw larger arrays in pieces."""


def _check_size(size: object) -> tuple[int, ...]:
    """The output shape of a ``size`` argument: None, an int >= 0 or a tuple of them."""
    dimensions = () if size is None else size if isinstance(size, tuple) else (size,)
    for dimension in dimensions:
        if isinstance(dimension, (bool, np.bool_)) or not isinstance(dimension, (int, np.integer)):
            raise TypeError(
                f"size must be None, an int or a tuple of ints, got {size!r}; e.g. size=10"
            )
        if dimension < 0:
            raise ValueError(f"size must not be negative, got {size!r}")
    if math.prod(int(d) for d in dimensions) > MAX_DRAWS:
        raise ValueError(f"size {size!r} asks for more than 2**28 draws; draw in pieces")
    return tuple(int(d) for d in dimensions)


def laplace(scale: float, size: Size = None, *, rng: RandomState = None) -> np.ndarray:
    """Draw continuous Laplace noise with density ``exp(-|x| / scale) / (2 scale)``.

    With exact reals, adding ``laplace(sensitivity / epsilon)`` to a query of l1
    sensitivity ``sensitivity`` is (epsilon, 0)-DP (Dwork, McSherry, Nissim,
    Smith 2006; GRU12 Thm 2.3). **Not safe to add to data in floating point**:
    the low-order bits of ``y + laplace(b)`` reveal ``y`` (Mironov 2012). To release
    a real-valued answer use ``Noise.for_laplace(epsilon, sensitivity, integer=False,
    coordinates=c).add(y)`` (grid noise, see :class:`Noise`), and
    :func:`discrete_laplace` for counts. This raw sampler is for callers that need
    continuous draws that are never added to private values.

    Parameters
    ----------
    scale : float
        The scale b > 0 (standard deviation ``sqrt(2) * b``).
    size : int or tuple of int, optional
        Output shape; ``None`` returns a single float.
    rng : None, int or numpy.random.Generator, optional
        ``None`` draws from a cryptographically secure generator (use it for real
        releases); an int or Generator is reproducible, for tests only.

    Returns
    -------
    float or numpy.ndarray of float

    Examples
    --------
    >>> laplace(1.0, size=3, rng=0).shape
    (3,)
    """
    scale = check_positive(scale, "scale")
    shape = None if size is None else _check_size(size)
    return check_random_state(rng).laplace(0.0, scale, shape)


def gaussian(sigma: float, size: Size = None, *, rng: RandomState = None) -> np.ndarray:
    """Draw continuous Gaussian noise N(0, sigma**2).

    With exact reals, calibrate ``sigma`` with :func:`privcut.privacy.gaussian_sigma`.
    **Not safe to add to data in floating point**: the low-order bits of
    ``y + gaussian(sigma)`` reveal ``y`` (Mironov 2012). To release a real-valued
    answer use ``Noise.for_gaussian(epsilon, delta, sensitivity, integer=False,
    coordinates=c).add(y)`` (grid noise, see :class:`Noise`), and
    :func:`discrete_gaussian` for counts. This raw sampler is for callers that need
    continuous draws that are never added to private values.

    Parameters
    ----------
    sigma : float
        Standard deviation > 0.
    size : int or tuple of int, optional
        Output shape; ``None`` returns a single float.
    rng : None, int or numpy.random.Generator, optional
        ``None`` draws from a cryptographically secure generator (use it for real
        releases); an int or Generator is reproducible, for tests only.

    Returns
    -------
    float or numpy.ndarray of float

    Examples
    --------
    >>> gaussian(2.0, size=(2, 2), rng=0).shape
    (2, 2)
    """
    sigma = check_positive(sigma, "sigma")
    shape = None if size is None else _check_size(size)
    return check_random_state(rng).normal(0.0, sigma, shape)


_CHUNK = 2**15
"""Draws whose fast path (:func:`_certain`) runs at once: its dozen array passes then stay in
the CPU's cache."""


_FEW = 16
"""Calls of at most this many draws take the fast path in Python floats (``math.log``; a
tenth of the time of NumPy's calls on a few entries)."""


def _certain(wide, scale: float, log=np.log, floor=np.floor, maximum=np.maximum) -> tuple:
    """:func:`_geometric`'s fast path for the first 64 bits ``w`` of ``U``, given as floats
    ``wide`` (an array with NumPy's functions, or one Python float with ``math.log``,
    ``math.floor`` and ``max``): per draw, the floor of ``scale E`` (``E = -log U``) and
    whether it is certain. ``U`` lies in ``[w, w + 1) 2^-64``, so for ``w >= 1`` ``scale E``
    lies in ``(low*, low* + scale / w]`` with ``low* = -scale log((w + 1) 2^-64)``
    (``log((w + 1) / w) <= 1 / w``). The computed ``low`` is within ``error = 2 FLOAT_RTOL
    low + scale 2^-50`` of ``low*``: the logarithm's bound doubled, and the rounding of
    ``w`` to a float, of ``w + 1`` and of its scaling, below ``2^-52`` relative, which moves
    the logarithm by at most that much; the few roundings of the sums below are far inside
    that doubling. The floor is certain when ``low - error`` and ``low + error + scale / w``
    have the same (never for ``w = 0``: ``scale E`` is unbounded above)."""
    low = -scale * log((wide + 1.0) * 2.0**-64)
    error = low * (2.0 * FLOAT_RTOL) + scale * 2.0**-50
    bottom = floor(low - error)
    top = floor(low + error + scale / maximum(wide, 1.0))
    return bottom, (top == bottom) & (wide != 0.0)


def _exact_floor(w: int, scale: float, generator: np.random.Generator) -> int:
    """:func:`_geometric`'s exact path for one draw: ``floor(scale E)`` for ``E = -log U``,
    ``U`` uniform in ``[w, w + 1) 2^-64`` (its first 64 bits ``w``), in decimal arithmetic.
    With ``U`` in ``[a, b)`` (``a = num / 2^bits``), the floor is ``m`` when ``exp(-(m +
    1) / scale) < a`` and ``b <= exp(-m / scale)``; ``m`` is taken from the middle of the
    range, and both inequalities are checked with a relative margin far above the decimal
    arithmetic's error (correctly rounded ``exp`` and ``ln`` at ``digits`` digits, the
    exponent ``-m s / t`` of the rational ``scale = t / s`` divided once). Undecided (a
    bound ``exp(-m / scale)`` within the margin of the range), ``U``'s next 64 bits are
    drawn and the digits raised, until decided: with probability 1, since the range
    shrinks to a point that a.s. is no bound. Only bits of ``U`` are drawn, so the law of
    the floor is exact."""
    fraction = Fraction(scale)
    numerator, bits, digits = int(w), 64, 40
    while True:
        with localcontext(Context(prec=digits)):  # every operation at `digits`, whatever
            low = Decimal(numerator) / 2**bits  # the caller's decimal context
            high = Decimal(numerator + 1) / 2**bits
            inverse = Decimal(fraction.denominator) / fraction.numerator  # 1 / scale
            m = int(-((low + high) / 2).ln() / inverse)
            margin = 1 + Decimal(10) ** (12 - digits)
            below, above = (-(m + 1) * inverse).exp(), (-m * inverse).exp()
            if m >= 0 and below * margin < low and high * margin <= above:
                return m
        numerator = (numerator << 64) | int(_words(1, generator)[0])
        bits, digits = bits + 64, digits + 20


_TOP = np.uint64(2**64 - 1)

_FULL_WORDS = frozenset({"PCG64", "PCG64DXSM", "Philox", "SFC64", "AESCounter"})
"""Bit generators whose raw outputs are uniform 64-bit words (NumPy's, and randomgen's
AES-CTR of :func:`~privcut.privacy.random.secure_generator`); MT19937's have 32 bits."""


def _words(size: int, generator: np.random.Generator) -> np.ndarray:
    """``size`` uniform 64-bit words: the raw outputs of a :data:`_FULL_WORDS` bit generator
    (a tenth of ``Generator.integers``' call overhead), else ``Generator.integers``."""
    bits = generator.bit_generator
    if type(bits).__name__ in _FULL_WORDS:
        return bits.random_raw(size)
    return generator.integers(0, _TOP, size=size, endpoint=True, dtype=np.uint64)


def _geometric(scale: float, shape: tuple[int, ...], generator: np.random.Generator) -> np.ndarray:
    """Exact geometric draws on {0, 1, ...} with ``P(G >= m) = exp(-m / scale)``, int64:
    ``G = floor(scale E)`` for an exponential ``E = -log U``, by inversion with a certified
    floating-point path. ``U`` is uniform on (0, 1): its first 64 bits ``w`` are drawn (a
    uniform 64-bit word), the rest only when needed. Most draws' floor is certain from
    ``w`` and a float64 logarithm with its error bounded (:func:`_certain`); the others
    (about ``scale 2^-44`` of them: none in practice below scale 2^20, a few per cent at
    2^40) are decided exactly in decimal arithmetic with more of ``U``'s bits
    (:func:`_exact_floor`). So the law is the exact one, not within some distance of it
    (Mironov 2012 showed what floating-point noise can leak; the float sampler this
    replaces was within ``3.1e-14`` per unit of scale), as long as the float64 logarithm
    errs by at most :data:`FLOAT_RTOL` (measured against 40-digit arithmetic by the tests;
    about 32 ulp, NumPy's is within a few). O(size) time, as one float sampler.
    """
    size = math.prod(shape)
    if size <= _FEW:
        draws = []
        for w in _words(size, generator).tolist():
            floor, certain = _certain(float(w), scale, math.log, math.floor, max)
            draws.append(floor if certain else _exact_floor(w, scale, generator))
        return np.array(draws, dtype=np.int64).reshape(shape)
    draws = np.empty(size, dtype=np.int64)
    for at in range(0, size, _CHUNK):  # the words a chunk at a time: 8 bytes a draw
        w = _words(min(_CHUNK, size - at), generator)
        floor, certain = _certain(w.astype(float), scale)
        draws[at : at + w.size] = floor
        for where in np.flatnonzero(~certain):
            draws[at + where] = _exact_floor(w[where], scale, generator)
    return draws.reshape(shape)


def _geometric_tv_bound(scale: float) -> float:
    """The mass of the exact law where a :func:`_geometric` draw G would not be held
    exactly downstream: ``P(G >= 2**53) = exp(-2**53 / scale)`` (float64 holds the
    integers below 2**53; the sampler itself is exact). At most ``exp(-2**13)`` for every
    scale up to :data:`MAX_SCALE`: 0.0 in float64, a bound of 0 up to that underflow."""
    return math.exp(-(2.0**53) / scale)


def discrete_laplace_tv_bound(scale: float) -> float:
    """Bound on the total variation distance of :func:`discrete_laplace` from exact, as a
    mechanism's slack: the sampler is exact (the difference of two exact geometric draws),
    and the bound is the law's mass where a draw is not held exactly in float64
    downstream, ``2 exp(-2**53 / scale)``: 0.0 for every scale up to 2**40 (below
    ``exp(-2**13)``, which underflows).

    Examples
    --------
    >>> discrete_laplace_tv_bound(1.0), discrete_laplace_tv_bound(2.0**40)
    (0.0, 0.0)
    """
    return 2.0 * _geometric_tv_bound(_check_scale(scale, "scale"))


def discrete_laplace(scale: float, size: Size = None, *, rng: RandomState = None) -> np.ndarray:
    """Draw discrete Laplace (two-sided geometric) noise: ``P(x) ∝ exp(-|x| / scale)``.

    Adding ``discrete_laplace(sensitivity / epsilon)`` to an integer query of l1
    sensitivity ``sensitivity`` is (epsilon, 0)-DP (Ghosh, Roughgarden,
    Sundararajan 2009; Canonne, Kamath, Steinke 2020): the sampler is exact
    (:func:`discrete_laplace_tv_bound` is 0).

    The draw is ``G1 - G2`` for independent exact geometric draws (:func:`geometric`; the
    difference of two i.i.d. geometric variables is two-sided geometric), vectorised. The
    variance is ``2 q / (1 - q)**2`` with ``q = exp(-1 / scale)``. O(size) expected time,
    about that of a float sampler below scale 2**30 (benchmarks/RESULTS.md, "Exact discrete
    Laplace"); a few times more near 2**40, where a few per cent of the draws take the
    decimal path.

    Parameters
    ----------
    scale : float
        The scale t in (0, 2**40]; the variance is about ``2 t**2`` for large t.
    size : int or tuple of int, optional
        Output shape; ``None`` returns a single integer.
    rng : None, int or numpy.random.Generator, optional
        ``None`` draws from a cryptographically secure generator (use it for real
        releases); an int or Generator is reproducible, for tests only.

    Returns
    -------
    numpy.int64 or numpy.ndarray of numpy.int64

    Examples
    --------
    >>> draws = discrete_laplace(2.0, size=5, rng=0)
    >>> draws.dtype
    dtype('int64')
    """
    scale = _check_scale(scale, "scale")
    shape = _check_size(size)
    return _laplace_draws(scale, shape, check_random_state(rng))[()]


def geometric(scale: float, size: Size = None, *, rng: RandomState = None) -> np.ndarray:
    """Draw geometric noise on {0, 1, ...} with ``P(G >= k) = exp(-k / scale)``.

    The one-sided half of :func:`discrete_laplace` (which is the difference of two such
    draws), exact: ``floor(scale E)`` for ``E = -log U``, U uniform on (0, 1) drawn 64 bits
    at a time; the floor is decided in float64 where its error bound makes it certain, and
    in decimal arithmetic with more of U's bits elsewhere (:func:`geometric_tv_bound` is
    0). A
    discrete Laplace ``Z`` of this scale conditioned on ``Z >= t`` for an integer
    ``t >= 1`` is exactly ``t + G`` (its tail is geometric), which is how filtered
    randomized response draws the values of the pairs it keeps.

    Parameters
    ----------
    scale : float
        The scale in (0, 2**40]; the mean is ``q / (1 - q)`` with ``q = exp(-1 / scale)``.
    size : int or tuple of int, optional
        Output shape; ``None`` returns a single integer.
    rng : None, int or numpy.random.Generator, optional
        ``None`` draws from a cryptographically secure generator.

    Returns
    -------
    numpy.int64 or numpy.ndarray of numpy.int64

    Examples
    --------
    >>> bool((geometric(1.0, size=5, rng=0) >= 0).all())
    True
    """
    scale = _check_scale(scale, "scale")
    shape = _check_size(size)
    return _geometric(scale, shape, check_random_state(rng))[()]


def geometric_tv_bound(scale: float) -> float:
    """Bound on the total variation distance of one :func:`geometric` draw from exact, as
    a mechanism's slack: half of :func:`discrete_laplace_tv_bound`, 0.0 for every scale
    (the sampler is exact; the law's mass beyond 2**53, ``exp(-2**53 / scale)``,
    underflows).

    Examples
    --------
    >>> geometric_tv_bound(1.0) == discrete_laplace_tv_bound(1.0) / 2
    True
    """
    return _geometric_tv_bound(_check_scale(scale, "scale"))


def _acceptance_rate(sigma: float, t: int) -> float:
    """A lower bound on the acceptance rate of the discrete Gaussian's rejection loop.

    With proposal ``P(y) = tanh(1/(2t)) q**|y|`` (q = e^{-1/t}) and acceptance
    ``exp(-(|y| - sigma**2/t)**2 / (2 sigma**2))``, the cross terms cancel and the
    rate is ``tanh(1/(2t)) exp(-sigma**2 / (2 t**2)) sum_y exp(-y**2 / (2 sigma**2))``;
    the sum is at least ``max(1, sqrt(2 pi) sigma - 1)``.
    """
    gaussian_sum = max(1.0, math.sqrt(2.0 * math.pi) * sigma - 1.0)
    return math.tanh(0.5 / t) * math.exp(-(sigma**2) / (2.0 * t**2)) * gaussian_sum


def discrete_gaussian_tv_bound(sigma: float) -> float:
    """Bound on the total variation distance of :func:`discrete_gaussian` from exact.

    The rejection loop's proposal is within ``eta`` = :func:`discrete_laplace_tv_bound`
    of exact and each acceptance probability within ``xi = FLOAT_RTOL + GRID``. With
    ideal acceptance rate ``rho``, ``sum_y |p'(y) a'(y) - p(y) a(y)| <= 2 eta + xi``,
    and normalising by the actual rate (at least ``rho - 2 eta - xi``) gives a total
    variation distance of at most ``(2 eta + xi) / (rho - 2 eta - xi)``.

    Below ``sigma = POINT_MASS_SIGMA`` (1/32) the sampler returns 0: the exact law puts
    ``P(Z != 0) = 2 sum_{y>=1} e^{-y^2/(2 sigma^2)} / N <= 3 e^{-1/(2 sigma^2)}`` (below
    1e-222) elsewhere, and that is the distance.

    Examples
    --------
    >>> discrete_gaussian_tv_bound(3.0) < 1e-12
    True
    """
    sigma = _check_sigma(sigma, "sigma")
    if sigma < POINT_MASS_SIGMA:
        return max(3.0 * math.exp(-0.5 / sigma / sigma), math.ulp(0.0))
    t = math.floor(sigma) + 1
    slack = 2.0 * discrete_laplace_tv_bound(t) + FLOAT_RTOL + GRID
    return slack / (_acceptance_rate(sigma, t) - slack)


def discrete_gaussian(sigma: float, size: Size = None, *, rng: RandomState = None) -> np.ndarray:
    """Draw discrete Gaussian noise: ``P(x) ∝ exp(-x**2 / (2 sigma**2))`` on the integers.

    Adding independent draws to each coordinate of an integer query of l2
    sensitivity Delta is (1/2)(Delta/sigma)**2-zCDP (Canonne, Kamath, Steinke
    2020, *The Discrete Gaussian for Differential Privacy*); calibrate sigma for
    (epsilon, delta) with :func:`privcut.privacy.discrete_gaussian_sigma`. Up to
    the sampler's distance from exact, :func:`discrete_gaussian_tv_bound`.

    This is their Algorithm 3, vectorised: propose discrete Laplace with scale
    ``t = floor(sigma) + 1``, accept ``y`` with probability
    ``exp(-(|y| - sigma**2 / t)**2 / (2 sigma**2))``, and redraw the rejected
    entries. The acceptance rate is above 0.44 for every sigma (measured on a
    grid of sigma from 0.01 to 1e5; the proved bound used for the distance
    from exact is above 0.32), so the loop runs about log(size) rounds on
    shrinking arrays. Below sigma = 1/32 it returns 0 (the exact law's other mass is
    below 1e-222; :func:`discrete_gaussian_tv_bound` says so).

    Parameters
    ----------
    sigma : float
        The scale parameter in (0, 2**40) (the variance is slightly below sigma**2).
    size : int or tuple of int, optional
        Output shape; ``None`` returns a single integer.
    rng : None, int or numpy.random.Generator, optional
        ``None`` draws from a cryptographically secure generator (use it for real
        releases); an int or Generator is reproducible, for tests only.

    Returns
    -------
    numpy.int64 or numpy.ndarray of numpy.int64

    Examples
    --------
    >>> discrete_gaussian(3.0, size=4, rng=0).shape
    (4,)
    """
    sigma = _check_sigma(sigma, "sigma")
    shape = _check_size(size)
    generator = check_random_state(rng)
    if sigma < POINT_MASS_SIGMA:  # a point mass at 0 to within discrete_gaussian_tv_bound
        return np.zeros(shape, dtype=np.int64)[()]
    t = math.floor(sigma) + 1
    tau = sigma**2 / t
    draws = np.empty(shape, dtype=np.int64)
    flat = draws.reshape(-1)
    pending = np.arange(flat.size)
    while pending.size:
        proposal = _laplace_draws(float(t), (pending.size,), generator)
        acceptance = np.exp(-((np.abs(proposal) - tau) ** 2) / (2.0 * sigma**2))
        accepted = generator.random(pending.size) < acceptance
        flat[pending[accepted]] = proposal[accepted]
        pending = pending[~accepted]
    return draws[()]


def _laplace_draws(
    scale: float, shape: tuple[int, ...], generator: np.random.Generator
) -> np.ndarray:
    """Discrete Laplace draws of ``shape`` as int64 for a scale, shape and generator already
    checked: :func:`discrete_laplace`'s draws, and the discrete Gaussian's proposals."""
    if math.prod(shape) <= _CHUNK:  # one call: a few draws cost the call's overhead
        first, second = _geometric(scale, (2, *shape), generator)
        return first - second
    draws = _geometric(scale, shape, generator)  # two: 16 bytes a draw at the peak
    draws -= _geometric(scale, shape, generator)
    return draws


KINDS = ("laplace", "gaussian", "discrete_laplace", "discrete_gaussian")
_DISCRETE = {"laplace": "discrete_laplace", "gaussian": "discrete_gaussian"}
_GRIDDED = {value: key for key, value in _DISCRETE.items()}
_SAMPLERS = {"discrete_laplace": discrete_laplace, "discrete_gaussian": discrete_gaussian}

GRID_RATIO = 1024
"""The grid ``gamma`` of real-valued noise is the largest power of two with
``root * gamma <= min(scale, sensitivity) / GRID_RATIO`` (``root`` = 2c for Laplace,
2 sqrt(c) for Gaussian, c the coordinates one neighbour changes): the extra sensitivity
``root * gamma`` of rounding and float error then raises the scale by a factor at most
``1 + 1 / GRID_RATIO``, and the grid-unit scale is about ``GRID_RATIO * root *
max(1, scale / sensitivity)`` to twice that (the discrete Laplace is exact at any scale;
the discrete Gaussian's distance from exact, :func:`discrete_gaussian_tv_bound`, does not
grow with it)."""

MAX_GRID_SCALE = 2.0**39
"""Largest grid-unit scale chosen for real-valued noise (the grid is coarsened past it)."""


def _power_of_two_at_most(value: float) -> float:
    """The largest power of two ``<= value`` (value > 0, finite), exactly."""
    exponent = math.frexp(value)[1]  # value = mantissa * 2**exponent, mantissa in [.5, 1)
    return math.ldexp(1.0, exponent - 1)


def _is_power_of_two(value: float) -> bool:
    return value > 0.0 and math.isfinite(value) and math.frexp(value)[0] == 0.5


@lru_cache(maxsize=256, typed=True)
def _discrete_gaussian_moments(sigma: float) -> tuple[float, float]:
    """``(Var Z, E|Z|)`` of the discrete Gaussian below sigma 100 (from its truncated
    support), cached: they depend on the public sigma only."""
    support, probabilities = _discrete_gaussian_support(sigma)
    variance = float(probabilities @ support.astype(float) ** 2)
    return variance, float(probabilities @ np.abs(support).astype(float))


@lru_cache(maxsize=256, typed=True)
def _draw_tv_bound(kind: str, scale: float) -> float:
    """The sampler's distance from exact for one integer draw of ``kind`` at ``scale``,
    cached: it depends on the public scale only."""
    if kind == "discrete_laplace":
        return discrete_laplace_tv_bound(scale)
    return discrete_gaussian_tv_bound(scale)


def _discrete_gaussian_support(sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Support and probabilities of the discrete Gaussian, truncated where mass < 1e-30."""
    half_width = int(12.0 * sigma) + 12
    support = np.arange(-half_width, half_width + 1)
    weights = np.exp(-(support.astype(float) ** 2) / (2.0 * sigma**2))
    return support, weights / weights.sum()


def laplace_moments(scale: float, integer: bool) -> tuple[float, float]:
    """Variance and ``E|Z|`` of Laplace noise of scale b, discrete if ``integer``
    (``2q / (1 - q)^2`` and ``2q / (1 - q^2)`` with ``q = e^{-1/b}``), for any scale > 0
    (``inf`` where a moment is past float64's range, from a scale of about 1e150).

    Examples
    --------
    >>> laplace_moments(2.0, False)
    (8.0, 2.0)
    """
    scale = float(scale)
    if not integer:
        return 2.0 * scale * scale, scale  # inf, not OverflowError, past 1e154
    q, gap = math.exp(-1.0 / scale), -math.expm1(-1.0 / scale)
    if gap < 1e-150:  # gap**2 would underflow to 0: the variance is past float64's range
        return math.inf, 2.0 * q / (gap * (1.0 + q)) if gap > 0.0 else math.inf
    return 2.0 * q / gap**2, 2.0 * q / (gap * (1.0 + q))


def float_sum_error(terms: int, magnitude: float) -> float:
    """A bound on the floating-point error of a float64 sum of ``terms`` products whose
    absolute values add up to at most ``magnitude``, in any order (Higham 2002, eq. 3.5:
    ``gamma_{n+1} magnitude`` with ``gamma_k = k u / (1 - k u)``, ``u = 2^-53``).

    Examples
    --------
    >>> float_sum_error(1, 1.0) < 1e-15
    True
    """
    k = (float(terms) + 1.0) * 2.0**-53
    return math.inf if k >= 0.5 else k / (1.0 - k) * float(magnitude)


@dataclass(frozen=True)
class Noise:
    """Additive noise of one of the four kinds: how to draw it and how large it is.

    Mechanisms describe their noise with this object so that the error they
    report (:attr:`variance`, :meth:`max_error`) and the sampler's distance from
    exact (:meth:`tv_bound`) come from the same place as the draws, and release
    with :meth:`add`.

    ``"discrete_laplace"`` and ``"discrete_gaussian"`` are integer noise for integer
    answers. ``"laplace"`` and ``"gaussian"`` are *grid* noise for real-valued answers:
    with ``gamma = grid`` (a public power of two), :meth:`add` releases
    ``gamma * (round(y / gamma) + Z)`` with ``Z`` discrete Laplace / discrete Gaussian of
    scale ``scale / gamma`` in grid units. The release is a deterministic function of the
    integer ``round(y / gamma) + Z`` (IEEE addition and scaling by a power of two are
    exact or correctly rounded functions of it), so it is post-processing of an integer
    mechanism and no floating-point bit carries more about ``y`` (the Mironov 2012 attack
    on ``y + laplace(b)`` does not apply). Rounding adds sensitivity: the mechanism
    computes float answers a', b' within ``error <= g / 4`` of the exact a, b
    (:meth:`add` refuses a larger stated ``error``), so
    ``|round(a'_i / g) - round(b'_i / g)| <= |a_i - b_i| / g + 2`` on each of the at most
    c coordinates that differ, and the grid-unit l1 sensitivity is ``Delta / g + 2c``,
    the l2 one ``Delta_2 / g + 2 sqrt(c)``; :meth:`for_laplace` and :meth:`for_gaussian`
    calibrate ``Z`` for that (see :data:`GRID_RATIO` for the grid).
    The privacy is then the discrete mechanism's, (epsilon, 0)-DP (Ghosh, Roughgarden,
    Sundararajan 2009) or zCDP (Canonne, Kamath, Steinke 2020), up to the sampler's
    distance from exact, :meth:`tv_bound`. Each mechanism states a bound on its answers'
    floating-point error (:func:`float_sum_error`), from public values where it can (graph
    paths: the number of pairs summed) and otherwise from the data's domain (linear
    mechanisms: ``|h|_1 max|F|``, refused beyond it like counts above 2^53).

    Parameters
    ----------
    kind : {"laplace", "gaussian", "discrete_laplace", "discrete_gaussian"}
    scale : float
        The Laplace scale b, or the Gaussian sigma, in answer units.
    grid : float, optional
        The grid gamma of the ``"laplace"`` and ``"gaussian"`` kinds, a power of two;
        0 (the default) picks the largest power of two at most ``scale / (2 GRID_RATIO)``
        (fine for drawing, but only :meth:`for_laplace` / :meth:`for_gaussian` /
        :meth:`on_grid` calibrate for the rounding's extra sensitivity). Must be 0 for
        the discrete kinds.

    Examples
    --------
    >>> noise = Noise.for_laplace(0.5, sensitivity=1.0, integer=True)
    >>> noise.kind, noise.scale
    ('discrete_laplace', 2.0)
    >>> real = Noise.for_laplace(0.5, sensitivity=1.0, integer=False, coordinates=1)
    >>> real.kind, real.grid, round(real.scale, 6)
    ('laplace', 0.00048828125, 2.001953)
    >>> value = float(real.add(0.3, rng=0))
    >>> value / real.grid == round(value / real.grid)
    True
    """

    kind: str
    scale: float
    grid: float = 0.0

    def __post_init__(self) -> None:
        check_option(self.kind, "noise kind", KINDS)
        check = _check_sigma if self.kind.endswith("gaussian") else _check_scale
        if self.kind.startswith("discrete"):
            check(self.scale, "scale")
            if self.grid:
                raise ValueError(f"integer noise has no grid, got grid={self.grid!r}")
            return
        scale = check_positive(self.scale, "scale")
        if not self.grid:
            object.__setattr__(self, "grid", _power_of_two_at_most(scale / (2 * GRID_RATIO)))
        if not _is_power_of_two(self.grid):
            raise ValueError(f"grid must be a positive power of two, got {self.grid!r}")
        check(scale / self.grid, "scale / grid")

    @classmethod
    def for_laplace(
        cls, epsilon: float, sensitivity: float, *, integer: bool, coordinates: int | None = None
    ) -> Noise:
        """Laplace noise for (epsilon, 0)-DP at l1 ``sensitivity``; discrete if ``integer``.

        For real answers (``integer=False``) it is grid noise (see the class docstring),
        calibrated at grid-unit sensitivity ``sensitivity / grid + 2 coordinates``;
        ``coordinates`` (required then) is the public number of answers one neighbour can
        change. The scale is ``b (1 + 2 coordinates * grid / sensitivity)`` with
        ``b = sensitivity / epsilon``: at most ``b (1 + 1/1024)`` (:data:`GRID_RATIO`).

        Examples
        --------
        >>> Noise.for_laplace(1.0, 1.0, integer=False, coordinates=1).tv_bound(1) < 1e-9
        True
        """
        if epsilon == 0.0:  # a share of an epsilon near the smallest float underflows to 0
            raise epsilon_too_small("a share of epsilon that underflowed to 0.0")
        scale = check_positive(sensitivity, "sensitivity") / check_positive(epsilon, "epsilon")
        if integer:
            return cls("discrete_laplace", scale)
        return cls._gridded("laplace", scale, sensitivity, coordinates)

    @classmethod
    def for_gaussian(
        cls,
        epsilon: float,
        delta: float,
        sensitivity: float,
        *,
        integer: bool,
        coordinates: int | None = None,
    ) -> Noise:
        """Gaussian noise for (epsilon, delta)-DP at l2 ``sensitivity``; discrete if ``integer``.

        Both use the zCDP calibration of :func:`~privcut.privacy.discrete_gaussian_sigma`
        for the discrete Gaussian. For real answers (``integer=False``) it is grid noise
        (see the class docstring) at grid-unit l2 sensitivity ``sensitivity / grid +
        2 sqrt(coordinates)``, ``coordinates`` (required then) being the public number of
        answers one neighbour can change: sigma is the discrete calibration's times
        ``1 + 2 sqrt(coordinates) * grid / sensitivity`` (at most ``1 + 1/1024``). (The
        continuous analytic Gaussian calibration is a little smaller, but its float
        release leaks, Mironov 2012.)

        Examples
        --------
        >>> noise = Noise.for_gaussian(1.0, 1e-6, 1.0, integer=False, coordinates=4)
        >>> noise.kind, noise.grid > 0
        ('gaussian', True)
        """
        from privcut.privacy.calibration import discrete_gaussian_sigma

        sigma = discrete_gaussian_sigma(epsilon, delta, sensitivity)
        if integer:
            return cls("discrete_gaussian", sigma)
        return cls._gridded("gaussian", sigma, sensitivity, coordinates)

    @classmethod
    def _gridded(cls, kind: str, scale: float, sensitivity: float, coordinates) -> Noise:
        """Grid noise whose grid-unit scale is ``scale`` at the grid-unit sensitivity."""
        if coordinates is None:
            raise TypeError(
                "real-valued noise needs coordinates=c, the public number of answers one "
                "neighbour can change (an int >= 1), got None"
            )
        coordinates = check_scalar(coordinates, "coordinates", int, low=1)
        # 2 per coordinate: 1 for rounding, 1 for the answers' float error (at most grid / 4
        # each side, enforced by :meth:`add`)
        root = 2.0 * (float(coordinates) if kind == "laplace" else math.sqrt(coordinates))
        grid = _power_of_two_at_most(min(scale, sensitivity) / (GRID_RATIO * root))
        per_sensitivity = scale / sensitivity  # the grid-unit scale per grid-unit sensitivity
        if per_sensitivity * root >= MAX_GRID_SCALE:  # no grid is coarse enough: it never ends
            raise PrivacyParameterError(
                f"grid noise of scale {scale:g} at sensitivity {sensitivity:g} exceeds 2**39 grid "
                "units on every grid; noise that large swamps any answer, so raise epsilon"
            )
        while per_sensitivity * (sensitivity / grid + root) > MAX_GRID_SCALE:
            grid *= 2.0
        units = per_sensitivity * (sensitivity / grid + root)
        return cls(kind, units * grid, grid)

    def on_grid(self, sensitivity: float, coordinates: int = 1) -> Noise:
        """Grid noise with this discrete noise's privacy, for real-valued answers.

        ``self`` is calibrated for integer answers at ``sensitivity`` (l1 for discrete
        Laplace, l2 for discrete Gaussian); the result has the same epsilon (resp. zCDP
        rho) for real answers of that sensitivity of which one neighbour changes at most
        ``coordinates``. Grid noise is returned unchanged.

        Examples
        --------
        >>> Noise("discrete_laplace", 2.0).on_grid(1.0).kind
        'laplace'
        """
        if not self.integer:
            return self
        sensitivity = check_positive(sensitivity, "sensitivity")
        return self._gridded(_GRIDDED[self.kind], self.scale, sensitivity, coordinates)

    @property
    def integer(self) -> bool:
        """Whether draws are integers."""
        return self.kind.startswith("discrete")

    @property
    def units(self) -> Noise:
        """The integer noise drawn in grid units (``self`` for the discrete kinds)."""
        if self.integer:
            return self
        return Noise(_DISCRETE[self.kind], self.scale / self.grid)

    def sample(self, size: Size = None, *, rng: RandomState = None) -> np.ndarray:
        """Draw noise of this kind (see the sampler functions for ``rng``): integers, or
        multiples of the grid for grid noise. To release an answer use :meth:`add`."""
        if self.integer:
            return _SAMPLERS[self.kind](self.scale, size, rng=rng)
        draws = _SAMPLERS[_DISCRETE[self.kind]](self.scale / self.grid, size, rng=rng)
        return (draws * self.grid)[()]

    def round(self, values: object) -> np.ndarray:
        """``values`` on this noise's grid, ``grid * round(values / grid)`` (unchanged for
        integer noise): what :meth:`add` adds the draws to.

        Examples
        --------
        >>> Noise("laplace", 1.0, 0.25).round(np.array([0.3, -1.1]))
        array([ 0.25, -1.  ])
        """
        values = np.asarray(values)
        if self.integer:
            return values[()]
        return (np.rint(values.astype(float) / self.grid) * self.grid)[()]

    def add(self, values: object, *, rng: RandomState = None, error: float = 0.0) -> np.ndarray:
        """Release ``values`` with this noise: ``values + Z`` for integer noise, and
        ``grid * (round(values / grid) + Z)`` (float, a multiple of the grid) for grid noise.

        ``error`` bounds how far the computed ``values`` may lie from the exact answers
        (floating-point error, :func:`float_sum_error`); grid noise is calibrated for at
        most ``grid / 4`` and refuses more with a ``ValueError``, before drawing.

        Examples
        --------
        >>> Noise("discrete_laplace", 1.0).add(np.array([3, 4]), rng=0).dtype
        dtype('int64')
        """
        if not self.integer and not error <= self.grid / 4.0:
            raise ValueError(
                "the answers' floating-point error bound exceeds a quarter of the noise grid "
                f"({self.grid:g}): the data (or the queries) are too large for an exact "
                "release at this epsilon; scale the data down or use integer queries"
            )
        # On the grid both terms are multiples of it: the IEEE sum is the correctly rounded
        # grid * (round(values / grid) + Z), a function of that integer alone.
        return (self.round(values) + self.sample(np.shape(values), rng=rng))[()]

    @property
    def variance(self) -> float:
        """The variance of one draw (exact) for integer noise; for grid noise the mean
        squared error of one released answer, at most ``grid**2 (Var Z + 1/4)`` (the
        draw's variance plus the rounding's square, at most ``(grid / 2)**2``)."""
        if not self.integer:
            return self.grid**2 * (self.units.variance + 0.25)
        if self.kind == "discrete_laplace":
            return laplace_moments(self.scale, True)[0]
        if self.scale >= 100.0:  # the discrete Gaussian's variance is sigma**2 to 1e-300 here
            return self.scale**2
        return _discrete_gaussian_moments(self.scale)[0]

    @property
    def mean_absolute(self) -> float:
        """``E|Z|`` of one draw (exact) for integer noise: ``2q / (1 - q^2)`` with
        ``q = e^{-1/b}`` for the discrete Laplace (it falls like ``2 e^{-1/b}`` for small
        b, faster than the scale); for grid noise a bound on the mean absolute error of
        one released answer, ``grid (E|Z| + 1/2)``.

        Examples
        --------
        >>> round(Noise("discrete_laplace", 1.0).mean_absolute, 4)  # 1 / sinh(1)
        0.8509
        """
        if not self.integer:
            return self.grid * (self.units.mean_absolute + 0.5)
        if self.kind == "discrete_laplace":
            return laplace_moments(self.scale, True)[1]
        if self.scale >= 100.0:
            return self.scale * math.sqrt(2.0 / math.pi)
        return _discrete_gaussian_moments(self.scale)[1]

    def max_error(self, k: int, beta: float) -> float:
        """A bound t with ``P[max_i |Z_i| > t] <= beta`` for ``k`` independent draws (for
        grid noise: on the error of ``k`` released answers, rounding included).

        Union bound over the k draws with each tail at ``beta / k``: exact tails for
        the discrete Laplace (``P[|Z| > x] = 2 q**(x+1) / (1 + q)``); for the discrete
        Gaussian, ``P[|Z| > x] <= 2 Q(x / sigma) sigma sqrt(2 pi) / N`` with N the
        normalising sum, at least ``max(1, sigma sqrt(2 pi) - 1)``. Grid noise: ``grid``
        times the grid-unit bound, plus ``grid / 2`` for the rounding.
        """
        if not self.integer:
            return self.grid * (self.units.max_error(k, beta) + 0.5)
        tail = beta / k
        if self.kind == "discrete_laplace":  # log q = -1 / scale, exact even when q underflows
            q = math.exp(-1.0 / self.scale)
            steps = math.log(tail * (1.0 + q) / 2.0) * -self.scale
            return float(max(0, math.ceil(steps) - 1))
        root = self.scale * math.sqrt(2.0 * math.pi)
        normaliser = max(1.0, root - 1.0)
        # Q(x / sigma) <= 1/2 at x = 0: a tail target above 1/2 is met by x = 0.
        target = min(0.5, tail * normaliser / (2.0 * root))
        return float(max(0, math.ceil(-self.scale * ndtri(target))))

    def log_mgf(self, t: np.ndarray) -> np.ndarray:
        """``log E[exp(t Z)]`` of one draw (finite for ``|t| < 1/scale`` for Laplace kinds).

        Discrete Laplace: ``2 log(1 - q) - log(1 - q e^t) - log(1 - q e^-t)``, q = e^{-1/b};
        the discrete Gaussian's is at most ``sigma^2 t^2 / 2`` (it is sigma-subgaussian,
        Canonne, Kamath, Steinke 2020), which is returned. Grid noise: the draw
        ``grid * Z`` (its rounding is not random; :meth:`sum_tail` adds it).
        """
        t = np.asarray(t, dtype=float)
        if not self.integer:
            return self.units.log_mgf(t * self.grid)
        if self.kind == "discrete_gaussian":
            return self.scale**2 * t**2 / 2.0
        q = math.exp(-1.0 / self.scale)
        return 2.0 * math.log1p(-q) - np.log1p(-q * np.exp(t)) - np.log1p(-q * np.exp(-t))

    def sum_tail(self, coefficients: dict[float, int], log_beta: float) -> float:
        """A bound a with ``P[|sum_i c_i Z_i| >= a] <= exp(log_beta)`` for i.i.d. draws Z_i.

        ``coefficients`` maps each coefficient c > 0 to how many draws carry it. The
        bound is Chernoff's with the exact moment generating function,
        ``P[Y >= a] <= inf_t exp(-t a + sum_c n_c log M(c t))``, on each side (so each
        side gets half the failure probability). This is GRU12 Thm 6.5's method with
        the noise's own MGF instead of its constants. For grid noise, Z_i is the error of
        a released answer: ``grid`` times the grid-unit bound plus the rounding,
        ``grid / 2 * sum_c n_c c``.

        Examples
        --------
        >>> noise = Noise("discrete_laplace", 1.0)
        >>> round(noise.sum_tail({1.0: 100}, math.log(0.05)), 1)
        37.3
        """
        terms = [(float(c), int(count)) for c, count in coefficients.items() if count and c]
        if not terms:
            return 0.0
        if not self.integer:
            rounding = 0.5 * sum(c * count for c, count in terms)
            return self.grid * (self.units.sum_tail(dict(terms), log_beta) + rounding)
        largest = max(c for c, _ in terms)
        limit = math.inf if self.kind.endswith("gaussian") else 1.0 / (self.scale * largest)
        log_side = log_beta - math.log(2.0)

        def exponent(a: float) -> float:
            def objective(t: float) -> float:
                return -t * a + sum(count * float(self.log_mgf(c * t)) for c, count in terms)

            upper = (
                limit * (1.0 - 1e-9)
                if math.isfinite(limit)
                else a / (self.scale**2 * sum(count * c * c for c, count in terms))
            )
            best = minimize_scalar(
                objective, bounds=(0.0, upper), method="bounded", options={"xatol": upper * 1e-10}
            )
            return min(0.0, float(best.fun)) - log_side

        high = 1.0
        while exponent(high) > 0.0:
            high *= 2.0
        return float(brentq(exponent, 0.0, high, xtol=1e-9 * high))

    def tv_bound(self, k: int) -> float:
        """Bound on the total variation distance of ``k`` draws from exact (for grid noise,
        of its integer draws in grid units)."""
        if self.integer:
            return k * _draw_tv_bound(self.kind, self.scale)
        return self.units.tv_bound(k)
