"""A log directory on S3, through a real S3-compatible server (moto's) on 127.0.0.1: same code path as local."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import ridgeline
from ridgeline import SummaryWriter
from tests.s3 import aws_env, moto_endpoint


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    with moto_endpoint() as endpoint:
        yield endpoint


def test_runs_on_s3_read_like_local_ones(s3_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import boto3

    for name, value in aws_env(s3_endpoint).items():
        monkeypatch.setenv(name, value)
    for run in ("exp1", "exp2/rank0"):
        with SummaryWriter(tmp_path / run) as writer:
            for step in range(100):
                writer.add_scalar("loss", 1.0 / (step + 1), step)
            writer.add_histogram("w", [1.0, 2.0, 3.0], 5)
    client = boto3.client("s3", endpoint_url=s3_endpoint)
    client.create_bucket(Bucket="logs")
    for path in tmp_path.rglob("*tfevents*"):
        client.upload_file(str(path), "logs", f"runs/{path.relative_to(tmp_path).as_posix()}")

    logdir = ridgeline.open("s3://logs/runs", cache=False)
    local = ridgeline.open(tmp_path, cache=False)
    assert logdir.runs() == local.runs() == ["exp1", "exp2/rank0"]
    for run in logdir.runs():
        assert logdir.tags(run) == local.tags(run)
        remote_loss, local_loss = logdir.scalars(run, "loss"), local.scalars(run, "loss")
        assert remote_loss.step.tolist() == local_loss.step.tolist()
        assert remote_loss.value.tolist() == local_loss.value.tolist()
        assert logdir.histograms(run, "w")[0].step == 5
    assert logdir.problems() == []
