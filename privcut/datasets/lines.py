"""The line rules of privcut's text formats, in one place: how an edge, node or groups line
splits into fields, which lines are comments, the ``# nodes: [...]`` line of isolated
nodes, weights, and how a label is written so that it reads back as itself.

:func:`privcut.datasets.read_edgelist`, :func:`~privcut.datasets.read_nodelist`,
:func:`~privcut.datasets.read_groups`, :func:`~privcut.datasets.read_edge_array` (for the
lines its fast path leaves to the rules) and :func:`~privcut.datasets.write_edge_array`
all use these, so the readers and the writer cannot drift apart.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterable

from privcut.exceptions import GraphInputError

__all__ = [
    "NODES",
    "check_first_edge",
    "check_no_bom",
    "csv_field",
    "declared_nodes",
    "duplicate_edge",
    "is_comment",
    "is_plain",
    "parse_weight",
    "split_fields",
]

NODES = "# nodes:"
"""A comment declaring nodes (a JSON list) that belong to the graph even without edges."""

BOM = "\ufeff"
"""The byte order mark (U+FEFF, invisible): dropped first in a file, refused elsewhere."""

HELP_NOTATION = re.compile(r"u(\s+|\s*,\s*)v((\s+|\s*,\s*)weight)?")
"""The help's notation of an edge line (``u v``, ``u,v``, ``u v weight``), unquoted."""


def check_no_bom(text: str, path: str | os.PathLike, number: int) -> None:
    """Refuse a line holding a byte order mark: one first in a file is dropped, one
    further on (two files joined, ``cat a.txt b.txt``) would be an invisible part of a
    label.

    Raises
    ------
    GraphInputError
        Naming ``path:number`` and the fix.

    Examples
    --------
    >>> check_no_bom("1 2", "g.txt", 2)
    >>> check_no_bom("\\ufeff1 2", "g.txt", 2)
    Traceback (most recent call last):
    ...
    privcut.exceptions.GraphInputError: g.txt:2: a byte order mark (U+FEFF, invisible) ...
    """
    if BOM in text:
        raise GraphInputError(
            f"{path}:{number}: a byte order mark (U+FEFF, invisible) inside the file, as "
            f"where files saved with one were joined: it would be part of a label; remove "
            f"it (e.g. sed -i 's/\\xef\\xbb\\xbf//g' {path})"
        )


def check_first_edge(text: str, path: str | os.PathLike, number: int) -> None:
    """Refuse a first edge line in the help's notation (``u v``, ``u,v``, ``u v weight``):
    a header, not an edge between nodes named ``u`` and ``v``. Labels may be any text,
    so no other header can be told from an edge: a header line must be a comment.

    Raises
    ------
    GraphInputError
        Naming ``path:number`` and both fixes.

    Examples
    --------
    >>> check_first_edge('"u","v"', "g.csv", 1)  # quoted: the edge between u and v
    >>> check_first_edge("u,v", "g.csv", 1)
    Traceback (most recent call last):
    ...
    privcut.exceptions.GraphInputError: g.csv:1: 'u,v' looks like a header, not an edge: ...
    """
    if HELP_NOTATION.fullmatch(text):
        raise GraphInputError(
            f"{path}:{number}: {text!r} looks like a header, not an edge: make a header a "
            f"comment ('# {text}'); for an edge between nodes named u and v, quote them "
            '(\'"u","v"\')'
        )


def split_fields(text: str) -> list[str]:
    """The fields of a stripped line: comma-separated (CSV quoting) if it holds a comma,
    else whitespace-separated; each field stripped. A line that CSV cannot parse (e.g.
    with a NUL byte) has no fields.

    Examples
    --------
    >>> split_fields('"x y", b ,0.5'), split_fields("1\\t2"), split_fields("a")
    (['x y', 'b', '0.5'], ['1', '2'], ['a'])
    """
    try:
        found = next(csv.reader([text])) if "," in text else text.split()
    except csv.Error:
        return []
    return [field.strip() for field in found]


def is_comment(text: str, path: str | os.PathLike, number: int, record: bool) -> bool:
    """Whether a stripped, non-blank line is a comment: it starts with ``#`` or ``%``
    followed by a blank, the end of the line, another marker, or (``record`` False) text
    that does not have the form of a data line. A marker followed by text that has that
    form (``record`` True), like ``#a b``, is ambiguous and refused.

    Raises
    ------
    GraphInputError
        For an ambiguous line, naming ``path:number`` and both ways to fix it.

    Examples
    --------
    >>> is_comment("# a header", "g.txt", 1, True), is_comment("1 2", "g.txt", 2, True)
    (True, False)
    >>> is_comment("#a b", "g.txt", 3, True)
    Traceback (most recent call last):
    ...
    privcut.exceptions.GraphInputError: g.txt:3: '#a b' is ambiguous: ...
    """
    if text[0] not in "#%":
        return False
    if len(text) == 1 or text[1].isspace() or text[1] in "#%" or not record:
        return True
    raise GraphInputError(
        f"{path}:{number}: {text!r} is ambiguous: a comment, or a line whose first label "
        f"starts with {text[0]!r}? Write '{text[0]} {text[1:]}' for a comment, or the label "
        "quoted in CSV form"
    )


def declared_nodes(text: str, path: str | os.PathLike, number: int) -> list[str]:
    """The labels (as str) of a ``# nodes: [...]`` line (``text`` starts with
    :data:`NODES`).

    Raises
    ------
    GraphInputError
        If a JSON list does not follow the marker.

    Examples
    --------
    >>> declared_nodes('# nodes: ["a", 3]', "g.txt", 1)
    ['a', '3']
    """
    try:
        declared = json.loads(text[len(NODES) :])
    except json.JSONDecodeError:
        declared = None
    if not isinstance(declared, list):
        raise GraphInputError(f"{path}:{number}: '# nodes:' must be followed by a JSON list")
    return [str(node) for node in declared]


def parse_weight(text: str, where: str, *, bounded: bool = True) -> float:
    """A weight field's value: a number (as ``float`` reads it), in [0, 1] if ``bounded``
    (a third column read as weights; without, e.g. a timestamp that is ignored, any
    number).

    Raises
    ------
    GraphInputError
        Naming ``where`` (e.g. ``path:line``): not a number, or (``bounded``) outside
        [0, 1].

    Examples
    --------
    >>> parse_weight("0.25", "g.txt:4")
    0.25
    >>> parse_weight("2", "g.txt:5")
    Traceback (most recent call last):
    ...
    privcut.exceptions.GraphInputError: g.txt:5: weight 2.0 is outside [0, 1]; ...
    """
    try:
        value = float(text)
    except ValueError:
        raise GraphInputError(f"{where}: weight {text!r} is not a number") from None
    if bounded and not 0.0 <= value <= 1.0:
        raise GraphInputError(f"{where}: weight {value} is outside [0, 1]; rescale the weights")
    return value


def is_plain(label: str) -> bool:
    """Whether a label can be written bare in a whitespace-separated edge line and read
    back as itself (no blank, comma or quote; no comment marker first).

    Examples
    --------
    >>> is_plain("a1"), is_plain("x y"), is_plain("#t"), is_plain("b#2")
    (True, False, False, True)
    """
    return bool(label) and label[0] not in "#%" and not any(c.isspace() or c in ',"' for c in label)


def csv_field(label: str) -> str:
    """A label as a CSV field: bare if :func:`is_plain`, else double-quoted with its
    quotes doubled.

    Examples
    --------
    >>> csv_field("a"), csv_field("x y"), csv_field('q"r')
    ('a', '"x y"', '"q""r"')
    """
    return label if is_plain(label) else '"' + label.replace('"', '""') + '"'


def duplicate_edge(
    path: str | os.PathLike, lines: Iterable[tuple[int, str]], u: str, v: str, directed: bool
) -> GraphInputError:
    """The error for an edge list that names the edge ``(u, v)`` twice: found again in
    its numbered ``lines`` (which must pass the line rules), naming both lines and, where
    an undirected list holds both directions, reading it as directed as a fix.

    Examples
    --------
    >>> error = duplicate_edge("g.txt", [(1, "a b"), (2, "b c"), (3, "b a")], "a", "b", False)
    >>> str(error).split(";")[0]
    "g.txt:3: duplicate edge ('b', 'a'): line 1 lists ('a', 'b'), the same undirected edge"
    """
    wanted = (u, v) if directed else {u, v}
    found = []
    for number, line in lines:
        text = line.strip()
        if not text or text.startswith(NODES):
            continue
        fields = split_fields(text)
        if is_comment(text, path, number, len(fields) in (2, 3)) or len(fields) < 2:
            continue
        pair = (fields[0], fields[1])
        if (pair if directed else set(pair)) == wanted:
            found.append((number, pair))
            if len(found) == 2:
                break
    if len(found) < 2:  # not found by the rules (never for a list that passed them)
        return GraphInputError(f"{path}: duplicate edge ({u!r}, {v!r}); remove one of them")
    (first, one), (second, other) = found
    if one != other:
        return GraphInputError(
            f"{path}:{second}: duplicate edge {other!r}: line {first} lists {one!r}, the same "
            "undirected edge; if the lines are arcs u -> v, read the file as directed "
            "(directed=True), else remove one of them"
        )
    return GraphInputError(
        f"{path}:{second}: duplicate edge {other!r}, also on line {first}; remove one of them"
    )
