"""Query parameters several plugins take, with one parser each (a bad value is a 400 naming the parameter)."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import Query

from ridgeline.plugins.kit.responses import ApiError

RunRegex = Annotated[str | None, Query(description="only runs whose name matches this regular expression (search)")]
TagRegex = Annotated[str | None, Query(description="only tags that match this regular expression (search)")]


def compile_regex(pattern: str | None, parameter: str) -> re.Pattern[str] | None:
    """The compiled pattern (None when absent or empty); an invalid one is a 400 naming the parameter."""
    if not pattern:
        return None
    try:
        return re.compile(pattern)
    except re.error as error:
        message = f"query parameter {parameter!r}: {pattern!r} is not a valid regular expression: {error}"
        raise ApiError(400, message) from None
