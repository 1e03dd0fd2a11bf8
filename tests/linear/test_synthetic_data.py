"""MWEM and SmallDB: mechanisms that release a synthetic histogram."""

import numpy as np
import pytest

from privcut.linear import laplace_mechanism
from privcut.linear.mwem import mwem
from privcut.linear.queries import histograms_of_size
from privcut.linear.small_db import small_db
from tests.auditing import audit_answers

EPSILON = 0.5
SMALL_F = np.array([[1, 1, 0, 0, 1], [0, 1, 1, 0, 0], [0, 1, 1, 1, 1], [1, 0, 0, 1, 0]])


def skewed_histogram(rng, m, n):
    return np.bincount(rng.choice(m, n, p=rng.dirichlet(np.full(m, 0.3))), minlength=m)


def test_mwem_beats_laplace_on_max_error_for_1000_queries():
    """k = 1000 counting queries over a universe of 256, n = 1000."""
    rng = np.random.default_rng(0)
    F = rng.integers(0, 2, size=(1000, 256))
    for run in range(5):
        h = skewed_histogram(rng, 256, 1000)
        synthetic = mwem(F, h, 1.0, rounds=10, rng=run)  # buys a noisy count
        noisy = laplace_mechanism(F, h, 1.0, rng=run)
        assert np.abs(synthetic.answers - F @ h).max() < np.abs(noisy.answers - F @ h).max() / 5
        public = mwem(F, h, 1.0, rounds=10, n=1000, rng=run)  # Thm 2.2 assumes a public n
        assert np.abs(public.answers - F @ h).max() <= public.details["theorem_bound"]


def test_mwem_keeps_a_histogram_of_the_public_size_and_splits_the_budget():
    release = mwem(SMALL_F, [3, 1, 2, 0, 5], 1.0, rounds=4, n=11, rng=0)
    assert release.details["synthetic"].sum() == pytest.approx(11)
    assert release.details["epsilon_count"] == 0 and release.details["epsilon_round"] == 0.25
    noisy = mwem(SMALL_F, [3, 1, 2, 0, 5], 1.0, rounds=4, rng=0)
    assert noisy.details["epsilon_count"] == pytest.approx(0.1)
    assert noisy.details["epsilon_round"] == pytest.approx(0.225)


@pytest.mark.slow
def test_mwem_passes_its_audit_and_catches_an_undercharged_budget(neighbours):
    def run(h, rng, charged):
        """``charged`` < 1: the mechanism spends 1/charged times what it reports."""
        return mwem(SMALL_F[:, :5], h, EPSILON / charged, rounds=2, n=12, rng=rng)

    correct = audit_answers(lambda h, rng: run(h, rng, 1.0), neighbours, EPSILON, samples=3000)
    broken = audit_answers(lambda h, rng: run(h, rng, 0.2), neighbours, EPSILON, samples=3000)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


def test_small_db_selection_is_near_the_best_candidate():
    rng = np.random.default_rng(1)
    F = rng.integers(0, 2, size=(30, 6))
    h = np.array([40, 0, 10, 0, 30, 20])
    within = []
    for run in range(40):
        release = small_db(F, h, 1.0, size=8, n=100, beta=0.1, rng=run)
        error = np.abs(release.answers - F @ h).max()
        best = np.abs(100 / 8 * (histograms_of_size(6, 8) @ F.T) - F @ h).max(axis=1).min()
        within.append(error <= best + release.details["selection_slack"])
    assert np.mean(within) >= 0.9


@pytest.mark.slow
def test_small_db_passes_its_audit_and_catches_an_undercharged_budget(neighbours):
    def run(h, rng, charged):
        return small_db(SMALL_F, h, EPSILON / charged, size=3, n=12, rng=rng)

    correct = audit_answers(lambda h, rng: run(h, rng, 1.0), neighbours, EPSILON, samples=1000)
    broken = audit_answers(lambda h, rng: run(h, rng, 0.2), neighbours, EPSILON, samples=500)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


def test_small_db_refuses_explosive_enumerations_before_reading_the_data():
    with pytest.raises(ValueError, match=r"6\.29e\+07 candidate databases"):
        small_db(np.ones((3, 8)), "not even a histogram", 1.0, size=40)


@pytest.mark.parametrize("mechanism", [mwem, small_db])
def test_bad_parameters_are_refused(mechanism):
    with pytest.raises(ValueError):
        mechanism(SMALL_F, [1, 2, 3, 4, 5], 1.0, count_share=1.5, rng=0)
    with pytest.raises(ValueError):
        mechanism(SMALL_F, [1, 2, 3, 4, 5], 1.0, n=-3, rng=0)


@pytest.mark.parametrize("mechanism", [mwem, small_db])
@pytest.mark.parametrize("n", [None, 10])
def test_sweep37_f19_an_all_zero_F_answers_zeros_like_the_other_mechanisms(mechanism, n):
    """Sweep 37 F19: mwem and small_db refused an all-zero F ("every query is identically
    zero") where laplace, gaussian, projection, factorization and knorm release zeros:
    exact zeros, no noise and no noisy count, the given epsilon recorded."""
    F, h = np.zeros((2, 5)), [1, 2, 3, 4, 5]
    release = mechanism(F, h, 1.0, n=n, rng=0)
    expected = laplace_mechanism(F, h, 1.0, rng=0)
    assert release.answers.tolist() == expected.answers.tolist() == [0.0, 0.0]
    assert release.expected_error == release.max_error == release.sampler_tv == 0.0
    assert release.epsilon == 1.0 and release.delta == 0.0
    assert release.details["epsilon_count"] == 0.0 and release.details["synthetic"] is None
    with pytest.raises(ValueError):  # the histogram's checks still run
        mechanism(F, [1, 2, -3, 4, 5], 1.0, n=n, rng=0)


def test_a_share_is_checked_under_its_own_name():
    from privcut.linear.size import check_share

    assert check_share(0.25, "rr_share") == 0.25
    for bad in (0.0, 1.0, 1.5, float("nan")):
        with pytest.raises(ValueError, match=r"rr_share must be a finite number in \(0, 1\)"):
            check_share(bad, "rr_share")
    with pytest.raises(TypeError, match="count_share must be a real number"):
        check_share("0.1", "count_share")
