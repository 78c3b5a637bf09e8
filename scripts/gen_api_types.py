"""Regenerates the web UI's API types (web/src/api/schema.gen.ts) from the server's OpenAPI spec.

The spec is the one `/api/openapi.json` serves: `create_app` over an empty log directory, every built-in plugin
registered. openapi-typescript (a pinned devDependency) turns it into TypeScript; web/src/api/types.ts derives the
UI's request and answer types from it. The output is committed; tests/web/test_api_types.py fails when it is stale.

    .venv/bin/python scripts/gen_api_types.py            # rewrite web/src/api/schema.gen.ts
    .venv/bin/python scripts/gen_api_types.py --out F    # write F instead (the staleness test)
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "web" / "src" / "api" / "schema.gen.ts"


def openapi_spec() -> dict[str, Any]:
    """The spec of an app over an empty log directory (routes and their models do not depend on the data)."""
    import ridgeline
    from ridgeline.server import create_app

    with tempfile.TemporaryDirectory(prefix="ridgeline-openapi-") as logdir:
        spec: dict[str, Any] = create_app(ridgeline.open(logdir)).openapi()
    return spec


def generate(out: Path) -> None:
    npx = shutil.which("npx")
    if npx is None or not (ROOT / "node_modules" / ".bin" / "openapi-typescript").exists():
        sys.exit("openapi-typescript is not installed: run `npm ci` (or `make build-web`) first")
    with tempfile.TemporaryDirectory(prefix="ridgeline-openapi-") as tmp:
        spec_file = Path(tmp) / "openapi.json"
        spec_file.write_text(json.dumps(openapi_spec(), indent=2, sort_keys=True), encoding="utf-8")
        result = subprocess.run(
            [npx, "--no-install", "openapi-typescript", str(spec_file), "--output", str(out)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
    if result.returncode != 0:
        sys.exit(f"openapi-typescript failed:\n{result.stdout}{result.stderr}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUTPUT, help=f"where to write the types (default: {OUTPUT})")
    generate(parser.parse_args().out.resolve())


if __name__ == "__main__":
    main()
