"""privcut: differentially private release of graph cut queries.

Every release carries an (epsilon, delta) edge-level guarantee: two graphs on
the same (public) node set are neighbours when they differ in one edge.

Examples
--------
>>> import privcut
>>> budget = privcut.PrivacyBudget(1.0)
>>> budget.spend(0.5).epsilon
0.5
"""

from privcut.exceptions import (
    BudgetExceededError,
    DependencyError,
    GraphInputError,
    PrivacyParameterError,
    PrivcutError,
)
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
