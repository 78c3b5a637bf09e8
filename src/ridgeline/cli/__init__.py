"""The ``ridgeline`` command: the group, and one module per command (``ridgeline/cli/<name>.py`` defines the click
command ``<name>``).

A command's module is imported only when that command runs or help lists it, and imports what its work needs
(numpy, the server) inside the command: ``ridgeline --help`` and ``ridgeline demo`` never load FastAPI. Adding a
command is its module plus one line in ``COMMANDS``; its shared options and ``open_logdir`` are in ``_support``.
"""

from __future__ import annotations

import importlib

import click

from ridgeline._version import __version__

COMMANDS = (
    "alerts",
    "check",
    "clean",
    "compare",
    "demo",
    "diagnose",
    "export",
    "index",
    "ranks",
    "report",
    "search",
    "serve",
    "sql",
)


class _Commands(click.Group):
    """The group over ``COMMANDS``, importing each command's module on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module = importlib.import_module(f"{__name__}.{cmd_name}")
        command: click.Command = getattr(module, cmd_name)
        return command


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
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


__all__ = ["COMMANDS", "main"]
