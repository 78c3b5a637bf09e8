"""One write at a time in a thread of its own, so that a pass goes on reading while what it read is encoded and
written (numpy's loops, the compiled parser and the system calls release the GIL, so both cores work).

The next job, or :meth:`BackgroundWrite.wait`, first waits for the one before and raises what it raised: an error
is never lost, only reported at the next write or the checkpoint that follows.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class BackgroundWrite:
    __slots__ = ("_error", "_thread")

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def start(self, job: Callable[[], object]) -> None:
        """Run ``job`` in the background once the previous job is done (raising that one's error instead)."""
        self.wait()

        def run() -> None:
            try:
                job()
            except BaseException as error:  # handed to whoever waits next
                self._error = error

        # A daemon: a process that exits mid-write leaves a pack no manifest names, deleted at the next checkpoint.
        self._thread = threading.Thread(target=run, name="ridgeline-store-write", daemon=True)
        self._thread.start()

    def wait(self) -> None:
        """Block until no job runs; raise the error of the last one, if it failed."""
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()
        error, self._error = self._error, None
        if error is not None:
            raise error
