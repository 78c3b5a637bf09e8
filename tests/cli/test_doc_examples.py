"""Every example in README.md and docs/*.md runs as written: the fenced ``sh``, ``bash`` and ``python`` blocks of
each file, in a folder holding the demo log directory as ``runs`` (what ``ridgeline demo --logdir runs`` writes),
with this environment's ``ridgeline`` on the PATH.

A file's blocks run in the file's order: consecutive Python blocks in one interpreter, sharing one namespace (as
a reader follows them), consecutive shell blocks in one ``bash -e``. A block that cannot run here (it serves until
stopped, needs a GPU, a second process, object storage or the network, installs packages, or is a fragment of the
reader's own training script) says so with ``<!-- not-run: why -->`` on the line right before its fence; the
reason is required.
docs/integrations.md's examples need Lightning, Transformers and Keras, and run in their own test
(tests/integrations/test_docs.py).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest

from ridgeline.fixtures.demo import write_demo

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ELSEWHERE = {"docs/integrations.md": ROOT / "tests" / "integrations" / "test_docs.py"}
RUN = {"sh": "shell", "bash": "shell", "python": "python"}
FENCE = re.compile(r"^```(\w*)\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
NOT_RUN = re.compile(r"<!--\s*not-run:(.*?)-->")

# Runs a file's Python blocks (JSON on stdin) in one namespace; names the block that failed.
HARNESS = """
import sys, traceback
import orjson
namespace = {"__name__": "__main__"}
for number, code in orjson.loads(sys.stdin.buffer.read()):
    try:
        exec(compile(code, f"<python example {number}>", "exec"), namespace)
    except BaseException:
        print(f"python example {number} failed:\\n{code}", file=sys.stderr)
        traceback.print_exc()
        sys.exit(1)
"""


@dataclass(frozen=True)
class Block:
    doc: str  # the file, relative to the repository
    number: int  # its position among the file's blocks (1-based)
    language: str  # "shell" or "python"
    code: str
    not_run: str | None  # the reason, when marked


def blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    found = []
    for number, match in enumerate(FENCE.finditer(text), start=1):
        language = RUN.get(match.group(1))
        if language is None:
            continue
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marked = NOT_RUN.fullmatch(before.strip())
        reason = marked.group(1).strip() if marked else None
        found.append(Block(path.relative_to(ROOT).as_posix(), number, language, match.group(2), reason))
    return found


def documents() -> list[str]:
    return [path.relative_to(ROOT).as_posix() for path in DOCS if path.relative_to(ROOT).as_posix() not in ELSEWHERE]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("doc_examples_demo")
    write_demo(folder / "runs", steps=200, seed=0)
    return folder


@pytest.fixture
def workdir(demo: Path, tmp_path: Path) -> Path:
    """A folder of its own for each document, holding a copy of the demo: a document's examples never depend on
    what another document's examples wrote (docs/runs.md once read a run only README.md's example writes, and
    passed or failed by which of them the same pytest worker had run first)."""
    folder = tmp_path / "work"
    shutil.copytree(demo, folder)
    return folder


def environment(workdir: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("RIDGELINE_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["RIDGELINE_CACHE_DIR"] = str(workdir / ".cache")  # never the user's ~/.cache
    env["MPLBACKEND"] = "Agg"
    return env


def test_every_marked_block_says_why() -> None:
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for mark in NOT_RUN.finditer(text):
            assert mark.group(1).strip(), f"{path.name}: a not-run mark without its reason"
        marks = len(NOT_RUN.findall(text))
        assert marks == sum(b.not_run is not None for b in blocks(path)), (
            f"{path.name}: every not-run mark is on the line right before a sh, bash or python block"
        )
    for doc, test in ELSEWHERE.items():
        assert test.is_file() and doc.rsplit("/", 1)[-1] in test.read_text(), (doc, test)


SERVER_URL = re.compile(r"https?://(?:127\.0\.0\.1|localhost):\d+")


def test_no_runnable_block_asks_a_server_it_did_not_start() -> None:
    # Such a block passes or fails by whatever happens to listen on that port of the machine running the tests
    # (it passed here while a demo server ran, and failed on CI's clean machine): it is marked not-run instead.
    for path in DOCS:
        for block in blocks(path):
            if block.not_run is None and "ridgeline serve" not in block.code:
                assert not SERVER_URL.search(block.code), (
                    f"{block.doc}: example {block.number} asks a server on this machine that no example starts; "
                    "mark it <!-- not-run: asks a server already running on port 6006 -->"
                )


@pytest.mark.slow
@pytest.mark.parametrize("doc", documents())
def test_the_examples_run_as_written(doc: str, workdir: Path) -> None:
    runnable = [block for block in blocks(ROOT / doc) if block.not_run is None]
    env = environment(workdir)
    for group in consecutive(runnable):
        if group[0].language == "python":
            run_python(doc, group, workdir, env)
        else:
            run_shell(doc, group, workdir, env)


def consecutive(runnable: list[Block]) -> list[list[Block]]:
    """The blocks in the document's order, consecutive blocks of one language together."""
    groups: list[list[Block]] = []
    for block in runnable:
        if groups and groups[-1][0].language == block.language:
            groups[-1].append(block)
        else:
            groups.append([block])
    return groups


def run_python(doc: str, group: list[Block], workdir: Path, env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", HARNESS],
        input=orjson.dumps([(block.number, block.code) for block in group]),
        cwd=workdir,
        env=env,
        capture_output=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{doc}: {done.stderr.decode(errors='replace')[-6000:]}"


def run_shell(doc: str, group: list[Block], workdir: Path, env: dict[str, str]) -> None:
    bash = shutil.which("bash")
    assert bash is not None
    script = "".join(f"echo '::example {block.number}' >&2\n{block.code}\n" for block in group)
    done = subprocess.run(
        [bash, "-e", "-o", "pipefail", "-c", script], cwd=workdir, env=env, capture_output=True, timeout=300
    )
    stderr = done.stderr.decode(errors="replace")
    failed = re.findall(r"::example (\d+)", stderr)
    number = int(failed[-1]) if failed else 0
    code = next((block.code for block in group if block.number == number), "")
    assert done.returncode == 0, f"{doc}: shell example {number} failed:\n{code}\n{stderr[-6000:]}"
