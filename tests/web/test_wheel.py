"""The wheel ships the built web UI: `pip wheel .` runs hatch_build.py, which adds src/ridgeline/_static/
(git-ignored, so hatch would otherwise leave it out) as ridgeline/_static/ inside the wheel."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "src" / "ridgeline" / "_static"


@pytest.mark.slow
def test_the_wheel_contains_the_built_ui(tmp_path: Path) -> None:
    if not (STATIC / "index.html").is_file():
        pytest.skip("the web UI is not built: `make build-web` (which `make test` runs first) builds it")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    (wheel,) = tmp_path.glob("ridgeline-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "ridgeline/_static/index.html" in names
    built = {f"ridgeline/_static/{p.relative_to(STATIC).as_posix()}" for p in STATIC.rglob("*") if p.is_file()}
    assert built <= names, f"missing from the wheel: {sorted(built - names)}"
    assert any(n.startswith("ridgeline/_static/assets/") and n.endswith(".js") for n in names)
