"""The on-disk store: what it writes, what it refuses, and how it recovers from damage, kills and full disks.

The provider contract is checked in contract/ (backends "disk" and "disk-warm"); these tests are about the files.
Expected values are what the tests wrote, never what the store computed.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pytest

import ridgeline
from ridgeline.format.records import frame
from ridgeline.store.disk import DiskRunData
from ridgeline.store.disk_provider import DiskProvider
from ridgeline.store.files import StoreError
from ridgeline.store.packs import pack_name
from ridgeline.writer.event_file import _scalar_head, encode_scalar_event

WALL = 1_700_000_000.0


def write_run(
    directory: Path, tags: list[str], steps: Iterable[int], *, name: str = "events.out.tfevents.1.test"
) -> None:
    """An event file of float32-exact values ``tag_index + step / 8`` at ``WALL + step``, written fast."""
    directory.mkdir(parents=True, exist_ok=True)
    heads = [_scalar_head(tag) for tag in tags]
    with open(directory / name, "ab") as file:
        chunk = []
        for step in steps:
            for index, head in enumerate(heads):
                chunk.append(frame(encode_scalar_event(head, index + step / 8, step, WALL + step)))
            if len(chunk) > 50_000:
                file.write(b"".join(chunk))
                chunk.clear()
        file.write(b"".join(chunk))


def expected(index: int, steps: Iterable[int]) -> list[float]:
    return [index + step / 8 for step in steps]


def open_disk(logdir: Path, cache: Path) -> DiskProvider:
    provider = ridgeline.open(logdir, cache_dir=cache).provider
    assert isinstance(provider, DiskProvider)
    return provider


def store_files(cache: Path, suffix: str) -> list[Path]:
    return sorted(cache.rglob(f"*{suffix}"))


def test_files_are_private_and_nothing_is_pickled(tmp_path: Path) -> None:
    write_run(tmp_path / "logs" / "run", ["loss", "acc"], range(100))
    (tmp_path / "cache").mkdir(mode=0o700)
    (tmp_path / "cache" / "0123.pickle").write_bytes(b"an old pickle cache")
    open_disk(tmp_path / "logs", tmp_path / "cache").close()
    found = list((tmp_path / "cache").rglob("*"))
    assert not [path for path in found if path.suffix == ".pickle"], "the old pickle cache is gone"
    assert {path.suffix for path in found if path.is_file()} >= {".json", ".segments"}
    for path in found:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))
        if path.is_file() and path.suffix != ".lock":
            assert not path.read_bytes().startswith(b"\x80"), f"{path} looks like a pickle"
    assert not list((tmp_path / "logs").rglob("*.json")), "nothing is written into the log directory"


def test_a_world_writable_cache_directory_is_refused(tmp_path: Path) -> None:
    write_run(tmp_path / "logs" / "run", ["loss"], range(3))
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o777)
    with pytest.raises(StoreError, match=r"cache.*writable by every user.*777"):
        ridgeline.open(tmp_path / "logs", cache_dir=cache)
    assert not list(cache.iterdir()), "nothing was written into it"


@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_a_damaged_column_is_detected_and_rebuilt_never_served(tmp_path: Path, damage: str) -> None:
    write_run(tmp_path / "logs" / "run", ["loss", "acc"], range(1000))
    write_run(tmp_path / "logs" / "other", ["loss"], range(10))
    open_disk(tmp_path / "logs", tmp_path / "cache").close()
    column = max(store_files(tmp_path / "cache", ".segments"), key=lambda path: path.stat().st_size)
    data = bytearray(column.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0x01
    else:
        del data[-8:]
    column.write_bytes(bytes(data))
    provider = open_disk(tmp_path / "logs", tmp_path / "cache")
    assert provider.restored_runs == 1, "the undamaged run comes from the store, the damaged one is read again"
    assert provider.scalars("run", "loss").value.tolist() == expected(0, range(1000))
    assert provider.scalars("run", "acc").value.tolist() == expected(1, range(1000))
    provider.close()
    assert open_disk(tmp_path / "logs", tmp_path / "cache").restored_runs == 2, "and written again, intact"


def test_bytes_past_the_manifest_from_a_killed_write_are_cut_off(tmp_path: Path) -> None:
    write_run(tmp_path / "logs" / "run", ["loss"], range(70_000))  # a long series: files of its own
    write_run(tmp_path / "logs" / "short", ["loss"], range(50))  # and a short one: in the pass's pack
    open_disk(tmp_path / "logs", tmp_path / "cache").close()
    for column in store_files(tmp_path / "cache", ".value4"):
        with open(column, "ab") as file:
            file.write(np.arange(7, dtype="<i8").tobytes())  # a flush the manifest never recorded
    (run_directory,) = {path.parent for path in store_files(tmp_path / "cache", ".value4")}
    (run_directory / "deadbeef-0.value4").write_bytes(b"\0" * 24)  # a series whose manifest was never written
    (pack,) = store_files(tmp_path / "cache", ".segments")
    orphan = pack.with_name(f"{int(pack.stem, 16) + 7:016x}.segments")
    orphan.write_bytes(b"\0" * 24)  # the pack of a pass killed before its manifests
    unnamed = run_directory.parent / ("0" * 32)
    unnamed.mkdir(mode=0o700)
    (unnamed / "0123-0.step").write_bytes(b"\0" * 8)  # a run no manifest names
    provider = open_disk(tmp_path / "logs", tmp_path / "cache")
    assert provider.restored_runs == 2
    assert provider.scalars("run", "loss").step.tolist() == list(range(70_000))
    assert provider.scalars("short", "loss").step.tolist() == list(range(50))
    assert not (run_directory / "deadbeef-0.value4").exists()
    assert not orphan.exists() and not unnamed.exists()
    assert [path.stat().st_size for path in store_files(tmp_path / "cache", ".value4")] == [70_000 * 4], "cut back"


@pytest.mark.slow
def test_a_process_killed_while_writing_the_store_is_recovered_from(tmp_path: Path) -> None:
    """Wherever a writer is killed, the next open serves exactly what the event files hold."""
    logs, cache = tmp_path / "logs", tmp_path / "cache"
    write_run(logs / "run", ["loss", "acc"], range(20_000))
    command = [sys.executable, "-c", KEEP_APPENDING, str(logs), str(cache)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None
        for _ in range(3):  # the child reports each pass it has made; kill it inside a later one
            assert child.stdout.readline().strip() == "pass"
        child.send_signal(signal.SIGKILL)
    provider = open_disk(logs, cache)
    steps = provider.scalars("run", "loss").step
    assert steps.tolist() == list(range(len(steps))) and len(steps) >= 20_000
    assert provider.scalars("run", "acc").value.tolist() == expected(1, range(len(provider.scalars("run", "acc"))))
    assert provider.problems() == []


KEEP_APPENDING = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    import ridgeline
    from tests.store.test_disk import write_run
    logs, cache = Path(sys.argv[1]), sys.argv[2]
    logdir = ridgeline.open(logs, cache_dir=cache)
    start = 20_000
    while True:
        write_run(logs / "run", ["loss", "acc"], range(start, start + 70_000))
        start += 70_000
        logdir.reload()
        print("pass", flush=True)
    """
)


def test_a_store_of_another_format_is_rebuilt_not_read(tmp_path: Path) -> None:
    write_run(tmp_path / "logs" / "run", ["loss"], range(10))
    open_disk(tmp_path / "logs", tmp_path / "cache").close()
    (header,) = store_files(tmp_path / "cache", "store.json")
    header.write_text(json.dumps({"format": 999, "byteorder": "little"}))
    provider = open_disk(tmp_path / "logs", tmp_path / "cache")
    assert provider.restored_runs == 0
    assert provider.scalars("run", "loss").step.tolist() == list(range(10))


def test_a_second_writer_reads_into_memory_while_the_first_holds_the_store(tmp_path: Path) -> None:
    write_run(tmp_path / "logs" / "run", ["loss"], range(10))
    first = open_disk(tmp_path / "logs", tmp_path / "cache")
    second = ridgeline.open(tmp_path / "logs", cache_dir=tmp_path / "cache").provider
    assert not isinstance(second, DiskProvider), "the lock is held: the second reader keeps its points in memory"
    assert second.scalars("run", "loss").step.tolist() == first.scalars("run", "loss").step.tolist()
    first.close()
    assert open_disk(tmp_path / "logs", tmp_path / "cache").restored_runs == 1


def test_a_changed_run_is_read_again_and_the_others_come_from_the_store(tmp_path: Path) -> None:
    write_run(tmp_path / "logs" / "a", ["loss"], range(10))
    write_run(tmp_path / "logs" / "b", ["loss"], range(10))
    open_disk(tmp_path / "logs", tmp_path / "cache").close()
    (path,) = (tmp_path / "logs" / "b").iterdir()
    path.unlink()
    write_run(tmp_path / "logs" / "b", ["loss"], range(5, 8))  # b rewritten: shorter, other points
    write_run(tmp_path / "logs" / "a", ["loss"], range(10, 12))  # a appended: resumed at the stored offset
    provider = open_disk(tmp_path / "logs", tmp_path / "cache")
    assert provider.restored_runs == 1
    assert provider.scalars("a", "loss").step.tolist() == list(range(12))
    assert provider.scalars("b", "loss").step.tolist() == [5, 6, 7]


def test_a_warm_start_with_nothing_new_writes_nothing(tmp_path: Path) -> None:
    """Its first pass finds every run as stored: no manifest shard is rewritten, no pack written; nor by a pass
    after a run was read (its series built from the manifest then)."""
    for run in range(20):
        write_run(tmp_path / "logs" / f"run{run}", ["loss", "acc"], range(30))
    open_disk(tmp_path / "logs", tmp_path / "cache").close()
    written = {path: path.stat().st_mtime_ns for path in (tmp_path / "cache").rglob("*") if path.is_file()}
    written.pop(tmp_path / "cache" / "writer.lock", None)
    for _ in range(2):
        provider = open_disk(tmp_path / "logs", tmp_path / "cache")
        assert provider.restored_runs == 20
        assert provider.run_info("run3").tags == {"scalars": ("acc", "loss")}
        assert provider.scalars("run7", "acc").value.tolist() == expected(1, range(30))
        provider.reload()
        provider.close()
        now = {path: path.stat().st_mtime_ns for path in (tmp_path / "cache").rglob("*") if path.is_file()}
        now.pop(tmp_path / "cache" / "writer.lock", None)
        assert now == written


@pytest.mark.slow
def test_a_full_disk_is_a_clear_error_and_loses_nothing(tmp_path: Path) -> None:
    """RLIMIT_FSIZE stands in for a full disk: a write past it fails as a write to a full disk does."""
    write_run(tmp_path / "logs" / "run", ["loss"], range(100_000))
    result = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(tmp_path / "logs"), str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("StoreError: store ") and "cannot be written" in lines[0], lines
    assert lines[1] == "reopened 100000"  # with room again, every point is there


FULL_DISK = textwrap.dedent(
    """
    import resource, signal, sys
    import ridgeline
    from ridgeline.store.files import StoreError
    logs, cache = sys.argv[1], sys.argv[2]
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, hard))
    try:
        ridgeline.open(logs, cache_dir=cache)
    except StoreError as error:
        print("StoreError:", error)
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    print("reopened", len(ridgeline.open(logs, cache_dir=cache).scalars("run", "loss")))
    """
)


@pytest.mark.slow
def test_resident_memory_follows_what_is_read_not_what_is_stored(tmp_path: Path) -> None:
    """Reading every point of a 1M-point store adds far less anonymous memory than the points' 24 MB; the same
    read into memory (cache=False) adds more than that, which shows the measurement can tell them apart."""
    logs = tmp_path / "logs"
    for run in range(4):
        write_run(logs / f"run{run}", ["loss", "acc"], range(125_000))
    open_disk(logs, tmp_path / "cache").close()
    on_disk = _anon_growth(logs, f"cache_dir={str(tmp_path / 'cache')!r}")
    in_memory = _anon_growth(logs, "cache=False")
    points_bytes = 1_000_000 * 24
    assert in_memory["points"] == on_disk["points"] == 1_000_000
    assert in_memory["growth"] > points_bytes
    assert on_disk["growth"] < points_bytes / 4, on_disk


def _anon_growth(logs: Path, option: str) -> dict[str, int]:
    script = textwrap.dedent(
        f"""
        import crc32c, json, numpy, ridgeline, ridgeline.ingest.loop
        import ridgeline.store.cache, ridgeline.store.disk_provider  # what a cache opens: imported, not measured
        def anon():
            with open("/proc/self/status") as status:
                return next(int(line.split()[1]) * 1024 for line in status if line.startswith("RssAnon:"))
        before = anon()
        logdir = ridgeline.open({str(logs)!r}, {option})
        points = 0
        for run in logdir.runs():
            for tag in ("loss", "acc"):
                series = logdir.scalars(run, tag)
                points += len(series)
                assert float(series.value.sum()) > 0 and int(series.step[-1]) == 124_999
        print(json.dumps({{"growth": anon() - before, "points": points}}))
        """
    )
    # glibc raises its mmap threshold each time a large block is freed, so later arrays of a series' size come
    # from the heap and stay in RssAnon after they are freed, by an amount that varies from run to run (5.2 MB
    # here, 7.3 MB on a busy CI machine). A fixed threshold returns every freed array: what is left is what the
    # store holds, which is what this measures.
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(128 * 1024)}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@pytest.fixture(autouse=True)
def _importable_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    """The children import this module's writer: run them from the repository root."""
    root = Path(__file__).resolve().parents[2]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))


def test_a_series_grows_from_packed_segments_into_files_of_its_own(tmp_path: Path) -> None:
    """Short series share their run's packed columns; many small appends are rewritten as one segment, and a
    series that reaches 64k points moves to its own mapped files. Every step of the way, and after a restart
    from the store, the points are what was written."""
    logs, cache = tmp_path / "logs", tmp_path / "cache"
    write_run(logs / "run", ["grows", "stays"], range(10))
    provider = open_disk(logs, cache)
    written = 10
    for _ in range(40):  # 40 passes of one point each: more segments than a series keeps
        write_run(logs / "run", ["grows", "stays"], range(written, written + 1))
        written += 1
        provider.reload()
        assert provider.scalars("run", "grows").value.tolist() == expected(0, range(written))
    write_run(logs / "run", ["grows"], range(written, 70_000))
    provider.reload()
    assert provider.scalars("run", "grows").step.tolist() == list(range(70_000))
    assert provider.scalars("run", "stays").value.tolist() == expected(1, range(written))
    provider.close()
    assert len(store_files(cache, ".step")) == 1, "one series in files of its own"
    again = open_disk(logs, cache)
    assert again.restored_runs == 1
    stored = again._disk.runs["run"]
    assert isinstance(stored, DiskRunData)
    named = {pack_name(number) for number in stored.parts}
    assert named and {path.name for path in store_files(cache, ".segments")} == named, "only the packs it names"
    assert again.scalars("run", "grows").value.tolist() == expected(0, range(70_000))
    assert again.scalars("run", "stays").wall_time.tolist() == [WALL + step for step in range(written)]


def test_a_restart_after_a_warm_start_hides_what_it_supersedes(tmp_path: Path) -> None:
    """The run's restart log and each series' view of it come back from the store and keep working."""
    logs, cache = tmp_path / "logs", tmp_path / "cache"
    write_run(logs / "run", ["loss", "acc"], range(10))
    writer = ridgeline.SummaryWriter(str(logs / "run"), purge_step=4)  # a START at step 4
    writer.add_scalar("loss", 100.0, 4, walltime=WALL + 40)
    writer.close()
    (restarted,) = [path for path in (logs / "run").iterdir() if path.name != "events.out.tfevents.1.test"]
    restarted.rename(logs / "run" / "events.out.tfevents.2.test")  # read after the first file, whatever its name
    open_disk(logs, cache).close()
    write_run(logs / "run", ["acc"], range(4, 6), name="events.out.tfevents.3.test")
    provider = open_disk(logs, cache)
    assert provider.restored_runs == 1
    assert provider.scalars("run", "loss").step.tolist() == [0, 1, 2, 3, 4]
    assert provider.scalars("run", "loss").value.tolist() == [*expected(0, range(4)), 100.0]
    assert provider.scalars("run", "acc").step.tolist() == [0, 1, 2, 3, 4, 5]
    assert len(provider.scalars("run", "acc", all_points=True)) == 12
    assert provider.version("run", "scalars", "acc").restarts == 1
