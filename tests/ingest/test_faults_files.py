"""Files that change under the reader, on real files and a real server: a file rewritten in place, a stale cache
after files were truncated or replaced, a file that grows a few bytes at a time, a log directory deleted and
made again while served. Every point is read exactly once, and nothing stale is shown.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import ridgeline
from ridgeline.format import records
from ridgeline.format.proto import event_pb2, summary_pb2
from tests.conftest import wait_until, write_ridgeline_run
from tests.server.conftest import serving

FILE = "events.out.tfevents.1.host.1.0"


def scalar_record(step: int, value: float, tag: str = "loss", wall: float = 1.7e9) -> bytes:
    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)])
    return records.frame(event_pb2.Event(wall_time=wall + step, step=step, summary=summary).SerializeToString())


def event_file(points: range, value: float, wall: float = 1.7e9) -> bytes:
    version = records.frame(event_pb2.Event(wall_time=wall, file_version="brain.Event:2").SerializeToString())
    return version + b"".join(scalar_record(step, value, wall=wall) for step in points)


def values(opened: ridgeline.LogDir, run: str = "run") -> list[tuple[int, float]]:
    series = opened.scalars(run, "loss")
    return list(zip(series.step.tolist(), series.value.tolist(), strict=True))


def test_a_file_rewritten_in_place_and_longer_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "run" / FILE
    path.parent.mkdir()
    path.write_bytes(event_file(range(100), 1.0))
    opened = ridgeline.open(tmp_path, cache=False)
    assert values(opened) == [(step, 1.0) for step in range(100)]

    path.write_bytes(event_file(range(150), 2.0, wall=1.8e9))  # another job wrote over it: longer, other bytes
    opened.reload()

    assert values(opened) == [(step, 2.0) for step in range(150)]  # not spliced: the old 100 points are gone
    assert any(p.path == str(path) and "rewritten" in p.reason for p in opened.problems())


def test_a_file_that_only_grew_is_not_read_again(tmp_path: Path) -> None:
    path = tmp_path / "run" / FILE
    path.parent.mkdir()
    path.write_bytes(event_file(range(50), 1.0))
    opened = ridgeline.open(tmp_path, cache=False)
    with path.open("ab") as file:
        file.write(b"".join(scalar_record(step, 1.0) for step in range(50, 80)))
    opened.reload()
    assert values(opened) == [(step, 1.0) for step in range(80)]
    assert opened.problems() == []


def test_a_stale_cache_is_not_used_after_files_were_truncated_or_replaced(tmp_path: Path) -> None:
    logdir, cache = tmp_path / "logs", tmp_path / "cache"
    path = logdir / "run" / FILE
    path.parent.mkdir(parents=True)
    path.write_bytes(event_file(range(100), 1.0))
    assert len(values(ridgeline.open(logdir, cache_dir=cache))) == 100  # cached

    path.write_bytes(event_file(range(100), 3.0, wall=1.9e9))  # replaced: same length, other bytes
    assert values(ridgeline.open(logdir, cache_dir=cache)) == [(step, 3.0) for step in range(100)]

    path.write_bytes(event_file(range(40), 4.0, wall=1.9e9))  # truncated to fewer points
    assert values(ridgeline.open(logdir, cache_dir=cache)) == [(step, 4.0) for step in range(40)]

    path.write_bytes(event_file(range(120), 5.0, wall=2.0e9))  # replaced by a longer file
    assert values(ridgeline.open(logdir, cache_dir=cache)) == [(step, 5.0) for step in range(120)]


def test_a_file_growing_a_few_bytes_at_a_time_gives_every_point_exactly_once(tmp_path: Path) -> None:
    """Records cut at every kind of boundary (inside a header, a length CRC, the data, the data CRC)."""
    data = event_file(range(60), 1.0) + b"".join(scalar_record(step, 2.0, tag="acc") for step in range(60))
    path = tmp_path / "run" / FILE
    path.parent.mkdir()
    path.write_bytes(b"")
    opened = ridgeline.open(tmp_path, cache=False)
    written = 0
    for size in [1, 3, 7, 11, 12, 13, 29, 4, 40, 2, 97] * 60:
        if written >= len(data):
            break
        with path.open("ab") as file:
            file.write(data[written : written + size])
        written += size
        opened.reload()
    with path.open("ab") as file:
        file.write(data[written:])
    opened.reload()
    assert values(opened) == [(step, 1.0) for step in range(60)]
    assert opened.scalars("run", "acc").step.tolist() == list(range(60))
    assert opened.problems() == []


def test_a_log_directory_deleted_and_made_again_while_served(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    write_ridgeline_run(logdir / "first", {"loss": [(step, 1.0) for step in range(10)]})
    with serving("--logdir", str(logdir), "--port", "0", "--no-cache", "--reload-interval", "0.1") as served:

        def runs() -> list[str]:
            return [run["run"] for run in served.get("/api/runs").json()["runs"]]

        assert runs() == ["first"]
        shutil.rmtree(logdir)
        wait_until(lambda: runs() == [], "the deleted runs to leave /api/runs")
        write_ridgeline_run(logdir / "second", {"loss": [(step, 2.0) for step in range(25)]})
        wait_until(lambda: runs() == ["second"], "the new run in /api/runs")

        def points() -> int:
            answer = served.get("/api/scalars", run="second", tag="loss")
            return len(answer.json()["step"]) if answer.status_code == 200 else 0

        wait_until(lambda: points() == 25, "the new run's 25 points")
        assert served.process.poll() is None
        assert served.get("/api/scalars", run="first", tag="loss").status_code == 404
