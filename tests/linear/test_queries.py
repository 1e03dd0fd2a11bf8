import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import aslinearoperator

from privcut.linear import (
    QueryMatrix,
    check_histogram,
    l1_sensitivity,
    l2_sensitivity,
    laplace_mechanism,
)

F = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0]])


def test_dense_sparse_and_implicit_agree():
    h = np.array([4, 0, 2, 7])
    dense, sparse = QueryMatrix(F), QueryMatrix(sp.csr_array(F))
    implicit = QueryMatrix.implicit(
        aslinearoperator(sp.csr_array(F)), l1_sensitivity=3, l2_sensitivity=3**0.5, integer=True
    )
    for query in (dense, sparse, implicit):
        np.testing.assert_allclose(query @ h, F @ h)
        np.testing.assert_allclose(query.rmatmul([1.0, 2.0, 3.0]), F.T @ [1.0, 2.0, 3.0])
        np.testing.assert_allclose(query.toarray(), F)
        assert query.shape == (3, 4) and query.k == 3 and query.m == 4
    assert implicit.is_implicit and not sparse.is_implicit


def test_sensitivities_are_the_largest_column_norms():
    for query in (F, sp.csr_array(F), QueryMatrix(F)):
        assert l1_sensitivity(query) == 3.0
        assert l2_sensitivity(query) == pytest.approx(3**0.5)
    assert l1_sensitivity([[0.5, -2.0], [0.5, 1.0]]) == 3.0


def test_sensitivity_is_the_largest_change_over_neighbouring_histograms():
    rng = np.random.default_rng(0)
    G = rng.normal(size=(6, 5))
    h = rng.integers(0, 5, size=5)
    changes = [G @ (h + e) - G @ h for e in np.eye(5, dtype=int)]
    assert max(np.abs(c).sum() for c in changes) == pytest.approx(l1_sensitivity(G))
    assert max(np.linalg.norm(c) for c in changes) == pytest.approx(l2_sensitivity(G))


def test_integer_flag():
    assert QueryMatrix(F).integer
    assert not QueryMatrix(F / 2).integer
    assert QueryMatrix(sp.csr_array(F)).integer


@pytest.mark.parametrize(
    "bad", [np.array([[np.nan, 1.0]]), np.ones((2, 2, 2)), np.ones(3), [[1.0, np.inf]]]
)
def test_bad_matrices_are_refused(bad):
    with pytest.raises(ValueError):
        QueryMatrix(bad)


def test_implicit_needs_valid_sensitivities():
    operator = aslinearoperator(F)
    with pytest.raises(ValueError, match="l1_sensitivity"):
        QueryMatrix.implicit(operator, l1_sensitivity=-1, l2_sensitivity=1)
    with pytest.raises(ValueError, match="l2_sensitivity"):
        QueryMatrix.implicit(operator, l1_sensitivity=1, l2_sensitivity=float("nan"))


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ([1, 2], "shape"),
        ([1, -1, 0], "non-negative"),
        ([1, 0.5, 0], "integer"),
        ([1, np.nan, 0], "integer"),
        (["a", 1, 2], "counts"),
    ],
)
def test_bad_histograms_are_refused(bad, message):
    with pytest.raises(ValueError, match=message):
        check_histogram(bad, 3)


@pytest.mark.parametrize(
    ("count", "message"),
    [
        (2**53 + 1, "below 2\\^53"),  # float64 rounded it to 2^53
        (2**63, "below 2\\^53"),  # int64 wrapped it to -2^63
        (1e300, "below 2\\^53"),  # likewise
        (np.inf, "finite"),
        (np.nan, "finite"),
    ],
)
def test_counts_that_float64_cannot_hold_exactly_are_refused(count, message):
    """Issue 15: such counts were rounded, or wrapped to -9.2e18, and released."""
    with pytest.raises(ValueError, match=message):
        check_histogram([count, 0, 1], 3)


def test_answers_that_float64_cannot_hold_exactly_are_refused():
    """Counts below 2^53 whose answers F h are not (total 3 * 2^51 times entries of 4)."""
    assert check_histogram([2**53 - 1, 0, 0], 3)[0] == 2**53 - 1
    with pytest.raises(ValueError, match="total times the largest query entry"):
        laplace_mechanism([[4, 4]], [2**51, 2**52], 1.0, rng=0)


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (lambda: QueryMatrix(F.astype(complex)), "a query matrix"),
        (lambda: QueryMatrix(sp.csr_array(F.astype(complex))), "a query matrix"),
        (lambda: check_histogram(np.array([1, 2, 3, 4], dtype=complex), 4), "the histogram"),
        (lambda: laplace_mechanism(F * 1j, [1, 2, 3, 4], 1.0, rng=0), "a query matrix"),
    ],
)
@pytest.mark.filterwarnings("error")
def test_sweep37_f15_complex_queries_and_histograms_are_refused(make, what):
    """Sweep 37 F15: complex arrays were cast to real with numpy's ComplexWarning leaking."""
    with pytest.raises(ValueError, match=f"{what} must hold real numbers, got complex dtype"):
        make()


@pytest.mark.parametrize("sparse", [False, True])
def test_sweep37_f16_entries_near_float64_s_limit_leak_no_overflow(sparse):
    """Sweep 37 F16 (for QueryMatrix): entries near 1e308 leaked NumPy's overflow
    RuntimeWarning and an infinite sensitivity; the norms are now computed on an exactly
    scaled copy (privcut.linear.scaling, as cut_norm does), or refused past float64."""

    def matrix(rows):
        return sp.csr_array(np.array(rows)) if sparse else np.array(rows)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F = QueryMatrix(matrix([[1e308, 0.0], [0.0, -1e308], [1.0, 0.0]]))
        assert F.l1_sensitivity == 1e308 and F.l2_sensitivity == 1e308
        diagonal = QueryMatrix(matrix([[3.0, 0.0], [4.0, 1.0]]))  # unscaled, as before
        assert (diagonal.l1_sensitivity, diagonal.l2_sensitivity) == (7.0, 5.0)
        with pytest.raises(ValueError, match=r"l1 sensitivity .* beyond float64's range"):
            QueryMatrix(matrix([[1e308], [1e308]]))
        with pytest.raises(ValueError, match="rescale F by 1 / c"):
            l2_sensitivity(matrix([[1e308, 1e308], [1e308, 0.0]]))
