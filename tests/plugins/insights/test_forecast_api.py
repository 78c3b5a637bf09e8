"""GET /api/phases and GET /api/forecast in process, over runs written by torch's writer (a
curve with a warm-up plateau, a decaying one, a short one) and ridgeline's."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import write_ridgeline_run, write_torch_run
from tests.plugins.conftest import Api, in_process

WARM = [(step, 2.0 if step < 300 else 0.3 + 1.7 * math.exp(-(step - 300) / 60)) for step in range(0, 1000, 2)]
DECAY = [(step, 0.5 + 2.0 * math.exp(-step / 200)) for step in range(0, 1000, 5)]
# Overfitting: falls from 1.0 to 0.4 until step 170, then rises to 1.2 by step 495 (ending above its start).
OVERFIT = [
    (step, 0.4 + 0.6 * math.exp(-step / 50) if step <= 170 else 0.4 + 0.8 * ((step - 170) / 325) ** 1.5)
    for step in range(0, 496)
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    root: Path = tmp_path_factory.mktemp("forecast")
    write_torch_run(root / "torch", {"train/loss": WARM, "short": [(s, 1.0 / (s + 1)) for s in range(5)]})
    write_ridgeline_run(
        root / "ours",
        {
            "loss": DECAY,
            "nan": [(s, math.nan) for s in range(20)],
            "val/loss": OVERFIT,
            "val/acc": OVERFIT,
            "val/other": OVERFIT,
        },
    )
    with in_process(root) as server:
        yield server


def test_phases_of_a_torch_curve(served: Api) -> None:
    response = served.get("/api/phases", run="torch", tag="train/loss")
    assert response.status_code == 200
    segments = response.json()["segments"]
    assert [s["phase"] for s in segments] == ["warmup", "descent", "convergence"]
    assert segments[0]["start_step"] == 0 and segments[-1]["end_step"] == 998
    assert abs(segments[0]["end_step"] - 300) <= 50  # the plateau ends at step 300
    assert segments[1]["end_step"] == segments[2]["start_step"]


def test_phases_of_an_overfitting_loss_follow_the_tag_name(served: Api) -> None:
    segments = served.get("/api/phases", run="ours", tag="val/loss").json()["segments"]
    assert segments[0] == {"phase": "descent", "start_step": 0, "end_step": segments[0]["end_step"]}
    assert abs(segments[-1]["end_step"] - 170) <= 25  # nothing after the best point: the rise is no descent
    # The same curve named as an accuracy is read upside down: its rise is its progress.
    as_score = served.get("/api/phases", run="ours", tag="val/acc").json()["segments"]
    assert as_score[-1]["end_step"] == 495
    # Named neither, it is read from the curve: it falls from its start more than it rises, so as a loss.
    assert served.get("/api/phases", run="ours", tag="val/other").json()["segments"] == segments


def test_forecast_of_a_decaying_curve(served: Api) -> None:
    response = served.get("/api/forecast", run="ours", tag="loss")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"model", "step", "value", "low", "high", "final"}
    assert len(body["step"]) == len(body["value"]) == len(body["low"]) == len(body["high"]) > 10
    assert body["step"][0] > 995 and body["final"]["step"] == body["step"][-1] == 995 + 199
    truth = 0.5 + 2.0 * math.exp(-body["final"]["step"] / 200)
    assert body["final"]["low"] <= truth <= body["final"]["high"]
    assert body["final"]["value"] == pytest.approx(truth, abs=0.02)


def test_forecast_until(served: Api) -> None:
    body = served.get("/api/forecast", run="ours", tag="loss", until=1500).json()
    assert body["final"]["step"] == 1500


@pytest.mark.parametrize(("path", "params", "status", "text"), [
    ("/api/forecast", {"run": "torch", "tag": "short"}, 400, "at least 10"),
    ("/api/forecast", {"run": "ours", "tag": "nan"}, 400, "at least 10"),
    ("/api/forecast", {"run": "ours", "tag": "loss", "until": 10}, 400, "until"),
    ("/api/forecast", {"run": "nope", "tag": "loss"}, 404, "nope"),
    ("/api/forecast", {"run": "ours", "tag": "nope"}, 404, "nope"),
    ("/api/phases", {"run": "nope", "tag": "loss"}, 404, "nope"),
    ("/api/phases", {"run": "ours", "tag": "nope"}, 404, "nope"),
])  # fmt: skip
def test_errors(served: Api, path: str, params: dict[str, object], status: int, text: str) -> None:
    response = served.get(path, **params)
    assert response.status_code == status
    assert text in response.json()["error"]


def test_short_series_has_no_phases(served: Api) -> None:
    assert served.get("/api/phases", run="torch", tag="short").json() == {"segments": []}
