"""``ridgeline search PATTERN --logdir DIR``: the hits as a table, or one JSON object per line with --json.

The engine, numpy and RE2 load only when the command runs.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click
import orjson
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ridgeline.cli._support import json_option, logdir_option, open_logdir, setting_options

if TYPE_CHECKING:
    from ridgeline.search.engine import SearchResult

KIND_STYLE = {
    "run": "bold",
    "tag": "cyan",
    "hparam": "magenta",
    "metadata": "blue",
    "date": "green",
    "text": "",
    "annotation": "yellow",
    "note": "italic",
    "log": "dim",
}


def hits_table(result: SearchResult) -> Table:
    shown = len(result.hits)
    title = f"{result.total} hit{'s' if result.total != 1 else ''}"
    if result.truncated:
        title += f" (first {shown}: --limit 0 lists all)"
    title += f" in {len(result.runs)} run{'s' if len(result.runs) != 1 else ''}"
    table = Table(title=title, title_justify="left")
    for name, justify in (("kind", "left"), ("run", "left"), ("tag", "left"), ("step", "right"), ("text", "left")):
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for hit in result.hits:
        style = KIND_STYLE.get(hit.kind, "")
        table.add_row(
            f"[{style}]{hit.kind}[/]" if style else hit.kind,
            escape(hit.run),
            escape(hit.tag or ""),
            "" if hit.step is None else str(hit.step),
            escape(hit.text),
        )
    return table


def json_lines(result: SearchResult) -> list[str]:
    """One ``{"kind", "run", "tag", "text", "step"}`` object per hit."""
    return [
        orjson.dumps({"kind": hit.kind, "run": hit.run, "tag": hit.tag, "text": hit.text, "step": hit.step}).decode()
        for hit in result.hits
    ]


@click.command("search")
@click.argument("pattern")
@logdir_option()
@json_option('One JSON object per line: {"kind", "run", "tag", "text", "step"}.')
@click.option(
    "--limit", default=200, show_default=True, type=click.IntRange(min=0), help="At most this many hits; 0: all."
)
@click.option("-i", "--ignore-case", is_flag=True, help="Match without regard to case (like (?i)).")
@setting_options("search")
def search(pattern: str, logdir: str, as_json: bool, limit: int, ignore_case: bool, no_cache: bool) -> None:
    """Find runs, tags, hyperparameters, run metadata, dates, text and annotations matching PATTERN.

    PATTERN is an RE2 regular expression, scoped with run:, tag:, hparam:, metadata:, date:, text: or annotation:
    and combined with AND, OR, NOT and parentheses (docs/search.md); run queries (hparams.lr < 0.01) and
    questions (which runs have nan) work too.

    \b
    Examples:
        ridgeline search 'tag:^train_' --logdir runs
        ridgeline search '(lr=0.001|batch_size=64).*(dropout=0.2)' --logdir runs --json
        ridgeline search 'date:202411 AND NOT text:nan' --logdir runs
    """
    from ridgeline.search.engine import Searcher
    from ridgeline.search.errors import SearchError

    errors = Console(stderr=True)
    opened = open_logdir(logdir, errors, cache=not no_cache)
    searcher = Searcher(opened)
    try:
        result = searcher.search(pattern, limit=limit or None, ignore_case=ignore_case)
    except SearchError as error:
        raise click.UsageError(f"PATTERN: {error.caret(pattern)}") from None
    if as_json:
        if result.mode == "question":  # the query it ran, on stderr so that stdout stays JSON lines
            errors.print(f"question: {escape(result.query)}")
        lines = json_lines(result)
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
        if result.truncated:
            more = result.total - len(result.hits)
            errors.print(f"{more} more hit{'s' if more != 1 else ''}: --limit 0 lists all")
        return
    console = Console()
    if result.mode != "pattern":
        console.print(f"{result.mode}: [bold]{escape(result.query)}[/bold]")
    console.print(hits_table(result))
