"""``ridgeline serve --logdir DIR``: read the log directory, then serve the dashboards and the JSON API while
reading what training jobs append. The server (FastAPI, uvicorn) is imported only here, when the command runs.
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console

from ridgeline.cli._support import logdir_option, open_logdir, read_config, setting_options
from ridgeline.settings import for_command

if TYPE_CHECKING:
    from ridgeline.retention.background import Sweeper
    from ridgeline.store.logdir import LogDir

console = Console(stderr=True)


@click.command("serve")
@logdir_option("--logdir_spec")
@setting_options("serve")
@click.option(
    "--get",
    "get_path",
    default=None,
    metavar="PATH",
    help=(
        "Answer one request in-process, print its body and exit (no server): e.g. --get /api/runs (under "
        "--path-prefix when one is set)."
    ),
)
def serve(
    logdir: str,
    port: int,
    host: str,
    reload_interval: float,
    no_cache: bool,
    no_checksum: bool,
    token: str | None,
    allow_host: tuple[str, ...],
    alerts_config: Path | None,
    diagnosis_config: Path | None,
    retention: str | None,
    crashed_after: float,
    path_prefix: str | None,
    get_path: str | None,
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
        ridgeline serve --logdir runs --retention '--older-than 30d --keep-last 50 --yes'
        ridgeline serve --logdir runs --path-prefix /ridgeline
    """
    from ridgeline.analysis.alert_config import AlertConfig
    from ridgeline.analysis.diagnosis import DiagnosisConfig

    if token == "":  # --token '' or RIDGELINE_TOKEN='': an empty token would silently serve without one
        raise click.BadParameter("must not be empty (leave it out to serve without a token)", param_hint="--token")
    # A bad settings file fails before the long read.
    alert_config = read_config(alerts_config, "alert config", AlertConfig.from_mapping, "--alerts-config")
    diagnosis = read_config(diagnosis_config, "diagnosis config", DiagnosisConfig.from_mapping, "--diagnosis-config")
    prefix = _prefix(path_prefix)
    sweeper = _sweeper(logdir, retention) if retention else None
    sock = None if get_path is not None else _bind(host, port)
    if sweeper is not None and sock is not None:
        _sweep(sweeper)  # before the read: the page never shows runs the policy is about to take
    # The log directory is read in a thread while this one imports the server stack (a second or more of
    # FastAPI and the dashboards): the read overlaps the imports instead of following them (issue 15).
    reading = _Reading(lambda: open_logdir(logdir, console, cache=not no_cache, check_crc=not no_checksum, delay=0))
    try:
        from ridgeline.server import create_app
        from ridgeline.server.run import is_loopback, request_in_process, url_for
        from ridgeline.server.run import serve as serve_app
        from ridgeline.store.cache import default_cache_dir

        opened = reading.result()
    except BaseException as error:
        if sock is not None:
            sock.close()
        if isinstance(error, KeyboardInterrupt):
            sys.exit(130)
        raise
    _say_what_was_read(opened, logdir)
    # What /api/settings answers: every setting as this server runs with it (the port it got for --port 0).
    effective: dict[str, Any] = {s.name: click.get_current_context().params[s.name] for s in for_command("serve")}
    effective.update(token=token, cache_dir=default_cache_dir())
    if sock is not None:
        effective["port"] = sock.getsockname()[1]
    app = create_app(
        opened,
        reload_interval=reload_interval if reload_interval > 0 else None,
        token=token,
        logdir_label=logdir,
        settings={
            "alert_config": alert_config,
            "diagnosis_config": diagnosis,
            "retention": sweeper,
            "crashed_after": crashed_after,
        },
        setting_values=effective,
        path_prefix=prefix,
    )
    if get_path is not None:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        # --get names a route as the page does, under the prefix or not: /api/runs means /ridgeline/api/runs.
        if prefix and get_path != prefix and not get_path.startswith(prefix + "/"):
            get_path = prefix + "/" + get_path.lstrip("/")
        status, body = request_in_process(app, get_path, headers)
        sys.stdout.buffer.write(body + b"\n")
        sys.stdout.flush()
        sys.exit(0 if status < 400 else 1)
    assert sock is not None
    actual_port = sock.getsockname()[1]
    url = url_for(host, actual_port) + prefix.lstrip("/") + ("/" if prefix else "")
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
    if sweeper is not None:
        sweeper.start()
    try:
        serve_app(app, sock, allow_hosts=allow_host)
    except KeyboardInterrupt:
        pass
    finally:
        if sweeper is not None:
            sweeper.stop()
        sock.close()
    console.print("stopped")


class _Reading:
    """``read()`` run in a daemon thread (an interrupted server exits without waiting for it); :meth:`result`
    waits for it and returns what it returned, or raises what it raised."""

    def __init__(self, read: Callable[[], LogDir]) -> None:
        self._read = read
        self._value: LogDir | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="ridgeline-first-read", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = self._read()
        except BaseException as error:  # handed to the main thread, which reports it as before
            self._error = error

    def result(self) -> LogDir:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value


def _prefix(path_prefix: str | None) -> str:
    from ridgeline.server.prefix import normalise_prefix

    try:
        return normalise_prefix(path_prefix or "")
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--path-prefix") from None


def _sweeper(logdir: str, spec: str) -> Sweeper:
    """The retention policy of ``--retention``, checked against the log directories before anything is read."""
    from ridgeline.cli.clean import parse_retention
    from ridgeline.ingest.discovery import LogDirError, sources_from
    from ridgeline.retention.background import Sweeper
    from ridgeline.retention.sweep import TrashError, prepare

    policy, action, every = parse_retention(spec)
    try:
        sources = sources_from(logdir)
        prepare(sources, action)
    except (LogDirError, TrashError) as error:
        raise click.BadParameter(str(error), param_hint="--retention") from None
    return Sweeper(sources, policy, action, every, spec)


def _sweep(sweeper: Sweeper) -> None:
    """The first sweep, said on the console."""
    from ridgeline.retention.units import format_duration, format_size

    outcome = sweeper.run_once()
    mode = sweeper.action.mode
    every = format_duration(sweeper.every)
    if outcome is None:
        console.print(f"[yellow]warning:[/yellow] {sweeper.snapshot()['error']}; retrying every {every}")
        return
    went = outcome.plan.going
    if mode == "dry-run":
        said = f"would delete {len(went)} run{'s' if len(went) != 1 else ''} ({format_size(outcome.plan.freed)}); "
        said += "a dry run: add --yes (or --trash DIR) to --retention to delete"
    else:
        done = "moved" if mode == "trash" else "deleted"
        said = f"{done} {len(outcome.removed)} run{'s' if len(outcome.removed) != 1 else ''} "
        said += f"({format_size(outcome.freed)})"
    console.print(f"retention ({sweeper.policy.describe()}, every {every}): {said}")


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the long read so that a port in use fails at once (exit code 1)."""
    from ridgeline.server.run import PortInUse, bind

    try:
        return bind(host, port)
    except PortInUse:
        console.print(
            f"[red]error:[/red] port {port} is already in use on {host} (another server, or an earlier "
            "ridgeline or tensorboard still running). Choose another with --port, or --port 0 for a free one."
        )
        sys.exit(1)
    except OSError as error:
        console.print(f"[red]error:[/red] {error.strerror or error}")
        sys.exit(1)


def _say_what_was_read(opened: LogDir, logdir: str) -> None:
    runs = opened.runs()
    problems = opened.problems()
    console.print(f"read {len(runs)} run{'s' if len(runs) != 1 else ''} from {logdir}")
    if problems:
        console.print(
            f"[yellow]{len(problems)} damaged or unreadable spans were skipped[/yellow] (first: "
            f"{problems[0].path} at byte {problems[0].offset}: {problems[0].reason})"
        )
