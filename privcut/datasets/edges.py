"""Edge lists at scale: a columnar reader into a CSR adjacency and a vectorised writer.

:func:`read_edge_array` reads what :func:`privcut.datasets.read_edgelist` reads, with the
same rules and refusals, but through pandas' C parser into a ``scipy.sparse`` adjacency,
never building a NetworkX graph: O(|V| + |E|) time and memory. :func:`write_edge_array`
writes the edge-list format of the command line from an adjacency, in blocks of NumPy
byte operations, durably and atomically.

The reader parses the file in chunks of whole lines. A line that only pandas' fast path
could misread (a comment marker first, a double quote, a carriage return, a NUL, a BOM,
or a blank other than space and tab) is parsed by the line rules of ``read_edgelist``
instead, and so is a whole chunk whose columns look wrong (a missing or empty field, a
comma count that does not match the columns), which then fails with the line's number.
Lines whose labels are all decimal integers written exactly (no leading zero, within
int64) are parsed as integers and turned into their texts once per label, which spares a
string object per endpoint.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
import re
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from tqdm.auto import tqdm

from privcut.datasets.lines import (
    NODES,
    check_first_edge,
    check_no_bom,
    csv_field,
    declared_nodes,
    duplicate_edge,
    is_comment,
    is_plain,
    parse_weight,
    split_fields,
)
from privcut.exceptions import GraphInputError
from privcut.files import open_atomically
from privcut.graph.universe import canonical_order

__all__ = ["EdgeArray", "read_edge_array", "write_edge_array"]

CHUNK_BYTES = 1 << 25
"""Bytes parsed at a time (whole lines; a longer line makes a longer chunk)."""
BLOCK_EDGES = 1 << 17
"""Edges formatted at a time by the writer (bounds its working memory)."""

_COMMENT = re.compile(rb"\n[ \t]*[#%]")
_CONTROL = re.compile(rb'["\r\x00\x0b\x0c\x1c-\x1f]')
_UNICODE = re.compile(
    rb"\xef\xbb\xbf|\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f"
    rb"|\xe3\x80\x80"
)
_ORDINARY = bytes(b for b in range(128) if chr(b) not in '\r\x00\x0b\x0c\x1c\x1d\x1e\x1f"#%')
"""A line needs the line rules if it has a comment marker first (after blanks), a quote,
a carriage return, NUL, a BOM (which pandas would drop), or a blank that ``str.split``
splits on but pandas' whitespace separator does not (the other ASCII controls and the
Unicode blanks); the ASCII bytes outside these are ordinary."""


@dataclass(frozen=True)
class EdgeArray:
    """An edge list read into a sparse adjacency.

    Attributes
    ----------
    adjacency : scipy.sparse.csr_array
        n x n, float; ``adjacency[i, j]`` is the weight of edge (``nodes[i]``,
        ``nodes[j]``) (1 for every edge unless read with ``weight``); symmetric for an
        undirected graph, zero diagonal, canonical format (sorted indices, no
        duplicates).
    nodes : tuple of str
        The node labels in index order: the given public node list, or the canonical
        order of the labels (:func:`privcut.graph.universe.canonical_order`), never the
        order in which the edges name them.
    directed : bool
        Whether ``u v`` is the arc u -> v (else the edge {u, v}).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "g.txt")
    ...     _ = Path(path).write_text("b a\\nb c\\n")
    ...     edges = read_edge_array(path)
    >>> edges.nodes, edges.adjacency.toarray().astype(int).tolist()
    (('a', 'b', 'c'), [[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    """

    adjacency: sp.csr_array
    nodes: tuple
    directed: bool


@dataclass
class _Columns:
    """What the chunks have read so far: each chunk's endpoint codes into ``labels`` and
    its weight texts, and the nodes declared by ``# nodes:`` lines. A chunk of decimal
    labels only is read as integers, coded into ``numbers`` (its codes' first element is
    True)."""

    labels: np.ndarray
    numbers: np.ndarray
    sources: list
    targets: list
    weights: list
    declared: list
    bounded: bool = True
    """Whether the weights must lie in [0, 1] (read as weights), else any number."""


def read_edge_array(
    path: str | os.PathLike,
    *,
    directed: bool = False,
    weight: str | None = None,
    nodes: Sequence[str] | None = None,
    progress: bool = False,
) -> EdgeArray:
    """Read an edge list into a CSR adjacency with pandas' C parser.

    Accepts and refuses exactly what :func:`privcut.datasets.read_edgelist` does: ``u
    v`` (whitespace) or ``u,v`` (CSV quoting) per line, comment lines (``#`` or ``%``)
    including the ``# nodes: [...]`` line of isolated nodes, an optional third column
    with the weight in [0, 1] (any number without ``weight``); refused: self-loops,
    duplicate edges (``u v`` and ``v u`` are one edge unless ``directed``), bad weights,
    ambiguous lines like ``#a b``, a first edge line ``u v`` or ``u,v`` (a header: make
    it a comment), text that is not UTF-8. Labels are strings. A byte order mark first is
    dropped, one further on refused.

    Privacy: the node order is public. It is the order of ``nodes`` when given, else
    the canonical order of the labels read, never the order of first appearance (which
    follows the edges).

    Complexity: O(|V| + |E|) time and memory (two int64 codes and a float per edge, each
    label once); no NetworkX graph, nothing n x n.

    Parameters
    ----------
    path : str or Path
        The file (UTF-8).
    directed : bool, default False
        Read ``u v`` as the arc u -> v.
    weight : str, optional
        If given (any attribute name, as in NetworkX's ``weight`` convention), the
        third column's values are the adjacency's entries (1 where a line has none),
        each in [0, 1]; by default every edge counts 1 and the third column (e.g. a SNAP
        timestamp) must be a number but is otherwise ignored, as ``read_edgelist(path,
        weight=None)`` reads it.
    nodes : sequence of str, optional
        The public node set, in its public order (e.g. :func:`read_nodelist`'s
        output): the adjacency's index order; its nodes without edges are isolated
        nodes. An endpoint or declared node outside it is an error naming it.
    progress : bool, default False
        Show a progress bar over the bytes read.

    Returns
    -------
    EdgeArray

    Raises
    ------
    GraphInputError
        Naming the file and, where the line rules find it, the line.
    FileNotFoundError
        If the file does not exist.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "g.csv")
    ...     _ = Path(path).write_text('# nodes: ["z"]\\n"x y",w,0.5\\n')
    ...     edges = read_edge_array(path, weight="weight")
    >>> edges.nodes, edges.adjacency.toarray().tolist()
    (('w', 'x y', 'z'), [[0.0, 0.5, 0.0], [0.5, 0.0, 0.0], [0.0, 0.0, 0.0]])
    """
    path, order = _check_read_arguments(path, directed, weight, nodes)
    columns = _Columns(np.array([], dtype=object), np.array([], dtype=np.int64), [], [], [], [])
    columns.bounded = weight is not None
    size = os.path.getsize(path)
    _check_first_edge(path)
    with (
        open(path, "rb") as file,
        tqdm(
            total=size, unit="B", unit_scale=True, desc=f"reading {path.name}", disable=not progress
        ) as bar,
    ):
        for base, line, chunk in _chunks(file):
            _read_chunk(chunk, path, base, line, columns)
            bar.update(base + len(chunk) - bar.n)
    sources, targets = _resolved(columns)
    values = _weights(columns, path, sources, targets)
    if weight is None:
        values = np.ones(sources.size)
    labels, positions = _node_order(columns, order, path)
    adjacency = _adjacency(positions[sources], positions[targets], values, labels, directed, path)
    return EdgeArray(adjacency, labels, directed)


def _check_read_arguments(path, directed, weight, nodes) -> tuple[Path, tuple | None]:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or Path naming the file, got {path!r}")
    if not isinstance(directed, bool):
        raise TypeError(f"directed must be True or False, got {directed!r}")
    if weight is not None and not isinstance(weight, str):
        raise TypeError(f"weight must be None or an edge attribute name (a str), got {weight!r}")
    if nodes is None:
        return Path(path), None
    if isinstance(nodes, (str, bytes)) or not isinstance(nodes, Sequence):
        raise TypeError(f"nodes must be a sequence of str labels (a node list), got {nodes!r}")
    order = tuple(nodes)
    strange = [node for node in order if not isinstance(node, str)]
    if strange:
        raise TypeError(
            f"nodes must be str labels, as an edge list's are; got {strange[:5]}: convert "
            "them with str()"
        )
    if len(set(order)) != len(order):
        repeated = pd.Index(order)[pd.Index(order).duplicated()].tolist()
        raise GraphInputError(f"the node list names {repeated[:5]} more than once")
    return Path(path), order


def _check_first_edge(path: Path) -> None:
    """:func:`~privcut.datasets.lines.check_first_edge` on the file's first edge line,
    found by the line rules (the chunks' fast path does not see lines as first)."""
    with open(path, encoding="utf-8-sig", errors="replace") as file:
        for number, line in enumerate(file, start=1):
            text = line.strip()
            if not text or text.startswith(NODES):
                continue
            if not is_comment(text, path, number, len(split_fields(text)) in (2, 3)):
                check_first_edge(text, path, number)
                return


def _chunks(file) -> Iterator[tuple[int, int, bytes]]:
    """``(byte offset, number of the first line, bytes)`` of whole-line chunks (a CRLF is
    never cut)."""
    base, line, rest = 0, 1, b""
    while True:
        data = file.read(CHUNK_BYTES)
        buffer = rest + data
        if not buffer:
            return
        cut = buffer.rfind(b"\n") + 1 if data else len(buffer)
        if cut == 0:
            rest = buffer
            continue
        chunk, rest = buffer[:cut], buffer[cut:]
        yield base, line, chunk
        base, line = base + len(chunk), line + chunk.count(b"\n")
        if not data:
            return


def _read_chunk(chunk: bytes, path: Path, base: int, line: int, columns: _Columns) -> None:
    """Parse one chunk into ``columns``: its special lines by the line rules, the rest by
    pandas (or all of it by the line rules if pandas' columns look wrong)."""
    if not chunk.isascii():
        try:
            chunk.decode("utf-8")
        except UnicodeDecodeError as error:
            raise GraphInputError(
                f"{path}: not UTF-8 text (byte {base + error.start}); save the edge list as UTF-8"
            ) from None
    if base == 0:
        chunk = chunk.removeprefix(codecs.BOM_UTF8)  # a byte order mark, as editors write
    chunk = chunk.replace(b"\r\n", b"\n")  # one line break either way, as read_edgelist counts
    fast, special = _split_special(chunk, line)
    numbers = _parsed(fast, numeric=True) if _decimal(fast) else None
    if numbers is not None:
        _add(columns, *numbers, numeric=True)
    rows = ((), (), ()) if numbers is not None else _parsed(fast)
    if rows is None:
        fast, special = b"", [(line + n, text) for n, text in enumerate(chunk.split(b"\n"))]
        rows = (), (), ()
    extra = [], [], []
    for number, text in special:
        for offset, part in enumerate(re.split(r"\r\n?|\n", text.decode("utf-8"))):
            _read_line(part.strip(), path, number + offset, extra, columns)
    if extra[0]:
        rows = [
            np.concatenate([np.asarray(a, object), np.asarray(b, object)])
            for a, b in zip(rows, extra, strict=True)
        ]
    _add(columns, *rows)


def _special_positions(chunk: bytes) -> list[int]:
    """Positions in the chunk of the special lines (see ``_ORDINARY``), in order; one
    C-speed pass when there are none."""
    unusual = chunk.translate(None, _ORDINARY)
    if not unusual:
        return []
    positions = []
    if b"#" in unusual or b"%" in unusual:  # a marker first: the line after the match's \n
        positions += [match.start() for match in _COMMENT.finditer(b"\n" + chunk)]
    other = unusual.translate(None, b"#%")
    if other.translate(None, bytes(range(128, 256))):
        positions += [match.start() for match in _CONTROL.finditer(chunk)]
    if not other.isascii():
        positions += [match.start() for match in _UNICODE.finditer(chunk)]
    return sorted(positions)


def _split_special(chunk: bytes, line: int) -> tuple[bytes, list[tuple[int, bytes]]]:
    """The chunk without its special lines, and those lines with their numbers."""
    special, kept, end = [], [], 0
    for position in _special_positions(chunk):
        if position < end:
            continue
        start = chunk.rfind(b"\n", 0, position) + 1
        stop = chunk.find(b"\n", position)
        stop = len(chunk) if stop < 0 else stop + 1
        kept.append(chunk[end:start])
        special.append((line + chunk.count(b"\n", 0, start), chunk[start:stop]))
        end = stop
    if not special:
        return chunk, []
    kept.append(chunk[end:])
    return b"".join(kept), special


def _decimal(fast: bytes) -> bool:
    """Whether the lines hold only decimal numbers without leading zeros and blanks, so
    that every label is the decimal text of its integer (``007`` is not ``7``)."""
    if fast.translate(None, b"0123456789 \t\n"):
        return False
    text = np.frombuffer(fast, dtype=np.uint8)
    digit = (text >= ord("0")) & (text <= ord("9"))
    zero = text[:-1] == ord("0")
    first = np.concatenate([[True], ~digit[:-2]]) if text.size > 1 else zero
    return not np.any(zero & first & digit[1:])


def _parsed(fast: bytes, *, numeric: bool = False) -> tuple | None:
    """The (u, v, weight text) columns of lines free of special bytes, by pandas' C
    parser (u and v as int64 if ``numeric``); None if they do not look like 2 or 3
    non-empty fields per line."""
    if not fast.strip():
        return (), (), ()
    comma = b"," in fast
    kinds = {0: np.int64, 1: np.int64, 2: str} if numeric else str
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            frame = pd.read_csv(
                io.BytesIO(fast),
                sep="," if comma else r"\s+",
                header=None,
                names=[0, 1, 2],
                dtype=kinds,
                na_filter=False,
                quoting=csv.QUOTE_NONE,
                index_col=False,
                engine="c",
                encoding="utf-8",
            )
    except (pd.errors.ParserError, pd.errors.ParserWarning, ValueError, OverflowError):
        return None
    if numeric:
        return frame[0].to_numpy(), frame[1].to_numpy(), frame[2].to_numpy(dtype=object)
    columns = [frame[k].to_numpy(dtype=object) for k in range(3)]
    if comma:
        if b" " in fast or b"\t" in fast:
            columns = [frame[k].str.strip().to_numpy(dtype=object) for k in range(3)]
        if fast.count(b",") != len(frame) + np.count_nonzero(columns[2] != ""):
            return None  # an empty (or blank: "u,v, ") last field, or a line without a comma
    if np.any(columns[0] == "") or np.any(columns[1] == ""):
        return None
    return tuple(columns)


def _read_line(text: str, path: Path, number: int, rows: tuple, columns: _Columns) -> None:
    """``read_edgelist``'s rules for one stripped line: skip it, declare its nodes, or
    append its edge to ``rows``."""
    if not text:
        return
    check_no_bom(text, path, number)
    if text.startswith(NODES):
        columns.declared.extend(declared_nodes(text, path, number))
        return
    fields = split_fields(text)
    if is_comment(text, path, number, len(fields) in (2, 3)):
        return
    if len(fields) not in (2, 3) or not all(fields):
        raise GraphInputError(
            f"{path}:{number}: expected 'u v' or 'u v weight' (or comma-separated), got {text!r}"
        )
    if fields[0] == fields[1]:
        raise GraphInputError(f"{path}:{number}: self-loop {fields[0]!r}; remove it")
    if len(fields) == 3:
        parse_weight(fields[2], f"{path}:{number}", bounded=columns.bounded)
    for column, field in zip(rows, (*fields, "")[:3], strict=True):
        column.append(field)


def _add(columns: _Columns, sources, targets, weights, *, numeric: bool = False) -> None:
    """Append a chunk's rows as codes into the running label table (each label kept
    once, so memory stays O(|V|) for labels, O(|E|) for codes); integer labels into the
    table of numbers."""
    if len(sources) == 0:
        return
    count, kind = len(sources), np.int64 if numeric else object
    ends = np.concatenate([np.asarray(sources, dtype=kind), np.asarray(targets, dtype=kind)])
    codes, uniques = pd.factorize(ends)
    table = columns.numbers if numeric else columns.labels
    known = table.size
    merged, table = pd.factorize(np.concatenate([table, np.asarray(uniques, dtype=kind)]))
    if numeric:
        columns.numbers = np.asarray(table, dtype=np.int64)
    else:
        columns.labels = np.asarray(table, dtype=object)
    codes = merged[known:][codes]
    columns.sources.append((numeric, codes[:count]))
    columns.targets.append((numeric, codes[count:]))
    weights = np.asarray(weights, dtype=object)
    columns.weights.append(weights if np.any(weights != "") else count)


def _resolved(columns: _Columns) -> tuple[np.ndarray, np.ndarray]:
    """Every edge's endpoints as codes into one table of str labels (``columns.labels``,
    the numbers' decimal texts joined to it)."""
    known = columns.labels.size
    texts = columns.numbers.astype(str).astype(object)
    merged, table = pd.factorize(np.concatenate([columns.labels, texts]))
    columns.labels, numbers = np.asarray(table, dtype=object), merged[known:]
    return tuple(
        _concatenated([numbers[codes] if numeric else codes for numeric, codes in parts])
        for parts in (columns.sources, columns.targets)
    )


def _concatenated(parts: list) -> np.ndarray:
    return np.concatenate(parts) if parts else np.array([], dtype=np.intp)


def _weights(columns: _Columns, path: Path, sources, targets) -> np.ndarray:
    """The edges' weights: the third column read as ``float`` reads it (1 where a line
    has none), each checked to lie in [0, 1] where ``columns.bounded``."""
    parts = []
    for texts in columns.weights:
        if isinstance(texts, int):
            parts.append(np.ones(texts))
            continue
        values, given = np.ones(texts.size), texts != ""
        try:
            values[given] = texts[given].astype(float)
        except ValueError:
            for text in texts[given]:
                parse_weight(text, str(path), bounded=columns.bounded)
        parts.append(values)
    values = _concatenated(parts).astype(float)
    if not columns.bounded:
        return values
    outside = ~((values >= 0.0) & (values <= 1.0))
    if np.any(outside):
        at = int(np.flatnonzero(outside)[0])
        u, v = columns.labels[sources[at]], columns.labels[targets[at]]
        raise GraphInputError(
            f"{path}: weight {values[at]} of edge ({u!r}, {v!r}) is outside [0, 1]; rescale "
            "the weights"
        )
    return values


def _node_order(columns: _Columns, order: tuple | None, path: Path) -> tuple[tuple, np.ndarray]:
    """The public node order and each label's position in it."""
    declared = np.asarray(columns.declared, dtype=object)
    if order is None:
        order = canonical_order(pd.unique(np.concatenate([columns.labels, declared])).tolist())
    index = pd.Index(order, dtype=object)
    positions = index.get_indexer(columns.labels)
    unknown = np.concatenate(
        [columns.labels[positions < 0], declared[index.get_indexer(declared) < 0]]
    )
    if unknown.size:
        raise GraphInputError(
            f"{path}: nodes {sorted(set(unknown.tolist()))[:5]} are not in the node list; "
            "add them there"
        )
    kind = np.int32 if len(order) < np.iinfo(np.int32).max else np.int64
    return tuple(order), positions.astype(kind)


def _adjacency(
    rows: np.ndarray,
    columns: np.ndarray,
    values: np.ndarray,
    labels: tuple,
    directed: bool,
    path: Path,
) -> sp.csr_array:
    """The checked CSR adjacency of the edges (mirrored when undirected): no self-loop,
    no edge twice."""
    n = len(labels)
    loops = np.flatnonzero(rows == columns)
    if loops.size:
        raise GraphInputError(f"{path}: self-loop {labels[rows[loops[0]]]!r}; remove it")
    if not directed:
        rows, columns = np.minimum(rows, columns), np.maximum(rows, columns)
        rows, columns, values = (
            np.concatenate([rows, columns]),
            np.concatenate([columns, rows]),
            np.concatenate([values, values]),
        )
    adjacency = sp.csr_array((values, (rows, columns)), shape=(n, n))
    adjacency.sum_duplicates()
    if adjacency.nnz != rows.size:
        keys = np.sort(rows.astype(np.int64) * n + columns)
        twice = int(keys[np.flatnonzero(keys[1:] == keys[:-1])[0]])
        u, v = labels[twice // n], labels[twice % n]
        with open(path, encoding="utf-8-sig") as file:  # the lines, for the message only
            raise duplicate_edge(path, enumerate(file, start=1), u, v, directed)
    return adjacency


def write_edge_array(
    path: str | os.PathLike,
    adjacency: sp.sparray | sp.spmatrix,
    nodes: Sequence,
    *,
    header: Sequence[str] = (),
    weighted: bool = False,
    directed: bool = False,
) -> None:
    """Write a sparse adjacency as an edge list, durably and atomically.

    The command line's format, byte for byte: each ``header`` text as a comment line
    ``# text``; ``# nodes: [...]`` (JSON) listing the nodes without edges, if any, so
    the node set survives; then one line per edge, ``u v`` or, with ``weighted``, ``u v
    weight`` (``%.6g``), in row-major order (the upper triangle for an undirected
    graph). Labels are ``str(node)``, written bare when every label is plain (no blank,
    comma or quote, no comment marker first) and otherwise as comma-separated CSV
    fields, quoted where not plain. Every stored entry is an edge (an explicit zero
    too). :func:`read_edge_array` reads the file back to the same adjacency (as
    strings, for labels that are not).

    This only writes what it is given: to write a release, give the released adjacency
    and the public node order.

    Complexity: O(|V| + |E|) time; the edges are formatted in blocks of
    ``BLOCK_EDGES`` by NumPy byte operations (no Python loop per edge) and streamed
    through :func:`privcut.files.open_atomically`, so memory is O(|V| + |E|) for the
    adjacency plus O(``BLOCK_EDGES``) for the text.

    Parameters
    ----------
    path : str or Path
        The target (its folder must exist); replaced atomically.
    adjacency : scipy.sparse array or matrix
        n x n; symmetric with a zero diagonal unless ``directed``.
    nodes : sequence
        The n node labels in index order.
    header : sequence of str, optional
        Comment lines (without the leading ``# ``), one line each.
    weighted : bool, default False
        Write each edge's value as a third column.
    directed : bool, default False
        Write every stored entry as an arc; else each edge once, from the upper
        triangle.

    Raises
    ------
    ValueError
        If the adjacency is not square n x n, or (undirected) not symmetric or with a
        nonzero diagonal, or a header text holds a line break.

    Examples
    --------
    >>> import tempfile
    >>> adjacency = sp.csr_array(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]]))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "g.txt")
    ...     write_edge_array(path, adjacency, ["a", "b c", "d"], header=["a graph"])
    ...     print(Path(path).read_text(), end="")
    # a graph
    # nodes: ["d"]
    a,"b c"
    """
    A, labels = _check_write_arguments(adjacency, nodes, header, directed)
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    degree = np.bincount(rows, minlength=len(labels)) + np.bincount(
        A.indices, minlength=len(labels)
    )
    isolated = [labels[i] for i in np.flatnonzero(degree == 0)]
    lines = [f"# {text}" for text in header]
    if isolated:
        lines.append(f"{NODES} {json.dumps(isolated)}")
    plain = all(is_plain(label) for label in labels)
    fields = [label if plain else csv_field(label) for label in labels]
    keep = slice(None) if directed else rows < A.indices
    rows, columns, values = rows[keep], A.indices[keep], A.data[keep]
    with open_atomically(path) as write:
        if lines:
            write(("\n".join(lines) + "\n").encode())
        pool = _Pool.of([field.encode() for field in fields])
        separator = b" " if plain else b","
        for start in range(0, rows.size, BLOCK_EDGES):
            block = slice(start, start + BLOCK_EDGES)
            weights = values[block].astype(float) if weighted else None
            write(_edge_lines(pool, rows[block], columns[block], weights, separator))


def _check_write_arguments(adjacency, nodes, header, directed) -> tuple[sp.csr_array, list]:
    if not sp.issparse(adjacency):
        raise TypeError(f"adjacency must be a scipy.sparse array, got {type(adjacency)}")
    if isinstance(nodes, (str, bytes)) or not isinstance(nodes, Sequence):
        raise TypeError(f"nodes must be a sequence of node labels, one per row, got {nodes!r}")
    labels = [str(node) for node in nodes]
    if adjacency.shape != (len(labels), len(labels)):
        raise ValueError(
            f"the adjacency is {adjacency.shape[0]} x {adjacency.shape[1]}, but there are "
            f"{len(labels)} nodes; give one label per row"
        )
    if len(set(labels)) != len(labels):
        raise ValueError("the node labels (as str) must be distinct; relabel the nodes")
    if isinstance(header, str) or not isinstance(header, Sequence):
        raise TypeError(f"header must be a sequence of str (comment lines), got {header!r}")
    if not all(isinstance(text, str) for text in header):
        raise TypeError(f"header must be a sequence of str (comment lines), got {header!r}")
    if any("\n" in text or "\r" in text for text in header):
        raise ValueError("header must be a sequence of one-line texts (no line breaks)")
    A = sp.csr_array(adjacency)
    if not A.has_canonical_format:
        A = A.copy()  # the caller's array is left as it is
        A.sum_duplicates()
    if not directed and (A.diagonal().any() or (A != A.T).nnz):
        raise ValueError(
            "an undirected adjacency must be symmetric with a zero diagonal; pass "
            "directed=True for a directed graph"
        )
    return A, labels


@dataclass(frozen=True)
class _Pool:
    """Byte strings stored end to end: ``data[starts[i] : starts[i] + lengths[i]]``."""

    data: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray

    @classmethod
    def of(cls, texts: list[bytes]) -> _Pool:
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        data = np.frombuffer(b"".join(texts), dtype=np.uint8)
        return cls(data, np.cumsum(lengths) - lengths, lengths)


def _edge_lines(
    pool: _Pool, rows: np.ndarray, columns: np.ndarray, weights: np.ndarray | None, sep: bytes
) -> bytes:
    """The text of a block of edges, ``u<sep>v[<sep>w]\\n`` each, assembled by gathers."""
    pieces = [(pool, rows), (pool, columns)]
    if weights is not None:
        texts = np.char.encode(np.char.mod("%.6g", weights), "ascii")
        width = max(texts.dtype.itemsize, 1)
        data = np.frombuffer(texts.tobytes(), dtype=np.uint8)
        lengths = np.char.str_len(texts).astype(np.int64)
        starts = np.arange(texts.size, dtype=np.int64) * width
        pieces.append((_Pool(data, starts, lengths), np.arange(texts.size)))
    lengths = [piece.lengths[which] for piece, which in pieces]
    line = sum(lengths) + len(pieces)  # the pieces, their separators and the newline
    ends = np.cumsum(line)
    out = np.empty(int(ends[-1]) if ends.size else 0, dtype=np.uint8)
    at = ends - line
    for k, ((piece, which), length) in enumerate(zip(pieces, lengths, strict=True)):
        _gather(out, at, piece.data, piece.starts[which], length)
        at = at + length
        out[at] = ord(sep) if k < len(pieces) - 1 else ord("\n")
        at = at + 1
    return out.tobytes()


def _gather(out: np.ndarray, at: np.ndarray, data: np.ndarray, starts, lengths) -> None:
    """Copy ``data[starts[i] : starts[i] + lengths[i]]`` to ``out[at[i] :]`` for every i."""
    total = int(lengths.sum())
    if total == 0:
        return
    within = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    out[np.repeat(at, lengths) + within] = data[np.repeat(starts, lengths) + within]
