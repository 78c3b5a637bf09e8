"""``ridgeline alerts``: the anomaly alerts of a log directory as a table or JSON lines, once or live (--follow).

Importing this module loads neither numpy nor fastapi; the command imports what it needs when it runs.
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

from ridgeline.cli._support import (
    config_option,
    json_option,
    logdir_option,
    open_logdir,
    read_config,
    regex,
    run_option,
    setting_options,
    tag_option,
)
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
@logdir_option()
@json_option()
@click.option("--follow", is_flag=True, help="Keep watching the log directory and print alerts as they happen.")
@run_option()
@tag_option()
@config_option("Detector settings per tag pattern, a .toml or .json file (see docs/insights.md).")
@click.option(
    "--interval",
    type=click.FloatRange(min=0.05),
    default=2.0,
    show_default=True,
    help="With --follow: seconds between re-reads of the log directory.",
)
@setting_options("alerts")
def alerts(
    logdir: str,
    as_json: bool,
    follow: bool,
    run_pattern: str,
    tag_pattern: str,
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
    from ridgeline.analysis.alert_config import AlertConfig
    from ridgeline.services.alerts import AlertMonitor

    runs = regex(run_pattern, "--run")
    tags = regex(tag_pattern, "--tag")
    config = read_config(config_path, "alert config", AlertConfig.from_mapping, "--config")
    err = Console(stderr=True)
    opened = open_logdir(logdir, err, cache=not no_cache)
    monitor = AlertMonitor(opened, config)
    found = _select(monitor.advance(), runs, tags)
    if not follow:
        if as_json:
            for alert in found:
                click.echo(json_line(alert))
        else:
            Console().print(alerts_table(found))
        return
    err.print(f"watching {logdir} every {interval:g} s (Ctrl-C to stop)")
    _follow(opened, monitor, found, as_json, interval, runs, tags, err)


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
