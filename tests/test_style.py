"""House style: ruff is clean, no module uses another module's underscore names, and no
function is longer than the developers' guide allows."""

import ast
import functools
import importlib.util
import io
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "privcut"

MAX_FUNCTION_LINES = 60
"""Most lines of code in one function's body: its signature, docstring, comments and blank
lines excluded (the count by which the pipeline issue measured ``synthetic._release`` at 82)."""


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff not installed")
def test_ruff_is_clean():
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", str(ROOT)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def is_private(name: str) -> bool:
    """An underscore name that is not a dunder (``__version__``, ``__file__`` are public)."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@functools.cache
def parsed(text: str) -> ast.Module:
    """``ast.parse(text)``, once per text: both scans and both passes of the length check read
    the same trees (none of them changes a tree)."""
    return ast.parse(text)


@functools.cache
def is_module(dotted: str) -> bool:
    try:
        return importlib.util.find_spec(dotted) is not None
    except (ImportError, ValueError):  # a parent that is not a package
        return False


def absolute(node: ast.ImportFrom, path: Path) -> str:
    """The module that ``from <module> import ...`` names, in the file at ``path``."""
    if not node.level:
        return node.module or ""
    package = list(path.relative_to(ROOT).with_suffix("").parts[:-1])
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def module_aliases(tree: ast.Module, path: Path) -> dict[str, str]:
    """The local names that the file's imports bind to modules, with the module each names."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                aliases[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom):
            module = absolute(node, path)
            for alias in node.names:
                if is_module(f"{module}.{alias.name}"):
                    aliases[alias.asname or alias.name] = f"{module}.{alias.name}"
    return aliases


def dotted(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``, or None if the chain does not start at a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def underscore_uses(text: str, path: Path) -> list[str]:
    """Every use of another module's underscore name in the source ``text`` of the module at
    ``path``: ``from m import _x``, or ``m._x`` with ``m`` an imported module."""
    tree = parsed(text)
    where = path.relative_to(ROOT)
    found = [
        f"{where}:{node.lineno}: from {absolute(node, path)} import {alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if is_private(alias.name)
    ]
    aliases = module_aliases(tree, path)
    for node in ast.walk(tree):
        parts = dotted(node) if isinstance(node, ast.Attribute) else None
        if not parts or parts[0] not in aliases or not is_private(parts[-1]):
            continue
        owner = ".".join([aliases[parts[0]], *parts[1:-1]])
        if is_module(owner):
            found.append(f"{where}:{node.lineno}: {owner}.{parts[-1]}")
    return found


def test_the_underscore_check_sees_both_forms():
    text = (
        "from __future__ import annotations\n"
        "import privcut.graph.cuts\n"
        "from privcut.privacy import validation as checks\n"
        "from . import universe\n"
        "from privcut.privacy.validation import _shown, check_scalar\n"
        "print(checks._range, privcut.graph.cuts._hidden, universe._x, checks.__name__)\n"
        "print(self._fine, check_scalar._not_a_module, privcut.graph.__file__)\n"
    )
    found = underscore_uses(text, PACKAGE / "graph" / "sample.py")
    assert sorted(use.split(": ", 1)[1] for use in found) == [
        "from privcut.privacy.validation import _shown",
        "privcut.graph.cuts._hidden",
        "privcut.graph.universe._x",
        "privcut.privacy.validation._range",
    ]


def test_no_module_uses_another_modules_underscore_names():
    found = [use for path in modules() for use in underscore_uses(path.read_text(), path)]
    assert not found, "make these public, or move them into the module that uses them:\n" + (
        "\n".join(found)
    )


def code_lines(text: str) -> set[int]:
    """The lines of ``text`` that hold code: not blank, not only a comment, not a docstring."""
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type not in (
            tokenize.COMMENT,
            tokenize.NL,
            tokenize.NEWLINE,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.ENDMARKER,
        ):
            lines.update(range(token.start[0], token.end[0] + 1))
    documented = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for node in ast.walk(parsed(text)):
        if isinstance(node, documented) and ast.get_docstring(node, clean=False) is not None:
            docstring = node.body[0]
            lines -= set(range(docstring.lineno, docstring.end_lineno + 1))
    return lines


def long_functions(text: str, where: str) -> list[str]:
    """The functions in ``text`` whose body has more than ``MAX_FUNCTION_LINES`` lines of
    code (nested functions count in the function that holds them)."""
    code = code_lines(text)
    found = []
    for node in ast.walk(parsed(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = len(code & set(range(node.body[0].lineno, node.end_lineno + 1)))
            if length > MAX_FUNCTION_LINES:
                found.append(f"{where}:{node.lineno}: {node.name} has {length} lines of code")
    return found


def test_the_length_check_counts_code_only():
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES - 3))
    padding = '    """A docstring\n\n    over lines."""\n    # a comment\n\n'
    short = f"def short(\n    a,\n    b,\n):\n{padding}{body}    y = [\n        1,\n    ]\n"
    assert long_functions(short, "sample") == []  # 57 assignments, one split over 3 lines
    assert long_functions(short + "    return x0\n", "sample") == [
        "sample:1: short has 61 lines of code"
    ]


def test_no_function_is_longer_than_the_limit():
    found = [
        use
        for path in modules()
        for use in long_functions(path.read_text(), str(path.relative_to(ROOT)))
    ]
    assert not found, f"split these (at most {MAX_FUNCTION_LINES} lines of code):\n" + (
        "\n".join(found)
    )
