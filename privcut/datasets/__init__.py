"""Graphs to work with: bundled real graphs, edge-list reading, and generators.

The bundled graphs (:func:`names`, :func:`load`) are small classics exported from
NetworkX to plain edge lists in ``privcut/datasets/data/``, each headed by its
provenance and licence (:func:`provenance`); they load offline.
"""

from __future__ import annotations

import csv
import os
import re
from importlib import resources
from pathlib import Path

import networkx as nx

from privcut.datasets.edges import EdgeArray, read_edge_array, write_edge_array
from privcut.datasets.generators import (
    community_graph,
    dense_gnp,
    planted_partition,
    stochastic_block_model,
)
from privcut.datasets.lines import (
    BOM,
    NODES,
    check_first_edge,
    check_no_bom,
    declared_nodes,
    duplicate_edge,
    is_comment,
    parse_weight,
    split_fields,
)
from privcut.exceptions import GraphInputError
from privcut.privacy.validation import check_option

__all__ = [
    "EdgeArray",
    "community_graph",
    "dense_gnp",
    "load",
    "names",
    "planted_partition",
    "provenance",
    "read_edge_array",
    "read_edgelist",
    "read_groups",
    "read_nodelist",
    "stochastic_block_model",
    "write_edge_array",
]


def _bundled() -> dict[str, resources.abc.Traversable]:
    folder = resources.files("privcut.datasets") / "data"
    return {
        entry.name.rsplit(".", 1)[0]: entry
        for entry in folder.iterdir()
        if entry.name.endswith((".txt", ".csv"))
    }


def names() -> list[str]:
    """The bundled graphs.

    Examples
    --------
    >>> names()
    ['davis', 'florentine', 'karate', 'les-miserables']
    """
    return sorted(_bundled())


def _entry(name: str):
    bundled = _bundled()
    if not isinstance(name, str):
        raise TypeError(f"name must be a str naming a bundled graph, got {name!r}")
    return bundled[check_option(name, "the bundled graph name", tuple(sorted(bundled)))]


def load(name: str, *, as_sparse: bool = False) -> nx.Graph | EdgeArray:
    """Load a bundled graph by name (node labels are strings, edges unweighted).

    Parameters
    ----------
    name : str
        One of :func:`names`.
    as_sparse : bool, default False
        Return an :class:`EdgeArray` (a CSR adjacency with the nodes in canonical order,
        read by :func:`read_edge_array`, no NetworkX graph) instead of a NetworkX graph.

    Examples
    --------
    >>> G = load("karate")
    >>> G.number_of_nodes(), G.number_of_edges()
    (34, 78)
    >>> edges = load("karate", as_sparse=True)
    >>> len(edges.nodes), edges.adjacency.nnz // 2, edges.nodes[:3]
    (34, 78, ('0', '1', '10'))
    """
    if not isinstance(as_sparse, bool):
        raise TypeError(f"as_sparse must be True or False, got {as_sparse!r}")
    with resources.as_file(_entry(name)) as path:
        if as_sparse:
            return read_edge_array(path)
        G = read_edgelist(path)
    G.graph["name"] = name
    return G


def provenance(name: str) -> str:
    """The provenance and licence note at the head of a bundled graph's file.

    Examples
    --------
    >>> "Zachary" in provenance("karate")
    True
    """
    lines = _entry(name).read_text(encoding="utf-8").splitlines()
    return "\n".join(
        line[2:] for line in lines if line.startswith("# ") and not line.startswith(NODES)
    )


def read_edgelist(
    path: str | Path, *, directed: bool = False, weight: str | None = "weight"
) -> nx.Graph:
    """Read an edge list: one edge ``u v`` (whitespace) or ``u,v`` (comma) per line.

    Blank lines and comment lines are skipped (SNAP and KONECT headers), except
    ``# nodes: [...]``, a JSON list of node labels that belong to the graph even
    without edges (how privcut writes isolated nodes). A third column, if present,
    is the edge weight, must lie in [0, 1], and is kept in the edge attribute
    ``weight`` (an edge without it gets 1.0); privcut's functions read it only when
    told to (``weight="weight"``, NetworkX's convention). With ``weight=None`` the
    third column (e.g. a SNAP timestamp) must be a number but is not kept. Node labels
    are kept as strings (a label may start with ``#`` or ``%`` anywhere but in the first
    column, e.g. ``1 #tag``). Self-loops and duplicate edges are refused. The file must
    be UTF-8 (a byte order mark first is dropped, one further on refused).

    A header line must be a comment (``# u v``): labels may be any text, so a header
    cannot be told from an edge, and a first edge line in the help's own notation
    (``u v``, ``u,v``, ``u v weight``) is refused as a header; the edge between nodes
    named ``u`` and ``v`` is then written quoted, ``"u","v"``.

    A comment line starts (after blanks) with ``#`` or ``%`` followed by a blank, the
    end of the line, another marker, or text that does not have the form of an edge
    line (2 or 3 fields). A line like ``#a b`` is ambiguous -- a comment, or an edge
    from node ``#a``? -- and is refused rather than silently dropped: write
    ``# a b`` for a comment, or the CSV form ``"#a",b`` for the edge.

    Parameters
    ----------
    path : str or Path
        The file.
    directed : bool, default False
        Build a DiGraph.
    weight : str or None, default "weight"
        The edge attribute that holds the third column; None: the graph is unweighted
        and the third column, any number, is ignored.

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
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or Path naming the file, got {path!r}")
    if not isinstance(directed, bool):
        raise TypeError(f"directed must be True or False, got {directed!r}")
    if weight is not None and not isinstance(weight, str):
        raise TypeError(f"weight must be None or an edge attribute name (a str), got {weight!r}")
    path = Path(path)
    G = nx.DiGraph() if directed else nx.Graph()
    lines = _lines(path, "edge list")
    first = True
    for number, text in lines:
        if text.startswith(NODES):
            G.add_nodes_from(declared_nodes(text, path, number))
            continue
        if is_comment(text, path, number, len(split_fields(text)) in (2, 3)):
            continue
        if first:
            check_first_edge(text, path, number)
            first = False
        fields = split_fields(text)
        if len(fields) not in (2, 3) or not all(fields):
            raise GraphInputError(
                f"{path}:{number}: expected 'u v' or 'u v weight' (or comma-separated), "
                f"got {text!r}"
            )
        u, v = fields[0], fields[1]
        if u == v:
            raise GraphInputError(f"{path}:{number}: self-loop {u!r}; remove it")
        if G.has_edge(u, v):
            raise duplicate_edge(path, lines, u, v, directed)
        value = _weight(fields, path, number, weight is not None)
        G.add_edge(u, v, **({} if weight is None else {weight: value}))
    return G


def _weight(fields: list[str], path: Path, number: int, bounded: bool) -> float:
    """An edge line's weight: its third field, a number (in [0, 1] if ``bounded``), or
    1.0 without one."""
    if len(fields) < 3:
        return 1.0
    return parse_weight(fields[2], f"{path}:{number}", bounded=bounded)


def read_nodelist(path: str | Path) -> list[str]:
    """Read a node list: one label per line, as strings, in file order.

    Blank lines and comment lines are skipped with :func:`read_edgelist`'s rule: a
    comment starts with ``#`` or ``%`` followed by a blank, the end of the line or
    another marker. Any other line is one label, kept whole (blanks inside included);
    a label that starts with a marker, or with a double quote, is written in CSV form,
    ``"#tag"``, and a line like ``#tag`` is refused as ambiguous rather than dropped.
    The file must be UTF-8.

    Raises
    ------
    GraphInputError
        Naming the file and the line.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    ...     _ = f.write('# the public nodes\\nalice\\nbob smith\\n"#tag"\\n')
    >>> read_nodelist(f.name)
    ['alice', 'bob smith', '#tag']
    >>> os.remove(f.name)
    """
    path = Path(path)
    nodes = []
    for number, text in _lines(path, "node list"):
        if is_comment(text, path, number, True):
            continue
        nodes.append(_unquoted(text, path, number) if text[0] == '"' else text)
    return nodes


def read_groups(path: str | Path) -> dict[str, str]:
    """Read a public partition: one ``node group`` (or ``node,group``) per line.

    Comments follow :func:`read_edgelist`'s rule, and labels its CSV quoting
    (``"#a",g``). The file must be UTF-8.

    Raises
    ------
    GraphInputError
        Naming the file and the line: not two fields, or a node listed twice.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    ...     _ = f.write("# node group\\na sales\\nb#2,it\\n")
    >>> read_groups(f.name)
    {'a': 'sales', 'b#2': 'it'}
    >>> os.remove(f.name)
    """
    path = Path(path)
    groups = {}
    for number, text in _lines(path, "groups file"):
        fields = split_fields(text)
        if is_comment(text, path, number, len(fields) == 2):
            continue
        if len(fields) != 2 or not all(fields):
            raise GraphInputError(f"{path}:{number}: expected 'node group', got {text!r}")
        if fields[0] in groups:
            raise GraphInputError(f"{path}:{number}: node {fields[0]!r} is listed twice")
        groups[fields[0]] = fields[1]
    return groups


def _unquoted(text: str, path: Path, number: int) -> str:
    """The label of a node-list line in CSV quotes."""
    try:
        fields = next(csv.reader([text]))
    except csv.Error:
        fields = []
    if len(fields) != 1 or not fields[0]:
        raise GraphInputError(f'{path}:{number}: {text!r} is not one quoted label "label"')
    return fields[0]


def _lines(path: Path, what: str) -> list[tuple[int, str]]:
    """The numbered, stripped, non-blank lines of a UTF-8 text file (a byte order mark
    first, as some editors write, is dropped; one further on is refused)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise GraphInputError(
            f"{path}: not UTF-8 text (byte {error.start}); save the {what} as UTF-8"
        ) from None
    lines = enumerate((line.strip() for line in re.split(r"\r\n?|\n", text)), start=1)
    kept = [(number, line) for number, line in lines if line]
    if BOM in text:
        for number, line in kept:
            check_no_bom(line, path, number)
    return kept
