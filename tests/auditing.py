"""Audit helpers shared by the mechanism tests."""

from privcut.audit import audit


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
