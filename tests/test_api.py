"""Every public name exists, has a docstring with a runnable example (the examples run as
doctests), and the generated API reference is current."""

import importlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
_spec = importlib.util.spec_from_file_location("build_reference", DOCS / "build_reference.py")
build_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_reference)


@pytest.mark.parametrize(
    ("module", "name"),
    [(module, name) for module, names in build_reference.PUBLIC.items() for name in names],
)
def test_public_name_has_a_docstring_with_an_example(module, name):
    obj = getattr(importlib.import_module(module), name)
    doc = obj.__doc__ or ""
    assert "Examples" in doc and ">>>" in doc, f"{module}.{name} needs an Examples section"


def test_reference_page_is_current():
    assert (DOCS / "reference.md").read_text() == build_reference.render(), (
        "run python docs/build_reference.py"
    )


def test_the_package_and_the_command_line_import_no_heavy_module():
    # sweep 37 F13: the top-level names are lazy (PEP 562), and the command line imports
    # NumPy, SciPy, NetworkX and the graph code only inside its handling of Ctrl-C
    code = (
        "import sys, privcut, privcut.cli\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('numpy', 'scipy', 'networkx', 'privcut')))\n"
    )
    root = Path(importlib.import_module("privcut").__file__).parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        check=True,
    )
    assert done.stdout == "['privcut', 'privcut.cli', 'privcut.exceptions', 'privcut.files']\n"


def test_every_top_level_name_loads_as_before():
    import privcut

    for name in privcut.__all__:
        namespace = {}
        exec(f"from privcut import {name}", namespace)
        assert namespace[name] is getattr(privcut, name) and name in dir(privcut)
    assert privcut.synthetic_graph is importlib.import_module("privcut.graph").synthetic_graph
    assert privcut.PrivacyBudget is importlib.import_module("privcut.privacy").PrivacyBudget
    assert {"graph", "linear", "privacy", "records", "files", "exceptions"} <= set(dir(privcut))
    assert privcut.graph.cut_value is privcut.cut_value
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        privcut.nothing  # noqa: B018
