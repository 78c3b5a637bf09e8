"""Symbolic links in a log directory, on real files: a loop never makes the walk endless, a link never leads the
reader out of the log directory, and what was not followed is listed as a problem.

The loops are built so that a walk that follows them grows exponentially (two links to the root in every
directory): a walk with a loop check finishes, one without never does. ``ridgeline.open`` runs in a subprocess
so that a regression fails the test (after a generous limit against hangs) instead of hanging the suite.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import ridgeline
from tests.conftest import WAIT_S, write_ridgeline_run
from tests.server.conftest import serving

OPEN_IN_A_SUBPROCESS = """
import json, sys
import ridgeline
opened = ridgeline.open(sys.argv[1], cache=False)
print(json.dumps({
    "runs": opened.runs(),
    "loss": {
        run: len(opened.scalars(run, "loss").step)
        for run in opened.runs()
        if "loss" in opened.tags(run).get("scalars", [])
    },
    "problems": [[p.path, p.reason] for p in opened.problems()],
}))
"""


def open_in_subprocess(logdir: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", OPEN_IN_A_SUBPROCESS, str(logdir)],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=True,
    )
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def looping_logdir(root: Path) -> Path:
    """Two runs; in every directory two links back to the log directory and one to the directory itself."""
    logdir = root / "logs"
    write_ridgeline_run(logdir / "a", {"loss": [(0, 1.0), (1, 0.5)]})
    write_ridgeline_run(logdir / "a" / "b", {"loss": [(0, 2.0)]})
    for directory in (logdir, logdir / "a", logdir / "a" / "b"):
        (directory / "up").symlink_to(logdir, target_is_directory=True)
        (directory / "up2").symlink_to(logdir, target_is_directory=True)
        (directory / "self").symlink_to(".", target_is_directory=True)
    return logdir


def test_symlink_loops_end_and_each_run_is_read_once(tmp_path: Path) -> None:
    opened = open_in_subprocess(looping_logdir(tmp_path))
    assert opened["runs"] == ["a", "a/b"]
    assert opened["loss"] == {"a": 2, "a/b": 1}
    reasons = [reason for _, reason in opened["problems"]]
    assert len(reasons) == 9 and all("a loop" in reason for reason in reasons), reasons


def test_links_out_of_the_log_directory_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    write_ridgeline_run(outside / "secret", {"loss": [(step, 9.0) for step in range(7)]})
    logdir = tmp_path / "logs"
    write_ridgeline_run(logdir / "mine", {"loss": [(0, 1.0)]})
    (logdir / "linked_run").symlink_to(outside / "secret", target_is_directory=True)
    (logdir / "everything").symlink_to(tmp_path, target_is_directory=True)
    (outside_file,) = (outside / "secret").iterdir()
    (logdir / "mine" / outside_file.name.replace("tfevents", "tfevents.linked")).symlink_to(outside_file)
    (logdir / "mine" / "events.out.tfevents.dangling").symlink_to(tmp_path / "missing")

    opened = open_in_subprocess(logdir)

    assert opened["runs"] == ["mine"]
    assert opened["loss"] == {"mine": 1}  # the linked file's 7 points were not read
    problems = dict(opened["problems"])
    linked = str(logdir / "mine" / outside_file.name.replace("tfevents", "tfevents.linked"))
    assert problems[linked].startswith("is a link out of the log directory")
    assert str(logdir / "mine" / "events.out.tfevents.dangling") in problems
    for name in ("linked_run", "everything"):  # the directory links leading out: named, so a missing run is explained
        assert problems[str(logdir / name)].startswith("is a link out of the log directory")
    assert len(problems) == 4


def test_links_inside_the_log_directory_add_no_duplicate(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    write_ridgeline_run(logdir / "exp1", {"loss": [(5, 1.0)]})
    write_ridgeline_run(logdir / "exp3", {"loss": [(0, 3.0), (1, 2.0)]})
    (logdir / "latest").symlink_to(logdir / "exp3", target_is_directory=True)
    (event_file,) = (logdir / "exp1").iterdir()
    (logdir / "exp3" / "events.out.tfevents.copy").symlink_to(event_file)  # a file link that stays inside

    opened = ridgeline.open(logdir, cache=False)

    assert opened.runs() == ["exp1", "exp3"]
    assert opened.scalars("exp3", "loss").step.tolist() == [0, 1, 5]  # its own two points and the linked file's
    assert opened.problems() == []


def test_a_log_directory_that_is_a_link_is_read(tmp_path: Path) -> None:
    write_ridgeline_run(tmp_path / "data" / "run", {"loss": [(0, 1.0)]})
    (tmp_path / "logs").symlink_to(tmp_path / "data", target_is_directory=True)
    opened = ridgeline.open(tmp_path / "logs", cache=False)
    assert opened.runs() == ["run"]
    assert opened.problems() == []


def test_serve_answers_over_a_log_directory_with_loops(tmp_path: Path) -> None:
    logdir = looping_logdir(tmp_path)
    with serving("--logdir", str(logdir), "--port", "0", "--no-cache") as served:
        runs = served.get("/api/runs").json()
    assert [run["run"] for run in runs["runs"]] == ["a", "a/b"]
