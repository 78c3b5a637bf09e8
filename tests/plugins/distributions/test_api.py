"""GET /api/distributions in process, on the histograms of tests/plugins/histogram_logs.py (written by torch,
ridgeline and a TF2-style writer): the percentile bands checked against TensorBoard's own compress_histogram."""

from __future__ import annotations

import numpy as np
import pytest

from tests.plugins.conftest import Api
from tests.plugins.histogram_logs import STEPS

compressor = pytest.importorskip("tensorboard.plugins.distribution.compressor")


@pytest.mark.parametrize(
    ("path", "params", "status"),
    [
        ("/api/distributions", {"run": "nope", "tag": "x"}, 404),
        ("/api/distributions", {"run": "torch", "tag": "nope"}, 404),
        ("/api/distributions", {"run": "torch", "tag": "grad/fc1", "max_steps": 1}, 400),
    ],
)
def test_errors(histograms_api: Api, path: str, params: dict[str, object], status: int) -> None:
    response = histograms_api.get(path, **params)
    assert response.status_code == status
    assert response.json()["error"]


def tensorboard_bands(buckets: np.ndarray) -> list[float]:
    return [value for _, value in compressor.compress_histogram([tuple(b) for b in buckets])]


@pytest.mark.parametrize(
    ("run", "tag"), [("torch", "weights/fc2"), ("ridgeline", "grad/fc1"), ("keras", "dense/kernel_0")]
)
def test_distributions_equal_tensorboards(histograms_api: Api, run: str, tag: str) -> None:
    body = histograms_api.get("/api/distributions", run=run, tag=tag).json()
    assert body["basis_points"] == list(compressor.NORMAL_HISTOGRAM_BPS)
    assert body["step"] == list(range(STEPS)) and body["empty_steps"] == []
    values = np.asarray(body["values"], dtype=np.float64)
    assert values.shape == (9, STEPS)
    for i, step in enumerate(body["step"]):
        raw = histograms_api.get("/api/histograms", run=run, tag=tag, step=step).json()
        buckets = np.asarray(raw["histograms"][0]["buckets"], dtype=np.float64)
        assert values[:, i].tolist() == tensorboard_bands(buckets)
    assert [e["step"] for e in body["errors"]] == ([STEPS] if run == "keras" else [])


def test_distributions_of_odd_histograms(histograms_api: Api) -> None:
    single = histograms_api.get("/api/distributions", run="ridgeline", tag="odd/single", max_steps=3).json()
    assert single["step"] == [0, 20, STEPS - 1] and single["sampled"] is True
    assert np.asarray(single["values"]).tolist() == [[2.5] * 3] * 9
    empty = histograms_api.get("/api/distributions", run="ridgeline", tag="odd/empty").json()
    assert empty["empty_steps"] == list(range(STEPS))
    assert all(v is None for column in empty["values"] for v in column)


def test_openapi_documents_the_route(histograms_api: Api) -> None:
    paths = histograms_api.get("/api/openapi.json").json()["paths"]
    assert "/api/distributions" in paths
