"""Every example runs in its fast mode and writes its PNG."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.slow  # a subprocess each, several seconds
@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("release_synthetic_social_graph.py", "claimed bound"),
        ("interactive_cut_queries.py", "resumed from"),
        ("compare_mechanisms.py", "per-query Laplace"),
        ("linear_queries.py", "K-norm"),
        ("structure_of_a_release.py", "degree KL"),
        ("private_communities.py", "private communities released"),
    ],
)
def test_example_runs_fast_and_writes_its_png(script, expected, tmp_path):
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), "--fast", "--output", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout
    image = tmp_path / script.replace(".py", ".png")
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
