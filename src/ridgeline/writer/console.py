"""Console capture (``SummaryWriter(capture_console=True)``): the process's stdout and stderr lines, teed into the
run as text records under ``CONSOLE_TAG``.

``sys.stdout``/``sys.stderr`` are wrapped: everything still reaches the terminal unchanged, and each complete line
is kept with its time, its stream and the writer's current step. Lines are batched, a record per batch queued on the
writer's background thread like any record, so a print costs the training loop a list append.

A record's step must grow from one record to the next: a series keeps only the last record written at a step (the
restart rule, docs/restarts.md). So a batch is written once the training step moved past the last record's step
(and ``BATCH_SECONDS`` passed), at the training step; and when ``BATCH_LINES`` lines are waiting, at a flush, a
signal or the end, at one past the last record's step if the training step has not moved. A partial line waits
for its newline (or the flush). The traceback of a crashed program is on stderr before the writer's exit handler
runs, so it is in the run; what was printed since the last batch of a process killed with SIGKILL is not, as for
every writer.

Each line of a record is laid out by :mod:`ridgeline.format.console`.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

from ridgeline.format.console import ConsoleLine, format_line
from ridgeline.format.proto import plugins_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from ridgeline.format.tags import TEXT_PLUGIN

BATCH_SECONDS = 1.0
BATCH_LINES = 200
MAX_LINE = 4096  # characters kept of one line (a progress bar redrawn without newlines is cut, not unbounded)


def lines_summary(tag: str, lines: list[str]) -> summary_pb2.Summary:
    """Strings as a text summary under exactly ``tag`` (a console batch, the notes): a 1-D string tensor."""
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(
            plugin_name=TEXT_PLUGIN, content=plugins_pb2.TextPluginData(version=0).SerializeToString()
        )
    )
    tensor = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_STRING,
        string_val=[line.encode("utf-8", "backslashreplace") for line in lines],
        tensor_shape=tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=len(lines))]),
    )
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, metadata=metadata, tensor=tensor)])


class _Tee:
    """A text stream that writes through to ``target`` and hands each complete line to ``capture``."""

    def __init__(self, target: TextIO, stream: str, capture: Callable[[str, str], None]) -> None:
        self._target = target
        self._stream = stream
        self._capture = capture
        self._pieces: list[str] = []  # of the line not ended yet (print writes each argument on its own)
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        written = self._target.write(text)
        if type(text) is str and text:
            if "\n" not in text:
                with self._lock:
                    self._pieces.append(text)
                return written
            with self._lock:
                self._pieces.append(text)
                lines = "".join(self._pieces).split("\n")
                partial = lines.pop()
                self._pieces = [partial[:MAX_LINE]] if partial else []
            for line in lines:
                self._capture(self._stream, line.rstrip("\r")[:MAX_LINE])
        return written

    def drain(self) -> None:
        """Hand over the partial line (at a flush or the end)."""
        with self._lock:
            partial, self._pieces = "".join(self._pieces), []
        if partial:
            self._capture(self._stream, partial[:MAX_LINE])

    def flush(self) -> None:
        self._target.flush()

    def __getattr__(self, name: str) -> Any:  # encoding, isatty, fileno, ...: the real stream's
        return getattr(self._target, name)


class ConsoleCapture:
    """Tees sys.stdout and sys.stderr into ``emit(lines, step)`` batches; ``step()`` says the writer's current
    training step (None before any)."""

    def __init__(self, emit: Callable[[list[str], int], None], step: Callable[[], int | None]) -> None:
        self._emit = emit
        self._step = step
        self._lines: list[str] = []
        self._lock = threading.Lock()
        self._last_emit = time.monotonic()
        self._record_step = -1  # the step of the last record written
        self._stdout = _Tee(sys.stdout, "stdout", self._capture)
        self._stderr = _Tee(sys.stderr, "stderr", self._capture)
        sys.stdout, sys.stderr = self._stdout, self._stderr  # type: ignore[assignment]

    def _capture(self, stream: str, text: str) -> None:
        step = self._step()
        line = format_line(ConsoleLine(time.time(), stream, step, text))
        with self._lock:
            self._lines.append(line)
            moved = step is not None and step > self._record_step
            due = len(self._lines) >= BATCH_LINES or (moved and time.monotonic() - self._last_emit >= BATCH_SECONDS)
        if due:
            self.emit()

    def emit(self) -> None:
        """Write the lines kept so far as one record (complete lines only; :meth:`drain` first for the rest)."""
        with self._lock:
            lines, self._lines = self._lines, []
            if not lines:
                return
            self._last_emit = time.monotonic()
            self._record_step = max(self._step() or 0, self._record_step + 1)
            step = self._record_step
        self._emit(lines, step)

    def drain(self) -> None:
        """Every line kept, the partial ones included, written out."""
        self._stdout.drain()
        self._stderr.drain()
        self.emit()

    def stop(self) -> None:
        """Put the streams back (when nobody replaced them since) and write what is left."""
        if sys.stdout is self._stdout:
            sys.stdout = self._stdout._target
        if sys.stderr is self._stderr:
            sys.stderr = self._stderr._target
        self.drain()
