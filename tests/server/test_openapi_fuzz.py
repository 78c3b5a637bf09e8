"""Schemathesis against our own OpenAPI spec (issue 13): every request the spec allows is answered without a 5xx,
every error is the spec's ``{"error": ...}`` body, every schema-valid request is accepted, and every request the
spec forbids is refused. In-process over a small demo log directory, a bounded number of cases per operation.

Two exceptions are written down, not hidden: ``GET /api/search`` takes a query *language* (``q``), and the
pattern parameters take RE2 patterns (marked ``x-regex-syntax: RE2``); a query or pattern that does not parse
is a 400 pointing at the fault, which no JSON Schema can describe, so positive-data acceptance is not asked of a
request that carries one (every other check is).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

import ridgeline
from ridgeline.fixtures.demo import write_demo
from ridgeline.server import create_app


def _served_demo() -> object:
    logs = Path(tempfile.mkdtemp(prefix="ridgeline-fuzz-")) / "logs"
    write_demo(logs, steps=200)
    return create_app(ridgeline.open(logs, cache=False))


app = _served_demo()
schema = schemathesis.openapi.from_asgi("/api/openapi.json", app)
# (path, name) of every parameter that takes an RE2 pattern, as the spec itself marks them.
REGEX_PARAMETERS = {
    (path, parameter["name"])
    for path, item in app.openapi()["paths"].items()  # type: ignore[attr-defined]
    for operation in item.values()
    for parameter in operation.get("parameters", [])
    if any("x-regex-syntax" in str(part) for part in (parameter, parameter.get("schema", {})))
}


@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_answers_as_its_spec_says(case: schemathesis.Case) -> None:
    patterns = any((case.operation.path, name) in REGEX_PARAMETERS for name in (case.query or {}))
    excluded = [positive_data_acceptance] if case.operation.path == "/api/search" or patterns else []
    case.call_and_validate(excluded_checks=excluded)
