import numpy as np
import pytest
from scipy import stats

from privcut.audit import audit
from privcut.privacy.selection import exponential_mechanism


def test_selection_frequencies_follow_the_exponential_weights():
    scores = np.array([0.0, 1.0, 2.5, -1.0])
    rng = np.random.default_rng(0)
    picks = np.bincount(
        [exponential_mechanism(scores, 1.0, 1.0, rng=rng) for _ in range(40_000)], minlength=4
    )
    weights = np.exp(scores / 2.0)
    expected = 40_000 * weights / weights.sum()
    assert stats.chisquare(picks, expected).pvalue > 1e-6


@pytest.mark.slow
def test_audit_passes_and_catches_an_understated_sensitivity():
    pair = (np.array([3.0, 1.0, 0.0]), np.array([2.0, 2.0, 0.0]))  # scores move by <= 1

    def select(scores, rng, sensitivity):
        return exponential_mechanism(scores, 0.5, sensitivity, rng=rng)

    correct = audit(lambda s, rng: select(s, rng, 1.0), pair, 0.5, samples=10_000, rng=1)
    broken = audit(lambda s, rng: select(s, rng, 0.25), pair, 0.5, samples=10_000, rng=1)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


def test_huge_scores_do_not_overflow():
    assert exponential_mechanism([1e308, -1e308], 1.0, 1.0, rng=0) == 0


@pytest.mark.parametrize("bad", [[], [np.nan, 1.0], [[1.0]]])
def test_bad_scores_are_refused(bad):
    with pytest.raises(ValueError, match="scores"):
        exponential_mechanism(bad, 1.0, 1.0, rng=0)
