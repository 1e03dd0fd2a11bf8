"""The K-norm mechanism (Hardt & Talwar 2010, HT10 §4).

For queries F over histograms, neighbours move ``F h`` by a column of F, so by
a point of ``K = F B_1^m``, the symmetric convex hull of F's columns. The
mechanism adds noise with density proportional to ``exp(-epsilon ||a||_K)``:
a radius ``r ~ Gamma(d + 1, 1/epsilon)`` times a uniform point of K (Remark
4.2), where d is the dimension of K.

Sampling K uniformly is the hard step. Two samplers:

* ``"exact"``: triangulate K (Qhull) into simplices with a common vertex at
  the origin, pick one with probability proportional to its volume and a
  uniform point inside it. Exact, so the guarantee is exactly (epsilon, 0); the
  triangulation grows exponentially with d, so it is limited to d <= 7.
* ``"hit-and-run"``: a hit-and-run walk whose chords come from a linear
  program over K (HiGHS). HT10 §8: a sampler whose density is within a
  factor (1 +- gamma) of uniform at every point gives
  (epsilon + ln((1 + gamma) / (1 - gamma)), 0)-DP, and one within total
  variation distance Delta gives (epsilon, (1 + e^epsilon) Delta)-DP; walks
  reach any gamma or Delta in polynomially many steps, but no finite walk here
  comes with a certified gamma or Delta. Releases made this way are marked
  ``details["certified"] = False``: their privacy claim rests on the walk having
  mixed, and a user who needs a proof should stay with ``"exact"``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog
from scipy.spatial import ConvexHull
from scipy.special import gammaincinv

from privcut.linear.queries import as_query_matrix, check_histogram
from privcut.linear.release import LinearRelease
from privcut.privacy import check_beta, check_epsilon
from privcut.privacy.noise import MAX_SCALE
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_option, check_scalar, epsilon_too_small

__all__ = ["KNormBody", "knorm_mechanism"]

SAMPLERS = ("exact", "hit-and-run")
"""The samplers of the K-norm noise: exact (certified, dimension <= 7) or a random walk."""

MAX_EXACT_DIMENSION = 7
"""Largest dimension of K for the exact (triangulation) sampler."""

MAX_WALK_DIMENSION = 30
"""Largest dimension of K for the hit-and-run sampler."""


@dataclass(frozen=True)
class KNormBody:
    """``K = F B_1^m`` in coordinates of F's column space, ready for sampling.

    Attributes
    ----------
    basis : numpy.ndarray, shape (k, d)
        Orthonormal basis of F's numerical column space (left singular vectors whose
        singular value exceeds ``sigma_max * 1e-10 * max(k, m)``); K lives in its span.
    points : numpy.ndarray, shape (d, m)
        F's columns in that basis; K is the convex hull of ``+-points``.
    residual : float
        The largest singular value left out of ``basis`` (0.0 if none): ``F`` differs from
        its projection ``basis @ basis.T @ F`` by at most this much in operator norm.
    facets : numpy.ndarray or None, shape (f, d, d)
        Vertices of each facet simplex (exact sampler only).
    normals : numpy.ndarray or None, shape (f, d)
        Facet normals scaled so that ``K = {y : normals @ y <= 1}``.
    weights : numpy.ndarray or None
        Probability of each cone simplex (proportional to its volume).
    """

    basis: np.ndarray
    points: np.ndarray
    residual: float = 0.0
    facets: np.ndarray | None = None
    normals: np.ndarray | None = None
    weights: np.ndarray | None = None

    @property
    def dimension(self) -> int:
        """The dimension d of K (the rank of F)."""
        return self.basis.shape[1]

    @classmethod
    def of(cls, F: np.ndarray, *, triangulate: bool) -> KNormBody:
        """Build K for the dense queries F; ``triangulate`` for the exact sampler."""
        left, singular, _ = np.linalg.svd(F, full_matrices=False)
        rank = int(np.sum(singular > singular.max(initial=0.0) * 1e-10 * max(F.shape)))
        basis = left[:, :rank]
        residual = float(singular[rank]) if rank < singular.size else 0.0
        body = cls(basis, basis.T @ F, residual)
        return body.triangulated() if triangulate else body

    def triangulated(self) -> KNormBody:
        """The same body with its triangulation (Qhull), for the exact sampler."""
        if self.dimension < 2 or self.facets is not None:
            return self
        hull = ConvexHull(np.vstack([self.points.T, -self.points.T]), qhull_options="Qt")
        offsets = -hull.equations[:, -1]
        facets = hull.points[hull.simplices]
        volumes = np.abs(np.linalg.det(facets))
        return KNormBody(
            self.basis,
            self.points,
            self.residual,
            facets=facets,
            normals=hull.equations[:, :-1] / offsets[:, None],
            weights=volumes / volumes.sum(),
        )

    def gauge(self, y: np.ndarray) -> np.ndarray:
        """``||y||_K`` for points y (rows) in K's coordinates (triangulated bodies only)."""
        if self.dimension == 1:
            return np.abs(y[..., 0]) / np.abs(self.points).max()
        return np.max(y @ self.normals.T, axis=-1)

    def second_moment(self) -> float:
        """``E ||z||_2^2`` for z uniform on K (exact, from the triangulation).

        For a simplex with vertices ``v_0 = 0, v_1, ..., v_d`` the uniform point has
        ``E[z z^T] = (sum_i v_i v_i^T + s s^T) / ((d + 1)(d + 2))`` with ``s = sum_i v_i``.
        """
        d = self.dimension
        if d == 1:
            return float(np.abs(self.points).max() ** 2 / 3.0)
        squares = (self.facets**2).sum(axis=(1, 2)) + (self.facets.sum(axis=1) ** 2).sum(axis=1)
        return float(self.weights @ squares / ((d + 1) * (d + 2)))

    def sample_exact(self, generator: np.random.Generator) -> np.ndarray:
        """One uniform point of K, exactly."""
        if self.dimension == 1:
            return generator.uniform(-1.0, 1.0, 1) * np.abs(self.points).max()
        facet = self.facets[generator.choice(self.weights.size, p=self.weights)]
        spacings = generator.exponential(size=self.dimension + 1)
        return (spacings[1:] / spacings.sum()) @ facet

    def _chord_end(self, z: np.ndarray, direction: np.ndarray) -> float:
        """``max {t : z + t direction in K}`` by a linear program over ``w = w+ - w-``."""
        m = self.points.shape[1]
        objective = np.zeros(2 * m + 1)
        objective[-1] = -1.0
        equality = np.hstack([self.points, -self.points, -direction[:, None]])
        budget = np.concatenate([np.ones(2 * m), [0.0]])[None, :]
        bounds = [(0.0, None)] * (2 * m) + [(None, None)]
        result = linprog(
            objective, A_ub=budget, b_ub=[1.0], A_eq=equality, b_eq=z, bounds=bounds, method="highs"
        )
        if result.status != 0:
            raise RuntimeError(f"the chord linear program failed: {result.message}")
        return float(result.x[-1])

    def sample_walk(
        self, generator: np.random.Generator, steps: int, start: np.ndarray | None = None
    ) -> np.ndarray:
        """An approximately uniform point of K after ``steps`` hit-and-run steps from
        ``start`` (default the origin)."""
        z = np.zeros(self.dimension) if start is None else start
        for _ in range(steps):
            direction = generator.standard_normal(self.dimension)
            direction /= np.linalg.norm(direction)
            forward = self._chord_end(z, direction)
            backward = self._chord_end(z, -direction)
            z = z + generator.uniform(-backward, forward) * direction
        return z


def _noise(
    body: KNormBody, epsilon: float, generator: np.random.Generator, sampler: str, steps: int
) -> tuple[float, np.ndarray]:
    """Remark 4.2: a radius ``r ~ Gamma(d + 1, 1/epsilon)`` and a uniform point z of K; the
    noise is ``r z`` (in K's coordinates), whose K-norm is Gamma(d, 1/epsilon)."""
    point = (
        body.sample_exact(generator) if sampler == "exact" else body.sample_walk(generator, steps)
    )
    return float(generator.gamma(body.dimension + 1, 1.0 / epsilon)), point


def _check_noise_scale(sensitivity: float, epsilon: float) -> None:
    """Refuse, before any draw, a noise scale ``sensitivity / epsilon`` (the K-norm noise's
    size in answer units, up to K's dimension) above the integer samplers' cap
    :data:`~privcut.privacy.noise.MAX_SCALE`, as the other mechanisms do."""
    scale = sensitivity / epsilon
    if not scale <= MAX_SCALE:
        raise epsilon_too_small(f"the K-norm noise, l1 sensitivity / epsilon = {scale!r},")


def knorm_mechanism(
    F: object,
    h: object,
    epsilon: float,
    *,
    sampler: str = "exact",
    walk_steps: int | None = None,
    beta: float = 0.05,
    rng: RandomState = None,
) -> LinearRelease:
    """Answer linear queries with the K-norm mechanism of Hardt & Talwar.

    Privacy: (epsilon, 0)-DP for count histograms differing in one element
    (HT10 Thm 4.3, a special case of the exponential mechanism), exactly so
    with ``sampler="exact"``; with ``sampler="hit-and-run"`` only approximately
    (see the module docstring: such releases say ``details["certified"] = False``).
    The noise is continuous.

    **Floating point: not protected.** The guarantee is for exact reals. The release
    is the float ``basis @ (P F h + r u)``, and as with ``y + laplace(b)`` (Mironov,
    *On significance of the least significant bits for differential privacy*, 2012)
    its low-order bits may reveal ``F h``. The other real-valued mechanisms round the
    answers to a public grid and add *discrete* noise calibrated for the rounding
    (:class:`~privcut.privacy.Noise`); the K-norm analogue needs a discrete K-norm
    distribution on the grid (density ``exp(-epsilon' ||a||_K)`` on ``g Z^d``), for
    which privcut has no exact sampler, and rounding the continuous output afterwards
    (Mironov's snapping) has a proof for Laplace only. Releases say
    ``details["float_protected"] = False`` (True only for d = 0, no noise and all-zero
    answers); use the Laplace, Gaussian or factorization mechanisms where the float
    output matters.

    Small singular directions: K is built on F's numerical column space (singular
    values above ``sigma_max * 1e-10 * max(k, m)``), and the release is the K-norm
    mechanism for the projected queries ``P F`` (P the projection onto that space),
    ``a = P F h + noise``: no direction of F's row space is released without noise,
    since the left-out directions are answered with 0 whatever h is. The price is a
    bias ``||F h - P F h||_2 <= s ||h||_2``, with ``s = details["residual_singular_value"]``
    (public; 0 for F of exact numerical rank, about 1e-16 sigma_max for
    rank-deficient F such as repeated rows, at most the cut-off). Releasing those
    directions unprojected published ``F h`` there exactly (issue 15): with
    ``F = diag(1, 1e-11)`` the second answer was ``1e-11 h[1]``.

    Accuracy: ``E ||a - F h||_2^2 = (d + 1)(d + 2) / epsilon**2 * E_{z in K} ||z||_2^2``
    (the proof of HT10 Thm 4.3 with p = 2 is an equality), reported per
    query as ``expected_error`` for the exact sampler; and with probability
    1 - beta every answer is within ``r_beta * max_j ||F_j||_inf`` where
    ``r_beta`` is the (1 - beta) quantile of Gamma(d + 1, 1/epsilon) (around
    ``P F h``; see above).

    Parameters
    ----------
    F : QueryMatrix or array_like, shape (k, m)
        The queries (made dense: K is built from F's columns).
    h : array_like, shape (m,)
        The private count histogram.
    epsilon : float
        Privacy parameter > 0.
    sampler : {"exact", "hit-and-run"}, default "exact"
        How a uniform point of K is drawn.
    walk_steps : int, optional
        Hit-and-run steps; default ``max(1000, 10 d**2)``.
    beta : float, default 0.05
        Failure probability of ``max_error``.
    rng : None, int or numpy.random.Generator, optional
        ``None`` (secure randomness) for real releases; seeds are for tests only.

    Returns
    -------
    LinearRelease

    Raises
    ------
    ValueError
        If K's dimension is beyond what the chosen sampler handles (7 for exact,
        30 for hit-and-run), before any noise is drawn.
    PrivacyParameterError
        If the noise scale ``l1 sensitivity / epsilon`` exceeds 2**40, as for the other
        mechanisms, before any noise is drawn.

    Examples
    --------
    >>> release = knorm_mechanism([[1, 1, 0], [0, 1, 1]], [4, 0, 2], epsilon=1.0, rng=0)
    >>> release.answers.shape, release.details["dimension"], release.details["certified"]
    ((2,), 2, True)
    >>> thin = knorm_mechanism([[1, 0], [0, 1e-11]], [4, 7], epsilon=1.0, rng=0)
    >>> thin.details["dimension"], float(thin.answers[1]), thin.details["residual_singular_value"]
    (1, 0.0, 1e-11)
    """
    epsilon = check_epsilon(epsilon)
    beta = check_beta(beta)
    check_option(sampler, "sampler", SAMPLERS)
    if walk_steps is not None:
        walk_steps = check_scalar(walk_steps, "walk_steps", int)
    query = as_query_matrix(F)
    _check_noise_scale(query.l1_sensitivity, epsilon)
    h = check_histogram(h, query.m, largest=query.l1_sensitivity)
    dense = query.toarray()
    body = KNormBody.of(dense, triangulate=False)
    d = body.dimension
    limit = MAX_EXACT_DIMENSION if sampler == "exact" else MAX_WALK_DIMENSION
    if d > limit:
        hint = (
            "; sampler='hit-and-run' reaches 30 without a certified guarantee"
            if sampler == "exact"
            else "; use the Gaussian, factorization or projection mechanisms instead"
        )
        raise ValueError(
            f"K = F B_1 has dimension {d}, beyond the {limit} the {sampler} sampler "
            f"handles in reasonable time{hint}"
        )
    generator = check_random_state(rng)
    projected = body.basis.T @ (dense @ h)  # P F h in K's coordinates
    details = {"dimension": d, "sampler": sampler, "residual_singular_value": body.residual}
    if d == 0:
        return LinearRelease(
            body.basis @ projected,
            epsilon,
            0.0,
            "knorm",
            0.0,
            0.0,
            beta,
            details={**details, "certified": True, "float_protected": True},
        )
    if sampler == "exact":
        body = body.triangulated()
        expected_error = math.sqrt((d + 1) * (d + 2) * body.second_moment() / query.k) / epsilon
    else:
        expected_error = None
    steps = max(1000, 10 * d**2) if walk_steps is None else int(walk_steps)
    radius, point = _noise(body, epsilon, generator, sampler, steps)
    radius_beta = float(gammaincinv(d + 1, 1.0 - beta)) / epsilon
    return LinearRelease(
        answers=body.basis @ (projected + radius * point),
        epsilon=epsilon,
        delta=0.0,
        mechanism="knorm",
        expected_error=expected_error,
        max_error=radius_beta * float(np.abs(dense).max()),
        beta=beta,
        details={**details, "certified": sampler == "exact", "float_protected": False},
    )
