"""Reading the projector's files: tensors.tsv parsed in bulk (pyarrow's reader and numpy's give the same matrix,
and TensorBoard's reader does too), errors that name the line, the parse cache, and the metadata search."""

from __future__ import annotations

import builtins
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ridgeline.ingest.projector import read_projector
from ridgeline.plugins.projector.dataset import DatasetCache, vectors_path
from ridgeline.search.errors import SearchError
from ridgeline.search.rows import RowSearch
from ridgeline.store.embeddings import ProjectorError, parse_tsv
from tests.plugins.projector import logs


@pytest.fixture(params=["pyarrow", "numpy"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both parsers: with pyarrow installed, and as if it were not (numpy's fromstring)."""
    if request.param == "numpy":
        real_import = builtins.__import__

        def without_pyarrow(name: str, *args: Any, **kwargs: Any) -> Any:
            if name.startswith("pyarrow"):
                raise ImportError(name)
            return real_import(name, *args, **kwargs)

        monkeypatch.delitem(sys.modules, "pyarrow", raising=False)
        monkeypatch.setattr(builtins, "__import__", without_pyarrow)
    return str(request.param)


CASES = [
    (b"1\t2\n3\t4\n", [[1, 2], [3, 4]]),
    (b"1\t2\r\n3\t4", [[1, 2], [3, 4]]),  # CRLF, no final newline
    (b"\n1\t2\n\n3\t4\n\n", [[1, 2], [3, 4]]),  # blank lines skipped
    (b"5\n", [[5]]),
    (b"1e3\t-2.5E-1\n", [[1000, -0.25]]),
]


@pytest.mark.parametrize(("data", "expected"), CASES)
def test_matrices(parser: str, data: bytes, expected: list[list[float]]) -> None:
    matrix = parse_tsv(data, "t.tsv")
    assert matrix.dtype == np.float32
    assert matrix.tolist() == expected


def test_non_finite_values_are_read_as_such(parser: str) -> None:
    matrix = parse_tsv(b"nan\tinf\n-inf\t1\n", "t.tsv")
    assert np.isnan(matrix[0, 0]) and matrix[0, 1] == np.inf and matrix[1, 0] == -np.inf


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"1\t2\n3\n", "line 2 has 1, line 1 has 2 (the file looks truncated)"),
        (b"1\t2\n3\t4\t5\n6\t7\n", "line 2 has 3, line 1 has 2"),
        (b"1\t2\n3\tx\n", "not a matrix of numbers: line 2 holds 'x'"),
        (b"1\t\t2\n", "line 1 has an empty value"),
    ],
)
def test_errors_name_the_line(parser: str, data: bytes, message: str) -> None:
    with pytest.raises(ProjectorError, match="t.tsv: .*" + message.replace("(", r"\(").replace(")", r"\)")):
        parse_tsv(data, "t.tsv")


def test_the_error_is_found_far_into_a_large_file(parser: str) -> None:
    rows = [f"{i}\t{i + 1}" for i in range(20_000)]
    rows[17_345] = "1\toops"
    with pytest.raises(ProjectorError, match="line 17346 holds 'oops'"):
        parse_tsv("\n".join(rows).encode(), "t.tsv")


def test_the_same_matrix_as_tensorboard_reads(tmp_path: Path) -> None:
    pytest.importorskip("tensorboard")
    from tensorboard.plugins.projector.projector_plugin import _read_tensor_tsv_file

    run = logs.write_torch(tmp_path)
    (embedding, *_) = read_projector(run)
    assert embedding.tensor_path is not None
    np.testing.assert_array_equal(embedding.tensors(), _read_tensor_tsv_file(embedding.tensor_path))


def test_the_parsed_matrix_is_cached_outside_the_log_directory(tmp_path: Path) -> None:
    run = logs.write_ridgeline(tmp_path / "logs")
    cache = tmp_path / "cache"
    before = sorted(p.name for p in run.rglob("*"))
    refs = [r for r in read_projector(run) if r.step == 5]
    first = DatasetCache(cache).get("ridgeline", refs[0])
    assert vectors_path(cache, first.digest).exists()
    np.testing.assert_array_equal(first.vectors, logs.clusters(5))
    # A second server finds it by the file's path, size and time: the file is not parsed again.
    (ref,) = refs
    again = DatasetCache(cache).get("ridgeline", ref)
    assert isinstance(again.vectors, np.memmap) and again.digest == first.digest
    assert sorted(p.name for p in run.rglob("*")) == before  # nothing written into the log directory


def test_row_search() -> None:
    search = RowSearch(
        {"label": (["cat", "dog", "kitten"], np.array([0, 1, 2, 0, 1])), "n": (["1", "2"], np.array([0, 0, 1, 1, 0]))}
    )
    assert search.matching("cat").tolist() == [0, 3]
    assert search.matching("meta:^cat$ OR kit").tolist() == [0, 2, 3]
    assert search.matching("meta:^(cat|kitten)$ NOT meta:^2$").tolist() == [0]
    assert search.matching("2", column="n").tolist() == [2, 3]
    assert search.matching("  ").tolist() == []
    with pytest.raises(SearchError, match="not a field"):
        search.matching("run:x")
    with pytest.raises(SearchError, match="no metadata column 'nope'"):
        search.matching("x", column="nope")
