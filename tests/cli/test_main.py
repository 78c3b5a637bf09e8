"""The ridgeline command, run as users run it: the installed console script in a subprocess; its commands, their
help, and what ``--help`` imports."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from ridgeline import __version__

RIDGELINE = shutil.which("ridgeline", path=str(Path(sys.executable).parent)) or "ridgeline"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([RIDGELINE, *args], capture_output=True, text=True, timeout=120)


def test_help_answers_the_obvious_question() -> None:
    result = run("--help")
    assert result.returncode == 0
    for expected in ("from ridgeline import SummaryWriter", "serve", "demo", "--version"):
        assert expected in result.stdout


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"ridgeline, version {__version__}"


def test_every_command_has_help_with_an_example() -> None:
    from ridgeline.cli import COMMANDS

    listed = run("--help").stdout
    for name in COMMANDS:
        assert f"  {name} " in listed
        result = run(name, "--help")
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith(f"Usage: ridgeline {name} ")
        assert f"ridgeline {name} --logdir" in result.stdout or f"ridgeline {name} '" in result.stdout, result.stdout


def test_help_does_not_import_the_server() -> None:
    """``ridgeline --help`` (and each command's) must start fast: FastAPI and uvicorn load only inside serve."""
    probe = (
        "import sys\n"
        "from ridgeline.cli import COMMANDS, main\n"
        "for args in (['--help'], *([name, '--help'] for name in COMMANDS)):\n"
        "    main(args, standalone_mode=False)\n"
        "print(sorted(m for m in ('fastapi', 'uvicorn', 'starlette') if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "[]"


def test_python_dash_m_runs_the_same_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ridgeline.cli", "--version"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0 and result.stdout.strip() == f"ridgeline, version {__version__}"
