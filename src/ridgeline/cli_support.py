"""What the CLI's commands share: progress bars shown for waits over a second (out of the way of quick commands
and of pipes), and regular-expression options checked with an error that names the option."""

from __future__ import annotations

import time
from types import TracebackType

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ridgeline.store.selection import Matcher, PatternError, compile_pattern


class LateProgress:
    """A progress bar that appears only once the work has taken more than ``delay`` seconds (quick commands print
    nothing but their result). ``update(done, total)`` is the ``progress`` callback of ``ridgeline.open``."""

    def __init__(self, label: str, console: Console, delay: float = 1.0) -> None:
        self._progress = Progress(
            TextColumn(label),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            auto_refresh=False,  # no refresh thread: a log directory's first read forks workers from one thread
            disable=not console.is_terminal,
        )
        self._task = self._progress.add_task(label, total=None)
        self._start = time.monotonic()
        self._delay = delay
        self._shown = False

    def update(self, done: int, total: int | None) -> None:
        self._progress.update(self._task, completed=done, total=total)
        if not self._shown and time.monotonic() - self._start > self._delay:
            self._progress.start()
            self._shown = True
        if self._shown:
            self._progress.refresh()

    def __enter__(self) -> LateProgress:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        if self._shown:
            self._progress.stop()


def regex_option(value: str | None, option: str) -> Matcher | None:
    """``value`` compiled by RE2 (None when absent or empty); an invalid one is a usage error naming ``option``."""
    if not value:
        return None
    try:
        return compile_pattern(value)
    except PatternError as error:
        raise click.BadParameter(f"{value!r} is not a valid regular expression: {error}", param_hint=option) from None
