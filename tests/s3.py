"""moto's S3 server on 127.0.0.1 for the tests that read or write buckets (log directories, stores, retention),
and the standard AWS variables that point s3fs, boto3 and a subprocess at it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def moto_s3() -> Iterator[tuple[str, int]]:
    """A running moto server: yields its (host, port)."""
    from moto.server import ThreadedMotoServer

    # Port 0: the server binds a free port itself. Probing for one first and handing it over left a window in
    # which another process on a busy machine could take it (and a test then met "connection refused").
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        yield server.get_host_and_port()
    finally:
        server.stop()
        # fsspec keeps one S3FileSystem per set of arguments, and the endpoint comes from the environment, not
        # the arguments: without this the next module's server (another port) would be asked on this one's.
        import s3fs

        s3fs.S3FileSystem.clear_instance_cache()


@contextmanager
def moto_endpoint() -> Iterator[str]:
    """A running moto server: yields its URL."""
    with moto_s3() as (host, port):
        yield f"http://{host}:{port}"


def aws_env(endpoint: str) -> dict[str, str]:
    """The variables ridgeline, boto3 and s3fs read an endpoint and (moto's dummy) credentials from."""
    return {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
