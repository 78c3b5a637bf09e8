"""The run metadata record's text: the JSON of what a run records about itself (see
:mod:`ridgeline.writer.run_metadata`), in a fenced block, which ridgeline parses back. It is stored as a text
summary under :data:`ridgeline.format.tags.RUN_METADATA_TAG`, plugin ``RUN_METADATA_PLUGIN`` (older files: ``text``).
"""

from __future__ import annotations

import json
from typing import Any


def render(info: dict[str, Any]) -> str:
    return "```json\n" + json.dumps(info, indent=2, sort_keys=True) + "\n```"


def parse(text: str) -> dict[str, Any]:
    """The dict that ``render`` wrote (for the reading side and tests)."""
    body = text.strip().removeprefix("```json").removesuffix("```")
    parsed: dict[str, Any] = json.loads(body)
    return parsed
