"""Hatch build hook: the compiled core, and the built web UI in the wheel.

The compiled core (``build_core.py``: the record loop and the histogram count, C extensions) is built by every
build: for the editable install (``pip install -e .``, which ``make serve`` and ``make test`` run) next to its
sources in src/ (git-ignored), so the working tree imports it; for a wheel into a build folder, and shipped in
the wheel, which is then specific to its platform and Python. Without a C compiler or Python's headers the build
goes on without it and warns: ridgeline then takes its numpy paths (same results, slower).
``RIDGELINE_BUILD_CORE=required`` makes that an error (the Makefile sets it), ``=skip`` does not try.

The web UI: when a wheel is built and src/ridgeline/_static/ holds no build yet, this runs the same steps as
`make build-web` (npm ci if node_modules is missing, typecheck, vite build), so `pip wheel .` or `python -m build`
on a fresh checkout gives a wheel whose server has a UI to serve. Editable installs skip it: they serve the
working tree's _static/, which `make build-web` keeps fresh. The sdist carries the web and C sources, so a wheel
built from it builds both the same way.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

STATIC = "src/ridgeline/_static"
BUILD_CORE = "RIDGELINE_BUILD_CORE"


class BuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        self.build_core(root, version, build_data)
        if version == "editable":
            return
        if not (root / STATIC / "index.html").is_file():
            build_web(root)
        # _static/ is git-ignored, so hatch would leave it out; artifacts bring ignored files in.
        build_data["artifacts"].append(f"{STATIC}/**")

    def build_core(self, root: Path, version: str, build_data: dict[str, Any]) -> None:
        mode = os.environ.get(BUILD_CORE, "optional")
        if mode not in ("optional", "required", "skip"):
            raise RuntimeError(f"{BUILD_CORE} must be optional, required or skip, got {mode!r}")
        if mode == "skip":
            return
        core = _load_build_core(root)
        self._temp = tempfile.TemporaryDirectory(prefix="ridgeline-core-")  # kept until the build finishes
        build_dir = Path(self._temp.name)
        try:
            built = core.build(inplace=version == "editable", build_dir=build_dir, root=root)
        except Exception as error:  # setuptools raises CompileError, LinkError, or a missing-compiler error
            message = (
                f"ridgeline's compiled core could not be built ({type(error).__name__}: {error}). It needs a C "
                "compiler and Python's headers (on Debian: apt-get install gcc python3-dev)."
            )
            if mode == "required":
                raise RuntimeError(message + f" Unset {BUILD_CORE} to build without it.") from error
            self.app.display_warning(message + " ridgeline will use its numpy paths (slower, same results).")
            return
        if version == "editable":
            return
        for path in built:
            build_data["force_include"][str(path)] = str(path.relative_to(build_dir))
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        temp = getattr(self, "_temp", None)
        if temp is not None:
            temp.cleanup()


def _load_build_core(root: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("ridgeline_build_core", root / "build_core.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


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
