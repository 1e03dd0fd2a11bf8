"""Audit helpers shared by the mechanism tests."""

import numpy as np

from privcut.audit import audit
from privcut.privacy import Noise


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
