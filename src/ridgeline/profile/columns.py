"""A trace as columns: what the views need of every event, in numpy arrays, with strings as codes into tables.

``spans`` are the complete events (phase ``X``), sorted by lane, then start, longest first, with each one's
enclosing span on its lane (``parent``) and nesting ``depth``; ``memory`` the allocator's ``[memory]`` instants;
``kernels`` the launch parameters of device kernels, one row per kernel span. ``offset``/``length`` locate each
span's JSON in the (decompressed) trace so its full ``args`` can be read back when asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

SPAN_COLUMNS = {
    "ts": np.float64,
    "dur": np.float64,
    "name": np.int32,
    "cat": np.int32,
    "lane": np.int32,
    "offset": np.int64,
    "length": np.int64,
    "external_id": np.int64,
    "correlation": np.int64,
    "shapes": np.int32,  # code of the op's "Input Dims" (record_shapes), -1 without
    "parent": np.int64,
    "depth": np.int32,
}
MEMORY_COLUMNS = {
    "ts": np.float64,
    "device_type": np.int32,
    "device_id": np.int32,
    "allocated": np.float64,
    "reserved": np.float64,
    "bytes": np.float64,
}
KERNEL_COLUMNS = {
    "span": np.int64,  # row in spans
    "grid": np.int64,  # grid x*y*z, -1 unknown
    "block": np.int64,
    "registers": np.float64,  # NaN unknown
    "shared_memory": np.float64,
    "occupancy": np.float64,  # "est. achieved occupancy %"
    "blocks_per_sm": np.float64,
    "warps_per_sm": np.float64,
}
# Text kept per kernel row, for the table: its grid and block as written ("[128, 1, 1]").
KERNEL_TEXT = ("grid_text", "block_text")


def code_mask(column: np.ndarray, codes: np.ndarray, table_size: int) -> np.ndarray:
    """``np.isin(column, codes)`` for codes into a table of ``table_size`` (-1: none), by one lookup per row."""
    lookup = np.zeros(table_size + 1, dtype=bool)  # the last entry stands for -1
    lookup[codes] = True
    return lookup[column]


@dataclass
class Lane:
    """One row of the timeline: a (pid, tid) pair, a CPU thread or a device stream."""

    pid: str
    tid: str
    process: str = ""
    thread: str = ""
    sort: float = 0.0
    device: bool = False  # a GPU stream (kernels, memcpy) rather than a CPU thread

    @property
    def label(self) -> str:
        process = self.process or f"process {self.pid}"
        return f"{process} · {self.thread or f'thread {self.tid}'}"


@dataclass
class Trace:
    """A parsed trace: columns, string tables, and what the file said about itself."""

    spans: dict[str, np.ndarray]
    memory: dict[str, np.ndarray]
    kernels: dict[str, np.ndarray]
    names: list[str]
    cats: list[str]
    shapes: list[str]
    kernel_text: dict[str, list[str]]
    lanes: list[Lane]
    header: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # events per phase, as read

    def _distributed(self, key: str) -> int | None:
        info = self.header.get("distributedInfo")
        value = info.get(key) if isinstance(info, dict) else None
        return value if isinstance(value, int) else None

    @property
    def rank(self) -> int | None:
        return self._distributed("rank")

    @property
    def world_size(self) -> int | None:
        return self._distributed("world_size")

    def cat_codes(self, *names: str) -> np.ndarray:
        return np.asarray([i for i, cat in enumerate(self.cats) if cat.lower() in names], dtype=np.int32)

    def in_cats(self, *names: str) -> np.ndarray:
        """A mask over spans: those whose category is one of ``names`` (lower case)."""
        return code_mask(self.spans["cat"], self.cat_codes(*names), len(self.cats))

    @property
    def span_count(self) -> int:
        return int(self.spans["ts"].size)
