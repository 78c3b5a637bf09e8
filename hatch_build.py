"""Hatch build hook: the wheel ships the built web UI (src/ridgeline/_static/, git-ignored).

When a wheel is built and _static/ holds no build yet, this runs the same steps as `make build-web` (npm ci if
node_modules is missing, typecheck, vite build), so `pip wheel .` or `python -m build` on a fresh checkout gives a
wheel whose server has a UI to serve. Editable installs skip it: they serve the working tree's _static/, which
`make build-web` keeps fresh. The sdist carries the web sources, so a wheel built from it builds the UI the same way.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

STATIC = "src/ridgeline/_static"


class WebBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        root = Path(self.root)
        if not (root / STATIC / "index.html").is_file():
            build_web(root)
        # _static/ is git-ignored, so hatch would leave it out; artifacts bring ignored files in.
        build_data["artifacts"].append(f"{STATIC}/**")


def build_web(root: Path) -> None:
    """npm ci (when node_modules is missing), then typecheck and vite build, in ``root``."""
    npm = shutil.which("npm")
    npx = shutil.which("npx")
    if npm is None or npx is None:
        raise RuntimeError(
            "building the ridgeline wheel needs the web UI in src/ridgeline/_static/, and building that needs "
            "Node.js (20 or newer) and npm: install them (on Debian: apt-get install nodejs npm), or run "
            "`make build-web` on a machine that has them before building the wheel."
        )
    if not (root / "node_modules" / ".package-lock.json").is_file():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=root, check=True)
    subprocess.run([npx, "--no-install", "tsc", "--noEmit"], cwd=root, check=True)
    subprocess.run([npx, "--no-install", "vite", "build", "--logLevel", "warn"], cwd=root, check=True)
