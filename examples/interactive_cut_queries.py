"""An analyst's session with the private cut oracle: adaptive queries, budget, save and resume.

The analyst knows four public groups of 250 people and explores how densely they are
connected, choosing each next question from the previous answers. The oracle first buys
its starting hypothesis with a share of the budget (noisy degrees: a block model of
expected degrees; a public bound on the edge count, a quarter of all pairs, replaces a
noisy count). It then answers each query from the hypothesis unless the private graph's
noisy answer disagrees by more than its threshold, in which case it releases that noisy
answer and updates the hypothesis, keeping its degrees. For a few hundred queries at
delta > 0 the oracle pays for every comparison (the composed analysis of
:mod:`privcut.linear.online`), so an update costs nothing more; for long sessions it pays
per update instead (the sparse vector). Halfway the oracle is saved to disk and resumed,
as after a restart. The plot shows every answer against the truth.

    python examples/interactive_cut_queries.py [--fast]
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import privcut
from privcut.datasets import planted_partition
from privcut.graph import EdgeUniverse


def session(G, groups, output: Path, queries: int, epsilon: float):
    """The analyst's adaptive session, saved and resumed halfway; returns the oracle and a
    log of (answer, truth, updated) -- the truth for this demo's plot only."""
    size, n = len(groups[0]), G.number_of_nodes()
    universe = EdgeUniverse.of(G)
    A = universe.adjacency(G)  # for this demo's evaluation only

    def truth(S, T):
        return float(universe.indicator(S) @ (A @ universe.indicator(T)))

    state = output / "oracle.json"
    for previous in (state, Path(f"{state}.key"), Path(f"{state}.key.record")):
        previous.unlink(missing_ok=True)  # a new demo session (a real one resumes with load)
    oracle = privcut.CutOracle(
        G, epsilon, 1e-6, max_queries=queries, max_edges=n * (n - 1) // 4, path=state, rng=3
    )
    print(
        f"oracle: ({oracle.epsilon:g}, {oracle.delta:g})-DP over the whole session; every answer "
        f"within {oracle.alpha:.0f} with probability {1 - oracle.beta:g}; at most "
        f"{oracle.max_updates} updates; start: {oracle.status().start}"
    )
    rng = np.random.default_rng(0)
    log = []
    S, T = groups[0], groups[1]
    for q in range(queries):
        if q == queries // 2:
            oracle.close()  # a restart: the state on disk carries the spent budget
            oracle = privcut.CutOracle.load(state, G, rng=4)
            print(f"-- resumed from {state} after {oracle.queries_answered} queries --")
        before = oracle.updates
        answer = oracle.cut(S, T)
        log.append((answer, truth(S, T), oracle.updates > before))
        if q % max(1, queries // 8) == 0:
            print(
                f"query {q:>3}: |S| = {len(S):>3}, |T| = {len(T):>3} -> {answer:8.1f}   "
                f"updates {oracle.updates}/{oracle.max_updates}"
            )
        # adaptive: a dense-looking pair of groups is probed again on random halves,
        # otherwise the analyst moves on to another pair of groups
        if answer / (len(S) * len(T)) > 0.2 and len(S) == size:
            S = list(rng.choice(S, size // 2, replace=False))
            T = list(rng.choice(T, size // 2, replace=False))
        else:
            S, T = (groups[i] for i in rng.integers(4, size=2))
    return oracle, log


def plot(log, alpha: float, queries: int, path: Path) -> None:
    """Answers against the truth, and the error per query against the promise alpha."""
    answers, truths, updated = (np.array(column) for column in zip(*log, strict=True))
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    axes[0].scatter(truths[~updated], answers[~updated], s=8, label="from the hypothesis")
    axes[0].scatter(truths[updated], answers[updated], s=30, marker="x", label="update (noisy)")
    top = max(truths.max(), answers.max())
    axes[0].plot([0, top], [0, top], "k:", lw=1)
    axes[0].set_xlabel("true cut (evaluation only)")
    axes[0].set_ylabel("oracle answer")
    axes[0].legend()
    axes[0].set_title("answers vs truth")
    axes[1].plot(np.maximum(np.abs(answers - truths), 1.0), lw=1, label="error")
    axes[1].axhline(alpha, color="r", ls="--", label=f"promised alpha = {alpha:.0f}")
    axes[1].axvline(queries // 2, color="k", ls=":", label="save / resume")
    axes[1].set_yscale("log")
    axes[1].set_xlabel("query")
    axes[1].legend()
    axes[1].set_title("error per query")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    print(f"wrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="output", help="folder for the state and the PNG")
    parser.add_argument("--fast", action="store_true", help="a smaller session (for tests)")
    args = parser.parse_args()
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    size, queries, epsilon = 250, (40 if args.fast else 400), 2.0
    G = planted_partition(4, size, 0.5, 0.05, seed=1)  # stands in for a private graph
    groups = [[v for v, g in G.graph["groups"].items() if g == b] for b in range(4)]
    oracle, log = session(G, groups, output, queries, epsilon)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        oracle.cut(groups[0], groups[0])
    print(
        f"after {queries} queries: exhausted={oracle.exhausted}; next answer: {caught[0].message}"
    )
    status = oracle.status()  # the oracle's public facts, e.g. for a log or a JSON file
    print(
        f"status: {status.queries_answered} answers from the data, {status.updates} updates, "
        f"effective delta {status.effective_delta:.3g}"
    )
    oracle.close()
    plot(log, oracle.alpha, queries, output / "interactive_cut_queries.png")


if __name__ == "__main__":
    main()
