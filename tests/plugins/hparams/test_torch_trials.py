"""torch's add_hparams trials attached to the run they were written from (docs/hparams.md#torch-trials), over log
directories written by torch's own SummaryWriter: the run listing, GET /api/hparams (what grouping and colouring
read), the table, the report, and the rule for a run holding several trials or no data of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

import ridgeline
from ridgeline.report.collect import collect
from ridgeline.report.tables import hparams_table
from ridgeline.store.trials import link_trials
from tests.plugins.conftest import in_process


def write_one_writer_per_run(root: Path) -> None:
    """What a sweep script does: one writer per learning rate, curves, add_scalars, then add_hparams."""
    from torch.utils.tensorboard import SummaryWriter

    for index, lr in enumerate((0.001, 0.01, 0.1)):
        writer = SummaryWriter(str(root / f"cnn_lr{lr}"))
        for step in range(5):
            writer.add_scalar("loss/train", lr / (step + 1), step)
            writer.add_scalars("loss", {"train": 1.0 / (step + 1), "val": 1.2 / (step + 1)}, step)
        writer.add_hparams(
            {"lr": lr, "opt": "adam"}, {"hparam/accuracy": 0.9 - lr}, run_name=f"{1_800_000_000 + index}"
        )
        writer.close()


def test_the_run_with_the_curves_has_the_trials_hyperparameters(tmp_path: Path) -> None:
    write_one_writer_per_run(tmp_path)
    with in_process(tmp_path) as api:
        listing = {item["run"]: item for item in api.get("/api/runs").json()["runs"]}
        assert listing["cnn_lr0.01"]["hparams_trial"] == "cnn_lr0.01/1800000001"
        assert "hparams" in listing["cnn_lr0.01"]["tags"]  # the hparams tab has data for the run itself
        assert listing["cnn_lr0.01/1800000001"]["attached_to"] == "cnn_lr0.01"
        assert listing["cnn_lr0.01/loss_train"]["attached_to"] is None  # add_scalars' sub-runs are not trials

        hparams = api.get("/api/hparams").json()["runs"]
        assert hparams["cnn_lr0.01"] == {"lr": 0.01, "opt": "adam"}  # what "group by hyperparameter" reads
        assert hparams["cnn_lr0.01/1800000001"] == {"lr": 0.01, "opt": "adam"}  # as written, unchanged
        assert "cnn_lr0.01/loss_train" not in hparams

        rows = {row["run"]: row for row in api.get("/api/hparams/table").json()["trials"]}
        assert sorted(rows) == ["cnn_lr0.001", "cnn_lr0.01", "cnn_lr0.1"]
        assert rows["cnn_lr0.1"]["trial"] == "cnn_lr0.1/1800000002"
        assert rows["cnn_lr0.1"]["metrics"]["hparam/accuracy"]["final"] == pytest.approx(
            0.8
        )  # read from the trial's sub-run
        assert rows["cnn_lr0.1"]["related_runs"] == [
            "cnn_lr0.1",
            "cnn_lr0.1/1800000002",
            "cnn_lr0.1/loss_train",
            "cnn_lr0.1/loss_val",
        ]


def test_the_report_lists_each_run_once_with_its_trials_hyperparameters(tmp_path: Path) -> None:
    write_one_writer_per_run(tmp_path)
    table = hparams_table(collect(ridgeline.open(tmp_path), "sweep"))
    assert table is not None
    assert [row[0] for row in table.rows] == ["cnn_lr0.001", "cnn_lr0.01", "cnn_lr0.1"]
    assert sorted(table.headers) == ["lr", "opt", "run"]


def test_several_trials_in_one_run_attach_the_latest(tmp_path: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(tmp_path / "run"))
    writer.add_scalar("loss", 1.0, 0)
    writer.add_hparams({"lr": 0.1}, {"hparam/acc": 0.5}, run_name="1800000009.5")
    writer.add_hparams({"lr": 0.2}, {"hparam/acc": 0.6}, run_name="1800000010.25")  # later, though shorter
    writer.close()
    links = link_trials(ridgeline.open(tmp_path))
    assert links.trial_of == {"run": "run/1800000010.25"}
    assert links.parent_of == {"run/1800000010.25": "run"}
    with in_process(tmp_path) as api:
        rows = {row["trial"]: row["run"] for row in api.get("/api/hparams/table").json()["trials"]}
        assert rows == {"run/1800000009.5": "run/1800000009.5", "run/1800000010.25": "run"}
        assert api.get("/api/hparams").json()["runs"]["run"] == {"lr": 0.2}


def test_no_attachment_without_data_above_or_with_hyperparameters_of_its_own(tmp_path: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    empty = SummaryWriter(str(tmp_path / "empty"))  # only add_hparams: the run above holds no curves
    empty.add_hparams({"lr": 0.1}, {"hparam/acc": 0.5}, run_name="1800000000")
    empty.close()
    with ridgeline.SummaryWriter(tmp_path / "own", hparams={"lr": 0.3}) as own:  # records its own session start
        own.add_scalar("loss", 1.0, 0)
    torch_writer = SummaryWriter(str(tmp_path / "own"))
    torch_writer.add_hparams({"lr": 0.4}, {"hparam/acc": 0.5}, run_name="1800000001")
    torch_writer.close()
    links = link_trials(ridgeline.open(tmp_path))
    assert links.parent_of == {} and links.trial_of == {}
