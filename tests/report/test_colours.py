"""The report colours runs as the page does: the same palette in the same order (web/src/app/palette.ts), runs in
the same natural order (web/src/app/runOrder.ts)."""

from __future__ import annotations

import re
from pathlib import Path

from ridgeline.report.colours import PALETTE, run_sort_key

PALETTE_TS = Path(__file__).resolve().parents[2] / "web" / "src" / "app" / "palette.ts"


def test_the_palette_is_the_pages() -> None:
    source = PALETTE_TS.read_text(encoding="utf-8")
    block = source[source.index("export const PALETTE") :]
    block = block[: block.index("];")]
    assert tuple(re.findall(r'"(#[0-9a-f]{6})"', block)) == PALETTE


def test_runs_in_natural_order() -> None:
    runs = ["adam_lr0.1", "adam_lr0.01/loss_val", "adam_lr0.01", "adam_lr0.0001", "adam_lr0.001", "seed10", "seed2"]
    assert sorted(runs, key=run_sort_key) == [
        "adam_lr0.0001",
        "adam_lr0.001",
        "adam_lr0.01",
        "adam_lr0.01/loss_val",
        "adam_lr0.1",
        "seed2",
        "seed10",
    ]
    assert sorted(["run-b", "run/x", "run0", "run"], key=run_sort_key) == ["run", "run/x", "run0", "run-b"]
