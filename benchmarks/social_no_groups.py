"""``benchmarks/social.py`` with its ``privcut`` method at ``groups="none"``: the default
release without ``measurements="auto"``'s decision to buy private communities (issue 18),
to compare the decision's cells with the release it replaces at the same seeds.

Run (from the worktree root; the options are social.py's)::

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python3 benchmarks/social_no_groups.py \\
        --graphs community lfr wiki-vote --methods privcut --seeds 5 --jobs 1
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import social

from privcut import synthetic_graph


def release(A, epsilon: float, rng: int) -> tuple:
    """privcut's sparse release with default measurements, never buying communities."""
    H = synthetic_graph(A, epsilon, method="sparse", groups="none", rng=rng)
    return H, getattr(H, "communities", None)


social.privcut_release = release

if __name__ == "__main__":
    social.main(sys.argv[1:])
