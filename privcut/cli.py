"""The ``privcut`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

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
