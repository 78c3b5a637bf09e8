"""A log directory on S3, through a real S3-compatible server (moto's) on 127.0.0.1: same code path as local."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import ridgeline
from ridgeline import SummaryWriter


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    # Port 0: the server binds a free port itself. Probing for one first and handing it over left a window in
    # which another process on a busy machine could take it (and a test then met "connection refused").
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield f"http://{host}:{port}"
    finally:
        server.stop()
        # fsspec keeps one S3FileSystem per set of arguments, and the endpoint comes from the environment, not
        # the arguments: without this the next module's server (another port) would be asked on this one's.
        import s3fs

        s3fs.S3FileSystem.clear_instance_cache()


def test_runs_on_s3_read_like_local_ones(s3_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import boto3

    for name, value in {
        "AWS_ENDPOINT_URL": s3_endpoint,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
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
