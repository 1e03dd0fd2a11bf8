"""Issue 18, speed: one step of the sparse release, a base tree's version against this
tree's, in one process on the same inputs.

The calls of ``privcut.graph.<module>.<function>`` made during ``--seeds`` default sparse
releases (``synthetic_graph(A, 1, method="sparse", rng=seed)``, the graphs of
``benchmarks/social.py``) in this tree are recorded (deep copies of the arguments, the
random generators included), then replayed ``--repeats`` times through the base tree's
version of the function (its module file loaded under another name; what it imports from
privcut comes from this tree) and through this tree's, alternately, each call on fresh
copies. Prints the CPU seconds per release of each (median over the repeats), the median
ratio, and whether every output is identical (arrays equal in shape, dtype and values).

Run: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/step_ab.py --base /work/main
communities sweep --graphs wiki-vote [--seeds 3] [--repeats 7]``.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from privcut import synthetic_graph

sys.path.insert(0, str(Path(__file__).resolve().parent))
import social  # the harness's graphs


def base_module(base: str, module: str):
    """The base tree's ``privcut/graph/<module>.py`` as a module of the package here."""
    name = f"privcut.graph._base_{module}"
    spec = importlib.util.spec_from_file_location(
        name, Path(base) / "privcut" / "graph" / f"{module}.py"
    )
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded  # dataclasses look their module up
    spec.loader.exec_module(loaded)
    return loaded


def _recorded(module, function: str, A, seeds: int) -> list:
    """The arguments of every call of the function in ``seeds`` releases of A."""
    calls, original = [], getattr(module, function)

    def recording(*args, **kwargs):
        calls.append(copy.deepcopy((args, kwargs)))
        return original(*args, **kwargs)

    users = [
        loaded
        for loaded in list(sys.modules.values())
        if loaded is not None
        and loaded.__name__.startswith("privcut")
        and getattr(loaded, function, None) is original
    ]
    for user in users:
        setattr(user, function, recording)
    try:
        for seed in range(seeds):
            synthetic_graph(A, 1.0, method="sparse", rng=seed)
    finally:
        for user in users:
            setattr(user, function, original)
    return calls


def _same(first, second) -> bool:
    if isinstance(first, tuple):
        return len(first) == len(second) and all(map(_same, first, second))
    if isinstance(first, np.ndarray):
        return first.dtype == second.dtype and np.array_equal(first, second)
    if sp.issparse(first):  # a CSR: its arrays, their dtypes and its flags
        parts = ("data", "indices", "indptr", "has_canonical_format")
        return (
            type(first) is type(second)
            and first.shape == second.shape
            and all(_same(getattr(first, part), getattr(second, part)) for part in parts)
        )
    return first == second


def _replayed(function, calls: list) -> tuple[float, list]:
    seconds, outputs = 0.0, []
    for call in calls:
        args, kwargs = copy.deepcopy(call)
        start = time.process_time()
        outputs.append(function(*args, **kwargs))
        seconds += time.process_time() - start
    return seconds, outputs


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module")
    parser.add_argument("function")
    parser.add_argument("--base", required=True, help="the baseline tree (e.g. main)")
    parser.add_argument("--graphs", nargs="+", default=social.DEFAULT_GRAPHS)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    module = importlib.import_module(f"privcut.graph.{args.module}")
    base = getattr(base_module(args.base, args.module), args.function)
    new = getattr(module, args.function)
    print("| step | graph | calls | base s / release | new s / release | base / new | same |")
    print("|---|---|---:|---:|---:|---:|---|")
    for name in args.graphs:
        A = social.load(name)
        if A is None:
            continue
        calls = _recorded(module, args.function, A, args.seeds)
        if not calls:
            continue
        times, same = [], True
        for _ in range(args.repeats):
            base_seconds, base_out = _replayed(base, calls)
            new_seconds, new_out = _replayed(new, calls)
            times.append((base_seconds / args.seeds, new_seconds / args.seeds))
            same &= all(map(_same, base_out, new_out))
        times = np.array(times)
        print(
            f"| {args.module}.{args.function} | {name} | {len(calls)} | "
            f"{np.median(times[:, 0]):.4f} | {np.median(times[:, 1]):.4f} | "
            f"{np.median(times[:, 0] / times[:, 1]):.2f} | {same} |",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
