"""``ridgeline clean --logdir DIR``: delete the runs a retention policy selects; a dry run unless told otherwise.

The policy options are shared with ``ridgeline serve --retention``, whose value is these same options in one
string (:func:`parse_retention`), so that the server and the command mean the same thing by them.
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click
import orjson
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ridgeline.cli._support import json_option, logdir_option, regex
from ridgeline.retention.units import UnitError, format_duration, format_size, parse_duration, parse_size

if TYPE_CHECKING:
    from ridgeline.retention.policy import Policy
    from ridgeline.retention.sweep import Action, Outcome

F = TypeVar("F", bound=Callable[..., Any])
EVERY = "1h"  # how often serve --retention sweeps, unless its policy says --every


class _Unit(click.ParamType):
    def __init__(self, name: str, parse: Callable[[str], float]) -> None:
        self.name = name
        self._parse = parse

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        try:
            return self._parse(value)
        except UnitError as error:
            self.fail(str(error), param, ctx)


DURATION = _Unit("duration", parse_duration)
SIZE = _Unit("size", parse_size)


def _check_keep(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    regex(value, "--keep")  # a usage error unless RE2 compiles it
    return value or None


def policy_options(function: F) -> F:
    """The options of a retention policy and of what to do with what it selects (``clean`` and ``--retention``)."""
    options = (
        click.option(
            "--older-than",
            type=DURATION,
            default=None,
            metavar="DURATION",
            help="Delete runs whose last event is older than this: 30d, 12h, 90m, 2w, 1d12h.",
        ),
        click.option(
            "--keep-last",
            type=click.IntRange(min=0),
            default=None,
            metavar="N",
            help="Keep the N runs with the latest last events; delete the older ones.",
        ),
        click.option(
            "--max-size",
            type=SIZE,
            default=None,
            metavar="SIZE",
            help="Delete the oldest runs until the rest take at most this: 50GB, 500MiB (GB is 10^9, GiB 2^30).",
        ),
        click.option(
            "--keep",
            default=None,
            metavar="REGEX",
            callback=_check_keep,
            help="Always keep runs whose name matches this regular expression (RE2, searched as --run is).",
        ),
        click.option(
            "--all-files",
            is_flag=True,
            help="Delete every file of a run (traces, notes, checkpoints), not only its event and projector files.",
        ),
        click.option("--yes", is_flag=True, help="Delete (without it: a dry run that only lists what would go)."),
        click.option(
            "--trash",
            default=None,
            metavar="DIR",
            help="Move what goes into this folder (outside the log directory) instead of deleting it.",
        ),
    )
    for option in reversed(options):
        function = option(function)
    return function


def read_policy(
    older_than: float | None,
    keep_last: int | None,
    max_size: int | None,
    keep: str | None,
    all_files: bool,
    yes: bool,
    trash: str | None,
) -> tuple[Policy, Action]:
    """The policy and the action of the options; a policy that selects nothing is a usage error."""
    from ridgeline.retention.policy import Policy, PolicyError
    from ridgeline.retention.sweep import Action

    try:
        policy = Policy(older_than, keep_last, max_size, keep or None, all_files)
    except PolicyError as error:
        raise click.UsageError(str(error)) from None
    if trash is not None:
        return policy, Action("trash", trash)
    return policy, Action("delete" if yes else "dry-run")


@click.command("clean")
@logdir_option()
@policy_options
@json_option("One JSON object: what went (or would go), what stayed although selected, and why.")
def clean(
    logdir: str,
    older_than: float | None,
    keep_last: int | None,
    max_size: int | None,
    keep: str | None,
    all_files: bool,
    yes: bool,
    trash: str | None,
    as_json: bool,
) -> None:
    """Delete old runs: those a policy selects by last event time, count and total size.

    By default a dry run: it prints what would go and the space it would free. --yes deletes, --trash DIR moves
    instead. It removes a run's event files and projector files (traces, notes and other files stay unless
    --all-files), then the directories that became empty. Runs matching --keep and runs written to in the last
    hour always stay. A run's nested runs (add_hparams trials, add_scalars series) go with it. Symlinks are never
    followed, and /, home directories and their parents are refused. Works on s3:// log directories too.

    \b
    Examples:
        ridgeline clean --logdir runs --older-than 30d
        ridgeline clean --logdir runs --keep-last 20 --keep '^baseline' --yes
        ridgeline clean --logdir runs --max-size 50GB --trash /data/trash
        ridgeline clean --logdir s3://bucket/runs --older-than 90d --yes
    """
    from ridgeline.ingest.discovery import LogDirError, sources_from
    from ridgeline.retention.sweep import TrashError, outcome_json, sweep

    policy, action = read_policy(older_than, keep_last, max_size, keep, all_files, yes, trash)
    try:
        outcome = sweep(sources_from(logdir), policy, action)
    except LogDirError as error:
        raise click.BadParameter(str(error), param_hint="--logdir") from None
    except TrashError as error:
        raise click.BadParameter(str(error), param_hint="--trash") from None
    if as_json:
        sys.stdout.write(orjson.dumps(outcome_json(outcome)).decode() + "\n")
    else:
        report(outcome, logdir, Console(), Console(stderr=True))
    sys.exit(1 if outcome.failures else 0)


def report(outcome: Outcome, logdir: str, console: Console, errors: Console) -> None:
    """The outcome for people: a table of what went (or would go) and why, then what stayed and what is left."""
    chosen, mode = outcome.plan, outcome.action.mode
    going = chosen.going
    for problem in outcome.problems:
        errors.print(f"[yellow]warning:[/yellow] {escape(problem)}")
    for failure in outcome.failures:
        errors.print(f"[red]error:[/red] {escape(failure)}")
    if not going:
        runs = len(chosen.decisions)
        console.print(f"Nothing to delete: none of the {runs} run{'s' if runs != 1 else ''} in {escape(logdir)} goes.")
    else:
        verb = {"dry-run": "Would delete", "delete": "Deleting", "trash": "Moving"}[mode]
        console.print(
            f"{verb} {len(going)} run{'s' if len(going) != 1 else ''} from {escape(logdir)}, "
            f"{format_size(chosen.freed)} ({escape(chosen.policy.describe())}):"
        )
        table = Table(show_edge=False, pad_edge=False)
        for name, justify in (("run", "left"), ("last event", "left"), ("size", "right"), ("why it goes", "left")):
            table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
        for decision in going:
            candidate = decision.candidate
            nested = len(candidate.runs) - 1
            name = escape(candidate.name) + (f" [dim](+{nested} nested)[/dim]" if nested else "")
            when = _when(candidate.last_seen, chosen.now)
            table.add_row(name, when, format_size(candidate.size), escape("; ".join(decision.reasons)))
        console.print(table)
    kept = [decision for decision in chosen.decisions if decision.reasons and decision.kept is not None]
    if kept:
        listed = ", ".join(f"{escape(d.candidate.name)} ({d.kept})" for d in kept)
        console.print(f"Kept although selected: {listed}")
    left = [entry for decision in going for entry in decision.candidate.stays if entry.regular]
    if left and not chosen.policy.all_files:
        files = f"{len(left)} other file{'s' if len(left) != 1 else ''}"
        console.print(
            f"Left in place: {files} ({format_size(sum(e.size for e in left))}) in these runs, such as traces and "
            "notes; --all-files deletes them too."
        )
    for decision, why in outcome.skipped:
        console.print(f"[yellow]Stayed:[/yellow] {escape(decision.candidate.name)}: {escape(why)}")
    if not going:
        return
    if mode == "dry-run":
        console.print(
            "This was a dry run: nothing was deleted. Run again with --yes to delete these runs, or --trash DIR to "
            "move them."
        )
    else:
        done = "Moved" if mode == "trash" else "Deleted"
        where = f" to {escape(outcome.trash_folder)}" if outcome.trash_folder else ""
        console.print(
            f"{done} {len(outcome.removed)} run{'s' if len(outcome.removed) != 1 else ''}{where}: "
            f"{outcome.files} file{'s' if outcome.files != 1 else ''}, {format_size(outcome.freed)}."
        )


def _when(wall: float, now: float) -> str:
    if not 0 < wall < float("inf"):
        return "unknown"
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(wall)) + f" ({format_duration(now - wall)} ago)"
    except (ValueError, OverflowError, OSError):  # past time_t: a flipped bit
        return str(wall)


@click.command("--retention", add_help_option=False)
@policy_options
@click.option("--every", type=DURATION, default=EVERY, metavar="DURATION")
def _retention(**options: Any) -> dict[str, Any]:
    return options


def parse_retention(spec: str) -> tuple[Policy, Action, float]:
    """``serve --retention``'s value (``clean``'s policy options in one string, plus ``--every DURATION``, how
    often to sweep: default 1h) as a policy, an action and a period in seconds; a bad one is a usage error naming
    ``--retention``."""
    try:
        args = shlex.split(spec)
        with _retention.make_context("--retention", args) as context:
            options = dict(context.params)
        every = options.pop("every")
        if not every > 0:
            raise click.UsageError("--every must be longer than 0s")
        policy, action = read_policy(**options)
    except ValueError as error:  # shlex: an unclosed quote
        raise click.BadParameter(f"{spec!r}: {error}", param_hint="--retention") from None
    except click.ClickException as error:
        raise click.BadParameter(error.format_message(), param_hint="--retention") from None
    return policy, action, float(every)
