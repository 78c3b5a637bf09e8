"""The web UI's API types (web/src/api/schema.gen.ts) are generated from the server's OpenAPI spec: this fails when
the committed file is not what the current spec generates (a route, parameter, model or docstring changed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "web" / "src" / "api" / "schema.gen.ts"
REGENERATE = ".venv/bin/python scripts/gen_api_types.py"


@pytest.mark.slow
def test_committed_api_types_match_the_openapi_spec(tmp_path: Path) -> None:
    if not (ROOT / "node_modules" / ".bin" / "openapi-typescript").exists():
        pytest.skip("node_modules is missing: `make build-web` (which `make test` runs first) installs it with npm ci")
    fresh = tmp_path / "schema.gen.ts"
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_api_types.py"), "--out", str(fresh)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert fresh.read_text(encoding="utf-8") == COMMITTED.read_text(encoding="utf-8"), (
        f"{COMMITTED.relative_to(ROOT)} is stale: the OpenAPI spec changed. Regenerate it with `{REGENERATE}` "
        "(or `make api-types`), then `make build-web` typechecks the UI against it; commit the result."
    )
