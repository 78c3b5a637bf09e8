"""``ridgeline alerts``: the anomaly alerts of a log directory as a table or JSON lines, once or live (--follow).

A module of its own outside the plugins package, so that importing the command (every ``ridgeline`` call does)
loads neither numpy nor fastapi; the command imports them when it runs.
"""

from __future__ import annotations

import math
import signal
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import click
import orjson
from rich.console import Console
from rich.table import Table

from ridgeline.cli_support import LateProgress, regex_option
from ridgeline.store.selection import Matcher

if TYPE_CHECKING:
    from ridgeline.analysis.anomaly import Alert
    from ridgeline.services.alerts import AlertMonitor
    from ridgeline.store.logdir import LogDir

JSON_FIELDS = ("run", "tag", "step", "kind", "value", "expected_low", "expected_high")
KIND_STYLE = {"nan": "bold red", "inf": "bold red", "outlier": "yellow", "spike": "magenta", "stalled": "cyan"}


def _number(value: float | None) -> str:
    if value is None:
        return ""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    return f"{value:.6g}"


def _expected(alert: Alert) -> str:
    if alert.expected_low is None or alert.expected_high is None:
        return ""
    return f"[{_number(alert.expected_low)}, {_number(alert.expected_high)}]"


def json_line(alert: Alert) -> str:
    """One alert as the documented JSON object (non-finite value as null)."""
    data = alert.to_json()
    return orjson.dumps({key: data[key] for key in JSON_FIELDS}).decode()


def alerts_table(alerts: list[Alert]) -> Table:
    table = Table(title=f"{len(alerts)} alert{'s' if len(alerts) != 1 else ''}", title_justify="left")
    for name, justify in (("run", "left"), ("tag", "left"), ("step", "right"), ("kind", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    table.add_column("value", justify="right")
    table.add_column("expected range", justify="left")
    for alert in alerts:
        style = KIND_STYLE.get(alert.kind, "")
        table.add_row(
            alert.run,
            alert.tag,
            str(alert.step),
            f"[{style}]{alert.kind}[/]",
            _number(alert.value),
            _expected(alert),
        )
    return table


def _line(alert: Alert) -> str:
    """A one-line form for --follow without --json (a table cannot grow row by row)."""
    expected = _expected(alert)
    return f"{alert.run}  {alert.tag}  step {alert.step}  {alert.kind}  {_number(alert.value)}" + (
        f"  expected {expected}" if expected else ""
    )


def _select(alerts: Iterable[Alert], run: Matcher | None, tag: Matcher | None) -> list[Alert]:
    return [a for a in alerts if (run is None or run.search(a.run)) and (tag is None or tag.search(a.tag))]


@click.command("alerts")
@click.option(
    "--logdir",
    required=True,
    help="Log directory to read (several: a,b or name:path entries; local paths or fsspec URLs).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line instead of a table.")
@click.option("--follow", is_flag=True, help="Keep watching the log directory and print alerts as they happen.")
@click.option("--run", "run_regex", default=None, help="Only runs whose name matches this regular expression.")
@click.option("--tag", "tag_regex", default=None, help="Only tags that match this regular expression.")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Detector settings per tag pattern, a .toml or .json file (see docs/insights.md).",
)
@click.option(
    "--interval",
    type=click.FloatRange(min=0.05),
    default=2.0,
    show_default=True,
    help="With --follow: seconds between re-reads of the log directory.",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the persistent cache.")
def alerts(
    logdir: str,
    as_json: bool,
    follow: bool,
    run_regex: str | None,
    tag_regex: str | None,
    config_path: Path | None,
    interval: float,
    no_cache: bool,
) -> None:
    """The anomaly alerts of every scalar series: outliers (N points in a row beyond mean ± kσ of a sliding
    window), spikes, NaN/Inf values and stalled series. With --follow, keep watching a live log directory
    (Ctrl-C to stop).

    \b
    Examples:
        ridgeline alerts --logdir runs
        ridgeline alerts --logdir runs --json --follow --tag loss
    """
    import ridgeline
    from ridgeline.analysis.alert_config import AlertConfig
    from ridgeline.services.alerts import AlertMonitor
    from ridgeline.settings_files import read_table

    run_pattern = regex_option(run_regex, "--run")
    tag_pattern = regex_option(tag_regex, "--tag")
    config = None
    if config_path is not None:
        try:
            config = AlertConfig.from_mapping(read_table(config_path, "alert config"))
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--config") from None
    err = Console(stderr=True)
    try:
        with LateProgress("reading event files", err) as progress:
            opened = ridgeline.open(logdir, cache=not no_cache, progress=progress.update)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--logdir") from None
    monitor = AlertMonitor(opened, config)
    found = _select(monitor.advance(), run_pattern, tag_pattern)
    if not follow:
        if as_json:
            for alert in found:
                click.echo(json_line(alert))
        else:
            Console().print(alerts_table(found))
        return
    err.print(f"watching {logdir} every {interval:g} s (Ctrl-C to stop)")
    _follow(opened, monitor, found, as_json, interval, run_pattern, tag_pattern, err)


def _follow(
    opened: LogDir,
    monitor: AlertMonitor,
    found: list[Alert],
    as_json: bool,
    interval: float,
    run_pattern: Matcher | None,
    tag_pattern: Matcher | None,
    err: Console,
) -> None:
    """Print the alerts so far, then re-read the log directory every ``interval`` seconds and print new ones,
    until Ctrl-C (or SIGTERM): then exit 0."""
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        while True:
            for alert in found:
                click.echo(json_line(alert) if as_json else _line(alert))
            sys.stdout.flush()
            if stop.wait(interval):
                break
            try:
                opened.reload()
            except Exception as error:  # a failed pass (a file being replaced) is retried next time
                err.print(f"[yellow]reload failed[/yellow]: {error}")
            found = _select(monitor.advance(), run_pattern, tag_pattern)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    err.print("stopped")
