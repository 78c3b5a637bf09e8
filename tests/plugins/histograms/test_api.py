"""GET /api/histograms in process, on histograms written by torch, ridgeline and a TF2-style writer
(tests/plugins/histogram_logs.py; the distributions plugin's tests read the same directory)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.plugins.conftest import Api
from tests.plugins.histogram_logs import STEPS, TORCH_TAGS, tf2_buckets, values_at


def test_runs_list_histogram_tags(histograms_api: Api) -> None:
    runs = {r["run"]: r["tags"].get("histograms", []) for r in histograms_api.get("/api/runs").json()["runs"]}
    assert set(runs["torch"]) == set(TORCH_TAGS)
    assert {"odd/single", "odd/empty", *TORCH_TAGS} == set(runs["ridgeline"])
    assert runs["keras"] == ["dense/kernel_0"]


def test_raw_buckets_of_a_tf2_tensor_histogram(histograms_api: Api) -> None:
    body = histograms_api.get("/api/histograms", run="keras", tag="dense/kernel_0", step=3).json()
    assert body["steps"] == list(range(STEPS + 1))
    assert [h["step"] for h in body["histograms"]] == [3]
    assert np.allclose(body["histograms"][0]["buckets"], tf2_buckets(3))


def test_torch_histograms_sampled_and_binned(histograms_api: Api) -> None:
    body = histograms_api.get("/api/histograms", run="torch", tag="weights/fc1", max_steps=5, bins=30).json()
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


def test_a_step_on_given_bins(histograms_api: Api) -> None:
    body = histograms_api.get(
        "/api/histograms", run="torch", tag="grad/fc1", step=7, bins=4, range_min=-20, range_max=20
    ).json()
    assert body["range"] == [-20, 20] and body["sampled"] is False
    assert sum(body["histograms"][0]["count"]) == pytest.approx(500)


def test_a_range_given_in_part_or_reversed_is_still_a_range(histograms_api: Api) -> None:
    """Every request the spec allows is answered (issue 13): a missing end comes from the sample, a reversed range
    is swapped, a range of one value becomes a bin of width 1 around it."""
    whole = histograms_api.get("/api/histograms", run="torch", tag="grad/fc1", step=7, bins=4).json()["range"]
    params = {"run": "torch", "tag": "grad/fc1", "step": 7, "bins": 4}
    assert histograms_api.get("/api/histograms", **params, range_min=-20).json()["range"] == [-20, whole[1]]
    assert histograms_api.get("/api/histograms", **params, range_max=20).json()["range"] == [whole[0], 20]
    assert histograms_api.get("/api/histograms", **params, range_min=20, range_max=-20).json()["range"] == [-20, 20]
    assert histograms_api.get("/api/histograms", **params, range_min=1, range_max=1).json()["range"] == [0.5, 1.5]
    huge = histograms_api.get("/api/histograms", **params, range_min=-1e308, range_max=1e308).json()
    assert huge["range"] == [-1e308, 1e308] and sum(huge["histograms"][0]["count"]) == pytest.approx(500)


def test_single_bucket_and_empty_histograms(histograms_api: Api) -> None:
    single = histograms_api.get("/api/histograms", run="ridgeline", tag="odd/single", bins=3, max_steps=2).json()
    assert single["range"][0] < 2.5 < single["range"][1]
    assert [h["count"] for h in single["histograms"]] == [[0, 10, 0], [0, 10, 0]]
    empty = histograms_api.get("/api/histograms", run="ridgeline", tag="odd/empty", bins=3, max_steps=2).json()
    assert empty["range"] is None and all(h["total"] == 0 for h in empty["histograms"])
    raw = histograms_api.get("/api/histograms", run="ridgeline", tag="odd/empty", step=0).json()
    assert raw["histograms"][0]["buckets"] == []


def test_an_undecodable_step_is_an_error_of_its_own(histograms_api: Api) -> None:
    body = histograms_api.get("/api/histograms", run="keras", tag="dense/kernel_0", bins=10).json()
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
    ],
)
def test_errors(histograms_api: Api, path: str, params: dict[str, object], status: int) -> None:
    response = histograms_api.get(path, **params)
    assert response.status_code == status
    assert response.json()["error"]


def test_openapi_documents_the_routes(histograms_api: Api) -> None:
    paths = histograms_api.get("/api/openapi.json").json()["paths"]
    assert "max_steps" in str(paths["/api/histograms"])
