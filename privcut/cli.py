"""The ``privcut`` command line."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import privcut

MECHANISMS = (
    ("laplace", "privcut.privacy", "continuous Laplace noise; (epsilon, 0)-DP for l1 sensitivity"),
    ("gaussian", "privcut.privacy", "continuous Gaussian noise, analytic calibration (Balle-Wang)"),
    ("discrete_laplace", "privcut.privacy", "integer Laplace noise; (epsilon, 0)-DP for counts"),
    ("discrete_gaussian", "privcut.privacy", "integer Gaussian noise (Canonne-Kamath-Steinke)"),
    ("exponential_mechanism", "privcut.privacy", "private selection (McSherry-Talwar)"),
    ("laplace_mechanism", "privcut.linear", "linear queries, (epsilon, 0)"),
    ("gaussian_mechanism", "privcut.linear", "linear queries, (epsilon, delta)"),
    ("factorization_mechanism", "privcut.linear", "matrix mechanism, optimized strategies"),
    ("projection_mechanism", "privcut.linear", "Gaussian noise projected onto consistency"),
    ("knorm_mechanism", "privcut.linear", "K-norm mechanism (Hardt-Talwar), (epsilon, 0)"),
    ("mwem", "privcut.linear", "multiplicative weights + exponential mechanism"),
    ("small_db", "privcut.linear", "exponential mechanism over small databases"),
)
"""The mechanisms privcut provides so far: (name, module, what it guarantees)."""


def _demo(arguments: argparse.Namespace) -> int:
    import networkx as nx

    from privcut.audit import audit, neighbouring_graphs
    from privcut.privacy import check_epsilon, discrete_laplace

    epsilon = check_epsilon(arguments.epsilon)
    print(f"privcut {privcut.__version__}")
    print("\nMechanisms available:")
    for name, module, claim in MECHANISMS:
        print(f"  {module + '.' + name:<40} {claim}")

    karate = nx.Graph(nx.karate_club_graph().edges())  # friendships, without interaction counts
    neighbour = next(neighbouring_graphs(karate))

    def noisy_edge_count(G: nx.Graph, rng, size: int):
        return G.number_of_edges() + discrete_laplace(1.0 / epsilon, size, rng=rng)

    print(
        f"\nAuditing a noisy edge count (discrete Laplace, epsilon={epsilon}) on Zachary's "
        f"karate club and its neighbour with pair {neighbour.graph['flipped']} flipped:"
    )
    result = audit(
        noisy_edge_count,
        (karate, neighbour),
        epsilon,
        samples=50_000,
        vectorized=True,
        rng=arguments.seed,
    )
    print(
        f"  p-value {result.p_value:.3g} (small would refute the claim); "
        f"epsilon >= {result.epsilon_lower_bound:.3f} with 95% confidence"
    )
    return 0


def _read_queries(path: str) -> list[tuple[list[str], list[str]]]:
    """Cut queries from JSON (``[{"S": [...], "T": [...]}, ...]`` or ``[[S, T], ...]``) or
    from lines ``S nodes, T nodes`` (nodes separated by spaces; ``#`` starts a comment)."""
    text = Path(path).read_text()
    if path.endswith(".json"):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as error:
            raise privcut.PrivcutError(f"{path}: not valid JSON: {error}") from None
        queries = []
        for number, item in enumerate(items):
            pair = (item.get("S"), item.get("T")) if isinstance(item, dict) else item
            if (
                not isinstance(pair, (list, tuple))
                or len(pair) != 2
                or not all(isinstance(side, list) for side in pair)
            ):
                raise privcut.PrivcutError(
                    f'{path}: query {number} must be {{"S": [...], "T": [...]}} or [S, T]'
                )
            queries.append(([str(n) for n in pair[0]], [str(n) for n in pair[1]]))
        return queries
    queries = []
    for number, line in enumerate(text.splitlines(), start=1):
        content = line.split("#", 1)[0].strip()
        if not content:
            continue
        sides = content.split(",")
        if len(sides) != 2:
            raise privcut.PrivcutError(
                f"{path}:{number}: expected 'S nodes, T nodes', got {line!r}"
            )
        queries.append((sides[0].split(), sides[1].split()))
    return queries


def _write_atomically(path: str, text: str) -> None:
    """Write via a temporary file in the same folder and an atomic rename."""
    target = Path(path)
    with tempfile.NamedTemporaryFile(
        "w", dir=target.parent or ".", delete=False, prefix=f".{target.name}."
    ) as handle:
        handle.write(text)
    os.replace(handle.name, target)


def _cuts(arguments: argparse.Namespace) -> int:
    from privcut.datasets import read_edgelist
    from privcut.graph import answer_cuts
    from privcut.privacy import check_delta, check_epsilon

    epsilon = check_epsilon(arguments.epsilon)
    delta = check_delta(arguments.delta)
    try:
        G = read_edgelist(arguments.input, directed=arguments.directed)
        queries = _read_queries(arguments.queries)
    except OSError as error:
        raise privcut.PrivcutError(f"cannot read {error.filename}: {error.strerror}") from None
    try:
        answers = answer_cuts(
            G, queries, epsilon, delta=delta, strategy=arguments.strategy, rng=arguments.seed
        )
    except KeyError as error:
        raise privcut.PrivcutError(
            f"a query names a node that is not in the graph: {error}"
        ) from None
    report = {
        "epsilon": epsilon,
        "delta": delta,
        "strategy": answers.strategy,
        "predicted_errors": answers.predicted,
        "answers": [
            {"S": list(S), "T": list(T), "value": float(value), "expected_error": float(error)}
            for (S, T), value, error in zip(
                queries, answers.values, answers.expected_error, strict=True
            )
        ],
    }
    text = json.dumps(report, indent=2) + "\n"
    if arguments.output:
        _write_atomically(arguments.output, text)
    else:
        sys.stdout.write(text)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="privcut",
        description="Differentially private release of graph cut queries (edge-level privacy).",
    )
    parser.add_argument("--version", action="version", version=f"privcut {privcut.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser("demo", help="show what privcut can do on a bundled graph")
    demo.add_argument("--epsilon", type=float, default=1.0, help="privacy parameter (default 1)")
    demo.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed the randomness (reproducible, not private; default secure)",
    )
    demo.set_defaults(run=_demo)
    cuts = commands.add_parser(
        "cuts", help="privately answer a file of cut queries on an edge-list graph"
    )
    cuts.add_argument("input", help="edge list: 'u v' per line (SNAP) or 'u,v' (CSV)")
    cuts.add_argument(
        "--queries",
        required=True,
        help='JSON [{"S": [...], "T": [...]}, ...] or lines \'S nodes, T nodes\'',
    )
    cuts.add_argument("--epsilon", type=float, required=True, help="privacy parameter")
    cuts.add_argument("--delta", type=float, default=0.0, help="privacy parameter (default 0)")
    cuts.add_argument(
        "--strategy",
        default="auto",
        choices=["auto", "per-query", "workload", "noisy-graph", "blocks", "optimized"],
    )
    cuts.add_argument("--directed", action="store_true", help="read the edges as directed")
    cuts.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed the randomness (reproducible, not private; default secure)",
    )
    cuts.add_argument("-o", "--output", help="write the JSON answers here (default stdout)")
    cuts.set_defaults(run=_cuts)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``privcut`` command line with ``argv`` (default ``sys.argv[1:]``)."""
    parser = _parser()
    arguments = parser.parse_args(argv)
    if arguments.command is None:
        parser.print_help()
        return 0
    try:
        return arguments.run(arguments)
    except privcut.PrivcutError as error:
        parser.exit(2, f"privcut {arguments.command}: error: {error}\n")


if __name__ == "__main__":
    sys.exit(main())
