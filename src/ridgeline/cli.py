"""The ``ridgeline`` command."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ridgeline._version import __version__

console = Console(stderr=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "-V", "--version", prog_name="ridgeline")
def main() -> None:
    """ridgeline: a fast, TensorBoard-compatible training monitor.

    \b
    Write logs from training code with the drop-in writer:
        from ridgeline import SummaryWriter      # instead of torch.utils.tensorboard
        writer = SummaryWriter("runs/exp1")
        writer.add_scalar("train/loss", loss, step)
    \b
    Then look at them:
        ridgeline serve --logdir runs
    \b
    Try it without a training job:
        ridgeline demo --logdir demo_runs && ridgeline serve --logdir demo_runs
    """


@main.command()
@click.option(
    "--logdir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory to write the demo runs into (created if missing).",
)
@click.option("--steps", default=2000, show_default=True, type=click.IntRange(min=10), help="Training steps per run.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed for the simulated curves.")
def demo(logdir: Path, steps: int, seed: int) -> None:
    """Write a realistic demo log directory: several runs with different learning rates, one that overfits,
    one with a loss spike, histograms, images, text, audio, PR curves, hparams and an embedding."""
    from ridgeline.fixtures.demo import write_demo

    if logdir.exists() and any(logdir.iterdir()):
        raise click.UsageError(f"--logdir {str(logdir)!r} is not empty; choose a new or empty directory")
    with Progress(
        TextColumn("writing demo runs"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress:
        task = progress.add_task("demo", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        runs = write_demo(logdir, steps=steps, seed=seed, progress=advance)
    console.print(f"wrote {len(runs)} runs to {logdir}")
    console.print(f"next: [bold]ridgeline serve --logdir {logdir}[/bold]")


@main.command()
@click.argument("logdir")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["csv", "json", "parquet"]),
    default="csv",
    show_default=True,
    help="csv: one row per point; json: one JSON object per series and line; parquet: one table (needs pyarrow).",
)
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path), help="File to write.")
@click.option("--run", "run_pattern", default="", help="Only runs whose name matches this regular expression.")
@click.option("--tag", "tag_pattern", default="", help="Only tags that match this regular expression.")
@click.option("--all-points", is_flag=True, help="Also the points a restarted run superseded (see docs/restarts.md).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the persistent cache.")
@click.option(
    "--no-checksum", is_flag=True, help="Skip the records' data checksums (faster; a flipped bit may go unnoticed)."
)
def export(
    logdir: str,
    output_format: str,
    output: Path,
    run_pattern: str,
    tag_pattern: str,
    all_points: bool,
    no_cache: bool,
    no_checksum: bool,
) -> None:
    """Write every scalar of LOGDIR (runs and tags filtered by regular expressions) to a CSV, JSON or Parquet file.

    \b
    Example:
        ridgeline export runs --format csv -o scalars.csv --run '^resnet' --tag 'loss'
    """
    import ridgeline
    from ridgeline.export.scalars import write_scalars

    with console.status(f"reading {logdir}"):
        try:
            opened = ridgeline.open(logdir, cache=not no_cache, check_crc=not no_checksum)
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="LOGDIR") from error
    try:
        series = opened.select_scalars(run_pattern, tag_pattern)
    except ValueError as error:
        raise click.UsageError(str(error)) from error
    with Progress(
        TextColumn(f"writing {output}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress:
        task = progress.add_task("export", total=len(series))
        points = write_scalars(
            opened, series, output, output_format, all_points=all_points, advance=lambda: progress.advance(task)
        )
    for problem in opened.problems():
        console.print(f"[yellow]skipped[/yellow] {problem.path} at byte {problem.offset}: {problem.reason}")
    console.print(f"wrote {points} points of {len(series)} series to {output}")


def _insight_settings(alerts_config: Path | None, diagnosis_config: Path | None) -> dict[str, object]:
    """The app.state entries of ``serve --alerts-config/--diagnosis-config``; a bad file is a usage error."""
    settings: dict[str, object] = {}
    if alerts_config is not None:
        from ridgeline.analysis.alert_config import AlertConfig
        from ridgeline.settings_files import read_table

        try:
            settings["alert_config"] = AlertConfig.from_mapping(read_table(alerts_config, "alert config"))
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--alerts-config") from None
    if diagnosis_config is not None:
        from ridgeline.analysis.diagnosis import DiagnosisConfig
        from ridgeline.settings_files import read_table

        try:
            settings["diagnosis_config"] = DiagnosisConfig.from_mapping(
                read_table(diagnosis_config, "diagnosis config")
            )
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--diagnosis-config") from None
    return settings


@main.command()
@click.option(
    "--logdir",
    "--logdir_spec",
    "logdir",
    required=True,
    metavar="LOGDIR",
    help="Log directory, or several: a,b or name1:path1,name2:path2 (as TensorBoard's --logdir/--logdir_spec); "
    "local paths or fsspec URLs such as s3://bucket/runs.",
)
@click.option(
    "--port", default=6006, show_default=True, type=click.IntRange(0, 65535), help="Port; 0 picks a free one."
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. 127.0.0.1 keeps the server to this machine (use SSH port forwarding to reach it, "
    "see docs/remote.md); 0.0.0.0 exposes it to the network.",
)
@click.option(
    "--reload-interval",
    default=2.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Seconds between reads of what the event files gained; 0 reads once at startup only.",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the persistent cache.")
@click.option(
    "--no-checksum", is_flag=True, help="Skip the records' data checksums (faster; a flipped bit may go unnoticed)."
)
@click.option(
    "--token",
    envvar="RIDGELINE_TOKEN",
    default=None,
    help="Require this token from every client (env RIDGELINE_TOKEN): open the printed URL once, or send "
    "'Authorization: Bearer TOKEN'. Use it with --host 0.0.0.0.",
)
@click.option(
    "--get",
    "get_path",
    default=None,
    metavar="PATH",
    help="Answer one request in-process, print its body and exit (no server): e.g. --get /api/runs.",
)
@click.option(
    "--alerts-config",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Alert detector settings per tag pattern, a .toml or .json file (as ridgeline alerts --config).",
)
@click.option(
    "--diagnosis-config",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Diagnosis tag conventions and thresholds, a .toml or .json file (as ridgeline diagnose --config).",
)
def serve(
    logdir: str,
    port: int,
    host: str,
    reload_interval: float,
    no_cache: bool,
    no_checksum: bool,
    token: str | None,
    get_path: str | None,
    alerts_config: Path | None,
    diagnosis_config: Path | None,
) -> None:
    """Serve the dashboards for a log directory at http://HOST:PORT/.

    \b
    The log directory is read first (with a progress bar), then served while what training jobs append is read
    every --reload-interval seconds.
    \b
    Examples:
        ridgeline serve --logdir runs
        ridgeline serve --logdir lr1e-3:runs/a,lr1e-4:runs/b --port 0
        ridgeline serve --logdir runs --host 0.0.0.0 --token "$(openssl rand -hex 16)"
        ridgeline serve --logdir runs --get '/api/scalars?run=exp1&tag=loss'
    """
    import ridgeline
    from ridgeline.server import create_app
    from ridgeline.server.run import PortInUse, bind, is_loopback, request_in_process, url_for
    from ridgeline.server.run import serve as serve_app

    insight_settings = _insight_settings(alerts_config, diagnosis_config)  # a bad file fails before the long read
    sock = None
    if get_path is None:
        try:
            sock = bind(host, port)
        except PortInUse:
            console.print(
                f"[red]error:[/red] port {port} is already in use on {host} (another server, or an earlier "
                "ridgeline or tensorboard still running). Choose another with --port, or --port 0 for a free one."
            )
            sys.exit(1)
        except OSError as error:
            console.print(f"[red]error:[/red] {error.strerror or error}")
            sys.exit(1)
    try:
        with Progress(
            TextColumn("reading event files"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            auto_refresh=False,  # no refresh thread: the first read forks workers only from a single thread
            transient=True,
            disable=not console.is_terminal,
        ) as progress:
            task = progress.add_task("read", total=None)

            def advance(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)
                progress.refresh()

            opened = ridgeline.open(logdir, cache=not no_cache, check_crc=not no_checksum, progress=advance)
    except ValueError as error:
        if sock is not None:
            sock.close()
        raise click.BadParameter(str(error), param_hint="--logdir") from error
    except KeyboardInterrupt:
        sys.exit(130)
    runs = opened.runs()
    problems = opened.problems()
    console.print(f"read {len(runs)} run{'s' if len(runs) != 1 else ''} from {logdir}")
    if problems:
        console.print(
            f"[yellow]{len(problems)} damaged or unreadable spans were skipped[/yellow] (first: "
            f"{problems[0].path} at byte {problems[0].offset}: {problems[0].reason})"
        )
    interval = reload_interval if reload_interval > 0 else None
    app = create_app(
        opened, reload_interval=interval, token=token or None, logdir_label=logdir, settings=insight_settings
    )
    if get_path is not None:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        status, body = request_in_process(app, get_path, headers)
        sys.stdout.buffer.write(body + b"\n")
        sys.stdout.flush()
        sys.exit(0 if status < 400 else 1)
    assert sock is not None
    actual_port = sock.getsockname()[1]
    url = url_for(host, actual_port)
    if not is_loopback(host):
        console.print(
            f"[yellow]warning:[/yellow] listening on {host}: anyone who can reach this machine on port "
            f"{actual_port} can read these logs"
            + (
                ""
                if token
                else "; set --token (or RIDGELINE_TOKEN) to require a token, or keep the default "
                "--host 127.0.0.1 and use SSH port forwarding (docs/remote.md)"
            )
            + ". Traffic is plain HTTP, not encrypted."
        )
    shown = f"{url}?token={token}" if token else url
    click.echo(f"ridgeline is serving {logdir} at {shown}  (Ctrl-C to stop)")
    sys.stdout.flush()
    try:
        serve_app(app, sock)
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    console.print("stopped")


from ridgeline.alerts_cli import alerts as alerts_command  # noqa: E402

main.add_command(alerts_command)
from ridgeline.report.cli import report as report_command  # noqa: E402

main.add_command(report_command)
from ridgeline.diagnose_cli import diagnose as diagnose_command  # noqa: E402

main.add_command(diagnose_command)
from ridgeline.search.cli import search as search_command  # noqa: E402

main.add_command(search_command)

if __name__ == "__main__":
    main()
