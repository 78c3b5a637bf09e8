"""The OpenAPI spec as the API behaves: errors are ``{"error": ...}`` with 400 (a bad parameter) or 404 (an unknown
run, tag or step), never FastAPI's 422 validation body, which the app turns into a 400 (see ``app.bad_request``).

Routes declare their own responses where they know better (a route's own 404 or 422 text stays); this fills in
the rest for every ``/api`` operation, so clients generated from the spec expect what they will get.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

ERROR_SCHEMA = {
    "type": "object",
    "properties": {"error": {"type": "string", "description": "what was wrong, naming the parameter"}},
    "required": ["error"],
}
# Parameters that name something that may not exist: a route taking one answers 404 when it does not.
_LOOKUPS = {"run", "tag", "step", "index", "key"}


def use_error_responses(app: FastAPI) -> None:
    """Make ``app.openapi()`` describe the 400/404 error bodies in place of the 422 validation errors."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                summary=app.summary,
                description=app.description,
                routes=app.routes,
            )
            document_errors(schema)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def document_errors(schema: dict[str, Any]) -> None:
    schemas = schema.setdefault("components", {}).setdefault("schemas", {})
    schemas["Error"] = ERROR_SCHEMA
    for path, item in schema.get("paths", {}).items():
        if not path.startswith("/api/"):
            continue
        for operation in item.values():
            responses: dict[str, Any] = operation.setdefault("responses", {})
            if responses.get("422", {}).get("description") == "Validation Error":
                del responses["422"]
            names = {parameter.get("name") for parameter in operation.get("parameters", [])}
            if names or "requestBody" in operation:
                responses.setdefault("400", {"description": "a missing or malformed parameter"})
            if names & _LOOKUPS:
                responses.setdefault("404", {"description": "no such run, tag or step"})
            for status in ("400", "404", "422"):
                if status in responses:
                    json_body = responses[status].setdefault("content", {}).setdefault("application/json", {})
                    json_body.setdefault("schema", {"$ref": "#/components/schemas/Error"})
    used = str(schema.get("paths", {}))
    for name in ("HTTPValidationError", "ValidationError"):
        if f"#/components/schemas/{name}" not in used:
            schemas.pop(name, None)
