"""Bad input to every public function gets a clear privcut error, never a crash or a hang.

Each public name (docs/build_reference.py PUBLIC and the top-level privcut names) is called
with parameters drawn from valid values and from bad ones (wrong types, NaN, infinities,
zero, negatives, huge and tiny numbers, empty and tiny graphs, odd labels, multigraphs,
self-loops, weights outside [0, 1]); :func:`tests.badinput.check_call` allows only privcut's
own errors and fails on a hang. The repros of issue 15 are explicit cases below.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import dask.dataframe as dd
import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import privcut
from privcut import audit as audit_module
from privcut import datasets, evaluate, graph, linear, privacy
from privcut.graph import dask as graph_dask
from privcut.privacy.calibration import discrete_gaussian_sigma, zcdp_budget
from tests.badinput import BAD, GRAPHS, SETTINGS, check_call

_spec = importlib.util.spec_from_file_location(
    "build_reference", Path(__file__).resolve().parents[1] / "docs" / "build_reference.py"
)
build_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_reference)
PUBLIC = build_reference.PUBLIC


def graphs(*names: str):
    """A strategy of fresh graphs: the named ones, or all of GRAPHS."""
    chosen = names or tuple(GRAPHS)
    return st.sampled_from(chosen).map(lambda name: GRAPHS[name]())


def maybe(*valid):
    """A parameter: one of the valid values, or a bad one."""
    return st.one_of(st.sampled_from(valid), st.sampled_from(BAD))


EPSILON = maybe(0.5, 1.0, 100.0, 1e-6)
DELTA = maybe(0.0, 1e-6, 0.5, 0.99999)
BETA = maybe(0.05, 0.5)
RNG = maybe(0, 1)
WEIGHT = maybe(None, "weight", "missing")
SHARE = maybe(0.1, 0.5)
MATRICES = maybe(
    np.eye(2),
    [[1, 0], [0, 1]],
    [[1, 1]],
    np.zeros((0, 2)),
    np.zeros((2, 0)),
    [[math.nan, 1.0]],
    [[math.inf, 1.0]],
    [[1.0, 2.0], [3.0]],
    [[1 + 1j, 0.0]],
    [[True, False]],
    [[1e300, 1.0]],
    "abc",
)
HISTOGRAMS = maybe([1, 2], [1], [], [math.nan, 1], [-1, 2], [1.5, 2], [0, 0], "ab", [1e300, 1])
SIDES = maybe({0, 1}, [2], set(), {"#a"}, {(0, 1)}, "01", {99})
QUERIES = maybe(
    [({0}, {1})],
    [({0, 1}, {2, 3})],
    [],
    [({0}, {1}, {2})],
    [(set(), set())],
    [({0}, None)],
    [({99}, {0})],
    [("01", {1})],
    ({0}, {1}),
    [[{0}, {1}]],
)
SPARSE = {
    "sparse path": lambda: sp.csr_array(nx.to_scipy_sparse_array(nx.path_graph(3))),
    "sparse directed": lambda: sp.csr_array(np.array([[0.0, 1.0, 0.0], [0, 0, 1], [0, 0, 0]])),
    "sparse loop": lambda: sp.csr_array(np.eye(3)),
    "sparse weight 2": lambda: sp.csr_array(np.array([[0.0, 2.0], [2.0, 0.0]])),
    "sparse nan": lambda: sp.csr_array(np.array([[0.0, np.nan], [np.nan, 0.0]])),
    "sparse empty": lambda: sp.csr_array((0, 0)),
    "sparse wide": lambda: sp.csr_array((2, 3)),
    "sparse complex": lambda: sp.csr_array(np.array([[0, 1j], [1j, 0]])),
}
STRUCTURES = st.one_of(graphs(), st.sampled_from(tuple(SPARSE.values())).map(lambda f: f()))
"""Graphs and sparse matrices, for the structural statistics."""
CALLABLES = maybe(lambda data, rng: data + rng.laplace(), len)


# Each case: a callable and the strategies of its keyword arguments.
def _edge_table(u, v, dtype="int64"):
    frame = pd.DataFrame({"u": u, "v": v}).astype(dtype)
    return dd.from_pandas(frame, npartitions=2, sort=False)


EDGE_TABLES = maybe(
    _edge_table([0, 1], [1, 2]),
    _edge_table([0, 1], [1, 9]),
    _edge_table([0, 1], [1, 1]),
    _edge_table([0, 1], [1, 0]),
    _edge_table([0.0, 1.0], [1.0, 2.0], "float64"),
    dd.from_pandas(pd.DataFrame({"a": [0], "v": [1]}), npartitions=1),
    pd.DataFrame({"u": [0], "v": [1]}),
)


def _aggregates():
    return graph_dask.aggregate_edges(_edge_table([0, 1, 3], [1, 2, 4]), 5)


CASES = {
    "privcut.synthetic_graph": (
        privcut.synthetic_graph,
        dict(
            G=graphs(),
            epsilon=EPSILON,
            oracle=maybe("spectral", "alon-naor"),
            rounding=maybe("random", None),
            measurements=maybe(None, "auto", ["edge-count", "degrees"], {"degrees": 1.0}),
            groups=maybe(None, {0: "a", 1: "b"}, "private", "public"),
            beta=BETA,
            tau=maybe(None, 0.5),
            max_iterations=maybe(3, 1),
            weight=WEIGHT,
            method=maybe("dense", "auto"),
            rng=RNG,
        ),
    ),
    "privcut.noisy_graph": (
        privcut.noisy_graph,
        dict(G=graphs(), epsilon=EPSILON, weight=WEIGHT, rng=RNG),
    ),
    "privcut.CutOracle": (
        privcut.CutOracle,
        dict(
            G=graphs(),
            epsilon=EPSILON,
            delta=DELTA,
            idc=maybe("frieze-kannan", "multiplicative-weights", "median"),
            max_queries=maybe(10, 1000),
            max_edges=maybe(None, 10.0),
            start=maybe(None, "measured", "density"),
            start_share=SHARE,
            groups=maybe(None, {0: "a", 1: "b"}),
            count_share=maybe(None, 0.1, 0.5),
            alpha=maybe(None, 1.0, 100.0),
            beta=BETA,
            rng=RNG,
        ),
    ),
    "privcut.iterative_construction": (
        privcut.iterative_construction,
        dict(
            G=graphs("empty", "one node", "two nodes", "path 5", "multigraph", "tuple labels"),
            epsilon=EPSILON,
            delta=DELTA,
            distinguisher=maybe("noisy-graph", "power-method", "exponential"),
            alpha=maybe(None, 2.0),
            beta=BETA,
            max_edges=maybe(None, 10.0),
            count_share=SHARE,
            rr_share=SHARE,
            family_size=maybe(10, 100),
            rounding=maybe(None, "random"),
            rng=RNG,
        ),
    ),
    "privcut.answer_cuts": (
        privcut.answer_cuts,
        dict(
            G=graphs(),
            queries=QUERIES,
            epsilon=EPSILON,
            delta=DELTA,
            strategy=maybe("auto", "per-query", "workload", "noisy-graph", "blocks", "optimized"),
            weight=WEIGHT,
            rng=RNG,
        ),
    ),
    "privcut.cut_norm": (
        privcut.cut_norm,
        dict(
            A=MATRICES,
            method=maybe("auto", "exact", "spectral", "alon-naor"),
            certify=maybe(True, False),
            rng=RNG,
        ),
    ),
    "privcut.cut_value": (privcut.cut_value, dict(G=graphs(), S=SIDES, T=SIDES, weight=WEIGHT)),
    "privcut.PrivacyBudget": (privcut.PrivacyBudget, dict(epsilon=EPSILON, delta=DELTA)),
    "privcut.PrivacyBudget.spend": (
        lambda epsilon, delta: privcut.PrivacyBudget(1.0, 1e-6).spend(epsilon, delta),
        dict(epsilon=EPSILON, delta=DELTA),
    ),
    "privcut.NoisyGraph.error_bound": (
        lambda S, T, beta: privcut.noisy_graph(nx.path_graph(4), 1.0, rng=0).error_bound(
            S, T, beta
        ),
        dict(S=SIDES, T=SIDES, beta=BETA),
    ),
    "privcut.CutOracle.cut": (
        lambda S, T: privcut.CutOracle(nx.path_graph(4), 1.0, rng=0).cut(S, T),
        dict(S=SIDES, T=SIDES),
    ),
    "privcut.CutOracle.cuts": (
        lambda queries: privcut.CutOracle(nx.path_graph(4), 1.0, rng=0).cuts(queries),
        dict(
            queries=st.one_of(
                QUERIES,
                st.tuples(MATRICES, MATRICES),
                st.sampled_from(
                    [
                        (np.eye(4), np.ones((4, 4))),
                        (sp.csr_array(np.eye(4)), np.zeros((4, 4), dtype=bool)),
                        (np.eye(4), np.eye(3)),
                        (np.full((1, 4), 0.5), np.ones((1, 4))),
                        (np.zeros((0, 4)), np.zeros((0, 4))),
                    ]
                ),
            )
        ),
    ),
    "privcut.privacy.laplace": (
        privacy.laplace,
        dict(scale=EPSILON, size=maybe(None, 3, (2, 2)), rng=RNG),
    ),
    "privcut.privacy.gaussian": (
        privacy.gaussian,
        dict(sigma=EPSILON, size=maybe(None, 3), rng=RNG),
    ),
    "privcut.privacy.discrete_laplace": (
        privacy.discrete_laplace,
        dict(scale=maybe(1.0, 1e-300, 2.0**40, 5e-324), size=maybe(None, 3, (2, 0)), rng=RNG),
    ),
    "privcut.privacy.discrete_gaussian": (
        privacy.discrete_gaussian,
        dict(sigma=maybe(1.0, 1e-300, 0.03, 2.0**40), size=maybe(None, 3), rng=RNG),
    ),
    "privcut.privacy.gaussian_sigma": (
        privacy.gaussian_sigma,
        dict(epsilon=EPSILON, delta=DELTA, sensitivity=maybe(1.0, 1e-300, 1e300)),
    ),
    "privcut.privacy.discrete_gaussian_sigma": (
        discrete_gaussian_sigma,
        dict(epsilon=EPSILON, delta=DELTA, sensitivity=maybe(1.0, 2.0)),
    ),
    "privcut.privacy.zcdp_budget": (zcdp_budget, dict(epsilon=EPSILON, delta=DELTA)),
    "privcut.linear.QueryMatrix": (linear.QueryMatrix, dict(matrix=MATRICES)),
    "privcut.linear.l1_sensitivity": (linear.l1_sensitivity, dict(F=MATRICES)),
    "privcut.linear.l2_sensitivity": (linear.l2_sensitivity, dict(F=MATRICES)),
    "privcut.linear.laplace_mechanism": (
        linear.laplace_mechanism,
        dict(F=MATRICES, h=HISTOGRAMS, epsilon=EPSILON, beta=BETA, rng=RNG),
    ),
    "privcut.linear.gaussian_mechanism": (
        linear.gaussian_mechanism,
        dict(F=MATRICES, h=HISTOGRAMS, epsilon=EPSILON, delta=DELTA, beta=BETA, rng=RNG),
    ),
    "privcut.linear.factorization_mechanism": (
        linear.factorization_mechanism,
        dict(
            F=MATRICES,
            h=HISTOGRAMS,
            epsilon=EPSILON,
            delta=DELTA,
            strategy=maybe("optimized", "identity", "workload"),
            beta=BETA,
            rng=RNG,
        ),
    ),
    "privcut.linear.projection_mechanism": (
        linear.projection_mechanism,
        dict(
            F=MATRICES,
            h=HISTOGRAMS,
            epsilon=EPSILON,
            delta=maybe(1e-6, 0.1),
            constraint=maybe("cone", "simplex", "box"),
            n_bound=maybe(None, 10.0),
            count_share=SHARE,
            beta=BETA,
            rng=RNG,
        ),
    ),
    "privcut.linear.knorm_mechanism": (
        linear.knorm_mechanism,
        dict(
            F=MATRICES,
            h=HISTOGRAMS,
            epsilon=EPSILON,
            sampler=maybe("exact", "walk"),
            walk_steps=maybe(None, 10),
            beta=BETA,
            rng=RNG,
        ),
    ),
    "privcut.linear.mwem": (
        linear.mwem,
        dict(
            F=MATRICES,
            h=HISTOGRAMS,
            epsilon=EPSILON,
            rounds=maybe(2, 5),
            n=maybe(None, 10.0),
            count_share=SHARE,
            beta=BETA,
            rng=RNG,
        ),
    ),
    "privcut.linear.small_db": (
        linear.small_db,
        dict(
            F=MATRICES,
            h=HISTOGRAMS,
            epsilon=EPSILON,
            size=maybe(None, 2),
            alpha=maybe(0.5, 0.9),
            n=maybe(None, 10.0),
            count_share=SHARE,
            beta=BETA,
            rng=RNG,
        ),
    ),
    "privcut.linear.FriezeKannan": (
        linear.FriezeKannan,
        dict(m=maybe(4, 1), alpha=maybe(0.5, 2.0), n2_bound=maybe(4.0, 1.0)),
    ),
    "privcut.linear.MultiplicativeWeights": (
        linear.MultiplicativeWeights,
        dict(m=maybe(4, 1), alpha=maybe(0.5, 2.0), n=maybe(4.0, 1.0)),
    ),
    "privcut.linear.Median": (
        linear.Median,
        dict(m=maybe(4, 2), alpha=maybe(0.5, 2.0), n=maybe(4.0, 1.0), k=maybe(2, 10)),
    ),
    "privcut.linear.OnlineRelease": (
        linear.OnlineRelease,
        dict(
            h=HISTOGRAMS,
            epsilon=EPSILON,
            delta=DELTA,
            max_queries=maybe(3, 100),
            idc=maybe("frieze-kannan", "multiplicative-weights", "median"),
            n=maybe(None, 10.0),
            count_share=SHARE,
            alpha=maybe(None, 1.0),
            beta=BETA,
            rng=RNG,
        ),
    ),
    "privcut.linear.OnlineRelease.answer": (
        lambda query: linear.OnlineRelease([1, 2], 1.0, 1e-6, max_queries=3, n=10.0, rng=0).answer(
            query
        ),
        dict(query=maybe([1, 0], [1.0, 1.0], [1], [[1, 0]], [2, 0], "ab")),
    ),
    "privcut.linear.IterativeConstruction": (
        linear.IterativeConstruction,
        dict(
            epsilon=EPSILON,
            delta=DELTA,
            bound=maybe(lambda alpha: 100, lambda alpha: -1, lambda alpha: math.nan),
            sensitivity=maybe(1.0, 2.0),
            beta=BETA,
            accountant=maybe("zcdp", "paper"),
            accesses_per_round=maybe(2, 1),
            alpha=maybe(None, 1.0),
        ),
    ),
    "privcut.graph.filtered_randomized_response": (
        graph.filtered_randomized_response,
        dict(
            G=graphs(),
            epsilon=EPSILON,
            threshold=maybe(None, 1, 3),
            expected_size=maybe(None, 10.0, 1e-3),
            weight=maybe(None, "weight"),
            rng=RNG,
        ),
    ),
    "privcut.graph.private_communities": (
        graph.private_communities,
        dict(
            G=graphs(),
            epsilon=EPSILON,
            group_size=maybe(None, 20, 2, 0, -1, 1.5),
            resolution=maybe(1.0, 0.0, -1.0, math.nan),
            share=maybe(0.2, 0.0, 1.0, 1.5),
            rng=RNG,
            batches=maybe(64, 1, 3),
            rounds=maybe(1, 2),
            balance=maybe(1.0, 0.0, 3.0),
            count_share=maybe(0.05, 0.3),
        ),
    ),
    "privcut.graph.decides_groups": (
        graph.decides_groups,
        dict(
            n=maybe(5000, 10),
            method=maybe("auto", "sparse", "dense"),
            measurements=maybe("auto", ["edge-count", "degrees"]),
            groups=maybe(None, "none", "private"),
            directed=maybe(False, True),
            weight=WEIGHT,
            memory=maybe(None, 1e9),
        ),
    ),
    "privcut.graph.sweep_communities": (
        graph.sweep_communities,
        dict(
            G=graphs(),
            epsilon=EPSILON,
            labels=maybe(None, 8, 1, 3),
            batches=maybe(512, 1, 3),
            degree_share=maybe(0.1, 0.3, 0.0, 1.0),
            count_share=maybe(0.05, 0.3),
            balance=maybe(1.0, 0.0, 3.0),
            rng=RNG,
        ),
    ),
    "privcut.graph.PrivateGroups": (
        graph.PrivateGroups,
        dict(
            share=maybe(0.2, 0.5, 0.9, 0.0, 1.0),
            method=maybe("sweep", "super-graph", "louvain"),
            labels=maybe(None, 4, 0, 1.5),
            group_size=maybe(None, 20, 2, 0, 1.5),
            resolution=maybe(None, 1.0, 0.0, math.nan),
        ),
    ),
    "privcut.graph.FilteredNoisyGraph.cut": (
        lambda S, T: graph.filtered_randomized_response(
            nx.path_graph(4), 1.0, threshold=1, rng=0
        ).cut(S, T),
        dict(S=SIDES, T=SIDES),
    ),
    "privcut.graph.dask.synthetic_edges": (
        graph_dask.synthetic_edges,
        dict(
            edges=EDGE_TABLES,
            n=maybe(3, 6),
            epsilon=EPSILON,
            directed=maybe(False, True),
            measurements=maybe("auto", ["edge-count"], ["randomized-response"], ["nonsense"]),
            groups=maybe(None, [0, 1, 0], {0: "a", 1: "b", 2: "a"}, {0: "a"}),
            beta=BETA,
            partition_edges=maybe(1, 10),
            rng=RNG,
        ),
    ),
    "privcut.graph.dask.aggregate_edges": (
        graph_dask.aggregate_edges,
        dict(
            edges=EDGE_TABLES,
            n=maybe(3, 6),
            directed=maybe(False, True),
            groups=maybe(None, [0, 1, 0], {0: "a"}),
        ),
    ),
    "privcut.graph.dask.synthetic_from_aggregates": (
        graph_dask.synthetic_from_aggregates,
        dict(
            aggregates=maybe(_aggregates()),
            epsilon=EPSILON,
            measurements=maybe("auto", ["degrees"], {"edge-count": 1.0}),
            beta=BETA,
            partition_edges=maybe(1, 10),
            rng=RNG,
        ),
    ),
    "privcut.graph.plan_measurements": (
        graph.plan_measurements,
        dict(
            nodes=maybe(range(5), [], [0], ["a", "b"], [0, 0, 1]),
            epsilon=EPSILON,
            measurements=maybe(
                "auto",
                ["degrees"],
                {"edge-count": 1.0},
                ["nonsense"],
                [],
                ["clustering"],
                ["degrees", "clustering"],
                ["assortativity"],
                ["degrees", "assortativity"],
            ),
            groups=maybe(None, {0: "a", 1: "b"}),
            workload=maybe(None, {"degree": 1.0}, {"degree": -1.0}),
            directed=maybe(False, True),
            weight=maybe(None, "weight"),
            beta=BETA,
        ),
    ),
    "privcut.graph.MeasurementPlan": (
        graph.MeasurementPlan,
        dict(
            epsilon=EPSILON,
            measurements=maybe(("edge-count",)),
            epsilons=maybe((1.0,)),
            noise=maybe((privacy.Noise("laplace", 1.0),)),
            workload=maybe({}),
            predicted=maybe({}),
        ),
    ),
    "privcut.graph.synthetic_from_noisy": (
        graph.synthetic_from_noisy,
        dict(
            noisy=st.one_of(
                st.sampled_from(["path 5", "two nodes", "directed path"]).map(
                    lambda name: privcut.noisy_graph(GRAPHS[name](), 1.0, rng=0)
                ),
                st.sampled_from(BAD),
            ),
            oracle=maybe("spectral", "alon-naor"),
            rounding=maybe("random", None),
            beta=BETA,
            tau=maybe(None, 0.5),
            max_iterations=maybe(3),
            rng=RNG,
        ),
    ),
    "privcut.audit.audit": (
        audit_module.audit,
        dict(
            mechanism=CALLABLES,
            pair=maybe((0, 1), (0,), "ab"),
            epsilon=EPSILON,
            delta=DELTA,
            samples=maybe(200, 1000),
            confidence=maybe(0.95),
            rng=RNG,
        ),
    ),
    "privcut.audit.neighbouring_graphs": (
        audit_module.neighbouring_graphs,
        dict(G=graphs(), pairs=maybe(None, [(0, 1)], [(0, 99)], [(0,)], [(0, 0)])),
    ),
    "privcut.datasets.names": (datasets.names, {}),
    "privcut.datasets.load": (datasets.load, dict(name=maybe("karate", "davis", "enron"))),
    "privcut.datasets.provenance": (datasets.provenance, dict(name=maybe("karate", "nope"))),
    "privcut.datasets.community_graph": (
        datasets.community_graph,
        dict(
            n=maybe(50, 2, 1),
            groups=maybe(1, 2, 5),
            average_degree=maybe(2.0, 0.5, 10.0),
            exponent=maybe(2.5, 2.0001, 5.0),
            mixing=maybe(0.0, 0.1, 1.0),
            directed=maybe(False, True),
            seed=RNG,
            as_sparse=maybe(False, True),
        ),
    ),
    "privcut.evaluate.structure": (
        evaluate.structure,
        dict(
            G=STRUCTURES,
            H=STRUCTURES,
            groups=maybe(None, {0: "a", 1: "b"}, [0, 1, 1]),
            weight=WEIGHT,
            release_weight=WEIGHT,
            top=maybe(0.01, 0.5, 1.0),
            communities=maybe(False, True, [0, 0, 1]),
            seed=maybe(0, 1),
        ),
    ),
    "privcut.evaluate.louvain": (evaluate.louvain, dict(G=STRUCTURES, seed=maybe(0, 3))),
    "privcut.evaluate.clustering_by_degree": (
        evaluate.clustering_by_degree,
        dict(G=STRUCTURES, bins=maybe(2, 20)),
    ),
    "privcut.evaluate.normalized_mutual_information": (
        evaluate.normalized_mutual_information,
        dict(first=maybe([0, 0, 1], ["a", "b", "b"], []), second=maybe([1, 1, 0], [0, 1, 2])),
    ),
    "privcut.evaluate.relative_error": (
        evaluate.relative_error,
        dict(original=maybe(1, 0.0, 3.5), release=maybe(2, 0, math.nan)),
    ),
    "privcut.evaluate.structure_of": (
        evaluate.structure_of,
        dict(G=STRUCTURES, groups=maybe(None, {0: "a", 1: "b"}, [0, 1, 1]), weight=WEIGHT),
    ),
    "privcut.evaluate.cut_errors": (
        evaluate.cut_errors,
        dict(G=graphs(), H=graphs(), queries=QUERIES, weight=WEIGHT, release_weight=WEIGHT),
    ),
    "privcut.evaluate.max_cut_error": (
        evaluate.max_cut_error,
        dict(
            G=graphs(),
            H=graphs(),
            method=maybe("auto", "exact", "spectral"),
            weight=WEIGHT,
            release_weight=WEIGHT,
            rng=RNG,
        ),
    ),
    "privcut.evaluate.random_cuts": (
        evaluate.random_cuts,
        dict(G=graphs(), k=maybe(3, 1), rng=RNG),
    ),
    "privcut.evaluate.WorkloadClasses": (
        evaluate.WorkloadClasses,
        dict(
            G=graphs(),
            groups=maybe(None, {0: "a", 1: "b"}),
            bisections=maybe(5, 1),
            weight=WEIGHT,
            rng=RNG,
        ),
    ),
}


def _public_names() -> set[str]:
    names = {f"{module}.{name}" for module, names in PUBLIC.items() for name in names}
    return names | {f"privcut.{name}" for name in privcut.__all__}


NOT_CALLABLE = {"privcut.__version__"}
EXCEPTIONS = {f"privcut.{name}" for name in privcut.__all__ if name.endswith("Error")}
RESULTS = {
    "privcut.CutAnswers",
    "privcut.CutNormResult",
    "privcut.NoisyGraph",
    "privcut.SyntheticRelease",
    "privcut.graph.ConstructionRelease",
    "privcut.graph.CutAnswers",
    "privcut.graph.FilteredNoisyGraph",
    "privcut.graph.NoisyGraphReport",
    "privcut.graph.OracleStatus",
    "privcut.graph.PrivateCommunities",
    "privcut.graph.ReleasedCommunities",
    "privcut.datasets.EdgeArray",
    "privcut.graph.dask.EdgeAggregates",
    "privcut.graph.dask.DistributedGenerated",
    "privcut.evaluate.GraphStructure",
    "privcut.evaluate.StructureComparison",
    "privcut.graph.SyntheticRelease",
    "privcut.graph.construction.DistinguisherCost",
    "privcut.linear.LinearRelease",
    "privcut.records.Bound",
    "privcut.records.SolverSummary",
    "privcut.records.Spend",
}
"""Result records that the mechanisms build (covered through them and their methods)."""
READERS = {
    "privcut.datasets.read_edgelist": datasets.read_edgelist,
    "privcut.datasets.read_nodelist": datasets.read_nodelist,
    "privcut.datasets.read_groups": datasets.read_groups,
    "privcut.datasets.read_edge_array": datasets.read_edge_array,
}
ELSEWHERE = set(READERS) | {"privcut.datasets.write_edge_array"}
"""Driven by test_readers_on_malformed_files (they need generated files); the writer by
tests/test_edges.py's test_bad_writer_arguments_get_a_clear_error."""


def test_every_public_name_is_driven():
    missing = _public_names() - set(CASES) - NOT_CALLABLE - EXCEPTIONS - RESULTS - ELSEWHERE
    assert not missing, f"no bad-input case for {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(CASES))
@SETTINGS
@given(data=st.data())
def test_bad_input_gets_a_privcut_error(name, data):
    function, strategies = CASES[name]
    kwargs = data.draw(st.fixed_dictionaries(strategies), label="kwargs")
    check_call(function, **kwargs)


def _edge_file(tmp_path, content: bytes) -> Path:
    path = tmp_path / "edges.txt"
    path.write_bytes(content)
    return path


REPROS = {
    "zcdp_budget near delta 1 (hung)": lambda: zcdp_budget(0.5, 0.99999),
    "discrete_gaussian(1e-300) (hung)": lambda: privacy.discrete_gaussian(1e-300, rng=0),
    "laplace_mechanism at epsilon 800 (math domain error)": lambda: linear.laplace_mechanism(
        np.eye(2), [1, 2], 800.0, rng=0
    ),
    "synthetic_graph at epsilon 800 (ZeroDivisionError)": lambda: privcut.synthetic_graph(
        nx.path_graph(5), 800.0, rng=0
    ),
    "synthetic_graph on 0 nodes": lambda: privcut.synthetic_graph(nx.Graph(), 1.0, rng=0),
    "synthetic_graph on 1 node": lambda: privcut.synthetic_graph(GRAPHS["one node"](), 1.0, rng=0),
    "noisy_graph on 0 nodes": lambda: privcut.noisy_graph(nx.Graph(), 1.0, rng=0),
    "CutOracle on 0 nodes": lambda: privcut.CutOracle(nx.Graph(), 1.0, rng=0),
    "answer_cuts on 0 nodes": lambda: privcut.answer_cuts(nx.Graph(), [([], [])], 1.0, rng=0),
    "iterative_construction on 0 nodes": lambda: privcut.iterative_construction(
        nx.Graph(), 1.0, 1e-6, distinguisher="noisy-graph", rng=0
    ),
    "CutOracle alpha=0 (ZeroDivisionError)": lambda: privcut.CutOracle(
        nx.path_graph(4), 1.0, alpha=0, rng=0
    ),
    "max_queries=10**400 (OverflowError)": lambda: privcut.CutOracle(
        nx.path_graph(4), 1.0, max_queries=10**400, rng=0
    ),
    "gaussian_mechanism at epsilon 1e300 (NaN to integer)": lambda: linear.gaussian_mechanism(
        np.eye(2), [1, 2], 1e300, 0.5, rng=0
    ),
    "answer_cuts with a 3-tuple query": lambda: privcut.answer_cuts(
        nx.path_graph(4), [({0}, {1}, {2})], 1.0, rng=0
    ),
    "answer_cuts with queries=None": lambda: privcut.answer_cuts(
        nx.path_graph(4), None, 1.0, rng=0
    ),
    "answer_cuts with an all-empty workload": lambda: privcut.answer_cuts(
        nx.path_graph(4), [(set(), set()), ({0}, set())], 1.0, rng=0
    ),
    "cut_value(None, ...)": lambda: privcut.cut_value(nx.path_graph(4), None, {1}),
    'discrete_laplace(1, "3")': lambda: privacy.discrete_laplace(1, "3", rng=0),
}


NAMED = {
    "answer_cuts with a 3-tuple query": ("queries",),
    "answer_cuts with queries=None": ("queries",),
    "answer_cuts with an all-empty workload": ("queries",),
    "cut_value(None, ...)": ("S",),
    'discrete_laplace(1, "3")': ("size",),
    "max_queries=10**400 (OverflowError)": ("max_queries",),
}
"""The parameter a repro's ValueError or TypeError must name."""


@pytest.mark.parametrize("name", sorted(REPROS))
def test_issue_15_repros_get_a_privcut_error(name):
    check_call(REPROS[name], names=NAMED.get(name, ()))


@pytest.mark.parametrize(
    ("function", "expected"),
    [
        (lambda: privcut.synthetic_graph(nx.Graph(), 1.0, rng=0), privcut.GraphInputError),
        (lambda: privcut.noisy_graph(GRAPHS["one node"](), 1.0), privcut.GraphInputError),
        (lambda: privcut.cut_value(nx.path_graph(3), {0}, None), TypeError),
        (lambda: linear.laplace_mechanism(np.eye(2), [1, 2], 800.0), privcut.PrivacyParameterError),
    ],
)
def test_chosen_errors(function, expected):
    with pytest.raises(expected, match=r"at least 2 nodes|T must be|at most 100"):
        function()


def test_tiny_scales_are_a_point_mass_within_the_stated_bound():
    assert not privacy.discrete_gaussian(1e-300, size=1000, rng=0).any()
    assert privacy.discrete_gaussian_tv_bound(1e-300) <= 5e-324
    assert 0 < zcdp_budget(0.5, 0.99999) < math.inf


def test_read_edgelist_keeps_labels_starting_with_a_comment_marker(tmp_path):
    path = _edge_file(tmp_path, b'# header\n% header\n1 #tag\n2 %x\n"#a",3\n')
    assert sorted(datasets.read_edgelist(path).edges()) == [
        ("#a", "3"),
        ("1", "#tag"),
        ("2", "%x"),
    ]


@pytest.mark.parametrize("content", [b"#a b\n", b"%a b 0.5\n"])
def test_read_edgelist_refuses_an_ambiguous_comment(tmp_path, content):
    with pytest.raises(privcut.GraphInputError, match="ambiguous"):
        datasets.read_edgelist(_edge_file(tmp_path, content))


@SETTINGS
@given(
    content=st.one_of(
        st.binary(max_size=40),
        st.lists(
            st.sampled_from(
                [
                    "1 2",
                    "1 1",
                    "#a b",
                    "# nodes: [1]",
                    "# nodes: 3",
                    "1,2,nan",
                    "1 2 5",
                    'a,"b',
                    "é ß",
                    "\x00 1",
                    "1 2 3 4",
                    "% x",
                    "1\t2",
                    "\u2028 1",
                    "",
                ]
            ),
            max_size=5,
        ).map(lambda lines: "\n".join(lines).encode()),
    ),
    directed=maybe(False, True),
)
def test_readers_on_malformed_files(tmp_path_factory, content, directed):
    path = _edge_file(tmp_path_factory.mktemp("edges"), content)
    check_call(datasets.read_edgelist, path, directed=directed)
    check_call(datasets.read_nodelist, path)
    check_call(datasets.read_groups, path)
    check_call(datasets.read_edge_array, path, directed=directed)


@pytest.mark.parametrize(
    "call",
    [
        lambda: privcut.noisy_graph(nx.karate_club_graph(), 5e-324, rng=0),
        lambda: privcut.iterative_construction(nx.karate_club_graph(), 5e-324, 1e-6, rng=0),
        lambda: linear.mwem(np.ones((2, 4)), [1, 2, 3, 4], 5e-324, rng=0),
        lambda: linear.small_db(np.ones((2, 4)), [1, 2, 3, 4], 5e-324, rng=0),
        lambda: linear.laplace_mechanism(np.ones((2, 4)), [1, 2, 3, 4], 5e-324, rng=0),
        lambda: privacy.Noise.for_laplace(0.0, 1.0, integer=True),
    ],
)
def test_sweep37_f1_the_smallest_epsilon_is_too_small_not_zero_or_an_infinite_scale(call):
    """Sweep 37 F1: at epsilon 5e-324 a share underflowed to 0 ("epsilon must be finite and
    > 0, got 0.0") or the scale to inf ("scale must be finite and > 0, got inf")."""
    with pytest.raises(privcut.PrivacyParameterError, match=r"2\*\*40.*raise epsilon"):
        call()
