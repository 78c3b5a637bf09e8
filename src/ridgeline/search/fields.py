"""One field's index: its distinct texts joined in one UTF-8 buffer, and its entries in compact arrays.

Why the layout: RE2's Python binding costs about a microsecond per call, so matching entry by entry cannot
answer a million entries in milliseconds. Each field keeps its *distinct* texts joined by newlines in one UTF-8
buffer; a query runs RE2 over the buffer, one call per matching text (the next call starts after that text's
newline), maps match offsets to texts with ``numpy.searchsorted`` over the texts' start offsets, then to entries
with one vectorised look-up. Distinct texts matter: 10,000 runs share a few hundred tag names, so a tag pattern
runs over kilobytes, not over a million tag entries.

Entries live in compact arrays (``array.array``); an entry whose source changed (a run rewritten, its end time
moved) is marked dead and a new one appended; a field whose entries are mostly dead is compacted.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import Any

import numpy as np
import re2

NO_STEP = -(1 << 62)
_UNANCHORED = re2._Anchor.UNANCHORED
_CANDIDATES = 2000  # texts holding a pattern's required literal matched one by one before scanning instead
_SPARSE_BYTES = 2048  # ...while they are at least this far apart on average (else RE2's own scan is cheaper)
_POSTINGS_PER_ENTRIES = 512  # posting lists serve up to one matched text per this many entries (else one mask)
_SAMPLE = 1 << 16  # bytes sampled to tell a common string from a rare one
_MAX_LINE = 100_000  # longer text lines are cut: they stay findable by their start, and memory stays bounded


class FieldIndex:
    """One field's distinct texts (one buffer) and its entries."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.values: list[str] = []
        self._value_ids: dict[str, int] = {}
        self._chunks: list[bytes] = []
        self._starts = array("q")
        self._size = 0
        self.entry_value = array("i")
        self.entry_run = array("i")
        self.entry_tag = array("i")
        self.entry_step = array("q")
        self.alive = bytearray()
        self.dead = 0
        self._arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self._buffer: tuple[bytes, np.ndarray] | None = None
        self._postings: tuple[np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.entry_value) - self.dead

    def add(self, run: int, text: str, tag: int = -1, step: int | None = None) -> int:
        """Append an entry; returns its id."""
        text = text.replace("\n", " ")[:_MAX_LINE]
        value = self._value_ids.get(text)
        if value is None:
            value = self._value_ids[text] = len(self.values)
            self.values.append(text)
            encoded = text.encode("utf-8", "replace") + b"\n"
            self._starts.append(self._size)
            self._chunks.append(encoded)
            self._size += len(encoded)
            self._buffer = None
        self.entry_value.append(value)
        self.entry_run.append(run)
        self.entry_tag.append(tag)
        self.entry_step.append(NO_STEP if step is None else step)
        self.alive.append(1)
        self._arrays = None
        self._postings = None
        return len(self.entry_value) - 1

    def kill(self, entries: Iterable[int]) -> None:
        for entry in entries:
            if self.alive[entry]:
                self.alive[entry] = 0
                self.dead += 1
                self._arrays = None

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(value, run, tag, step, alive) per entry as numpy arrays (copies, rebuilt after a change)."""
        if self._arrays is None:
            self._arrays = (
                np.array(self.entry_value, dtype=np.int32),
                np.array(self.entry_run, dtype=np.int32),
                np.array(self.entry_tag, dtype=np.int32),
                np.array(self.entry_step, dtype=np.int64),
                np.frombuffer(bytes(self.alive), dtype=np.bool_),
            )
        return self._arrays

    def buffer(self) -> tuple[bytes, np.ndarray]:
        """The distinct texts joined (each followed by a newline), and their start offsets."""
        if self._buffer is None:
            joined = b"".join(self._chunks)
            self._chunks = [joined] if joined else []
            self._buffer = (joined, np.array(self._starts, dtype=np.int64))
        return self._buffer

    def scan(self, program: Any, literal: Any = None, exact: tuple[bytes, bool] | None = None) -> np.ndarray:
        """The ids of the distinct texts ``program`` (a compiled re2 pattern) matches, one RE2 call per text.

        With ``literal`` (an RE2 program for a string every match contains: ``patterns.required_literal``), the
        texts holding it are found first (RE2 skips to a literal with memchr, several times faster than
        ``bytes.find``) and only they are matched, while they are few and far apart: a pattern RE2 cannot skip
        ahead for (``(lr=0.001|batch_size=64).*(dropout=0.2)``) then costs a few jumps instead of a DFA pass over
        every byte. Otherwise it goes on with the plain scan.

        With ``exact`` (the pattern is a plain string, maybe anchored: ``patterns.exact_literal``) that is common
        in this buffer, ``bytes.find`` locates the texts holding it without RE2 (less overhead per matching text;
        for a rare string RE2's memchr-driven skipping over long stretches wins)."""
        buffer, starts = self.buffer()
        if exact is not None and _dense(buffer, exact):
            return self._find_all(buffer, starts, *exact)
        end = len(buffer)
        match = program._regexp.Match
        find = buffer.find
        found: list[int] = []
        at = 0
        if literal is not None:
            jump = literal._regexp.Match
            tried = 0
            while tried < _CANDIDATES:
                hit = jump(_UNANCHORED, buffer, at, end)[0][0]
                if hit < 0:
                    at = end
                    break
                if tried >= 32 and hit < tried * _SPARSE_BYTES:
                    break  # the literal is common here: scanning is cheaper than matching text by text
                first = buffer.rfind(b"\n", 0, hit) + 1  # the text holding the literal
                last = find(b"\n", hit) + 1
                start = match(_UNANCHORED, buffer, first, last)[0][0]
                if start >= 0:
                    found.append(start)
                at = last
                tried += 1
        while at < end:
            start = match(_UNANCHORED, buffer, at, end)[0][0]
            if start < 0 or start >= end:
                break
            found.append(start)
            at = find(b"\n", start) + 1  # on to the next text: one hit per text
        if not found:
            return np.empty(0, dtype=np.int64)
        return np.searchsorted(starts, np.array(found, dtype=np.int64), side="right") - 1

    @staticmethod
    def _find_all(buffer: bytes, starts: np.ndarray, text: bytes, anchored: bool) -> np.ndarray:
        """The ids of the texts holding ``text`` (starting with it when ``anchored``)."""
        find = buffer.find
        found: list[int] = []
        if anchored:  # look for newline + text from each text's preceding newline; the first text has none
            if buffer.startswith(text):
                found.append(0)
            needle, shift = b"\n" + text, 1
        else:
            needle, shift = text, 0
        at = find(b"\n") if anchored and found else 0
        while at >= 0:
            hit = find(needle, at)
            if hit < 0 or hit + shift >= len(buffer):
                break
            found.append(hit + shift)
            at = find(b"\n", hit + shift)  # the end of that text: one hit per text
            if not anchored and at >= 0:
                at += 1
        if not found:
            return np.empty(0, dtype=np.int64)
        return np.searchsorted(starts, np.array(found, dtype=np.int64), side="right") - 1

    def entries_of(self, values: np.ndarray, run_alive: np.ndarray) -> np.ndarray:
        """The live entries (of live runs) whose text is one of ``values`` (ids), in no particular order.

        Few texts (a tag pattern matching 200 of 400 tag names shared by 10,000 runs): their entries are sliced
        from the texts' posting lists; many texts: one vectorised look-up over every entry."""
        if not len(values):
            return np.empty(0, dtype=np.int64)
        entry_value, entry_run, _, _, alive = self.arrays()
        if len(values) <= max(64, len(entry_value) // _POSTINGS_PER_ENTRIES):
            order, offsets = self.postings()
            found = np.concatenate([order[offsets[value] : offsets[value + 1]] for value in values.tolist()])
        else:
            chosen = np.zeros(len(self.values), dtype=np.bool_)
            chosen[values] = True
            found = np.flatnonzero(chosen[entry_value])
        if self.dead:
            found = found[alive[found]]
        if not run_alive.all():  # some run was dropped (deleted, or read again under a new id)
            found = found[run_alive[entry_run[found]]]
        return found

    def postings(self) -> tuple[np.ndarray, np.ndarray]:
        """Entry ids grouped by text (stable), and where each text's group starts (CSR)."""
        if self._postings is None:
            entry_value = self.arrays()[0]
            order = np.argsort(entry_value, kind="stable").astype(np.int64)
            counts = np.bincount(entry_value, minlength=len(self.values))
            offsets = np.zeros(len(self.values) + 1, dtype=np.int64)
            np.cumsum(counts, out=offsets[1:])
            self._postings = (order, offsets)
        return self._postings

    def compact(self) -> dict[int, int]:
        """Drop dead entries and texts no live entry uses; returns old entry id -> new entry id."""
        old = (self.entry_value, self.entry_run, self.entry_tag, self.entry_step, self.alive)
        values = self.values
        self.__init__(self.name)  # type: ignore[misc]
        moved: dict[int, int] = {}
        for entry, (value, run, tag, step, alive) in enumerate(zip(*old, strict=True)):
            if alive:
                moved[entry] = self.add(run, values[value], tag, None if step == NO_STEP else step)
        return moved

    def memory(self) -> int:
        """Bytes held: buffer, offsets, entry arrays (the texts' Python objects are counted by tracemalloc)."""
        arrays = (self._starts, self.entry_value, self.entry_run, self.entry_tag, self.entry_step)
        return self._size + sum(a.itemsize * len(a) for a in arrays) + len(self.alive)


def _dense(buffer: bytes, exact: tuple[bytes, bool]) -> bool:
    """Whether the string occurs often enough (judged on the buffer's first 64 KiB) for ``bytes.find`` to beat
    RE2 at finding every occurrence."""
    text, anchored = exact
    needle = b"\n" + text if anchored else text
    return len(buffer) <= _SAMPLE or buffer.count(needle, 0, _SAMPLE) >= 4
