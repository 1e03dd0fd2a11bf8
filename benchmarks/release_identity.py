"""Issue 18, speed: fingerprints of seeded sparse releases, to check that a faster
implementation releases the same graphs (same seed, same edge set).

Prints one line per release, ``<case> <sha1 of the sorted edge keys>``: the default
release (no groups) on wiki-vote, gnutella and LFR 5k (``benchmarks/social.py``) and on
two small generated graphs at epsilon 0.5, 1 and 2, seeds 0-2; and on a 2,000-node
community graph, releases with public groups (default measurements, and with
clustering and assortativity), with ``groups="private"``, with filtered randomized
response, and a directed graph (seeds 0-2, epsilon 1); with ``--large``, also the default
release of ``benchmarks/scale.py``'s 10^5-node community graph (seeds 0-1, epsilon 1).
Run it on two trees and compare the outputs (``diff``).

Run: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=<tree> python benchmarks/release_identity.py
[--large]``.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcut import synthetic_graph
from privcut.datasets import community_graph

sys.path.insert(0, str(Path(__file__).resolve().parent))
import social  # the harness's graphs

GROUPED = {
    "edge-count": 0.1,
    "blocks": 0.5,
    "degrees": 0.2,
    "degree-sequence": 0.1,
    "clustering": 0.05,
    "assortativity": 0.05,
}
FILTERED = {"edge-count": 0.2, "degrees": 0.3, "filtered-randomized-response": 0.5}


def _fingerprint(H, n: int) -> str:
    coo = sp.coo_array(H)
    keys = np.sort(coo.row.astype(np.int64) * n + coo.col)
    return hashlib.sha1(keys.tobytes()).hexdigest()


def _small(name: str) -> sp.csr_array:
    if name == "ba":
        G = nx.barabasi_albert_graph(400, 5, seed=1)
    else:
        G = nx.watts_strogatz_graph(300, 8, 0.1, seed=2)
    return sp.csr_array(nx.to_scipy_sparse_array(G, weight=None).astype(float))


def main() -> None:
    graphs = {name: social.load(name) for name in social.DEFAULT_GRAPHS}
    graphs |= {name: _small(name) for name in ("ba", "ws")}
    for name, A in graphs.items():
        if A is None:
            continue
        for seed in range(3):
            for epsilon in (0.5, 1.0, 2.0):
                H = synthetic_graph(A, epsilon, method="sparse", rng=seed)
                print(f"{name}/{seed}/{epsilon} {_fingerprint(H, A.shape[0])}")
    A, labels = community_graph(2000, 8, 10.0, exponent=2.5, mixing=0.1, seed=0, as_sparse=True)
    A = sp.csr_array(A)
    groups = {i: int(label) for i, label in enumerate(labels)}
    D = nx.gnp_random_graph(300, 0.03, seed=3, directed=True)
    directed = sp.csr_array(nx.to_scipy_sparse_array(D, nodelist=range(300), weight=None))
    cases = [
        ("groups", A, dict(groups=groups)),
        ("groups-clustering", A, dict(groups=groups, measurements=GROUPED)),
        ("private", A, dict(groups="private")),
        ("filtered", A, dict(measurements=FILTERED)),
        ("directed", directed.astype(float), dict(directed=True)),
    ]
    for name, G, options in cases:
        for seed in range(3):
            H = synthetic_graph(G, 1.0, method="sparse", rng=seed, **options)
            print(f"{name}/{seed} {_fingerprint(H, G.shape[0])}")
    if "--large" in sys.argv[1:]:  # benchmarks/scale.py's 10^5-node row, seeds 0-1
        A = social.load("community-1e5")
        for seed in range(2):
            H = synthetic_graph(A, 1.0, method="sparse", rng=seed)
            print(f"community-1e5/{seed} {_fingerprint(H, A.shape[0])}")


if __name__ == "__main__":
    main()
