"""The OpenAPI spec of a real ``ridgeline serve``: every route documented, every error it answers listed."""

from __future__ import annotations

import pytest

from tests.server.conftest import Served


def test_openapi_documents_the_routes(server: Served) -> None:
    paths = server.get("/api/openapi.json").json()["paths"]
    for path in [
        "/api/runs",
        "/api/scalars",
        "/api/scalars/batch",
        "/api/scalars.csv",
        "/api/scalars.json",
        "/api/annotations",
        "/api/hparams",
    ]:
        assert path in paths
    assert "post" in paths["/api/scalars/batch"]
    assert server.get("/api/docs").status_code == 200


@pytest.mark.parametrize("case", ["unknown", "malformed"])
def test_every_error_the_api_answers_is_in_its_spec(server: Served, case: str) -> None:
    # Each GET operation, called with names that do not exist (or with a malformed value for every parameter),
    # answers a status its spec lists, with the Error body it describes; FastAPI's 422 never appears.
    spec = server.get("/api/openapi.json").json()
    assert spec["components"]["schemas"]["Error"]["required"] == ["error"]
    samples = {"unknown": {"integer": "0", "number": "0", "string": "no-such-name"}}
    checked = 0
    for path, item in spec["paths"].items():
        operation = item.get("get")
        if not path.startswith("/api/") or operation is None or path == "/api/openapi.json":
            continue
        parameters = operation.get("parameters", [])
        if not parameters:
            continue
        params = {}
        for parameter in parameters:
            kind = parameter.get("schema", {}).get("type") or "string"
            if case == "malformed":
                params[parameter["name"]] = "[not a valid value" if kind == "string" else "NaN-ish"
            elif parameter.get("required"):
                params[parameter["name"]] = samples["unknown"].get(kind, "no-such-name")
        response = server.get(path, **params)
        documented = operation["responses"]
        assert response.status_code != 422 or "Validation Error" not in str(documented), path
        assert str(response.status_code) in documented, f"{path} answered {response.status_code} for {params}"
        if response.status_code >= 400:
            assert "error" in response.json(), path
            assert documented[str(response.status_code)]["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/Error"
            }
        checked += 1
    assert checked >= 15
