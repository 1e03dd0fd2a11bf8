import itertools
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from privcut.exceptions import DependencyError
from privcut.graph.cutnorm import MAX_CVXPY, cut_norm, local_improvement

METHODS = ["exact", "spectral", "low-rank", "alon-naor"]


def brute_force(A):
    rows = np.array(list(itertools.product([0, 1], repeat=A.shape[0])), dtype=float)
    columns = np.array(list(itertools.product([0, 1], repeat=A.shape[1])), dtype=float)
    return np.abs(rows @ A @ columns.T).max()


def hard_matrices(n, count, seed):
    """Noise residuals, centred residuals and planted blocks, as in the acceptance test."""
    rng = np.random.default_rng(seed)
    for index in range(count):
        upper = np.triu(rng.random((n, n)) < 0.3, k=1)
        noisy = (upper | upper.T) + np.triu(rng.laplace(size=(n, n)), k=1)
        noisy = noisy + np.triu(noisy, k=1).T - np.triu(upper | upper.T, k=1).T
        A = noisy - np.clip(noisy, 0.0, 1.0)
        if index % 3 >= 1:
            A = A - A.mean()
        if index % 3 == 2:
            S, T = rng.choice(n, n // 4, replace=False), rng.choice(n, n // 4, replace=False)
            A[np.ix_(S, T)] += 0.5
            A[np.ix_(T, S)] += 0.5
        yield A


@pytest.mark.parametrize("seed", range(12))
def test_exact_equals_brute_force_over_all_pairs(seed):
    rng = np.random.default_rng(seed)
    m, n = rng.integers(1, 9, size=2)
    A = rng.normal(size=(m, n))
    result = cut_norm(A, method="exact")
    assert result.value == pytest.approx(brute_force(A))
    assert abs(A[np.ix_(result.S, result.T)].sum()) == pytest.approx(result.value)
    assert result.upper_bound == result.value


@pytest.mark.slow
def test_low_rank_reaches_the_exact_cut_norm_at_n_20():
    ratios = []
    for A in hard_matrices(20, 10, seed=1):  # each exact value enumerates 2^20 sets
        exact = cut_norm(A, method="exact").value
        ratios.append(cut_norm(A, method="low-rank", rng=0).value / exact)
    ratios = np.array(ratios)
    assert np.sum(ratios > 1 - 1e-9) >= 7
    assert ratios.mean() >= 0.998


@pytest.mark.parametrize("method", ["spectral", "low-rank", "alon-naor"])
def test_values_are_achieved_and_bounds_are_certified(method):
    if method == "alon-naor":
        pytest.importorskip("cvxpy")  # the sdp extra
    for A in hard_matrices(20, 3, seed=2):
        exact = cut_norm(A, method="exact").value
        result = cut_norm(A, method=method, rng=0)
        assert abs(A[np.ix_(result.S, result.T)].sum()) == pytest.approx(result.value)
        assert result.value <= exact + 1e-9
        assert result.upper_bound >= exact - 1e-9
    if method != "spectral":
        assert result.upper_bound <= 1.3 * exact


@pytest.mark.slow
def test_low_rank_matches_the_cvxpy_reference():
    pytest.importorskip("cvxpy")  # the sdp extra
    # n = 30 is past the exact method's 2^20 (so cvxpy is the reference) and SCS solves each
    # SDP in about a second; at n = 40 the uncentred residual took SCS over 10 s
    for A in hard_matrices(30, 2, seed=3):
        reference = cut_norm(A, method="alon-naor", rng=0)
        fast = cut_norm(A, method="low-rank", rng=0)
        assert fast.value >= 0.99 * reference.value
        assert fast.upper_bound <= 1.05 * reference.upper_bound


def test_auto_is_exact_for_small_and_certified_for_large():
    rng = np.random.default_rng(4)
    small = cut_norm(rng.normal(size=(6, 30)), rng=0)
    assert small.method == "exact"
    large = cut_norm(rng.normal(size=(60, 60)), rng=0)
    assert large.method.startswith("auto") and large.value <= large.upper_bound < np.inf


def test_sparse_and_rectangular_inputs():
    import scipy.sparse as sp

    A = np.array([[0.0, 2.0, -1.0], [1.0, 0.0, 0.0]])
    assert cut_norm(sp.csr_array(A), method="exact").value == 3.0


@pytest.mark.parametrize(
    ("shape", "method", "message"),
    [((21, 25), "exact", r"2\*\*21"), ((MAX_CVXPY + 1, 3), "alon-naor", "n <= 120")],
)
def test_refusals_name_the_limit(shape, method, message):
    if method == "alon-naor":
        pytest.importorskip("cvxpy")  # the sdp extra
    with pytest.raises(ValueError, match=message):
        cut_norm(np.ones(shape), method=method)


def test_alon_naor_without_cvxpy_names_the_extra_before_any_work(monkeypatch):
    assert issubclass(DependencyError, ImportError)
    monkeypatch.setitem(sys.modules, "cvxpy", None)  # as if not installed
    with pytest.raises(DependencyError, match=r"pip install privcut\[sdp\]"):
        cut_norm(np.full((2, 2), np.nan), method="alon-naor")  # a bad matrix: not read yet
    assert cut_norm(np.eye(2), method="low-rank", rng=0).value == pytest.approx(2.0)


@pytest.mark.parametrize("bad", [np.ones(3), np.full((2, 2), np.nan), np.zeros((0, 2))])
def test_bad_matrices_are_refused(bad):
    with pytest.raises(ValueError):
        cut_norm(bad)
    with pytest.raises(ValueError, match="method"):
        cut_norm(np.ones((2, 2)), method="greedy")


def test_spectral_handles_a_single_row_or_column():
    """A 1 x n or n x 1 matrix has one singular vector: the spectral method used to ask
    for none (found by tests/test_bad_input.py)."""
    assert cut_norm([[True, False]], method="spectral", certify=True, rng=0).value == 1.0
    assert cut_norm([[1.0], [-2.0]], method="spectral", rng=0).value == 2.0


@pytest.mark.slow
def test_an_all_zero_matrix_past_the_dense_eigensolver_is_certified():
    """The stop-28 review: an all-zero 760 x 760 matrix (its certificate's operator is zero,
    past the dense eigensolver's 1,500) raised ArpackError; it is certified at 0, and a
    bound is the same on every run (Lanczos from a fixed start)."""
    found = cut_norm(np.zeros((760, 760)), rng=0)
    assert found.value == 0.0 and found.upper_bound == 0.0
    A = np.random.default_rng(1).integers(-1, 2, size=(760, 760)).astype(float)
    assert cut_norm(A, rng=0).upper_bound == cut_norm(A, rng=0).upper_bound


@pytest.mark.parametrize("dense", [True, False])
@pytest.mark.filterwarnings("error")
def test_sweep37_f15_a_complex_matrix_is_refused(dense):
    """Sweep 37 F15: a complex A was cast to real with numpy's ComplexWarning leaking."""
    A = np.array([[1j, 1.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match=r"real numbers, got complex dtype .* A\.real"):
        cut_norm(A if dense else sp.csr_array(A))


def test_sweep37_f18_local_improvement_takes_masks_and_index_arrays():
    """Sweep 37 F18: an index array was read as a boolean mask (np.array([0, 1, 2]) became
    rows 1 and 2), and a list A raised AttributeError."""
    A = np.array([[1.0, -1.0, 2.0], [-1.0, 1.0, 0.0], [2.0, 0.0, -3.0]])
    by_mask = local_improvement(A, np.array([True, False, False]))
    by_index = local_improvement(A.tolist(), [0])
    assert by_index[0] == by_mask[0] and by_index[1].tolist() == by_mask[1].tolist()
    everything = local_improvement(A, np.array([0, 1, 2]))
    assert everything[0] == local_improvement(A, np.ones(3, dtype=bool))[0]
    with pytest.raises(ValueError, match=r"row indices must be in \[0, 3\)"):
        local_improvement(A, [0, 5])
    with pytest.raises(ValueError, match="one entry per row of A"):
        local_improvement(A, np.array([True]))
    with pytest.raises(TypeError, match=r"boolean mask .* or a 1-D array of row indices"):
        local_improvement(A, np.array([0.5]))


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("n", [3, 30])
def test_sweep37_f16_huge_entries_are_scaled_exactly_not_overflowed(n):
    """Sweep 37 F16: entries near 1e200-1e308 leaked overflow RuntimeWarnings and gave inf,
    0 or numpy's "array must not contain infs or NaNs"."""
    A = np.random.default_rng(0).standard_normal((n, n))
    small = cut_norm(A, rng=0)
    huge = cut_norm(np.ldexp(A, 900), rng=0)
    assert huge.value == pytest.approx(np.ldexp(small.value, 900), rel=0.05)
    assert huge.value <= huge.upper_bound < np.inf
    assert local_improvement(np.ldexp(A, 900), huge.S)[0] >= huge.value
    with pytest.raises(ValueError, match=r"beyond float64's range .* rescale A"):
        cut_norm(np.full((n, n), 1e308))
