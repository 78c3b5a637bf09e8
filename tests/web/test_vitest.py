"""The TypeScript unit tests (vitest: web/src/**/*.test.ts and src/ridgeline/plugins/*/web/**/*.test.ts), run as
part of the Python suite so `make test` covers both halves of the code."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_vitest_suite_passes(tmp_path: Path) -> None:
    if not (ROOT / "node_modules" / ".bin" / "vitest").exists():
        pytest.skip("node_modules is missing: `make build-web` (which `make test` runs first) installs it with npm ci")
    npx = shutil.which("npx")
    assert npx is not None, "node_modules exists but npx is not on PATH"
    report = tmp_path / "vitest.json"
    result = subprocess.run(
        [npx, "--no-install", "vitest", "run", "--reporter=default", "--reporter=json", f"--outputFile.json={report}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = (result.stdout + result.stderr)[-8000:]
    assert result.returncode == 0, f"vitest failed:\n{output}"
    summary = json.loads(report.read_text())
    assert summary["numTotalTests"] > 0, f"vitest ran no test:\n{output}"
    assert summary["numFailedTests"] == 0, output
