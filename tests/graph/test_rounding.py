import numpy as np
import pytest
from scipy import stats

from privcut.graph.rounding import dependent_rounding, independent_rounding, rounding_bound


def integral_groups(rng, size=3000, groups=40):
    """Values in [0, 1] whose group sums are integers (the last value of each group is
    adjusted), with some exact 0s and 1s."""
    values = rng.random(size) * rng.choice([0.1, 0.5, 1.0], size)
    values[rng.random(size) < 0.05] = 1.0
    group = rng.integers(0, groups, size)
    for g in range(groups):
        members = np.flatnonzero(group == g)
        excess = values[members].sum() % 1.0
        for m in members:  # take the excess off values that can give it
            take = min(excess, values[m])
            values[m] -= take
            excess -= take
    return values, group


def test_group_sums_are_kept_exactly():
    rng = np.random.default_rng(0)
    values, group = integral_groups(rng)
    sums = np.rint(np.bincount(group, values))
    for seed in range(20):
        rounded = dependent_rounding(values, group, np.random.default_rng(seed))
        assert np.array_equal(np.bincount(group, rounded, sums.size), sums)
        assert rounded[values == 1.0].all() and not rounded[values == 0.0].any()


def test_fractional_group_sums_round_to_floor_or_ceiling():
    rng = np.random.default_rng(1)
    values, group = rng.random(500) * 0.5, rng.integers(0, 7, 500)
    sums = np.bincount(group, values)
    rounded = dependent_rounding(values, group, rng)
    counts = np.bincount(group, rounded, 7)
    assert np.all((counts == np.floor(sums)) | (counts == np.ceil(sums)))


@pytest.mark.slow
def test_marginals_are_the_values():
    """Mean of 4000 roundings per entry against its value: a two-sided binomial test per
    entry, Bonferroni over the entries."""
    rng = np.random.default_rng(2)
    values, group = integral_groups(rng, size=200, groups=5)
    draws = 4000
    counts = sum(dependent_rounding(values, group, rng).astype(int) for _ in range(draws))
    fractional = (values > 0) & (values < 1)
    p = [
        stats.binomtest(int(c), draws, v).pvalue
        for c, v in zip(counts[fractional], values[fractional], strict=True)
    ]
    assert min(p) * fractional.sum() > 0.01


def test_pairs_are_negatively_correlated():
    """Srinivasan's property (A3) on the quantity the cut bound needs: within a group,
    P[X_p = X_q = 1] <= x_p x_q, so the count of any subset is less spread than under
    independent rounding."""
    rng = np.random.default_rng(3)
    values = np.full(40, 0.25)
    group = np.zeros(40, dtype=int)
    subset = np.arange(20)
    draws = [dependent_rounding(values, group, rng)[subset].sum() for _ in range(3000)]
    assert np.var(draws) < 20 * 0.25 * 0.75  # independent rounding's variance


def test_independent_rounding_is_symmetric_and_bound_covers_it():
    rng = np.random.default_rng(4)
    x = rng.random((30, 30))
    x = np.triu(x, 1) + np.triu(x, 1).T
    rounded = independent_rounding(x, False, rng)
    assert np.array_equal(rounded, rounded.T) and not rounded.diagonal().any()
    assert rounding_bound(x, False, 0.05) > rounding_bound(x, True, 0.05)


@pytest.mark.parametrize("beta", [0.5, 0.05, 0.001])
def test_rounding_bound_grows_as_beta_falls(beta):
    x = np.full((10, 10), 0.5) - 0.5 * np.eye(10)
    assert rounding_bound(x, False, beta) < rounding_bound(x, False, beta / 10)
