"""Audit helpers shared by the mechanism tests."""

import math

import numpy as np

from privcut.audit import audit
from privcut.linear.online import SparseVector
from privcut.privacy import Noise, noise


def record_sampler_tv(monkeypatch):
    """Record every :class:`Noise` draw from now on; returns a function giving the summed
    total variation bounds of the draws so far (what a release should report)."""
    draws = []
    original = Noise.sample

    def sample(self, size=None, *, rng=None):
        values = original(self, size, rng=rng)
        draws.append((self, int(np.size(values))))
        return values

    monkeypatch.setattr(Noise, "sample", sample)
    return lambda: sum(noise.tv_bound(count) for noise, count in draws)


def audit_answers(release, pair, epsilon, delta=0.0, samples=10_000, seed=0):
    """Audit the answers of ``release(data, rng)`` (a LinearRelease-like) on a neighbouring pair."""
    return audit(
        lambda data, rng: release(data, rng).answers,
        pair,
        epsilon,
        delta,
        samples=samples,
        rng=seed,
    )


def audit_twin(
    release, measurements, pair, epsilon, delta=0.0, samples=10_000, reconstruction=None
):
    """Audit a broken twin ``release(data, rng)`` (a LinearRelease-like) of an additive-noise
    mechanism, drawn vectorised for speed: the noise (kind, scale, grid) it adds to the exact
    ``measurements(data)`` is read off one release, which is checked to equal them plus that
    noise's draw from the same seed (times ``reconstruction``, if given); each audit run is
    the measurements plus a fresh draw of it, reconstructed alike."""

    def mechanism(data, rng, size):
        exact = np.asarray(measurements(data))
        one = release(data, np.random.default_rng(0))
        details = one.details
        noise = Noise(details["noise"], details["scale"], details.get("grid", 0.0))
        again = noise.add(exact, rng=np.random.default_rng(0))
        assert np.array_equal(
            one.answers, again if reconstruction is None else reconstruction @ again
        )
        drawn = noise.add(np.broadcast_to(exact, (size, exact.size)), rng=rng)
        return drawn if reconstruction is None else drawn @ reconstruction.T

    return audit(mechanism, pair, epsilon, delta, samples=samples, vectorized=True, rng=0)


TWO53 = 2.0**53


def in_laplace_image(x, scale, reach=40):
    """Whether ``x`` is exactly an output of numpy's ``Generator.laplace(0, scale)``.

    Copied from the reviewer's /tmp/review_release/fp_laplace.py (Mironov 2012,
    *On significance of the least significant bits for differential privacy*): numpy
    draws U = k 2^-53 and returns ``-scale log(2 - 2U)`` (U >= 1/2) or ``scale log(2U)``;
    this inverts that near the candidate k. ``y + draw`` for a y with low-order bits,
    such as 0.3, is rarely in the image; a raw draw (y = 0) always is.
    """
    if x < 0 or (x == 0 and math.copysign(1.0, x) < 0):
        k0 = int(math.exp(x / scale) / 2.0 * TWO53)
        for k in range(max(1, k0 - reach), k0 + reach):
            u = k / TWO53
            if u >= 0.5:
                break
            if 0.0 + scale * math.log(u + u) == x:
                return True
        return False
    k0 = int((1.0 - math.exp(-x / scale) / 2.0) * TWO53)
    for k in range(max(0, k0 - reach), min(int(TWO53), k0 + reach)):
        u = k / TWO53
        if u >= 0.5 and 0.0 - scale * math.log(2.0 - u - u) == x:
            return True
    return False


def assert_on_grid(values, grid):
    """Every value is an exact multiple of ``grid``, a positive power of two."""
    assert grid > 0 and np.frexp(grid)[0] == 0.5, f"grid {grid!r} is not a power of two"
    units = np.asarray(values, dtype=float) / grid
    assert np.array_equal(units, np.round(units)), "a released value is off the grid"


class ExactComparison(SparseVector):
    """Broken twin of the composed (and paper) calibration: compares the exact answer with
    the threshold and adds the comparison noise only to what it releases (the outcome of
    the comparison is then exact)."""

    def step(self, true_answer, hypothesis, *, integer=True, sensitivity=1.0, error=0.0):
        answer = true_answer()
        self.queries_answered += 1
        if abs(answer - hypothesis) <= self.calibration.threshold:
            return hypothesis, False
        self.updates += 1
        return self.released(answer), True

    def released(self, answer: float) -> float:
        """What an update releases: the answer plus the comparison noise."""
        return float(self.calibration.comparison.add(answer, rng=self.generator))


def float_sampler_slack(monkeypatch):
    """Give the discrete Laplace and geometric samplers the total-variation slack of the
    float sampler they replaced (about ``3.1e-14`` per unit of scale; the exact samplers
    have none), so that the tests of how a release states its samplers' slack (what the
    discrete Gaussian still has) see one on every integer draw."""
    monkeypatch.setattr(noise, "_geometric_tv_bound", lambda scale: 1.55e-14 * (scale + 2.0))
    monkeypatch.setattr(noise, "_draw_tv_bound", noise._draw_tv_bound.__wrapped__)  # no cache
