"""What the commands share: the options every reading command takes (``--logdir``, ``--run``, ``--tag``,
``--json``), the options built from the settings table (``ridgeline.settings``), ``open_logdir`` (the log
directory read behind a progress bar, a bad one a usage error naming the option), settings files read with an
error naming the option, and progress bars shown only for waits over a second (out of the way of quick commands
and of pipes).

Imports nothing heavy: every ``ridgeline`` call imports this module, ``ridgeline --help`` included (rich, too, only
once a progress bar is shown).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ridgeline import settings as settings_table

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from ridgeline.store.logdir import LogDir
    from ridgeline.store.selection import Matcher

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

LOGDIR_HELP = (
    "Log directory, or several: a,b or name1:path1,name2:path2 (as TensorBoard's --logdir/--logdir_spec); "
    "local paths or fsspec URLs such as s3://bucket/runs."
)


def logdir_option(*aliases: str, required: bool = True) -> Callable[[F], F]:
    """``--logdir LOGDIR`` (the log directory to read), with ``aliases`` such as serve's ``--logdir_spec``."""
    return click.option("--logdir", *aliases, "logdir", required=required, metavar="LOGDIR", help=LOGDIR_HELP)


def _regex_option(option: str, dest: str, help: str) -> Callable[[F], F]:
    def check(ctx: click.Context, param: click.Parameter, value: str) -> str:
        regex(value, option)
        return value

    return click.option(option, dest, default="", metavar="REGEX", callback=check, help=help)


def run_option() -> Callable[[F], F]:
    """``--run REGEX`` as ``run_pattern`` (empty: every run); an invalid expression is a usage error."""
    return _regex_option("--run", "run_pattern", "Only runs whose name matches this regular expression.")


def tag_option() -> Callable[[F], F]:
    """``--tag REGEX`` as ``tag_pattern`` (empty: every tag); an invalid expression is a usage error."""
    return _regex_option("--tag", "tag_pattern", "Only tags that match this regular expression.")


def json_option(help: str = "One JSON object per line instead of a table.") -> Callable[[F], F]:
    """``--json`` as ``as_json``."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def config_option(help: str) -> Callable[[F], F]:
    """``--config FILE`` as ``config_path``: a settings file, read with ``read_config``."""
    return click.option(
        "--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), default=None, help=help
    )


def _click_type(setting: settings_table.Setting) -> Any:
    low, high = setting.minimum, setting.maximum
    bounded = low is not None or high is not None
    if setting.type is int:
        return (
            click.IntRange(None if low is None else int(low), None if high is None else int(high)) if bounded else int
        )
    if setting.type is float:
        return click.FloatRange(low, high) if bounded else float
    if setting.type is Path:  # every path setting taken as an option is a file
        return click.Path(dir_okay=False, path_type=Path)
    return str


def setting_option(setting: settings_table.Setting) -> Callable[[F], F]:
    """The option of one setting: its type, default, help and environment variable from the table."""
    assert setting.option is not None, f"setting {setting.name!r} is taken by no command"
    if setting.type is bool:
        return click.option(
            setting.option,
            setting.name,
            is_flag=True,
            default=False,
            envvar=setting.env_var,
            show_envvar=True,
            help=setting.help,
        )
    return click.option(
        setting.option,
        setting.name,
        type=_click_type(setting),
        default=setting.default,
        multiple=setting.multiple,
        show_default=setting.default not in (None, ()) and not setting.secret,
        envvar=setting.env_var,
        show_envvar=True,
        help=setting.help,
    )


def setting_options(command: str) -> Callable[[F], F]:
    """Every setting ``command`` takes (``Setting.commands``), as options in the table's order."""

    def decorate(function: F) -> F:
        for setting in reversed(settings_table.for_command(command)):  # click lists the last-applied first
            function = setting_option(setting)(function)
        return function

    return decorate


def regex(value: str | None, option: str) -> Matcher | None:
    """``value`` compiled by RE2 (None when absent or empty; see :mod:`ridgeline.store.selection`); an invalid or
    overlong one is a usage error naming ``option``."""
    if not value:
        return None
    from ridgeline.store.selection import PatternError, compile_pattern

    try:
        return compile_pattern(value)
    except PatternError as error:
        raise click.BadParameter(f"{value!r} is not a valid regular expression: {error}", param_hint=option) from None


def read_config(path: Path | None, what: str, parse: Callable[[dict[str, Any]], T], option: str) -> T | None:
    """The settings file at ``path`` (None: None) parsed by ``parse``, e.g. ``AlertConfig.from_mapping``; a file
    that cannot be read, does not parse or holds a bad setting is a usage error naming ``option``."""
    if path is None:
        return None
    from ridgeline.settings_files import read_table

    try:
        return parse(read_table(path, what))
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint=option) from None


def open_logdir(
    logdir: str,
    console: Console,
    *,
    cache: bool = True,
    check_crc: bool = True,
    delay: float = 1.0,
    option: str = "--logdir",
    store: str | None = None,
) -> LogDir:
    """``ridgeline.open(logdir)`` behind a progress bar on ``console`` (shown once the read took ``delay``
    seconds, only on a terminal); a missing or unreadable log directory is a usage error naming ``option``."""
    import ridgeline

    try:
        with LateProgress("reading event files", console, delay) as progress:
            return ridgeline.open(logdir, cache=cache, check_crc=check_crc, store=store, progress=progress.update)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint=option) from None


class LateProgress:
    """A progress bar that appears only once the work has taken more than ``delay`` seconds (quick commands print
    nothing but their result). ``update(done, total)`` is the ``progress`` callback of ``ridgeline.open``. rich is
    imported only when the bar is shown; ``console`` may be a function that makes the console then."""

    def __init__(self, label: str, console: Console | Callable[[], Console], delay: float = 1.0) -> None:
        self._label = label
        self._console = console
        self._progress: Progress | None = None
        self._task: Any = None
        self._start = time.monotonic()
        self._delay = delay
        self._shown = False

    def update(self, done: int, total: int | None) -> None:
        if not self._shown and time.monotonic() - self._start > self._delay:
            self._show()
        if self._progress is not None:
            self._progress.update(self._task, completed=done, total=total)
            self._progress.refresh()

    def _show(self) -> None:
        self._shown = True
        from rich.console import Console

        console = self._console if isinstance(self._console, Console) else self._console()
        if not console.is_terminal:
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn(self._label),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            auto_refresh=False,  # no refresh thread: the bar is redrawn by the reader, between files
        )
        self._task = self._progress.add_task(self._label, total=None)
        self._progress.start()

    def __enter__(self) -> LateProgress:
        if self._delay <= 0:
            self._show()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        if self._progress is not None:
            self._progress.stop()
