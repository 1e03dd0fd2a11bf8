"""The cut norm ``||A||_C = max_{S,T} |A(S, T)|`` (GRU12 §2), with certified upper bounds.

Computing it is NP-hard, so every method returns a cut (S, T) that achieves
``value`` (a lower bound) and, where it can, a certified ``upper_bound``:

* ``"exact"``: enumerate the subsets of the smaller side (at most 20), the best
  other side being the columns (rows) with positive, or negative, sums.
* ``"spectral"``: sweeps along the top singular vectors (GRU12 §6.2), each
  prefix scored with its best response, then local improvement; upper bound
  ``sqrt(m m') sigma_1`` (the inequality of Nikiforov 2009, GRU12 eq. 4, with
  ``|S||T| <= m m'``; sigma_1 from ARPACK, certified up to its convergence
  tolerance) or the total positive/negative mass, whichever is smaller.
* ``"low-rank"``: the Alon & Naor 2006 SDP relaxation of the padded matrix solved by a
  Burer & Monteiro 2003 factorisation in rank about sqrt(2n) (alternating exact block
  maximisation), Gaussian-hyperplane rounding, local improvement; the upper
  bound is a dual-feasible point built from the factor and certified by a
  Cholesky factorisation.
* ``"alon-naor"``: the same relaxation solved by cvxpy (small n only): the
  reference for ``"low-rank"``. cvxpy is an optional extra: ``pip install privcut[sdp]``.

Padding A with one row and one column so that every row and column sums to zero
keeps its cut norm and makes ``||A'||_{inf->1} = 4 ||A'||_C`` exactly, so the
SDP bound on ``||A'||_{inf->1}`` divided by 4 bounds the cut norm tightly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from scipy.sparse.linalg import ArpackError, LinearOperator, eigsh, svds

from privcut.exceptions import DependencyError
from privcut.linear.scaling import scaled, unscaled
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_option, check_real

__all__ = ["CutNormResult", "cut_norm", "local_improvement", "normalized_cut_norm"]

MAX_EXACT = 20
"""Largest smaller side that ``"exact"`` enumerates (2**20 subsets)."""

MAX_CVXPY = 120
"""Largest size the cvxpy reference solves (an SCS solve takes ~100 s at n = 100)."""

MAX_RANK = 16
"""Rank cap of the Burer–Monteiro factor (sqrt(2N) guarantees no spurious local optima;
measured, rank 16 already gives certificates within 1.2x at n = 1000-2000)."""

SVD_TOL = 1e-3
"""Relative tolerance of the singular vectors that seed the spectral sweeps."""

DENSE_SVD = 200
"""Up to this size the singular vectors come from a dense SVD (exact, and robust to
degenerate matrices where ARPACK fails)."""

SWEEP_SIZES = 64
"""Prefix sizes (geometrically spaced) scored by the normalized spectral sweep."""

SMALL = 200
"""Up to this size the low-rank method rounds with more hyperplanes and improves every
promising start (cheap there)."""

SMALL_RESTARTS = 4
"""Burer–Monteiro starts for small matrices (each rounded; the best factor is certified)."""

BM_STEPS = 60
"""Most alternating steps of the Burer–Monteiro solver."""


METHODS = ("auto", "exact", "spectral", "low-rank", "alon-naor")
"""The methods of :func:`cut_norm` (see the module docstring)."""


@dataclass(frozen=True)
class CutNormResult:
    """A cut achieving ``value`` and a certified bound on the cut norm.

    Attributes
    ----------
    value : float
        ``|A(S, T)|``, a lower bound on the cut norm.
    S, T : numpy.ndarray
        Row and column indices of the cut.
    upper_bound : float
        Certified upper bound on the cut norm (``inf`` where the method has none).
    method : str
        The method that produced the result.
    """

    value: float
    S: np.ndarray
    T: np.ndarray
    upper_bound: float
    method: str


def _as_matrix(A: object) -> np.ndarray:
    check_real(A, "the cut norm's matrix A", "A.real")
    try:
        matrix = A.toarray() if sp.issparse(A) else np.asarray(A, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(
            f"the cut norm needs a 2-D matrix A of real numbers, got {type(A).__name__}"
        ) from None
    if matrix.ndim != 2 or 0 in matrix.shape:
        raise ValueError(f"the cut norm needs a non-empty 2-D matrix, got shape {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise ValueError("the matrix has NaN or infinite entries")
    return np.asarray(matrix, dtype=float)


def _scaled_back(result: CutNormResult, shift: int) -> CutNormResult:
    """A result on ``A * 2**-shift`` as one on A (the cut norm is linear in A); an error
    if its value is beyond float64's range."""
    if not shift:
        return result
    try:
        bound = unscaled(result.upper_bound, shift)
    except OverflowError:
        bound = math.inf  # no finite bound to give
    return CutNormResult(_unscaled(result.value, shift), result.S, result.T, bound, result.method)


def _unscaled(value: float, shift: int) -> float:
    """A cut's value on ``A * 2**-shift`` as its value on A, or a clear error past float64."""
    try:
        return unscaled(value, shift)
    except OverflowError:
        raise ValueError(
            "the cut's value on A is beyond float64's range (about 1.8e308): rescale A, e.g. "
            "by 1 / c, and multiply the value by c (it is linear in A)"
        ) from None


def local_improvement(A: np.ndarray, rows: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """From a row set, alternate best responses for both signs until nothing changes.

    For the sign +1, T becomes the columns whose sum over S is positive, then S the
    rows whose sum over T is positive (and symmetrically for -1); each step never
    lowers ``|A(S, T)|``. Returns the better of the two signs.

    Parameters
    ----------
    A : array_like
        A non-empty 2-D matrix of real numbers.
    rows : array_like
        The starting row set: a boolean mask with one entry per row of A, or an array of
        row indices (as returned in ``S``).

    Returns
    -------
    value : float
        ``|A(S, T)|`` of the cut found.
    S, T : numpy.ndarray
        Its row and column indices.

    Examples
    --------
    >>> A = np.array([[1.0, -1.0], [-1.0, 1.0]])
    >>> value, S, T = local_improvement(A, np.array([True, False]))
    >>> value, S.tolist(), T.tolist()
    (1.0, [0], [0])
    >>> local_improvement(A, [1])[1].tolist()
    [1]
    """
    A, shift = scaled(_as_matrix(A))
    value, S, T = _improve(A, _row_mask(rows, A.shape[0]))
    return _unscaled(value, shift), S, T


def _row_mask(rows: object, n: int) -> np.ndarray:
    """``rows`` (a boolean mask of length n, or row indices) as a boolean mask."""
    chosen = np.asarray(rows)
    if chosen.dtype == bool:
        if chosen.shape != (n,):
            raise ValueError(
                f"rows as a boolean mask needs one entry per row of A ({n}), got shape "
                f"{chosen.shape}"
            )
        return chosen
    if chosen.size and (chosen.ndim != 1 or chosen.dtype.kind not in "iu"):
        raise TypeError(
            "rows must be a boolean mask with one entry per row of A or a 1-D array of row "
            f"indices, got {chosen.dtype} of shape {chosen.shape}"
        )
    indices = chosen.astype(np.intp).ravel()
    if indices.size and not (0 <= indices.min() and indices.max() < n):
        raise ValueError(f"row indices must be in [0, {n}), got {indices.min()}..{indices.max()}")
    mask = np.zeros(n, dtype=bool)
    mask[indices] = True
    return mask


def _improve(A: np.ndarray, rows: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """:func:`local_improvement` on a checked float matrix from a row set (a mask)."""
    best = (-1.0, np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp))
    for sign in (1.0, -1.0):
        S = np.asarray(rows, dtype=bool)
        value, T = 0.0, np.zeros(A.shape[1], dtype=bool)
        for _ in range(100):
            T = sign * (S @ A) > 0
            sums = sign * (A @ T)
            improved = sums > 0
            value = float(sums[improved].sum())
            if np.array_equal(improved, S):
                break
            S = improved
        if value > best[0]:
            best = (value, np.flatnonzero(S), np.flatnonzero(T))
    return best


def _mass_bound(A: np.ndarray) -> float:
    return float(max(np.clip(A, 0.0, None).sum(), -np.clip(A, None, 0.0).sum()))


def _exact(A: np.ndarray) -> CutNormResult:
    transposed = A.shape[0] > A.shape[1]
    matrix = A.T if transposed else A
    r = matrix.shape[0]
    if r > MAX_EXACT:
        raise ValueError(
            f"method='exact' enumerates the 2**{r} subsets of the smaller side and allows at "
            f"most {MAX_EXACT}; use 'low-rank', 'spectral' or 'auto'"
        )
    best = (-1.0, 0, 1.0)
    chunk = 1 << 15
    for start in range(0, 1 << r, chunk):
        codes = np.arange(start, min(start + chunk, 1 << r))
        subsets = ((codes[:, None] >> np.arange(r)) & 1).astype(float)
        sums = subsets @ matrix
        for sign in (1.0, -1.0):
            values = np.clip(sign * sums, 0.0, None).sum(axis=1)
            top = int(np.argmax(values))
            if values[top] > best[0]:
                best = (float(values[top]), int(codes[top]), sign)
    value, code, sign = best
    S = np.flatnonzero((code >> np.arange(r)) & 1)
    T = np.flatnonzero(sign * matrix[S].sum(axis=0) > 0)
    S, T = (T, S) if transposed else (S, T)
    return CutNormResult(value, S, T, value, "exact")


def _sweep_starts(A: np.ndarray, direction: np.ndarray) -> list[np.ndarray]:
    """The best prefix of the rows sorted along a direction (both ways), each prefix scored
    by its best response."""
    starts = []
    for order in (np.argsort(-direction, kind="stable"), np.argsort(direction, kind="stable")):
        prefix_sums = np.cumsum(A[order], axis=0)
        scores = np.maximum(
            np.clip(prefix_sums, 0.0, None).sum(axis=1),
            -np.clip(prefix_sums, None, 0.0).sum(axis=1),
        )
        rows = np.zeros(A.shape[0], dtype=bool)
        rows[order[: int(np.argmax(scores)) + 1]] = True
        starts.append(rows)
    return starts


def _response_value(A: np.ndarray, rows: np.ndarray) -> float:
    """``max_T |A(rows, T)|``: the value of a row set with its best response."""
    sums = rows @ A
    return float(max(np.clip(sums, 0.0, None).sum(), -np.clip(sums, None, 0.0).sum()))


def _best_of(
    A: np.ndarray, starts: list[np.ndarray], keep: int = 2
) -> tuple[float, np.ndarray, np.ndarray]:
    """Local improvement from the ``keep`` most promising starting row sets."""
    ranked = sorted(starts, key=lambda rows: _response_value(A, rows), reverse=True)
    return max((_improve(A, rows) for rows in ranked[:keep]), key=lambda f: f[0])


def _top_singular(
    A: np.ndarray, k: int, generator: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The top k left singular vectors (columns, by decreasing value) and values: dense for
    small or zero matrices, else ARPACK, which stops when the residual is below tol * sigma,
    so sigma_1 <= sigma_hat (1 + tol)."""
    if min(A.shape) <= DENSE_SVD or not np.any(A):
        U, sigma, _ = np.linalg.svd(A, full_matrices=False)
        return U[:, :k], sigma[:k]
    U, sigma, _ = svds(A, k=k, tol=SVD_TOL, random_state=int(generator.integers(2**31)))
    order = np.argsort(-sigma, kind="stable")
    return U[:, order], sigma[order]


def _spectral(A: np.ndarray, generator: np.random.Generator) -> CutNormResult:
    k = max(1, min(2, min(A.shape) - 1))  # svds needs k < min(shape); a vector goes dense
    U, sigma = _top_singular(A, k, generator)
    starts = [sign * U[:, j] > 0 for j in range(k) for sign in (1.0, -1.0)]
    value, S, T = _best_of(A, starts + _sweep_starts(A, U[:, 0]))
    top = float(sigma.max()) * (1.0 + SVD_TOL)
    bound = min(math.sqrt(A.shape[0] * A.shape[1]) * top, _mass_bound(A))
    return CutNormResult(value, S, T, max(bound, value), "spectral")


def _pad(A: np.ndarray) -> np.ndarray:
    """A with a last row and column making every row and column sum zero."""
    column_sums = A.sum(axis=0)
    row_sums = A.sum(axis=1)
    return np.block([[A, -row_sums[:, None]], [-column_sums[None, :], np.array([[A.sum()]])]])


def _normalise(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.where(norms > 0, rows / np.where(norms > 0, norms, 1.0), 0.0)


def _burer_monteiro(padded: np.ndarray, rank: int, generator: np.random.Generator):
    """Maximise ``sum_ij A'_ij <u_i, v_j>`` over unit rows: alternate the exact maximisers
    ``U = rows(A' V) / norms`` and ``V = rows(A'^T U) / norms`` (each step never lowers it),
    until a step gains less than 1e-4 relatively (at most BM_STEPS steps)."""
    V = _normalise(generator.standard_normal((padded.shape[1], rank)))
    previous = -math.inf
    for _ in range(BM_STEPS):
        U = _normalise(padded @ V)
        AtU = padded.T @ U
        V = _normalise(AtU)
        value = float(np.sum(V * AtU))
        if value - previous <= 1e-4 * abs(value):
            break
        previous = value
    return U, V


def _smallest_eigenvalue(
    operator: LinearOperator, rows: np.ndarray, columns: np.ndarray, half: np.ndarray
) -> float:
    """An estimate of the smallest eigenvalue of ``Diag(y) - B``: dense for small sizes,
    Lanczos otherwise, and Weyl's bound ``min(y) - sigma_1(A'/2)`` if Lanczos stalls. Only
    the shift depends on it: the Cholesky factorisation is the certificate. Lanczos starts
    from a fixed vector, so that a bound is the same on every run."""
    size = operator.shape[0]
    if size <= 1500:
        dense = operator @ np.eye(size)
        return float(la.eigh((dense + dense.T) / 2.0, subset_by_index=[0, 0], eigvals_only=True)[0])
    start = np.random.default_rng(0).standard_normal(size)  # fixed: the same bound each run
    try:
        return float(
            eigsh(operator, k=1, which="SA", tol=1e-3, v0=start, return_eigenvectors=False)[0]
        )
    except ArpackError:  # no convergence, or a zero operator (an all-zero matrix)
        return float(min(rows.min(), columns.min()) - la.norm(half, 2))


def _certify(padded: np.ndarray, y: np.ndarray) -> float:
    """Weak duality for ``max <B, X>, diag X = 1, X psd`` with ``B = [[0, A'], [A'^T, 0]] / 2``:
    if ``Diag(y) + s I - B`` is positive semidefinite then ``sum(y) + N s`` bounds the SDP,
    hence ``||A'||_{inf->1} = 4 ||A||_C``. The shift s comes from a Lanczos estimate of the
    smallest eigenvalue; the certificate is a Cholesky factorisation of the Schur complement
    ``D2 - A'^T D1^{-1} A' / 4`` (D1, D2 the shifted diagonal blocks, D1 > 0), which is
    positive definite exactly when the whole matrix is."""
    m, n = padded.shape
    half = padded / 2.0
    rows, columns = y[:m], y[m:]

    def matvec(x: np.ndarray) -> np.ndarray:
        x = np.ravel(x)
        return np.concatenate([rows * x[:m] - half @ x[m:], columns * x[m:] - half.T @ x[:m]])

    smallest = _smallest_eigenvalue(
        LinearOperator((m + n, m + n), matvec=matvec, dtype=float), rows, columns, half
    )
    margin = 1e-9 * max(1.0, float(np.abs(y).max()))
    for _ in range(12):
        shift = max(0.0, -smallest) + margin
        first = rows + shift
        if first.min() > 0.0:
            schur = (half.T / first) @ half
            schur *= -1.0
            schur[np.diag_indices(n)] += columns + shift
            try:
                la.cholesky(schur, lower=True, overwrite_a=True, check_finite=False)
            except la.LinAlgError:
                pass
            else:
                return (float(y.sum()) + (m + n) * shift) / 4.0
        margin *= 10.0
    return math.inf


def _round(
    A: np.ndarray, U: np.ndarray, V: np.ndarray, generator: np.random.Generator, tries: int = 64
) -> list[np.ndarray]:
    """Gaussian-hyperplane rounding (Alon–Naor): rows with ``<u_i, g> > 0``, folded back from
    the padded index, as starting row sets; the best few by their own cut value."""
    g = generator.standard_normal((U.shape[1], tries))
    X = (U @ g) > 0
    Y = (V @ g) > 0
    X[:, X[-1]] = ~X[:, X[-1]]  # complementing a side negates A'(S, T); keep the pad out
    Y[:, Y[-1]] = ~Y[:, Y[-1]]
    values = np.abs(np.einsum("ik,ik->k", X[:-1].astype(float), A @ Y[:-1].astype(float)))
    return [X[:-1, c] for c in np.argsort(-values, kind="stable")[:16]]


def _round_and_improve(
    A: np.ndarray, U: np.ndarray, V: np.ndarray, generator: np.random.Generator
) -> tuple[float, np.ndarray, np.ndarray]:
    """Round the SDP factor and improve the best starts locally (more of both when small)."""
    small = max(A.shape) <= SMALL
    starts = _round(A, U, V, generator, tries=512 if small else 64)
    return _best_of(A, starts, keep=len(starts) if small else 2)


def _low_rank(A: np.ndarray, generator: np.random.Generator, certify: bool = True) -> CutNormResult:
    padded = _pad(A)
    rank = min(MAX_RANK, max(2, math.ceil(math.sqrt(2 * sum(padded.shape)))))
    restarts = SMALL_RESTARTS if max(A.shape) <= SMALL else 1
    factors = [_burer_monteiro(padded, rank, generator) for _ in range(restarts)]
    value, S, T = max(
        (_round_and_improve(A, U, V, generator) for U, V in factors), key=lambda found: found[0]
    )
    if not certify:
        return CutNormResult(value, S, T, _mass_bound(A), "low-rank")
    U, V = max(factors, key=lambda factor: float(np.sum(factor[0] * (padded @ factor[1]))))
    y = np.concatenate(
        [np.einsum("ij,ij->i", U, padded @ V), np.einsum("ij,ij->i", V, padded.T @ U)]
    )
    bound = min(_certify(padded, y / 2.0), _mass_bound(A))
    return CutNormResult(value, S, T, max(bound, value), "low-rank")


def _sdp_solver():
    """The cvxpy module, or an error naming the extra that installs it."""
    try:
        import cvxpy
    except ImportError:
        raise DependencyError(
            "method='alon-naor' solves the SDP with cvxpy, an optional dependency: "
            "pip install privcut[sdp] (or use method='low-rank', the same relaxation "
            "without cvxpy)"
        ) from None
    return cvxpy


def _alon_naor(A: np.ndarray, generator: np.random.Generator, cp) -> CutNormResult:
    if max(A.shape) > MAX_CVXPY:
        raise ValueError(
            f"method='alon-naor' solves the SDP with cvxpy and allows n <= {MAX_CVXPY} (an "
            f"SCS solve takes ~100 s at n = 100), got {A.shape}; use 'low-rank'"
        )
    padded = _pad(A)
    m, n = padded.shape
    X = cp.Variable((m + n, m + n), symmetric=True)
    constraints = [cp.diag(X) == 1, X >> 0]
    problem = cp.Problem(cp.Maximize(cp.sum(cp.multiply(padded, X[:m, m:]))), constraints)
    problem.solve(solver="SCS", eps=1e-6)
    gram = np.asarray(X.value)
    eigenvalues, eigenvectors = np.linalg.eigh((gram + gram.T) / 2.0)
    factor = eigenvectors * np.sqrt(np.clip(eigenvalues, 0.0, None))
    value, S, T = _round_and_improve(A, factor[:m], factor[m:], generator)
    y = np.asarray(constraints[0].dual_value, dtype=float)
    bound = min(_certify(padded, np.abs(y)), _mass_bound(A))
    return CutNormResult(value, S, T, max(bound, value), "alon-naor")


def cut_norm(
    A: object, *, method: str = "auto", certify: bool = True, rng: RandomState = None
) -> CutNormResult:
    """Approximate the cut norm ``max_{S,T} |A(S, T)|`` and certify how far it can be.

    Not a private computation: use it on public or noisy matrices, or to evaluate.

    Parameters
    ----------
    A : numpy.ndarray or scipy.sparse array, shape (m, m')
        Any real matrix.
    method : {"auto", "exact", "spectral", "low-rank", "alon-naor"}
        See the module docstring. ``"auto"``: exact when the smaller side is at most
        20, else the better cut of ``"spectral"`` and ``"low-rank"`` with the
        smaller of their certified bounds. ``"alon-naor"`` needs cvxpy
        (``pip install privcut[sdp]``).
    certify : bool, default True
        ``False`` skips the low-rank method's dual certificate (its ``upper_bound`` is
        then the total mass bound): for separation oracles, which need only the cut.
    rng : None, int or numpy.random.Generator, optional
        Randomness for the sketches and roundings.

    Returns
    -------
    CutNormResult

    Raises
    ------
    DependencyError
        If ``method="alon-naor"`` and cvxpy is not installed (before any work); it is
        an ``ImportError``.
    ValueError
        If A is not a non-empty 2-D finite real matrix, or the cut found is worth more
        than float64 holds (entries beyond :data:`~privcut.linear.scaling.HUGE` are
        first scaled down exactly, so no overflow happens inside).

    Examples
    --------
    >>> A = np.array([[1.0, -2.0], [3.0, 1.0]])
    >>> result = cut_norm(A, method="exact")
    >>> result.value, result.S.tolist(), result.T.tolist()
    (4.0, [1], [0, 1])
    """
    check_option(method, "method", METHODS)
    cp = _sdp_solver() if method == "alon-naor" else None  # before any work
    matrix, shift = scaled(_as_matrix(A))
    generator = check_random_state(rng)
    return _scaled_back(_cut_norm(matrix, method, certify, generator, cp), shift)


def _cut_norm(matrix: np.ndarray, method: str, certify: bool, generator, cp) -> CutNormResult:
    """:func:`cut_norm` on a checked matrix."""
    if method == "auto":
        if min(matrix.shape) <= MAX_EXACT:
            return _exact(matrix)
        spectral = _spectral(matrix, generator)
        low_rank = _low_rank(matrix, generator, certify)
        best = max(spectral, low_rank, key=lambda result: result.value)
        bound = min(spectral.upper_bound, low_rank.upper_bound)
        return CutNormResult(best.value, best.S, best.T, bound, f"auto ({best.method})")
    solver = {
        "exact": lambda: _exact(matrix),
        "spectral": lambda: _spectral(matrix, generator),
        "low-rank": lambda: _low_rank(matrix, generator, certify),
        "alon-naor": lambda: _alon_naor(matrix, generator, cp),
    }[method]
    return solver()


def _scaled_responses(
    sums: np.ndarray, scales: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each row r, ``max_T |sum_{j in T} sums[r, j]| / scales[r, |T| - 1]``: the best T
    of each size takes the largest entries of one sign. Returns value, size and sign."""
    sums, scales = np.atleast_2d(sums), np.atleast_2d(scales)
    rows = np.arange(sums.shape[0])
    best = None
    for sign in (1.0, -1.0):
        scores = np.cumsum(-np.sort(-sign * sums, axis=1), axis=1) / scales
        sizes = np.argmax(scores, axis=1) + 1
        found = (scores[rows, sizes - 1], sizes, np.full(rows.size, sign))
        best = (
            found
            if best is None
            else tuple(
                np.where(best[0] >= found[0], old, new)
                for old, new in zip(best, found, strict=True)
            )
        )
    return best


def _scaled_side(sums: np.ndarray, scales: np.ndarray) -> tuple[float, np.ndarray]:
    """The best scaled response to one vector of sums, as an indicator."""
    (value,), (size,), (sign,) = _scaled_responses(sums, scales)
    side = np.zeros(sums.size, dtype=bool)
    side[np.argsort(-sign * sums, kind="stable")[:size]] = True
    return float(value), side


def _scaled_improvement(
    A: np.ndarray, scale: np.ndarray, rows: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """Alternate best responses from a row set; each step never lowers
    ``|A(S, T)| / scale[|S| - 1, |T| - 1]``."""
    S = np.asarray(rows, dtype=bool).copy()
    if not S.any():
        S[0] = True
    value = -1.0
    for _ in range(100):
        _, T = _scaled_side(S @ A, scale[S.sum() - 1])
        gained, S_next = _scaled_side(A @ T, scale[:, T.sum() - 1])
        if gained <= value * (1.0 + 1e-12):
            break
        value, S = gained, S_next
    _, T = _scaled_side(S @ A, scale[S.sum() - 1])
    return value, np.flatnonzero(S), np.flatnonzero(T)


def _scaled_exact(A: np.ndarray, scale: np.ndarray) -> CutNormResult:
    transposed = A.shape[0] > A.shape[1]
    matrix, table = (A.T, scale.T) if transposed else (A, scale)
    r = matrix.shape[0]
    best = (-1.0, 0)
    for start in range(0, 1 << r, 1 << 14):
        codes = np.arange(max(start, 1), min(start + (1 << 14), 1 << r))
        subsets = ((codes[:, None] >> np.arange(r)) & 1).astype(float)
        sizes = subsets.sum(axis=1).astype(int)
        values = _scaled_responses(subsets @ matrix, table[sizes - 1])[0]
        top = int(np.argmax(values))
        if values[top] > best[0]:
            best = (float(values[top]), int(codes[top]))
    value, code = best
    S = (code >> np.arange(r)) & 1 == 1
    _, T = _scaled_side(S @ matrix, table[S.sum() - 1])
    S, T = np.flatnonzero(S), np.flatnonzero(T)
    S, T = (T, S) if transposed else (S, T)
    return CutNormResult(value, S, T, value, "exact")


def normalized_cut_norm(
    A: object, *, scale: np.ndarray | None = None, rng: RandomState = None
) -> CutNormResult:
    """Approximate the normalized cut norm ``max_{S,T} |A(S, T)| / sqrt(|S| |T|)`` (GRU12
    §6.2), or ``max |A(S, T)| / scale[|S| - 1, |T| - 1]`` for any positive size scale, with
    a certified upper bound from Nikiforov's inequality (GRU12 eq. 4):
    ``|A(S, T)| <= sigma_1(A) sqrt(|S| |T|)``.

    Exact enumeration when the smaller side is at most 20; otherwise sweeps along the
    top singular vector (prefixes of geometrically spaced sizes, each scored by its
    best response, as in the algorithm after eq. 4) and local improvement of the
    scaled value from the best starts, which finds a cut within ``O(log |V|)`` of
    ``sigma_1`` for the normalized scale. Not a private computation.

    Parameters
    ----------
    A : numpy.ndarray or scipy.sparse array, shape (m, m')
        Any real matrix.
    scale : numpy.ndarray, shape (m, m'), optional
        ``scale[s - 1, t - 1] > 0`` divides the cuts with ``|S| = s, |T| = t``;
        default ``sqrt(s t)``.
    rng : None, int or numpy.random.Generator, optional
        Randomness for the sketch.

    Returns
    -------
    CutNormResult
        ``value`` is the scaled value of the cut (S, T); ``upper_bound`` is
        ``sigma_1 max_{s,t} sqrt(s t) / scale[s - 1, t - 1]`` (sigma_1 from ARPACK,
        certified up to its tolerance), or exact.

    Examples
    --------
    >>> A = np.array([[4.0, 0.0], [0.0, 1.0]])
    >>> result = normalized_cut_norm(A)
    >>> result.value, result.S.tolist(), result.T.tolist()
    (4.0, [0], [0])
    """
    matrix, shift = scaled(_as_matrix(A))
    return _scaled_back(_normalized(matrix, scale, rng), shift)


def _normalized(matrix: np.ndarray, scale: np.ndarray | None, rng: RandomState) -> CutNormResult:
    """:func:`normalized_cut_norm` on a checked matrix."""
    roots = np.sqrt(np.outer(np.arange(1, matrix.shape[0] + 1), np.arange(1, matrix.shape[1] + 1)))
    scale = roots if scale is None else np.asarray(scale, dtype=float)
    if scale.shape != matrix.shape or not np.all(scale > 0):
        raise ValueError(f"scale must be a positive array of shape {matrix.shape}")
    if min(matrix.shape) <= MAX_EXACT:
        return _scaled_exact(matrix, scale)
    generator = check_random_state(rng)
    k = min(2, min(matrix.shape) - 1)
    U, sigma = _top_singular(matrix, k, generator)
    sizes = np.unique(np.geomspace(1, matrix.shape[0], SWEEP_SIZES).astype(int))
    starts = [sign * U[:, j] > 0 for j in range(k) for sign in (1.0, -1.0)]
    for order in (np.argsort(-U[:, 0], kind="stable"), np.argsort(U[:, 0], kind="stable")):
        prefix_sums = np.cumsum(matrix[order], axis=0)[sizes - 1]
        scores = _scaled_responses(prefix_sums, scale[sizes - 1])[0]
        rows = np.zeros(matrix.shape[0], dtype=bool)
        rows[order[: sizes[int(np.argmax(scores))]]] = True
        starts.append(rows)
    value, S, T = max(
        (_scaled_improvement(matrix, scale, rows) for rows in starts),
        key=lambda found: found[0],
    )
    top = float(sigma.max()) * (1.0 + SVD_TOL) * float(np.max(roots / scale))
    return CutNormResult(value, S, T, max(top, value), "spectral")
