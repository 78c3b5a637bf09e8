"""The example third-party plugin (examples/plugins/ridgeline-hello) installed the way pip leaves it, without pip:
its package copied into a ``site-packages`` folder beside a ``.dist-info`` that declares its entry points, which is
what :func:`importlib.metadata.entry_points` reads. On ``sys.path`` (or ``PYTHONPATH``, for a server in a
subprocess) the folder makes ridgeline find the plugin as it finds its own dashboards."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

EXAMPLE = Path(__file__).parents[2] / "examples" / "plugins" / "ridgeline-hello"


def install_example(site: Path) -> Path:
    """``site`` (created) holding ridgeline_hello and its dist-info; returns the installed package folder."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    package = site / "ridgeline_hello"
    shutil.copytree(EXAMPLE / "ridgeline_hello", package, ignore=shutil.ignore_patterns("__pycache__"))
    info = site / f"ridgeline_hello-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    points = project["entry-points"]["ridgeline.plugins"]
    (info / "entry_points.txt").write_text(
        "[ridgeline.plugins]\n" + "".join(f"{name} = {target}\n" for name, target in points.items())
    )
    return package


# --- docs/plugins.md's TypeScript recipe ----------------------------------------------------------------------
DOCS = Path(__file__).parents[2] / "docs" / "plugins.md"
NODE_MODULES = Path(__file__).parents[2] / "node_modules"
# A paragraph that starts with a file's path in backticks, then the fenced block that is that file.
_NAMED_BLOCK = re.compile(r"(?<=\n\n)`([\w./-]+)`[^\n]*(?:\n[^\n]+)*\n\n```\w*\n(.*?)\n```\n", re.DOTALL)


def docs_section(title: str) -> str:
    """The text of docs/plugins.md's section ``### title`` (up to the next heading of any level)."""
    text = DOCS.read_text()
    heading = f"\n### {title}\n"
    start = text.index(heading) + len(heading)
    following = re.compile(r"^#{1,3} ", re.MULTILINE).search(text, start)
    return text[start : following.start()] if following else text[start:]


def recipe_files() -> dict[str, str]:
    """The files the TypeScript recipe names, as docs/plugins.md writes them."""
    return {path: body + "\n" for path, body in _NAMED_BLOCK.findall(docs_section("TypeScript, built with Vite"))}


def build_typescript_recipe(project: Path) -> Path:
    """The example with the recipe's files beside it in ``project``, typechecked and built with ridgeline's own
    node_modules (the versions the recipe pins); returns the built web folder."""
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__"))
    for path, body in recipe_files().items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(body)
    (project / "node_modules").symlink_to(NODE_MODULES)
    for command in (["tsc", "-p", "."], ["vite", "build", "--logLevel", "warn"]):
        done = subprocess.run(
            [str(NODE_MODULES / ".bin" / command[0]), *command[1:]],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-4000:]}{done.stderr[-4000:]}"
    return project / "ridgeline_hello" / "web"
