"""Plugins' warm-ups (ridgeline.server.warm): run once in the background after the log directory's first pass,
a failing one logged and the app serving regardless; the distributed plugin's computes the first chart ahead."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient

import ridgeline
from ridgeline import SummaryWriter
from ridgeline.plugins.kit import BuiltinPlugin
from ridgeline.server.app import create_app
from tests.conftest import wait_until


def test_a_warm_up_runs_once_after_the_first_pass_and_a_failing_one_is_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    passing = threading.Event()  # the first pass: over once set
    warmed: list[str] = []

    def fails(app: FastAPI) -> None:
        raise RuntimeError("no luck")

    def records(app: FastAPI) -> None:
        warmed.append("loading" if app.state.loading() is not None else "loaded")

    plugins: list[Any] = [
        BuiltinPlugin(name="zfails", router=APIRouter(), order=2000, prefix="/api/zfails", warm=fails),
        BuiltinPlugin(name="zrecords", router=APIRouter(), order=2001, prefix="/api/zrecords", warm=records),
    ]
    app = create_app(
        ridgeline.open(str(tmp_path)), plugins=plugins, loading=lambda: None if passing.is_set() else {"files": None}
    )
    with caplog.at_level(logging.ERROR, logger="ridgeline.server.warm"), TestClient(app) as client:
        assert client.get("/api/runs").status_code == 200
        assert warmed == []  # not while the first pass runs
        passing.set()
        wait_until(lambda: warmed == ["loaded"], "the warm-up after the first pass")
    assert warmed == ["loaded"]
    assert any("plugin zfails: warm-up failed" in r.getMessage() for r in caplog.records)


def test_the_distributed_first_chart_is_computed_before_the_page_asks(tmp_path: Path) -> None:
    for rank in (0, 1):
        with SummaryWriter(tmp_path / "job", rank=rank) as writer:
            for step in range(100):
                writer.add_scalar("loss", 1.0 / (step + 1) + rank, step)
    app = create_app(ridgeline.open(str(tmp_path)))
    with TestClient(app) as client:
        services = app.state.services
        wait_until(lambda: len(services.get("distributed_aggregates") or ()) == 1, "the first chart's aggregate")
        first = client.get("/api/distributed/runs", params={"first_chart": "job"}).json()["first_chart"]
        assert len(services["distributed_aggregates"]) == 1  # the same one, not computed again
    assert first["tag"] == "loss" and len(first["step"]) == 100
