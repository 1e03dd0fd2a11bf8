"""Two ``benchmarks/social.py --log`` files side by side (a base tree's run and this one's,
the same graphs, methods, epsilons and seeds): per graph, epsilon and method, each
structural error's mean over the seeds in both and their difference (new - base; lower
is better for every column).

Run: ``python benchmarks/social_ab.py BASE.jsonl NEW.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

COLUMNS = {
    "assortativity_error": "assortativity RE",
    "triangle_error": "triangle RE",
    "transitivity_error": "clustering RE",
    "centrality_mae": "centrality MAE",
    "degree_kl": "degree KL",
}


def _cells(path: Path) -> dict:
    """(graph, epsilon, method) -> {column: [one value per seed]}."""
    cells = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if "cell" not in record:
            continue
        graph, epsilon, _ = record["cell"]
        for method, values in record["rows"].items():
            cell = cells.setdefault((graph, epsilon, method), {key: [] for key in COLUMNS})
            for key in COLUMNS:
                cell[key].append(values[key])
    return cells


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("new", type=Path)
    args = parser.parse_args(argv)
    base, new = _cells(args.base), _cells(args.new)
    print("| graph | ε | method | seeds | " + " | ".join(COLUMNS.values()) + " |")
    print("|---|---:|---|---:|" + "---:|" * len(COLUMNS))
    for key in sorted(set(base) & set(new)):
        graph, epsilon, method = key
        seeds = len(new[key]["degree_kl"])
        parts = []
        for column in COLUMNS:
            before, after = np.mean(base[key][column]), np.mean(new[key][column])
            parts.append(f"{before:.3g} → {after:.3g} ({after - before:+.2g})")
        print(f"| {graph} | {epsilon:g} | {method} | {seeds} | " + " | ".join(parts) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
