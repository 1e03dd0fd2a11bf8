"""The sparse release on Dask (issue 19): the same release as in memory, checked input,
public output partitioning, and its audit, on a two-process ``distributed.LocalCluster``."""

from __future__ import annotations

import math
from dataclasses import replace

import dask.dataframe as dd
import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from privcut.audit import audit, neighbouring_graphs
from privcut.exceptions import GraphInputError
from privcut.graph.dask import (
    EdgeAggregates,
    aggregate_edges,
    synthetic_edges,
    synthetic_from_aggregates,
)
from privcut.graph.fitting import fit_targets
from privcut.graph.measurement import Measurements, noisy_statistic
from privcut.graph.planning import plan_measurements
from privcut.graph.sparse import SparseGenerator
from privcut.graph.synthetic import synthetic_graph
from privcut.graph.universe import EdgeUniverse

distributed = pytest.importorskip("distributed")

N = 400
WITHOUT_GROUPS = SparseGenerator.default_measurements(False, clustering=False)  # dask's "auto"


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _table(u, v, partitions: int) -> dd.DataFrame:
    frame = pd.DataFrame({"u": np.asarray(u, dtype=np.int64), "v": np.asarray(v, dtype=np.int64)})
    return dd.from_pandas(frame, npartitions=partitions, sort=False)


@pytest.fixture(scope="module")
def medium():
    """A heavy-tailed graph on N nodes, its edges half in (v, u) orientation, in 4
    partitions; its CSR adjacency; public groups."""
    G = nx.barabasi_albert_graph(N, 4, seed=3)
    u, v = np.array(G.edges).T
    flip = np.arange(u.size) % 2 == 0
    table = _table(np.where(flip, v, u), np.where(flip, u, v), 4)
    A = nx.to_scipy_sparse_array(G, nodelist=range(N), format="csr")
    return table, A, {i: i % 4 for i in range(N)}


def _auto(groups) -> dict:
    """The in-memory release's measurements matching the dask engine's ``"auto"``."""
    return {} if groups is not None else {"measurements": WITHOUT_GROUPS}


def _keys(rows, columns) -> np.ndarray:
    return np.sort(np.asarray(rows, dtype=np.int64) * N + np.asarray(columns))


def _released_keys(H) -> np.ndarray:
    upper = sp.coo_array(sp.triu(H))
    return _keys(upper.row, upper.col)


@pytest.mark.parametrize("grouped", [False, True])
def test_same_release_as_in_memory_for_every_seed(client, medium, grouped):
    table, A, groups = medium
    groups = groups if grouped else None
    aggregates = aggregate_edges(table, N, groups=groups)  # one distributed pass
    assert int(aggregates.sizes.sum()) == A.nnz // 2
    dask_stats, memory_stats = [], []
    for seed in range(8):
        released, report = synthetic_from_aggregates(aggregates, 1.0, rng=seed)
        edges = released.compute()
        H = synthetic_graph(A, 1.0, method="sparse", groups=groups, rng=seed, **_auto(groups))
        # the same seed gives the same release: the same draws in the same order
        assert np.array_equal(_keys(edges.u, edges.v), _released_keys(H))
        memory = H.graph["privcut"]
        assert report.to_dict()["measurements"] == memory["measurements"]
        assert {k for k, value in report.to_dict().items() if value != memory[k]} == {"mechanism"}
        degrees = np.bincount(np.concatenate([edges.u, edges.v]), minlength=N)
        dask_stats.append((len(edges), degrees.max(), degrees.std()))
        # in memory with other seeds: the same law
        H = synthetic_graph(
            A, 1.0, method="sparse", groups=groups, rng=1000 + seed, **_auto(groups)
        )
        degrees = np.asarray(H.sum(axis=1)).ravel()
        memory_stats.append((H.nnz // 2, degrees.max(), degrees.std()))
    dask_stats, memory_stats = np.array(dask_stats), np.array(memory_stats)
    spread = np.maximum(dask_stats.std(axis=0), memory_stats.std(axis=0))
    gap = np.abs(dask_stats.mean(axis=0) - memory_stats.mean(axis=0))
    assert (gap <= 2.0 * spread + 1e-9).all(), (dask_stats.mean(axis=0), memory_stats.mean(axis=0))


def test_synthetic_edges_end_to_end_partitions_by_the_released_count(client, medium, tmp_path):
    table, A, groups = medium
    released, report = synthetic_edges(table, N, 1.0, groups=groups, partition_edges=300, rng=7)
    assert released.npartitions == math.ceil(report.edge_count / 300)
    names = {m.name for m in report.measurements}
    assert names == {"edge-count", "blocks", "degrees", "degree-sequence"}
    assert "engine 'dask'" in report.mechanism
    released.to_parquet(tmp_path / "out")
    back = dd.read_parquet(tmp_path / "out").compute()
    assert len(back) == report.edge_count and (back.u < back.v).all()
    H = synthetic_graph(A, 1.0, method="sparse", groups=groups, rng=7)
    assert np.array_equal(_keys(back.u, back.v), _released_keys(H))


def test_directed_release_matches_in_memory(client):
    G = nx.gnp_random_graph(60, 0.08, seed=2, directed=True)
    u, v = np.array(G.edges).T
    assert any(G.has_edge(b, a) for a, b in G.edges)  # (u, v) and (v, u): two arcs, no repeat
    A = nx.to_scipy_sparse_array(G, nodelist=range(60), format="csr")
    released, report = synthetic_edges(_table(u, v, 3), 60, 2.0, directed=True, rng=4)
    edges = released.compute()
    H = synthetic_graph(A, 2.0, method="sparse", directed=True, rng=4)
    coo = sp.coo_array(H)
    assert np.array_equal(
        np.sort(edges.u.to_numpy() * 60 + edges.v.to_numpy()), np.sort(coo.row * 60 + coo.col)
    )
    assert report.edge_count == H.nnz


BAD = [
    (lambda: pd.DataFrame({"u": [0, 1]}), GraphInputError, "no column 'v'"),
    (lambda: pd.DataFrame({"u": [0.0, 1.0], "v": [1.0, 2.0]}), GraphInputError, "dtype"),
    (lambda: pd.DataFrame({"u": [0, 1, 2], "v": [1, 2, 9]}), GraphInputError, "outside"),
    (lambda: pd.DataFrame({"u": [0, -1, 2], "v": [1, 2, 3]}), GraphInputError, "outside"),
    (lambda: pd.DataFrame({"u": [0, 1, 2], "v": [1, 1, 3]}), GraphInputError, "self-loop"),
    # the same undirected edge in two partitions, in both orientations
    (lambda: pd.DataFrame({"u": [0, 1, 5, 3], "v": [5, 2, 0, 4]}), GraphInputError, "duplicate"),
]


@pytest.mark.parametrize("make, error, words", BAD)
def test_bad_edges_get_a_clear_error_before_any_noise(client, make, error, words):
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(error, match=words):
        synthetic_edges(dd.from_pandas(make(), npartitions=2, sort=False), 6, 1.0, rng=rng)
    assert rng.bit_generator.state == state  # nothing drawn


def test_bad_options_get_a_clear_error():
    table = _table([0, 1], [1, 2], 1)
    with pytest.raises(TypeError, match=r"dask\.dataframe"):
        synthetic_edges(pd.DataFrame({"u": [0], "v": [1]}), 3, 1.0)
    with pytest.raises(ValueError, match="randomized-response"):
        synthetic_edges(table, 3, 1.0, measurements=["edge-count", "randomized-response"])
    with pytest.raises(ValueError, match="'clustering'"):
        synthetic_edges(table, 3, 1.0, measurements=["edge-count", "degrees", "clustering"])
    with pytest.raises(ValueError, match="'assortativity'"):
        synthetic_edges(table, 3, 1.0, measurements=["edge-count", "degrees", "assortativity"])
    with pytest.raises(GraphInputError, match="entries for 3 nodes"):
        synthetic_edges(table, 3, 1.0, groups=[0, 1])
    with pytest.raises(ValueError, match="epsilon"):
        synthetic_edges(table, 3, -1.0)
    with pytest.raises(ValueError, match="n must be an integer"):
        synthetic_edges(table, 1, 1.0)
    with pytest.raises(TypeError, match="EdgeAggregates"):
        synthetic_from_aggregates({"edges": 3}, 1.0)


class NoisePerPartition(EdgeAggregates):
    """The broken twin: the edge count noised per input partition, each partition's noise
    scaled to its share 1/P of the sensitivity (as if one edge moved every partition's
    count by 1/P), then summed."""

    def measure(self, plan, universe, rng):
        (name,) = plan.measurements
        exact = np.array([float(self.sizes.sum())])
        record = noisy_statistic(name, exact, plan, universe, None, rng)
        parts = self.sizes.size
        noise = sum(plan.noise[0].sample(1, rng=rng) / parts for _ in range(parts))
        record = replace(record, values=np.rint(exact + noise))
        return Measurements(plan, universe, None, (record,))


@pytest.mark.slow
def test_distributed_release_passes_its_audit_and_catches_noise_per_partition(client):
    epsilon = 1.0
    G = nx.path_graph(6)
    neighbour = next(neighbouring_graphs(G, pairs=[(0, 4)]))

    def aggregates_of(graph, kind=EdgeAggregates):
        u, v = np.array(graph.edges).T
        found = aggregate_edges(_table(u, v, 5), 6)  # on the cluster, one edge a partition
        return kind(found.n, found.directed, None, found.sizes, found.degrees, None)

    universe = EdgeUniverse(tuple(range(6)), False)
    plan = plan_measurements(universe.nodes, epsilon, ["edge-count"])
    generator = SparseGenerator()

    def mechanism(aggregates, rng):
        # the client's part of synthetic_from_aggregates (its report and Dask frame are
        # functions of this release)
        measured = aggregates.measure(plan, universe, rng)
        options = generator.options()
        return generator.generate(measured, fit_targets(measured), options, rng).edge_count

    correct = (aggregates_of(G), aggregates_of(neighbour))
    broken = (aggregates_of(G, NoisePerPartition), aggregates_of(neighbour, NoisePerPartition))
    assert audit(mechanism, correct, epsilon, samples=1500, rng=0).p_value >= 0.01
    assert audit(mechanism, broken, epsilon, samples=500, rng=0).p_value <= 1e-3


def test_cli_synthesize_with_the_dask_engine(client, medium, tmp_path, capsys):
    import json

    from privcut.cli import main

    table, A, groups = medium
    edges = tmp_path / "edges.parquet"
    table.compute().to_parquet(edges)
    (tmp_path / "groups.txt").write_text("".join(f"{i} g{g}\n" for i, g in groups.items()))
    out, report = tmp_path / "out", tmp_path / "report.json"
    common = [f"--node-count={N}", "--scheduler", client.scheduler.address, "--seed", "5"]
    arguments = ["synthesize", str(edges), "--engine", "dask", "--epsilon", "1", *common]
    assert main([*arguments, "-o", str(out), "--report", str(report), "--quiet"]) == 0
    back = dd.read_parquet(out).compute()
    H = synthetic_graph(A, 1.0, method="sparse", measurements=WITHOUT_GROUPS, rng=5)
    assert np.array_equal(_keys(back.u, back.v), _released_keys(H))
    assert json.loads(report.read_text())["edge_count"] == len(back)
    with pytest.raises(SystemExit) as exit_:
        main([*arguments, "-o", str(tmp_path / "x"), "--weight", "w"])
    assert exit_.value.code == 2 and "--weight" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(
            [
                *arguments,
                "-o",
                str(tmp_path / "y"),
                "--groups",
                str(tmp_path / "groups.txt"),
                "--measurements",
                "edge-count,randomized-response",
            ]
        )
    assert "randomized-response" in capsys.readouterr().err
