"""Iterative database constructions (GRU12 §3, Def. 3.1–3.2).

An IDC keeps a hypothesis about the private histogram and improves it from
one distinguishing query at a time: given a query on which the hypothesis is
off by at least alpha and a noisy answer within alpha of the truth, it moves
the hypothesis towards the data. A B(alpha)-IDC needs at most B(alpha) such
updates before every query is alpha-accurate. They never touch the data
themselves: the private mechanisms (:mod:`privcut.linear.online`, the graph
oracles) feed them noisy answers.

Queries here are vectors of length m (rows of F). Every bound needs a size of
the data (``n`` or ``||D||_2^2``), which is private: the caller passes a
public bound.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from privcut.linear.queries import histograms_of_size
from privcut.privacy.validation import check_scalar

__all__ = ["FriezeKannan", "Median", "MultiplicativeWeights"]

MAX_MEDIAN_DATABASES = 1_000_000
"""Most candidate databases the median construction will hold."""


def _as_query(query: object, m: int) -> np.ndarray:
    try:
        vector = np.asarray(query, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(
            f"a query must be a vector of {m} real numbers, got {query!r:.60}"
        ) from None
    if vector.shape != (m,):
        raise ValueError(f"a query must be a vector of length {m}, got shape {vector.shape}")
    return vector


class FriezeKannan:
    """The Frieze/Kannan IDC (GRU12 Alg. 2, Thm 5.1).

    The hypothesis starts at 0 and each update adds ``-+ (alpha / |X|) Q``: down
    when the hypothesis overestimates the noisy answer, up otherwise. It is kept
    in factored form, the list of signed queries, so evaluating a query costs
    one inner product per update; ``inner`` can be any bilinear form that is
    cheap on the queries' own representation (e.g. cut queries, whose inner
    product is ``|S n S'| |T n T'|``).

    Parameters
    ----------
    m : int
        Universe size |X|.
    alpha : float
        Accuracy target > 0.
    n2_bound : float
        A public upper bound on ``||D||_2^2`` (the number of elements for a 0/1
        histogram); it sets ``max_updates``.
    inner : callable, optional
        ``inner(q1, q2)``, default the dot product of vectors.

    Examples
    --------
    >>> idc = FriezeKannan(m=4, alpha=2.0, n2_bound=10)
    >>> idc.update(np.ones(4), noisy_answer=8.0)
    True
    >>> idc.evaluate(np.ones(4)), idc.max_updates
    (2.0, 10)
    """

    def __init__(
        self,
        m: int,
        alpha: float,
        n2_bound: float,
        *,
        inner: Callable[[object, object], float] | None = None,
    ) -> None:
        self.m = check_scalar(m, "m", int)
        self.alpha = check_scalar(alpha, "alpha", low=0.0, closed="neither")
        self.n2_bound = check_scalar(n2_bound, "n2_bound", low=0.0, closed="neither")
        self._inner = inner
        self.steps: list[tuple[float, object]] = []

    @property
    def max_updates(self) -> int:
        """B(alpha) = ||D||_2^2 |X| / alpha^2 (GRU12 Thm 5.1), with the public bound on
        ||D||_2^2."""
        return math.ceil(self.n2_bound * self.m / self.alpha**2)

    @property
    def updates(self) -> int:
        """Updates made so far."""
        return len(self.steps)

    def _dot(self, first: object, second: object) -> float:
        if self._inner is None:
            return float(np.dot(first, second))
        return float(self._inner(first, second))

    def evaluate(self, query: object) -> float:
        """The hypothesis's answer ``Q(D^(t))``."""
        return math.fsum(step * self._dot(past, query) for step, past in self.steps)

    def update(self, query: object, noisy_answer: float) -> bool:
        """Move the hypothesis towards ``noisy_answer`` on ``query``; False if they agree."""
        difference = self.evaluate(query) - float(noisy_answer)
        if difference == 0.0:
            return False
        self.steps.append((-math.copysign(self.alpha / self.m, difference), query))
        return True

    def hypothesis(self) -> np.ndarray:
        """The hypothesis as a dense vector (for vector queries)."""
        dense = np.zeros(self.m)
        for step, query in self.steps:
            dense += step * np.asarray(query, dtype=float)
        return dense


class MultiplicativeWeights:
    """The multiplicative weights IDC (GRU12 Alg. 5, Thm A.4; Hardt & Rothblum 2010).

    The hypothesis is a distribution over the universe, scaled by the public
    size ``n``; queries take values in [0, 1]. An update with ``eta = alpha / (2n)``
    multiplies each weight by ``exp(-eta r(x))`` with ``r = Q`` when the hypothesis
    overestimates and ``r = 1 - Q`` otherwise, then renormalises.

    Parameters
    ----------
    m : int
        Universe size |X|.
    alpha : float
        Accuracy target > 0 (in counts).
    n : float
        A public bound on the number of elements.

    Examples
    --------
    >>> idc = MultiplicativeWeights(m=4, alpha=1.0, n=8)
    >>> idc.evaluate([1, 1, 0, 0])
    4.0
    """

    def __init__(self, m: int, alpha: float, n: float) -> None:
        self.m = check_scalar(m, "m", int)
        self.alpha = check_scalar(alpha, "alpha", low=0.0, closed="neither")
        self.n = check_scalar(n, "n", low=0.0, closed="neither")
        self.weights = np.full(self.m, 1.0 / self.m)
        self.updates = 0

    @property
    def max_updates(self) -> int:
        """B(alpha) = 4 n^2 log|X| / alpha^2 (GRU12 Thm A.4)."""
        return self.updates_bound(self.m, self.alpha, self.n)

    @staticmethod
    def updates_bound(m: int, alpha: float, n: float) -> int:
        """B(alpha) = 4 n^2 log|X| / alpha^2 (GRU12 Thm A.4), without building the construction."""
        return math.ceil(4.0 * n**2 * math.log(m) / alpha**2)

    def evaluate(self, query: object) -> float:
        """``n * <Q, D_hat>``."""
        return self.n * float(_as_query(query, self.m) @ self.weights)

    def update(self, query: object, noisy_answer: float) -> bool:
        """One multiplicative weights step; False if the answers agree."""
        vector = _as_query(query, self.m)
        if vector.min() < 0.0 or vector.max() > 1.0:
            raise ValueError("multiplicative weights needs query values in [0, 1]")
        estimate = self.evaluate(vector)
        if estimate == float(noisy_answer):
            return False
        loss = vector if float(noisy_answer) < estimate else 1.0 - vector
        self.weights = self.weights * np.exp(-self.alpha / (2.0 * self.n) * loss)
        self.weights /= self.weights.sum()
        self.updates += 1
        return True

    def hypothesis(self) -> np.ndarray:
        """The hypothesis histogram ``n * D_hat``."""
        return self.n * self.weights


class Median:
    """The median mechanism's IDC (GRU12 Alg. 4, Thm A.2; Roth & Roughgarden 2010).

    The hypothesis is a set of candidate databases of ``size`` elements; a query
    is answered by the median of their (rescaled) answers, and an update deletes
    every candidate on the wrong side of the median, at least half of them. Only
    for tiny universes: the candidates number ``C(m + size - 1, size)``.

    Parameters
    ----------
    m : int
        Universe size |X|.
    alpha : float
        Accuracy target > 0 (in counts).
    n : float
        A public bound on the number of elements.
    k : int
        Number of queries that will be asked (sets the default size).
    size : int, optional
        Elements per candidate; default ``ceil(n^2 log k / alpha^2)`` (Claim A.3).

    Raises
    ------
    ValueError
        If the candidates would number more than :data:`MAX_MEDIAN_DATABASES`,
        naming how many.

    Examples
    --------
    >>> idc = Median(m=3, alpha=1.0, n=2, k=3, size=4)
    >>> len(idc.alive), idc.evaluate([1, 0, 0])
    (15, 0.5)
    """

    def __init__(self, m: int, alpha: float, n: float, k: int, *, size: int | None = None):
        self.m = check_scalar(m, "m", int)
        self.alpha = check_scalar(alpha, "alpha", low=0.0, closed="neither")
        self.n = check_scalar(n, "n", low=0.0, closed="neither")
        self.k = check_scalar(k, "k", int)
        if size is None:
            wanted = self.n**2 * math.log(max(self.k, 2)) / self.alpha**2
            size = max(1, math.ceil(min(wanted, MAX_MEDIAN_DATABASES)))
        self.size = check_scalar(size, "size", int)
        if self.m > 1 and self.size >= MAX_MEDIAN_DATABASES:  # C(m + s - 1, s) > s then
            raise ValueError(
                f"the median construction would hold more than {MAX_MEDIAN_DATABASES:,} "
                f"databases (size {self.size}); lower n or size, or raise alpha, or use "
                "FriezeKannan or MultiplicativeWeights"
            )
        count = math.comb(self.m + self.size - 1, self.size)
        if count > MAX_MEDIAN_DATABASES:
            raise ValueError(
                f"the median construction would hold C({self.m} + {self.size} - 1, {self.size}) "
                f"= {count:.3g} databases of {self.size} elements; the limit is "
                f"{MAX_MEDIAN_DATABASES:,}. It is only for tiny universes: use "
                "FriezeKannan or MultiplicativeWeights"
            )
        self.databases = histograms_of_size(self.m, self.size)
        self.alive = np.arange(count)
        self.updates = 0

    @property
    def max_updates(self) -> int:
        """B(alpha) = n^2 log|X| log k / alpha^2 (GRU12 Thm A.2)."""
        return self.updates_bound(self.m, self.alpha, self.n, self.k)

    @staticmethod
    def updates_bound(m: int, alpha: float, n: float, k: int) -> int:
        """B(alpha) = n^2 log|X| log k / alpha^2 (GRU12 Thm A.2), without building the
        candidates."""
        return math.ceil(n**2 * math.log(m) * math.log(max(k, 2)) / alpha**2)

    def _answers(self, query: object) -> np.ndarray:
        vector = _as_query(query, self.m)
        return (self.n / self.size) * (self.databases[self.alive] @ vector)

    def evaluate(self, query: object) -> float:
        """The median of the surviving candidates' answers."""
        return float(np.median(self._answers(query)))

    def update(self, query: object, noisy_answer: float) -> bool:
        """Delete the candidates on the wrong side of the median; False if none go."""
        answers = self._answers(query)
        median = float(np.median(answers))
        if median == float(noisy_answer):
            return False
        keep = answers < median if median > float(noisy_answer) else answers > median
        if not keep.any():
            return False
        self.alive = self.alive[keep]
        self.updates += 1
        return True

    def hypothesis(self) -> np.ndarray:
        """The mean of the surviving candidates, rescaled to n elements."""
        return (self.n / self.size) * self.databases[self.alive].mean(axis=0)
