"""What a hostile page or client can do to a served log directory (issue 13), each a regression test of a defect
found by attacking it: a regex that froze every client, tokens let in twice or not at all, no security headers,
any Host answered, a 404 for a wrong method, FastAPI's own error bodies, unbounded request bodies."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

import ridgeline
from ridgeline.server import create_app
from ridgeline.server.run import bind, make_server
from ridgeline.server.security import allowed_hosts, host_of
from tests.conftest import write_ridgeline_run

TOKEN = "s3cret-tøken-✓"  # not ASCII: it must still authenticate


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> ridgeline.LogDir:
    root = tmp_path_factory.mktemp("logs")
    write_ridgeline_run(root / ("a" * 40), {"loss": [(0, 1.0), (1, 0.5)]})  # a name that makes re backtrack
    return ridgeline.open(root, cache=False)


@pytest.fixture(scope="module")
def client(logdir: ridgeline.LogDir) -> Iterator[TestClient]:
    with TestClient(create_app(logdir), base_url="http://localhost") as served:
        yield served


@pytest.fixture
def guarded(logdir: ridgeline.LogDir) -> Iterator[Forgetful]:
    """A token-guarded app; the client keeps no cookie between requests (each request shows its credentials)."""
    with TestClient(create_app(logdir, token=TOKEN), base_url="http://localhost", follow_redirects=False) as served:
        yield Forgetful(served)


class Forgetful:
    """A client that sends only the credentials a request names: the cookie jar is emptied around each request."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    def get(self, path: str, **kwargs: object) -> httpx.Response:
        self.client.cookies.clear()
        try:
            return self.client.get(path, **kwargs)  # type: ignore[arg-type]
        finally:
            self.client.cookies.clear()


# --- patterns -----------------------------------------------------------------------------------------------------
def test_a_catastrophic_pattern_is_answered_at_once_not_after_the_heat_death(client: TestClient) -> None:
    """With Python's re, ``^(([a-z_/]+)*)*!`` against a 40-letter run name backtracks for longer than anyone waits,
    and blocks every other client meanwhile. RE2 answers in linear time: the request completes."""
    answers: list[int] = []
    worker = threading.Thread(
        target=lambda: answers.append(client.get("/api/runs", params={"run_regex": "^(([a-z_/]+)*)*!"}).status_code)
    )
    worker.start()
    worker.join(timeout=120)  # a bound on a hang, not a speed claim: it answers in microseconds
    assert answers == [200]


@pytest.mark.parametrize(
    ("pattern", "said"),
    [("(?=a)", "invalid perl operator"), ("(a", "missing )"), ("a" * 2001, "at most 2000 characters")],
)
def test_a_pattern_re2_refuses_is_a_400_naming_the_parameter(client: TestClient, pattern: str, said: str) -> None:
    for route in ("/api/runs", "/api/alerts", "/api/hparams/table", "/api/custom_scalars", "/api/embeddings"):
        answer = client.get(route, params={"run_regex": pattern})
        assert answer.status_code == 400, route
        assert "run_regex" in answer.json()["error"] and said in answer.json()["error"], route


def test_the_spec_says_which_parameters_are_patterns(client: TestClient) -> None:
    spec = client.get("/api/openapi.json").json()
    parameters = {p["name"]: p for p in spec["paths"]["/api/runs"]["get"]["parameters"]}
    schema = parameters["run_regex"]["schema"]
    assert schema["x-regex-syntax"] == "RE2" and "format" not in schema  # JSON Schema's "regex" is ECMA-262
    assert schema["anyOf"][0] == {"type": "string", "maxLength": 2000}


# --- methods, bodies and their errors ---------------------------------------------------------------------------
def test_a_wrong_method_is_a_405_with_allow(client: TestClient) -> None:
    answer = client.get("/api/scalars/batch")
    assert answer.status_code == 405 and answer.headers["allow"] == "POST"
    assert "POST" in answer.json()["error"]
    assert client.request("TRACE", "/api/runs").headers.get("allow")


def test_a_body_that_is_not_json_is_an_error_body_not_detail(client: TestClient) -> None:
    answer = client.post("/api/scalars/batch", content=b"{not json", headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert set(answer.json()) == {"error"} and "not valid JSON" in answer.json()["error"]


def test_a_body_over_the_limit_is_refused_unread(client: TestClient) -> None:
    answer = client.post("/api/scalars/batch", content=b" " * (9 << 20), headers={"content-type": "application/json"})
    assert answer.status_code == 413 and "larger than" in answer.json()["error"]


def test_a_batch_names_at_most_ten_thousand_series(client: TestClient) -> None:
    many = {"series": [{"run": "x", "tag": str(i)} for i in range(10_001)]}
    answer = client.post("/api/scalars/batch", json=many)
    assert answer.status_code == 400 and "series" in answer.json()["error"]
    assert client.post("/api/scalars/batch", json={"series": many["series"][:10_000]}).status_code == 200


def test_a_batch_takes_no_booleans_for_numbers(client: TestClient) -> None:
    answer = client.post("/api/scalars/batch", json={"series": [], "max_step": False})
    assert answer.status_code == 400


# --- headers ------------------------------------------------------------------------------------------------------
def test_every_answer_carries_the_security_headers(client: TestClient) -> None:
    for path in ("/", "/api/runs", "/api/nope", "/boot.js"):
        headers = client.get(path).headers
        policy = headers["content-security-policy"]
        assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
        assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "no-referrer"


def test_the_page_has_no_inline_script(client: TestClient) -> None:
    page = client.get("/").text
    assert "<script>" not in page and "<script " in page  # every script comes from a file the policy allows


# --- the token ----------------------------------------------------------------------------------------------------
def test_a_unicode_token_authenticates_every_way(guarded: Forgetful) -> None:
    assert guarded.get("/api/runs").status_code == 401
    assert guarded.get("/api/runs", headers={"Authorization": f"Bearer {TOKEN}".encode()}).status_code == 200
    assert guarded.get("/api/runs", params={"token": TOKEN}).status_code == 200
    page = guarded.get("/", params={"token": TOKEN})
    assert page.status_code == 303
    cookie = page.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie
    name, value = cookie.split(";")[0].split("=", 1)
    assert TOKEN not in page.headers["location"]
    with_cookie = guarded.get("/api/runs", headers={"cookie": f"{name}={value}"})
    assert with_cookie.status_code == 200


def test_a_second_token_in_the_query_is_refused_whatever_the_order(guarded: Forgetful) -> None:
    for query in (f"token=a&token={TOKEN}", f"token={TOKEN}&token=a", f"token={TOKEN}&token={TOKEN}"):
        assert guarded.get(f"/api/runs?{httpx.QueryParams(query)}").status_code == 401, query


def test_a_cookie_python_cannot_parse_does_not_hide_the_token(guarded: Forgetful) -> None:
    page = guarded.get("/", params={"token": TOKEN})
    ours = page.headers["set-cookie"].split(";")[0]
    header = f'prefs={{"theme":"dark"}}; other="unbalanced; {ours}'
    assert guarded.get("/api/runs", headers={"cookie": header}).status_code == 200


def test_the_cookie_is_secure_behind_https(logdir: ridgeline.LogDir) -> None:
    with TestClient(create_app(logdir, token=TOKEN), base_url="https://localhost", follow_redirects=False) as secure:
        cookie = secure.get("/", params={"token": TOKEN}).headers["set-cookie"]
    assert "Secure" in cookie


def test_an_empty_token_is_refused_not_an_open_door(logdir: ridgeline.LogDir) -> None:
    with pytest.raises(ValueError, match="must not be empty"):
        create_app(logdir, token="")


# --- the Host header ----------------------------------------------------------------------------------------------
def test_host_names_are_compared_without_port_and_case() -> None:
    assert host_of("LocalHost:6006") == "localhost" and host_of("[::1]:6006") == "::1" and host_of("::1") == "::1"
    assert allowed_hosts("127.0.0.1") >= {"localhost", "127.0.0.1", "::1"}
    assert "evil.example" not in allowed_hosts("127.0.0.1")
    assert "box.lab" in allowed_hosts("127.0.0.1", ["Box.Lab"])
    assert socket.gethostname().lower() in allowed_hosts("0.0.0.0")


def test_a_served_app_answers_only_its_own_hosts(logdir: ridgeline.LogDir) -> None:
    """What a DNS-rebinding page needs is the page and the API answered under its own name: refused."""
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = make_server(create_app(logdir), sock, allow_hosts=["box.lab"])
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]})
    thread.start()
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(timeout=60) as http:
            wait_for_server(http, base)
            for host in ("127.0.0.1", f"127.0.0.1:{port}", f"localhost:{port}", "box.lab"):
                assert http.get(f"{base}/api/runs", headers={"host": host}).status_code == 200, host
            for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example"):
                refused = http.get(f"{base}/api/runs", headers={"host": host})
                assert refused.status_code == 400 and "--allow-host" in refused.json()["error"], host
                assert http.get(f"{base}/", headers={"host": host}).status_code == 400
    finally:
        server.should_exit = True
        thread.join(timeout=120)
        sock.close()


def wait_for_server(http: httpx.Client, base: str) -> None:
    for _ in range(600):
        try:
            http.get(f"{base}/api/plugins")
            return
        except httpx.TransportError:
            threading.Event().wait(0.1)
    raise AssertionError(f"no server answered at {base}")


def test_no_route_writes(client: TestClient) -> None:
    spec = client.get("/api/openapi.json").json()
    writing = {
        (path, method) for path, item in spec["paths"].items() for method in item if method not in ("get", "head")
    }
    # Reads with a body: the scalars batch, and the projector's projections (computed in memory, never written
    # into a log directory), its job cancel and its change poll.
    assert writing == {
        ("/api/scalars/batch", "post"),
        ("/api/projector/projection", "post"),
        ("/api/projector/job/cancel", "post"),
        ("/api/projector/changes", "post"),
    }
