"""Privacy primitives: parameter checks, noise samplers, calibration, composition, budgets.

The bottom layer of privcut: it knows nothing of queries or graphs.
"""

from privcut.exceptions import BudgetExceededError, PrivacyParameterError
from privcut.privacy.budget import PrivacyBudget, exact_split
from privcut.privacy.calibration import (
    discrete_gaussian_sigma,
    gaussian_delta,
    gaussian_sigma,
    gaussian_sigma_classical,
    zcdp_delta,
)
from privcut.privacy.composition import (
    PrivacyCost,
    advanced_composition,
    basic_composition,
    effective_delta,
)
from privcut.privacy.noise import (
    Noise,
    discrete_gaussian,
    discrete_gaussian_tv_bound,
    discrete_laplace,
    discrete_laplace_tv_bound,
    gaussian,
    laplace,
)
from privcut.privacy.random import check_random_state, secure_generator
from privcut.privacy.selection import exponential_mechanism
from privcut.privacy.validation import (
    check_beta,
    check_delta,
    check_epsilon,
    check_sensitivity,
)

__all__ = [
    "BudgetExceededError",
    "Noise",
    "PrivacyBudget",
    "PrivacyCost",
    "PrivacyParameterError",
    "advanced_composition",
    "basic_composition",
    "check_beta",
    "check_delta",
    "check_epsilon",
    "check_random_state",
    "check_sensitivity",
    "discrete_gaussian",
    "discrete_gaussian_sigma",
    "discrete_gaussian_tv_bound",
    "discrete_laplace",
    "discrete_laplace_tv_bound",
    "effective_delta",
    "exact_split",
    "exponential_mechanism",
    "gaussian",
    "gaussian_delta",
    "gaussian_sigma",
    "gaussian_sigma_classical",
    "laplace",
    "secure_generator",
    "zcdp_delta",
]
