"""How a run stands, derived in this one place from what the provider holds (docs/runs.md):

- ``finished``: its writer recorded its end (``_ridgeline/run_end``, written by ``close()`` and at interpreter exit)
  as finished, or an hparams session end says SUCCESS (torch's ``add_hparams``, TensorBoard's, a framework's);
- ``failed``: the end record says failed (an uncaught exception, a ``with`` block that raised, Lightning's
  ``finalize("failed")``), or a session end says FAILURE;
- ``running``: no end since its last record, and its files were modified (or its last record written) less than
  ``crashed_after`` seconds ago — a ridgeline writer touches its open file every 30 s, so a quiet live run stays
  running;
- ``crashed``: no end, nothing for ``crashed_after`` seconds, and its writer was ridgeline's (it records run
  metadata when it opens, and would have recorded its end): the process was killed, or died without exit
  handlers;
- ``stopped``: the same for a run whose writer records no end (torch's, TensorBoard's, Keras'): it finished or
  died, the files cannot say which.

A run written to again after its end (a writer reused after ``close()``, a second process) is running again: an
end counts only when no record is later than it by more than :data:`LATE_RECORD_S`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ridgeline.format.run_metadata import parse
from ridgeline.format.tags import HPARAMS_SESSION_END_TAG, RUN_END_TAG, RUN_METADATA_TAG
from ridgeline.store.payloads import DecodeError
from ridgeline.store.provider import Provider, UnknownSeries

Status = Literal["running", "finished", "failed", "crashed", "stopped"]
STATUSES: tuple[Status, ...] = ("running", "finished", "failed", "crashed", "stopped")

CRASHED_AFTER_S = 300.0  # the default of the crashed_after setting
LATE_RECORD_S = 2.0  # a record this much later than the end means the run was written to again


@dataclass(frozen=True, slots=True)
class RunStatus:
    """A run's status, when its records start and end (wall times), when it ended (if it did), and what failed."""

    status: Status
    start_time: float | None
    end_time: float | None
    last_activity: float | None  # the later of its last record and its files' modification time
    error: str | None = None
    traceback: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "start_time": self.start_time,
            "end_time": self.end_time,
            "last_activity": self.last_activity,
            "error": self.error,
            "traceback": self.traceback,
        }


@dataclass(frozen=True, slots=True)
class _End:
    wall_time: float
    failed: bool
    end_time: float
    error: str | None = None
    traceback: str | None = None


def run_status(
    provider: Provider, run: str, *, crashed_after: float = CRASHED_AFTER_S, now: float | None = None
) -> RunStatus:
    """The status of ``run`` (KeyError for an unknown run); ``now`` defaults to the clock."""
    info = provider.run_info(run)
    end = _latest(_end_record(provider, run), _session_end(provider, run))
    start = info.first_wall_time
    if end is not None and (info.last_wall_time is None or info.last_wall_time <= end.wall_time + LATE_RECORD_S):
        status: Status = "failed" if end.failed else "finished"
        return RunStatus(status, start, end.end_time, end.end_time, end.error, end.traceback)
    modified = provider.last_modified(run)
    activity = max((t for t in (info.last_wall_time, modified) if t is not None), default=None)
    clock = time.time() if now is None else now
    if activity is not None and clock - activity < crashed_after:
        return RunStatus("running", start, None, activity)
    ridgeline_writer = RUN_METADATA_TAG in info.tags.get("text", ())
    return RunStatus("crashed" if ridgeline_writer else "stopped", start, None, activity)


def _latest(*ends: _End | None) -> _End | None:
    found = [end for end in ends if end is not None]
    return max(found, key=lambda end: (end.wall_time, end.failed)) if found else None


def _end_record(provider: Provider, run: str) -> _End | None:
    try:
        entries = provider.entries(run, "text", RUN_END_TAG)
        if not entries:
            return None
        last = entries[-1]
        text = np.asarray(provider.read_value(run, "text", RUN_END_TAG, last.ref).text).reshape(-1)
        info = parse(str(text[0])) if text.size else {}
    except UnknownSeries:
        return None
    except (DecodeError, OSError, ValueError, json.JSONDecodeError):  # unreadable: as if there were none
        return None
    failed = info.get("status") == "failed"
    end_time = info.get("end_time")
    return _End(
        last.wall_time,
        failed,
        float(end_time) if isinstance(end_time, int | float) else last.wall_time,
        _string(info.get("error")),
        _string(info.get("traceback")),
    )


def _session_end(provider: Provider, run: str) -> _End | None:
    try:
        entries = provider.entries(run, "hparams", HPARAMS_SESSION_END_TAG)
        if not entries:
            return None
        last = entries[-1]
        record = provider.read_value(run, "hparams", HPARAMS_SESSION_END_TAG, last.ref)
    except UnknownSeries:
        return None
    except (DecodeError, OSError):
        return None
    if record.status == "running":
        return None
    failed = record.status == "failure"
    return _End(
        last.wall_time, failed, record.end_time_secs or last.wall_time, "session end: FAILURE" if failed else None
    )


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
