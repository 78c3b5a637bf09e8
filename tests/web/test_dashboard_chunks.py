"""The built UI loads each dashboard's code on demand (web/src/app/lazyDashboard.tsx): the shell's entry and what
index.html preloads hold no dashboard's component and not marked, and boot.js knows, for every built-in
dashboard, the chunk files to fetch when the page opens on its tab (vite.config.ts writes them into it)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "src" / "ridgeline" / "_static"
PLUGINS = ROOT / "src" / "ridgeline" / "plugins"
# A message of marked's own (kept by the minifier): the file that holds it holds marked.
MARKED = "input parameter is undefined or null"


@pytest.fixture(scope="module")
def built() -> Path:
    if not (STATIC / "index.html").is_file():
        pytest.skip("the web UI is not built: `make build-web` (which `make test` runs first) builds it")
    return STATIC


def chunk_map(static: Path) -> dict[str, list[str]]:
    match = re.search(r"var chunks = (\{.*?\});", (static / "boot.js").read_text())
    assert match, "boot.js has no chunk map: the build did not write it (vite.config.ts, dashboardChunks)"
    return json.loads(match.group(1))


def shell_files(static: Path) -> list[str]:
    """The scripts index.html loads or preloads (paths relative to _static)."""
    html = (static / "index.html").read_text()
    return [p.removeprefix("./") for p in re.findall(r'(?:src|href)="(\./assets/[^"]+\.js)"', html)]


def test_boot_js_names_each_built_in_dashboards_chunks(built: Path) -> None:
    folders = {p.parent.parent.name for p in PLUGINS.glob("*/web/index.ts*")}
    chunks = chunk_map(built)
    assert set(chunks) == folders
    shell = set(shell_files(built))
    for name, files in chunks.items():
        assert files, name
        assert all((built / f).is_file() for f in files), (name, files)
        assert not shell & set(files), f"{name}: the shell's own files are listed again"


def test_the_shell_loads_no_dashboard_and_not_marked(built: Path) -> None:
    shell = shell_files(built)
    assert any(Path(f).name.startswith("index-") for f in shell), shell
    for f in shell:
        code = (built / f).read_text()
        assert MARKED not in code, f"{f} holds marked: markdown must load with the text and Runs dashboards only"
    dashboards = {Path(files[0]).name for files in chunk_map(built).values()}
    assert not dashboards & {Path(f).name for f in shell}
    holders = [f.name for f in (built / "assets").glob("*.js") if MARKED in f.read_text()]
    assert len(holders) == 1, holders
    for name, files in chunk_map(built).items():
        wanted = name in ("text", "runs")
        assert any(Path(f).name == holders[0] for f in files) == wanted, name
