"""ridgeline's settings: one declarative table that feeds the command line's options and their ``RIDGELINE_*``
environment variables (``ridgeline.cli._support``), the server's ``GET /api/settings`` and the settings section of
docs/cli.md (``make docs``).

A setting is configuration a user sets once for their machine or deployment: where the server listens, how often it
re-reads, the token, the cache. What one command is asked (its log directory, patterns, output file) is an option of
that command, not a setting. Ingest tuning (worker counts, read sizes) stays out of the table: the reader chooses it.

Every setting has an environment variable, ``RIDGELINE_<NAME>``, read when its option is not given; a setting no
command takes as an option (``cache_dir``) is read from its variable where it is used. ``create_app`` takes the
table's values as ``setting_values`` (what ``/api/settings`` answers); what plugins read with
``ridgeline.plugins.kit.setting`` are its ``settings``: ``alert_config`` and ``diagnosis_config``, the files of
the ``alerts_config`` and ``diagnosis_config`` settings parsed (None: the defaults), ``retention``, the status
of the sweeps the ``retention`` setting runs (None: off), and ``crashed_after`` (seconds) as set.

This module imports nothing of ridgeline: the server, the CLI and the docs generator all read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_PREFIX = "RIDGELINE_"


@dataclass(frozen=True)
class Setting:
    """One setting. ``type`` is what its value is (bool, int, float, str or Path: a file); ``minimum`` and
    ``maximum`` bound a number. ``commands`` take it as the option ``--<name-with-dashes>``; a ``secret`` one's
    value is never shown (``/api/settings`` says only whether it is set)."""

    name: str
    type: type
    default: Any
    help: str
    commands: tuple[str, ...] = ()
    secret: bool = False
    minimum: float | None = None
    maximum: float | None = None
    multiple: bool = False  # the option may be repeated; its variable holds the values separated by spaces

    @property
    def env_var(self) -> str:
        return ENV_PREFIX + self.name.upper()

    @property
    def option(self) -> str | None:
        """The command-line option, or None for a setting only its environment variable sets."""
        return "--" + self.name.replace("_", "-") if self.commands else None


# The commands that read a log directory.
READING = ("alerts", "check", "compare", "diagnose", "export", "ranks", "report", "search", "serve")

SETTINGS: tuple[Setting, ...] = (
    Setting("port", int, 6006, "Port; 0 picks a free one.", ("serve",), minimum=0, maximum=65535),
    Setting(
        "host",
        str,
        "127.0.0.1",
        "Address to listen on. 127.0.0.1 keeps the server to this machine (use SSH port forwarding to reach it, "
        "see docs/remote.md); 0.0.0.0 exposes it to the network.",
        ("serve",),
    ),
    Setting(
        "reload_interval",
        float,
        2.0,
        "Seconds between reads of what the event files gained; 0 reads once at startup only.",
        ("serve",),
        minimum=0,
    ),
    Setting("no_cache", bool, False, "Do not read or write the persistent cache.", READING),
    Setting(
        "no_checksum",
        bool,
        False,
        "Skip the records' data checksums (faster; a flipped bit may go unnoticed).",
        ("export", "serve"),
    ),
    Setting(
        "token",
        str,
        None,
        "Require this token from every client: open the printed URL once, or send 'Authorization: Bearer TOKEN'. "
        "Use it with --host 0.0.0.0.",
        ("serve",),
        secret=True,
    ),
    Setting(
        "allow_host",
        str,
        (),
        "Also answer requests that name this host (repeatable; '*' allows any): the server answers only to the "
        "address it listens on, localhost, 127.0.0.1 and ::1, so a page on another site cannot read it through "
        "DNS rebinding (docs/security.md). Give the name a reverse proxy or other machines use.",
        ("serve",),
        multiple=True,
    ),
    Setting(
        "alerts_config",
        Path,
        None,
        "Alert detector settings per tag pattern, a .toml or .json file (as ridgeline alerts --config).",
        ("serve",),
    ),
    Setting(
        "diagnosis_config",
        Path,
        None,
        "Diagnosis tag conventions and thresholds, a .toml or .json file (as ridgeline diagnose --config).",
        ("serve",),
    ),
    Setting(
        "retention",
        str,
        None,
        "Delete old runs while serving, by a policy in ridgeline clean's words plus --every DURATION (how often; "
        "default 1h), e.g. '--older-than 30d --keep-last 50 --yes'. Without --yes or --trash DIR it is a dry run "
        "the page reports. Off by default (docs/retention.md).",
        ("serve",),
    ),
    Setting(
        "path_prefix",
        str,
        None,
        "Serve the page and the API under this path, e.g. /ridgeline, for a reverse proxy that forwards it as it is "
        "(docs/retention.md).",
        ("serve",),
    ),
    Setting(
        "crashed_after",
        float,
        300.0,
        "Seconds without a write after which a run that recorded no end counts as crashed (ridgeline's writer) or "
        "stopped (other writers); a live ridgeline writer touches its file every 30 s (docs/runs.md).",
        ("serve",),
        minimum=0,
    ),
    Setting(
        "store",
        str,
        None,
        "The store's own directory (or an fsspec URL such as s3://bucket/store), instead of one under the cache "
        "directory (docs/store.md). With --logdir this "
        "process keeps it current (one at a time: a second is refused); serve without --logdir reads it as a "
        "read-only replica of what an indexer (ridgeline index --logdir DIR --store STORE --watch S) commits.",
        ("index", "serve"),
    ),
    Setting(
        "cache_dir",
        Path,
        None,
        "Directory of the persistent cache (default: $XDG_CACHE_HOME/ridgeline, else ~/.cache/ridgeline); every "
        "command that reads a log directory, and ridgeline.open, use it.",
    ),
)

BY_NAME: dict[str, Setting] = {setting.name: setting for setting in SETTINGS}


def for_command(command: str) -> tuple[Setting, ...]:
    """The settings ``command`` takes as options, in table order."""
    return tuple(setting for setting in SETTINGS if command in setting.commands)


def defaults() -> dict[str, Any]:
    """Every setting's default value, by name."""
    return {setting.name: setting.default for setting in SETTINGS}


def _json_value(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_json_value(item) for item in value]
    return str(value) if isinstance(value, Path) else value


def describe(values: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """What ``GET /api/settings`` answers for these values (a setting missing from ``values`` has its default):
    per setting its ``value`` (null for a secret), whether it ``is_set`` (has a value other than none), its
    ``default``, ``env_var``, ``option``, ``commands``, ``secret`` and ``help``."""
    described: dict[str, dict[str, Any]] = {}
    for setting in SETTINGS:
        value = values.get(setting.name, setting.default)
        described[setting.name] = {
            "value": None if setting.secret else _json_value(value),
            "is_set": value is not None and value != "" and value != (),
            "default": None if setting.secret else _json_value(setting.default),
            "env_var": setting.env_var,
            "option": setting.option,
            "commands": list(setting.commands),
            "secret": setting.secret,
            "help": setting.help,
        }
    return described
