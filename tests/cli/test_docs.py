"""docs/cli.md documents every setting and every command: its generated part (the settings table and each
command's --help) is what ``make docs`` generates now, and each command has a section written by hand."""

from __future__ import annotations

from pathlib import Path

from ridgeline.cli import COMMANDS
from ridgeline.cli._docs import BEGIN, END, updated
from ridgeline.settings import SETTINGS

CLI_MD = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_the_generated_part_is_current() -> None:
    text = CLI_MD.read_text(encoding="utf-8")
    assert updated(text) == text, (
        "docs/cli.md is stale: a setting or a command's --help changed. Regenerate its generated part with "
        "`make docs` (python -m ridgeline.cli._docs docs/cli.md) and commit it."
    )


def test_every_setting_is_documented() -> None:
    text = CLI_MD.read_text(encoding="utf-8")
    generated = text[text.index(BEGIN) : text.index(END)]
    for setting in SETTINGS:
        assert setting.help.strip().endswith("."), f"setting {setting.name!r} needs a help sentence"
        assert f"| `{setting.name}` |" in generated and f"`{setting.env_var}`" in generated, setting.name


def test_every_command_has_a_section_written_by_hand() -> None:
    text = CLI_MD.read_text(encoding="utf-8")
    written = text[: text.index(BEGIN)]
    for name in COMMANDS:
        assert f"## `ridgeline {name} " in written, f"docs/cli.md has no section on ridgeline {name}"
