"""A store on S3 (``--store s3://bucket/prefix``) through moto's S3 server on 127.0.0.1: the indexer publishes it,
two ``ridgeline serve --store s3://...`` replicas mirror it; both answer as ``serve --logdir`` does and follow
the indexer's commits, and no replica writes into the bucket."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import wait_until
from tests.s3 import aws_env, moto_endpoint
from tests.server.conftest import clean_env, serving
from tests.store.test_disk import expected, write_run
from tests.store.test_replicas import LONG, SERIES, answers, caught_up, indexing, write_logs

STORE = "s3://stores/team/store"


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    with moto_endpoint() as endpoint:
        yield endpoint


def objects(endpoint: str, bucket: str = "stores") -> dict[str, tuple[str, int]]:
    import boto3

    client = boto3.client("s3", endpoint_url=endpoint, **_keys())
    listed = client.list_objects_v2(Bucket=bucket).get("Contents", [])
    return {entry["Key"]: (entry["ETag"], entry["Size"]) for entry in listed}


def _keys() -> dict[str, str]:
    return {"aws_access_key_id": "testing", "aws_secret_access_key": "testing", "region_name": "us-east-1"}


def test_two_replicas_of_a_store_on_s3_answer_as_a_logdir_server(s3_endpoint: str, tmp_path: Path) -> None:
    import boto3

    boto3.client("s3", endpoint_url=s3_endpoint, **_keys()).create_bucket(Bucket="stores")
    logs = tmp_path / "logs"
    write_logs(logs)
    with serving("--logdir", str(logs.resolve()), "--port", "0", "--no-cache") as reference:
        wanted = answers(reference, SERIES)

    def env(cache: str) -> dict[str, str]:
        return clean_env(**aws_env(s3_endpoint), RIDGELINE_CACHE_DIR=str(tmp_path / cache))

    replica_args = ("--store", STORE, "--port", "0", "--reload-interval", "0.1")
    with (
        indexing(logs, STORE, "--watch", "0.1", env=env("indexer")),
        serving(*replica_args, env=env("replica-1")) as first,
        serving(*replica_args, env=env("replica-2")) as second,
    ):
        assert answers(first, SERIES) == wanted
        assert answers(second, SERIES) == wanted
        write_run(logs / "short", ["loss", "acc"], range(300, 450))
        write_run(logs / "long" / "sub", ["loss"], range(LONG, LONG + 5_000))
        write_run(logs / "new", ["loss"], range(10))
        for replica in (first, second):
            wait_until(functools.partial(caught_up, replica), "the replica to answer what the indexer published")
            long = replica.get("/api/scalars", run="long/sub", tag="loss").json()
            assert long["step"] == list(range(LONG + 5_000)) and long["value"] == expected(0, range(LONG + 5_000))
    # With the indexer stopped, a replica reads the bucket and writes nothing into it.
    before = objects(s3_endpoint)
    assert any("/manifests/" in key and key.endswith(".json.gz") for key in before)
    with serving(*replica_args, env=env("replica-3")) as replica:
        grown = {**SERIES, "new": ["loss"]}
        with serving("--logdir", str(logs.resolve()), "--port", "0", "--no-cache") as reference:
            assert answers(replica, grown) == answers(reference, grown)
    assert objects(s3_endpoint) == before


def test_a_replica_of_s3_follows_a_run_read_again_and_refuses_an_empty_prefix(
    s3_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import boto3

    import ridgeline
    from ridgeline.api import open_replica
    from ridgeline.store.files import StoreError

    for name, value in {**aws_env(s3_endpoint), "RIDGELINE_CACHE_DIR": str(tmp_path / "replica")}.items():
        monkeypatch.setenv(name, value)
    boto3.client("s3", endpoint_url=s3_endpoint, **_keys()).create_bucket(Bucket="rewinds")
    store = "s3://rewinds/store"
    with pytest.raises(StoreError, match=r"no store\.json"):
        open_replica(store)
    logs = tmp_path / "logs"
    first, second = logs / "run" / "events.out.tfevents.1.a", logs / "run" / "events.out.tfevents.2.b"
    write_run(first.parent, ["loss"], range(100), name=first.name)
    write_run(second.parent, ["loss"], range(100, 200), name=second.name)
    writer = ridgeline.open(logs, store=store, cache_dir=tmp_path / "indexer")
    replica = open_replica(store)
    assert replica.scalars("run", "loss").value.tolist() == expected(0, range(200))
    published = {key for key in objects(s3_endpoint, "rewinds") if key.endswith(".segments")}
    second.unlink()
    write_run(second.parent, ["loss"], range(150, 400), name=second.name)  # other bytes from the start
    writer.reload()
    replica.reload()
    steps = [*range(100), *range(150, 400)]
    assert replica.scalars("run", "loss").step.tolist() == steps
    assert replica.scalars("run", "loss").value.tolist() == [step / 8 for step in steps]
    now = {key for key in objects(s3_endpoint, "rewinds") if key.endswith(".segments")}
    assert published and now and not published & now  # the old reading's objects are gone from the bucket
    writer.provider.close()  # type: ignore[attr-defined]


def test_a_growing_column_is_published_as_the_bytes_it_gained(
    s3_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each pass uploads what a column gained as one part object, not the column again; after MAX_PARTS parts
    the column is uploaded whole once and its parts removed. A replica reads every point through all of it."""
    import boto3

    import ridgeline
    from ridgeline.api import open_replica
    from ridgeline.store import remote_store

    monkeypatch.setattr(remote_store, "MAX_PARTS", 2)
    for name, value in {**aws_env(s3_endpoint), "RIDGELINE_CACHE_DIR": str(tmp_path / "replica")}.items():
        monkeypatch.setenv(name, value)
    boto3.client("s3", endpoint_url=s3_endpoint, **_keys()).create_bucket(Bucket="appends")
    store = "s3://appends/store"
    logs = tmp_path / "logs"
    write_run(logs / "run", ["loss"], range(LONG))  # long enough for files of its own
    writer = ridgeline.open(logs, store=store, cache_dir=tmp_path / "indexer")
    replica = open_replica(store)
    (values,) = [key for key in objects(s3_endpoint, "appends") if key.endswith(".value4")]
    base = objects(s3_endpoint, "appends")[values]
    assert base[1] == LONG * 4
    end = LONG
    for grown in (1_000, 2_000, 3_000):
        write_run(logs / "run", ["loss"], range(end, end + grown))
        writer.reload()
        now = objects(s3_endpoint, "appends")
        parts = sorted((key, size) for key, (_, size) in now.items() if key.startswith(values + ".part-"))
        if grown < 3_000:  # a part of exactly the bytes gained, the base object untouched
            assert parts[-1] == (f"{values}.part-{end * 4:016x}", grown * 4)
            assert now[values] == base
        else:  # the third part would pass MAX_PARTS: uploaded whole, parts gone
            assert parts == [] and now[values][1] == (end + grown) * 4
        end += grown
        replica.reload()
        series = replica.scalars("run", "loss")
        assert series.step.tolist() == list(range(end)) and series.value.tolist() == expected(0, range(end))
    writer.provider.close()  # type: ignore[attr-defined]


def test_a_run_seen_half_uploaded_is_copied_once_its_manifest_arrives(
    s3_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync that lists a new run while the indexer is between its columns and its manifest must not keep that
    listing: the next sync copies the run (s3fs caches a directory's first listing; CI once waited 120 s on it)."""
    import boto3

    import ridgeline
    from ridgeline.api import _fsspec
    from ridgeline.store.remote_store import Mirror

    for name, value in aws_env(s3_endpoint).items():
        monkeypatch.setenv(name, value)
    client = boto3.client("s3", endpoint_url=s3_endpoint, **_keys())
    client.create_bucket(Bucket="halves")
    logs, local = tmp_path / "logs", tmp_path / "local"
    write_run(logs / "run", ["loss"], range(100))
    ridgeline.open(logs, store=local).provider.close()  # type: ignore[attr-defined]
    (shard,) = (local / "manifests").iterdir()  # the one run's manifest, in its shard
    columns = list((local / "packs").iterdir())  # its points, in the pass's pack
    assert columns

    def upload(path: Path) -> None:
        client.put_object(Bucket="halves", Key=f"store/{path.relative_to(local)}", Body=path.read_bytes())

    for path in columns:
        upload(path)
    fs, root = _fsspec("s3://halves/store")
    mirror = Mirror(fs, root, tmp_path / "copy")
    mirror.sync()  # lists the run's columns, no manifest yet: nothing to copy
    assert not (mirror.local / "manifests" / shard.name).exists()
    upload(shard)
    mirror.sync()
    assert (mirror.local / "manifests" / shard.name).read_bytes() == shard.read_bytes()
    for path in columns:
        assert (mirror.local / "packs" / path.name).read_bytes() == path.read_bytes()
