"""Every public name exists, has a docstring with a runnable example (the examples run as
doctests), and the generated API reference is current."""

import importlib
import importlib.util
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
