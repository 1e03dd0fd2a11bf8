"""The graph layer: graphs as histograms over vertex pairs, cuts, cut norms, noisy and
synthetic graphs, workloads."""

from privcut.graph.arrays import SyntheticArray
from privcut.graph.communities import (
    CommunityMechanism,
    PrivateCommunities,
    SweepMechanism,
    private_communities,
    sweep_communities,
)
from privcut.graph.construction import ConstructionRelease, iterative_construction
from privcut.graph.cutnorm import (
    CutNormResult,
    cut_norm,
    local_improvement,
    normalized_cut_norm,
)
from privcut.graph.cuts import cut_queries, cut_value, rank1_queries
from privcut.graph.filtered import FilteredNoisyGraph, filtered_randomized_response
from privcut.graph.noisy import NoisyGraph, NoisyGraphReport, noisy_graph
from privcut.graph.oracle import CutOracle, OracleStatus
from privcut.graph.partition import Partition
from privcut.graph.planning import MeasurementPlan, plan_measurements
from privcut.graph.private_groups import PrivateGroups, ReleasedCommunities
from privcut.graph.report import SyntheticRelease
from privcut.graph.synthetic import decides_groups, synthetic_from_noisy, synthetic_graph
from privcut.graph.universe import EdgeUniverse, check_graph
from privcut.graph.workloads import CutAnswers, CutWorkload, answer_cuts

__all__ = [
    "CommunityMechanism",
    "ConstructionRelease",
    "CutAnswers",
    "CutNormResult",
    "CutOracle",
    "CutWorkload",
    "EdgeUniverse",
    "FilteredNoisyGraph",
    "MeasurementPlan",
    "NoisyGraph",
    "NoisyGraphReport",
    "OracleStatus",
    "Partition",
    "PrivateCommunities",
    "PrivateGroups",
    "ReleasedCommunities",
    "SweepMechanism",
    "SyntheticArray",
    "SyntheticRelease",
    "answer_cuts",
    "check_graph",
    "cut_norm",
    "cut_queries",
    "cut_value",
    "decides_groups",
    "filtered_randomized_response",
    "iterative_construction",
    "local_improvement",
    "noisy_graph",
    "normalized_cut_norm",
    "plan_measurements",
    "private_communities",
    "rank1_queries",
    "sweep_communities",
    "synthetic_from_noisy",
    "synthetic_graph",
]
