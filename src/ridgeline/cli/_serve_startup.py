"""What ``ridgeline serve`` runs once its server answers (issue 15's fast start): the log directory opened and its
first pass read in one thread, the app built in another once the pass is over (or a request needs it), and the
lines it says on the console meanwhile. :mod:`ridgeline.cli.serve` parses the options, binds the socket and
hands this the rest.

Nothing here imports the web stack at module level: it is on the fast start path, as the command's module is.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from ridgeline.cli._support import LateProgress

if TYPE_CHECKING:
    from rich.console import Console

    from ridgeline.api import Opening
    from ridgeline.server.early import EarlyAnswers
    from ridgeline.server.front import Front
    from ridgeline.server.run import Server
    from ridgeline.store.logdir import LogDir

__all__ = ["LONGEST_DEFERRAL_S", "QUIET_S", "AppSpec", "Startup", "console", "say", "say_scalars_only"]


class _LazyConsole:
    """rich's console on stderr, made on first use (or by calling this): importing rich costs tens of
    milliseconds, and the fast start says its first lines without it (:func:`say`)."""

    def __init__(self) -> None:
        self._console: Console | None = None

    def __call__(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=True)
        return self._console

    def print(self, *objects: Any, **options: Any) -> None:
        self().print(*objects, **options)


console = _LazyConsole()

# After the first pass the app is built once the early answers have answered nothing for QUIET_S (a client
# fetching what was read goes first), and at the latest LONGEST_DEFERRAL_S after the pass (the app's lifespan
# starts the background reload); at once when a request needs the app.
QUIET_S = 0.3
LONGEST_DEFERRAL_S = 3.0


def say(line: str) -> None:
    """A plain line on stderr, without rich."""
    click.echo(line, err=True)


@dataclass
class AppSpec:
    """What ``create_app`` is given besides the LogDir."""

    reload_interval: float | None
    token: str | None
    logdir_label: str
    settings: dict[str, Any]
    setting_values: dict[str, Any]
    path_prefix: str

    def create(self, opened: LogDir, **more: Any) -> Any:
        from ridgeline.server import create_app
        from ridgeline.store.cache import default_cache_dir

        values = {**self.setting_values, "cache_dir": default_cache_dir()}
        return create_app(
            opened,
            reload_interval=self.reload_interval,
            token=self.token,
            logdir_label=self.logdir_label,
            settings=self.settings,
            setting_values=values,
            path_prefix=self.path_prefix,
            **more,
        )


class Startup:
    """What runs once the server answers (:meth:`start`, called when it starts, so its own start is not slowed):
    the log directory opened (the early answers from then on) and its first pass read in one thread, the app
    built in another once the pass is over or a request waits for it. When both are done it says what was read
    and prints the URL line; when either fails it stops the server, which then exits with status 1."""

    def __init__(self, open_logdir: Callable[[], Opening], spec: AppSpec, logdir: str, serving_line: str) -> None:
        self.open_logdir = open_logdir
        self.spec = spec
        self.logdir = logdir
        self.serving_line = serving_line
        self.front: Front | None = None
        self.server: Server | None = None
        self.error: BaseException | None = None
        self.opening: Opening | None = None
        self._go = threading.Event()  # build the app now: the first pass is over, or a request waits for the app
        self._early: EarlyAnswers | None = None
        self._wanted = False
        self._lock = threading.Lock()
        self._waiting = 2
        self._stopping = threading.Event()

    def start(self) -> None:
        threading.Thread(target=self._read, name="ridgeline-first-read", daemon=True).start()
        threading.Thread(target=self._build, name="ridgeline-app", daemon=True).start()

    def wanted(self) -> None:
        """A request waits for the app: build it now, even if the first pass still runs."""
        self._wanted = True
        self._go.set()
        if self._early is not None:
            self._early.wake()

    def stop(self) -> None:
        """The server is stopping: the first pass ends after the run it is reading."""
        self._stopping.set()
        self._go.set()
        if self._early is not None:
            self._early.wake()
        if self.opening is not None:
            self.opening.cancel()

    def _read(self) -> None:
        try:
            self.opening = self.open_logdir()
            self._answer_early(self.opening)
            if self._stopping.is_set():
                self.opening.cancel()
            with LateProgress("reading event files", console) as progress:
                self.opening.load(progress.update)
            self._go.set()
        except BaseException as error:
            self._fail(error)
            return
        if not self._stopping.is_set():
            _say_what_was_read(self.opening.logdir, self.logdir)
            self._done()

    def _answer_early(self, opening: Opening) -> None:
        """The first data requests answered from now on, before the app is built."""
        from ridgeline.server.early import EarlyAnswers

        assert self.front is not None
        early = EarlyAnswers(
            opening.logdir,
            loading=opening.state,
            reload_interval=self.spec.reload_interval,
            logdir_label=self.spec.logdir_label,
            crashed_after=float(self.spec.settings["crashed_after"]),
        )
        self._early = early
        self.front.answer_early(early)

    def _build(self) -> None:
        assert self.front is not None
        try:
            # Built once the first pass is over, or earlier when a request waits for the app (the page's, during
            # a long first pass): the early answers serve the data meanwhile. Both the first pass (between its
            # compiled core's calls) and these imports want the GIL, and sharing it slows the pass several times.
            self._go.wait()
            if self.opening is None:  # it could not be opened: _read reported it
                raise RuntimeError("the log directory could not be opened")
            if self._early is not None and not self._wanted and not self._stopping.is_set():
                # A client fetching the data just read is not slowed by the build (it needs a core too).
                self._early.wait_quiet(QUIET_S, LONGEST_DEFERRAL_S)
            from ridgeline.server.yielding import giving_way

            with giving_way(self._early.wait_idle) if self._early is not None else nullcontext():
                app = self.spec.create(self.opening.logdir, loading=self.opening.state, with_middleware=False)
        except BaseException as error:
            self.front.failed(error)
            self._fail(error)
            return
        self.front.ready(app)
        self._done()

    def _done(self) -> None:
        with self._lock:
            self._waiting -= 1
            last = self._waiting == 0
        if last and not self._stopping.is_set():
            click.echo(self.serving_line)
            sys.stdout.flush()

    def _fail(self, error: BaseException) -> None:
        if self.error is None:
            self.error = error
        self._go.set()
        if self.server is not None:
            self.server.should_exit = True


def say_scalars_only(opened: LogDir) -> None:
    console.print(
        f"[yellow]warning:[/yellow] {opened.label} cannot be read from here: serving scalars only (images, "
        "histograms and other records stay in its event files; serve where it is readable for those)"
    )


def _say_what_was_read(opened: LogDir, logdir: str) -> None:
    runs = opened.runs()
    problems = opened.problems()
    say(f"read {len(runs)} run{'s' if len(runs) != 1 else ''} from {logdir}")
    from ridgeline.api import scalars_only

    if scalars_only(opened):
        say_scalars_only(opened)
    if problems:
        console.print(
            f"[yellow]{len(problems)} damaged or unreadable spans were skipped[/yellow] (first: "
            f"{problems[0].path} at byte {problems[0].offset}: {problems[0].reason})"
        )
