"""The reading API: a log directory as numpy arrays (and pandas, if installed).

import ridgeline
logdir = ridgeline.open("runs")
s = logdir.scalars("exp1", "loss/train")      # s.step, s.wall_time, s.value
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ridgeline.ingest.decode import decode_value
from ridgeline.ingest.discovery import sources_from
from ridgeline.ingest.loop import Ingestor, RunState
from ridgeline.ingest.projector import EmbeddingRef, read_projector
from ridgeline.ingest.values import DecodeError
from ridgeline.store.base import BlobRef, Kind, Problem
from ridgeline.store.blobs import ValueCache
from ridgeline.store.cache import Cache
from ridgeline.store.run import RunData
from ridgeline.writer.run_metadata import ANNOTATION_TAG, RUN_METADATA_TAG, parse

if TYPE_CHECKING:
    import pandas

T = TypeVar("T")

# Tags that carry ridgeline's or TensorBoard's own bookkeeping: reachable through their own methods. The custom
# scalars layout's tag stays listed (kind "custom_scalars"): it tells a page which runs have a layout.
_INTERNAL_TAG = re.compile(r"^(_ridgeline/|_hparams_/|__graph__$|__run_metadata__/)")


@dataclass(frozen=True, slots=True)
class Scalars:
    """One scalar series: three numpy arrays of equal length, in step order (or file order with all_points)."""

    step: np.ndarray
    wall_time: np.ndarray
    value: np.ndarray

    def __len__(self) -> int:
        return len(self.step)


@dataclass(frozen=True, slots=True)
class Entry:
    """One non-scalar value at a step; ``value`` is decoded when first read (and cached)."""

    step: int
    wall_time: float
    _logdir: LogDir
    _run: str
    _kind: Kind
    _tag: str
    _ref: BlobRef

    @property
    def value(self) -> Any:
        return self._logdir._decode(self._run, self._kind, self._tag, self._ref)

    @property
    def key(self) -> str:
        """A short id of the stored record behind this value: it changes when the value at this step is
        rewritten (a restart), so it can name the value in URLs, ETags and caches."""
        ref = self._ref
        name = f"{ref.path}\0{ref.offset}\0{ref.length}\0{ref.value_index}".encode()
        return hashlib.blake2b(name, digest_size=8).hexdigest()

    def describe(self, summary: Callable[[Any], T]) -> T:
        """``summary(self.value)``, remembered per stored record (say an image's size and count): the next
        listing reads no file, and the decoded value itself is not kept. A DecodeError is remembered too."""
        return self._logdir._describe(self, summary)


class LogDir:
    """One or several log directories, read completely; ``reload()`` picks up what was appended since."""

    def __init__(self, ingestor: Ingestor, *, cache_bytes: int = 256 << 20) -> None:
        self._ingestor = ingestor
        self._values = ValueCache(max_bytes=cache_bytes)
        self._summaries: dict[tuple[BlobRef, Callable[[Any], Any]], Any] = {}

    @property
    def ingestor(self) -> Ingestor:
        """The ingestor behind this LogDir (the server starts and stops its background reload loop)."""
        return self._ingestor

    # --- listing --------------------------------------------------------------------------------------------
    def runs(self) -> list[str]:
        return sorted(self._ingestor.store.runs)

    def tags(self, run: str) -> dict[str, list[str]]:
        """The run's tags per kind (scalars, histograms, images, audio, text, tensors, pr_curves, ...)."""
        tags = {
            kind: [tag for tag in names if not _INTERNAL_TAG.match(tag)]
            for kind, names in self._run(run).tags().items()
        }
        return {kind: names for kind, names in tags.items() if names}

    def problems(self) -> list[Problem]:
        """Everything that could not be read: corrupt records (with file and byte offset), unreadable files."""
        return self._ingestor.store.problems()

    def reload(self) -> None:
        """Read what was appended to the log directories since the last read."""
        self._ingestor.reload()

    # --- scalars ------------------------------------------------------------------------------------------------
    def scalars(self, run: str, tag: str, *, all_points: bool = False) -> Scalars:
        """The series as TensorBoard shows it: after a restart, the superseded points are hidden (see
        docs/restarts.md). ``all_points=True`` returns every point ever read, in file order."""
        data = self._run(run)
        series = data.scalars.get(tag)
        if series is None:
            raise KeyError(f"run {run!r} has no scalar tag {tag!r}; it has: {sorted(data.scalars)}")
        snapshot = series.snapshot()
        if all_points:
            return Scalars(snapshot.step, snapshot.wall_time, snapshot.value)
        keep = snapshot.visible()
        if keep.all():  # the usual case: the snapshot's own read-only views, no copy
            return Scalars(snapshot.step, snapshot.wall_time, snapshot.value)
        return Scalars(snapshot.step[keep], snapshot.wall_time[keep], snapshot.value[keep])

    def scalars_frame(self, run: str = "", tag: str = "", *, all_points: bool = False) -> pandas.DataFrame:
        """Every scalar of the runs and tags matching the regular expressions, as one long DataFrame."""
        import pandas

        frames = []
        for run_name, tag_name in self.select_scalars(run, tag):
            series = self.scalars(run_name, tag_name, all_points=all_points)
            frames.append(
                pandas.DataFrame(
                    {
                        "run": run_name,
                        "tag": tag_name,
                        "step": series.step,
                        "wall_time": series.wall_time,
                        "value": series.value,
                    }
                )
            )
        columns = ["run", "tag", "step", "wall_time", "value"]
        return pandas.concat(frames, ignore_index=True) if frames else pandas.DataFrame(columns=columns)

    # --- everything else --------------------------------------------------------------------------------------
    def histograms(self, run: str, tag: str) -> list[Entry]:
        return self._entries(run, "histograms", tag)

    def images(self, run: str, tag: str) -> list[Entry]:
        return self._entries(run, "images", tag)

    def audio(self, run: str, tag: str) -> list[Entry]:
        return self._entries(run, "audio", tag)

    def text(self, run: str, tag: str) -> list[Entry]:
        return self._entries(run, "text", tag)

    def tensors(self, run: str, tag: str) -> list[Entry]:
        return self._entries(run, "tensors", tag)

    def pr_curves(self, run: str, tag: str) -> list[Entry]:
        return self._entries(run, "pr_curves", tag)

    def meshes(self, run: str, tag: str) -> list[Entry]:
        return self._entries(run, "meshes", tag)

    def graph(self, run: str) -> Any:
        """The run's graph, or None when none was written: a ``ridgeline.ingest.values.Graph`` whose ``data`` is
        the serialized GraphDef (``format`` "graph_def")."""
        entries = self._entries(run, "graphs", "__graph__", missing_ok=True)
        return entries[-1].value if entries else None

    def graphs(self, run: str, tag: str) -> list[Entry]:
        """Every record of one graph tag (``__graph__``, ``__meta_graph__``, ``__run_metadata__/<tag>``, a Keras
        model's tag, ...): values are ``ridgeline.ingest.values.Graph``. ``graph_tags(run)`` lists the tags."""
        return self._entries(run, "graphs", tag)

    def graph_tags(self, run: str) -> list[str]:
        """The run's graph tags, bookkeeping names included (``tags()`` hides ``__graph__``)."""
        return sorted(tag for kind, tag in list(self._run(run).blobs) if kind == "graphs")

    def embeddings(self, run: str) -> list[EmbeddingRef]:
        """The run's embeddings for the projector (what add_embedding wrote), read lazily."""
        self._run(run)
        state = self._ingestor.states[run]
        return read_projector(self._ingestor.directories[run], state.fs.open_binary)

    def hparams(self, run: str) -> Any:
        """The run's hyperparameters and session status, or None (see ``ridgeline.ingest.values.HParams``)."""
        entries = self._entries(run, "hparams", "_hparams_/session_start_info", missing_ok=True)
        return entries[-1].value if entries else None

    def hparams_experiment(self, run: str) -> Any:
        """The experiment summary written in the run (declared hparams with their types and domains, metrics), or
        None. torch's ``add_hparams`` writes one per trial; TF2's ``hp.hparams_config`` one at its log dir."""
        entries = self._entries(run, "hparams", "_hparams_/experiment", missing_ok=True)
        return entries[-1].value if entries else None

    def hparams_session_end(self, run: str) -> Any:
        """The run's session end (``status``, ``end_time_secs``), or None when none was written."""
        entries = self._entries(run, "hparams", "_hparams_/session_end_info", missing_ok=True)
        return entries[-1].value if entries else None

    def custom_scalars(self, run: str) -> Any:
        entries = self._entries(run, "custom_scalars", "custom_scalars__config__", missing_ok=True)
        return entries[-1].value if entries else None

    def run_metadata(self, run: str) -> dict[str, Any] | None:
        """What the writer recorded about the run (host, command, git commit, versions), or None."""
        entries = self._entries(run, "text", RUN_METADATA_TAG, missing_ok=True)
        return parse(_first_text(entries[0].value)) if entries else None

    def annotations(self, run: str) -> list[tuple[int, str]]:
        """(step, text) of every annotation of the run, in step order."""
        return [(step, text) for step, _, text in self.annotations_with_time(run)]

    def annotations_with_time(self, run: str) -> list[tuple[int, float, str]]:
        """(step, wall_time, text) of every annotation of the run, in step order."""
        entries = self._entries(run, "text", ANNOTATION_TAG, missing_ok=True)
        return sorted((entry.step, entry.wall_time, _first_text(entry.value)) for entry in entries)

    # --- internals --------------------------------------------------------------------------------------------
    def _run(self, run: str) -> RunData:
        data = self._ingestor.store.runs.get(run)
        if data is None:
            raise KeyError(f"no run {run!r}; runs: {self.runs()}")
        return data

    def _entries(self, run: str, kind: Kind, tag: str, *, missing_ok: bool = False) -> list[Entry]:
        data = self._run(run)
        series = data.blobs.get((kind, tag))
        if series is None:
            if missing_ok:
                return []
            known = sorted(t for k, t in list(data.blobs) if k == kind)
            raise KeyError(f"run {run!r} has no {kind} tag {tag!r}; it has: {known}")
        refs = series.snapshot()
        keep = refs.visible()
        return [
            Entry(ref.step, ref.wall_time, self, run, kind, tag, ref)
            for ref, shown in zip(refs, keep.tolist(), strict=True)
            if shown
        ]

    def _decode(self, run: str, kind: Kind, tag: str, ref: BlobRef) -> Any:
        return self._values.get(ref, lambda ref: self._load(run, kind, tag, ref))

    def _load(self, run: str, kind: Kind, tag: str, ref: BlobRef) -> Any:
        state: RunState = self._ingestor.states[run]
        data = state.fs.read(ref.path, ref.offset, ref.length)
        return decode_value(kind, data, ref.value_index, state.decoder.metadata(tag))

    def _describe(self, entry: Entry, summary: Callable[[Any], T]) -> T:
        key = (entry._ref, summary)
        known = self._summaries.get(key)
        if known is None:
            try:
                known = summary(self._load(entry._run, entry._kind, entry._tag, entry._ref))
            except DecodeError as error:
                known = error
            self._summaries[key] = known
        if isinstance(known, DecodeError):
            raise known
        result: T = known
        return result

    def select_scalars(self, run: str = "", tag: str = "") -> list[tuple[str, str]]:
        """(run, tag) of every scalar series whose run and tag match the regular expressions (``search``)."""
        return list(self._matching(run, tag, "scalars"))

    def _matching(self, run_pattern: str, tag_pattern: str, kind: str) -> Iterator[tuple[str, str]]:
        runs = _compile(run_pattern, "run")
        tags = _compile(tag_pattern, "tag")
        for run in self.runs():
            if runs.search(run):
                for tag in self.tags(run).get(kind, []):
                    if tags.search(tag):
                        yield run, tag


def _compile(pattern: str, what: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as error:
        raise ValueError(f"{what} pattern {pattern!r} is not a valid regular expression: {error}") from error


def _first_text(value: Any) -> str:
    """The first string of a decoded text value (a numpy array of str, or a str)."""
    array = np.asarray(getattr(value, "text", value))
    return str(array.reshape(-1)[0]) if array.size else ""


def open(
    logdir: str | os.PathLike[str] | list[str],
    *,
    cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    check_crc: bool = True,
    parallel: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> LogDir:
    """Read a log directory (or several: a list, ``a,b``, or ``name:path`` entries; local paths or fsspec URLs).

    Everything is read before this returns; ``LogDir.reload()`` reads what was appended since. With ``cache``
    (the default) what was read is kept in a cache outside the log directory (``cache_dir``, default
    ``~/.cache/ridgeline``), so the next open reads only what changed. ``check_crc=False`` skips the data
    checksums (lengths are still checked). ``progress(done, total)`` is called as event files are read (the
    CLI's progress bars). Raises ``LogDirError`` (a ValueError) naming the path when a log directory does not
    exist or is not a directory.
    """
    store_cache = Cache(cache_dir) if cache else None
    ingestor = Ingestor(sources_from(logdir), check_crc=check_crc, parallel=parallel, cache=store_cache)
    restored, stats = ingestor.load(progress)
    if store_cache is not None and (stats.records or not restored):
        ingestor.persist()
    return LogDir(ingestor)
