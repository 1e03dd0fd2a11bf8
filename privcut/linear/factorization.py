"""The factorization (matrix) mechanism and its strategies (SU notes §2, LQR slides).

Write the workload as ``F = R M``. Measure ``M h`` with noise calibrated to the
sensitivity of ``M``, then answer with ``R (M h + Z)``. The error per query is
``sigma ||R||_F / sqrt(k)`` for noise of standard deviation sigma per unit of
sensitivity (SU notes Thm 2.3), so a good strategy ``M`` makes
``||R||_F ||M||_{1->2}`` small. Strategies are chosen from the queries alone,
never from the data.
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from scipy.optimize import minimize

from privcut.linear.queries import (
    QueryMatrix,
    answer_error,
    as_query_matrix,
    check_histogram,
    check_total,
)
from privcut.linear.release import LinearRelease
from privcut.privacy import Noise, check_beta, check_delta, check_epsilon
from privcut.privacy.random import RandomState
from privcut.privacy.validation import check_option
from privcut.records import Record

__all__ = ["Factorization", "binary_tree_strategy", "factorization_mechanism", "factorize"]

STRATEGIES = ("identity", "workload", "binary-tree", "optimized")
"""The named strategies; an explicit ``(R, M)`` pair is the other choice."""

MAX_OPTIMIZED_DOMAIN = 4096
"""Largest universe for the ``"optimized"`` strategy: each step inverts an m x m matrix."""

OPTIMIZER_STEPS = 200
"""L-BFGS iterations of the ``"optimized"`` strategy's search."""

CACHE_SIZE = 8
"""Costly factorizations remembered per process, keyed by the workload's bytes: they depend
on the queries only, so a workload released again is not searched again."""

_CACHE: OrderedDict[tuple, Factorization] = OrderedDict()


@dataclass(frozen=True)
class Factorization(Record):
    """A factorization ``F = R M`` of a workload: measure with M, reconstruct with R.

    Its :meth:`to_dict` is a summary (name, shapes, sensitivities of M), not the matrices,
    which can be large.

    Attributes
    ----------
    R : numpy.ndarray, shape (k, p)
        The reconstruction.
    M : QueryMatrix, shape (p, m)
        The measurements (the strategy).
    name : str
        Which strategy produced it.
    """

    R: np.ndarray
    M: QueryMatrix
    name: str

    def sensitivity(self, pure: bool) -> float:
        """The sensitivity of M: l1 for pure DP (Laplace), l2 otherwise (Gaussian)."""
        return self.M.l1_sensitivity if pure else self.M.l2_sensitivity

    def error_factor(self, pure: bool) -> float:
        """``||R||_F * sensitivity(M) / sqrt(k)``: the per-query RMS error per unit of noise."""
        k = self.R.shape[0]
        return float(np.linalg.norm(self.R) * self.sensitivity(pure) / math.sqrt(k))

    def to_dict(self) -> dict[str, Any]:
        """The strategy's name, the shapes of R and M and M's sensitivities (plain data).

        Examples
        --------
        >>> factorize(np.eye(2), "identity").to_dict()["M_shape"]
        [2, 2]
        """
        return {
            "name": self.name,
            "R_shape": list(self.R.shape),
            "M_shape": list(self.M.shape),
            "l1_sensitivity": float(self.M.l1_sensitivity),
            "l2_sensitivity": float(self.M.l2_sensitivity),
        }


def binary_tree_strategy(m: int) -> QueryMatrix:
    """The binary tree (hierarchical) measurements over an ordered domain of size m.

    One row per dyadic interval ``[i w, (i + 1) w)`` for widths ``w = 1, 2, 4, ...``
    up to the first ``w >= m`` (SU notes Exercise 2.1, LQR slides). Every element lies
    in one interval per level, so the l1 sensitivity is the number of levels L and
    the l2 sensitivity ``sqrt(L)``; any prefix or range is a sum of at most
    ``2 log2 m`` rows.

    Examples
    --------
    >>> tree = binary_tree_strategy(4)
    >>> tree.toarray().astype(int)
    array([[1, 0, 0, 0],
           [0, 1, 0, 0],
           [0, 0, 1, 0],
           [0, 0, 0, 1],
           [1, 1, 0, 0],
           [0, 0, 1, 1],
           [1, 1, 1, 1]])
    >>> tree.l1_sensitivity
    3.0
    """
    rows, columns, width, offset = [], [], 1, 0
    while True:
        blocks = np.arange(m) // width
        rows.append(offset + blocks)
        columns.append(np.arange(m))
        offset += int(blocks[-1]) + 1
        if width >= m:
            break
        width *= 2
    rows_, columns_ = np.concatenate(rows), np.concatenate(columns)
    matrix = sp.csr_array((np.ones(rows_.size), (rows_, columns_)), shape=(offset, m))
    return QueryMatrix(matrix)


def _least_squares_reconstruction(F: np.ndarray, M: QueryMatrix) -> np.ndarray:
    """``R = F M^+`` for M of full column rank: the R of least Frobenius norm with RM = F."""
    dense = M.toarray()
    gram = dense.T @ dense
    solved = la.cho_solve(la.cho_factor(gram), F.T)
    return (dense @ solved).T


def _optimized(F: np.ndarray, pure: bool, rows: int, seed: int = 0) -> Factorization:
    """HDMM's OPT_0 (McKenna et al. 2018): ``M = [I; Theta] D^{-1}`` with Theta >= 0 and D
    normalising every column of M to norm 1 (l1 for pure DP, l2 otherwise), Theta minimising
    ``||R||_F^2 = tr(D G D X^{-1})`` with ``G = F^T F``, ``X = I + Theta^T Theta``."""
    m = F.shape[1]
    G = F.T @ F

    def objective(flat: np.ndarray) -> tuple[float, np.ndarray]:
        theta = flat.reshape(rows, m)
        scale = 1.0 + theta.sum(axis=0) if pure else np.sqrt(1.0 + (theta**2).sum(axis=0))
        X = np.eye(m) + theta.T @ theta
        factor = la.cho_factor(X)
        GD = G * scale[None, :]
        GDX = la.cho_solve(factor, GD.T).T  # G D X^{-1}
        value = float(np.sum(np.diag(GDX) * scale))  # tr(D G D X^{-1})
        A = la.cho_solve(factor, scale[:, None] * GDX)  # X^{-1} D G D X^{-1}
        through_scale = 2.0 * np.diag(GDX)
        gradient = -2.0 * theta @ A + (
            through_scale[None, :] if pure else theta * (through_scale / scale)[None, :]
        )
        return value, gradient.ravel()

    start = np.random.default_rng(seed).uniform(0.0, 1.0, rows * m)
    result = minimize(
        objective,
        start,
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, None)] * (rows * m),
        options={"maxiter": OPTIMIZER_STEPS},
    )
    theta = result.x.reshape(rows, m)
    scale = 1.0 + theta.sum(axis=0) if pure else np.sqrt(1.0 + (theta**2).sum(axis=0))
    M = QueryMatrix(np.vstack([np.eye(m), theta]) / scale[None, :])
    return Factorization(_least_squares_reconstruction(F, M), M, "optimized")


def factorize(F: object, strategy: object = "optimized", *, pure: bool = False) -> Factorization:
    """Choose a factorization ``F = R M`` from the queries alone.

    Parameters
    ----------
    F : QueryMatrix or array_like, shape (k, m)
        The workload.
    strategy : str or (R, M)
        ``"identity"`` (measure the histogram: M = I, R = F), ``"workload"`` (M = F,
        R = I), ``"binary-tree"`` (:func:`binary_tree_strategy` with least-squares
        reconstruction), ``"optimized"`` (HDMM's OPT_0 gradient search over
        ``M = [I; Theta] D^{-1}``, returning the best of it, identity and workload by
        predicted error), or an explicit pair ``(R, M)`` with ``R @ M == F``.
    pure : bool, default False
        Optimise for pure DP (l1 sensitivity, Laplace noise) instead of l2.

    Returns
    -------
    Factorization

    Examples
    --------
    >>> repeated = np.ones((100, 1)) @ np.array([[1.0, 1.0, 0.0, 0.0, 1.0]])
    >>> best = factorize(repeated, "optimized")
    >>> round(best.error_factor(pure=False), 2)  # the Gaussian mechanism's is 10
    1.0
    """
    query = as_query_matrix(F)
    if isinstance(strategy, tuple):
        return _explicit(query, *strategy)
    try:
        check_option(strategy, "strategy", STRATEGIES)
    except ValueError as error:
        raise ValueError(f"{error}; or pass an explicit (R, M) pair") from None
    if strategy == "workload":
        return Factorization(np.eye(query.k), query, "workload")
    dense = query.toarray()
    if strategy == "identity":
        return Factorization(dense, QueryMatrix(sp.eye_array(query.m, format="csr")), "identity")
    if strategy == "optimized" and query.m > MAX_OPTIMIZED_DOMAIN:
        raise ValueError(
            f"the optimized strategy inverts an m x m matrix per step and allows "
            f"m <= {MAX_OPTIMIZED_DOMAIN}, got m = {query.m}; use 'identity', "
            "'workload', 'binary-tree' or an explicit (R, M)"
        )
    key = (hashlib.sha1(dense.tobytes()).hexdigest(), dense.shape, strategy, pure)
    if key not in _CACHE:
        _CACHE[key] = _search(query, dense, strategy, pure)
        _CACHE[key].R.setflags(write=False)  # shared between callers: keep it intact
        if len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    return _CACHE[key]


def _search(query: QueryMatrix, dense: np.ndarray, strategy: str, pure: bool) -> Factorization:
    """The costly strategies: least squares on the binary tree, or the OPT_0 search."""
    if strategy == "binary-tree":
        tree = binary_tree_strategy(query.m)
        return Factorization(_least_squares_reconstruction(dense, tree), tree, "binary-tree")
    candidates = [
        _optimized(dense, pure, rows=max(1, math.ceil(query.m / 16))),
        factorize(query, "identity"),
        factorize(query, "workload"),
    ]
    return min(candidates, key=lambda candidate: candidate.error_factor(pure))


def _explicit(F: QueryMatrix, R: object, M: object) -> Factorization:
    R = np.asarray(R, dtype=float)
    M = as_query_matrix(M)
    if R.shape != (F.k, M.k) or M.m != F.m:
        raise ValueError(
            f"R must be {F.k} x p and M p x {F.m} for a {F.k} x {F.m} workload, "
            f"got R {R.shape} and M {M.shape}"
        )
    product, target = R @ M.toarray(), F.toarray()
    if not _close(product, target, atol=1e-9 * max(1.0, np.abs(target).max())):
        raise ValueError("R @ M does not equal F: the pair is not a factorization of F")
    return Factorization(R, M, "explicit")


def _close(product: np.ndarray, target: np.ndarray, atol: float) -> bool:
    """``numpy.allclose(product, target, rtol=1e-9, atol=atol)`` for two float arrays of
    one shape, without its wrappers' overhead (the same test, entry by entry)."""
    with np.errstate(invalid="ignore"):
        within = np.abs(product - target) <= atol + 1e-9 * np.abs(target)
        return bool((within & np.isfinite(target) | (product == target)).all())


def reconstruction_max_error(noise: Noise, R: np.ndarray, beta: float) -> float:
    """A bound t with ``P[max_i |(R Z)_i| > t] <= beta`` for i.i.d. noise Z.

    Gaussian noise: ``(R Z)_i`` is ``sigma ||R_i||_2``-subgaussian (the discrete
    Gaussian is sigma-subgaussian, Canonne, Kamath, Steinke 2020), with a union bound
    over rows; on the grid (real-valued M) each measurement's error also has a
    rounding of at most ``grid / 2``, which adds ``||R_i||_1 grid / 2``. Laplace noise:
    ``|(R Z)_i| <= ||R_i||_1 max_j |Z_j|`` (rounding included in
    :meth:`~privcut.privacy.Noise.max_error`) and the union bound over the measurements.
    """
    k, p = R.shape
    row_l1 = np.abs(R).sum(axis=1).max()
    if noise.kind.endswith("gaussian"):
        row_norm = np.linalg.norm(R, axis=1).max()
        spread = row_norm * noise.scale * math.sqrt(2.0 * math.log(2.0 * k / beta))
        return float(spread + row_l1 * noise.grid / 2.0)
    return float(row_l1 * noise.max_error(p, beta))


def _rms_error(noise: Noise, R: np.ndarray) -> float:
    """Per-query RMS error of ``R (M h + Z)``: ``sqrt(Var Z) ||R||_F / sqrt(k)`` exactly
    for integer noise; on the grid (``Z = grid W + r``, ``|r_j| <= grid / 2``) at most
    ``sqrt(grid**2 Var W ||R||_F**2 + (grid / 2)**2 sum_i ||R_i||_1**2) / sqrt(k)``."""
    spread = noise.grid**2 * noise.units.variance if noise.grid else noise.variance
    rounding = (noise.grid / 2.0) ** 2 * float((np.abs(R).sum(axis=1) ** 2).sum())
    return math.sqrt(spread * float(np.linalg.norm(R)) ** 2 + rounding) / math.sqrt(R.shape[0])


def factorization_mechanism(
    F: object,
    h: object,
    epsilon: float,
    delta: float = 0.0,
    *,
    strategy: object = "optimized",
    beta: float = 0.05,
    rng: RandomState = None,
) -> LinearRelease:
    """Answer linear queries by the factorization (matrix) mechanism.

    Privacy: measuring ``M h`` is the Laplace mechanism (delta = 0, noise scaled to
    the l1 sensitivity of M) or the Gaussian mechanism (delta > 0, l2 sensitivity),
    so it is (epsilon, delta)-DP for count histograms differing in one element;
    the reconstruction ``R`` is post-processing (SU notes Thm 2.3, LQR slides). The
    strategy depends only on F. Integer-valued M gets integer noise; real-valued M
    has its measurements released on a public power-of-two grid with discrete noise in
    grid units calibrated for the rounding (``M.column_support`` measurements move by
    at most one more grid step), so no floating-point bit of ``M h`` leaks (Mironov
    2012; see :class:`~privcut.privacy.Noise`; ``sampler_tv`` includes it).

    Accuracy: per-query RMS error ``sqrt(Var Z) ||R||_F / sqrt(k)`` (exact for integer
    noise, a bound with the rounding on the grid), and ``max_error`` from
    :func:`reconstruction_max_error`.

    Parameters
    ----------
    F : QueryMatrix or array_like, shape (k, m)
        The queries.
    h : array_like, shape (m,)
        The private count histogram.
    epsilon : float
        Privacy parameter > 0.
    delta : float, default 0.0
        0 for pure DP (Laplace noise), else Gaussian noise.
    strategy : str or (R, M), default "optimized"
        See :func:`factorize`.
    beta : float, default 0.05
        Failure probability of ``max_error``.
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.

    Returns
    -------
    LinearRelease
        ``details`` holds the strategy, the noise and the factorization itself.

    Examples
    --------
    >>> prefixes = np.tril(np.ones((8, 8)))
    >>> release = factorization_mechanism(prefixes, np.arange(8), 1.0, 1e-6,
    ...                                   strategy="binary-tree", rng=0)
    >>> release.details["strategy"], release.answers.shape
    ('binary-tree', (8,))
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    beta = check_beta(beta)
    query = as_query_matrix(F)
    h = check_histogram(h, query.m, largest=query.l1_sensitivity)
    pure = delta == 0.0
    factorization = factorize(query, strategy, pure=pure)
    M = factorization.M
    check_total(h, M.l1_sensitivity)  # the measurements M h, too
    sensitivity = factorization.sensitivity(pure)
    noise = (
        Noise.for_laplace(epsilon, sensitivity, integer=M.integer, coordinates=M.column_support)
        if pure
        else Noise.for_gaussian(
            epsilon, delta, sensitivity, integer=M.integer, coordinates=M.column_support
        )
    )
    measured = noise.add(M @ h, rng=rng, error=answer_error(M, h))
    R = factorization.R
    return LinearRelease(
        answers=R @ measured,
        epsilon=epsilon,
        delta=delta,
        mechanism="factorization",
        expected_error=_rms_error(noise, R),
        max_error=reconstruction_max_error(noise, R, beta),
        beta=beta,
        sampler_tv=noise.tv_bound(M.k),
        details={
            "strategy": factorization.name,
            "noise": noise.kind,
            "scale": noise.scale,
            "grid": noise.grid,
            "factorization": factorization,
        },
    )
