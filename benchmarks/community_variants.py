"""Variants of private community detection tried for issue 18 (third round), each against
the library's :func:`privcut.graph.private_communities` (``new``) and
:func:`privcut.graph.sweep_communities` (``sweep``, the kept one) in the same process, with
the same seeds (``rng=seed``), at the same total epsilon. Only ``sweep`` is library code; the
variants below are research copies, kept here so that the RESULTS table can be rerun.

Every variant spends 0.05 of epsilon on a noisy edge count; those with a noisy-degree
order spend 0.1 on noisy degrees (discrete Laplace, l1 sensitivity 2); the rest goes to
label choices by the exponential mechanism (weights ``exp(e s)``, monotone score of
sensitivity 1). Accounting per variant (edge-level, one pair flipped): a sweep *from no
labels* (a node scores only the already labelled neighbours) charges each pair to its later
end only, so it costs ``e`` per pair; a sweep *from labels* charges both ends, ``2 e``.

- ``rounds K=4``: a sweep from no labels at 0.3 of the label budget, then one sweep from
  labels at 0.35 per choice (0.3 + 2 x 0.35 = 1), random order, size penalty.
- ``hierarchy K=2 x 2``: a sweep from no labels with 2 labels, then one within each part
  (the same 2 labels, neighbours in the same part only), half the budget each (each pair
  charged once per level), random order, size penalty.
- ``random order`` / ``degree order``: one sweep from no labels, 8 labels, the nodes in a
  uniformly random order or by decreasing noisy degree, with the size penalty of
  ``private_communities`` (``d |a| / n``, noisy average degree).
- ``random order, modularity``: as ``sweep K=8`` (modularity-like penalty with noisy
  degrees) but in a random order.
- ``two sweeps``: ``sweep K=8`` at half the label budget, then a second sweep in which each
  node scores only the neighbours *after* it in the first order (so each pair is charged
  once per sweep, to its later end in the first and its earlier end in the second), with a
  bonus of 2 for its own first label, at the other half.
- ``hub votes down``: ``sweep`` with each neighbour's vote weighted by ``min(1, (d / d_v)^0.5)``
  (noisy degrees; weights at most 1 keep the sensitivity at 1).

Run (from the worktree root)::

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/community_variants.py
"""

from __future__ import annotations

import argparse

import numpy as np
import scipy.sparse as sp
from communities import louvain, undirected

from privcut.datasets import community_graph
from privcut.evaluate import normalized_mutual_information as nmi
from privcut.graph import private_communities, sweep_communities
from privcut.graph.communities import SweepMechanism, sweep, sweep_labels
from privcut.privacy import Noise


def choices(both, parents, k, epsilon, rng, penalty, order, batches=512, labels=None, votes=None):
    """A batched sweep of ``k``-label choices within the public ``parents`` parts, from no
    labels (``labels=None``) or from ``labels``; ``penalty(batch, mass)`` is subtracted
    from the scores; neighbours vote with weight ``votes`` (1 by default)."""
    n = both.shape[0]
    sub = np.full(n, -1, dtype=np.int64) if labels is None else labels.copy()
    votes = np.ones(n) if votes is None else votes
    parts = int(parents.max()) + 1
    for batch in np.array_split(order, batches):
        if not batch.size:
            continue
        known = sub >= 0
        mass = np.bincount(parents[known] * k + sub[known], minlength=parts * k).reshape(parts, k)
        rows = both[batch]
        owner = np.repeat(np.arange(batch.size), np.diff(rows.indptr))
        near = rows.indices
        keep = (sub[near] >= 0) & (parents[near] == parents[batch][owner])
        scores = np.bincount(
            owner[keep] * k + sub[near[keep]], weights=votes[near[keep]], minlength=batch.size * k
        ).reshape(-1, k)
        logits = epsilon * (scores - penalty(batch, mass[parents[batch]]))
        sub[batch] = np.argmax(logits + rng.gumbel(size=logits.shape), axis=1)
    return sub


def budget(A, epsilon, rng, degrees):
    """The noisy edge count (0.05 of epsilon), the noisy degrees (0.1, when ``degrees``) and
    the label budget (the rest)."""
    n = A.shape[0]
    count = Noise.for_laplace(0.05 * epsilon, 1.0, integer=True)
    edges = max(int(A.nnz // 2 + count.sample(1, rng=rng)[0]), 1)
    if not degrees:
        return edges, None, 0.95 * epsilon
    noise = Noise.for_laplace(0.1 * epsilon, 2.0, integer=True)
    noisy = np.diff(A.indptr) + np.atleast_1d(noise.sample(n, rng=rng))
    return edges, noisy, 0.85 * epsilon


def size_penalty(n, edges):
    """``private_communities``' size penalty: noisy average degree times |a| / n."""
    return lambda batch, mass: 2.0 * edges / float(n) ** 2 * mass


def flat(A, epsilon, seed, *, k=8, ordered=False, rounds=1):
    """One sweep from no labels (and ``rounds - 1`` from labels), size penalty."""
    rng = np.random.default_rng(seed)
    n = A.shape[0]
    edges, noisy, rest = budget(A, epsilon, rng, ordered)
    order = np.lexsort((rng.permutation(n), -noisy)) if ordered else rng.permutation(n)
    parents = np.zeros(n, dtype=np.int64)
    penalty = size_penalty(n, edges)
    if rounds == 1:
        return choices(A, parents, k, rest, rng, penalty, order)
    labels = choices(A, parents, k, 0.3 * rest, rng, penalty, order)
    for _ in range(rounds - 1):
        later = rest * 0.7 / (2 * (rounds - 1))
        labels = choices(A, parents, k, later, rng, penalty, rng.permutation(n), labels=labels)
    return labels


def hierarchy(A, epsilon, seed, *, k=2, levels=2):
    """A sweep from no labels per level, within the parts of the level above."""
    rng = np.random.default_rng(seed)
    n = A.shape[0]
    edges, _, rest = budget(A, epsilon, rng, False)
    parents = np.zeros(n, dtype=np.int64)
    for _ in range(levels):
        sub = choices(A, parents, k, rest / levels, rng, size_penalty(n, edges), rng.permutation(n))
        parents = parents * k + sub
    return np.unique(parents, return_inverse=True)[1]


def modularity(A, epsilon, seed, *, k=8, ordered=True, hub_votes=False):
    """``sweep`` rebuilt from :func:`choices`: modularity-like penalty with noisy degrees."""
    rng = np.random.default_rng(seed)
    n = A.shape[0]
    edges, noisy, rest = budget(A, epsilon, rng, True)
    weights = np.maximum(noisy, 0).astype(float)
    order = np.lexsort((rng.permutation(n), -noisy)) if ordered else rng.permutation(n)
    votes = (
        np.minimum(1.0, (edges * 2.0 / n / np.maximum(weights, 1.0)) ** 0.5) if hub_votes else None
    )

    volume = np.zeros(k)
    labels = np.full(n, -1, dtype=np.int64)
    for batch in np.array_split(order, 512):
        rows = A[batch]
        owner = np.repeat(np.arange(batch.size), np.diff(rows.indptr))
        found = labels[rows.indices]
        known = found >= 0
        vote = np.ones(known.sum()) if votes is None else votes[rows.indices[known]]
        scores = np.bincount(
            owner[known] * k + found[known], weights=vote, minlength=batch.size * k
        )
        logits = rest * (scores.reshape(-1, k) - np.outer(weights[batch], volume) / (2.0 * edges))
        chosen = np.argmax(logits + rng.gumbel(size=logits.shape), axis=1)
        labels[batch] = chosen
        volume += np.bincount(chosen, weights=weights[batch], minlength=k)
    return labels


def two_sweeps(A, epsilon, seed, *, bonus=2.0):
    """``sweep K=8`` at half the label budget, then each node again, scoring only the
    neighbours after it in the first order (and ``bonus`` for its first label), with half
    the modularity penalty (about half the neighbours come after)."""
    rng = np.random.default_rng(seed)
    n, k = A.shape[0], 8
    mechanism = SweepMechanism(labels=k)
    noisy = mechanism.noisy_degrees(np.diff(A.indptr), epsilon, rng)
    edges = mechanism.edge_count(A.nnz // 2, epsilon, rng)
    order = np.lexsort((rng.permutation(n), -noisy))
    weights = np.maximum(noisy, 0).astype(float)
    rest = mechanism.parts(epsilon)[2]
    first = sweep(A, order, k, rest / 2, rng, weights=weights, total=2.0 * edges)
    batches = np.array_split(order, 512)
    position = np.empty(n, dtype=np.int64)
    for index, batch in enumerate(batches):
        position[batch] = index
    labels = first.copy()
    volume = np.bincount(labels, weights=weights, minlength=k)
    for batch in batches:
        rows = A[batch]
        owner = np.repeat(np.arange(batch.size), np.diff(rows.indptr))
        later = position[rows.indices] > position[batch][owner]
        scores = (
            np.bincount(owner[later] * k + labels[rows.indices[later]], minlength=batch.size * k)
            .reshape(-1, k)
            .astype(float)
        )
        scores[np.arange(batch.size), first[batch]] += bonus
        logits = rest / 2 * (scores - np.outer(weights[batch], volume) / (4.0 * edges))
        chosen = np.argmax(logits + rng.gumbel(size=logits.shape), axis=1)
        volume += np.bincount(chosen, weights=weights[batch], minlength=k)
        volume -= np.bincount(labels[batch], weights=weights[batch], minlength=k)
        labels[batch] = chosen
    return labels


VARIANTS = {
    "new": lambda A, e, s: private_communities(A, e, rng=s).labels,
    "rounds K=4": lambda A, e, s: flat(A, e, s, k=4, rounds=2),
    "hierarchy K=2 x 2": lambda A, e, s: hierarchy(A, e, s),
    "random order": lambda A, e, s: flat(A, e, s),
    "degree order": lambda A, e, s: flat(A, e, s, ordered=True),
    "random order, modularity": lambda A, e, s: modularity(A, e, s, ordered=False),
    "two sweeps": lambda A, e, s: two_sweeps(A, e, s),
    "hub votes down": lambda A, e, s: modularity(A, e, s, k=sweep_labels(e), hub_votes=True),
    "sweep K=8": lambda A, e, s: sweep_communities(A, e, labels=8, rng=s).labels,
    "sweep": lambda A, e, s: sweep_communities(A, e, rng=s).labels,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    A, _ = community_graph(5000, 20, 20, seed=0, as_sparse=True)
    from social import lfr_graph

    graphs = [("planted 5000/20", sp.csr_array(A)), ("lfr", lfr_graph())]
    graphs.append(("wiki-vote", undirected("wiki-vote.edges")))
    print("| graph | epsilon | " + " | ".join(VARIANTS) + " |")
    print("|---|---|" + "---|" * len(VARIANTS))
    for name, A in graphs:
        reference = louvain(A)
        for epsilon in args.epsilons:
            cells = []
            for release in VARIANTS.values():
                scores = [nmi(reference, release(A, epsilon, seed)) for seed in range(args.seeds)]
                cells.append(f"{np.mean(scores):.3f}")
            print(f"| {name} | {epsilon:g} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
