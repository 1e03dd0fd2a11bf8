"""Typed records for what a release reports, and their one plain-dict schema.

Every release privcut makes (a synthetic graph, an iterative construction, a noisy graph,
linear answers, an oracle's status) describes itself with a frozen dataclass built from
the small parts here: a :class:`Bound` with the measurement it comes from, a
:class:`Spend` per measurement, a :class:`SolverSummary`. :meth:`Record.to_dict` turns any
of them into plain Python values (dicts, lists, str, int, float, bool, None), which is
what ``H.graph["privcut"]`` holds and what the command line writes as JSON: one schema
for both.

Nothing in a record may depend on the private data except through the mechanism's
noisy output (no timings, no exact counts).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Bound", "Record", "SolverSummary", "Spend", "plain"]


def plain(value: Any) -> Any:
    """``value`` as plain Python data: records and mappings to dicts (string keys kept),
    sequences and arrays to lists, NumPy scalars to Python numbers.

    Examples
    --------
    >>> plain({"a": np.float64(1.5), "b": (np.int64(2), None)})
    {'a': 1.5, 'b': [2, None]}
    """
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, np.ndarray):
        return [plain(item) for item in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


class Record:
    """Base of privcut's typed reports: a frozen dataclass with :meth:`to_dict`.

    Examples
    --------
    >>> Bound(3.0, "blocks").to_dict()
    {'bound': 3.0, 'source': 'blocks'}
    """

    def to_dict(self) -> dict[str, Any]:
        """The record's fields as plain Python data (see :func:`plain`), in field order."""
        return {field.name: plain(getattr(self, field.name)) for field in dataclasses.fields(self)}


@dataclass(frozen=True)
class Bound(Record):
    """An error bound and where it comes from.

    Attributes
    ----------
    bound : float
        The largest error claimed (``inf`` where nothing is claimed).
    source : str or None
        The measurement or argument that proves it (None with an infinite bound).

    Examples
    --------
    >>> min(Bound(5.0, "randomized-response"), Bound(2.0, "edge count")).source
    'edge count'
    """

    bound: float
    source: str | None

    def __lt__(self, other: Bound) -> bool:
        return self.bound < other.bound

    @classmethod
    def none(cls) -> Bound:
        """No claim: an infinite bound from no source."""
        return cls(math.inf, None)


@dataclass(frozen=True)
class Spend(Record):
    """One measurement's share of the budget and its noise.

    Attributes
    ----------
    name : str
        The measurement.
    share : float
        Its fraction of the release's epsilon.
    epsilon : float
        Its epsilon (``share`` times the total).
    noise : str
        The noise kind (see :class:`~privcut.privacy.Noise`).
    scale : float
        The noise scale per coordinate.
    sensitivity : float
        The measurement's l1 sensitivity under edge-level neighbours.

    Examples
    --------
    >>> Spend("edge-count", 0.25, 0.25, "discrete_laplace", 8.0, 2.0).to_dict()["share"]
    0.25
    """

    name: str
    share: float
    epsilon: float
    noise: str
    scale: float
    sensitivity: float


@dataclass(frozen=True)
class SolverSummary(Record):
    """How an iterative fit ended: a function of noisy values only.

    Attributes
    ----------
    objective : float or None
        The last value of the quantity the iterations drive down (None if none ran).
    iterations : int
        Iterations run.
    cuts : int
        Cut constraints (or updates) collected.
    converged : bool
        Whether the stopping rule was met before the iteration cap.

    Examples
    --------
    >>> SolverSummary(objective=None, iterations=0, cuts=0, converged=True).to_dict()
    {'objective': None, 'iterations': 0, 'cuts': 0, 'converged': True}
    """

    objective: float | None
    iterations: int
    cuts: int
    converged: bool
