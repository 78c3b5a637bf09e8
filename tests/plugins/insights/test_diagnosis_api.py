"""GET /api/diagnosis in process, over labelled runs written by ridgeline's writer: the
contract's shape, the ``run`` filter (a Keras-style train/validation pair answers for either run), 404 for an
unknown run, and a finding that appears once a live run starts to overfit (the cache follows ingest)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import ridgeline
from ridgeline.analysis.diagnosis import KINDS
from ridgeline.fixtures.problems import write_problem_runs
from tests.conftest import wait_until
from tests.plugins.conftest import Api, in_process


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Api, dict[str, frozenset[str]]]]:
    root = tmp_path_factory.mktemp("diagnosis")
    labels = write_problem_runs(root, seeds=(0,), kinds=["healthy", "overfitting", "exploding_gradients"])
    with in_process(root) as served:
        yield served, labels


def test_findings_follow_the_contract_and_the_labels(labelled: tuple[Api, dict[str, frozenset[str]]]) -> None:
    served, labels = labelled
    response = served.get("/api/diagnosis")
    assert response.status_code == 200
    findings = response.json()["findings"]
    for f in findings:
        assert set(f) == {"run", "kind", "confidence", "step", "tags", "evidence", "message", "spots"}
        assert f["kind"] in KINDS and 0 <= f["confidence"] <= 1 and f["message"]
        assert isinstance(f["step"], int) and f["tags"] and isinstance(f["evidence"], dict)
    found = {(f["run"].split("/")[0], f["kind"]) for f in findings}
    assert found == {(case, kind) for case, kinds in labels.items() for kind in kinds}


def test_run_filter_and_a_keras_style_pair(labelled: tuple[Api, dict[str, frozenset[str]]]) -> None:
    served, _ = labelled
    # overfitting-v2-s0 is written as two runs, .../train and .../validation, both with the tag epoch_loss.
    for run in ("overfitting-v2-s0/train", "overfitting-v2-s0/validation"):
        (finding,) = served.get("/api/diagnosis", run=run).json()["findings"]
        assert finding["run"] == "overfitting-v2-s0/train" and finding["kind"] == "overfitting"
        assert finding["tags"] == ["epoch_loss"]
    healthy = served.get("/api/diagnosis", run="healthy-v0-s0").json()
    assert healthy["findings"] == [] and [c["run"] for c in healthy["checked"]] == ["healthy-v0-s0"]
    assert any("Training loss" in line for line in healthy["checked"][0]["checked"])  # what was looked at
    (finding,) = served.get("/api/diagnosis", run="overfitting-v0-s0").json()["findings"]
    assert finding["run"] == "overfitting-v0-s0"


def test_unknown_run_is_404(labelled: tuple[Api, dict[str, frozenset[str]]]) -> None:
    served, _ = labelled
    response = served.get("/api/diagnosis", run="no-such-run")
    assert response.status_code == 404
    assert "no-such-run" in response.json()["error"]


def test_a_finding_appears_when_a_live_run_starts_to_overfit(tmp_path: Path) -> None:
    steps = np.arange(0, 3000, 10)
    t = steps / steps[-1]
    train = 2.0 * (1 + t / 0.04) ** -1.2
    val = np.where(t < 0.3, 0.6 + 1.4 * np.exp(-t / 0.06), 0.6 * (1 + 1.5 * (t - 0.3)))
    writer = ridgeline.SummaryWriter(str(tmp_path / "live"), flush_secs=3600)
    split = int(len(steps) * 0.3)

    def write(part: slice) -> None:
        for step, a, b in zip(steps[part].tolist(), train[part], val[part], strict=True):
            writer.add_scalar("train/loss", float(a), step)
            writer.add_scalar("val/loss", float(b), step)
        writer.flush()

    write(slice(0, split))
    try:
        with in_process(tmp_path, reload_interval=0.2) as served:
            assert served.get("/api/diagnosis", run="live").json()["findings"] == []
            write(slice(split, None))
            kinds = wait_until(
                lambda: [f["kind"] for f in served.get("/api/diagnosis", run="live").json()["findings"]],
                "a finding on the live run",
            )
            assert kinds == ["overfitting"]
    finally:
        writer.close()
