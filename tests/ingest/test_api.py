"""The reading API end to end, on real files: what was written is what is read, live, after damage and restarts."""

from __future__ import annotations

import hashlib
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ridgeline
from ridgeline import SummaryWriter
from ridgeline.format import records
from ridgeline.format.proto import event_pb2
from ridgeline.ingest.fastpath import implementations


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under root with its content hash: to prove the reader writes nothing there."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def write_scalars(log_dir: Path, tag: str, steps: list[int], values: list[float]) -> None:
    with SummaryWriter(log_dir, record_run_metadata=False) as writer:
        for step, value in zip(steps, values, strict=True):
            writer.add_scalar(tag, value, step)


def scalar_record(tag: str, step: int, value: float, wall_time: float = 1.0) -> bytes:
    event = event_pb2.Event(wall_time=wall_time, step=step)
    event.summary.value.add(tag=tag, simple_value=value)
    return records.frame(event.SerializeToString())


def test_every_point_of_every_kind_round_trips(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    values = rng.normal(size=3000).astype(np.float32)
    with SummaryWriter(tmp_path / "exp1", hparams={"lr": 0.01, "opt": "adam"}) as writer:
        for step, value in enumerate(values.tolist()):
            writer.add_scalar("loss/train", value, step)
        writer.add_scalar("edge", math.inf, -(2**63))
        writer.add_scalar("edge", math.nan, 2**63 - 1)
        writer.add_scalar("日本語/損失", -math.inf, 5)
        writer.add_histogram("weights", rng.normal(size=1000), 10)
        writer.add_image("img", np.ones((3, 4, 5), dtype=np.float32), 10)
        writer.add_text("notes", "hello **world**", 10)
        writer.add_annotation("lr decayed", 1500)
    before = tree_digest(tmp_path)
    logdir = ridgeline.open(tmp_path, cache=False)
    assert tree_digest(tmp_path) == before
    assert logdir.runs() == ["exp1"]
    tags = logdir.tags("exp1")
    assert tags["scalars"] == ["edge", "loss/train", "日本語/損失"]
    assert tags["histograms"] == ["weights"] and tags["images"] == ["img"] and tags["text"] == ["notes/text_summary"]
    loss = logdir.scalars("exp1", "loss/train")
    assert np.array_equal(loss.step, np.arange(3000)) and np.array_equal(loss.value, values.astype(np.float64))
    assert loss.step.dtype == np.int64 and loss.wall_time.dtype == np.float64
    edge = logdir.scalars("exp1", "edge")
    assert edge.step.tolist() == [-(2**63), 2**63 - 1]
    assert edge.value[0] == math.inf and math.isnan(edge.value[1])
    assert logdir.scalars("exp1", "日本語/損失").value.tolist() == [-math.inf]
    assert logdir.annotations("exp1") == [(1500, "lr decayed")]
    assert logdir.run_metadata("exp1")["pid"] > 0
    assert [entry.step for entry in logdir.histograms("exp1", "weights")] == [10]
    assert logdir.problems() == []
    with pytest.raises(KeyError, match="has no scalar tag 'nope'"):
        logdir.scalars("exp1", "nope")
    with pytest.raises(KeyError, match="no run 'nope'"):
        logdir.tags("nope")


def test_files_written_by_torch_read_the_same_as_in_tensorboard(tmp_path: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    writer = TorchWriter(str(tmp_path))
    for step in range(500):
        writer.add_scalar("a", step * 0.25, step)
        writer.add_scalar("b", -step, step)
    writer.add_scalars("group", {"x": 1.0, "y": 2.0}, 3)
    writer.close()
    logdir = ridgeline.open(tmp_path, cache=False)
    for run in logdir.runs():
        accumulator = EventAccumulator(str(tmp_path / run), size_guidance={"scalars": 0})
        accumulator.Reload()
        for tag in accumulator.Tags()["scalars"]:
            expected = accumulator.Scalars(tag)
            got = logdir.scalars(run, tag)
            assert got.step.tolist() == [e.step for e in expected]
            assert got.value.tolist() == [e.value for e in expected]
            assert got.wall_time.tolist() == [e.wall_time for e in expected]


def test_a_record_cut_short_is_read_once_complete(tmp_path: Path) -> None:
    path = tmp_path / "events.out.tfevents.1.h.1.0"
    data = scalar_record("x", 1, 1.0) + scalar_record("x", 2, 2.0)
    path.write_bytes(data[:-7])
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.scalars(".", "x").step.tolist() == [1]
    assert logdir.problems() == []
    path.write_bytes(data)
    logdir.reload()
    assert logdir.scalars(".", "x").step.tolist() == [1, 2]
    assert logdir.problems() == []


def test_a_corrupt_middle_record_is_skipped_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "events.out.tfevents.1.h.1.0"
    good, bad, after = scalar_record("x", 1, 1.0), bytearray(scalar_record("x", 2, 2.0)), scalar_record("x", 3, 3.0)
    bad[-6] ^= 0x40  # a bit of the value: without the CRC it would read as a wrong number
    path.write_bytes(good + bytes(bad) + after)
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.scalars(".", "x").step.tolist() == [1, 3]
    (problem,) = logdir.problems()
    assert problem.path == str(path) and problem.offset == len(good) and "CRC" in problem.reason


def test_empty_and_zero_length_files_are_fine(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "events.out.tfevents.0.h.1.0").write_bytes(b"")
    write_scalars(tmp_path / "run", "x", [1], [1.0])
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.scalars("run", "x").step.tolist() == [1]
    assert logdir.problems() == []


def test_restarted_run_shows_what_tensorboard_shows_and_keeps_every_point(tmp_path: Path) -> None:
    write_scalars(tmp_path, "loss", list(range(10)), [float(s) for s in range(10)])
    with SummaryWriter(tmp_path, purge_step=5, record_run_metadata=False) as writer:
        for step in range(5, 8):
            writer.add_scalar("loss", 100.0 + step, step)
    logdir = ridgeline.open(tmp_path, cache=False)
    shown = logdir.scalars(".", "loss")
    assert shown.step.tolist() == list(range(8))
    assert shown.value.tolist() == [0, 1, 2, 3, 4, 105, 106, 107]
    everything = logdir.scalars(".", "loss", all_points=True)
    assert everything.step.tolist() == [*range(10), 5, 6, 7]


def test_live_tailing_gets_every_point_exactly_once(tmp_path: Path) -> None:
    code = """
        import sys, time
        from ridgeline import SummaryWriter
        writer = SummaryWriter(sys.argv[1], max_queue=1, record_run_metadata=False)
        for step in range(3000):
            writer.add_scalar("live", float(step), step)
            if step % 100 == 0:
                writer.flush()
                time.sleep(0.01)
        writer.close()
    """
    (tmp_path / "run").mkdir()
    with subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), str(tmp_path / "run")]) as child:
        while not any((tmp_path / "run").iterdir()):
            pass
        logdir = ridgeline.open(tmp_path, cache=False)
        seen = []
        while child.poll() is None:
            logdir.reload()
            if "run" in logdir.runs() and "live" in logdir.tags("run").get("scalars", []):
                seen.append(len(logdir.scalars("run", "live")))
        assert child.wait() == 0
    logdir.reload()
    final = logdir.scalars("run", "live", all_points=True)
    assert final.step.tolist() == list(range(3000))
    assert len(set(seen)) > 2, "the reader should have seen the series grow while it was written"
    assert logdir.problems() == []


def test_warm_restart_from_the_cache_and_invalidation(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    log_dir = tmp_path / "logs"
    write_scalars(log_dir / "a", "x", [1, 2], [1.0, 2.0])
    write_scalars(log_dir / "b", "x", [1], [10.0])
    first = ridgeline.open(log_dir, cache_dir=cache_dir)
    assert first.scalars("a", "x").step.tolist() == [1, 2]
    assert list(cache_dir.iterdir()), "the cache was written"
    assert not any("cache" in str(p) or p.suffix == ".pickle" for p in log_dir.rglob("*"))

    write_scalars(log_dir / "a", "x", [3], [3.0])  # a new file in a: picked up
    (path_b,) = (log_dir / "b").iterdir()
    path_b.write_bytes(scalar_record("x", 7, 70.0))  # b rewritten in place: its cached points are stale
    second = ridgeline.open(log_dir, cache_dir=cache_dir)
    assert second.scalars("a", "x").step.tolist() == [1, 2, 3]
    assert second.scalars("b", "x").value.tolist() == [70.0]


def test_memory_filesystem_goes_through_the_same_path(tmp_path: Path) -> None:
    import fsspec

    write_scalars(tmp_path / "run", "x", [1, 2, 3], [1.0, 2.0, 3.0])
    memory = fsspec.filesystem("memory")
    (source,) = (tmp_path / "run").iterdir()
    memory.pipe(f"/logs/{os.getpid()}/run/{source.name}", source.read_bytes())
    logdir = ridgeline.open(f"memory://logs/{os.getpid()}", cache=False)
    assert logdir.runs() == ["run"]
    assert logdir.scalars("run", "x").value.tolist() == [1.0, 2.0, 3.0]


def test_scalars_frame(tmp_path: Path) -> None:
    write_scalars(tmp_path / "exp_a", "loss/train", [1, 2], [1.0, 2.0])
    write_scalars(tmp_path / "exp_b", "loss/val", [1], [5.0])
    write_scalars(tmp_path / "other", "loss/train", [1], [9.0])
    frame = ridgeline.open(tmp_path, cache=False).scalars_frame(run=r"^exp", tag=r"^loss/")
    assert list(frame.columns) == ["run", "tag", "step", "wall_time", "value"]
    assert frame[["run", "tag", "step", "value"]].values.tolist() == [
        ["exp_a", "loss/train", 1, 1.0],
        ["exp_a", "loss/train", 2, 2.0],
        ["exp_b", "loss/val", 1, 5.0],
    ]
    with pytest.raises(ValueError, match="run pattern '\\(' is not a valid regular expression"):
        ridgeline.open(tmp_path, cache=False).scalars_frame(run="(")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_random_and_mutated_bytes_never_raise(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    log_dir = tmp_path_factory.mktemp("fuzz")
    valid = b"".join(scalar_record(f"t{i % 3}", i, float(i)) for i in range(20))
    raw = bytearray(data.draw(st.one_of(st.binary(max_size=2000), st.just(valid))))
    for _ in range(data.draw(st.integers(0, 10))):
        if raw:
            raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    (log_dir / "events.out.tfevents.1.h.1.0").write_bytes(bytes(raw))
    logdir = ridgeline.open(log_dir, cache=False)
    for run in logdir.runs():
        for tag in logdir.tags(run).get("scalars", []):
            series = logdir.scalars(run, tag, all_points=True)
            for step, value in zip(series.step.tolist(), series.value.tolist(), strict=True):
                assert value == float(step)  # every value that is reported is one that was written


def test_damage_longer_than_a_read_chunk_and_records_larger_than_one(tmp_path: Path) -> None:
    from ridgeline.ingest import tail

    path = tmp_path / "events.out.tfevents.1.h.1.0"
    garbage = bytes(range(256)) * ((3 * tail.CHUNK_BYTES) // 256)  # no valid header anywhere in it
    big = event_pb2.Event(step=2)
    big.summary.value.add(tag="big", obsolete_old_style_histogram=bytes(2 * tail.CHUNK_BYTES))
    path.write_bytes(
        scalar_record("x", 1, 1.0) + garbage + scalar_record("x", 3, 3.0) + records.frame(big.SerializeToString())
    )
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.scalars(".", "x").step.tolist() == [1, 3]
    (problem,) = logdir.problems()
    assert problem.offset == len(scalar_record("x", 1, 1.0))


def test_embeddings_written_by_add_embedding(tmp_path: Path) -> None:
    matrix = np.arange(12, dtype=np.float32).reshape(4, 3)
    with SummaryWriter(tmp_path / "run") as writer:
        writer.add_embedding(matrix, metadata=["a", "b", "c", "d"], global_step=7, tag="points")
    (embedding,) = ridgeline.open(tmp_path, cache=False).embeddings("run")
    assert np.array_equal(embedding.tensors(), matrix)
    assert [list(row) for row in embedding.metadata().rows] == [["a"], ["b"], ["c"], ["d"]]


def test_a_tag_read_by_the_fast_path_keeps_routing_later_tensor_values_to_scalars(tmp_path: Path) -> None:
    from ridgeline.format.proto import tensor_pb2, types_pb2

    later = event_pb2.Event(wall_time=2.0, step=2)  # a TF2-style scalar tensor, without metadata (not the first)
    later.summary.value.add(tag="loss", tensor=tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[0.5]))
    path = tmp_path / "events.out.tfevents.1.h.1.0"
    path.write_bytes(scalar_record("loss", 1, 1.0) + records.frame(later.SerializeToString()))
    logdir = ridgeline.open(tmp_path, cache=False)
    assert logdir.tags(".") == {"scalars": ["loss"]}
    assert logdir.scalars(".", "loss").value.tolist() == [1.0, 0.5]


def test_reading_imports_neither_the_server_nor_the_writer(tmp_path: Path) -> None:
    """Issue 15's fast start: a process that only reads never pays for FastAPI or the writer's summaries."""
    write_scalars(tmp_path / "run", "loss", [0, 1, 2], [0.5, 0.25, 0.125])
    script = textwrap.dedent(
        f"""
        import sys
        import ridgeline
        logdir = ridgeline.open({str(tmp_path)!r}, cache=False)
        assert logdir.scalars("run", "loss").step.tolist() == [0, 1, 2]
        heavy = [m for m in ("fastapi", "starlette", "uvicorn", "ridgeline.writer.summary_writer") if m in sys.modules]
        print(heavy)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.skipif("core" not in implementations(), reason="the compiled core is not built")
def test_a_read_without_a_cache_imports_no_crc32c_disk_store_or_trace_parser(tmp_path: Path) -> None:
    """Issue 15's fast start: with the compiled core (which checks the CRCs itself), a read without a cache and
    the first answers of ``ridgeline serve`` (the run listing, a series) import neither the crc32c package (tens
    of milliseconds, its version look-up), nor the on-disk store or its replicas, nor the profiler trace parsers,
    nor RE2 (no pattern was given), nor the messages of records this run does not hold (graphs, hparams, custom
    scalars layouts, projector configs: each imported when one is first decoded)."""
    write_scalars(tmp_path / "run", "loss", [0, 1, 2], [0.5, 0.25, 0.125])
    script = textwrap.dedent(
        f"""
        import sys
        import ridgeline.api
        from ridgeline.plugins.scalars.answers import REDUCED
        from ridgeline.plugins.scalars.series import Window
        from ridgeline.server.early import EarlyAnswers
        from ridgeline.services.runs import RunIndex
        opening = ridgeline.api.opening({str(tmp_path)!r}, cache=False)
        opening.load()
        _, listed = RunIndex(opening.logdir).current()
        assert [entry["run"] for entry in listed] == ["run"], listed
        series = REDUCED.payload(opening.logdir, "run", "loss", Window(None, None, None, None))
        assert series["step"].tolist() == [0, 1, 2]
        heavy = ("crc32c", "ridgeline.store.disk", "ridgeline.store.files", "ridgeline.store.replica",
                 "ridgeline.profile", "re2")
        messages = ("graph_pb2", "hparams_pb2", "custom_scalars_pb2", "projector_pb2")
        heavy += tuple("ridgeline.format.proto." + name for name in messages)
        from ridgeline.format import records  # its crc32c loads the package's compiled module alone, on first use
        loaded = ["crc32c (loaded alone)"] if records._crc32c_function.cache_info().currsize else []
        print(sorted(m for m in heavy if m in sys.modules) + loaded)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
