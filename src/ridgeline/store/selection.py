"""Choosing runs and tags by a pattern a user typed: RE2, so matching takes linear time whatever the pattern.

Python's ``re`` backtracks: ``^(([a-z_/]+)*)*!`` against a long run name keeps a thread busy for minutes, and a
route that compiles user input with it can be frozen by any web page the user visits (it can send that GET to
127.0.0.1). Every user pattern — the API's ``run_regex``/``tag_regex``, the CLI's ``--run``/``--tag``,
``LogDir.select_scalars`` — goes through :func:`compile_pattern` instead: RE2 has no backtracking (and so no
backreferences or lookarounds, which it rejects with a message), and patterns longer than :data:`MAX_PATTERN`
characters are refused. The syntax is RE2's, the same as search's (docs/search.md).
"""

from __future__ import annotations

from typing import Protocol

MAX_PATTERN = 2_000


class PatternError(ValueError):
    """A pattern RE2 rejects, or one over :data:`MAX_PATTERN` characters; the message says which and why."""


class Matcher(Protocol):
    """A compiled pattern: ``search(text)`` finds it anywhere in ``text``, ``match(text)`` only at its start (a
    match object, or None)."""

    def search(self, text: str) -> object | None: ...

    def match(self, text: str) -> object | None: ...


def compile_pattern(pattern: str) -> Matcher:
    """``pattern`` compiled by RE2 (unanchored search, as ``re.search``); PatternError when it cannot be.

    The message is what callers put after ``'<pattern>' is not a valid regular expression: ``."""
    if len(pattern) > MAX_PATTERN:
        raise PatternError(f"it is {len(pattern):,} characters long; at most {MAX_PATTERN:,} are accepted")
    import re2  # on first use: a start that filters nothing never loads it (issue 15)

    options = re2.Options()
    options.log_errors = False
    try:
        compiled: Matcher = re2.compile(pattern, options=options)
    except re2.error as error:
        raw = error.args[0] if error.args else b""
        detail = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        raise PatternError(detail or "RE2 rejects it") from None
    return compiled
