"""GET /api/histograms and /api/distributions against a real ``ridgeline serve`` on histograms written by torch,
ridgeline and a TF2-style writer; the percentile bands checked against TensorBoard's own compress_histogram."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from tests.server.conftest import Served, serving_logdir
from tests.server.histogram_logs import STEPS, TORCH_TAGS, tf2_buckets, values_at, write_histogram_logs

compressor = pytest.importorskip("tensorboard.plugins.distribution.compressor")


@pytest.fixture(scope="module")
def hist_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serving_logdir(write_histogram_logs(tmp_path_factory.mktemp("histograms"))) as served:
        yield served


def test_runs_list_histogram_tags(hist_server: Served) -> None:
    runs = {r["run"]: r["tags"].get("histograms", []) for r in hist_server.get("/api/runs").json()["runs"]}
    assert set(runs["torch"]) == set(TORCH_TAGS)
    assert {"odd/single", "odd/empty", *TORCH_TAGS} == set(runs["ridgeline"])
    assert runs["keras"] == ["dense/kernel_0"]


def test_raw_buckets_of_a_tf2_tensor_histogram(hist_server: Served) -> None:
    body = hist_server.get("/api/histograms", run="keras", tag="dense/kernel_0", step=3).json()
    assert body["steps"] == list(range(STEPS + 1))
    assert [h["step"] for h in body["histograms"]] == [3]
    assert np.allclose(body["histograms"][0]["buckets"], tf2_buckets(3))


def test_torch_histograms_sampled_and_binned(hist_server: Served) -> None:
    body = hist_server.get("/api/histograms", run="torch", tag="weights/fc1", max_steps=5, bins=30).json()
    assert body["total_steps"] == STEPS and body["sampled"] is True and body["bins"] == 30
    steps = [h["step"] for h in body["histograms"]]
    assert len(steps) == 5 and steps[0] == 0 and steps[-1] == STEPS - 1 and steps == sorted(steps)
    low, high = body["range"]
    for h in body["histograms"]:
        values = values_at(h["step"], 0)
        assert len(h["count"]) == 30
        assert h["total"] == len(values) and sum(h["count"]) == pytest.approx(len(values))
        # torch's buckets are ~10% wide: the re-binned counts stay close to binning the values themselves.
        direct, _ = np.histogram(values, bins=30, range=(low, high))
        assert np.abs(np.cumsum(h["count"]) - np.cumsum(direct)).max() <= 6


def test_a_step_on_given_bins(hist_server: Served) -> None:
    body = hist_server.get(
        "/api/histograms", run="torch", tag="grad/fc1", step=7, bins=4, range_min=-20, range_max=20
    ).json()
    assert body["range"] == [-20, 20] and body["sampled"] is False
    assert sum(body["histograms"][0]["count"]) == pytest.approx(500)


def test_a_range_given_in_part_or_reversed_is_still_a_range(hist_server: Served) -> None:
    """Every request the spec allows is answered (issue 13): a missing end comes from the sample, a reversed range
    is swapped, a range of one value becomes a bin of width 1 around it."""
    whole = hist_server.get("/api/histograms", run="torch", tag="grad/fc1", step=7, bins=4).json()["range"]
    params = {"run": "torch", "tag": "grad/fc1", "step": 7, "bins": 4}
    assert hist_server.get("/api/histograms", **params, range_min=-20).json()["range"] == [-20, whole[1]]
    assert hist_server.get("/api/histograms", **params, range_max=20).json()["range"] == [whole[0], 20]
    assert hist_server.get("/api/histograms", **params, range_min=20, range_max=-20).json()["range"] == [-20, 20]
    assert hist_server.get("/api/histograms", **params, range_min=1, range_max=1).json()["range"] == [0.5, 1.5]
    huge = hist_server.get("/api/histograms", **params, range_min=-1e308, range_max=1e308).json()
    assert huge["range"] == [-1e308, 1e308] and sum(huge["histograms"][0]["count"]) == pytest.approx(500)


def test_single_bucket_and_empty_histograms(hist_server: Served) -> None:
    single = hist_server.get("/api/histograms", run="ridgeline", tag="odd/single", bins=3, max_steps=2).json()
    assert single["range"][0] < 2.5 < single["range"][1]
    assert [h["count"] for h in single["histograms"]] == [[0, 10, 0], [0, 10, 0]]
    empty = hist_server.get("/api/histograms", run="ridgeline", tag="odd/empty", bins=3, max_steps=2).json()
    assert empty["range"] is None and all(h["total"] == 0 for h in empty["histograms"])
    raw = hist_server.get("/api/histograms", run="ridgeline", tag="odd/empty", step=0).json()
    assert raw["histograms"][0]["buckets"] == []


def test_an_undecodable_step_is_an_error_of_its_own(hist_server: Served) -> None:
    body = hist_server.get("/api/histograms", run="keras", tag="dense/kernel_0", bins=10).json()
    *good, bad = body["histograms"]
    assert bad["step"] == STEPS and "tensor_content" in bad["error"]
    assert len(good) == STEPS and all("count" in h for h in good)


@pytest.mark.parametrize(
    ("path", "params", "status"),
    [
        ("/api/histograms", {"run": "nope", "tag": "x"}, 404),
        ("/api/histograms", {"run": "torch", "tag": "nope"}, 404),
        ("/api/histograms", {"run": "torch", "tag": "grad/fc1", "step": 12345}, 404),
        ("/api/histograms", {"run": "torch", "tag": "grad/fc1", "bins": 0}, 400),
        ("/api/histograms", {"run": "torch", "tag": "grad/fc1", "max_steps": 0}, 400),
        ("/api/histograms", {"run": "torch", "tag": "grad/fc1", "bins": 3, "range_min": "nan"}, 400),
        ("/api/distributions", {"run": "nope", "tag": "x"}, 404),
        ("/api/distributions", {"run": "torch", "tag": "nope"}, 404),
        ("/api/distributions", {"run": "torch", "tag": "grad/fc1", "max_steps": 1}, 400),
    ],
)
def test_errors(hist_server: Served, path: str, params: dict[str, object], status: int) -> None:
    response = hist_server.get(path, **params)
    assert response.status_code == status
    assert response.json()["error"]


def tensorboard_bands(buckets: np.ndarray) -> list[float]:
    return [value for _, value in compressor.compress_histogram([tuple(b) for b in buckets])]


@pytest.mark.parametrize(
    ("run", "tag"), [("torch", "weights/fc2"), ("ridgeline", "grad/fc1"), ("keras", "dense/kernel_0")]
)
def test_distributions_equal_tensorboards(hist_server: Served, run: str, tag: str) -> None:
    body = hist_server.get("/api/distributions", run=run, tag=tag).json()
    assert body["basis_points"] == list(compressor.NORMAL_HISTOGRAM_BPS)
    assert body["step"] == list(range(STEPS)) and body["empty_steps"] == []
    values = np.asarray(body["values"], dtype=np.float64)
    assert values.shape == (9, STEPS)
    for i, step in enumerate(body["step"]):
        raw = hist_server.get("/api/histograms", run=run, tag=tag, step=step).json()
        buckets = np.asarray(raw["histograms"][0]["buckets"], dtype=np.float64)
        assert values[:, i].tolist() == tensorboard_bands(buckets)
    assert [e["step"] for e in body["errors"]] == ([STEPS] if run == "keras" else [])


def test_distributions_of_odd_histograms(hist_server: Served) -> None:
    single = hist_server.get("/api/distributions", run="ridgeline", tag="odd/single", max_steps=3).json()
    assert single["step"] == [0, 20, STEPS - 1] and single["sampled"] is True
    assert np.asarray(single["values"]).tolist() == [[2.5] * 3] * 9
    empty = hist_server.get("/api/distributions", run="ridgeline", tag="odd/empty").json()
    assert empty["empty_steps"] == list(range(STEPS))
    assert all(v is None for column in empty["values"] for v in column)


def test_openapi_documents_the_routes(hist_server: Served) -> None:
    paths = hist_server.get("/api/openapi.json").json()["paths"]
    assert "max_steps" in str(paths["/api/histograms"]) and "/api/distributions" in paths
