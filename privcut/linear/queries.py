"""Linear queries over a histogram: the query matrix F and its sensitivities.

A dataset is a count histogram ``h`` over a universe of ``m`` elements
(SU notes §1.1); ``k`` linear queries are the rows of a ``k x m`` matrix ``F``
and their answers are ``F @ h``. Neighbouring histograms differ by adding or
removing one element: one coordinate changes by 1. So the l1 and l2
sensitivities of ``F`` are its largest column l1 and l2 norms (SU notes
eq. 16, ``||F||_{1->2}``).
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, aslinearoperator

from privcut.linear.scaling import scale_shift, unscaled
from privcut.privacy.noise import float_sum_error
from privcut.privacy.validation import check_real, check_scalar

__all__ = [
    "QueryMatrix",
    "answer_error",
    "as_query_matrix",
    "check_histogram",
    "check_total",
    "histograms_of_size",
    "l1_sensitivity",
    "l2_sensitivity",
    "max_entry",
]


class QueryMatrix:
    """``k`` linear queries over a universe of ``m`` elements, stored dense, sparse or implicitly.

    Parameters
    ----------
    matrix : array_like or scipy.sparse array, shape (k, m)
        The query matrix F, with finite entries. Use :meth:`implicit` for a
        matrix known only through products.

    Attributes
    ----------
    shape : tuple of int
        ``(k, m)``.
    l1_sensitivity, l2_sensitivity : float
        Largest column l1 and l2 norms: how much the answers move, in l1 and l2,
        when one element is added to or removed from the histogram.
    integer : bool
        Whether every entry is an integer, so that answers on count histograms are
        integers and mechanisms can add integer noise.
    column_support : int
        The largest number of nonzero entries in a column: how many answers one element
        can change (``k`` for an implicit matrix). Grid noise for real-valued answers is
        calibrated with it (:class:`~privcut.privacy.Noise`).

    Examples
    --------
    >>> F = QueryMatrix([[1, 1, 0], [0, 1, 1]])
    >>> F @ [2, 0, 5]
    array([2., 5.])
    >>> F.l1_sensitivity, F.l2_sensitivity
    (2.0, 1.4142135623730951)
    """

    def __init__(self, matrix: object) -> None:
        check_real(matrix, "a query matrix")
        stored = _stored(matrix)
        entries = stored.data if sp.issparse(stored) else stored
        if not np.isfinite(entries).all():
            raise ValueError("the query matrix has NaN or infinite entries")
        if stored.shape[0] == 0:
            raise ValueError("the query matrix has no queries (0 rows); give at least one")
        shift = scale_shift(entries)  # 0 but for entries near float64's limit (exact)
        small = stored * 2.0**-shift if shift else stored  # a power of two: exact
        l1 = abs(small).sum(axis=0)
        l2 = np.sqrt((small * small).sum(axis=0))  # elementwise, dense or sparse array
        if sp.issparse(stored):
            support = np.diff(sp.csc_array(stored).indptr) if stored.nnz else np.zeros(1)
        else:
            support = (stored != 0).sum(axis=0)
        self._matrix = stored
        self.shape = stored.shape
        self.l1_sensitivity = _sensitivity(l1, shift, "l1", "absolute column sum")
        self.l2_sensitivity = _sensitivity(l2, shift, "l2", "column l2 norm")
        self.integer = bool((entries == np.rint(entries)).all())
        self.column_support = max(1, int(support.max(initial=0)))

    @classmethod
    def implicit(
        cls,
        operator: LinearOperator,
        *,
        l1_sensitivity: float,
        l2_sensitivity: float,
        integer: bool = False,
    ) -> QueryMatrix:
        """A query matrix known only through products, e.g. in product form.

        Parameters
        ----------
        operator : scipy.sparse.linalg.LinearOperator
            Computes ``F @ x`` (``matvec``/``matmat``) and ``F.T @ y`` (``rmatvec``).
        l1_sensitivity, l2_sensitivity : float
            The largest column l1 and l2 norms of F. They are public facts about
            the queries, which the caller must prove (e.g. in closed form).
        integer : bool, default False
            Whether every entry of F is an integer.

        Examples
        --------
        >>> from scipy.sparse.linalg import LinearOperator
        >>> ones = LinearOperator((1, 4), matvec=lambda x: [x.sum()],
        ...                       rmatvec=lambda y: np.full(4, y[0]))
        >>> total = QueryMatrix.implicit(ones, l1_sensitivity=1, l2_sensitivity=1,
        ...                              integer=True)
        >>> total @ np.array([1, 2, 3, 4])
        array([10.])
        """
        query = cls.__new__(cls)
        query._matrix = aslinearoperator(operator)
        query.shape = tuple(operator.shape)
        query.l1_sensitivity = check_scalar(l1_sensitivity, "l1_sensitivity", low=0.0)
        query.l2_sensitivity = check_scalar(l2_sensitivity, "l2_sensitivity", low=0.0)
        query.integer = bool(integer)
        query.column_support = query.shape[0]
        return query

    @property
    def k(self) -> int:
        """The number of queries."""
        return self.shape[0]

    @property
    def m(self) -> int:
        """The size of the universe."""
        return self.shape[1]

    @property
    def is_implicit(self) -> bool:
        """Whether the matrix is known only through products."""
        return isinstance(self._matrix, LinearOperator)

    def __matmul__(self, x: object) -> np.ndarray:
        """``F @ x`` for a vector or a matrix ``x`` with ``m`` rows."""
        return np.asarray(self._matrix @ np.asarray(x, dtype=float), dtype=float)

    def rmatmul(self, y: object) -> np.ndarray:
        """``F.T @ y`` for a vector or a matrix ``y`` with ``k`` rows."""
        y = np.asarray(y, dtype=float)
        return np.asarray(self._matrix.T @ y, dtype=float)

    def toarray(self) -> np.ndarray:
        """F as a dense ``k x m`` array (for an implicit matrix: m products)."""
        if sp.issparse(self._matrix):
            return self._matrix.toarray()
        if self.is_implicit:
            return self @ np.eye(self.m)
        return self._matrix.copy()

    def __repr__(self) -> str:
        storage = (
            "implicit" if self.is_implicit else "sparse" if sp.issparse(self._matrix) else "dense"
        )
        return f"QueryMatrix({self.k} x {self.m}, {storage})"


def as_query_matrix(F: object) -> QueryMatrix:
    """Return ``F`` as a :class:`QueryMatrix` (unchanged if it already is one)."""
    return F if isinstance(F, QueryMatrix) else QueryMatrix(F)


def _stored(matrix: object) -> np.ndarray | sp.csr_array:
    """The query matrix as a float CSR array (sparse input) or a 2-D float array."""
    if sp.issparse(matrix):
        return sp.csr_array(matrix, dtype=float)
    try:
        stored = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(
            "a query matrix must be a 2-D array (k x m) of real numbers, got "
            f"{type(matrix).__name__} {matrix!r:.60}"
        ) from None
    if stored.ndim != 2:
        raise ValueError(f"a query matrix must be 2-D (k x m), got shape {stored.shape}")
    return stored


def _sensitivity(columns: np.ndarray, shift: int, name: str, norm: str) -> float:
    """The largest of the scaled matrix's column norms, scaled back
    (:func:`~privcut.linear.scaling.unscaled`); a clear error past float64's range."""
    try:
        return unscaled(float(np.max(columns, initial=0.0)), shift)
    except OverflowError:
        raise ValueError(
            f"the query matrix's {name} sensitivity (the largest {norm}) is beyond "
            "float64's range (about 1.8e308): rescale F by 1 / c and multiply the answers "
            "by c (they are linear in F)"
        ) from None


def l1_sensitivity(F: object) -> float:
    """The l1 sensitivity of the queries F: their largest column l1 norm.

    Examples
    --------
    >>> l1_sensitivity([[1, 0], [1, 1]])
    2.0
    """
    return as_query_matrix(F).l1_sensitivity


def l2_sensitivity(F: object) -> float:
    """The l2 sensitivity of the queries F: ``||F||_{1->2}``, the largest column l2 norm.

    SU notes eq. 16.

    Examples
    --------
    >>> l2_sensitivity([[1, 0], [1, 1]])
    1.4142135623730951
    """
    return as_query_matrix(F).l2_sensitivity


def max_entry(dense: np.ndarray) -> float:
    """``max |F_ij|``: how much one query's answer moves when an element is added or removed.

    Raises
    ------
    ValueError
        If every entry is zero, so that there is nothing to release.
    """
    largest = float(np.abs(dense).max(initial=0.0))
    if largest == 0.0:
        raise ValueError("every query is identically zero; there is nothing to release")
    return largest


def histograms_of_size(m: int, size: int) -> np.ndarray:
    """Every count histogram of ``size`` elements over a universe of ``m``, one per row.

    There are ``C(m + size - 1, size)`` of them; callers bound that number first.

    Examples
    --------
    >>> histograms_of_size(2, 2).tolist()
    [[2, 0], [1, 1], [0, 2]]
    """
    multisets = np.array(list(combinations_with_replacement(range(m), size)), dtype=np.intp)
    multisets = multisets.reshape(-1, size)
    histograms = np.zeros((len(multisets), m), dtype=np.int32)
    np.add.at(histograms, (np.repeat(np.arange(len(multisets)), size), multisets.ravel()), 1)
    return histograms


EXACT_LIMIT = 2.0**53
"""Answers ``F h`` of integer queries are exact in float64 only below this (2^53)."""


def check_histogram(h: object, m: int, *, largest: float = 1.0) -> np.ndarray:
    """Validate a count histogram: ``m`` non-negative integers. Returns an int64 array.

    Every count, and ``|h|_1 * max(largest, 1)`` (which bounds every answer ``|F h|``
    when ``largest`` bounds ``|F_ij|``, e.g. F's l1 sensitivity), must be below 2^53:
    beyond it float64 rounds counts and answers (and int64 wraps from 2^63), so the
    released numbers would not be the exact answer plus noise. These limits define the
    domain of histograms on which the mechanisms' guarantees are stated (neighbours are
    two histograms of that domain); an input outside it is refused, and the message
    names the limit, never a value computed from the data.

    Raises
    ------
    ValueError
        Naming what is wrong, before any noise is drawn.

    Examples
    --------
    >>> check_histogram([3, 0, 1.0], 3)
    array([3, 0, 1])
    >>> check_histogram([2**53, 0, 1], 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the histogram's counts must be below 2^53 = 9007199254740992, where ...
    """
    check_real(h, "the histogram")
    try:
        values = np.asarray(h, dtype=float)
    except (TypeError, ValueError, OverflowError) as error:
        raise ValueError(f"the histogram must be an array of counts: {error}") from None
    if values.shape != (m,):
        raise ValueError(f"the histogram must have shape ({m},) to match F, got {values.shape}")
    # Non-finite counts fail the first test, so the other two see finite values only.
    if not (
        np.isfinite(values).all() and (values >= 0).all() and (values == np.rint(values)).all()
    ):
        raise ValueError("the histogram must hold non-negative integer (finite) counts")
    if values.max(initial=0.0) >= EXACT_LIMIT:
        raise ValueError(
            f"the histogram's counts must be below 2^53 = {EXACT_LIMIT:.0f}, where float64 "
            "stops representing them exactly; scale the data down (count in coarser units)"
        )
    check_total(values, largest)
    return values.astype(np.int64)


def check_total(h: np.ndarray, largest: float) -> None:
    """Refuse a histogram already checked by :func:`check_histogram` whose total times
    ``max(largest, 1)`` reaches 2^53 (its last check, for another bound ``largest``, e.g.
    a strategy's measurements after the queries').

    Raises
    ------
    ValueError
        With :func:`check_histogram`'s message, before any noise is drawn.

    Examples
    --------
    >>> check_total(np.array([2**52, 1]), 2.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the histogram's total times the largest query entry must be below 2^53 ...
    """
    total = float(np.asarray(h, dtype=float).sum()) * max(float(largest), 1.0)
    if total >= EXACT_LIMIT:
        raise ValueError(
            "the histogram's total times the largest query entry must be below 2^53 = "
            f"{EXACT_LIMIT:.0f}, where float64 stops representing the answers F h exactly; "
            "scale the data down (count in coarser units)"
        )


def answer_error(F: QueryMatrix, h: np.ndarray) -> float:
    """A bound on the floating-point error of the computed answers ``F @ h`` for a count
    histogram h: each answer is a sum of ``F.m`` products whose absolute values add up to
    at most ``|h|_1 max|F_ij| <= |h|_1 * F.l1_sensitivity``
    (:func:`~privcut.privacy.noise.float_sum_error`). Grid noise refuses answers whose
    bound exceeds a quarter of its grid; like the 2^53 limit of :func:`check_histogram`,
    that bounds the domain of histograms the guarantee is stated on.

    Examples
    --------
    >>> answer_error(QueryMatrix([[0.5, 1.0]]), np.array([3, 4])) < 1e-14
    True
    """
    return float_sum_error(F.m, float(np.sum(h)) * F.l1_sensitivity)
