"""The compiled encoder of packed segments (``ridgeline.store._segment_core``) against the numpy encoder it
replaces: the same bytes, so a store is the same whichever wrote it; and every segment decodes to the points
that went in (the test's own arrays, not anything either encoder computed)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ridgeline.store import packs
from ridgeline.store.packs import Pieces, decode_segment, encode_pending
from tests.store.test_disk import expected, open_disk, write_run

core = pytest.importorskip("ridgeline.store._segment_core", reason="the compiled core is built by make test")

INT64 = st.integers(-(2**63), 2**63 - 1)
EDGES = [bound + offset for bound in (2**7, 2**15, 2**31) for offset in (-1, 0)] + [
    -bound + offset for bound in (2**7, 2**15, 2**31) for offset in (-1, 0)
]
FLOATS = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([-0.0, 3.4028235e38, 3.5e38, 1e-46])


@st.composite
def steps(draw: st.DrawFn) -> np.ndarray:
    """Ramps of constant stride end to end (a stride that changes), repeats and arbitrary int64s."""
    parts = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["ramp", "random", "repeat", "deltas"]))
        length = draw(st.integers(1, 400))
        if kind == "ramp":
            start, stride = draw(INT64), draw(st.sampled_from([1, 2, 10, -3]) | INT64)
            with np.errstate(over="ignore"):
                parts.append(np.int64(start) + np.int64(stride) * np.arange(length, dtype=np.int64))
        elif kind == "deltas":  # differences at the edges of int8, int16 and int32
            deltas = draw(st.lists(st.integers(-5, 5), max_size=300))
            deltas.insert(draw(st.integers(0, len(deltas))), draw(st.sampled_from(EDGES)))
            parts.append(np.cumsum(np.array(deltas, dtype=np.int64)))
        elif kind == "random":
            parts.append(np.array(draw(st.lists(INT64, min_size=1, max_size=60)), dtype=np.int64))
        else:
            parts.append(np.full(length, draw(INT64), dtype=np.int64))
    return np.concatenate(parts)


@st.composite
def series(draw: st.DrawFn) -> tuple[Pieces, int, np.ndarray, np.ndarray, np.ndarray]:
    step = draw(steps())
    n = len(step)
    if draw(st.booleans()):
        wall = 1.7e9 + np.cumsum(np.full(n, draw(st.floats(0, 100))))
    else:
        wall = draw(hnp.arrays(np.float64, n, elements=FLOATS))
    if draw(st.booleans()):  # every value a float32, as simple_value gives them
        value = np.arange(n, dtype=np.float32).astype(np.float64) / 7
    else:
        value = draw(hnp.arrays(np.float64, n, elements=FLOATS))
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=6)))
    pieces: Pieces = (np.split(step, cuts), np.split(wall, cuts), np.split(value, cuts))
    return pieces, draw(st.integers(0, n - 1)), step, wall, value


@settings(max_examples=200, deadline=None)
@given(one=series())
def test_the_compiled_segment_is_the_numpy_one_and_decodes_to_its_points(
    one: tuple[Pieces, int, np.ndarray, np.ndarray, np.ndarray],
) -> None:
    pieces, skip, step, wall, value = one
    (compiled,) = encode_pending([(pieces, skip)])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(packs, "SEGMENT_CORE", None)
        (numpy_made,) = encode_pending([(pieces, skip)])
    assert compiled == numpy_made
    data, count, fell, first, last = compiled
    assert count == len(step)
    assert fell == any(int(b) <= int(a) for a, b in zip(step[skip:], step[skip + 1 :], strict=False))
    assert (first, last) == (int(step[skip]), int(step[-1]))
    got_step, got_wall, got_value = decode_segment(data)
    assert np.array_equal(got_step, step)
    assert np.array_equal(got_wall.view(np.int64), wall.view(np.int64)), "wall times bit for bit"
    with np.errstate(over="ignore", invalid="ignore"):
        narrow = np.array_equal(value.astype(np.float32).astype(np.float64).view(np.int64), value.view(np.int64))
    assert got_value.dtype == (np.float32 if narrow else np.float64)
    assert np.array_equal(got_value.astype(np.float64).view(np.int64), value.view(np.int64)), "values bit for bit"


def test_strided_and_foreign_pieces_are_taken_as_contiguous_copies() -> None:
    step = np.arange(0, 400, 2, dtype=np.int64)[::2]  # a strided view
    wall = np.linspace(1.0, 2.0, 100).astype(np.float32)  # float32 wall times: widened
    value = list(range(100))  # not even an array
    ((data, count, fell, first, last),) = encode_pending([(([step], [wall], [value]), 0)])  # type: ignore[list-item]
    assert (count, fell, first, last) == (100, False, 0, 396)
    got_step, got_wall, got_value = decode_segment(data)
    assert got_step.tolist() == step.tolist() and got_wall.tolist() == wall.astype(np.float64).tolist()
    assert got_value.tolist() == [float(v) for v in value]


def test_pieces_that_disagree_are_refused_by_name() -> None:
    step, wall = [np.arange(3, dtype=np.int64)], [np.zeros(3)]
    with pytest.raises(ValueError, match="equally long"):
        core.segment(step, wall, [np.zeros(2)], 0)
    with pytest.raises(ValueError, match="skip"):
        core.segment(step, wall, [np.zeros(3)], 3)
    with pytest.raises(TypeError, match="steps must hold 1-D arrays of int64"):
        core.segment([np.zeros(3, np.int32)], wall, [np.zeros(3)], 0)


def test_a_store_built_with_the_numpy_encoder_is_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pass of many short series (packed) through each encoder: the pack files are identical, and read back
    every point written."""
    for run in range(3):
        write_run(tmp_path / "logs" / f"run{run}", ["loss", "acc", "lr"], [*range(0, 300), *range(302, 900, 2)])
    built = {}
    for name, segment_core in (("compiled", packs.SEGMENT_CORE), ("numpy", None)):
        monkeypatch.setattr(packs, "SEGMENT_CORE", segment_core)
        provider = open_disk(tmp_path / "logs", tmp_path / name)
        provider.close()
        built[name] = sorted(path.read_bytes() for path in (tmp_path / name).rglob("*.segments"))
    assert built["compiled"] == built["numpy"] and built["numpy"]
    provider = open_disk(tmp_path / "logs", tmp_path / "numpy")
    assert provider.restored_runs == 3
    assert provider.scalars("run2", "lr").value.tolist() == expected(2, [*range(0, 300), *range(302, 900, 2)])
    provider.close()
