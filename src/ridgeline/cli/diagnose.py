"""``ridgeline diagnose``: what looks wrong with each run's training, as a table in plain words or JSON lines.

Importing this module loads no numpy; the analysis is imported when the command runs.
"""

from __future__ import annotations

from pathlib import Path
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
)

if TYPE_CHECKING:
    from ridgeline.analysis.diagnosis import Finding

JSON_FIELDS = ("run", "kind", "confidence", "step", "tags", "evidence")


def json_line(finding: Finding) -> str:
    """One finding as the documented JSON object ``{"run","kind","confidence","step","tags","evidence"}`` plus
    its ``message``."""
    data = finding.to_dict()
    return orjson.dumps({**{key: data[key] for key in JSON_FIELDS}, "message": data["message"]}).decode()


def findings_table(findings: list[Finding], runs: int) -> Table:
    title = f"{len(findings)} finding{'s' if len(findings) != 1 else ''} in {runs} run{'s' if runs != 1 else ''}"
    table = Table(title=title, title_justify="left", show_lines=True)
    table.add_column("run", overflow="fold")
    table.add_column("problem", no_wrap=True)
    table.add_column("confidence", justify="right")
    table.add_column("from step", justify="right")
    table.add_column("what the curves show", ratio=1)
    for f in findings:
        colour = "red" if f.confidence >= 0.8 else "yellow"
        table.add_row(
            f.run,
            f"[bold {colour}]{f.kind.replace('_', ' ')}[/]",
            f"{100 * f.confidence:.0f}%",
            "" if f.step is None else str(f.step),
            f.message,
        )
    return table


@click.command("diagnose")
@logdir_option()
@json_option()
@run_option()
@click.option(
    "--min-confidence",
    type=click.FloatRange(0, 1),
    default=None,
    help="Leave out findings less certain than this (default 0.5).",
)
@config_option("Tag naming conventions and thresholds, a .toml or .json file (see docs/insights.md).")
@setting_options("diagnose")
def diagnose(
    logdir: str,
    as_json: bool,
    run_pattern: str,
    min_confidence: float | None,
    config_path: Path | None,
    no_cache: bool,
) -> None:
    """Diagnose each run's training from its curves: overfitting, underfitting, plateau, learning rate too high
    or too low, vanishing or exploding gradients, dead units. Tags are recognised by their names (train/val
    losses, accuracies, grad norms, weight histograms; see docs/insights.md).

    \b
    Examples:
        ridgeline diagnose --logdir runs
        ridgeline diagnose --logdir runs --run '^resnet' --json
    """
    from dataclasses import replace

    from ridgeline.analysis.diagnosis import DiagnosisConfig
    from ridgeline.services.diagnosis import diagnose_logdir
    from ridgeline.services.distributed import straggler_notes

    config = read_config(config_path, "diagnosis config", DiagnosisConfig.from_mapping, "--config") or DiagnosisConfig()
    if min_confidence is not None:
        config = replace(config, min_confidence=min_confidence)
    pattern = regex(run_pattern, "--run")
    err = Console(stderr=True)
    opened = open_logdir(logdir, err, cache=not no_cache)
    runs = [r for r in opened.runs() if pattern is None or pattern.search(r)]
    with err.status(f"diagnosing {len(runs)} runs"):
        found = diagnose_logdir(opened, runs, config)
        stragglers = straggler_notes(opened, runs)  # distributed runs: docs/distributed.md
    if as_json:
        for finding in found:
            click.echo(json_line(finding))
        for note in stragglers:
            click.echo(orjson.dumps(note).decode())
        return
    if not found and not stragglers:
        Console().print(f"No problems found in {len(runs)} run{'s' if len(runs) != 1 else ''}.")
        return
    if found:
        Console().print(findings_table(found, len(runs)))
    for note in stragglers:
        Console().print(f"[bold red]straggler[/] in {note['run']}: {note['message']}")
