"""docs/plugins.md's web half runs as written: the module it shows is the example's, the API types it gives authors
are the ones the page is typechecked against, and its TypeScript recipe typechecks and builds into a module whose
default export makes a dashboard (tests/browser/test_plugin_web.py opens its tab in the page)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.plugins.installed_example import (
    EXAMPLE,
    NODE_MODULES,
    build_typescript_recipe,
    docs_section,
    recipe_files,
)

ROOT = Path(__file__).parents[2]


def test_the_docs_show_the_example_module_as_it_is() -> None:
    shown = docs_section("Plain JavaScript, no build step")
    module = (EXAMPLE / "ridgeline_hello" / "web" / "index.js").read_text()
    assert f"```js\n{module}```" in shown


def test_the_docs_give_authors_the_api_types_the_page_implements() -> None:
    assert recipe_files()["src/ridgeline.ts"] == (ROOT / "web" / "src" / "app" / "pluginTypes.ts").read_text()


@pytest.mark.slow
def test_the_typescript_recipe_builds_into_a_module_ridgeline_serves(tmp_path: Path) -> None:
    if not (NODE_MODULES / ".bin" / "vite").exists():
        pytest.skip("node_modules is missing: `make build-web` (which `make test` runs first) installs it with npm ci")
    built = build_typescript_recipe(tmp_path / "project") / "index.js"
    assert built.read_text() != (EXAMPLE / "ridgeline_hello" / "web" / "index.js").read_text()
    probe = (
        f"const m = await import({json.dumps(built.as_uri())});"
        "const d = await m.default({});"
        "console.log(JSON.stringify([typeof m.default, d.title, typeof d.render, typeof d.unmount, d.component]));"
    )
    made = subprocess.run(
        ["node", "--input-type=module", "-e", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout) == ["function", "Hello", "function", "function", None]
