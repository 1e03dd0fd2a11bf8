import math
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from privcut import BudgetExceededError, PrivacyBudget, PrivacyParameterError
from privcut.privacy import (
    PrivacyCost,
    advanced_composition,
    basic_composition,
    effective_delta,
)


def test_exact_spend_succeeds_and_leaves_nothing():
    budget = PrivacyBudget(1.0, 1e-6)
    budget.spend(1.0, 1e-6)
    assert budget.spent == PrivacyCost(1.0, 1e-6)
    assert budget.remaining == PrivacyCost(0.0, 0.0)


def test_overspend_raises_and_changes_nothing():
    budget = PrivacyBudget(1.0, 1e-6)
    budget.spend(0.6, label="first")
    for epsilon, delta in [(0.5, 0.0), (0.1, 2e-6)]:
        with pytest.raises(BudgetExceededError, match="exceed the budget"):
            budget.spend(epsilon, delta)
    assert budget.spent == PrivacyCost(0.6, 0.0)
    assert budget.ledger == (("first", PrivacyCost(0.6, 0.0)),)
    budget.spend(0.4, 1e-6)


@pytest.mark.parametrize("total", [1.0, 0.3, 2.7, 1e-3, 7.0 / 3.0])
def test_thousand_equal_shares_fit_and_one_more_does_not(total):
    budget = PrivacyBudget(total, total / 10)
    for _ in range(1000):
        budget.spend(total / 1000, total / 10_000)
    with pytest.raises(BudgetExceededError):
        budget.spend(total / 1000)
    with pytest.raises(BudgetExceededError):
        budget.spend(0.0, total / 10_000)


@pytest.mark.slow
@given(total=st.floats(1e-6, 100.0), shares=st.integers(1, 3000))  # epsilon <= 100
def test_any_equal_split_fits_exactly(total, shares):
    budget = PrivacyBudget(total)
    for _ in range(shares):
        budget.spend(total / shares)
    with pytest.raises(BudgetExceededError):
        budget.spend(total / shares)


def test_float_drift_cannot_admit_an_extra_spend():
    """Ten float 0.1s sum to slightly more than 1 exactly; nothing more may follow."""
    budget = PrivacyBudget(1.0)
    for _ in range(10):
        budget.spend(0.1)
    with pytest.raises(BudgetExceededError):
        budget.spend(1e-15)


def test_spends_from_many_threads_never_exceed_the_total():
    budget = PrivacyBudget(1.0)
    accepted = []

    def worker():
        for _ in range(200):
            try:
                accepted.append(budget.spend(0.001))
            except BudgetExceededError:
                pass

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(accepted) == 1000
    assert len(budget.ledger) == 1000


@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf"), "0.1", None, True])
def test_bad_spend_is_refused(bad):
    budget = PrivacyBudget(1.0)
    with pytest.raises(PrivacyParameterError):
        budget.spend(bad)
    assert budget.spent == PrivacyCost(0.0, 0.0)


def test_advanced_composition_matches_the_theorem():
    epsilon0, k, slack = 0.05, 400, 1e-7
    cost = advanced_composition(epsilon0, 1e-9, k, slack)
    expected = (2 * k * 16.11809565095832) ** 0.5 * epsilon0 + k * epsilon0 * 0.05127109637602412
    assert cost.epsilon == pytest.approx(expected, rel=1e-12)
    assert cost.delta == pytest.approx(k * 1e-9 + slack)
    assert cost.epsilon < basic_composition([(epsilon0, 1e-9)] * k).epsilon


@pytest.mark.parametrize("k", [0, -3, 2.5, True, "10"])
def test_advanced_composition_needs_a_positive_integer_k(k):
    with pytest.raises(PrivacyParameterError):
        advanced_composition(0.1, 0.0, k, 1e-6)


def test_basic_composition_sums_exactly():
    assert basic_composition([(0.1, 0.0)] * 10) == PrivacyCost(1.0, 0.0)


def test_sweep37_f3_composed_and_effective_deltas_are_capped_at_one():
    """Sweep 37 F3: delta is a probability; sums past 1 were returned as they were."""
    assert advanced_composition(1.0, 0.5, 10, 1e-6).delta == 1.0
    assert basic_composition([(1.0, 0.6), (1.0, 0.6)]).delta == 1.0
    assert effective_delta(100.0, 0.0, 1e-40) == 1.0
    assert effective_delta(25.0, 0.0, 2.2e-10) == 1.0
    assert effective_delta(1.0, 1e-6, 1e-10) == 1e-6 + (1.0 + math.e) * 1e-10  # below 1: as was
    assert advanced_composition(1.0, 1e-3, 10, 1e-6).delta == 10 * 1e-3 + 1e-6


@pytest.mark.parametrize("total", [101, 100.5, 1e300])
def test_sweep37_f20_a_budget_above_100_is_refused_like_check_epsilon(total):
    """Sweep 37 F20: PrivacyBudget(101) was accepted though epsilon <= 100 is the rule."""
    with pytest.raises(PrivacyParameterError, match=r"epsilon must be at most 100.*at most 100"):
        PrivacyBudget(total)
    assert PrivacyBudget(100).total.epsilon == 100.0
