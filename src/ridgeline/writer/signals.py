"""Flushing on the signals that stop training jobs: SIGTERM, SIGINT, SIGHUP.

Schedulers (SLURM, Kubernetes, torchrun's agent) stop a job with SIGTERM, then SIGKILL. SIGTERM's default action
ends the process at once — no ``atexit``, no ``finally`` — so whatever the writers had queued was lost (a job that
logged steps 0..99 left 99 of them). The first SummaryWriter created in the main thread therefore installs, for
each of these signals, a handler that flushes every open writer of this process and then does what would have
happened without it:

- the handler the program had installed before (Lightning's, a user's) is called, with the same arguments;
- the default action is carried out: the default handler is put back and the signal sent again, so the process
  ends by that signal (its exit status says so) — or, for SIGINT, KeyboardInterrupt is raised as usual;
- an ignored signal stays ignored (after the flush).

Opt out with ``SummaryWriter(..., flush_on_signals=False)`` before the first writer is created, or by setting
``RIDGELINE_NO_SIGNAL_HANDLERS=1``. A handler installed later by the program replaces ours (Python keeps one per
signal); it is then the program's to flush (``writer.flush()``). Writers created outside the main thread install
nothing (Python allows signal handlers only there); an existing handler still covers them.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name))
OPT_OUT_ENV = "RIDGELINE_NO_SIGNAL_HANDLERS"

_installed: dict[int, Any] = {}  # signal -> the handler that was there before ours
_lock = threading.Lock()


def install(flush_all: Callable[[], None]) -> None:
    """Install the flushing handlers once per process (idempotent; a no-op outside the main thread or when
    opted out through the environment)."""
    if os.environ.get(OPT_OUT_ENV, "").strip() not in ("", "0"):
        return
    if threading.current_thread() is not threading.main_thread():
        return
    with _lock:
        if _installed:  # once per process (a forked child inherits the handlers, which flush its own writers)
            return
        for number in SIGNALS:
            previous = signal.getsignal(number)
            try:
                signal.signal(number, _handler(flush_all, previous))
            except (ValueError, OSError):  # not allowed here (an embedded interpreter): leave it as it was
                continue
            _installed[number] = previous


def _handler(flush_all: Callable[[], None], previous: Any) -> Callable[[int, FrameType | None], Any]:
    def on_signal(number: int, frame: FrameType | None) -> Any:
        try:
            flush_all()
        finally:
            if callable(previous):
                result = previous(number, frame)
            elif previous == signal.SIG_IGN:
                result = None
            else:  # SIG_DFL (or None: set from outside Python): the default action, by the signal itself
                signal.signal(number, signal.SIG_DFL)
                os.kill(os.getpid(), number)
                result = None
        return result

    return on_signal
