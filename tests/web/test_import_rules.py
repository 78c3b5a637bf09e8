"""The web UI's layer rules (.dependency-cruiser.cjs, checked by dependency-cruiser): a dashboard imports only its
own folder, the shell's library in web/src/ and npm packages; the shell imports no dashboard. The first test checks
the real tree; the second shows on a small tree of its own that each rule catches what it is for."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CRUISER = ROOT / "node_modules" / ".bin" / "depcruise"
CONFIG = ".dependency-cruiser.cjs"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not CRUISER.exists(),
        reason="node_modules is missing: `make build-web` (which `make test` runs first) installs it with npm ci",
    ),
]


def cruise(cwd: Path, *paths: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CRUISER), *paths, "--config", CONFIG, "--output-type", "json"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def violations(result: subprocess.CompletedProcess[str]) -> set[tuple[str, str, str]]:
    """(rule, from, to) of every violation dependency-cruiser reported."""
    report = json.loads(result.stdout)
    return {(v["rule"]["name"], v["from"], v["to"]) for v in report["summary"]["violations"]}


def test_the_web_ui_keeps_its_layer_rules() -> None:
    result = cruise(ROOT, "web/src", "src/ridgeline/plugins")
    found = violations(result)
    assert not found, "import rules broken (see .dependency-cruiser.cjs for why each holds):\n" + "\n".join(
        f"  {rule}: {source} -> {target}" for rule, source, target in sorted(found)
    )
    assert json.loads(result.stdout)["summary"]["totalCruised"] > 100, "the cruiser found almost no module"


FILES = {
    "web/src/app/App.tsx": "export const App = 1;\n",
    "web/src/app/types.ts": "export type RunInfo = { run: string };\n",
    "web/src/charts/plot.ts": "export const plot = 1;\n",
    "src/ridgeline/plugins/b/web/thing.ts": "export const thing = 1;\nexport type Thing = number;\n",
    "src/ridgeline/plugins/a/web/own.ts": "export const own = 1;\n",
    "scripts/tool.ts": "export const tool = 1;\n",
    # Allowed: its own folder, the shell's library, the dashboard contract, an npm package.
    "src/ridgeline/plugins/a/web/good.ts": (
        'import { own } from "./own";\nimport { plot } from "@charts/plot";\n'
        'import type { RunInfo } from "@app/types";\nimport { h } from "preact";\n'
        "export const good = [own, plot, h] as unknown as RunInfo;\n"
    ),
    "src/ridgeline/plugins/a/web/borrows.ts": 'import { thing } from "../../b/web/thing";\nexport const x = thing;\n',
    "src/ridgeline/plugins/a/web/borrowsType.ts": (
        'import type { Thing } from "../../b/web/thing";\nexport const y: Thing = 1;\n'
    ),
    "src/ridgeline/plugins/a/web/wiring.ts": 'import { App } from "@app/App";\nexport const z = App;\n',
    "src/ridgeline/plugins/a/web/outside.ts": (
        'import { tool } from "../../../../../scripts/tool";\nexport const t = tool;\n'
    ),
    "src/ridgeline/plugins/a/web/typo.ts": 'import { gone } from "./gone";\nexport const g = gone;\n',
    "web/src/charts/usesDashboard.ts": (
        'import { thing } from "../../../src/ridgeline/plugins/b/web/thing";\nexport const u = thing;\n'
    ),
    "web/src/charts/usesShell.ts": 'import { App } from "@app/App";\nexport const v = App;\n',
}

A = "src/ridgeline/plugins/a/web"
B_THING = "src/ridgeline/plugins/b/web/thing.ts"
EXPECTED = {
    ("dashboard-imports-another-dashboard", f"{A}/borrows.ts", B_THING),
    ("dashboard-imports-another-dashboard", f"{A}/borrowsType.ts", B_THING),
    ("dashboard-imports-the-shell-wiring", f"{A}/wiring.ts", "web/src/app/App.tsx"),
    ("dashboard-imports-outside-its-layer", f"{A}/outside.ts", "scripts/tool.ts"),
    ("not-to-unresolvable", f"{A}/typo.ts", "./gone"),
    ("shell-imports-a-dashboard", "web/src/charts/usesDashboard.ts", B_THING),
    ("library-imports-the-shell-wiring", "web/src/charts/usesShell.ts", "web/src/app/App.tsx"),
}


def test_each_rule_catches_what_it_is_for(tmp_path: Path) -> None:
    for name in (CONFIG, "tsconfig.json"):
        shutil.copy(ROOT / name, tmp_path / name)
    os.symlink(ROOT / "node_modules", tmp_path / "node_modules")
    for path, text in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    found = violations(cruise(tmp_path, "web", "src", "scripts"))
    assert found == EXPECTED, f"missing: {sorted(EXPECTED - found)}\nunexpected: {sorted(found - EXPECTED)}"
