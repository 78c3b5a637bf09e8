"""The layers of the house (docs/architecture.md) as import-linter contracts ([tool.importlinter] in
pyproject.toml): they hold for the tree, and they do catch a layer broken on purpose in a copy of it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(source: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(source)}
    command = [str(LINT_IMPORTS), "--config", str(cwd / "pyproject.toml"), "--no-cache"]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False)


def test_the_contracts_hold() -> None:
    done = lint_imports(ROOT / "src", ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "BROKEN" not in done.stdout and "Contracts: 5 kept, 0 broken." in done.stdout


def test_a_dashboard_reading_ingest_breaks_them(tmp_path: Path) -> None:
    source = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "ridgeline", source / "ridgeline", ignore=shutil.ignore_patterns("_static"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    routes = source / "ridgeline" / "plugins" / "scalars" / "routes.py"
    routes.write_text(routes.read_text() + "\nfrom ridgeline.ingest import loop  # noqa: E402\n")
    other = source / "ridgeline" / "plugins" / "text" / "routes.py"
    other.write_text(other.read_text() + "\nfrom ridgeline.plugins.images import routes as images  # noqa: E402\n")
    done = lint_imports(source, tmp_path)
    assert done.returncode != 0
    assert "ridgeline.plugins is not allowed to import ridgeline.ingest" in done.stdout
    assert "ridgeline.plugins.text is not allowed to import ridgeline.plugins.images" in done.stdout
