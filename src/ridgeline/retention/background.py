"""A retention policy run by ``ridgeline serve --retention``: a sweep now, then one every ``every`` seconds in a
thread, and a status the server answers at ``GET /api/retention``.

The server only reads the status (:meth:`Sweeper.snapshot`, plain JSON): no request starts, changes or stops a
sweep. A sweep that fails (a log directory that vanished, storage that does not answer) is reported in the status
and retried at the next one; it never stops the server.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from ridgeline.ingest.discovery import LogDirError, LogDirSource
from ridgeline.retention.policy import Policy
from ridgeline.retention.sweep import Action, Outcome, TrashError, outcome_json, sweep

__all__ = ["Sweeper"]


class Sweeper:
    """``policy`` and ``action`` over ``sources``, every ``every`` seconds once started. ``spec`` is the policy as
    the user gave it (``--retention``'s value), shown in the status."""

    def __init__(self, sources: list[LogDirSource], policy: Policy, action: Action, every: float, spec: str) -> None:
        self.sources = sources
        self.policy = policy
        self.action = action
        self.every = every
        self.spec = spec
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last: dict[str, Any] | None = None
        self._error: str | None = None
        self._sweeps = 0
        self._removed_runs = 0
        self._removed_bytes = 0
        self._next: float | None = None

    def run_once(self) -> Outcome | None:
        """One sweep, now; its outcome (None when it failed: the status says why)."""
        try:
            outcome = sweep(self.sources, self.policy, self.action)
        except (LogDirError, TrashError, OSError) as error:
            with self._lock:
                self._error = f"the retention sweep failed: {error}"
                self._sweeps += 1
            return None
        with self._lock:
            self._last = outcome_json(outcome)
            self._error = None
            self._sweeps += 1
            self._removed_runs += len(outcome.removed)
            self._removed_bytes += outcome.freed
        return outcome

    def start(self) -> None:
        """Sweep every ``every`` seconds in a daemon thread (the first one ``every`` seconds from now)."""
        self._next = time.time() + self.every
        self._thread = threading.Thread(target=self._loop, name="ridgeline-retention", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            self.run_once()
            with self._lock:
                self._next = time.time() + self.every

    def snapshot(self) -> dict[str, Any]:
        """What ``GET /api/retention`` answers (docs/retention.md)."""
        with self._lock:
            return {
                "enabled": True,
                "spec": self.spec,
                "policy": self.policy.describe(),
                "mode": self.action.mode,
                "trash": self.action.trash,
                "every": self.every,
                "sweeps": self._sweeps,
                "next": self._next,
                "removed_runs": self._removed_runs,
                "removed_bytes": self._removed_bytes,
                "last": self._last,
                "error": self._error,
            }
