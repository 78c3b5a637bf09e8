"""The scalars plugin's API (series, batches, downloads), in process, over runs written by torch's writer and
ridgeline's (``logs``, tests/conftest.py)."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest

from tests.conftest import RIDGELINE_SERIES, TORCH_SERIES, as_read, wall
from tests.plugins.conftest import Api


@pytest.mark.parametrize(("run", "series"), [("torch", TORCH_SERIES), ("mixed", RIDGELINE_SERIES)])
def test_values_are_exactly_what_was_written(api: Api, run: str, series: dict[str, list[tuple[int, float]]]) -> None:
    for tag, points in series.items():
        if tag == "backwards":
            continue
        body = api.get("/api/scalars", run=run, tag=tag).json()
        steps, walls, values = as_read(points)
        assert body["step"] == steps and all(isinstance(step, int) for step in body["step"])
        assert body["wall_time"] == pytest.approx(walls, abs=1e-6)
        assert body["value"] == values
        assert body["reduced"] is False and body["total_points"] == len(points)
        assert "band_low" not in body and "band_high" not in body


def test_non_finite_values_are_null_and_listed(api: Api) -> None:
    body = api.get("/api/scalars", run="mixed", tag="acc(top-1)[val]").json()
    assert body["value"] == [1.5, None, None, None, 2.5]
    assert body["nonfinite"] == [
        {"step": 1, "value": "nan"},
        {"step": 2, "value": "inf"},
        {"step": 3, "value": "-inf"},
    ]


def test_steps_going_backwards_show_the_last_write(api: Api) -> None:
    body = api.get("/api/scalars", run="mixed", tag="backwards").json()
    assert body["step"] == [0, 1, 2, 3, 4, 5, 6, 7]
    assert body["value"] == [0.0, 1.0, 2.0, 3.0, 4.0, 105.0, 106.0, 107.0]


def test_a_series_of_one_point(api: Api) -> None:
    body = api.get("/api/scalars", run="mixed", tag="Loss/训练", max_points=2).json()
    assert body["step"] == [7] and body["value"] == [3.0] and body["reduced"] is False


def test_reduction_keeps_extremes_and_reports_the_band(api: Api) -> None:
    body = api.get("/api/scalars", run="torch", tag="train/loss", max_points=40).json()
    _, _, values = as_read(TORCH_SERIES["train/loss"])
    assert body["reduced"] is True and body["total_points"] == 300
    assert 2 <= len(body["step"]) <= 40
    assert body["step"][0] == 0 and body["step"][-1] == 299
    assert body["step"] == sorted(body["step"])
    assert len(body["band_low"]) == len(body["band_high"]) == len(body["step"])
    for step, value, low, high in zip(body["step"], body["value"], body["band_low"], body["band_high"], strict=True):
        assert value == values[step]
        assert low <= value <= high
    assert min(body["band_low"]) == min(values) and max(body["band_high"]) == max(values)


def test_step_range_applies_before_reduction(api: Api) -> None:
    body = api.get("/api/scalars", run="mixed", tag="loss", min_step=100, max_step=199, max_points=500).json()
    assert body["step"] == list(range(100, 200))
    assert body["reduced"] is False and body["total_points"] == 100
    body = api.get("/api/scalars", run="mixed", tag="loss", min_step=100, max_step=899, max_points=50).json()
    assert body["reduced"] is True and body["total_points"] == 800
    assert body["step"][0] == 100 and body["step"][-1] == 899
    empty = api.get("/api/scalars", run="mixed", tag="loss", min_step=5000).json()
    assert empty["step"] == [] and empty["total_points"] == 0


def test_since_step_returns_only_newer_points(api: Api) -> None:
    body = api.get("/api/scalars", run="mixed", tag="loss", since_step=994).json()
    assert body["step"] == [995, 996, 997, 998, 999]
    assert api.get("/api/scalars", run="mixed", tag="loss", since_step=999).json()["step"] == []


def test_unknown_run_or_tag_is_404_json(api: Api) -> None:
    response = api.get("/api/scalars", run="nope", tag="loss")
    assert response.status_code == 404
    assert "no run 'nope'" in response.json()["error"]
    response = api.get("/api/scalars", run="torch", tag="missing")
    assert response.status_code == 404 and "'missing'" in response.json()["error"]
    assert api.get("/api/annotations", run="nope").status_code == 404
    response = api.get("/api/no-such-route")
    assert response.status_code == 404 and "error" in response.json()


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({"run": "torch", "tag": "train/loss", "max_points": 1}, "max_points"),
        ({"run": "torch", "tag": "train/loss", "max_points": "many"}, "max_points"),
        ({"run": "torch", "tag": "train/loss", "since_step": "x"}, "since_step"),
        ({"run": "torch", "tag": "train/loss", "min_step": "1.5"}, "min_step"),
        ({"run": "torch"}, "tag"),
    ],
)
def test_bad_parameters_are_400_naming_the_parameter(api: Api, params: dict[str, object], parameter: str) -> None:
    response = api.get("/api/scalars", **params)
    assert response.status_code == 400
    assert f"'{parameter}'" in response.json()["error"]


def test_batch_answers_in_request_order_with_per_entry_errors(api: Api) -> None:
    pairs = [
        {"run": "torch", "tag": "train/acc"},
        {"run": "mixed", "tag": "nope"},
        {"run": "mixed", "tag": "loss"},
        {"run": "gone", "tag": "loss"},
    ]
    response = api.client.post("/api/scalars/batch", json={"series": pairs, "max_points": 20})
    assert response.status_code == 200
    results = response.json()["series"]
    assert [(item["run"], item["tag"]) for item in results] == [(p["run"], p["tag"]) for p in pairs]
    assert results[0]["step"][0] == 0 and results[0]["step"][-1] == 297
    assert results[0]["reduced"] is True and len(results[0]["step"]) <= 20
    assert "'nope'" in results[1]["error"] and "step" not in results[1]
    assert results[2]["step"][-1] == 999 and results[2]["total_points"] == 1000
    assert "no run 'gone'" in results[3]["error"]
    since = api.client.post("/api/scalars/batch", json={"series": pairs[2:3], "since_step": 997}).json()
    assert since["series"][0]["step"] == [998, 999]


@pytest.mark.parametrize(
    "body",
    [{"series": [{"run": "torch"}]}, {"series": "torch"}, {"series": [], "max_points": 1}, {}],
)
def test_malformed_batch_body_is_400(api: Api, body: dict[str, object]) -> None:
    response = api.client.post("/api/scalars/batch", json=body)
    assert response.status_code == 400
    assert response.json()["error"]
    response = api.client.post("/api/scalars/batch", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 400


def test_csv_download(api: Api) -> None:
    response = api.get("/api/scalars.csv", run="mixed", tag="acc(top-1)[val]")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert response.headers["content-disposition"].startswith("attachment")
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0] == ["step", "wall_time", "value"]
    assert [int(row[0]) for row in rows[1:]] == [0, 1, 2, 3, 4]
    assert [float(row[1]) for row in rows[1:]] == pytest.approx([wall(s) for s in range(5)])
    parsed = [float(row[2]) for row in rows[1:]]
    assert parsed[0] == 1.5 and math.isnan(parsed[1]) and parsed[2:] == [math.inf, -math.inf, 2.5]


def test_json_download_is_full_resolution(api: Api) -> None:
    response = api.get("/api/scalars.json", run="mixed", tag="Loss/训练")
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    assert "filename*=UTF-8''mixed_Loss_%E8%AE%AD%E7%BB%83.json" in response.headers["content-disposition"]
    body = json.loads(response.content)
    assert body["run"] == "mixed" and body["tag"] == "Loss/训练" and body["step"] == [7]
    full = api.get("/api/scalars.json", run="mixed", tag="loss").json()
    assert len(full["step"]) == 1000 and full["reduced"] is False
    assert api.get("/api/scalars.json", run="mixed", tag="nope").status_code == 404


def test_values_match_the_reading_api(api: Api, logs: object) -> None:
    import ridgeline

    logdir = ridgeline.open(str(logs), cache=False)
    for tag in TORCH_SERIES:
        expected = logdir.scalars("torch", tag)
        body = api.get("/api/scalars", run="torch", tag=tag).json()
        assert np.array_equal(np.array(body["value"]), expected.value)
        assert np.array_equal(np.array(body["wall_time"]), expected.wall_time)
