from functools import partial

import numpy as np
import pytest

from privcut.linear import gaussian_mechanism
from privcut.linear.factorization import (
    MAX_OPTIMIZED_DOMAIN,
    binary_tree_strategy,
    factorization_mechanism,
    factorize,
)
from tests.auditing import audit_answers, audit_twin
from tests.linear.test_mechanisms import understated

EPSILON, DELTA = 0.5, 1e-3
PREFIXES = np.tril(np.ones((16, 16)))
query_row = np.array([[1.0, 1.0, 0.0, 0.0, 1.0]])
REPEATED = np.ones((100, 1)) @ query_row  # SU notes eq. 18 with k = 100


@pytest.mark.parametrize("m", [1, 2, 5, 16, 1000])
def test_binary_tree_has_one_interval_per_level(m):
    tree = binary_tree_strategy(m)
    levels = int(np.ceil(np.log2(m))) + 1
    dense = tree.toarray()
    assert np.all(dense.sum(axis=0) == levels)
    assert tree.l1_sensitivity == levels and tree.l2_sensitivity == pytest.approx(levels**0.5)
    assert tree.integer


@pytest.mark.parametrize("strategy", ["identity", "workload", "binary-tree", "optimized"])
@pytest.mark.parametrize("pure", [True, False])
def test_every_strategy_factorizes_the_workload(strategy, pure):
    factorization = factorize(PREFIXES, strategy, pure=pure)
    np.testing.assert_allclose(factorization.R @ factorization.M.toarray(), PREFIXES, atol=1e-8)


def test_explicit_pairs_are_checked():
    assert factorize(REPEATED, (np.ones((100, 1)), query_row)).name == "explicit"
    with pytest.raises(ValueError, match="not a factorization"):
        factorize(REPEATED, (np.ones((100, 1)), 2 * query_row))
    with pytest.raises(ValueError, match="R must be"):
        factorize(REPEATED, (np.ones((99, 1)), query_row))
    with pytest.raises(ValueError, match="strategy must be one of"):
        factorize(REPEATED, "best")


def test_optimized_refuses_large_domains_before_any_work():
    with pytest.raises(ValueError, match="m <= 4096"):
        factorize(np.zeros((1, MAX_OPTIMIZED_DOMAIN + 1)), "optimized")


@pytest.mark.parametrize("pure", [True, False])
def test_optimized_beats_every_named_strategy_on_prefixes(pure):
    prefixes = np.tril(np.ones((64, 64)))
    errors = {
        s: factorize(prefixes, s, pure=pure).error_factor(pure)
        for s in ("identity", "workload", "binary-tree", "optimized")
    }
    assert errors["optimized"] < min(errors["identity"], errors["workload"], errors["binary-tree"])


def test_binary_tree_beats_identity_and_workload_on_1024_prefixes():
    prefixes = np.tril(np.ones((1024, 1024)))
    tree, identity, workload = (
        factorize(prefixes, s) for s in ("binary-tree", "identity", "workload")
    )
    for pure in (True, False):
        assert tree.error_factor(pure) < identity.error_factor(pure)
        assert tree.error_factor(pure) < workload.error_factor(pure)
    assert tree.error_factor(pure=False) < identity.error_factor(pure=False) / 5


def test_repeated_queries_factorization_is_ten_times_the_gaussian_mechanism():
    """Seed 003 eq. 18: error ~1/n for the factorization against ~sqrt(k)/n for Gaussian."""
    h = np.array([40, 25, 10, 60, 5])
    rng = np.random.default_rng(3)
    explicit = (np.ones((100, 1)), query_row)
    runs = [
        (
            factorization_mechanism(REPEATED, h, EPSILON, DELTA, strategy=explicit, rng=rng),
            gaussian_mechanism(REPEATED, h, EPSILON, DELTA, rng=rng),
        )
        for _ in range(400)
    ]
    factored, gaussian = runs[0]
    assert gaussian.expected_error / factored.expected_error >= 10 * (1 - 1e-12)
    truth = REPEATED @ h
    rms = [
        np.sqrt(np.mean([np.mean((r.answers - truth) ** 2) for r in side]))
        for side in zip(*runs, strict=True)
    ]
    assert rms[1] / rms[0] >= 9.0
    optimized = factorize(REPEATED, "optimized").error_factor(pure=False)
    assert gaussian.expected_error / (optimized * factored.details["scale"]) >= 9.9


@pytest.mark.parametrize(
    ("strategy", "delta"),
    [("binary-tree", 0.0), ("binary-tree", DELTA), ("optimized", 0.0), ("optimized", DELTA)],
)
def test_measured_error_matches_the_promise(strategy, delta):
    h = np.arange(16) % 5
    rng = np.random.default_rng(4)
    chosen = factorize(PREFIXES, strategy, pure=delta == 0.0)
    runs = [
        factorization_mechanism(
            PREFIXES, h, EPSILON, delta, strategy=(chosen.R, chosen.M), beta=0.1, rng=rng
        )
        for _ in range(2000)
    ]
    errors = np.array([r.answers for r in runs]) - PREFIXES @ h
    assert np.sqrt(np.mean(errors**2)) == pytest.approx(runs[0].expected_error, rel=0.05)
    assert np.mean(np.abs(errors).max(axis=1) > runs[0].max_error) <= 0.1


@pytest.mark.slow
def test_factorization_passes_its_audit_and_catches_wrong_sensitivity():
    """Identity measurements with R = F invertible, so the answers show all the noise. The
    correct release is audited call by call, the twin vectorized (the same law: see
    audit_twin)."""
    h = np.array([3, 1, 2, 0])
    pair = (h, h + np.array([0, 0, 1, 0]))
    prefixes = np.tril(np.ones((4, 4)))
    identity = np.eye(4)
    lying_identity = understated(identity, 0.4, 0.15)
    for delta in (0.0, DELTA):

        def release(d, rng, delta=delta, M=identity):
            return factorization_mechanism(
                prefixes, d, EPSILON, delta, strategy=(prefixes, M), rng=rng
            )

        correct = audit_answers(release, pair, EPSILON, delta, samples=3000)
        broken = audit_twin(
            partial(release, M=lying_identity),
            lambda d: d,
            pair,
            EPSILON,
            delta,
            samples=3000,
            reconstruction=prefixes,
        )
        assert correct.p_value >= 0.01
        assert broken.p_value <= 1e-3


def test_measurements_that_float64_cannot_hold_exactly_are_refused():
    """Issue 15: answers below 2^53 whose strategy's measurements M h are not."""
    R, M = np.array([[2.0**-14]]), np.array([[2.0**14, 2.0**14]])
    with pytest.raises(ValueError, match="below 2\\^53"):
        factorization_mechanism([[1, 1]], [2**40, 2**40], 1.0, strategy=(R, M), rng=0)
