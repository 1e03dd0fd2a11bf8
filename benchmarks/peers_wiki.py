"""Run the two peers (benchmarks/peers.py) once on wiki-vote read as undirected, at epsilon 1.

Usage: ``PYTHONPATH=. python benchmarks/peers_wiki.py [path] [epsilon] [seed]``; prints the
input's nodes and edges and, per peer, its wall time and released edge count.
"""

import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peers

from privcut.datasets import read_edge_array


def main(argv: list[str]) -> None:
    path = argv[0] if argv else "/work/shared/data/wiki-vote.edges"
    epsilon = float(argv[1]) if len(argv) > 1 else 1.0
    seed = int(argv[2]) if len(argv) > 2 else 0
    arcs = read_edge_array(path, directed=True).adjacency
    A = sp.csr_array(((arcs + arcs.T) > 0).astype(np.int8))
    print(f"{path}: n={A.shape[0]} undirected edges={A.nnz // 2} epsilon={epsilon}")
    for name in ("privgraph", "top_m_filter"):
        rng = np.random.default_rng(seed)
        start = time.perf_counter()
        out = getattr(peers, name)(A, epsilon, rng)
        seconds = time.perf_counter() - start
        print(f"{name}: {seconds:.2f} s, {out.nnz // 2} edges")


if __name__ == "__main__":
    main(sys.argv[1:])
