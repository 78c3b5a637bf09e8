"""The store's encodings: values keep their dtype, steps and wall times cost a few bytes a point or none, and a
store of the previous format is rebuilt, never misread.

Expected values are what the tests wrote (or plain numpy over what they wrote), never what the store computed.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ridgeline
from ridgeline.store.disk_provider import DiskProvider
from ridgeline.store.encoding import Column, encode
from ridgeline.store.files import WriterLock
from ridgeline.store.manifests import to_json
from tests.store.test_disk import WALL, expected, open_disk, store_files, write_run


def series_files(cache: Path) -> dict[str, list[Path]]:
    """Each long series' own files, by the name they share."""
    found: dict[str, list[Path]] = {}
    for path in sorted(cache.rglob("*")):
        if path.suffix in (".step", ".wall_time", ".value4", ".value8", ".lod"):
            found.setdefault(path.stem, []).append(path)
    return found


def test_a_float32_series_is_stored_in_at_most_12_bytes_a_point_and_read_back_exactly(tmp_path: Path) -> None:
    steps = range(0, 300_000, 3)
    write_run(tmp_path / "logs" / "run", ["loss"], steps)
    open_disk(tmp_path / "logs", tmp_path / "cache").close()
    ((_, files),) = series_files(tmp_path / "cache").items()
    assert {path.suffix for path in files} == {".step", ".wall_time", ".value4", ".lod"}
    (values,) = [path for path in files if path.suffix == ".value4"]
    assert np.fromfile(values, "<f4").tolist() == expected(0, steps), "float32 values, raw little-endian"
    size = sum(path.stat().st_size for path in files)
    assert size / len(steps) <= 12, f"{size / len(steps):.2f} bytes a point"
    provider = open_disk(tmp_path / "logs", tmp_path / "cache")
    series = provider.scalars("run", "loss")
    assert series.step.tolist() == list(steps)
    assert series.wall_time.tolist() == [WALL + step for step in steps]
    assert series.value.dtype == np.float64 and series.value.tolist() == expected(0, steps)
    indexed = provider.indexed_scalars("run", "loss")
    assert indexed is not None and indexed.value.dtype == np.float32, "the stored column, not a widened copy"
    assert not indexed.value.flags.owndata, "a view of the mapped file"


def test_doubles_stay_doubles_and_a_float32_column_is_widened_when_one_arrives(tmp_path: Path) -> None:
    logs = tmp_path / "logs" / "run"
    write_run(logs, ["loss"], range(70_000))
    provider = open_disk(tmp_path / "logs", tmp_path / "cache")
    assert {p.suffix for files in series_files(tmp_path / "cache").values() for p in files} >= {".value4"}
    before = provider.indexed_scalars("run", "loss")
    assert before is not None
    with ridgeline.SummaryWriter(str(logs)) as writer:
        for step in range(70_000, 70_010):
            writer.add_scalar("loss", 1 / 3 + step, step, walltime=WALL + step, new_style=True, double_precision=True)
    provider.reload()
    values = provider.scalars("run", "loss").value
    assert values[:70_000].tolist() == expected(0, range(70_000))
    assert values[70_000:].tolist() == [1 / 3 + step for step in range(70_000, 70_010)], "all 64 bits kept"
    assert before.value.tolist()[:3] == expected(0, range(3)), "a view taken before the widening stays valid"
    provider.close()
    suffixes = {p.suffix for files in series_files(tmp_path / "cache").values() for p in files}
    assert ".value8" in suffixes and ".value4" not in suffixes
    again = open_disk(tmp_path / "logs", tmp_path / "cache")
    assert again.restored_runs == 1
    assert again.scalars("run", "loss").value.tolist() == values.tolist()


def test_irregular_wall_times_and_steps_come_back_bit_for_bit(tmp_path: Path) -> None:
    """Wall times a random fraction of a second apart (and one long pause), steps with gaps: deltas, not runs."""
    rng = np.random.default_rng(7)
    steps = np.cumsum(rng.integers(1, 4, 80_000))
    walls = WALL + np.cumsum(rng.random(80_000))
    walls[40_000:] += 100_000.0  # a pause of a day: a delta past 32 bits
    logs = tmp_path / "logs" / "run"
    with ridgeline.SummaryWriter(str(logs)) as writer:
        for step, wall in zip(steps.tolist(), walls.tolist(), strict=True):
            writer.add_scalar("loss", step / 4, step, walltime=wall)
    for provider in (open_disk(tmp_path / "logs", tmp_path / "cache"), None):
        if provider is None:
            provider = open_disk(tmp_path / "logs", tmp_path / "cache")
            assert provider.restored_runs == 1
        series = provider.scalars("run", "loss")
        assert series.step.tolist() == steps.tolist()
        assert series.wall_time.tolist() == walls.tolist()
        provider.close()
    size = sum(p.stat().st_size for files in series_files(tmp_path / "cache").values() for p in files)
    assert size / len(steps) <= 12, f"{size / len(steps):.2f} bytes a point"


@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(st.integers(-(2**63), 2**63 - 1) | st.sampled_from([0, 1, 5]), max_size=3000),
    stride=st.integers(-(2**40), 2**40),
    run=st.integers(0, 3000),
    cut=st.integers(0, 3000),
)
def test_encoded_columns_decode_to_what_was_encoded(values: list[int], stride: int, run: int, cut: int) -> None:
    """Random values with a constant-stride stretch in the middle, encoded in two chunks: decode, gather and
    search (over the sorted column) agree with plain numpy."""
    x = np.array(values, dtype=np.int64)
    with np.errstate(over="ignore"):
        ramp = np.int64(7) + np.int64(stride) * np.arange(run, dtype=np.int64)
    x = np.concatenate([x[: len(x) // 2], ramp, x[len(x) // 2 :]])
    cut = min(cut, len(x))
    column = Column(np.frombuffer(encode(x[:cut], 0) + encode(x[cut:], cut), np.uint8))
    assert column.length == len(x)
    assert np.array_equal(column.decode(), x)
    picks = np.arange(0, len(x), 7)
    assert np.array_equal(column.gather(picks), x[picks])
    ordered = np.sort(x)
    column = Column(np.frombuffer(encode(ordered, 0), np.uint8))
    queries = np.concatenate([ordered[::5], ordered[::11] + 1, [-(2**63), 2**63 - 1]]).astype(np.int64)
    for side in ("left", "right"):
        assert np.array_equal(column.searchsorted(queries, side), np.searchsorted(ordered, queries, side))  # type: ignore[call-overload]


@settings(max_examples=100, deadline=None)
@given(
    ramps=st.lists(
        st.tuples(st.integers(1, 600), st.integers(-(2**40), 2**40) | st.sampled_from([1, 2, 10])), max_size=8
    ),
    noise=st.lists(st.integers(-(2**63), 2**63 - 1), max_size=40),
)
def test_a_column_whose_stride_changes_decodes_to_what_was_encoded(
    ramps: list[tuple[int, int]], noise: list[int]
) -> None:
    """Runs of constant stride end to end (steps 0..20 by 1, then by 2: where they meet, one point ends the
    first and starts the second), with irregular values after them: the pieces tile the column."""
    parts, at = [], np.int64(0)
    with np.errstate(over="ignore"):
        for length, stride in ramps:
            ramp = at + np.int64(stride) * np.arange(length, dtype=np.int64)
            parts.append(ramp)
            at = ramp[-1] + np.int64(stride)
    x = np.concatenate([*parts, np.array(noise, dtype=np.int64), np.zeros(0, np.int64)])
    column = Column(np.frombuffer(encode(x, 0), np.uint8))
    assert column.length == len(x)
    assert np.array_equal(column.decode(), x)


def test_steps_logged_by_1_then_by_2_are_read_back_from_the_store(tmp_path: Path) -> None:
    """Format 4 wrote two constant-stride pieces overlapping by the point where the stride changed, and reading
    the series then failed ("pieces do not tile the column"): a short series and a long one."""
    short = [*range(0, 21), *range(22, 62, 2)]
    long = [*range(0, 100), *range(102, 140_000, 2)]
    with ridgeline.SummaryWriter(tmp_path / "logs" / "run") as writer:
        for tag, steps in (("short", short), ("long", long)):
            for step in steps:
                writer.add_scalar(tag, step / 4, step)
    for restored in (0, 1):
        provider = open_disk(tmp_path / "logs", tmp_path / "cache")
        assert provider.restored_runs == restored
        for tag, steps in (("short", short), ("long", long)):
            series = provider.scalars("run", tag)
            assert series.step.tolist() == steps
            assert series.value.tolist() == [step / 4 for step in steps]
        provider.close()


@pytest.mark.parametrize("old_format", [1, 2, 3, 4])
def test_a_store_of_an_older_format_is_rebuilt_never_misread(tmp_path: Path, old_format: int) -> None:
    """A store written by format 1 (raw 24-byte columns), 2 (plain JSON manifests), 3 (a directory, a packed
    file and a gzip'd manifest per run) or 4 (whose columns could overlap where a stride changed): its header
    says so, and it is emptied, not read."""
    write_run(tmp_path / "logs" / "run", ["loss"], range(70_000))
    open_disk(tmp_path / "logs", tmp_path / "cache").close()
    (header,) = store_files(tmp_path / "cache", "store.json")
    (shard,) = store_files(tmp_path / "cache", ".json.gz")
    (old,) = json.loads(gzip.decompress(shard.read_bytes()))["runs"].values()
    old["format"] = old_format
    (run_directory,) = (header.parent / "runs").iterdir()
    for path in run_directory.iterdir():
        path.unlink()
    base = run_directory / "0123456789ab-0"
    if old_format == 1:  # what format 1 wrote: raw int64 / float64 / float64 columns
        np.arange(70_000, dtype="<i8").tofile(base.with_suffix(".step"))
        np.zeros(70_000, dtype="<f8").tofile(base.with_suffix(".wall_time"))
        np.full(70_000, 99.0, dtype="<f8").tofile(base.with_suffix(".value"))
    if old_format < 3:
        (run_directory / "manifest.json").write_text(json.dumps(old))  # both wrote plain JSON
    else:
        (run_directory / "manifest.json.gz").write_bytes(gzip.compress(json.dumps(old).encode()))
        (run_directory / "0123456789ab-packed.segments").write_bytes(bytes(64))
    header.write_text(json.dumps({"format": old_format, "byteorder": "little"}))
    provider = open_disk(tmp_path / "logs", tmp_path / "cache")
    assert provider.restored_runs == 0, f"nothing of format {old_format} is taken"
    assert provider.scalars("run", "loss").value.tolist() == expected(0, range(70_000))
    assert json.loads(header.read_text())["format"] == 5
    assert not list(tmp_path.rglob("*.value")), "the old columns are gone"
    assert not list(tmp_path.rglob("manifest.json*")), "and the old manifest"
    assert not list(tmp_path.rglob("*-packed.segments")), "and the old packed file"


def test_stores_of_older_formats_are_removed_from_the_cache_unless_still_written(tmp_path: Path) -> None:
    """The cache key includes the format, so an older format's store would never be opened again: it is deleted
    when a store is opened there, but not while its writer lock is held (an older version still running), and
    not when a newer format wrote it."""
    cache = tmp_path / "cache"
    write_run(tmp_path / "logs" / "run", ["loss"], range(100))
    stores = {name: cache / f"store-{name}" for name in ("old", "busy", "newer", "foreign")}
    for name, path in stores.items():
        (path / "runs").mkdir(parents=True, mode=0o700)
        (path / "runs" / "0123456789ab-packed.segments").write_bytes(bytes(64))
        version = {"old": 4, "busy": 3, "newer": 99, "foreign": "4"}[name]
        (path / "store.json").write_text(json.dumps({"format": version, "byteorder": "little"}))
    cache.chmod(0o700)
    for path in cache.rglob("*"):
        path.chmod(0o700 if path.is_dir() else 0o600)
    held = WriterLock(stores["busy"])
    try:
        provider = open_disk(tmp_path / "logs", cache)
        assert provider.scalars("run", "loss").value.tolist() == expected(0, range(100))
        provider.close()
    finally:
        held.release()
    assert not stores["old"].exists()
    assert stores["busy"].exists() and stores["newer"].exists() and stores["foreign"].exists()
    (current,) = [path for path in cache.iterdir() if path not in stores.values()]
    assert json.loads((current / "store.json").read_text())["format"] == 5


def test_a_damaged_manifest_is_rebuilt_never_read(tmp_path: Path) -> None:
    """A manifest shard cut short or with a flipped byte fails to decompress: its runs are read again from their
    events."""
    write_run(tmp_path / "logs" / "run", ["loss"], range(100))
    open_disk(tmp_path / "logs", tmp_path / "cache").close()
    (shard,) = store_files(tmp_path / "cache", ".json.gz")
    data = shard.read_bytes()
    shard.write_bytes(data[: len(data) // 2])
    provider = open_disk(tmp_path / "logs", tmp_path / "cache")
    assert provider.restored_runs == 0
    assert provider.scalars("run", "loss").value.tolist() == expected(0, range(100))
    provider.close()
    assert open_disk(tmp_path / "logs", tmp_path / "cache").restored_runs == 1, "and written again, intact"


@pytest.mark.parametrize(
    "damage",
    [
        ("segments", [[0, 1 << 40, 8, 100]]),  # past the run's bytes of its pack
        ("segments", [[99, 0, 8, 100]]),  # a pack the run does not name
        ("segments", [[0, 0, 8, -1]]),
        ("restarts", [0, 5]),  # STARTs the run's log does not hold
        ("last_step", "ninety-nine"),
    ],
)
def test_a_manifest_that_lists_an_impossible_series_is_refused_when_the_store_opens(
    tmp_path: Path, damage: tuple[str, object]
) -> None:
    """Decoded whole but wrong (what only a bug would write): the run is read again at once, even though a
    loaded run's series are built only when first read."""
    write_run(tmp_path / "logs" / "run", ["loss", "acc"], range(100))
    write_run(tmp_path / "logs" / "other", ["loss"], range(10))
    open_disk(tmp_path / "logs", tmp_path / "cache").close()
    for shard in store_files(tmp_path / "cache", ".json.gz"):
        found = json.loads(gzip.decompress(shard.read_bytes()))
        for manifest in found["runs"].values():
            if manifest["name"] == "run":
                field, value = damage
                manifest["scalars"][1][field] = value
        shard.write_bytes(gzip.compress(json.dumps(found).encode()))
    provider = open_disk(tmp_path / "logs", tmp_path / "cache")
    assert provider.restored_runs == 1, "the other run comes from the store"
    assert provider.scalars("run", "loss").value.tolist() == expected(0, range(100))
    assert provider.scalars("run", "acc").value.tolist() == expected(1, range(100))
    provider.close()
    assert open_disk(tmp_path / "logs", tmp_path / "cache").restored_runs == 2, "and written again, intact"


@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_a_damaged_encoded_column_is_rebuilt_never_served(tmp_path: Path, damage: str) -> None:
    write_run(tmp_path / "logs" / "run", ["loss"], range(70_000))
    open_disk(tmp_path / "logs", tmp_path / "cache").close()
    for suffix in (".step", ".lod"):
        (path,) = store_files(tmp_path / "cache", suffix)
        data = bytearray(path.read_bytes())
        if damage == "flip":
            data[len(data) // 2] ^= 0x10
        else:
            del data[-8:]
        path.write_bytes(bytes(data))
        provider = open_disk(tmp_path / "logs", tmp_path / "cache")
        assert isinstance(provider, DiskProvider) and provider.restored_runs == 0
        assert provider.scalars("run", "loss").step.tolist() == list(range(70_000))
        provider.close()


@pytest.mark.parametrize(
    "manifest",
    [
        {"first_wall_time": float("nan"), "last_wall_time": float("inf"), "own": None},  # orjson writes null
        {"segments": [[0, 2**70, 960, 100]]},  # beyond 64 bits: orjson refuses it
        {"name": "run\udc80", "marks": [["a", {"first_wall_time": float("-inf")}]]},  # a lone surrogate
        {"name": "run_é", "scalars": [{"tag": "loss", "increasing": True, "last_step": 99}], "last": 1.78e9},
    ],
)
def test_a_manifest_reads_back_as_it_was_whichever_encoder_wrote_it(manifest: dict[str, object]) -> None:
    text = to_json(manifest)
    back = json.loads(text)
    assert json.dumps(back, allow_nan=True) == json.dumps(manifest, allow_nan=True)  # NaN compares unequal
