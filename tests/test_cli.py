import shutil
import subprocess

import pytest

import privcut
from privcut.cli import main


def test_version_flag(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"privcut {privcut.__version__}"


def test_help_lists_the_demo(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "demo" in capsys.readouterr().out


def test_demo_prints_version_mechanisms_and_an_audit(capsys):
    assert main(["demo", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert privcut.__version__ in out
    assert "discrete_laplace" in out and "p-value" in out


def test_demo_refuses_a_bad_epsilon_before_doing_anything(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "--epsilon", "-1"])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "epsilon must be finite and > 0" in captured.err


@pytest.mark.skipif(shutil.which("privcut") is None, reason="console script not installed")
def test_console_script_is_installed():
    done = subprocess.run(["privcut", "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"privcut {privcut.__version__}"
