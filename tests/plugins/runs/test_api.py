"""GET /api/runs/table and /api/runs/logs in process, over runs that real training scripts (subprocesses) wrote:
one that closes, one that raises, one that is killed, one still running, plus a torch-style run with a README."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import ridgeline
from ridgeline.plugins.runs.notes import run_tags, split_note
from ridgeline.services import runs as run_index
from ridgeline.writer import event_file
from tests.plugins.conftest import Api, in_process

pytestmark = pytest.mark.slow

SCRIPT = """
import sys
from ridgeline import SummaryWriter

writer = SummaryWriter(sys.argv[1], capture_console=True, hparams={"lr": float(sys.argv[3])})
writer.add_note("Smaller **learning rate**", tags=["baseline", "lr-sweep"])
for step in range(4):
    writer.add_scalar("loss", 1.0 / (step + 1), step)
    writer.add_scalar("acc", step / 4, step)
    print(f"step {step} loss {1.0 / (step + 1):.3f}")
    print(f"warning {step}", file=sys.stderr)
writer.flush()
ending = sys.argv[2]
if ending == "close":
    writer.close()
elif ending == "raise":
    raise RuntimeError("the loader broke")
else:
    print("ready", flush=True)
    sys.stdin.readline()
"""


def start(logdir: Path, run: str, ending: str, lr: float) -> subprocess.Popen[str]:
    script = logdir.parent / "train.py"
    script.write_text(SCRIPT)
    return subprocess.Popen(
        [sys.executable, str(script), str(logdir / run), ending, str(lr)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_ready(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    while process.stdout.readline() != "ready\n":
        assert process.poll() is None, "the training script ended before it was ready"


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    root = tmp_path_factory.mktemp("runs") / "logs"
    root.mkdir()
    for run, ending, lr in (("finished", "close", 0.1), ("failed", "raise", 0.2)):
        start(root, run, ending, lr).communicate(timeout=120)
    killed = start(root, "crashed", "wait", 0.3)
    wait_ready(killed)
    killed.kill()
    killed.communicate(timeout=120)
    live = start(root, "live", "wait", 0.4)
    wait_ready(live)
    (root / "torch").mkdir()
    with ridgeline.SummaryWriter(root / "torch", record_run_metadata=False) as torch_like:
        torch_like.add_scalar("loss", 0.5, 10)
    (root / "torch" / "README.md").write_text("tags: [reference]\n# The reference run\n<script>x</script>")
    try:
        yield root, live
    finally:
        live.kill()
        live.communicate(timeout=120)


@pytest.fixture(scope="module")
def api(logdir: tuple[Path, subprocess.Popen[str]]) -> Iterator[Api]:
    with in_process(logdir[0], settings={"crashed_after": 0.0}) as client:  # no write since: crashed at once
        yield client


@pytest.fixture(scope="module")
def patient_api(logdir: tuple[Path, subprocess.Popen[str]]) -> Iterator[Api]:
    with in_process(logdir[0]) as client:  # the default while: a live run is running
        yield client


def rows(api: Api, **params: object) -> dict[str, dict[str, object]]:
    response = api.get("/api/runs/table", **params)
    assert response.status_code == 200, response.text
    return {row["run"]: row for row in response.json()["runs"]}


def test_each_run_has_its_status(api: Api, patient_api: Api) -> None:
    assert {run: row["status"] for run, row in rows(api).items()} == {
        "finished": "finished",
        "failed": "failed",
        "crashed": "crashed",
        "live": "crashed",  # with crashed_after 0 even a live run is "quiet for a while"
        "torch": "finished",  # its writer was closed: ridgeline's, with the run metadata off
    }
    patient = rows(patient_api)
    assert (patient["live"]["status"], patient["crashed"]["status"]) == ("running", "running")
    listed = {run["run"]: run["status"] for run in patient_api.get("/api/runs").json()["runs"]}
    assert listed["live"] == "running" and listed["failed"] == "failed"  # the run selector's badge


def test_rows_carry_times_steps_hparams_metrics_notes_and_tags(api: Api) -> None:
    response = api.get("/api/runs/table", metrics="loss\nacc\nnope")
    body = response.json()
    assert body["scalar_tags"] == ["acc", "loss"]
    assert body["metrics"] == ["loss", "acc", "nope"]
    row = {r["run"]: r for r in body["runs"]}["finished"]
    assert row["last_step"] == 3
    assert row["hparams"] == {"lr": 0.1}
    assert row["metrics"] == {"loss": 0.25, "acc": 0.75, "nope": None}
    assert row["notes"] == ["Smaller **learning rate**"]
    assert row["tags"] == ["baseline", "lr-sweep"]
    assert row["start_time"] <= row["end_time"] and row["duration"] == row["end_time"] - row["start_time"]
    assert row["traceback"] is None and row["has_logs"] is True
    torch = {r["run"]: r for r in body["runs"]}["torch"]
    assert torch["tags"] == ["reference"]
    assert torch["notes"] == ["# The reference run\n<script>x</script>"]  # as written: the page sanitises
    assert torch["has_logs"] is False


def test_failed_and_crashed_rows_show_their_traceback(api: Api) -> None:
    table = rows(api)
    failed = table["failed"]
    assert failed["error"] == "RuntimeError: the loader broke"
    assert str(failed["traceback"]).startswith("Traceback (most recent call last):")
    assert str(failed["traceback"]).endswith("RuntimeError: the loader broke")
    assert table["crashed"]["traceback"] is None  # killed: nothing was printed, nothing recorded


def test_logs_are_the_captured_lines_with_stream_step_and_time(api: Api) -> None:
    body = api.get("/api/runs/logs", run="finished").json()
    got = [(line["stream"], line["step"], line["text"]) for line in body["lines"]]
    assert got[:2] == [("stdout", 0, "step 0 loss 1.000"), ("stderr", 0, "warning 0")]
    assert len(got) == 8 and body["next"] == body["total"] == 8 and body["truncated"] is False
    assert [line["index"] for line in body["lines"]] == list(range(8))
    assert all(line["wall_time"] > 1e9 for line in body["lines"])


def test_logs_filter_by_regex_stream_and_position(api: Api) -> None:
    matched = api.get("/api/runs/logs", run="finished", regex=r"loss 0\.[35]").json()["lines"]
    assert [line["text"] for line in matched] == ["step 1 loss 0.500", "step 2 loss 0.333"]
    errors = api.get("/api/runs/logs", run="finished", stream="stderr", since=4).json()
    assert [line["text"] for line in errors["lines"]] == ["warning 2", "warning 3"]
    assert errors["next"] == 8
    assert api.get("/api/runs/logs", run="finished", since=8).json()["lines"] == []
    last = api.get("/api/runs/logs", run="finished", limit=3).json()
    assert [line["index"] for line in last["lines"]] == [5, 6, 7] and last["truncated"] is True
    failed = api.get("/api/runs/logs", run="failed", regex="^RuntimeError").json()["lines"]
    assert [line["text"] for line in failed] == ["RuntimeError: the loader broke"]


def test_logs_refuse_an_invalid_pattern_and_an_unknown_run(api: Api) -> None:
    bad = api.get("/api/runs/logs", run="finished", regex="(unclosed")
    assert bad.status_code == 400
    assert "'(unclosed' is not a valid regular expression" in bad.json()["error"]
    lookaround = api.get("/api/runs/logs", run="finished", regex="(?=x)")
    assert lookaround.status_code == 400 and "regex" in lookaround.json()["error"]
    assert api.get("/api/runs/logs", run="nope").status_code == 404
    assert api.get("/api/runs/logs", run="torch").json()["lines"] == []


def test_tags_declarations(tmp_path: Path) -> None:
    assert split_note("---\ntitle: x\ntags: a, b\n---\nbody") == (["a", "b"], "body")
    assert split_note("Tags: [x, 'y']\nrest") == (["x", "y"], "rest")
    assert split_note("no tags: here\n") == ([], "no tags: here\n")
    assert run_tags(["tags: a", "---\ntags: a, c\n---\n"]) == (["a", "c"], ["", ""])
    with ridgeline.SummaryWriter(tmp_path) as writer, pytest.raises(TypeError, match="add_note: tags"):
        writer.add_note("x", tags="baseline")


def test_the_run_listing_moves_a_status_along_without_new_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_index, "STATUS_REFRESH_S", 0.0)  # derive the statuses at every listing
    monkeypatch.setattr(event_file, "HEARTBEAT_SECS", 3600.0)  # the test moves the file's time itself
    writer = ridgeline.SummaryWriter(tmp_path / "quiet", record_run_metadata=False)
    try:
        writer.add_scalar("loss", 1.0, 1, walltime=time.time() - 3600)
        writer.flush()
        (path,) = (tmp_path / "quiet").iterdir()
        os.utime(path, (time.time() - 3600, time.time() - 3600))
        with in_process(tmp_path, settings={"crashed_after": 600.0}) as client:
            first = client.get("/api/runs").json()
            assert [(run["run"], run["status"]) for run in first["runs"]] == [("quiet", "stopped")]
            os.utime(path)  # what a live writer's heartbeat does: no byte, a new modification time
            second = client.get("/api/runs").json()
            assert second["generation"] == first["generation"]  # no new data...
            assert second["runs"][0]["status"] == "running"  # ...and yet the status moved
    finally:
        writer.close()
