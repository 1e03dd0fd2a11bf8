"""Errors raised by privcut.

They live in one module below every layer so that ``privacy``, ``linear`` and
``graph`` can all raise them without importing each other.
"""

from __future__ import annotations

__all__ = [
    "BudgetExceededError",
    "DependencyError",
    "GraphInputError",
    "PrivacyParameterError",
    "PrivcutError",
]


class PrivcutError(Exception):
    """Base class of every error privcut raises on purpose."""


class PrivacyParameterError(PrivcutError, ValueError):
    """A privacy parameter (epsilon, delta, sensitivity, noise scale) is invalid.

    Raised before any private data is read, so catching it never leaks anything.
    """


class BudgetExceededError(PrivcutError, RuntimeError):
    """A spend would take a :class:`~privcut.privacy.PrivacyBudget` past its total.

    The budget is left exactly as it was before the refused spend.
    """


class DependencyError(PrivcutError, ImportError):
    """An optional dependency is not installed; the message names the extra that adds it.

    Raised before any work, so nothing has been read or spent.
    """


class GraphInputError(PrivcutError, ValueError):
    """An input graph is not one privcut accepts (multigraph, self-loop, bad weight)."""
