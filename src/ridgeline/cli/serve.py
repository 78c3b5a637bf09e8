"""``ridgeline serve --logdir DIR``: serve the dashboards and the JSON API over the log directory, reading what
training jobs append. The server (FastAPI, uvicorn) is imported only when the command runs.

It answers before it has read or imported everything (issue 15's fast start): the socket is bound, the log
directory checked (a bad one fails at once), and uvicorn serves :class:`ridgeline.server.front.Front`, which
answers the page's files at once and, from the moment the log directory is open, the first data requests
(``/api/runs``, ``/api/scalars``, ``/api/scalars/batch``: :mod:`ridgeline.server.early`) while the first pass
reads it. FastAPI and the dashboards are imported after the first pass (or as soon as a request needs them),
giving way to the requests being answered. Runs are listed as the first pass reaches them, and ``/api/runs``
says how far it got (``loading``). The line with the URL is printed once both are done, so a script that waits
for it sees everything read.

This module is the command: its options checked (each bad one a usage error naming it), the socket bound, the
server made and run. What runs once the server answers is :mod:`ridgeline.cli._serve_startup`.
"""

from __future__ import annotations

import atexit
import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ridgeline.cli._serve_startup import AppSpec, Startup, console, say, say_scalars_only
from ridgeline.cli._support import logdir_option, open_logdir, read_config, setting_options
from ridgeline.settings import for_command

if TYPE_CHECKING:
    from ridgeline.analysis.alert_config import AlertConfig
    from ridgeline.analysis.diagnosis import DiagnosisConfig
    from ridgeline.api import Opening
    from ridgeline.retention.background import Sweeper
    from ridgeline.store.logdir import LogDir


@click.command("serve")
@logdir_option("--logdir_spec", required=False)
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
    logdir: str | None,
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
    store: str | None,
    get_path: str | None,
) -> None:
    """Serve the dashboards for a log directory at http://HOST:PORT/.

    \b
    The server answers at once; runs appear as the log directory is read (with a progress bar once that takes a
    second), and what training jobs append is read every --reload-interval seconds.
    \b
    Examples:
        ridgeline serve --logdir runs
        ridgeline serve --logdir lr1e-3:runs/a,lr1e-4:runs/b --port 0
        ridgeline serve --logdir runs --host 0.0.0.0 --token "$(openssl rand -hex 16)"
        ridgeline serve --logdir runs --get '/api/scalars?run=exp1&tag=loss'
        ridgeline serve --logdir runs --retention '--older-than 30d --keep-last 50 --yes'
        ridgeline serve --logdir runs --path-prefix /ridgeline
        ridgeline serve --store /shared/store --port 0   # a read-only replica (docs/store.md)
    \b
    With --store and no --logdir the server is a read-only replica of a store that an indexer keeps current
    (ridgeline index --logdir DIR --store STORE --watch S): it never writes into it, and reads what the indexer
    committed every --reload-interval seconds.
    """
    if token == "":  # --token '' or RIDGELINE_TOKEN='': an empty token would silently serve without one
        raise click.BadParameter("must not be empty (leave it out to serve without a token)", param_hint="--token")
    # A bad settings file fails before anything is read (each parser imported only when its file is given).
    alert_config = read_config(alerts_config, "alert config", _alert_config, "--alerts-config")
    diagnosis = read_config(diagnosis_config, "diagnosis config", _diagnosis_config, "--diagnosis-config")
    prefix = _prefix(path_prefix)
    if logdir is None:
        if store is None:
            raise click.UsageError("give --logdir LOGDIR to serve, or --store STORE to serve a store read-only")
        if retention:
            raise click.BadParameter(
                "a read-only replica (--store without --logdir) deletes nothing", param_hint="--retention"
            )
        _check_store(store)
    sweeper = _sweeper(logdir, retention) if retention and logdir is not None else None
    source = logdir if logdir is not None else f"store {store}"
    # What /api/settings answers: every setting as this server runs with it (the port it got for --port 0).
    effective: dict[str, Any] = {s.name: click.get_current_context().params[s.name] for s in for_command("serve")}
    effective.update(token=token)
    build = AppSpec(
        reload_interval=reload_interval if reload_interval > 0 else None,
        token=token,
        logdir_label=logdir if logdir is not None else _replica_label(store),
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
        if logdir is None:
            _get(build, _open_replica(store), get_path)
        else:
            opened = open_logdir(logdir, console(), cache=not no_cache, check_crc=not no_checksum, delay=0, store=store)
            _get(build, opened, get_path)
        return
    sock = _bind(host, port)
    effective["port"] = sock.getsockname()[1]
    try:
        if sweeper is not None:
            _sweep(sweeper)  # before the read: the page never shows runs the policy is about to take
        if logdir is not None:
            _check_logdir(logdir)
        # uvicorn serves the front at once: the page's files, and every other request once the app is built (in
        # a thread, while the first pass reads the log directory in another; issue 15's fast start).
        from ridgeline.server.front import Front, protect
        from ridgeline.server.run import is_loopback, make_server, url_for
    except BaseException as error:
        sock.close()
        if isinstance(error, KeyboardInterrupt):
            sys.exit(130)
        raise
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
    # The URL is printed once everything is read: what a script that waits for it expects.
    startup = Startup(
        lambda: _opening(logdir, cache=not no_cache, check_crc=not no_checksum, store=store),
        build,
        source,
        f"ridgeline is serving {source} at {shown}  (Ctrl-C to stop)",
    )
    front = Front(on_start=startup.start, on_stop=startup.stop, on_hold=startup.wanted)
    startup.front = front
    server = make_server(protect(front, token=token, prefix=prefix), sock, allow_hosts=allow_host)
    startup.server = server
    say(f"reading {source}; answering on port {actual_port} meanwhile")
    if sweeper is not None:
        sweeper.start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C before uvicorn took the signal
        pass
    finally:
        startup.stop()
        if sweeper is not None:
            sweeper.stop()
        sock.close()
    if startup.error is not None:
        console.print(f"[red]error:[/red] {startup.error}")
        _exit(1)
    console.print("stopped")
    _exit(0)


def _get(spec: AppSpec, opened: LogDir, get_path: str) -> None:
    """``--get PATH``: one request answered in-process over everything read, its body printed; exit 1 on an error
    status."""
    from ridgeline.server.run import request_in_process

    app = spec.create(opened)
    headers = {"authorization": f"Bearer {spec.token}"} if spec.token else {}
    # --get names a route as the page does, under the prefix or not: /api/runs means /ridgeline/api/runs.
    prefix = spec.path_prefix
    if prefix and get_path != prefix and not get_path.startswith(prefix + "/"):
        get_path = prefix + "/" + get_path.lstrip("/")
    status, body = request_in_process(app, get_path, headers)
    sys.stdout.buffer.write(body + b"\n")
    sys.stdout.flush()
    sys.exit(0 if status < 400 else 1)


def _opening(logdir: str | None, *, cache: bool, check_crc: bool, store: str | None) -> Opening:
    """The log directory opened, not read yet; a missing or unreadable one is a usage error naming --logdir.
    Without a log directory: the store, opened as a read-only replica."""
    from ridgeline.api import opening

    try:
        return opening(logdir, cache=cache, check_crc=check_crc, store=store)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--logdir") from None
    except OSError as error:
        # A StoreError (an OSError): its module is imported here only when one was raised, as the on-disk
        # store is only with a cache (--no-cache starts without it; issue 15).
        from ridgeline.store.files import StoreError

        if store is None or not isinstance(error, StoreError):  # the cache directory: not an option's fault
            raise
        raise click.BadParameter(str(error), param_hint="--store") from None


def _check_store(store: str) -> None:
    """A directory that is not a store this version reads is a usage error naming --store, before serving."""
    _replica_label(store)


def _replica_label(store: str | None) -> str:
    """What a replica's pages name: the log directory its indexer reads (as it recorded it), else the store."""
    from ridgeline.api import replica_label
    from ridgeline.store.files import StoreError

    try:
        return replica_label(str(store))
    except StoreError as error:
        raise click.BadParameter(str(error), param_hint="--store") from None


def _open_replica(store: str | None) -> LogDir:
    from ridgeline.api import open_replica, scalars_only

    opened = open_replica(str(store))
    if scalars_only(opened):
        say_scalars_only(opened)
    return opened


def _check_logdir(logdir: str) -> None:
    """A missing log directory (or one that is not a directory) is a usage error naming --logdir, before the
    server starts; what else cannot be read is reported as it is read."""
    from ridgeline.ingest.discovery import check_source, filesystem_for, sources_from

    try:
        for source in sources_from(logdir):
            check_source(source, filesystem_for(source.path))
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--logdir") from None


def _alert_config(table: dict[str, Any]) -> AlertConfig:

    from ridgeline.analysis.alert_config import AlertConfig

    return AlertConfig.from_mapping(table)


def _diagnosis_config(table: dict[str, Any]) -> DiagnosisConfig:
    from ridgeline.analysis.diagnosis import DiagnosisConfig

    return DiagnosisConfig.from_mapping(table)


def _exit(code: int) -> None:
    """End the process now, after the exit handlers (the projector's worker is killed by one), without the
    interpreter's teardown of every module (half a second after a server ran: a prompt exit on SIGTERM)."""
    sys.stdout.flush()
    sys.stderr.flush()
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


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
