"""JSON responses through orjson, numpy-aware (arrays serialise without a Python list in between).

FastAPI's own ``ORJSONResponse`` is deprecated; this one is ours and also passes ``OPT_SERIALIZE_NUMPY``.
orjson writes NaN and ±Inf as ``null``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import JSONResponse


class OrjsonResponse(JSONResponse):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS)


BINARY_MEDIA_TYPE = "application/octet-stream"


def wants_binary(request: Request, format: str | None) -> bool:
    """Whether a route with a binary form answers in it: ``?format=binary`` (``format=json`` says no), else an
    ``Accept`` header naming application/octet-stream."""
    if format is not None:
        return format == "binary"
    return BINARY_MEDIA_TYPE in request.headers.get("accept", "")


def error(status_code: int, message: str, headers: dict[str, str] | None = None) -> OrjsonResponse:
    return OrjsonResponse({"error": message}, status_code=status_code, headers=headers)


class ApiError(Exception):
    """An error answered as ``{"error": message}`` with ``status_code`` (raised by routes, handled by the app)."""

    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.message = message


@contextmanager
def missing_as_404(what: str) -> Iterator[None]:
    """Answers a ``KeyError`` raised inside (the store's unknown run or tag) as a 404 with the error's message,
    or ``what`` when it has none (e.g. ``"no text 'run' / 'tag'"``)."""
    try:
        yield
    except KeyError as missing:
        raise ApiError(404, str(missing.args[0]) if missing.args else what) from None
