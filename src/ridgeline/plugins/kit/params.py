"""Query parameters several plugins take, with one parser each (a bad value is a 400 naming the parameter)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Query

from ridgeline.plugins.kit.responses import ApiError
from ridgeline.store.selection import MAX_PATTERN, Matcher, PatternError, compile_pattern


def regex_query(description: str) -> Any:
    """A query parameter holding a user's regular expression: the spec says how long it may be and that its
    syntax is RE2's (``x-regex-syntax``). Not ``format: regex``: JSON Schema means ECMA-262 by that, which refuses
    patterns RE2 takes (``(?i)loss``, a literal ``{``), so a client validating by the spec would refuse them."""
    return Query(
        max_length=MAX_PATTERN,
        json_schema_extra={"x-regex-syntax": "RE2"},
        description=f"{description} (RE2 syntax, found anywhere in it; at most {MAX_PATTERN:,} characters)",
    )


RunRegex = Annotated[str | None, regex_query("only runs whose name matches this regular expression")]
TagRegex = Annotated[str | None, regex_query("only tags that match this regular expression")]


def compile_regex(pattern: str | None, parameter: str) -> Matcher | None:
    """The pattern compiled by RE2 (linear time: see :mod:`ridgeline.store.selection`), None when absent or
    empty; an invalid or overlong one is a 400 naming the parameter."""
    if not pattern:
        return None
    try:
        return compile_pattern(pattern)
    except PatternError as error:
        message = f"query parameter {parameter!r}: {pattern!r} is not a valid regular expression: {error}"
        raise ApiError(400, message) from None
