"""Retention on an S3 log directory, through a real S3-compatible server (moto's) on 127.0.0.1: the same runs,
the same policy and the same last-hour rule (S3's LastModified) as on the local disk; deleting and moving through
fsspec."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import ridgeline
from ridgeline.ingest.discovery import sources_from
from ridgeline.retention.policy import Policy
from ridgeline.retention.sweep import Action, sweep
from tests.ingest.test_s3 import s3_endpoint
from tests.retention.logs import DAY, ago, files_below, write_run
from tests.s3 import aws_env

__all__ = ["s3_endpoint"]


@pytest.fixture
def bucket(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh bucket on moto's server, with the environment that s3fs (and a subprocess) reads credentials from."""
    import boto3

    for name, value in aws_env(s3_endpoint).items():
        monkeypatch.setenv(name, value)
    name = f"logs-{os.urandom(4).hex()}"
    boto3.client("s3", endpoint_url=s3_endpoint).create_bucket(Bucket=name)
    yield name


def upload(local: Path, bucket: str, prefix: str, *, days_ago: float | None = None) -> None:
    """Every file below ``local`` to ``s3://bucket/prefix/...``; with ``days_ago``, the objects' LastModified set
    back that far in moto's store (S3 stamps an upload with the time it arrived)."""
    import boto3
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.s3.models import s3_backends

    client = boto3.client("s3")
    keys = []
    for path in files_below(local):
        keys.append(f"{prefix}/{path.relative_to(local).as_posix()}")
        client.upload_file(str(path), bucket, keys[-1])
    if days_ago is not None:
        stored = s3_backends[DEFAULT_ACCOUNT_ID]["aws"].buckets[bucket].keys
        when = datetime.fromtimestamp(ago(days_ago), UTC).replace(tzinfo=None)  # moto keeps naive UTC
        for key in keys:
            stored[key].last_modified = when


def objects(bucket: str, prefix: str = "") -> list[str]:
    import boto3

    listed = boto3.client("s3").list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", [])
    return sorted(item["Key"] for item in listed)


def test_old_runs_on_s3_are_deleted_and_the_rest_read_as_before(bucket: str, tmp_path: Path) -> None:
    write_run(tmp_path / "exp_old", 40, embedding=True)
    write_run(tmp_path / "exp_new", 2)
    write_run(tmp_path / "exp_uploaded_now", 40)
    upload(tmp_path / "exp_old", bucket, "runs/exp_old", days_ago=40)
    upload(tmp_path / "exp_new", bucket, "runs/exp_new", days_ago=2)
    upload(tmp_path / "exp_uploaded_now", bucket, "runs/exp_uploaded_now")
    url = f"s3://{bucket}/runs"
    policy = Policy(older_than=30 * DAY)

    dry = sweep(sources_from(url), policy, Action())
    assert [d.candidate.name for d in dry.plan.going] == ["exp_old"]
    assert {d.candidate.name: d.kept for d in dry.plan.decisions if d.kept} == {
        "exp_uploaded_now": "written to just now"
    }
    assert len(objects(bucket, "runs/exp_old/")) == 4  # events, projector config, tensors, metadata

    done = sweep(sources_from(url), policy, Action("delete"))
    assert [d.candidate.name for d in done.removed] == ["exp_old"] and done.failures == []
    assert done.files == 4 and done.freed == dry.plan.freed
    assert objects(bucket, "runs/exp_old/") == []
    assert ridgeline.open(url, cache=False).runs() == ["exp_new", "exp_uploaded_now"]


def test_trash_on_s3_moves_the_objects(bucket: str, tmp_path: Path) -> None:
    write_run(tmp_path / "old", 40)
    upload(tmp_path / "old", bucket, "runs/old", days_ago=40)
    (key,) = objects(bucket, "runs/")
    outcome = sweep(sources_from(f"s3://{bucket}/runs"), Policy(keep_last=0), Action("trash", f"s3://{bucket}/trash"))
    assert outcome.failures == []
    assert objects(bucket, "runs/") == []
    (moved,) = objects(bucket, "trash/")
    assert moved.startswith("trash/ridgeline-clean-") and moved.endswith(key.removeprefix("runs"))


def test_ridgeline_clean_works_on_an_s3_url(bucket: str, s3_endpoint: str, tmp_path: Path) -> None:
    write_run(tmp_path / "old", 40)
    write_run(tmp_path / "new", 1.5)
    upload(tmp_path / "old", bucket, "runs/old", days_ago=40)
    upload(tmp_path / "new", bucket, "runs/new", days_ago=1.5)
    command = [sys.executable, "-m", "ridgeline.cli", "clean", "--logdir", f"s3://{bucket}/runs", "--older-than", "30d"]
    env = {**os.environ, **aws_env(s3_endpoint), "COLUMNS": "200"}
    dry = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert dry.returncode == 0, dry.stderr
    assert "Would delete 1 run" in dry.stdout and "old" in dry.stdout and "dry run" in dry.stdout
    assert len(objects(bucket, "runs/")) == 2
    done = subprocess.run([*command, "--yes"], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "Deleted 1 run" in done.stdout
    assert [key.split("/")[1] for key in objects(bucket, "runs/")] == ["new"]
