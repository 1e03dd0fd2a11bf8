"""The linear-query core: query matrices, sensitivities and mechanisms.

A graph is a histogram over vertex pairs and a cut query is a linear query,
so everything in :mod:`privcut.graph` stands on this layer.

An all-zero query matrix is answered the same way by every mechanism here: zeros,
exactly, with no noise, selection or noisy count (its answers are the same on every
dataset, so they reveal nothing: 0-DP). The release still records the ``epsilon`` (and
``delta``) it was given, an upper bound like every release's; a caller keeping a
:class:`~privcut.privacy.PrivacyBudget` may count it as free.
"""

from privcut.linear.factorization import (
    Factorization,
    binary_tree_strategy,
    factorization_mechanism,
    factorize,
)
from privcut.linear.idc import FriezeKannan, Median, MultiplicativeWeights
from privcut.linear.iterative import IterativeConstruction
from privcut.linear.knorm import KNormBody, knorm_mechanism
from privcut.linear.mechanisms import gaussian_mechanism, laplace_mechanism
from privcut.linear.mwem import mwem
from privcut.linear.online import (
    OnlineRelease,
    OracleExhaustedWarning,
    SamplerReserveWarning,
    calibrate,
)
from privcut.linear.projection import project_answers, projection_mechanism
from privcut.linear.queries import (
    QueryMatrix,
    as_query_matrix,
    check_histogram,
    l1_sensitivity,
    l2_sensitivity,
)
from privcut.linear.release import LinearRelease
from privcut.linear.size import SizeEstimate, dataset_size
from privcut.linear.small_db import small_db

__all__ = [
    "Factorization",
    "FriezeKannan",
    "IterativeConstruction",
    "KNormBody",
    "LinearRelease",
    "Median",
    "MultiplicativeWeights",
    "OnlineRelease",
    "OracleExhaustedWarning",
    "QueryMatrix",
    "SamplerReserveWarning",
    "SizeEstimate",
    "as_query_matrix",
    "binary_tree_strategy",
    "calibrate",
    "check_histogram",
    "dataset_size",
    "factorization_mechanism",
    "factorize",
    "gaussian_mechanism",
    "knorm_mechanism",
    "l1_sensitivity",
    "l2_sensitivity",
    "laplace_mechanism",
    "mwem",
    "project_answers",
    "projection_mechanism",
    "small_db",
]
