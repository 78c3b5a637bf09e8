"""A run's tags, from its notes: a front matter block at the start of a note (what ``add_note(..., tags=[...])``
writes, and what a README can start with)::

    ---
    tags: baseline, lr-sweep
    ---

or a first line ``tags: baseline, lr-sweep`` (``[baseline, lr-sweep]`` works too). The block is taken out of the
note that is shown; tags are kept in the order first met, without repeats.
"""

from __future__ import annotations

import re

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_TAGS_LINE = re.compile(r"\A[ \t]*tags[ \t]*:[ \t]*(.*?)[ \t]*(?:\r?\n|\Z)", re.IGNORECASE)
MAX_TAGS = 32
MAX_TAG = 64


def split_note(markdown: str) -> tuple[list[str], str]:
    """The tags a note declares, and the note without its declaration."""
    front = _FRONT_MATTER.match(markdown)
    if front is not None:
        tags: list[str] = []
        for line in front[1].splitlines():
            found = _TAGS_LINE.match(line)
            if found is not None:
                tags += _parse(found[1])
        return tags, markdown[front.end() :]
    line = _TAGS_LINE.match(markdown)
    if line is not None:
        return _parse(line[1]), markdown[line.end() :]
    return [], markdown


def run_tags(notes: list[str]) -> tuple[list[str], list[str]]:
    """Every tag the notes declare (first met first, no repeats) and the notes as shown."""
    tags: list[str] = []
    shown = []
    for note in notes:
        found, body = split_note(note)
        for tag in found:
            if tag not in tags and len(tags) < MAX_TAGS:
                tags.append(tag)
        shown.append(body)
    return tags, shown


def _parse(text: str) -> list[str]:
    text = text.strip().removeprefix("[").removesuffix("]")
    return [tag[:MAX_TAG] for tag in (part.strip().strip("'\"") for part in text.split(",")) if tag]
