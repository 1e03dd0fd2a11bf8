"""privcut: differentially private release of graph cut queries.

Every release carries an (epsilon, delta) edge-level guarantee: two graphs on
the same (public) node set are neighbours when they differ in one edge.

The top-level names are loaded on first use (PEP 562), so that ``import privcut``
(and the ``privcut`` command's start, ``--help`` and ``--version``) does not wait
for NumPy, SciPy and NetworkX; ``from privcut import X`` and ``privcut.X`` work as
for any module.

Examples
--------
>>> import privcut
>>> budget = privcut.PrivacyBudget(1.0)
>>> budget.spend(0.5).epsilon
0.5
"""

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from privcut.exceptions import (
    BudgetExceededError,
    DependencyError,
    GraphInputError,
    PrivacyParameterError,
    PrivcutError,
)

if _TYPE_CHECKING:  # what the lazy names are, for type checkers and editors
    from privcut.graph import (
        CutAnswers,
        CutNormResult,
        CutOracle,
        NoisyGraph,
        SyntheticRelease,
        answer_cuts,
        cut_norm,
        cut_value,
        iterative_construction,
        noisy_graph,
        synthetic_graph,
    )
    from privcut.privacy import PrivacyBudget

__version__ = "0.1.0"

__all__ = [
    "BudgetExceededError",
    "CutAnswers",
    "CutNormResult",
    "CutOracle",
    "DependencyError",
    "GraphInputError",
    "NoisyGraph",
    "PrivacyBudget",
    "PrivacyParameterError",
    "PrivcutError",
    "SyntheticRelease",
    "__version__",
    "answer_cuts",
    "cut_norm",
    "cut_value",
    "iterative_construction",
    "noisy_graph",
    "synthetic_graph",
]

_LAZY = {
    **dict.fromkeys(
        (
            "CutAnswers",
            "CutNormResult",
            "CutOracle",
            "NoisyGraph",
            "SyntheticRelease",
            "answer_cuts",
            "cut_norm",
            "cut_value",
            "iterative_construction",
            "noisy_graph",
            "synthetic_graph",
        ),
        "privcut.graph",
    ),
    "PrivacyBudget": "privcut.privacy",
}
"""The top-level names loaded on first use: name -> the module that defines it."""

_SUBMODULES = ("exceptions", "files", "graph", "linear", "privacy", "records")
"""The subpackages reachable as ``privcut.NAME`` after a bare ``import privcut`` (as when
the top-level names were imported eagerly)."""


def __getattr__(name: str) -> _Any:
    """Load a top-level name (or subpackage) on first use, and keep it (PEP 562).

    Parameters
    ----------
    name : str
        An attribute of ``privcut`` not yet loaded.

    Returns
    -------
    Any
        The public name from ``_LAZY``, or the subpackage from ``_SUBMODULES``.

    Raises
    ------
    AttributeError
        For any other name.
    """
    if name in _LAZY:
        value = getattr(_importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later uses are plain attribute reads
        return value
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's public names, the lazy ones included (for ``dir``, ``help`` and
    completion): what ``dir(privcut)`` listed when they were imported eagerly."""
    loaded = {name for name in globals() if not name.startswith("_") or name.startswith("__")}
    return sorted(loaded | set(__all__) | set(_SUBMODULES))
