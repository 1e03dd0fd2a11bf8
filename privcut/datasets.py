"""Reading graphs: SNAP-style and CSV edge lists."""

from __future__ import annotations

import csv
from pathlib import Path

import networkx as nx

from privcut.exceptions import GraphInputError

__all__ = ["read_edgelist"]


def read_edgelist(path: str | Path, *, directed: bool = False) -> nx.Graph:
    """Read an edge list: one edge ``u v`` (whitespace) or ``u,v`` (comma) per line.

    Lines starting with ``#`` or ``%`` and blank lines are skipped (SNAP headers). A
    third column, if present, is the edge weight and must lie in [0, 1]. Node labels
    are kept as strings. Self-loops and duplicate edges are refused.

    Parameters
    ----------
    path : str or Path
        The file.
    directed : bool, default False
        Build a DiGraph.

    Returns
    -------
    networkx.Graph or networkx.DiGraph

    Raises
    ------
    GraphInputError
        Naming the file, the line and what is wrong with it.
    FileNotFoundError
        If the file does not exist.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    ...     _ = f.write("# a SNAP header\\n1 2\\n2 3\\n")
    >>> sorted(read_edgelist(f.name).edges())
    [('1', '2'), ('2', '3')]
    >>> os.remove(f.name)
    """
    path = Path(path)
    G = nx.DiGraph() if directed else nx.Graph()
    with path.open(newline="") as handle:
        for number, line in enumerate(handle, start=1):
            text = line.strip()
            if not text or text[0] in "#%":
                continue
            fields = next(csv.reader([text])) if "," in text else text.split()
            fields = [field.strip() for field in fields]
            if len(fields) not in (2, 3) or not all(fields):
                raise GraphInputError(
                    f"{path}:{number}: expected 'u v' or 'u v weight' (or comma-separated), "
                    f"got {text!r}"
                )
            u, v = fields[0], fields[1]
            if u == v:
                raise GraphInputError(f"{path}:{number}: self-loop {u!r}; remove it")
            if G.has_edge(u, v):
                raise GraphInputError(f"{path}:{number}: duplicate edge ({u!r}, {v!r})")
            weight = 1.0
            if len(fields) == 3:
                try:
                    weight = float(fields[2])
                except ValueError:
                    raise GraphInputError(
                        f"{path}:{number}: weight {fields[2]!r} is not a number"
                    ) from None
                if not 0.0 <= weight <= 1.0:
                    raise GraphInputError(
                        f"{path}:{number}: weight {weight} is outside [0, 1]; rescale the weights"
                    )
            G.add_edge(u, v, weight=weight)
    return G
