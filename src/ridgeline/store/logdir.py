"""The reading API over any backend: a log directory as numpy arrays, typed payloads (and pandas, if installed).

``LogDir`` wraps a :class:`~ridgeline.store.provider.Provider` and adds what every reader wants on top of it,
the same for every backend: bookkeeping tags hidden from the tag listing and offered through their own typed
methods (graphs, hyperparameters, custom scalars layouts, run metadata, annotations), decoded values cached
within a memory budget, per-record summaries remembered, regex selection of series and a pandas frame. It is
itself a Provider (it delegates the protocol), so services, plugins and the server take a LogDir and read
nothing else.

    import ridgeline
    logdir = ridgeline.open("runs")
    s = logdir.scalars("exp1", "loss/train")      # s.step, s.wall_time, s.value
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, cast, overload

import numpy as np

from ridgeline.format.console import ConsoleLine, parse_line
from ridgeline.format.run_metadata import parse
from ridgeline.format.tags import (
    ANNOTATION_TAG,
    CONSOLE_TAG,
    CUSTOM_SCALARS_TAG,
    GRAPH_TAG,
    HPARAMS_EXPERIMENT_TAG,
    HPARAMS_SESSION_END_TAG,
    HPARAMS_SESSION_START_TAG,
    INTERNAL_TAG,
    NOTES_TAG,
    RUN_METADATA_TAG,
)
from ridgeline.store.base import BlobRef, Kind, Problem
from ridgeline.store.blobs import ValueCache
from ridgeline.store.embeddings import EmbeddingRef
from ridgeline.store.lod import IndexedScalars
from ridgeline.store.payloads import (
    Audio,
    ConfusionMatrix,
    CustomScalarsLayout,
    DecodedPayload,
    DecodeError,
    Graph,
    Histogram,
    HParams,
    Images,
    Mesh,
    PrCurve,
    Tensor,
    Text,
)
from ridgeline.store.provider import Provider, RunInfo, Scalars, StoredEntry, UnknownSeries, Version
from ridgeline.store.selection import Matcher, PatternError, compile_pattern
from ridgeline.store.status import CRASHED_AFTER_S, RunStatus, run_status

if TYPE_CHECKING:
    from pathlib import Path

    import pandas


T = TypeVar("T")
P = TypeVar("P")


@dataclass(frozen=True, slots=True)
class Entry(Generic[P]):
    """One non-scalar value at a step; ``value`` is decoded when first read (and cached)."""

    step: int
    wall_time: float
    _logdir: LogDir
    _run: str
    _kind: Kind
    _tag: str
    _ref: BlobRef

    @property
    def value(self) -> P:
        return cast(P, self._logdir._decode(self._run, self._kind, self._tag, self._ref))

    @property
    def key(self) -> str:
        """A short id of the stored record behind this value: it changes when the value at this step is
        rewritten (a restart), so it can name the value in URLs, ETags and caches."""
        ref = self._ref
        name = f"{ref.path}\0{ref.offset}\0{ref.length}\0{ref.value_index}".encode()
        return hashlib.blake2b(name, digest_size=8).hexdigest()

    def describe(self, summary: Callable[[P], T]) -> T:
        """``summary(self.value)``, remembered per stored record (say an image's size and count): the next
        listing reads no file, and the decoded value itself is not kept. A DecodeError is remembered too."""
        return self._logdir._describe(self, summary)


class LogDir:
    """One or several log directories behind ``provider``; ``reload()`` picks up what was appended since."""

    def __init__(self, provider: Provider, *, cache_bytes: int = 256 << 20, cache_dir: Path | None = None) -> None:
        self._provider = provider
        self._values = ValueCache(max_bytes=cache_bytes)
        self._summaries: dict[tuple[BlobRef, Callable[[Any], Any]], Any] = {}
        self._cache_dir = cache_dir

    @property
    def provider(self) -> Provider:
        """The backend this LogDir reads."""
        return self._provider

    @property
    def cache_dir(self) -> Path | None:
        """The persistent cache directory this LogDir was opened with, where what is derived from the log
        directory (parsed profiler traces) is kept; None when it was opened without a cache (``--no-cache``)."""
        return self._cache_dir

    # --- the protocol, delegated ------------------------------------------------------------------------------
    @property
    def generation(self) -> int:
        """Moves whenever an ingest pass changed anything (see :mod:`ridgeline.store.provider`)."""
        return self._provider.generation

    @property
    def label(self) -> str:
        """The log directories as given: ``path``, or ``name:path,...`` for several."""
        return self._provider.label

    def runs(self) -> list[str]:
        return self._provider.runs()

    def run_info(self, run: str) -> RunInfo:
        """Tags per kind (bookkeeping included), first/last wall time, last step, annotation count, epoch."""
        return self._provider.run_info(run)

    def version(self, run: str, kind: Kind, tag: str) -> Version:
        """A series' change token: equal tokens, identical data."""
        return self._provider.version(run, kind, tag)

    def problems(self) -> list[Problem]:
        """Everything that could not be read: corrupt records (with file and byte offset), unreadable files."""
        return self._provider.problems()

    def reload(self) -> None:
        """Read what was appended to the log directories since the last read."""
        self._provider.reload()

    def start(self, interval: float) -> None:
        """Re-read the log directories every ``interval`` seconds in the background (the server's lifespan)."""
        self._provider.start(interval)

    def stop(self) -> None:
        self._provider.stop()

    def entries(self, run: str, kind: Kind, tag: str) -> list[StoredEntry]:
        return self._provider.entries(run, kind, tag)

    def read_value(self, run: str, kind: Kind, tag: str, ref: BlobRef) -> DecodedPayload:
        return self._decode(run, kind, tag, ref)

    # --- listing ----------------------------------------------------------------------------------------------
    def tags(self, run: str) -> dict[str, list[str]]:
        """The run's tags per kind (scalars, histograms, images, audio, text, tensors, pr_curves, ...), without
        the bookkeeping tags (run metadata, annotations, hparams records, graphs: see their own methods)."""
        return user_tags(self._provider.run_info(run))

    def all_tags(self, run: str, kind: Kind) -> list[str]:
        """Every tag of one kind, bookkeeping tags included."""
        return list(self._provider.run_info(run).tags.get(kind, ()))

    # --- scalars ------------------------------------------------------------------------------------------------
    def scalars(self, run: str, tag: str, *, all_points: bool = False) -> Scalars:
        """The series as TensorBoard shows it: after a restart, the superseded points are hidden (see
        docs/restarts.md). ``all_points=True`` returns every point ever read, in file order."""
        return self._provider.scalars(run, tag, all_points=all_points)

    def indexed_scalars(self, run: str, tag: str) -> IndexedScalars | None:
        """The series with its level-of-detail index (:class:`~ridgeline.store.lod.IndexedScalars`), when the
        backend keeps one for it (the on-disk store, for a long series whose every point is visible); None
        otherwise: read :meth:`scalars`. Not part of the Provider protocol: a backend may offer it."""
        offered = getattr(self._provider, "indexed_scalars", None)
        return offered(run, tag) if offered is not None else None  # type: ignore[no-any-return]

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

    def select_scalars(self, run: str = "", tag: str = "") -> list[tuple[str, str]]:
        """(run, tag) of every scalar series whose run and tag match the regular expressions (``search``)."""
        return list(self._matching(run, tag, "scalars"))

    # --- everything else --------------------------------------------------------------------------------------
    def histograms(self, run: str, tag: str) -> list[Entry[Histogram]]:
        return self._entries(run, "histograms", tag)

    def images(self, run: str, tag: str) -> list[Entry[Images]]:
        return self._entries(run, "images", tag)

    def audio(self, run: str, tag: str) -> list[Entry[Audio]]:
        return self._entries(run, "audio", tag)

    def text(self, run: str, tag: str) -> list[Entry[Text]]:
        return self._entries(run, "text", tag)

    def tensors(self, run: str, tag: str) -> list[Entry[Tensor]]:
        return self._entries(run, "tensors", tag)

    def pr_curves(self, run: str, tag: str) -> list[Entry[PrCurve]]:
        return self._entries(run, "pr_curves", tag)

    def meshes(self, run: str, tag: str) -> list[Entry[Mesh]]:
        return self._entries(run, "meshes", tag)

    def confusion_matrices(self, run: str, tag: str) -> list[Entry[ConfusionMatrix]]:
        """What ``add_confusion_matrix`` wrote: per step, the counts (rows: true class) and the class names."""
        return self._entries(run, "confusion_matrices", tag)

    def graph(self, run: str) -> Graph | None:
        """The run's graph, or None when none was written: a :class:`~ridgeline.store.payloads.Graph` whose
        ``data`` is the serialized GraphDef (``format`` "graph_def")."""
        return self._last(run, "graphs", GRAPH_TAG)

    def graphs(self, run: str, tag: str) -> list[Entry[Graph]]:
        """Every record of one graph tag (``__graph__``, ``__meta_graph__``, ``__run_metadata__/<tag>``, a Keras
        model's tag, ...): values are :class:`~ridgeline.store.payloads.Graph`. ``graph_tags(run)`` lists them."""
        return self._entries(run, "graphs", tag)

    def graph_tags(self, run: str) -> list[str]:
        """The run's graph tags, bookkeeping names included (``tags()`` hides ``__graph__``)."""
        return self.all_tags(run, "graphs")

    def embeddings(self, run: str) -> list[EmbeddingRef]:
        """The run's embeddings for the projector (what add_embedding wrote), read lazily."""
        return self._provider.embeddings(run)

    def notes_file(self, run: str) -> str | None:
        """The text of the run's README.md, README.txt or NOTES.md as it is now, or None (``notes`` has all)."""
        return self._provider.notes_file(run)

    def run_directory(self, run: str) -> str:
        """The run's directory, a local path or a URL (files written beside its event files, e.g. profiler traces)."""
        return self._provider.run_directory(run)

    def last_modified(self, run: str) -> float | None:
        """When the run's event files were last modified, as the file system says now (None: it cannot say)."""
        return self._provider.last_modified(run)

    def status(self, run: str, *, crashed_after: float = CRASHED_AFTER_S, now: float | None = None) -> RunStatus:
        """How the run stands: running, finished, failed, crashed or stopped (:mod:`ridgeline.store.status`)."""
        return run_status(self._provider, run, crashed_after=crashed_after, now=now)

    def hparams(self, run: str) -> HParams | None:
        """The run's hyperparameters and session status, or None (see :class:`~ridgeline.store.payloads.HParams`)."""
        return self._last(run, "hparams", HPARAMS_SESSION_START_TAG)

    def hparams_experiment(self, run: str) -> HParams | None:
        """The experiment summary written in the run (declared hparams with their types and domains, metrics), or
        None. torch's ``add_hparams`` writes one per trial; TF2's ``hp.hparams_config`` one at its log dir."""
        return self._last(run, "hparams", HPARAMS_EXPERIMENT_TAG)

    def hparams_session_end(self, run: str) -> HParams | None:
        """The run's session end (``status``, ``end_time_secs``), or None when none was written."""
        return self._last(run, "hparams", HPARAMS_SESSION_END_TAG)

    def custom_scalars(self, run: str) -> CustomScalarsLayout | None:
        """The run's custom scalars layout, or None."""
        return self._last(run, "custom_scalars", CUSTOM_SCALARS_TAG)

    def run_metadata(self, run: str) -> dict[str, Any] | None:
        """What the writer recorded about the run (host, command, git commit, versions), or None."""
        entries: list[Entry[Text]] = self._entries(run, "text", RUN_METADATA_TAG, missing_ok=True)
        return parse(_first_text(entries[0].value)) if entries else None

    def annotations(self, run: str) -> list[tuple[int, str]]:
        """(step, text) of every annotation of the run, in step order."""
        return [(step, text) for step, _, text in self.annotations_with_time(run)]

    def annotations_with_time(self, run: str) -> list[tuple[int, float, str]]:
        """(step, wall_time, text) of every annotation of the run, in step order."""
        entries: list[Entry[Text]] = self._entries(run, "text", ANNOTATION_TAG, missing_ok=True)
        return sorted((entry.step, entry.wall_time, _first_text(entry.value)) for entry in entries)

    def notes(self, run: str) -> list[str]:
        """The run's notes, Markdown: its README.md / README.txt / NOTES.md first (as the file is now), then every
        ``add_note``, in the order written."""
        from_file = self.notes_file(run)
        entries: list[Entry[Text]] = self._entries(run, "text", NOTES_TAG, missing_ok=True)
        # each record holds every note of its writer so far: the last one is all of them
        written = [str(t) for t in np.asarray(entries[-1].value.text).reshape(-1).tolist()] if entries else []
        return ([from_file] if from_file is not None else []) + written

    def console(self, run: str) -> list[ConsoleLine]:
        """The stdout/stderr lines the run captured (``SummaryWriter(capture_console=True)``), in the order
        printed: each with its wall time, stream, step (None when none was written yet) and text."""
        entries: list[Entry[Text]] = self._entries(run, "text", CONSOLE_TAG, missing_ok=True)
        lines = []
        for entry in entries:
            for text in np.asarray(entry.value.text).reshape(-1).tolist():
                line = parse_line(str(text))
                if line is not None:
                    lines.append(line)
        return sorted(lines, key=lambda line: line.wall_time)

    def traceback(self, run: str) -> str | None:
        """The last Python traceback the run printed on stderr (what ended a crashed run), or None."""
        lines = [line.text for line in self.console(run) if line.stream == "stderr"]
        starts = [i for i, text in enumerate(lines) if text.startswith("Traceback (most recent call last)")]
        if not starts:
            return None
        block = lines[starts[-1] :]
        end = next((i + 1 for i, text in enumerate(block) if i and text and not text[0].isspace()), len(block))
        return "\n".join(block[:end])

    # --- internals --------------------------------------------------------------------------------------------
    @overload
    def _entries(self, run: str, kind: Kind, tag: str) -> list[Entry[Any]]: ...
    @overload
    def _entries(self, run: str, kind: Kind, tag: str, *, missing_ok: Literal[True]) -> list[Entry[Any]]: ...
    def _entries(self, run: str, kind: Kind, tag: str, *, missing_ok: bool = False) -> list[Entry[Any]]:
        try:
            stored = self._provider.entries(run, kind, tag)
        except UnknownSeries:
            if missing_ok:
                return []
            raise
        return [Entry(item.step, item.wall_time, self, run, kind, tag, item.ref) for item in stored]

    def _last(self, run: str, kind: Kind, tag: str) -> Any:
        entries = self._entries(run, kind, tag, missing_ok=True)
        return entries[-1].value if entries else None

    def _decode(self, run: str, kind: Kind, tag: str, ref: BlobRef) -> Any:
        return self._values.get(ref, lambda ref: self._provider.read_value(run, kind, tag, ref))

    def _describe(self, entry: Entry[Any], summary: Callable[[Any], T]) -> T:
        key = (entry._ref, summary)
        known = self._summaries.get(key)
        if known is None:
            try:
                known = summary(self._provider.read_value(entry._run, entry._kind, entry._tag, entry._ref))
            except DecodeError as error:
                known = error
            self._summaries[key] = known
        if isinstance(known, DecodeError):
            raise known
        result: T = known
        return result

    def _matching(self, run_pattern: str, tag_pattern: str, kind: str) -> Iterator[tuple[str, str]]:
        runs = _compile(run_pattern, "run")
        tags = _compile(tag_pattern, "tag")
        for run in self.runs():
            if runs.search(run):
                for tag in self.tags(run).get(kind, []):
                    if tags.search(tag):
                        yield run, tag


def user_tags(info: RunInfo) -> dict[str, list[str]]:
    """A run's tags per kind without the bookkeeping tags (what ``LogDir.tags`` answers)."""
    tags = {kind: [tag for tag in names if not INTERNAL_TAG.match(tag)] for kind, names in info.tags.items()}
    return {kind: names for kind, names in tags.items() if names}


def _compile(pattern: str, what: str) -> Matcher:
    try:
        return compile_pattern(pattern)
    except PatternError as error:
        raise ValueError(f"{what} pattern {pattern!r} is not a valid regular expression: {error}") from None


def _first_text(value: Any) -> str:
    """The first string of a decoded text value (a numpy array of str, or a str)."""
    array = np.asarray(getattr(value, "text", value))
    return str(array.reshape(-1)[0]) if array.size else ""
