"""Every real-valued release path puts its noisy values on a public power-of-two grid.

Reviewer's finding (Mironov 2012, *On significance of the least significant bits for
differential privacy*): ``y + laplace(b)`` in floats reveals y through its low-order bits.
The paths below now release ``g * (round(y / g) + Z)`` with discrete Z (privcut.privacy.Noise);
a spy on :class:`Noise` checks every draw and every released noisy value is on its grid.
"""

import networkx as nx
import numpy as np
import pytest

from privcut.graph import CutOracle, noisy_graph, synthetic_graph
from privcut.linear import (
    OnlineRelease,
    factorization_mechanism,
    gaussian_mechanism,
    laplace_mechanism,
    mwem,
    projection_mechanism,
)
from privcut.privacy import Noise
from tests.auditing import assert_on_grid, record_sampler_tv

REAL = np.array([[1.0, 0.3, 0.0, 0.5], [0.1, 0.0, 0.7, 0.5], [0.0, 0.25, 1.0, 0.5]])
H = np.array([3, 1, 4, 1])


@pytest.fixture
def spy(monkeypatch):
    """Record (noise, output) of every Noise.sample and Noise.add call."""
    calls = []
    for name in ("sample", "add"):
        original = getattr(Noise, name, None)

        def wrapped(self, *args, _original=original, **kwargs):
            output = _original(self, *args, **kwargs)
            calls.append((self, output))
            return output

        monkeypatch.setattr(Noise, name, wrapped, raising=False)
    return calls


def weighted_graph():
    G = nx.gnp_random_graph(12, 0.5, seed=0)
    for index, (u, v) in enumerate(G.edges()):
        G[u][v]["weight"] = 0.1 + 0.8 * ((index * 0.618034) % 1.0)
    return G


def fractional_rank1(calibration, epsilon):
    """A first rank-1 query with a weight 1/4 on an empty-start oracle: an update round."""
    oracle = CutOracle(
        nx.complete_bipartite_graph(30, 30),
        epsilon,
        1e-6,
        max_edges=1,
        start="density",
        max_queries=2,
        calibration=calibration,
        rng=0,
    )
    answer = oracle.rank1(
        {0: 0.25, **{node: 1.0 for node in range(1, 30)}}, dict.fromkeys(range(30, 60), 1.0)
    )
    assert oracle.updates == 1
    return oracle, answer


def online_update(calibration, delta):
    """A fractional query far from the uniform start, asked until it makes an update round
    (its error is near the paper calibration's threshold: one draw in eight passes it by)."""
    n = 10**6
    release = OnlineRelease(
        np.array([n, 0, 0, 0]), 1.0, delta, max_queries=3, n=n, calibration=calibration, rng=0
    )
    while release.updates == 0:
        answer = release.answer([1.0, 0.25, 0.0, 0.0])
    return answer


PATHS = {
    "laplace": lambda: laplace_mechanism(REAL, H, 0.7, rng=0),
    "gaussian": lambda: gaussian_mechanism(REAL, H, 0.7, 1e-6, rng=0),
    "factorization-pure": lambda: factorization_mechanism(
        REAL, H, 0.7, strategy=(np.eye(3), REAL), rng=0
    ),
    "factorization": lambda: factorization_mechanism(REAL, H, 0.7, 1e-6, rng=0),
    "projection": lambda: projection_mechanism(REAL, H, 0.7, 1e-6, n_bound=20, rng=0),
    "mwem": lambda: mwem(REAL, H, 1.0, rounds=3, n=9, rng=0),
    "noisy-graph": lambda: noisy_graph(weighted_graph(), 0.7, weight="weight", rng=0),
    "synthetic-graph": lambda: synthetic_graph(
        weighted_graph(),
        1.0,
        measurements=["edge-count", "degrees", "randomized-response"],
        weight="weight",
        rounding=None,
        rng=0,
    ),
    "oracle-rank1": lambda: fractional_rank1("tight", 1.0),
    "online": lambda: online_update("tight", 0.0),
    "online-paper": lambda: online_update("paper", 1e-6),
}


@pytest.mark.parametrize("path", sorted(PATHS))
def test_every_real_valued_noisy_value_is_on_its_grid(path, spy):
    PATHS[path]()
    real = [(noise, output) for noise, output in spy if not noise.integer]
    assert real, "no real-valued noise was drawn"
    for noise, output in real:
        assert_on_grid(output, getattr(noise, "grid", 0.0))
    assert any(not noise.integer for noise, _ in spy if getattr(noise, "grid", 0.0))


def test_mwem_measurements_are_on_the_grid():
    release = mwem(REAL, H, 1.0, rounds=4, n=9, rng=0)
    grid = Noise.for_laplace(1.0 * 0.9 / 4 / 2, 1.0, integer=False, coordinates=1).grid
    assert_on_grid([value for _, value in release.details["measured"]], grid)


def test_fractional_oracle_answer_is_on_the_grid_and_counted_in_the_slack(monkeypatch):
    drawn = record_sampler_tv(monkeypatch)
    oracle, answer = fractional_rank1("tight", 1.0)
    grid = oracle._engine.released_noise.on_grid(oracle.sensitivity).grid
    assert_on_grid([answer], grid)
    assert oracle.sampler_tv == pytest.approx(drawn(), rel=1e-12)
