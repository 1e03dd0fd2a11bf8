"""Structural statistics at scale (issue 17): ``structure_of`` against the physical floor.

For heavy-tailed community graphs (``community_graph``, average degree 20, 20 groups,
exponent 2.5, mixing 0.1) at 10^4 and 10^5 nodes (10^5 and 10^6 edges): the time to
generate the graph (as a sparse matrix), to write it as an edge list, and the floor of
the issue's acceptance, reading that edge-list file into a CSR adjacency (NumPy's C text
parser, ``np.loadtxt``; pyarrow and pandas are not installed here), then the time of
``structure_of`` (with the groups' modularity) and of ``structure`` on two such graphs
(both statistics, KL and centrality overlap), each with its ratio to the floor. Timings
are single runs on the same machine in one process.

Run: ``python benchmarks/structure.py [--sizes 10000 100000]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from privcut.datasets import community_graph
from privcut.evaluate import structure, structure_of

DEGREE, GROUPS = 20.0, 20


def read_csr(path: Path, n: int) -> sp.csr_array:
    """An undirected edge-list file as a symmetric 0/1 CSR adjacency (the floor)."""
    edges = np.loadtxt(path, dtype=np.int64, ndmin=2)
    rows = np.concatenate([edges[:, 0], edges[:, 1]])
    columns = np.concatenate([edges[:, 1], edges[:, 0]])
    return sp.csr_array((np.ones(rows.size), (rows, columns)), shape=(n, n))


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def row(n: int, folder: Path) -> str:
    (A, labels), generate = timed(community_graph, n, GROUPS, DEGREE, seed=0, as_sparse=True)
    upper = sp.triu(A, format="coo")
    path = folder / f"edges-{n}.txt"
    np.savetxt(path, np.column_stack([upper.row, upper.col]), fmt="%d")
    B, floor = timed(read_csr, path, n)
    assert (abs(A - B)).nnz == 0
    found, single = timed(structure_of, B, groups=labels)
    release, _ = community_graph(n, GROUPS, DEGREE, seed=1, as_sparse=True)
    compared, both = timed(structure, B, release, groups=labels)
    return (
        f"| {n:,} | {found.edges:,} | {found.max_degree:,} | {generate:.2f} | {floor:.2f} | "
        f"{single:.2f} ({single / floor:.1f}x) | {both:.2f} ({both / floor:.1f}x) | "
        f"{found.triangles:,} | {found.transitivity:.4f} | {found.modularity:.3f} | "
        f"{compared.degree_kl:.3f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**4, 10**5])
    sizes = parser.parse_args().sizes
    print(
        "| nodes | edges | max degree | generate s | floor: read file to CSR s | "
        "structure_of s (x floor) | structure(G, H) s (x floor) | triangles | "
        "transitivity | modularity | KL(seed 0 vs 1) |"
    )
    print("|" + "---|" * 11)
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            print(row(n, Path(folder)), flush=True)


if __name__ == "__main__":
    main()
