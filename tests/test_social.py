"""Smoke tests of issue 18's acceptance harness, benchmarks/social.py, on tiny graphs."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from privcut.datasets import community_graph

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SPEC = importlib.util.spec_from_file_location("benchmark_social", BENCHMARKS / "social.py")
social = importlib.util.module_from_spec(SPEC)
sys.modules["benchmark_social"] = social  # the pool's workers find run_cell by module name
SPEC.loader.exec_module(social)


@pytest.fixture(scope="module")
def tiny():
    A, _ = community_graph(300, 5, 10.0, seed=1, as_sparse=True)
    return {"tiny": sp.csr_array(A)}


@pytest.fixture(scope="module")
def releases():
    found = social.methods(["privcut", "privgraph", "top-m"])
    sys.path.remove(str(BENCHMARKS))
    return found


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    return tmp_path_factory.mktemp("social") / "cells.jsonl"


@pytest.fixture(scope="module")
def serial(tiny, releases, log):
    return social.run(tiny, releases, [1.0], seeds=2, jobs=1, log=log)


def test_run_and_report(serial, releases):
    assert list(releases) == ["privcut", "privgraph", "top-m"]
    info, results = serial
    rows = results[("tiny", 1.0)]
    assert set(rows) == set(releases) and all(len(r) == 2 for r in rows.values())
    assert np.isnan(rows["top-m"][0]["own-group"])  # top-m has no communities
    assert rows["privgraph"][0]["own-group"] >= 0  # PrivGraph's private partition
    lines = social.report(info, results, [1.0])
    assert any(line.startswith("| 1 | privgraph |") for line in lines)
    assert sum(line.startswith("- acceptance tiny, ε = 1, privcut:") for line in lines) == 1


def test_jobs_do_not_change_what_is_measured(tiny, releases, serial):
    pooled = social.run(tiny, releases, [1.0], seeds=2, jobs=2)[1]
    for method, rows in serial[1][("tiny", 1.0)].items():
        for first, second in zip(rows, pooled[("tiny", 1.0)][method], strict=True):
            first, second = dict(first), dict(second)
            first.pop("seconds"), second.pop("seconds")
            assert first == pytest.approx(second, nan_ok=True)


def test_acceptance_compares_with_the_best_peer():
    def rows(**values):
        base = {key: 1.0 for _, key in social.METRICS} | {"own-group": np.nan}
        return [base | values]

    line = social.acceptance(
        {
            "privcut": rows(degree_kl=0.1, nmi=0.5, seconds=2.0),
            "privgraph": rows(degree_kl=0.2, nmi=0.6, seconds=3.0),
            "top-m": rows(degree_kl=0.3, nmi=0.1, seconds=1.0),
        },
        "privcut",
    )
    assert "degree KL y (0.1 vs 0.2)" in line
    assert "NMI n (0.5 vs 0.6)" in line
    assert "speed n (2 vs 1)" in line
    assert "own-community" not in line
    assert social.acceptance({"privcut": rows()}, "privcut") == "no peers to compare with"


def test_private_groups_skipped_with_a_message_or_run(capsys):
    found = social.methods(["privcut-private"])
    if "privcut-private" not in found:
        assert 'does not accept groups="private"' in capsys.readouterr().err
    else:
        A, _ = community_graph(300, 5, 10.0, seed=1, as_sparse=True)
        H, communities = found["privcut-private"](sp.csr_array(A), 1.0, 0)
        assert H.shape == A.shape
        assert communities is None or len(communities) == A.shape[0]


def test_unknown_names_are_refused():
    with pytest.raises(SystemExit, match="unknown methods"):
        social.methods(["privcat"])
    with pytest.raises(SystemExit, match="unknown graph"):
        social.load("wiki")


def test_the_log_gives_back_the_whole_seeds(serial, log):
    info, results, epsilons, seeds = social.read_log(log)
    assert (info, epsilons, seeds) == (serial[0], [1.0], 2)
    assert social.report(info, results, epsilons) == social.report(*serial, [1.0])
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:-1]) + "\n")  # a run stopped before its last cell
    assert social.read_log(log)[3] == 1
