"""GET /api/custom_scalars in process, on layouts written by torch's SummaryWriter and ridgeline's:
merged by category title (as TensorBoard merges them), regexes resolved to tags by RE2, anchored as
``re.match``, a corrupt layout listed as a problem, 404 for an unknown run and 400 for a bad run regex."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import ridgeline
from ridgeline.writer import summaries
from tests.plugins.conftest import Api, in_process

TORCH_LAYOUT = {
    "Loss": {
        "train vs val": ["Multiline", ["loss/train", "loss/val"]],
        "train with bounds": ["Margin", ["loss/train", "loss/train_low", "loss/train_high"]],
    },
    "Accuracy": {"every accuracy": ["Multiline", [r"acc/.*"]]},
}
RIDGELINE_LAYOUT = {
    # Same category title as torch's: merged into it; the equal chart is not repeated.
    "Loss": {
        "train vs val": ["Multiline", ["loss/train", "loss/val"]],
        "all losses": ["Multiline", ["loss/", "(unclosed"]],
    },
    "Learning rate": {"lr": ["Multiline", ["lr$"]]},
}


def write(logdir: Path) -> Path:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    torch_writer = TorchWriter(str(logdir / "a_torch"))
    torch_writer.add_custom_scalars(TORCH_LAYOUT)
    for step in range(5):
        for tag in ("loss/train", "loss/val", "loss/train_low", "loss/train_high", "acc/top1", "acc/top5"):
            torch_writer.add_scalar(tag, 1.0 / (step + 1), step)
    torch_writer.close()
    with ridgeline.SummaryWriter(logdir / "b_ridgeline") as writer:
        writer.add_custom_scalars(RIDGELINE_LAYOUT)
        for step in range(5):
            writer.add_scalar("loss/train", 2.0 / (step + 1), step)
            writer.add_scalar("loss/extra", 3.0, step)
            writer.add_scalar("train/lr", 0.1, step)
    with ridgeline.SummaryWriter(logdir / "c_plain") as writer:
        writer.add_scalar("loss/val", 1.0, 0)
    with ridgeline.SummaryWriter(logdir / "d_corrupt") as writer:
        summary = summaries.custom_scalars({"Broken": {"x": ["Multiline", ["x"]]}})
        summary.value[0].tensor.string_val[0] = b"\xff\xff\xff"
        writer._write_summary("add_custom_scalars", summary, None, None)
        writer.add_scalar("x", 1.0, 0)
    return logdir


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    with in_process(write(tmp_path_factory.mktemp("custom_scalars"))) as served:
        yield served


def test_layouts_are_merged_by_category(server: Api) -> None:
    response = server.get("/api/custom_scalars")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["runs"] == ["a_torch", "b_ridgeline"]
    assert [c["title"] for c in body["categories"]] == ["Loss", "Accuracy", "Learning rate"]
    loss = body["categories"][0]
    assert loss["runs"] == ["a_torch", "b_ridgeline"] and loss["closed"] is False
    assert [chart["title"] for chart in loss["charts"]] == ["train vs val", "train with bounds", "all losses"]
    multiline, margin, merged = loss["charts"]
    assert multiline["kind"] == "multiline" and multiline["tags"] == ["loss/train", "loss/val"]
    assert multiline["matched"] == ["loss/train", "loss/train_high", "loss/train_low", "loss/val"]  # re.match
    assert multiline["errors"] == []
    assert margin == {
        "title": "train with bounds",
        "kind": "margin",
        "series": [{"value": "loss/train", "lower": "loss/train_low", "upper": "loss/train_high"}],
    }
    # An invalid regex is reported in its chart; the valid one still matches (over every run's tags).
    assert merged["matched"] == ["loss/extra", "loss/train", "loss/train_high", "loss/train_low", "loss/val"]
    assert len(merged["errors"]) == 1 and "(unclosed" in merged["errors"][0]
    accuracy = body["categories"][1]["charts"][0]
    assert accuracy["matched"] == ["acc/top1", "acc/top5"]
    assert body["categories"][2]["charts"][0]["matched"] == []  # "lr$" must match from the tag's start


def test_corrupt_layout_is_a_problem_not_an_error(server: Api) -> None:
    body = server.get("/api/custom_scalars").json()
    assert [p["run"] for p in body["problems"]] == ["d_corrupt"]
    assert "d_corrupt" not in body["runs"]


def test_runs_list_the_layout_kind(server: Api) -> None:
    runs = {item["run"]: item["tags"] for item in server.get("/api/runs").json()["runs"]}
    assert runs["a_torch"]["custom_scalars"] == ["custom_scalars__config__"]
    assert runs["b_ridgeline"]["custom_scalars"] == ["custom_scalars__config__"]
    assert "custom_scalars" not in runs["c_plain"]
    assert "custom_scalars__config__" not in runs["a_torch"]["scalars"]


def test_run_selection(server: Api) -> None:
    body = server.get("/api/custom_scalars", run="b_ridgeline").json()
    assert body["runs"] == ["b_ridgeline"]
    assert [c["title"] for c in body["categories"]] == ["Loss", "Learning rate"]
    assert body["categories"][0]["charts"][0]["matched"] == ["loss/train"]  # only that run's tags
    body = server.client.get("/api/custom_scalars", params=[("run", "a_torch"), ("run", "c_plain")]).json()
    assert body["runs"] == ["a_torch"]
    assert server.get("/api/custom_scalars", run_regex="^c_").json() == {"runs": [], "categories": [], "problems": []}


def test_errors(server: Api) -> None:
    response = server.get("/api/custom_scalars", run="nope")
    assert response.status_code == 404 and "nope" in response.json()["error"]
    response = server.get("/api/custom_scalars", run_regex="(")
    assert response.status_code == 400 and "run_regex" in response.json()["error"]


def test_openapi_documents_the_route(server: Api) -> None:
    spec = server.get("/api/openapi.json").json()
    route = spec["paths"]["/api/custom_scalars"]["get"]
    assert "merged" in route["description"]
    assert {p["name"] for p in route["parameters"]} == {"run", "run_regex"}


def test_a_backtracking_pattern_from_a_log_file_cannot_freeze_the_route(tmp_path: Path) -> None:
    # With Python's re, '^(([a-z_/]+)*)*!' against a 40-character tag backtracks for hours; RE2 answers at once.
    # Run in a subprocess so that a regression fails on the timeout instead of hanging the suite.
    layout = {"Hostile": {"freeze": ["Multiline", [r"^(([a-z_/]+)*)*!", r"loss\Z", "(?=lookahead)"]]}}
    with ridgeline.SummaryWriter(tmp_path / "run") as writer:
        writer.add_custom_scalars(layout)
        writer.add_scalar("a_very_long_tag_name/made_of_letters_only", 1.0, 0)
        writer.add_scalar("loss", 1.0, 0)
    script = (
        "import json, sys\n"
        "from tests.plugins.conftest import in_process\n"
        "with in_process(sys.argv[1]) as api:\n"
        "    print(json.dumps(api.get('/api/custom_scalars').json()))\n"
    )
    import json
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (chart,) = json.loads(done.stdout)["categories"][0]["charts"]
    assert chart["matched"] == ["loss"]  # Python's \Z read as RE2's \z
    assert len(chart["errors"]) == 1 and "(?=lookahead)" in chart["errors"][0]
