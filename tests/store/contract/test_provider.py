"""The provider contract: what every backend must do, checked against what the test itself wrote.

Each test runs once per backend (see conftest.py). The log directories are written by ridgeline's own writer with
known values; the expected answers are those values, never something a backend computed.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import ridgeline
from ridgeline.fixtures.graph import demo_graph
from ridgeline.store.provider import MAX_NOTES_BYTES, Provider, RunInfo, UnknownRun, UnknownSeries, Version

OpenBackend = Callable[[Path], Provider]
WALL = 1_700_000_000.0
HPARAMS = {"lr": 0.001, "optimiser": "adam", "augment": True}


def write_scalars(directory: Path, tag: str, steps: range, *, offset: float = 0.0, **kwargs: object) -> None:
    writer = ridgeline.SummaryWriter(str(directory), **kwargs)  # type: ignore[arg-type]
    for step in steps:
        writer.add_scalar(tag, offset + step / 8, step, walltime=WALL + step)
    writer.close()


def write_every_kind(directory: Path) -> None:
    """One run with a series of every kind, at steps 0 and 1 (known values, checked below)."""
    rng = np.random.default_rng(0)
    writer = ridgeline.SummaryWriter(str(directory), hparams=HPARAMS)
    for step in (0, 1):
        wall = WALL + 10 * step
        writer.add_scalar("loss", 1.0 / (step + 1), step, walltime=wall)
        writer.add_histogram("weights", np.arange(100, dtype=np.float64) + step, step, walltime=wall)
        writer.add_image("sample", np.full((3, 4, 5), 0.5 * step), step, walltime=wall)
        writer.add_audio("tone", np.sin(np.linspace(0, 6.28, 800)), step, sample_rate=8000, walltime=wall)
        writer.add_text("notes", f"note at {step}", step, walltime=wall)
        writer.add_pr_curve("pr", rng.integers(0, 2, 50), rng.random(50), step, num_thresholds=11, walltime=wall)
        writer.add_mesh("cube", np.ones((1, 8, 3)) * (step + 1), global_step=step, walltime=wall)
        writer.add_tensor("matrix", np.eye(3) * (step + 1), step, walltime=wall)
        writer.add_confusion_matrix("confusion", [0, 1, 1], [0, 1 - step, 1], ["no", "yes"], step, walltime=wall)
    writer.add_custom_scalars({"Training": {"Loss": ["Multiline", ["loss"]]}})
    writer.add_graph(demo_graph())
    writer.add_embedding(rng.random((6, 4)), metadata=list("abcdef"), global_step=1, tag="points")
    writer.close()


# --- listing and the data of every kind ---------------------------------------------------------------------------
def test_runs_are_listed_sorted_with_their_tags(open_backend: OpenBackend, tmp_path: Path) -> None:
    write_scalars(tmp_path / "b", "loss", range(3))
    write_scalars(tmp_path / "a" / "nested", "acc", range(2))
    write_scalars(tmp_path, "top", range(1))
    provider = open_backend(tmp_path)
    assert provider.runs() == [".", "a/nested", "b"]
    assert provider.run_info("b").tags["scalars"] == ("loss",)
    assert provider.run_info("a/nested").tags["scalars"] == ("acc",)
    assert provider.label == str(tmp_path)


def test_scalars_are_the_values_written(open_backend: OpenBackend, tmp_path: Path) -> None:
    write_scalars(tmp_path / "run", "loss", range(0, 50, 5))
    series = open_backend(tmp_path).scalars("run", "loss")
    assert series.step.tolist() == list(range(0, 50, 5))
    assert series.value.tolist() == [step / 8 for step in range(0, 50, 5)]  # exact in float32
    assert series.wall_time.tolist() == [WALL + step for step in range(0, 50, 5)]
    assert len(series) == 10


def test_every_kind_decodes_to_its_payload(open_backend: OpenBackend, tmp_path: Path) -> None:
    write_every_kind(tmp_path / "run")
    provider = open_backend(tmp_path)
    info = provider.run_info("run")
    kinds = ("scalars", "histograms", "images", "audio", "text", "pr_curves", "meshes", "tensors", "graphs")
    for kind in (*kinds, "confusion_matrices"):
        assert kind in info.tags, kind

    def values(kind: str, tag: str) -> list[object]:
        return [provider.read_value("run", kind, tag, entry.ref) for entry in provider.entries("run", kind, tag)]  # type: ignore[arg-type]

    assert [entry.step for entry in provider.entries("run", "histograms", "weights")] == [0, 1]
    histograms = values("histograms", "weights")
    assert [float(h.count.sum()) for h in histograms] == [100.0, 100.0]  # type: ignore[attr-defined]
    images = values("images", "sample")
    assert [(image.width, image.height) for image in images] == [(5, 4), (5, 4)]  # type: ignore[attr-defined]
    audio = values("audio", "tone")
    assert [clip.sample_rate for clip in audio] == [8000.0, 8000.0]  # type: ignore[attr-defined]
    texts = values("text", "notes/text_summary")  # torch names text tags so
    assert [str(np.asarray(text.text).reshape(-1)[0]) for text in texts] == ["note at 0", "note at 1"]  # type: ignore[attr-defined]
    curves = values("pr_curves", "pr")
    assert [len(curve.thresholds) for curve in curves] == [11, 11]  # type: ignore[attr-defined]
    tensors = values("tensors", "matrix")
    assert [t.array.tolist() for t in tensors] == [np.eye(3).tolist(), (2 * np.eye(3)).tolist()]  # type: ignore[attr-defined]
    meshes = values("meshes", info.tags["meshes"][0])
    assert [float(np.asarray(m.data).max()) for m in meshes] == [1.0, 2.0]  # type: ignore[attr-defined]
    matrices = values("confusion_matrices", "confusion")
    assert [m.counts.tolist() for m in matrices] == [[[1, 0], [0, 2]], [[1, 0], [1, 1]]]  # type: ignore[attr-defined]
    assert {m.class_names for m in matrices} == {("no", "yes")}  # type: ignore[attr-defined]
    (graph,) = values("graphs", "__graph__")
    assert graph.format == "graph_def"  # type: ignore[attr-defined]
    assert len(graph.graph_def().node) == len(demo_graph().node)  # type: ignore[attr-defined]
    (start,) = values("hparams", "_hparams_/session_start_info")
    assert start.hparams == HPARAMS  # type: ignore[attr-defined]
    (layout,) = values("custom_scalars", "custom_scalars__config__")
    assert [category.title for category in layout.layout.category] == ["Training"]  # type: ignore[attr-defined]


def test_embeddings_are_listed_with_tag_and_step(open_backend: OpenBackend, tmp_path: Path) -> None:
    write_every_kind(tmp_path / "run")
    (embedding,) = open_backend(tmp_path).embeddings("run")
    assert (embedding.tag, embedding.step) == ("points", 1)
    assert embedding.tensors().shape == (6, 4)
    assert embedding.metadata().rows == tuple((letter,) for letter in "abcdef")


def test_notes_file_is_the_runs_readme_as_it_is_now(open_backend: OpenBackend, tmp_path: Path) -> None:
    for run in ("a", "b", "c"):
        ridgeline.SummaryWriter(str(tmp_path / run)).close()
    (tmp_path / "a" / "NOTES.md").write_text("second choice")
    (tmp_path / "a" / "README.md").write_text("# Baseline\nlr 0.1, seed 0 ✓")
    (tmp_path / "b" / "README.txt").write_bytes(b"plain \xff text" + b"x" * (MAX_NOTES_BYTES + 10))
    (tmp_path / "c" / "README.md").mkdir()  # not a file: no notes
    provider = open_backend(tmp_path)
    assert provider.notes_file("a") == "# Baseline\nlr 0.1, seed 0 ✓"
    notes_b = provider.notes_file("b")
    assert notes_b is not None and notes_b.startswith("plain \ufffd text") and len(notes_b) == MAX_NOTES_BYTES
    assert provider.notes_file("c") is None
    (tmp_path / "a" / "README.md").write_text("edited")
    assert provider.notes_file("a") == "edited"
    with pytest.raises(UnknownRun):
        provider.notes_file("nope")


def test_last_modified_is_the_newest_event_files_time_as_it_is_now(open_backend: OpenBackend, tmp_path: Path) -> None:
    import os

    for number in range(2):
        ridgeline.SummaryWriter(str(tmp_path / "run"), filename_suffix=f".{number}").close()
    first, second = sorted((tmp_path / "run").iterdir())
    os.utime(first, (1000.0, 1000.0))
    os.utime(second, (2000.0, 2000.0))
    provider = open_backend(tmp_path)
    assert provider.last_modified("run") == 2000.0
    os.utime(first, (3000.0, 3000.0))
    assert provider.last_modified("run") == 3000.0
    with pytest.raises(UnknownRun):
        provider.last_modified("nope")


def test_run_info_is_what_was_logged(open_backend: OpenBackend, tmp_path: Path) -> None:
    writer = ridgeline.SummaryWriter(str(tmp_path / "run"))  # its run-metadata record is stamped "now"
    for step in range(5):
        writer.add_scalar("loss", 1.0, step, walltime=WALL + step)
    writer.add_histogram("weights", np.arange(10), 7, walltime=WALL + 3)
    writer.add_annotation("learning rate decayed", 2, walltime=WALL + 30)
    writer.add_annotation("restarted", 3, walltime=WALL + 31)
    writer.close()
    info = open_backend(tmp_path).run_info("run")
    assert isinstance(info, RunInfo)
    assert info.name == "run"
    assert info.last_step == 7
    assert info.first_wall_time == WALL
    assert info.last_wall_time == WALL + 31  # the run metadata, written when the writer opened, does not count
    assert info.annotations == 2
    assert info.tags["histograms"] == ("weights",)
    assert "_ridgeline/annotations" in info.tags["text"]  # bookkeeping tags are part of the run info


def test_unknown_runs_and_series_are_key_errors_naming_what_exists(open_backend: OpenBackend, tmp_path: Path) -> None:
    write_scalars(tmp_path / "run", "loss", range(2))
    provider = open_backend(tmp_path)
    with pytest.raises(UnknownRun, match=r"'nope'.*'run'"):
        provider.run_info("nope")
    with pytest.raises(UnknownRun):
        provider.scalars("nope", "loss")
    with pytest.raises(UnknownSeries, match=r"'acc'.*'loss'"):
        provider.scalars("run", "acc")
    with pytest.raises(UnknownSeries):
        provider.entries("run", "images", "loss")
    with pytest.raises(UnknownSeries):
        provider.version("run", "histograms", "loss")
    assert issubclass(UnknownRun, KeyError) and issubclass(UnknownSeries, KeyError)


# --- restarts -------------------------------------------------------------------------------------------------------
def test_a_restart_hides_the_superseded_points_and_keeps_them_all(open_backend: OpenBackend, tmp_path: Path) -> None:
    write_scalars(tmp_path / "run", "loss", range(10))
    write_scalars(tmp_path / "run", "loss", range(5, 8), offset=100.0, purge_step=5)
    provider = open_backend(tmp_path)
    shown = provider.scalars("run", "loss")
    assert shown.step.tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
    assert shown.value.tolist()[5:] == [100 + step / 8 for step in range(5, 8)]
    every = provider.scalars("run", "loss", all_points=True)
    assert every.step.tolist() == [*range(10), 5, 6, 7]  # file order, nothing dropped
    assert provider.version("run", "scalars", "loss").restarts == 1


def test_a_step_written_again_replaces_the_earlier_point(open_backend: OpenBackend, tmp_path: Path) -> None:
    writer = ridgeline.SummaryWriter(str(tmp_path / "run"))
    for step, value in [(0, 1.0), (1, 2.0), (2, 3.0), (1, 20.0)]:
        writer.add_scalar("loss", value, step, walltime=WALL)
    writer.close()
    shown = open_backend(tmp_path).scalars("run", "loss")
    assert list(zip(shown.step.tolist(), shown.value.tolist(), strict=True)) == [(0, 1.0), (1, 20.0)]


# --- growth and change tokens ---------------------------------------------------------------------------------------
def test_reload_reads_appended_points_and_moves_only_their_tokens(open_backend: OpenBackend, tmp_path: Path) -> None:
    writer = ridgeline.SummaryWriter(str(tmp_path / "run"))
    for step in range(3):
        writer.add_scalar("loss", step, step, walltime=WALL + step)
        writer.add_scalar("acc", step, step, walltime=WALL + step)
    writer.flush()
    provider = open_backend(tmp_path)
    generation = provider.generation
    loss, acc = provider.version("run", "scalars", "loss"), provider.version("run", "scalars", "acc")
    assert isinstance(loss, Version) and loss.length == 3

    provider.reload()  # nothing new: nothing moves
    assert provider.generation == generation
    assert provider.version("run", "scalars", "loss") == loss

    for step in range(3, 5):
        writer.add_scalar("loss", step, step, walltime=WALL + step)
    writer.close()
    provider.reload()
    assert provider.generation > generation
    grown = provider.version("run", "scalars", "loss")
    assert (grown.epoch, grown.length) == (loss.epoch, 5)
    assert provider.version("run", "scalars", "acc") == acc  # untouched series keep their token
    assert provider.scalars("run", "loss").step.tolist() == [0, 1, 2, 3, 4]
    assert provider.run_info("run").last_step == 4


def test_a_rewritten_file_is_read_again_under_a_new_epoch(open_backend: OpenBackend, tmp_path: Path) -> None:
    write_scalars(tmp_path / "run", "loss", range(20))
    (path,) = (tmp_path / "run").iterdir()
    provider = open_backend(tmp_path)
    before = provider.version("run", "scalars", "loss")
    write_scalars(tmp_path / "other", "loss", range(3), offset=50.0)
    (shorter,) = (tmp_path / "other").iterdir()
    replacement = shorter.read_bytes()  # fewer bytes than were read from the file it replaces
    shutil.rmtree(tmp_path / "other")
    path.write_bytes(replacement)
    provider.reload()
    after = provider.version("run", "scalars", "loss")
    assert after.epoch != before.epoch
    assert provider.scalars("run", "loss").value.tolist() == [50 + step / 8 for step in range(3)]


def test_a_deleted_run_is_gone_after_reload(open_backend: OpenBackend, tmp_path: Path) -> None:
    write_scalars(tmp_path / "keep", "loss", range(2))
    write_scalars(tmp_path / "gone", "loss", range(2))
    provider = open_backend(tmp_path)
    generation = provider.generation
    shutil.rmtree(tmp_path / "gone")
    provider.reload()
    assert provider.runs() == ["keep"]
    assert provider.generation > generation
    with pytest.raises(UnknownRun):
        provider.run_info("gone")


# --- problems ---------------------------------------------------------------------------------------------------
def test_a_corrupt_record_is_a_problem_and_the_rest_is_read(open_backend: OpenBackend, tmp_path: Path) -> None:
    write_scalars(tmp_path / "run", "loss", range(100))
    (path,) = (tmp_path / "run").iterdir()
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle] ^= 0xFF  # one flipped bit pattern inside a record's payload: its CRC no longer matches
    path.write_bytes(bytes(data))
    provider = open_backend(tmp_path)
    problems = provider.problems()
    assert problems and all(problem.path == str(path) for problem in problems)
    assert all(problem.offset is not None and problem.offset <= middle for problem in problems)
    steps = provider.scalars("run", "loss").step.tolist()
    assert 97 <= len(steps) < 100  # only the damaged record (and what it swallowed) is missing
    assert steps[0] == 0 and steps[-1] == 99
    provider.reload()
    assert provider.problems() == problems  # met again, listed once


# --- threads ------------------------------------------------------------------------------------------------------
def test_background_passes_pick_up_appends_until_stopped(open_backend: OpenBackend, tmp_path: Path) -> None:
    writer = ridgeline.SummaryWriter(str(tmp_path / "run"))
    writer.add_scalar("loss", 0.0, 0, walltime=WALL)
    writer.flush()
    provider = open_backend(tmp_path)
    provider.start(0.05)
    try:
        writer.add_scalar("loss", 1.0, 1, walltime=WALL + 1)
        writer.flush()
        wait_until(lambda: provider.version("run", "scalars", "loss").length == 2)
    finally:
        provider.stop()
        writer.close()
    assert not [thread for thread in threading.enumerate() if thread.name == "ridgeline-ingest"]


def test_readers_see_whole_points_while_one_ingest_thread_appends(open_backend: OpenBackend, tmp_path: Path) -> None:
    """Readers never see a half-appended point: every answer is a prefix of what was written, tokens only grow."""
    total = 3000
    writer = ridgeline.SummaryWriter(str(tmp_path / "run"), flush_secs=0.01)
    writer.add_scalar("loss", 0.0, 0, walltime=WALL)
    writer.flush()
    provider = open_backend(tmp_path)
    failures: list[str] = []
    done = threading.Event()

    def read() -> None:
        seen = 0
        while not done.is_set():
            version = provider.version("run", "scalars", "loss")
            series = provider.scalars("run", "loss")
            n = len(series)
            if not (len(series.value) == len(series.wall_time) == n >= seen):
                failures.append(
                    f"lengths {len(series.step)}, {len(series.wall_time)}, {len(series.value)} after {seen}"
                )
            if series.step.tolist() != list(range(n)) or series.value.tolist() != [s / 4 for s in range(n)]:
                failures.append(f"not a prefix of what was written at {n} points")
            if version.length < seen:
                failures.append(f"version went back from {seen} to {version.length}")
            seen = max(seen, n)
            provider.run_info("run")

    readers = [threading.Thread(target=read) for _ in range(3)]
    for thread in readers:
        thread.start()
    provider.start(0.01)
    try:
        for step in range(1, total):
            writer.add_scalar("loss", step / 4, step, walltime=WALL + step)
        writer.flush()
        wait_until(lambda: provider.version("run", "scalars", "loss").length == total)
    finally:
        done.set()
        for thread in readers:
            thread.join()
        provider.stop()
        writer.close()
    assert failures == []
    assert provider.scalars("run", "loss").step.tolist() == list(range(total))


def wait_until(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    """Waits for a condition (not a duration): generous, since a busy machine may be slow, never a fixed sleep."""
    finished = threading.Event()
    deadline = threading.Timer(timeout, finished.set)
    deadline.start()
    try:
        while not condition():
            if finished.wait(0.01):
                raise AssertionError(f"condition not met within {timeout} s")
    finally:
        deadline.cancel()
