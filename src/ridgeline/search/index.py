"""The search index: every searchable entry of a log directory, one joined buffer per field, kept current.

An entry is (field, run, text, tag, step): a run name, a tag name, a run's hyperparameters as one line
``lr=0.001 batch_size=64``, a run metadata line (``host=...``), a start or end time (``20241105143000`` and
``2024-11-05T14:30:00``), a line of a text summary, an annotation line.

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

import json
import math
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import re2

from ridgeline.format.tags import (
    ANNOTATION_TAG,
    HPARAMS_SESSION_START_TAG,
    RIDGELINE_PREFIX,
    RUN_METADATA_PREFIX,
    RUN_METADATA_TAG,
)
from ridgeline.search.patterns import FIELDS
from ridgeline.store.logdir import LogDir, user_tags
from ridgeline.store.provider import RunInfo

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


@dataclass
class _RunState:
    """What the index took from one run, so a refresh reads only what changed."""

    id: int
    epoch: int  # the run's reading (RunInfo.epoch): a new one means the run was read again from scratch
    shape: tuple[int, int] = (-1, -1)
    tags: set[str] = field(default_factory=set)
    series: dict[tuple[str, str], int] = field(default_factory=dict)  # series -> records seen
    texts: dict[str, int] = field(default_factory=dict)  # text tag -> visible entries indexed
    replaceable: dict[str, tuple[Any, list[tuple[str, int]]]] = field(default_factory=dict)
    started: float | None = None
    times: tuple[float | None, float | None] = (None, None)


class Index:
    """Every field's FieldIndex, the run and tag name tables, and how to keep them current from a LogDir."""

    def __init__(self) -> None:
        self.fields = {name: FieldIndex(name) for name in FIELDS}
        self.run_names: list[str] = []
        self.run_alive = bytearray()
        self._run_ids: dict[str, int] = {}
        self.tag_names: list[str] = []
        self._tag_ids: dict[str, int] = {}
        self._states: dict[str, _RunState] = {}
        self._rank: np.ndarray | None = None
        self._ordered: np.ndarray | None = None
        self._order: np.ndarray | None = None
        self.generation = -1

    # --- building (the bench builds synthetic indexes through these too) --------------------------------------
    def add_run(self, name: str) -> int:
        """A new run id for ``name`` (a run read again gets a new id; the old one is dropped first)."""
        self.drop_run(name)
        run = self._run_ids[name] = len(self.run_names)
        self.run_names.append(name)
        self.run_alive.append(1)
        self._rank = None
        self.add(run, "run", name)
        return run

    def drop_run(self, name: str) -> None:
        run = self._run_ids.pop(name, None)
        if run is None:
            return
        self.run_alive[run] = 0  # its entries stay, masked by the run's flag at query time
        self._rank = None
        self._states.pop(name, None)

    def tag_id(self, tag: str) -> int:
        found = self._tag_ids.get(tag)
        if found is None:
            found = self._tag_ids[tag] = len(self.tag_names)
            self.tag_names.append(tag)
        return found

    def add(self, run: int, field_name: str, text: str, tag: str | None = None, step: int | None = None) -> int:
        return self.fields[field_name].add(run, text, -1 if tag is None else self.tag_id(tag), step)

    def run_id(self, name: str) -> int | None:
        return self._run_ids.get(name)

    def rank(self) -> np.ndarray:
        """Each run id's position in run order (sorted names); dropped runs sort last."""
        if self._rank is None:
            rank = np.full(len(self.run_names), len(self.run_names), dtype=np.int64)
            alive = [run for run, name in enumerate(self.run_names) if self.run_alive[run]]
            alive.sort(key=self.run_names.__getitem__)
            rank[alive] = np.arange(len(alive))
            self._rank = rank
            self._ordered = np.array([self.run_names[run] for run in alive], dtype=object)
            self._order = np.array(alive, dtype=np.int64)
        return self._rank

    def ordered_names(self) -> np.ndarray:
        """The live runs' names in run order (an object array: picking many is one numpy call)."""
        self.rank()
        assert self._ordered is not None
        return self._ordered

    def alive_runs(self) -> np.ndarray:
        return np.frombuffer(bytes(self.run_alive), dtype=np.bool_)

    def run_order(self) -> np.ndarray:
        """The live run ids in run order (sorted names)."""
        self.rank()
        assert self._order is not None
        return self._order

    def memory(self) -> int:
        return sum(index.memory() for index in self.fields.values())

    def __len__(self) -> int:
        return sum(len(index) for index in self.fields.values())

    # --- keeping current from a LogDir --------------------------------------------------------------------------
    def refresh(self, logdir: LogDir) -> bool:
        """Index what changed in ``logdir`` since the last refresh; False when its generation did not move."""
        generation = logdir.generation  # read first: a pass that ends meanwhile makes the next refresh run again
        if generation == self.generation:
            return False
        runs = logdir.runs()
        present = set(runs)
        for name in [name for name in self._states if name not in present]:
            self.drop_run(name)
        for name in runs:
            try:
                info = logdir.run_info(name)
                state = self._states.get(name)
                if state is None or state.epoch != info.epoch:
                    state = self._states[name] = _RunState(self.add_run(name), info.epoch)
                self._update(logdir, name, info, state)
            except KeyError:  # the run vanished while being read: the next refresh drops it
                continue
        for index in self.fields.values():
            if index.dead > 1000 and index.dead * 2 > len(index.entry_value):
                self._compact(index)
        self.generation = generation
        return True

    def _compact(self, index: FieldIndex) -> None:
        moved = index.compact()
        for state in self._states.values():
            for key, (signature, entries) in state.replaceable.items():
                if any(name == index.name for name, _ in entries):
                    kept = [(name, moved[entry] if name == index.name else entry) for name, entry in entries]
                    state.replaceable[key] = (signature, kept)

    def _update(self, logdir: LogDir, name: str, info: RunInfo, state: _RunState) -> None:
        scalar_tags = len(info.tags.get("scalars", ()))
        shape = (scalar_tags, sum(len(tags) for tags in info.tags.values()) - scalar_tags)
        if shape != state.shape:
            state.shape = shape
            for kind_tags in user_tags(info).values():
                for tag in kind_tags:
                    if tag not in state.tags:
                        state.tags.add(tag)
                        self.add(state.id, "tag", tag, tag)
            state.started = info.first_wall_time
        for kind in ("text", "hparams"):
            for tag in info.tags.get(kind, ()):  # type: ignore[call-overload]
                key = (kind, tag)
                seen = logdir.version(name, kind, tag).length  # type: ignore[arg-type]
                if state.series.get(key) == seen:
                    continue
                state.series[key] = seen
                try:
                    self._index_series(logdir, name, state, key)
                except (ValueError, OSError):  # a value that cannot be read: its dashboard reports it; search skips it
                    continue
        times = (state.started, (info.last_wall_time or 0.0) if state.started is not None else None)
        if times != state.times:  # rendered only when they moved (to the second: a live run's end moves often)
            state.times = times
            rendered = [(label, when) for label, when in zip(("start", "end"), times, strict=True) if when is not None]
            self._replace(
                state,
                "date",
                [("date", text, label, None) for label, when in rendered for text in date_texts(when)],
            )

    def _index_series(self, logdir: LogDir, name: str, state: _RunState, key: tuple[str, str]) -> None:
        """Index what a run's hparams, run metadata, annotation or text series holds that is not indexed yet."""
        kind, tag = key
        if key == ("hparams", HPARAMS_SESSION_START_TAG):
            record = logdir.hparams(name)
            experiment = logdir.hparams_experiment(name)
            order = [info.name for info in experiment.hparam_infos] if experiment is not None else []
            line = hparams_line(record.hparams, order) if record is not None else ""
            self._replace(state, "hparam", [("hparam", line, None, None)] if line else [])
        elif tag == RUN_METADATA_TAG:
            lines = metadata_lines(logdir.run_metadata(name))
            self._replace(state, "metadata", [("metadata", line, None, None) for line in lines])
        elif tag == ANNOTATION_TAG:
            notes = logdir.annotations(name)
            for step, text in notes[state.texts.get(tag, 0) :]:
                for line in _lines(text):
                    self.add(state.id, "annotation", line, None, step)
            state.texts[tag] = len(notes)
        elif kind == "text" and not tag.startswith((RIDGELINE_PREFIX, RUN_METADATA_PREFIX)):
            entries = logdir.text(name, tag)
            for entry in entries[state.texts.get(tag, 0) :]:
                try:
                    lines = text_lines(entry.value)
                except (ValueError, OSError):  # one unreadable value: the others are still indexed
                    continue
                for line in lines:
                    self.add(state.id, "text", line, tag, entry.step)
            state.texts[tag] = len(entries)

    def _replace(self, state: _RunState, key: str, entries: list[tuple[str, str, str | None, int | None]]) -> None:
        """Set the run's entries of one kind (hparams, metadata, dates) to ``entries``, if they changed."""
        signature = tuple(entries)
        previous = state.replaceable.get(key)
        if previous is not None and previous[0] == signature:
            return
        if previous is not None:
            for field_name, entry in previous[1]:
                self.fields[field_name].kill([entry])
        ids = [(name, self.add(state.id, name, text, tag, step)) for name, text, tag, step in entries]
        state.replaceable[key] = (signature, ids)


def _dense(buffer: bytes, exact: tuple[bytes, bool]) -> bool:
    """Whether the string occurs often enough (judged on the buffer's first 64 KiB) for ``bytes.find`` to beat
    RE2 at finding every occurrence."""
    text, anchored = exact
    needle = b"\n" + text if anchored else text
    return len(buffer) <= _SAMPLE or buffer.count(needle, 0, _SAMPLE) >= 4


def format_value(value: Any) -> str:
    """A hyperparameter value as a user wrote it: 64 not 64.0, 0.001, true/false, strings as they are."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, sort_keys=True, default=str)


def hparams_line(hparams: dict[str, Any], order: Sequence[str] = ()) -> str:
    """``lr=0.001 batch_size=64 dropout=0.2``: the run's hyperparameters in ``order`` (the order they were written
    in, as the run's hparams experiment lists them: torch's ``add_hparams`` and TF2's ``hp.hparams_config`` write
    one), then any others by name in alphabetical order. The session's own map does not keep the written order
    (protobuf writes map entries in hash order), so alphabetical is the only stable order without an experiment."""
    known = [key for key in dict.fromkeys(order) if key in hparams]
    rest = sorted(key for key in hparams if key not in set(known))
    return " ".join(f"{key}={format_value(hparams[key])}" for key in known + rest)


def metadata_lines(info: dict[str, Any] | None) -> list[str]:
    """``host=...``, ``command=...``, ``git=<commit>``... from what the writer recorded about the run."""
    if not info:
        return []
    lines = []
    for key in ("host", "command", "cwd", "python", "platform"):
        value = info.get(key)
        if isinstance(value, list):
            value = " ".join(str(part) for part in value)
        if value not in (None, ""):
            lines.append(f"{key}={value}")
    git = info.get("git")
    if isinstance(git, dict) and git.get("commit"):
        lines.append(f"git={git['commit']}" + (" dirty" if git.get("dirty") else ""))
    versions = info.get("versions")
    if isinstance(versions, dict) and versions:
        lines.append("versions=" + " ".join(f"{name}={version}" for name, version in sorted(versions.items())))
    return lines


def date_texts(when: float) -> tuple[str, str]:
    """``20241105143000`` and ``2024-11-05T14:30:00``: a wall time in this machine's local time zone."""
    moment = datetime.fromtimestamp(when)
    return moment.strftime("%Y%m%d%H%M%S"), moment.strftime("%Y-%m-%dT%H:%M:%S")


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def text_lines(value: Any) -> list[str]:
    """The non-empty lines of a decoded text value (a string, or a numpy array of strings: a table's cells)."""
    cells = np.asarray(getattr(value, "text", value)).reshape(-1)
    lines: list[str] = []
    for cell in cells.tolist():
        text = cell.decode("utf-8", "replace") if isinstance(cell, bytes) else str(cell)
        lines.extend(_lines(text))
    return lines
