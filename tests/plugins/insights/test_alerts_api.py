"""GET /api/alerts, in process, over event files written by ridgeline's writer and by
torch's, with labelled anomalies; the cursor, the filters, bad input, and alerts that appear while a run
grows (--reload-interval)."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

import ridgeline
from tests.conftest import wait_until, wall
from tests.plugins.conftest import Api, in_process
from tests.plugins.insights.alert_logs import LABELS, labelled_series, write_ridgeline, write_torch


@pytest.fixture(scope="module")
def alerts_server(tmp_path_factory: pytest.TempPathFactory) -> Api:
    root = tmp_path_factory.mktemp("alerts")
    write_ridgeline(root / "ours", labelled_series())
    write_torch(root / "torch", labelled_series())
    with in_process(root) as served:
        yield served  # type: ignore[misc]


def found(alerts: list[dict[str, object]]) -> set[tuple[object, object, object, object]]:
    return {(a["run"], a["tag"], a["kind"], a["step"]) for a in alerts}


def test_alerts_are_the_labelled_ones_for_both_writers(alerts_server: Api) -> None:
    response = alerts_server.get("/api/alerts")
    assert response.status_code == 200
    body = response.json()
    expected = {(run, tag, kind, step) for run in ("ours", "torch") for tag, kind, step in LABELS}
    expected.add(("torch", "grad_norm", "stalled", 99))
    assert found(body["alerts"]) == expected
    assert body["cursor"] == len(expected)
    by_key = {(a["run"], a["tag"], a["kind"]): a for a in body["alerts"]}
    spike = by_key[("torch", "spiky", "spike")]
    assert spike["value"] == pytest.approx(labelled_series()["spiky"][250])
    assert spike["wall_time"] == wall(250)
    assert spike["expected_low"] < labelled_series()["spiky"][249] < spike["expected_high"] < spike["value"]
    for key in (("ours", "diverging", "nan"), ("ours", "overflow", "inf"), ("torch", "grad_norm", "stalled")):
        assert by_key[key]["value"] is None or key[2] == "stalled"
        assert by_key[key]["expected_low"] is None and by_key[key]["expected_high"] is None
    assert by_key[("torch", "grad_norm", "stalled")]["value"] == pytest.approx(1.0 + 0.01 * math.sin(99))
    assert set(by_key[("ours", "shifted", "outlier")]) == {
        "run",
        "tag",
        "step",
        "wall_time",
        "kind",
        "value",
        "expected_low",
        "expected_high",
    }


def test_cursor_and_filters(alerts_server: Api) -> None:
    everything = alerts_server.get("/api/alerts").json()
    cursor = everything["cursor"]
    assert alerts_server.get("/api/alerts", since=cursor).json() == {"alerts": [], "cursor": cursor}
    assert len(alerts_server.get("/api/alerts", since=cursor - 2).json()["alerts"]) == 2
    # A cursor from before a restart (beyond the end) gets everything again.
    assert alerts_server.get("/api/alerts", since=cursor + 100).json() == everything
    torch_only = alerts_server.get("/api/alerts", run_regex="^tor").json()
    assert {a["run"] for a in torch_only["alerts"]} == {"torch"} and torch_only["cursor"] == cursor
    spiky = alerts_server.get("/api/alerts", tag_regex="spik|diverg").json()["alerts"]
    assert {(a["tag"], a["kind"]) for a in spiky} == {("spiky", "spike"), ("diverging", "nan")}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"since": -1}, "'since'"),
        ({"since": "soon"}, "'since'"),
        ({"run_regex": "("}, "'run_regex'"),
        ({"tag_regex": "[a"}, "'tag_regex'"),
    ],
)
def test_bad_parameters_are_400(alerts_server: Api, params: dict[str, object], message: str) -> None:
    response = alerts_server.get("/api/alerts", **params)
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_alerts_appear_as_a_live_run_grows(tmp_path: Path) -> None:
    """An app re-reading the log directory every 0.2 s: the page's cursor gets only the new alerts."""
    series = labelled_series()
    writer = ridgeline.SummaryWriter(str(tmp_path / "live"))
    for step in range(240):
        for tag in ("train/loss", "spiky"):
            writer.add_scalar(tag, series[tag][step], step, walltime=wall(step))
    writer.flush()
    with in_process(tmp_path, reload_interval=0.2) as served:
        first = served.get("/api/alerts").json()
        assert first["alerts"] == []
        for step in range(240, 320):
            for tag in ("train/loss", "spiky"):
                writer.add_scalar(tag, series[tag][step], step, walltime=wall(step))
        writer.add_scalar("spiky", math.nan, 320, walltime=wall(320))
        writer.flush()
        new: list[dict[str, object]] = []
        cursor = first["cursor"]

        def two_new_alerts() -> bool:
            nonlocal cursor
            answer = served.get("/api/alerts", since=cursor).json()
            new.extend(answer["alerts"])
            cursor = answer["cursor"]
            return len(new) >= 2

        wait_until(two_new_alerts, "two new alerts after the cursor")
        assert found(new) == {("live", "spiky", "spike", 250), ("live", "spiky", "nan", 320)}
        assert served.get("/api/alerts", since=cursor).json()["alerts"] == []
        writer.close()
        # The run's directory is deleted: its alerts go with it at the next reload (the cursor stays).
        shutil.rmtree(tmp_path / "live")
        wait_until(lambda: not served.get("/api/alerts").json()["alerts"], "the deleted run's alerts to go")
        assert served.get("/api/alerts").json() == {"alerts": [], "cursor": cursor}
