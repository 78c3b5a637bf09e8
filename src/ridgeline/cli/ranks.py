"""``ridgeline ranks``: the ranks of each distributed run as one run — clock offsets, sync delay, stragglers,
load balance — as tables or one JSON object per distributed run (docs/distributed.md).

Importing this module loads no numpy; the analysis is imported when the command runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
import orjson
from rich.console import Console
from rich.table import Table

from ridgeline.cli._support import json_option, logdir_option, open_logdir, regex, setting_options

if TYPE_CHECKING:
    from ridgeline.services.distributed import DistributedReport


def _number(value: Any, digits: int = 1) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def report_table(report: DistributedReport) -> Table:
    data = report.to_json()
    delay = data["sync_delay_ms"]
    title = f"{data['run']}: {data['world_size']} rank{'s' if data['world_size'] != 1 else ''}"
    title += f", clocks from {data['clock_source']}"
    if delay is not None:
        title += f", sync delay median {delay['median']:.1f} ms, p95 {delay['p95']:.1f} ms"
    if data["straggler"] is not None:
        straggler = data["straggler"]
        title += f", straggler rank {straggler['rank']} (cost the others {straggler['cost_s']:.3f} s)"
    table = Table(title=title, title_justify="left")
    for column in ("rank", "host", "offset ms", "± ms", "score", "flag"):
        table.add_column(column, justify="right" if column not in ("host", "flag") else "left")
    for rank in data["ranks"]:
        flag = "straggler" if rank["straggler"] else ("slow" if rank["flagged"] else "")
        table.add_row(
            str(rank["rank"]),
            rank["host"] or "",
            _number(rank["offset_ms"]),
            _number(rank["offset_uncertainty_ms"], 2),
            _number(rank["score"], 2),
            f"[bold red]{flag}[/]" if flag else "",
        )
    balance = data["load_balance"]
    notes = []
    if balance["gpu_utilisation_std_pp"] is not None:
        flagged = " (over 5 pp)" if balance["gpu_utilisation_flagged"] else ""
        notes.append(f"GPU utilisation spread across ranks: {balance['gpu_utilisation_std_pp']:.1f} pp{flagged}")
    if balance["input_bound_ranks"]:
        notes.append("input-bound ranks: " + ", ".join(map(str, balance["input_bound_ranks"])))
    if data["restarts"]:
        notes.append(f"{len(data['restarts'])} restart record(s)")
    if notes:
        table.caption = "; ".join(notes)
        table.caption_justify = "left"
    return table


@click.command("ranks")
@logdir_option()
@click.option(
    "--run",
    "run_pattern",
    default="",
    metavar="REGEX",
    help="Group runs into distributed runs by this regular expression: its 'job' group (else its first group) "
    "names the run, its 'rank' group (else the last number) the rank. Default: runs named .../rank{N}.",
)
@json_option("One JSON object per distributed run instead of tables.")
@click.option(
    "--threshold",
    type=click.FloatRange(0, 1),
    default=0.75,
    show_default=True,
    help="Flag a rank whose score (its time to reach the barrier against the best rank's) is below this.",
)
@setting_options("ranks")
def ranks(logdir: str, run_pattern: str, as_json: bool, threshold: float, no_cache: bool) -> None:
    """The ranks of each distributed run as one run: clock offset per rank (ms ± uncertainty), sync delay
    (median, p95), straggler scores and flags, load balance.

    \b
    Examples:
        ridgeline ranks --logdir runs
        ridgeline ranks --logdir runs --run '^(?P<job>.+)/worker(?P<rank>\\d+)$' --json
    """
    from ridgeline.services.distributed import analyse_all

    pattern = regex(run_pattern, "--run") if run_pattern else None
    err = Console(stderr=True)
    opened = open_logdir(logdir, err, cache=not no_cache)
    reports = analyse_all(opened, pattern, threshold)
    if as_json:
        for report in reports:
            click.echo(orjson.dumps(report.to_json()).decode())
        return
    if not reports:
        Console().print("No distributed runs (runs named .../rank{N}, or grouped by --run).")
        return
    console = Console()
    for report in reports:
        console.print(report_table(report))
