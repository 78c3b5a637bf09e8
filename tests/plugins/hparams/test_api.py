"""GET /api/hparams/table in process, over sweeps written by torch's add_hparams, the TF2 hparams
plugin's protos and ridgeline's SummaryWriter(hparams=)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import ridgeline
from tests.conftest import wait_until
from tests.plugins.conftest import Api, in_process
from tests.plugins.hparams.hparams_logs import (
    WALL,
    write_bad_hparams,
    write_ridgeline_sweep,
    write_tf2_sweep,
    write_torch_sweep,
)


@contextmanager
def serving_sweep(root: Path, write: Callable[[Path], object]) -> Iterator[Api]:
    """``write(root)``, then the app over it, re-reading it every 0.2 s."""
    write(root)
    with in_process(root, reload_interval=0.2) as served:
        yield served


@pytest.fixture(scope="module")
def torch_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with serving_sweep(tmp_path_factory.mktemp("torch_sweep"), write_torch_sweep) as served:
        yield served


@pytest.fixture(scope="module")
def tf2_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with serving_sweep(tmp_path_factory.mktemp("tf2_sweep"), write_tf2_sweep) as served:
        yield served


def trials_by_parent(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["run"].split("/")[0]: row for row in body["trials"]}


def test_runs_list_trials_under_the_hparams_kind(torch_server: Api) -> None:
    runs = {item["run"]: item["tags"] for item in torch_server.get("/api/runs").json()["runs"]}
    trials = sorted(run for run, tags in runs.items() if "hparams" in tags)
    assert trials == [
        "lr_0.001",
        "lr_0.001/1700000002.0",
        "lr_0.01",
        "lr_0.01/1700000001.0",
        "lr_0.1",
        "lr_0.1/1700000000.0",
    ]
    # The run above a torch trial holds the curves: the trial is attached to it (docs/hparams.md#torch-trials).
    listing = {item["run"]: item for item in torch_server.get("/api/runs").json()["runs"]}
    assert listing["lr_0.1"]["hparams_trial"] == "lr_0.1/1700000000.0"
    assert listing["lr_0.1/1700000000.0"]["attached_to"] == "lr_0.1"
    assert listing["lr_0.1"]["attached_to"] is None


def test_torch_values_as_written(torch_server: Api) -> None:
    body = torch_server.get("/api/hparams/table").json()
    columns = {column["name"]: column for column in body["hparams"]}
    assert list(columns) == ["lr", "batch", "optimizer", "augment", "ema"]  # the experiment's order
    assert columns["augment"]["type"] == "bool"  # declared with the domain [True, False]: torch's 1.0/0.0
    assert columns["augment"]["domain"] == {"values": [True, False]}
    assert columns["ema"]["type"] == "number"  # a bool without a domain is indistinguishable from 1/0
    assert columns["batch"]["type"] == "mixed"
    rows = trials_by_parent(body)
    assert rows["lr_0.1"]["hparams"] == {"lr": 0.1, "batch": 32, "optimizer": "adam", "augment": True, "ema": 1}
    assert rows["lr_0.01"]["hparams"]["augment"] is False
    assert rows["lr_0.01"]["hparams"]["batch"] == "auto"
    assert rows["lr_0.1"]["status"] == "success"
    assert rows["lr_0.1"]["related_runs"] == ["lr_0.1", "lr_0.1/1700000000.0"]
    assert rows["lr_0.1"]["run"] == "lr_0.1"  # listed as the run it was written from
    assert rows["lr_0.1"]["trial"] == "lr_0.1/1700000000.0"


def test_torch_metrics_are_the_declared_ones(torch_server: Api) -> None:
    body = torch_server.get("/api/hparams/table").json()
    assert body["metrics_source"] == "experiment"
    assert [(m["id"], m["goal"]) for m in body["metrics"]] == [("hparam/accuracy", "max"), ("hparam/loss", "min")]
    rows = trials_by_parent(body)
    accuracy = rows["lr_0.01"]["metrics"]["hparam/accuracy"]
    assert accuracy == {"final": 0.75, "final_step": 0, "best": 0.75, "best_step": 0, "points": 1}
    nan_loss = rows["lr_0.01"]["metrics"]["hparam/loss"]
    assert nan_loss["final"] == "NaN" and nan_loss["best"] is None
    assert rows["lr_0.001"]["metrics"]["hparam/loss"]["final"] == 0.25


def test_run_regex_filters_trials(torch_server: Api) -> None:
    body = torch_server.get("/api/hparams/table", run_regex=r"^lr_0\.1/").json()
    assert [row["trial"] for row in body["trials"]] == ["lr_0.1/1700000000.0"]
    assert [row["run"] for row in body["trials"]] == ["lr_0.1"]
    response = torch_server.get("/api/hparams/table", run_regex="lr_(")
    assert response.status_code == 400
    assert "run_regex" in response.json()["error"]


def test_the_old_route_is_unchanged(torch_server: Api) -> None:
    body = torch_server.get("/api/hparams").json()
    assert body["runs"]["lr_0.1/1700000000.0"] == {
        "lr": 0.1,
        "batch": 32.0,
        "optimizer": "adam",
        "augment": 1.0,
        "ema": 1.0,
    }


def test_tf2_experiment_config_and_metric_groups(tf2_server: Api) -> None:
    body = tf2_server.get("/api/hparams/table").json()
    columns = {column["name"]: column for column in body["hparams"]}
    assert set(columns) == {"units", "dropout", "optimizer", "batch_norm"}
    assert columns["batch_norm"]["type"] == "bool"
    assert columns["dropout"]["domain"] == {"min": 0.1, "max": 0.5}
    assert columns["optimizer"]["display_name"] == "Optimizer"
    metrics = {m["id"]: m for m in body["metrics"]}
    assert set(metrics) == {"validation/epoch_accuracy", "validation/epoch_loss"}
    assert metrics["validation/epoch_accuracy"]["display_name"] == "val accuracy"
    rows = {row["run"]: row for row in body["trials"]}
    assert sorted(rows) == ["run-0", "run-1"]
    assert rows["run-1"]["hparams"] == {"units": 32, "dropout": 0.5, "optimizer": "sgd", "batch_norm": False}
    accuracy = rows["run-1"]["metrics"]["validation/epoch_accuracy"]  # from run-1/validation, not run-1/train
    assert accuracy["final"] == pytest.approx(0.5 + 0.2 + 0.05) and accuracy["final_step"] == 2
    loss = rows["run-0"]["metrics"]["validation/epoch_loss"]
    assert loss["best"] == pytest.approx(0.6) and loss["best_step"] == 2
    assert rows["run-0"]["start_time"] == WALL
    assert rows["run-0"]["related_runs"] == ["run-0", "run-0/train", "run-0/validation"]


def test_ridgeline_trials_share_their_scalar_tags_and_new_trials_appear(tmp_path: Path) -> None:
    with serving_sweep(tmp_path, write_ridgeline_sweep) as served:
        body = served.get("/api/hparams/table").json()
        assert body["metrics_source"] == "shared_tags"
        assert [m["id"] for m in body["metrics"]] == ["accuracy", "loss"]  # "only_a" is not shared
        rows = {row["run"]: row for row in body["trials"]}
        assert rows["b"]["hparams"] == {"lr": 0.05, "layers": 4, "residual": True}
        assert (
            rows["a"]["metrics"]["loss"]["best"] == pytest.approx(0.1)
            and rows["a"]["metrics"]["loss"]["final_step"] == 9
        )

        with ridgeline.SummaryWriter(tmp_path / "c", hparams={"lr": "cosine", "layers": 8}) as writer:
            writer.add_scalar("loss", 0.5, 0)
            writer.add_scalar("accuracy", 0.5, 0)

        def table_with_c() -> dict[str, Any] | None:
            table: dict[str, Any] = served.get("/api/hparams/table").json()
            return table if "c" in {row["run"] for row in table["trials"]} else None

        body = wait_until(table_with_c, "the new trial c in /api/hparams/table")
        assert {column["name"]: column["type"] for column in body["hparams"]}["lr"] == "mixed"


def test_bad_input_is_reported_not_fatal(tmp_path: Path) -> None:
    with serving_sweep(tmp_path, write_bad_hparams) as served:
        body = served.get("/api/hparams/table").json()
        rows = {row["run"]: row for row in body["trials"]}
        assert sorted(rows) == ["bool", "number", "string", "torch/nan"]  # not the corrupt one
        assert [problem["path"].split("/")[-2] for problem in body["problems"]] == ["broken", "broken"]
        assert all("_hparams_/" in problem["reason"] for problem in body["problems"])
        assert rows["torch/nan"]["hparams"]["lr"] == "NaN"
        assert {column["name"]: column["type"] for column in body["hparams"]}["width"] == "mixed"
        assert [rows[run]["hparams"]["width"] for run in ("number", "string", "bool")] == [32, "wide", True]
        assert served.get("/api/hparams").status_code == 200


def test_openapi_documents_the_table(torch_server: Api) -> None:
    paths = torch_server.get("/api/openapi.json").json()["paths"]
    assert "/api/hparams/table" in paths
    parameters = [p["name"] for p in paths["/api/hparams/table"]["get"].get("parameters", [])]
    assert parameters == ["run_regex"]


def test_a_bool_declared_by_one_trial_shows_as_a_bool_in_every_trial(tmp_path: Path) -> None:
    # torch's plain add_hparams({"aug": True}) stores 1.0 with no domain; a later trial declaring the domain
    # [True, False] tells the table the column is a bool, whichever trial is read first.
    from torch.utils.tensorboard import SummaryWriter

    def write(root: Path) -> None:
        with SummaryWriter(str(root / "sweep")) as writer:
            writer.add_hparams({"aug": True, "lr": 0.1}, {"hparam/acc": 0.5}, run_name="1")
            writer.add_hparams({"aug": False, "lr": 0.2}, {"hparam/acc": 0.6}, run_name="2")
            writer.add_hparams(
                {"aug": True, "lr": 0.3},
                {"hparam/acc": 0.7},
                hparam_domain_discrete={"aug": [True, False]},
                run_name="3",
            )

    with serving_sweep(tmp_path, write) as served:
        body = served.get("/api/hparams/table").json()
    values = {row["run"]: row["hparams"]["aug"] for row in body["trials"]}
    assert values == {"sweep/1": True, "sweep/2": False, "sweep/3": True}
    assert {column["name"]: column["type"] for column in body["hparams"]}["aug"] == "bool"
