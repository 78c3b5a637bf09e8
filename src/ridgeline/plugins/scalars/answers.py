"""The scalars answers without the web stack: what ``routes.py`` serialises, also answered by
``ridgeline.server.early`` while FastAPI is still being imported (issue 15's fast start). Imports numpy and the
store only, never FastAPI or pydantic.
"""

from __future__ import annotations

from typing import Any

from ridgeline.plugins.scalars.series import Window, indexed_payload, series_payload
from ridgeline.services.recent import RecentAnswers
from ridgeline.store.logdir import LogDir

# A page asks in chunks of 2,000; the bound keeps one request's work to seconds (100,000 series took a minute).
MAX_BATCH_SERIES = 10_000


class ReducedAnswers:
    """The last ``limit`` reduced answers, keyed by the series' change token (never stale: a series that changed
    has a new token) and the window asked for."""

    def __init__(self, limit: int = 128) -> None:
        self._answers: RecentAnswers[tuple[Any, ...], dict[str, Any]] = RecentAnswers(limit)

    def payload(self, logdir: LogDir, run: str, tag: str, window: Window) -> dict[str, Any]:
        if window.max_points is None:
            return series_payload(logdir.scalars(run, tag), window)
        key = (id(logdir), run, tag, logdir.version(run, "scalars", tag), window)  # the token before the data

        def reduced() -> dict[str, Any]:
            indexed = logdir.indexed_scalars(run, tag)
            if indexed is not None:
                return indexed_payload(indexed, window)
            return series_payload(logdir.scalars(run, tag), window)

        return self._answers.get(key, reduced)


REDUCED = ReducedAnswers()


def batch_entries(logdir: LogDir, keys: list[tuple[str, str]], window: Window) -> list[dict[str, Any]]:
    """``POST /api/scalars/batch``'s series in request order: each payload with ``run`` and ``tag``, or an entry
    with an ``error`` for an unknown pair."""
    results: list[dict[str, Any]] = []
    for run, tag in keys:
        try:
            answer = REDUCED.payload(logdir, run, tag, window)
        except KeyError as missing:
            results.append({"run": run, "tag": tag, "error": str(missing.args[0]) if missing.args else ""})
            continue
        results.append({"run": run, "tag": tag, **answer})
    return results
