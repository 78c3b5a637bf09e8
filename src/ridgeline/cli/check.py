"""``ridgeline check``: a verdict for CI — a run's metrics against thresholds relative to a baseline run or file,
exit code 0 when every threshold holds and 1 when one does not, a Markdown summary for a pull request comment, and
the diagnosis' findings about the run (a run that overfits says so)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import orjson
from rich.console import Console
from rich.table import Table

from ridgeline.cli._support import logdir_option, open_logdir, setting_options
from ridgeline.cli.compare import check_runs, number, output_file_option

if TYPE_CHECKING:
    from ridgeline.analysis.diagnosis import Finding
    from ridgeline.cli._comparison import Threshold, Verdict
    from ridgeline.store.logdir import LogDir

BASELINE_FILE_HELP = 'a JSON file {"tag": value, ...} (what --write-baseline writes)'


def parse_thresholds(texts: tuple[str, ...]) -> list[Threshold]:
    from ridgeline.cli._comparison import Threshold

    try:
        return [Threshold.parse(text) for text in texts]
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--metric") from None


def read_baseline_file(path: Path) -> dict[str, float]:
    """The baseline values of a file, ``{"tag": number}``; anything else is a usage error naming --baseline."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise click.BadParameter(f"cannot read {path}: {error.strerror}", param_hint="--baseline") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise click.BadParameter(f"{path} is not JSON: {error}", param_hint="--baseline") from None
    values = data.get("values", data) if isinstance(data, dict) else None
    if not isinstance(values, dict) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values.values()
    ):
        raise click.BadParameter(f"{path} must hold {BASELINE_FILE_HELP}", param_hint="--baseline")
    return {str(tag): float(value) for tag, value in values.items()}


def run_value(logdir: LogDir, run: str, tag: str, which: str) -> float | None:
    from ridgeline.cli._comparison import summarise

    summary = summarise(logdir, run, tag)
    if summary is None:
        return None
    return summary.best if which == "best" else summary.last


def markdown(run: str, baseline: str, verdicts: list[Verdict], findings: list[Finding]) -> str:
    passed = all(v.passed for v in verdicts)
    failed = sum(not v.passed for v in verdicts)
    head = "✅ **ridgeline check passed**" if passed else f"❌ **ridgeline check failed** ({failed} of {len(verdicts)})"
    lines = [
        f"{head}: `{run}` against `{baseline}`",
        "",
        "| metric | run | baseline | bound | result |",
        "|---|---:|---:|---:|---|",
    ]
    for v in verdicts:
        result = "pass" if v.passed else f"**fail**: {v.reason}"
        lines.append(
            f"| `{v.threshold.text}` | {number(v.value)} | {number(v.baseline)} | {number(v.bound)} | {result} |"
        )
    if findings:
        lines += ["", "Diagnosis:", ""]
        lines += [
            f"- **{f.kind.replace('_', ' ')}** ({100 * f.confidence:.0f}%): {f.message.replace(chr(10), ' ')}"
            for f in findings
        ]
    return "\n".join(lines) + "\n"


def verdict_table(run: str, baseline: str, verdicts: list[Verdict]) -> Table:
    passed = all(v.passed for v in verdicts)
    title = f"{'PASSED' if passed else 'FAILED'}: {run} against {baseline}"
    out = Table(title=title, title_justify="left", title_style="bold green" if passed else "bold red")
    for name in ("metric", "run", "baseline", "bound", "result"):
        out.add_column(name, justify="right" if name in ("run", "baseline", "bound") else "left", overflow="fold")
    for v in verdicts:
        out.add_row(
            v.threshold.text,
            number(v.value),
            number(v.baseline),
            number(v.bound),
            "[green]pass[/]" if v.passed else f"[red]fail[/]: {v.reason}",
        )
    return out


@click.command("check")
@logdir_option()
@click.option("--run", "run", required=True, metavar="RUN", help="The run to judge.")
@click.option(
    "--baseline",
    "baseline",
    default=None,
    metavar="RUN|FILE",
    help=f"What relative thresholds compare against: a run of the log directory, or {BASELINE_FILE_HELP}.",
)
@click.option(
    "--metric",
    "metrics",
    multiple=True,
    required=True,
    metavar="THRESHOLD",
    help="TAG, one of <= >= < >, and a bound: +2%% or -1%% (relative change from the baseline), -0.5pt "
    "(percentage points: 0.005), +0.01 (difference from the baseline) or 0.3 (absolute). Repeatable.",
)
@click.option(
    "--value",
    "which",
    type=click.Choice(["last", "best"]),
    default="last",
    show_default=True,
    help="Which value of each series is judged, the run's and the baseline run's.",
)
@output_file_option(
    "--markdown-out", "markdown_path", "Write the verdict as Markdown (a pull request comment) to this file."
)
@output_file_option(
    "--write-baseline",
    "baseline_out",
    "Write the run's values of the metrics' tags as a baseline file for later checks.",
)
@click.option("--fail-on-findings", is_flag=True, help="Also fail (exit 1) when the diagnosis finds a problem.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of a table.")
@setting_options("check")
def check(
    logdir: str,
    run: str,
    baseline: str | None,
    metrics: tuple[str, ...],
    which: str,
    markdown_path: Path | None,
    baseline_out: Path | None,
    fail_on_findings: bool,
    as_json: bool,
    no_cache: bool,
) -> None:
    """Judge a run for CI: exit 0 when every --metric threshold holds, 1 when one does not (or a value is
    missing), 2 on a usage error. The diagnosis' findings about the run are listed with the verdict.

    \b
    Examples:
        ridgeline check --logdir runs --run candidate --baseline baseline \\
            --metric 'val/loss<=+2%' --metric 'val/acc>=-0.5pt' --markdown-out verdict.md
        ridgeline check --logdir runs --run main --metric 'val/loss<=1' --write-baseline baseline.json
        ridgeline check --logdir runs --run candidate --baseline baseline.json --metric 'val/loss<=+2%'
    """
    from ridgeline.cli._comparison import judge
    from ridgeline.services.diagnosis import diagnose_logdir

    thresholds = parse_thresholds(metrics)
    opened = open_logdir(logdir, Console(stderr=True), cache=not no_cache)
    check_runs(opened, run)
    baseline_values: dict[str, float] | None = None
    if baseline is not None and baseline not in opened.runs():
        path = Path(baseline)
        if not path.is_file():
            raise click.BadParameter(
                f"{baseline!r} is neither a run of the log directory nor a file", param_hint="--baseline"
            )
        baseline_values = read_baseline_file(path)
    needs = [t.text for t in thresholds if t.relative_to_baseline]
    if needs and baseline is None:
        raise click.BadParameter(f"{', '.join(needs)} compare with a baseline: give --baseline", param_hint="--metric")

    def baseline_of(tag: str) -> float | None:
        if baseline is None:
            return None
        if baseline_values is not None:
            return baseline_values.get(tag)
        return run_value(opened, baseline, tag, which)

    verdicts = [judge(t, run_value(opened, run, t.tag, which), baseline_of(t.tag)) for t in thresholds]
    findings = [f for f in diagnose_logdir(opened, [run]) if run in f.runs or f.run == run]
    passed = all(v.passed for v in verdicts) and not (fail_on_findings and findings)
    label = baseline or "absolute bounds"
    if baseline_out is not None:
        values = {v.threshold.tag: v.value for v in verdicts if v.value is not None}
        _write(baseline_out, json.dumps(values, indent=2) + "\n", "--write-baseline")
    if markdown_path is not None:
        _write(markdown_path, markdown(run, label, verdicts, findings), "--markdown-out")
    if as_json:
        report: dict[str, Any] = {
            "run": run,
            "baseline": baseline,
            "passed": passed,
            "metrics": [v.to_dict() for v in verdicts],
            "findings": [{"kind": f.kind, "confidence": f.confidence, "message": f.message} for f in findings],
        }
        click.echo(orjson.dumps(report).decode())
    else:
        console = Console()
        console.print(verdict_table(run, label, verdicts))
        for f in findings:
            console.print(f"[yellow]diagnosis[/]: {f.kind.replace('_', ' ')} ({100 * f.confidence:.0f}%): {f.message}")
    raise SystemExit(0 if passed else 1)


def _write(path: Path, text: str, option: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise click.BadParameter(f"cannot write {path}: {error.strerror}", param_hint=option) from None
