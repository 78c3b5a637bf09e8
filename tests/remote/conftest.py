"""An S3 server (moto's, on 127.0.0.1) behind a counting proxy: every request ridgeline makes is recorded."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.s3 import moto_s3

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection"}


@dataclass(frozen=True)
class Request:
    method: str
    path: str  # /bucket/key
    query: dict[str, list[str]]
    range: str | None

    @property
    def is_list(self) -> bool:
        return self.method == "GET" and ("list-type" in self.query or ("prefix" in self.query))

    @property
    def is_read(self) -> bool:
        return self.method == "GET" and not self.is_list


@dataclass
class Recorder:
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self) -> list[Request]:
        """The requests since the last call."""
        with self.lock:
            taken, self.requests = self.requests, []
        return taken


def _proxy(target: tuple[str, int], recorder: Recorder) -> type[BaseHTTPRequestHandler]:
    class Forward(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            split = urlsplit(self.path)
            with recorder.lock:
                recorder.requests.append(
                    Request(
                        self.command, split.path, parse_qs(split.query, keep_blank_values=True), self.headers["Range"]
                    )
                )
            upstream = http.client.HTTPConnection(*target, timeout=60)
            try:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                upstream.request(self.command, self.path, body=body, headers=headers)
                response = upstream.getresponse()
                data = response.read()
                self.send_response(response.status, response.reason)
                for key, value in response.getheaders():
                    if key.lower() not in HOP_BY_HOP:
                        self.send_header(key, value)
                self.send_header(
                    "Content-Length",
                    str(len(data)) if self.command != "HEAD" else response.getheader("Content-Length", "0"),
                )
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
            finally:
                upstream.close()

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward

    return Forward


@dataclass
class CountedS3:
    moto: str  # the server itself: for uploads the test makes (not counted)
    proxy: str  # what ridgeline is pointed at
    recorder: Recorder


@pytest.fixture(scope="module")
def counted_s3() -> Iterator[CountedS3]:
    recorder = Recorder()
    with moto_s3() as (host, port):
        proxy = ThreadingHTTPServer(("127.0.0.1", 0), _proxy((host, port), recorder))
        proxy.daemon_threads = True
        thread = threading.Thread(target=proxy.serve_forever, name="counting-proxy", daemon=True)
        thread.start()
        try:
            yield CountedS3(f"http://{host}:{port}", f"http://127.0.0.1:{proxy.server_address[1]}", recorder)
        finally:
            proxy.shutdown()
            proxy.server_close()
            thread.join()
