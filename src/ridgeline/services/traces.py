"""Finding the PyTorch profiler traces of a run: ``{worker}.{timestamp}.pt.trace.json`` (``.gz`` too), what
``torch.profiler.tensorboard_trace_handler(dir)`` writes, and any other ``*.trace.json[.gz]`` beside the event
files. Apart from :mod:`ridgeline.services.profile`, which parses them: the run listing looks for traces on
every rebuild, and importing the parsers would cost a server's first answer tens of milliseconds (issue 15).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ridgeline.store.logdir import LogDir

__all__ = ["SUFFIXES", "TraceFile", "find_traces"]

SUFFIXES = (".trace.json", ".trace.json.gz")
_WORKER = re.compile(r"^(?P<worker>.+?)\.(?P<stamp>\d+)\.pt\.trace\.json(\.gz)?$")


@dataclass(frozen=True)
class TraceFile:
    name: str  # the file name, what the API calls the trace
    path: str
    size: int

    @property
    def worker(self) -> str:
        found = _WORKER.match(self.name)
        return found.group("worker") if found else self.name.split(".trace.json")[0]


def find_traces(logdir: LogDir, run: str) -> list[TraceFile]:
    """The run's trace files, by name (KeyError-like UnknownRun from the store for an unknown run)."""
    directory = logdir.run_directory(run)
    if "://" in directory or not os.path.isdir(directory):
        return []
    found = []
    with os.scandir(directory) as entries:
        for entry in entries:
            # A link is not followed: it could lead out of the log directory, and nothing outside it is served.
            if entry.name.endswith(SUFFIXES) and entry.is_file(follow_symlinks=False):
                found.append(TraceFile(entry.name, entry.path, entry.stat().st_size))
    return sorted(found, key=lambda t: t.name)
