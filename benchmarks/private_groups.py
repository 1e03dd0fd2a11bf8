"""``groups="private"`` against the default release without groups (issue 18).

For each graph and epsilon, ``--seeds`` releases of each variant with the sparse generator
(``synthetic_graph(A, epsilon, method="sparse", rng=seed)``, measurements "auto"):

- ``default``: no groups (the edge count, the degrees and the degree sequence);
- ``private``: ``groups="private"`` (0.2 of epsilon on the communities, the rest on the
  sparse generator's shares for groups: 0.8 of it on the block counts);
- ``private, degree shares``: ``groups="private"`` with the rest split by
  :data:`DEGREE_SHARES` (0.25 on the blocks, 0.7 on the degrees and the sequence).

Columns (mean ± sd over the seeds): the degree-histogram KL of
:func:`privcut.evaluate.structure`, the community NMI (:func:`privcut.evaluate.louvain` on
H against on G, arithmetic NMI) and its chance level (against G's Louvain labels shuffled:
NMI grows with the number of communities, and isolated nodes of a release are singleton
communities), the NMI of the released partition against G's Louvain communities (and
against the planted groups on the generated graph), the number of released communities,
the seconds per release (the release only, no evaluation) and its ratio to the default's
in the same process. Graphs: ``community_graph(5000, 20, 20, seed=0)`` (heavy-tailed degrees,
planted communities) and wiki-vote from ``../shared/data`` as undirected (skipped when
absent).

Run: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/private_groups.py``
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import privcut
from privcut.datasets import community_graph
from privcut.evaluate import louvain, structure
from privcut.evaluate import normalized_mutual_information as nmi

ROOT = Path(__file__).resolve().parents[1]
SHARED = [ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data"]
DEGREE_SHARES = {"edge-count": 0.05, "blocks": 0.25, "degrees": 0.2, "degree-sequence": 0.5}
"""The rest's shares of the third variant: less on the blocks, more on the degrees."""
VARIANTS = {
    "default": (None, "auto"),
    "private": ("private", "auto"),
    "private, degree shares": ("private", DEGREE_SHARES),
}


def wiki_vote() -> sp.csr_array | None:
    """wiki-vote as a symmetric 0/1 CSR (an edge wherever either vote is), or None."""
    found = [
        folder / "wiki-vote.edges" for folder in SHARED if (folder / "wiki-vote.edges").is_file()
    ]
    if not found:
        return None
    pairs = np.loadtxt(found[0], dtype=np.int64, comments="#", ndmin=2)
    ids, rows = np.unique(pairs[:, :2], return_inverse=True)
    rows = rows.reshape(-1, 2)
    rows = rows[rows[:, 0] != rows[:, 1]]
    A = sp.csr_array((np.ones(len(rows)), (rows[:, 0], rows[:, 1])), shape=(ids.size,) * 2)
    A = sp.csr_array(A + A.T)
    A.data[:] = 1.0
    return A


def spread(values: list[float], digits: int = 3) -> str:
    return f"{np.mean(values):.{digits}f} ± {np.std(values):.{digits}f}"


def rows(A, planted, epsilon: float, seeds: int) -> list[str]:
    """The table rows of one graph and epsilon, one per variant."""
    original = louvain(A)
    shuffled = np.random.default_rng(0).permutation(original)
    found: dict[str, dict[str, list[float]]] = {}
    for variant, (groups, measurements) in VARIANTS.items():
        cells = found.setdefault(variant, {"kl": [], "nmi": [], "part": [], "planted": []})
        cells.update(time=[], k=[], chance=[])
        for seed in range(seeds):
            start = time.perf_counter()
            H = privcut.synthetic_graph(
                A, epsilon, groups=groups, measurements=measurements, method="sparse", rng=seed
            )
            cells["time"].append(time.perf_counter() - start)
            cells["kl"].append(structure(A, H).degree_kl)
            found_in_release = louvain(H)
            cells["nmi"].append(nmi(original, found_in_release))
            cells["chance"].append(nmi(shuffled, found_in_release))
            if groups is not None:
                cells["part"].append(nmi(original, H.communities))
                cells["k"].append(H.graph["privcut"]["communities"]["communities"])
                if planted is not None:
                    cells["planted"].append(nmi(planted, H.communities))
    base = np.mean(found["default"]["time"])
    lines = []
    for variant, cells in found.items():
        part = spread(cells["part"]) if cells["part"] else "-"
        planted_nmi = spread(cells["planted"]) if cells["planted"] else "-"
        k = f"{np.median(cells['k']):g}" if cells["k"] else "-"
        lines.append(
            f"| {epsilon:g} | {variant} | {spread(cells['kl'])} | {spread(cells['nmi'])} | "
            f"{spread(cells['chance'])} | "
            f"{part} | {planted_nmi} | {k} | {np.mean(cells['time']):.3f} | "
            f"{np.mean(cells['time']) / base:.2f} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=5000)
    args = parser.parse_args()
    A, planted = community_graph(args.nodes, 20, 20, seed=0, as_sparse=True)
    graphs = [(f"community_graph({args.nodes}, 20, 20)", sp.csr_array(A), planted)]
    wiki = wiki_vote()
    if wiki is not None:
        graphs.append(("wiki-vote (undirected)", wiki, None))
    for name, A, planted in graphs:
        print(f"\n### {name}: {A.shape[0]} nodes, {A.nnz // 2} edges\n")
        print(
            "| ε | groups | degree KL | community NMI (Louvain H vs G) | chance NMI (vs "
            "shuffled G labels) | partition NMI vs Louvain G | partition NMI vs planted | "
            "communities | s / release | time ratio |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|")
        for epsilon in args.epsilons:
            for line in rows(A, planted, epsilon, args.seeds):
                print(line, flush=True)


if __name__ == "__main__":
    main()
