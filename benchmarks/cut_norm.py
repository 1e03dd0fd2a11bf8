"""privcut's cut norm methods against the PyPI package ``cutnorm`` (benchmark-only dependency).

Matrices (issue 4): the residual of randomized response on G(n, 0.3) with
Laplace(1) noise, ``Z - clip(Z, 0, 1)``, centred (the hard case), and the same
with a planted +0.5 block on S x T and T x S. For each: cutnorm's value (its
sets, then privcut's local improvement) and time; privcut's spectral and
low-rank values and times; the certified upper bound and its time.

Run: ``pip install cutnorm && python benchmarks/cut_norm.py [--sizes 1000 2000]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from privcut.graph.cutnorm import cut_norm, local_improvement


def residual(n: int, planted: bool, rng: np.random.Generator) -> np.ndarray:
    upper = np.triu(rng.random((n, n)) < 0.3, k=1)
    adjacency = (upper | upper.T).astype(float)
    noise = np.triu(rng.laplace(0.0, 1.0, (n, n)), k=1)
    noisy = adjacency + noise + noise.T
    A = noisy - np.clip(noisy, 0.0, 1.0)
    A -= A.mean()
    if planted:
        S, T = rng.choice(n, n // 10, replace=False), rng.choice(n, n // 10, replace=False)
        A[np.ix_(S, T)] += 0.5
        A[np.ix_(T, S)] += 0.5
    return A


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def main() -> None:
    from cutnorm import compute_cutnorm

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000])
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    print(
        "cutnorm: its cut after privcut's local improvement; sp/cn and best/cn: spectral's and "
        "the better method's value over it;\nt_sp/t_cn: spectral's time; bound/best: low-rank's "
        "certified bound; t_lr/t_cn: low-rank's time with the certificate"
    )
    print(
        f"{'n':>5} {'matrix':<9} {'cutnorm':>9} {'t_cn':>6} {'spectral':>9} {'t_sp':>5} "
        f"{'low-rank':>9} {'t_lr':>5} {'sp/cn':>7} {'t_sp/t_cn':>9} {'best/cn':>8} "
        f"{'bound/best':>10} {'t_lr/t_cn':>9}"
    )
    for n in args.sizes:
        for planted in (False, True):
            A = residual(n, planted, rng)
            (_, _, info), t_cn = timed(compute_cutnorm, A, np.zeros_like(A), extra_info=True)
            reference = local_improvement(A, np.asarray(info["cutnorm_sets"][0]) > 0)[0]
            spectral, t_sp = timed(cut_norm, A, method="spectral", rng=0)
            low_rank, t_lr = timed(cut_norm, A, method="low-rank", rng=0)
            best = max(spectral.value, low_rank.value)
            print(
                f"{n:>5} {'planted' if planted else 'residual':<9} {reference:9.1f} {t_cn:6.2f} "
                f"{spectral.value:9.1f} {t_sp:5.2f} {low_rank.value:9.1f} {t_lr:5.2f} "
                f"{spectral.value / reference:7.4f} {t_sp / t_cn:9.3f} {best / reference:8.4f} "
                f"{low_rank.upper_bound / best:10.3f} {t_lr / t_cn:9.3f}"
            )


if __name__ == "__main__":
    main()
