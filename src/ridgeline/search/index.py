"""The search index of a log directory: every field's :class:`~ridgeline.search.fields.FieldIndex`, the run and
tag name tables, and keeping them current from a LogDir as ingest appends.

An entry is (field, run, text, tag, step): a run name, a tag name, a run's hyperparameters as one line
``lr=0.001 batch_size=64``, a run metadata line (``host=...``), a start or end time (``20241105143000`` and
``2024-11-05T14:30:00``), a line of a text summary, an annotation line, a line of the run's notes (its README.md /
README.txt / NOTES.md and ``add_note``), a captured console line with its stream and step (their texts:
:mod:`.entries`). The notes file is read again when the run changed (a README edited while the run is idle is
found after its next change, or the next start). A refresh
reads only what changed: runs whose generation token moved, series whose version grew.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ridgeline.format.console import parse_line
from ridgeline.format.tags import (
    ANNOTATION_TAG,
    CONSOLE_TAG,
    HPARAMS_SESSION_START_TAG,
    NOTES_TAG,
    RIDGELINE_PREFIX,
    RUN_METADATA_PREFIX,
    RUN_METADATA_TAG,
)
from ridgeline.search.entries import date_texts, hparams_line, lines_of, metadata_lines, text_lines
from ridgeline.search.fields import NO_STEP, FieldIndex
from ridgeline.search.patterns import FIELDS
from ridgeline.store.logdir import LogDir, user_tags
from ridgeline.store.provider import RunInfo

__all__ = ["NO_STEP", "FieldIndex", "Index"]


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
    embedded: tuple[object, ...] = ()  # (shape, last step) when the run's embedding tags were last read
    notes_read: tuple[object, ...] | None = None  # (shape, last step, last wall time) when its notes were read


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
        if (shape, info.last_step) != state.embedded:  # embeddings are in the projector config, not in events
            state.embedded = (shape, info.last_step)
            for tag in _embedding_tags(logdir, name):
                if tag not in state.tags:
                    state.tags.add(tag)
                    self.add(state.id, "tag", tag, tag)
        stamp = (shape, info.last_step, info.last_wall_time)
        if stamp != state.notes_read:  # the notes file is not in the events: read when the run changed
            state.notes_read = stamp
            self._index_notes(logdir, name, state)
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
                for line in lines_of(text):
                    self.add(state.id, "annotation", line, None, step)
            state.texts[tag] = len(notes)
        elif tag == NOTES_TAG:
            self._index_notes(logdir, name, state)
        elif tag == CONSOLE_TAG:
            entries = logdir.text(name, tag)
            for entry in entries[state.texts.get(tag, 0) :]:
                for printed in text_lines(entry.value):
                    console = parse_line(printed)
                    if console is not None:
                        self.add(state.id, "log", console.text, console.stream, console.step)
            state.texts[tag] = len(entries)
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

    def _index_notes(self, logdir: LogDir, name: str, state: _RunState) -> None:
        """The run's notes (file and add_note), one entry per non-empty line, replacing the ones indexed before."""
        try:
            notes = logdir.notes(name)
        except (KeyError, ValueError, OSError):
            notes = []
        lines = [line for note in notes for line in lines_of(note)]
        self._replace(state, "note", [("note", line, None, None) for line in lines])

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


def _embedding_tags(logdir: LogDir, run: str) -> list[str]:
    """The tags of the run's embeddings (none when its projector config cannot be read: the projector says why)."""
    try:
        return sorted({ref.tag for ref in logdir.embeddings(run)})
    except (KeyError, ValueError):
        return []
