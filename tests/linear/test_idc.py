import numpy as np
import pytest

from privcut.linear.idc import FriezeKannan, Median, MultiplicativeWeights


def run_to_accuracy(idc, F, h, alpha, rng, noise=0.0):
    """Seed 004 Def. 3.1: while some query is off by >= alpha, update on it with an answer
    within alpha/2 of the truth. Returns the number of updates."""
    truth = F @ h
    while True:
        errors = np.abs([idc.evaluate(q) for q in F] - truth)
        if errors.max() < alpha:
            return idc.updates
        worst = int(np.argmax(errors))
        assert idc.update(F[worst], truth[worst] + rng.uniform(-noise, noise))
        assert idc.updates <= idc.max_updates


@pytest.mark.parametrize("seed", range(3))
def test_frieze_kannan_reaches_alpha_within_its_bound(seed):
    rng = np.random.default_rng(seed)
    F = rng.integers(0, 2, size=(40, 30)).astype(float)
    h = rng.integers(0, 2, size=30)
    alpha = 4.0
    idc = FriezeKannan(30, alpha, n2_bound=float(h @ h))
    updates = run_to_accuracy(idc, F, h, alpha, rng, noise=alpha / 2)
    assert 0 < updates <= idc.max_updates
    np.testing.assert_allclose([idc.evaluate(q) for q in F], F @ idc.hypothesis())


def test_frieze_kannan_accepts_a_factored_inner_product():
    """Cut-like queries as (S, T) index sets: <1_S x 1_T, 1_S' x 1_T'> = |S n S'| |T n T'|."""

    def inner(first, second):
        return len(first[0] & second[0]) * len(first[1] & second[1])

    idc = FriezeKannan(16, 1.0, n2_bound=16, inner=inner)
    idc.update(({0, 1}, {2, 3}), noisy_answer=3.0)
    assert idc.evaluate(({0}, {2, 3})) == pytest.approx(2 / 16)


@pytest.mark.parametrize("seed", range(3))
def test_multiplicative_weights_reaches_alpha_within_its_bound(seed):
    rng = np.random.default_rng(seed)
    F = rng.integers(0, 2, size=(40, 16)).astype(float)
    h = np.bincount(rng.integers(0, 4, 20), minlength=16)
    alpha = 3.0
    idc = MultiplicativeWeights(16, alpha, n=20)
    updates = run_to_accuracy(idc, F, h, alpha, rng, noise=alpha / 2)
    assert 0 < updates <= idc.max_updates
    assert idc.hypothesis().sum() == pytest.approx(20)


def test_multiplicative_weights_needs_queries_in_unit_range():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        MultiplicativeWeights(3, 1.0, 5).update([2.0, 0.0, 0.0], 1.0)


def test_median_reaches_alpha_within_its_bound():
    rng = np.random.default_rng(0)
    F = rng.integers(0, 2, size=(6, 4)).astype(float)
    h = np.array([2, 0, 1, 0])
    alpha = 1.0
    idc = Median(4, alpha, n=3, k=6)
    updates = run_to_accuracy(idc, F, h, alpha, rng, noise=0.0)
    assert updates <= idc.max_updates
    assert len(idc.alive) >= 1


def test_median_halves_the_candidates_each_update():
    idc = Median(3, 1.0, n=2, k=3, size=6)
    before = len(idc.alive)
    idc.update([1.0, 0.0, 0.0], noisy_answer=0.0)
    assert len(idc.alive) <= before / 2


def test_median_refuses_large_universes_with_the_size_it_would_need():
    with pytest.raises(ValueError, match=r"databases of 100 elements"):
        Median(50, 1.0, n=10, k=10, size=100)


def test_bounds_follow_the_theorems():
    assert FriezeKannan(100, 5.0, n2_bound=50).max_updates == 200  # Thm 5.1
    assert MultiplicativeWeights(100, 5.0, n=50).max_updates == int(np.ceil(400 * np.log(100)))
    assert Median(3, 1.0, n=2, k=3, size=2).max_updates == int(np.ceil(4 * np.log(3) ** 2))
