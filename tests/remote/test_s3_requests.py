"""What a reload of a log directory on S3 costs, counted request by request (issue 19): one listing, nothing for
an object that did not change, ranged reads of what a grown object gained. Against moto's S3 server on
127.0.0.1 through a counting proxy (tests/remote/conftest.py); the objects are uploaded straight to moto, as a
sync job would, and grow between reloads."""

from __future__ import annotations

import re
from pathlib import Path

import boto3
import pytest

import ridgeline
from ridgeline import SummaryWriter
from ridgeline.ingest.remote import storage_options
from tests.conftest import wait_until
from tests.remote.conftest import CountedS3, Request

RUNS = 40
GROWN = ["run03", "run17", "run29"]


@pytest.fixture
def aws_environment(counted_s3: CountedS3, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ENDPOINT_URL_S3", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL", counted_s3.proxy)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_REGION", "us-east-1")  # AWS_REGION alone: botocore itself reads only the DEFAULT one


class Bucket:
    """A bucket on moto, filled from local runs written with ridgeline's writer."""

    def __init__(self, moto: str, name: str, local: Path) -> None:
        self.client = boto3.client(
            "s3",
            endpoint_url=moto,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            region_name="us-east-1",
        )
        self.client.create_bucket(Bucket=name)
        self.name = name
        self.local = local

    def upload(self, run: str) -> int:
        """Upload the run's event file as it is now (replacing the object); returns its size."""
        (path,) = (self.local / run).glob("*tfevents*")
        self.client.upload_file(str(path), self.name, f"runs/{run}/{path.name}")
        return path.stat().st_size


def ranges(requests: list[Request], run: str) -> list[tuple[int, int]]:
    found = []
    for request in requests:
        if request.is_read and f"/runs/{run}/" in request.path:
            assert request.range is not None, f"a GET without a Range: {request}"
            start, end = re.fullmatch(r"bytes=(\d+)-(\d+)", request.range).groups()  # type: ignore[union-attr]
            found.append((int(start), int(end) + 1))
    return found


@pytest.mark.usefixtures("aws_environment")
@pytest.mark.parametrize("compression", [None, "gzip"])
def test_a_reload_costs_one_listing_and_ranged_reads_of_what_grew(
    counted_s3: CountedS3, tmp_path: Path, compression: str | None
) -> None:
    bucket = Bucket(counted_s3.moto, f"logs-{compression or 'plain'}", tmp_path)
    writers = {f"run{n:02d}": SummaryWriter(tmp_path / f"run{n:02d}", compression=compression) for n in range(RUNS)}
    try:
        for run, writer in writers.items():
            for step in range(50):
                writer.add_scalar("loss", float(step), step)
            writer.flush()
            bucket.upload(run)
        counted_s3.recorder.take()

        logdir = ridgeline.open(f"s3://{bucket.name}/runs", cache=False)
        first = counted_s3.recorder.take()
        assert logdir.runs() == sorted(writers)
        assert all(logdir.scalars(run, "loss").step.tolist() == list(range(50)) for run in writers)
        assert sum(request.is_list for request in first) <= 2  # the log directory's check, then the listing
        assert sum(request.is_read for request in first) == RUNS  # one GET per object: each is under 1 MiB
        assert all(request.method == "GET" for request in first)  # no HEAD per object: sizes come from the list

        logdir.reload()
        unchanged = counted_s3.recorder.take()
        assert [request.is_list for request in unchanged] == [True]  # one request in all

        before = {run: next((tmp_path / run).glob("*tfevents*")).stat().st_size for run in GROWN}
        sizes = {}
        for run in GROWN:
            for step in range(50, 80):
                writers[run].add_scalar("loss", float(step), step)
            writers[run].flush()
            sizes[run] = bucket.upload(run)
        counted_s3.recorder.take()
        logdir.reload()
        grown = counted_s3.recorder.take()
        assert sum(request.is_list for request in grown) == 1
        assert sum(request.is_read for request in grown) <= 2 * len(GROWN)
        assert not [
            request for request in grown if request.is_read and not any(f"/{r}/" in request.path for r in GROWN)
        ]
        for run in GROWN:
            read = ranges(grown, run)
            # tailed from the stored offset (or the few bytes before it) to the object's new end, never read whole
            assert any(0 < start <= before[run] and end == sizes[run] for start, end in read), read
            assert all(end - start < sizes[run] for start, end in read)
            assert logdir.scalars(run, "loss").step.tolist() == list(range(80))
        assert logdir.scalars("run00", "loss").step.tolist() == list(range(50))

        bucket.client.put_object(Bucket=bucket.name, Key="runs/run03/notes.txt", Body=b"not an event file")
        logdir.reload()
        assert [request.is_list for request in counted_s3.recorder.take()] == [True]
        assert logdir.problems() == []
    finally:
        for writer in writers.values():
            writer.close()


@pytest.mark.usefixtures("aws_environment")
def test_a_run_uploaded_between_reloads_appears_at_the_cost_of_its_read(counted_s3: CountedS3, tmp_path: Path) -> None:
    bucket = Bucket(counted_s3.moto, "logs-new-run", tmp_path)
    for run in ("a", "b"):
        with SummaryWriter(tmp_path / run) as writer:
            writer.add_scalar("loss", 1.0, 1)
    bucket.upload("a")
    logdir = ridgeline.open(f"s3://{bucket.name}/runs", cache=False)
    assert logdir.runs() == ["a"]
    bucket.upload("b")
    counted_s3.recorder.take()
    logdir.reload()
    requests = counted_s3.recorder.take()
    assert logdir.runs() == ["a", "b"] and logdir.scalars("b", "loss").value.tolist() == [1.0]
    assert sum(request.is_list for request in requests) == 1
    assert [request.path for request in requests if request.is_read] == [
        f"/{bucket.name}/runs/b/{next((tmp_path / 'b').glob('*tfevents*')).name}"
    ]


def test_storage_options_come_from_the_standard_aws_variables() -> None:
    environ = {
        "AWS_ENDPOINT_URL": "http://127.0.0.1:9000",
        "AWS_ACCESS_KEY_ID": "key",
        "AWS_SECRET_ACCESS_KEY": "secret",
        "AWS_SESSION_TOKEN": "token",
        "AWS_REGION": "eu-west-3",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    assert storage_options("s3", environ) == {
        "endpoint_url": "http://127.0.0.1:9000",
        "key": "key",
        "secret": "secret",
        "token": "token",
        "client_kwargs": {"region_name": "eu-west-3"},  # AWS_REGION wins, as in the AWS CLI
    }
    assert storage_options("s3", {"AWS_ENDPOINT_URL": "http://a", "AWS_ENDPOINT_URL_S3": "http://b"}) == {
        "endpoint_url": "http://b"  # the service-specific variable first
    }
    assert storage_options("s3", {"AWS_PROFILE": "research", "AWS_DEFAULT_REGION": "us-west-2"}) == {
        "profile": "research",
        "client_kwargs": {"region_name": "us-west-2"},
    }
    assert storage_options("s3", {}) == {}
    assert storage_options("gs", environ) == {}  # GCS takes its own (GOOGLE_APPLICATION_CREDENTIALS, via gcsfs)


@pytest.mark.usefixtures("aws_environment")
def test_a_runs_modification_time_is_the_last_listings_without_a_request(counted_s3: CountedS3, tmp_path: Path) -> None:
    """A run's liveness (``last_modified``, which its status reads) follows the object as each reload lists it,
    without a HEAD per file; s3fs's own cached info kept the first listing's time for good."""
    bucket = Bucket(counted_s3.moto, "logs-modified", tmp_path)
    with SummaryWriter(tmp_path / "run") as writer:
        writer.add_scalar("loss", 1.0, 1)
    bucket.upload("run")
    (path,) = (tmp_path / "run").glob("*tfevents*")
    key = f"runs/run/{path.name}"

    def uploaded() -> float:
        return float(bucket.client.head_object(Bucket=bucket.name, Key=key)["LastModified"].timestamp())

    logdir = ridgeline.open(f"s3://{bucket.name}/runs", cache=False)
    first = uploaded()
    assert logdir.last_modified("run") == first
    # S3's LastModified has whole seconds: upload again until the object's time moves on.
    wait_until(lambda: bucket.upload("run") and uploaded() > first, "a later LastModified")
    logdir.reload()
    counted_s3.recorder.take()
    assert logdir.last_modified("run") == uploaded()
    assert counted_s3.recorder.take() == []
