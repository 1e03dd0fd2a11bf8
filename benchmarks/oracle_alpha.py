"""Issue 20: the cut oracle's promised alpha before and after the tighter calibration.

Settings (public values only, no graph is read for the promises):

- ``email``: 1000 nodes (m = 499,500 pairs, sensitivity D = 2), |E| = 16,064 with a noisy
  count's bounds ``EdgeBounds(E + 300, E - 300, E, 0.1)``, (1, 1e-6) with 0.1 of epsilon
  to the count (so 0.9 to the oracle), k = 1,403 queries, beta = 0.05 (0.0375 to the
  oracle); also at delta = 0.
- ``G(200, 0.5)``: m = 19,900, public ``max_edges = 0.55 m`` (the hypothesis starts
  empty), epsilon = 1, k = 2,000, beta = 0.05; also at delta = 0.

Columns: ``today`` is main's calibration (509a688), re-run here from its formulas (beta/3
to each union bound, two-sided comparisons, comparison shares 0.5..0.9); ``now`` is
:func:`privcut.linear.calibrate`; ``new SVT`` its sparse-vector candidate alone. Then
what was tried and not kept (Zhu & Wang's Gaussian sparse vector, the exact Rényi curve of
pure DP), the disjoint-query bound (sensitivity 1, ``max ||c||^2 = floor(n^2 / 4)``), and
the decomposition of today's alpha. With
``--runs R``: R seeded CutOracle runs on G(200, 0.5) with 2,000 random cuts (max error
against alpha, mean error against per-query Laplace under basic composition).

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/oracle_alpha.py [--runs 20]``.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import networkx as nx
import numpy as np
from scipy.special import ndtri

from privcut import CutOracle
from privcut.graph.hypotheses import EdgeBounds, update_bound
from privcut.linear import OracleExhaustedWarning, calibrate
from privcut.privacy import Noise
from privcut.privacy.calibration import zcdp_budget

SPLIT = 1.0 / (1.0 + 2.0 ** (2.0 / 3.0))
D = 2.0  # the cut answers' sensitivity on an undirected graph


def settings():
    email = EdgeBounds(16_064 + 300, 16_064 - 300, 16_064, 0.1)
    g200 = EdgeBounds(19_900 * 0.55, 0.0, None, 0.0)
    for delta in (1e-6, 0.0):
        yield "email", 1000, 499_500, email, 0.9, delta, 1403, 0.0375
        yield "G(200, 0.5)", 200, 19_900, g200, 1.0, delta, 2000, 0.05


TODAY = ((0.5, 0.6, 0.7, 0.8, 0.9), ((1 / 3, 1 / 3, 1 / 3),), 1.0)
"""Main's comparison shares, beta splits (threshold, comparison, answer) and comparison
tail factor (1: two-sided)."""
NEW = (
    (0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99),
    ((1 / 3,) * 3, (0.4, 0.5, 0.1), (0.3, 0.6, 0.1)),
    2.0,
)
"""The new sparse-vector search: more shares and beta splits, one-sided comparisons."""


def sparse_vector(bound, epsilon, delta, D, k, beta, scale, search=TODAY):
    """The sparse-vector calibration, main's (509a688) by default:
    (alpha, alpha_idc, B, eta_threshold, eta_comparison, (threshold scale, comparison scale))."""
    rho = zcdp_budget(epsilon, delta) if delta else 0.0
    shares, splits, sides = search
    best = None
    for a in np.geomspace(1e-3, 1e3, 400) * scale:
        c = bound(float(a))
        if c < 1:
            continue
        for share, (b_tau, b_nu, b_answer) in ((s, p) for s in shares for p in splits):
            if delta:
                er = math.sqrt(2 * share * rho / c)
                answer = Noise("discrete_gaussian", D / math.sqrt(2 * (1 - share) * rho / c))
            else:
                er = share * epsilon / c
                answer = Noise("discrete_laplace", D / ((1 - share) * epsilon / c))
            scales = (D / (SPLIT * er), 2 * D / ((1 - SPLIT) * er))
            tau = Noise("discrete_laplace", scales[0]).max_error(c, b_tau * beta)
            nu = Noise("discrete_laplace", scales[1]).max_error(k, sides * b_nu * beta)
            if answer.max_error(c, b_answer * beta) >= a:
                continue
            alpha = float(a) + 2 * (tau + nu) + 1
            if best is None or alpha < best[0]:
                best = (alpha, float(a), c, tau, nu, scales)
    return best


def rr_rdp(epsilon, order):
    """Rényi divergence of order ``order`` of epsilon-randomised response: the largest of any
    epsilon-DP mechanism (every epsilon-DP pair is a post-processing of it, Kairouz, Oh &
    Viswanath 2015)."""
    return (np.logaddexp(order * epsilon, (1 - order) * epsilon) - np.log1p(np.exp(epsilon))) / (
        order - 1
    )


ORDERS = np.geomspace(1.001, 5000.0, 4000)
LOG_CONVERSION = np.log((1 - 1 / ORDERS) ** (ORDERS - 1) / ORDERS)  # Canonne et al. Prop. 12


def converts(rdp, epsilon, delta):
    """Whether an RDP curve (on ORDERS) gives (epsilon, delta)-DP by CKS20 Prop. 12."""
    return bool(np.any((ORDERS - 1) * (rdp - epsilon) + LOG_CONVERSION <= math.log(delta)))


def exact_rdp_sparse_vector(bound, epsilon, delta, D, k, beta, scale, near):
    """The sparse vector with its B instances composed in RDP with the randomised-response
    curve instead of epsilon^2 / 2 zCDP (tried, not kept): alpha near today's best."""
    rho = zcdp_budget(epsilon, delta)
    best = None
    for a in np.geomspace(near / 1.5, near * 1.5, 40):
        c = bound(float(a))
        for share in (0.9, 0.95, 0.98):
            e0, r0 = math.sqrt(2 * share * rho / c), (1 - share) * rho / c
            low, high = 1.0, 2.0  # scale t: round epsilon t e0, answer rho t^2 r0
            for _ in range(30):
                t = (low + high) / 2
                curve = c * (rr_rdp(t * e0, ORDERS) + ORDERS * t * t * r0)
                low, high = (t, high) if converts(curve, epsilon, delta) else (low, t)
            er, answer_rho = low * e0, low * low * r0
            answer = Noise("discrete_gaussian", D / math.sqrt(2 * answer_rho))
            tau = Noise("discrete_laplace", D / (SPLIT * er)).max_error(c, 0.4 * beta)
            nu = Noise("discrete_laplace", 2 * D / ((1 - SPLIT) * er)).max_error(k, beta)
            if answer.max_error(c, 0.1 * beta) >= a:
                continue
            alpha = float(a) + 2 * (tau + nu) + 1
            best = alpha if best is None else min(best, alpha)
    return best


def zhu_wang(potential_norm, epsilon, delta, D, k, beta):
    """Gaussian sparse vector (Zhu & Wang 2020, Thm 8 as the brief reads autodp's c = 1 curve:
    log(k_i)/(a-1) + a D^2/s1^2 + 2 a D^2/s2^2 per instance; sum log k_i <= B log(k/B)),
    continuous Gaussians, answers a D^2/(2 s^2) each (tried, not kept): the best alpha."""
    conversion = epsilon + (math.log(delta) - LOG_CONVERSION) / (ORDERS - 1)
    best = None
    for B in np.unique(np.geomspace(1, 5000, 200).astype(int)):
        logs = B * math.log(max(k / B, 1.0))
        per = np.max((conversion - logs / (ORDERS - 1)) / (ORDERS * B))
        if per <= 0:
            continue
        alpha_idc = math.sqrt(potential_norm / B)
        for fx in np.linspace(0.05, 0.9, 18):
            for fw in (0.01, 0.03, 0.1, 0.2):
                fy = 1 - fx - fw
                if fy <= 0:
                    continue
                s1, s2 = D / math.sqrt(fx * per), math.sqrt(2 * D * D / (fy * per))
                sa = D / math.sqrt(2 * fw * per)
                if -sa * ndtri(beta / 3 / (2 * B)) >= alpha_idc:
                    continue
                eta = -s1 * ndtri(beta / 3 / (2 * B)) - s2 * ndtri(beta / 3 / (2 * k))
                best = min(best or math.inf, alpha_idc + 2 * eta + 1)
    return best


def promises():
    print(
        f"{'setting':<12} {'delta':>6} {'today':>8} {'now':>8} {'ratio':>6} {'now is':<14}"
        f"{'new SVT':>8}"
        f"{'disjoint':>9} {'exact RDP':>10} {'Zhu-Wang':>9}"
    )
    decompositions = []
    for name, n, m, edges, epsilon, delta, k, beta in settings():
        scale = edges.upper

        def bound(a, m=m, edges=edges, k=k):
            return update_bound("frieze-kannan", m, a / D, edges, k)

        potential = edges.frieze_kannan_start(m)[1]
        half = (n // 2) * (n - n // 2)

        def disjoint(a, potential=potential, half=half):  # sensitivity 1, ||c||^2 <= n^2/4
            return math.ceil(potential * half / a**2)

        old = sparse_vector(bound, epsilon, delta, D, k, beta, scale)
        svt = sparse_vector(bound, epsilon, delta, D, k, beta, scale, NEW)[0]
        new = calibrate(bound, epsilon, delta, max_queries=k, beta=beta, sensitivity=D, scale=scale)
        cut = calibrate(disjoint, epsilon, delta, max_queries=k, beta=beta, scale=scale)
        kind = "sparse vector" if new.answer is not None else "composed"
        exact = zw = float("nan")
        if delta:
            exact = exact_rdp_sparse_vector(bound, epsilon, delta, D, k, beta, scale, old[1])
            zw = zhu_wang(potential * m * D * D, epsilon, delta, D, k, beta)
        print(
            f"{name:<12} {delta:>6g} {old[0]:>8.0f} {new.alpha:>8.0f} {old[0] / new.alpha:>6.2f} "
            f"{kind:<14}{svt:>8.0f}{cut.alpha:>9.0f} {exact:>10.0f} {zw:>9.0f}"
        )
        decompositions.append((name, delta, old, potential * m * D * D))
    print("\ntoday's alpha = alpha_idc + 2 (eta_threshold + eta_comparison) + 1:")
    print(f"{'setting':<12} {'delta':>6} {'alpha':>8} {'alpha_idc':>9} {'B':>5} {'2 eta_thr':>9} ")
    for name, delta, (alpha, alpha_idc, B, tau, nu, scales), potential_norm in decompositions:
        print(
            f"{name:<12} {delta:>6g} {alpha:>8.0f} {alpha_idc:>9.0f} {B:>5} {2 * tau:>9.0f} "
            f"2 eta_cmp {2 * nu:>6.0f}  (DLap {scales[0]:.0f} and {scales[1]:.0f}; "
            f"potential x max||c||^2 = {potential_norm:.3g})"
        )


def crossover() -> None:
    """The smallest k (to 1%) from which the sparse vector beats the composed calibration,
    on the email numbers at (0.9, 1e-6)."""
    edges = EdgeBounds(16_064 + 300, 16_064 - 300, 16_064, 0.1)

    def sparse_wins(k: float) -> bool:
        def bound(a):
            return update_bound("frieze-kannan", 499_500, a / D, edges, int(k))

        c = calibrate(
            bound, 0.9, 1e-6, max_queries=int(k), beta=0.0375, sensitivity=D, scale=edges.upper
        )
        return c.answer is not None

    low, high = 1403.0, 1403.0
    while not sparse_wins(high):
        low, high = high, 2 * high
    while high / low > 1.01:
        middle = math.sqrt(low * high)
        low, high = (low, middle) if sparse_wins(middle) else (middle, high)
    print(f"\nemail, (0.9, 1e-6): the sparse vector wins from k = {high:.0f} queries")


def runs(count: int, k: int = 2000) -> None:
    G = nx.gnp_random_graph(200, 0.5, seed=1)
    A = nx.to_numpy_array(G, nodelist=range(200))
    laplace_scale = k * 2.0 / 1.0
    within, maxima, means, alphas, updates = 0, [], [], [], []
    start = time.perf_counter()
    for seed in range(count):
        rng = np.random.default_rng(20_000 + seed)
        queries = [
            (rng.choice(200, rng.integers(1, 201), replace=False),
             rng.choice(200, rng.integers(1, 201), replace=False))
            for _ in range(k)
        ]  # fmt: skip
        oracle = CutOracle(G, 1.0, 1e-6, max_queries=k, max_edges=19_900 * 0.55, rng=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OracleExhaustedWarning)
            answers = oracle.cuts([(S.tolist(), T.tolist()) for S, T in queries])
        exact = np.array([A[np.ix_(S, T)].sum() for S, T in queries])
        errors = np.abs(answers - exact)
        within += bool(errors.max() <= oracle.alpha)
        maxima.append(errors.max())
        means.append(errors.mean())
        alphas.append(oracle.alpha)
        updates.append(oracle.updates)
    print(
        f"\nG(200, 0.5), max_edges = 0.55 m, (1, 1e-6), {k} random cuts x {count} runs "
        f"({time.perf_counter() - start:.1f} s): alpha {np.mean(alphas):.0f}, max error "
        f"{np.max(maxima):.0f} (within alpha in {within}/{count}), mean error "
        f"{np.mean(means):.1f} +- {np.std(means):.1f}, updates {np.mean(updates):.1f}; "
        f"per-query Laplace (basic composition) mean error ~ {laplace_scale:.0f} "
        f"({laplace_scale / np.mean(means):.1f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=0)
    arguments = parser.parse_args()
    promises()
    crossover()
    if arguments.runs:
        runs(arguments.runs)


if __name__ == "__main__":
    main()
