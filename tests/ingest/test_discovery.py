"""Which directories are runs, and how log directory arguments are understood."""

from __future__ import annotations

from pathlib import Path

import pytest

from ridgeline.ingest.discovery import LogDirError, LogDirSource, filesystem_for, find_runs, sources_from


def touch_event_file(directory: Path, name: str = "events.out.tfevents.1.host.1.0") -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_bytes(b"")


def test_runs_at_any_depth_are_named_by_their_relative_path(tmp_path: Path) -> None:
    touch_event_file(tmp_path)
    touch_event_file(tmp_path / "exp1")
    touch_event_file(tmp_path / "exp1" / "rank0")
    touch_event_file(tmp_path / "a" / "b" / "c")
    (tmp_path / "not_a_run").mkdir()
    (tmp_path / "not_a_run" / "notes.txt").write_text("x")
    runs = find_runs(LogDirSource(str(tmp_path)), filesystem_for(str(tmp_path)))
    assert sorted(runs) == [".", "a/b/c", "exp1", "exp1/rank0"]


def test_event_files_are_listed_in_name_order(tmp_path: Path) -> None:
    for name in ("events.out.tfevents.3.h.1.0", "events.out.tfevents.1.h.1.0", "events.out.tfevents.2.h.1.0.v2"):
        touch_event_file(tmp_path, name)
    ((_, files),) = find_runs(LogDirSource(str(tmp_path)), filesystem_for(str(tmp_path))).values()
    assert [Path(f).name for f in files] == sorted(Path(f).name for f in files)


@pytest.mark.parametrize(
    ("argument", "expected"),
    [
        ("runs", [LogDirSource("runs")]),
        ("a,b", [LogDirSource("a", "a"), LogDirSource("b", "b")]),
        ("train:/x/a,eval:/y/a", [LogDirSource("/x/a", "train"), LogDirSource("/y/a", "eval")]),
        ("/x/run,/y/run", [LogDirSource("/x/run", "run"), LogDirSource("/y/run", "run_2")]),
        ("s3://bucket/runs", [LogDirSource("s3://bucket/runs")]),
        (
            "cloud:s3://bucket/runs,local:/tmp/r",
            [LogDirSource("s3://bucket/runs", "cloud"), LogDirSource("/tmp/r", "local")],
        ),
        (["a", "b"], [LogDirSource("a", "a"), LogDirSource("b", "b")]),
    ],
)
def test_logdir_arguments(argument: str | list[str], expected: list[LogDirSource]) -> None:
    assert sources_from(argument) == expected


def test_several_log_directories_prefix_run_names(tmp_path: Path) -> None:
    import ridgeline

    touch_event_file(tmp_path / "a")
    touch_event_file(tmp_path / "b" / "x")
    logdir = ridgeline.open(f"first:{tmp_path / 'a'},second:{tmp_path / 'b'}", cache=False)
    assert logdir.runs() == ["first", "second/x"]


def test_missing_and_non_directory_log_dirs_are_named(tmp_path: Path) -> None:
    import ridgeline

    with pytest.raises(LogDirError, match=f"log directory '{tmp_path / 'nope'}' does not exist"):
        ridgeline.open(tmp_path / "nope")
    (tmp_path / "file").write_text("x")
    with pytest.raises(LogDirError, match="is not a directory"):
        ridgeline.open(tmp_path / "file")
    with pytest.raises(TypeError, match="logdir must be a path"):
        ridgeline.open(42)  # type: ignore[arg-type]
