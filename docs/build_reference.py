"""Generate docs/reference.md, the API reference, from the public names' docstrings.

Run: ``python docs/build_reference.py`` (a test checks the committed page is current).
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

PUBLIC = {
    "privcut": [
        "synthetic_graph",
        "CutOracle",
        "iterative_construction",
        "answer_cuts",
        "noisy_graph",
        "cut_norm",
        "cut_value",
        "PrivacyBudget",
    ],
    "privcut.privacy": [
        "laplace",
        "gaussian",
        "discrete_laplace",
        "discrete_gaussian",
        "gaussian_sigma",
    ],
    "privcut.linear": [
        "QueryMatrix",
        "l1_sensitivity",
        "l2_sensitivity",
        "laplace_mechanism",
        "gaussian_mechanism",
        "factorization_mechanism",
        "projection_mechanism",
        "knorm_mechanism",
        "mwem",
        "small_db",
        "FriezeKannan",
        "MultiplicativeWeights",
        "Median",
        "OnlineRelease",
        "IterativeConstruction",
        "LinearRelease",
    ],
    "privcut.graph": [
        "plan_measurements",
        "MeasurementPlan",
        "synthetic_from_noisy",
        "decides_groups",
        "filtered_randomized_response",
        "private_communities",
        "sweep_communities",
        "PrivateCommunities",
        "PrivateGroups",
        "ReleasedCommunities",
        "SyntheticRelease",
        "NoisyGraphReport",
        "FilteredNoisyGraph",
        "ConstructionRelease",
        "OracleStatus",
        "CutAnswers",
    ],
    "privcut.graph.construction": ["DistinguisherCost"],
    "privcut.graph.dask": [
        "synthetic_edges",
        "aggregate_edges",
        "synthetic_from_aggregates",
        "EdgeAggregates",
        "DistributedGenerated",
    ],
    "privcut.records": ["Bound", "Spend", "SolverSummary"],
    "privcut.audit": ["audit", "neighbouring_graphs"],
    "privcut.datasets": [
        "names",
        "load",
        "provenance",
        "read_edgelist",
        "read_nodelist",
        "read_groups",
        "read_edge_array",
        "write_edge_array",
        "EdgeArray",
        "community_graph",
    ],
    "privcut.evaluate": [
        "cut_errors",
        "max_cut_error",
        "random_cuts",
        "WorkloadClasses",
        "structure",
        "structure_of",
        "clustering_by_degree",
        "GraphStructure",
        "StructureComparison",
    ],
}
"""The public API, by module: the mechanisms, the tools around them, and the report records
whose ``to_dict()`` fills ``H.graph["privcut"]`` and the command line's JSON (their
Attributes sections document the keys)."""

TARGET = Path(__file__).with_name("reference.md")


def _signature(obj: object) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"


def render() -> str:
    lines = [
        "# privcut API reference",
        "",
        "Generated from the docstrings by `python docs/build_reference.py`; every example",
        "below runs as a doctest in the test suite.",
        "",
    ]
    for module, names in PUBLIC.items():
        lines += [f"## `{module}`", ""]
        imported = importlib.import_module(module)
        for name in names:
            obj = getattr(imported, name)
            kind = "class" if inspect.isclass(obj) else "function"
            lines += [
                f"### `{module}.{name}{_signature(obj)}`",
                "",
                f"*{kind}*",
                "",
                "```text",
                inspect.cleandoc(obj.__doc__ or ""),
                "```",
                "",
            ]
    return "\n".join(lines)


if __name__ == "__main__":
    TARGET.write_text(render())
    print(f"wrote {TARGET}")
