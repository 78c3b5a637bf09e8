"""``SummaryWriter``: the surface of ``torch.utils.tensorboard.SummaryWriter``, asynchronous and lossless.

Every method takes the same arguments as torch's and writes the same summaries, so swapping the import is
enough. Beyond torch: run metadata, ``hparams=``, ``add_annotation``, per-rank directories under torchrun,
a bounded queue that blocks instead of dropping, and errors that name the argument at fault.
"""

from __future__ import annotations

import atexit
import os
import socket
import sys
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from ridgeline.format.proto import event_pb2, graph_pb2, hparams_pb2, summary_pb2
from ridgeline.format.tags import CONSOLE_TAG, NOTES_TAG, SYNC_TAG
from ridgeline.writer import console, distributed, signals, summaries
from ridgeline.writer.event_file import COMPRESSIONS, EventFileWriter
from ridgeline.writer.run_metadata import metadata_step, run_end_summary, run_metadata_summary
from ridgeline.writer.summary_methods import SummaryMethods
from ridgeline.writer.values import INT64_MAX, INT64_MIN, check_tag, to_float, to_step


def _rank_from_environment() -> int | None:
    """torchrun (and torch.distributed.launch) set RANK and WORLD_SIZE for every process."""
    rank, world_size = os.environ.get("RANK"), os.environ.get("WORLD_SIZE")
    if rank is None or world_size is None:
        return None
    try:
        return int(rank)
    except ValueError:
        return None


def _default_log_dir(comment: str) -> str:
    """torch's default: runs/<Mon>DD_HH-MM-SS_<host><comment>."""
    return os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_" + socket.gethostname() + comment)


class SummaryWriter(SummaryMethods):
    """Writes tfevents files that TensorBoard and ridgeline read, from a background thread.

    Histograms, media, text, curves and layout calls come from :class:`SummaryMethods`.

    Args:
        log_dir: the run's directory. Default ``runs/<date>_<host><comment>``, as torch.
        comment: suffix of the default log_dir; ignored when log_dir is given.
        purge_step: when a crashed run restarts at step T, events at steps >= T written before are hidden.
        max_queue: pending events after which the background thread writes them out.
        flush_secs: pending events are written at least this often (seconds).
        filename_suffix: appended to every event file name.
        hparams: hyperparameters of this run, recorded for the hparams dashboard (like add_hparams, but on
            the run itself rather than a sub-run).
        rank: the distributed rank; with ``per_rank`` the run writes to ``log_dir/rank{rank}``. Default: the
            ``RANK`` environment variable when ``RANK`` and ``WORLD_SIZE`` are set (torchrun).
        per_rank: set False to have every rank write into log_dir itself.
        record_run_metadata: record host, command line, git commit, versions once at creation.
        flush_on_signals: the first writer installs handlers that flush every writer on SIGTERM, SIGINT and
            SIGHUP, then do what the signal would have done (see ``ridgeline.writer.signals``); False opts out.
        capture_console: tee this process's stdout and stderr lines into the run (with their time and the
            current step), batched, until close (see ``ridgeline.writer.console``).
        system_metrics: sample CPU, memory, disk, network and NVIDIA GPU figures into ``sys/...`` tags from a
            background thread (``ridgeline.writer.system_metrics``); True samples every 10 s, a number every that
            many seconds.
        compression: None (plain tfevents files), or ``"gzip"``: event file names end ``.gz`` and every write is a
            complete gzip member (nothing flushed is lost to a SIGKILL). ridgeline reads them; TensorBoard
            cannot (see docs/writer.md).
    """

    def __init__(
        self,
        log_dir: str | os.PathLike[str] | None = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: float = 120,
        filename_suffix: str = "",
        *,
        hparams: Mapping[str, Any] | None = None,
        rank: int | None = None,
        per_rank: bool = True,
        record_run_metadata: bool = True,
        flush_on_signals: bool = True,
        capture_console: bool = False,
        system_metrics: bool | float = False,
        compression: str | None = None,
    ) -> None:
        if log_dir is not None and not isinstance(log_dir, str | os.PathLike):
            raise TypeError(f"SummaryWriter: log_dir must be a path (str or os.PathLike), got {type(log_dir).__name__}")
        if not isinstance(comment, str):
            raise TypeError(f"SummaryWriter: comment must be a string, got {type(comment).__name__}")
        if not isinstance(filename_suffix, str):
            raise TypeError(f"SummaryWriter: filename_suffix must be a string, got {type(filename_suffix).__name__}")
        if isinstance(max_queue, bool) or not isinstance(max_queue, int) or max_queue < 1:
            raise ValueError(f"SummaryWriter: max_queue must be a positive integer, got {max_queue!r}")
        if isinstance(flush_secs, bool) or not isinstance(flush_secs, int | float) or not flush_secs > 0:
            raise ValueError(f"SummaryWriter: flush_secs must be a positive number of seconds, got {flush_secs!r}")
        if compression not in COMPRESSIONS:
            raise ValueError(f"SummaryWriter: compression must be None or 'gzip', got {compression!r}")
        log_dir = os.fspath(log_dir) if log_dir else _default_log_dir(comment)
        if "://" in log_dir:
            raise ValueError(
                f"SummaryWriter: log_dir must be a local path; URLs are not supported yet, got {log_dir!r}"
            )
        if rank is None and per_rank:
            rank = _rank_from_environment()
        if rank is not None and per_rank:
            rank = to_step(rank, method="SummaryWriter", argument="rank")
            if rank < 0:
                raise ValueError(f"SummaryWriter: rank must be >= 0, got {rank}")
            log_dir = os.path.join(log_dir, f"rank{rank}")
        self.log_dir = log_dir
        self.purge_step = (
            None if purge_step is None else to_step(purge_step, method="SummaryWriter", argument="purge_step")
        )
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.compression = compression
        self._sub_writers: dict[str, EventFileWriter] = {}
        # Checked before anything is written; the session stays open until close() or exit records its end.
        session_start = None if hparams is None else summaries.session_start(hparams, start_time_secs=time.time())
        self._session_open = session_start is not None
        self._failure: BaseException | str | None = None  # what made the run fail, recorded by its end record
        self.file_writer: EventFileWriter | None = None
        self._get_file_writer()
        if record_run_metadata:
            self._write_summary("SummaryWriter", run_metadata_summary(rank=rank), metadata_step(), None)
        if session_start is not None:
            self._write_summary("SummaryWriter", session_start, None, None)
        _open_writers.add(self)
        if flush_on_signals:
            signals.install(_flush_all_writers)
        self._step: int | None = None  # the last step written: console lines carry it
        self._notes: list[str] = []
        self._console: console.ConsoleCapture | None = None
        if capture_console:
            self._console = console.ConsoleCapture(self._write_console, lambda: self._step)
        self._system_metrics: Any = None
        if system_metrics is not False:
            from ridgeline.writer.system_metrics import DEFAULT_INTERVAL_S, SystemMetrics

            interval = DEFAULT_INTERVAL_S if system_metrics is True else system_metrics
            self._system_metrics = SystemMetrics(self, interval, method="SummaryWriter", argument="system_metrics")

    # --- files -----------------------------------------------------------------------------------------------
    def _get_file_writer(self) -> EventFileWriter:
        """The run's event file; a writer used again after close() starts a new file, as torch's does."""
        if self.file_writer is None:
            self.file_writer = EventFileWriter(
                self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix, self.compression
            )
            if self.purge_step is not None:
                # TensorBoard hides events at steps >= purge_step that precede this SessionLog START.
                self.file_writer.add_event(event_pb2.Event(file_version="brain.Event:2"), self.purge_step)
                restart = event_pb2.Event(session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.START))
                self.file_writer.add_event(restart, self.purge_step)
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        """The directory event files are written to."""
        return self.log_dir

    def _write_summary(
        self,
        method: str,
        summary: summary_pb2.Summary,
        global_step: Any,
        walltime: float | None,
        writer: EventFileWriter | None = None,
    ) -> None:
        """Queue ``summary`` at ``global_step``; ``method`` names the public call in errors."""
        step = None if global_step is None else to_step(global_step, method=method)
        if step is not None:
            self._step = step
        (writer or self._get_file_writer()).add_event(event_pb2.Event(summary=summary), step, walltime)

    # --- scalars -------------------------------------------------------------------------------------------
    def add_scalar(
        self,
        tag: str,
        scalar_value: Any,
        global_step: Any = None,
        walltime: float | None = None,
        new_style: bool = False,
        double_precision: bool = False,
    ) -> None:
        """Record one number. NaN and ±Inf are written as they are.

        ``simple_value`` is a float32, as in torch; ``new_style=True`` writes a tensor summary instead, and
        with ``double_precision=True`` keeps all 64 bits.
        """
        if type(tag) is not str or not tag:
            check_tag(tag, method="add_scalar")
        value = (
            scalar_value
            if type(scalar_value) is float
            else to_float(scalar_value, method="add_scalar", argument="scalar_value")
        )
        if new_style:
            self._write_summary(
                "add_scalar", summaries.scalar_tensor(tag, value, double_precision), global_step, walltime
            )
            return
        if global_step is None:
            step = 0
        elif type(global_step) is int and INT64_MIN <= global_step <= INT64_MAX:
            step = global_step
        else:
            step = to_step(global_step, method="add_scalar")
        self._step = step
        writer = self.file_writer or self._get_file_writer()
        writer.add_scalar(tag, value, step, time.time() if walltime is None else float(walltime))

    def add_scalars(
        self, main_tag: str, tag_scalar_dict: Mapping[str, Any], global_step: Any = None, walltime: float | None = None
    ) -> None:
        """Several numbers on one chart: each key becomes a sub-run ``<log_dir>/<main_tag>_<key>`` with tag main_tag."""
        check_tag(main_tag, method="add_scalars", argument="main_tag")
        if not isinstance(tag_scalar_dict, Mapping):
            raise TypeError(
                f"add_scalars: tag_scalar_dict must be a dict of tag -> number, got {type(tag_scalar_dict).__name__}"
            )
        wall_time = time.time() if walltime is None else float(walltime)
        step = 0 if global_step is None else to_step(global_step, method="add_scalars")
        values = {  # all checked before any is written
            check_tag(key, method="add_scalars", argument="tag_scalar_dict key"): to_float(
                value, method="add_scalars", argument=f"tag_scalar_dict[{key!r}]"
            )
            for key, value in tag_scalar_dict.items()
        }
        base = self._get_file_writer().log_dir
        for key, value in values.items():
            sub_dir = base + "/" + main_tag.replace("/", "_") + "_" + key
            writer = self._sub_writers.get(sub_dir)
            if writer is None:
                writer = self._sub_writers[sub_dir] = EventFileWriter(
                    sub_dir, self.max_queue, self.flush_secs, self.filename_suffix, self.compression
                )
            writer.add_scalar(main_tag, value, step, wall_time)

    # --- models --------------------------------------------------------------------------------------------
    def add_graph(
        self, model: Any, input_to_model: Any = None, verbose: bool = False, use_strict_trace: bool = True
    ) -> None:
        """The graph of a torch module, traced with ``input_to_model``. Needs torch.

        ``model`` may also be a ``GraphDef`` already built (ridgeline's extension: a graph from another tool,
        written as it is); then torch is not needed and the other arguments are ignored."""
        writer = self._get_file_writer()
        if isinstance(model, graph_pb2.GraphDef):
            writer.add_event(event_pb2.Event(graph_def=model.SerializeToString()))
            return
        from ridgeline.writer import graph as graph_export

        graph_def, run_metadata = graph_export.graph(model, input_to_model, verbose, use_strict_trace)
        writer.add_event(event_pb2.Event(graph_def=graph_def.SerializeToString()))
        tagged = event_pb2.TaggedRunMetadata(tag="step1", run_metadata=run_metadata.SerializeToString())
        writer.add_event(event_pb2.Event(tagged_run_metadata=tagged))

    def add_embedding(
        self,
        mat: Any,
        metadata: Sequence[Any] | None = None,
        label_img: Any = None,
        global_step: Any = None,
        tag: str = "default",
        metadata_header: Sequence[str] | None = None,
    ) -> None:
        """Vectors for the embedding projector, with optional labels and thumbnail images."""
        from ridgeline.writer import embedding

        log_dir = self._get_file_writer().log_dir
        embedding.write_embedding(log_dir, mat, metadata, label_img, global_step, tag, metadata_header)

    # --- layout and experiment metadata ---------------------------------------------------------------------
    def add_hparams(
        self,
        hparam_dict: Mapping[str, Any],
        metric_dict: Mapping[str, Any],
        hparam_domain_discrete: Mapping[str, Sequence[Any]] | None = None,
        run_name: str | None = None,
        global_step: Any = None,
    ) -> None:
        """One trial for the hparams dashboard, written as torch does: a sub-run with the metric values."""
        if not isinstance(hparam_dict, Mapping) or not isinstance(metric_dict, Mapping):
            raise TypeError("add_hparams: hparam_dict and metric_dict must be dicts")
        experiment, session_start, session_end = summaries.hparams(
            dict(hparam_dict), dict(metric_dict), hparam_domain_discrete
        )
        log_dir = os.path.join(self._get_file_writer().log_dir, run_name or str(time.time()))
        with SummaryWriter(log_dir, per_rank=False, record_run_metadata=False) as trial:
            for summary in (experiment, session_start, session_end):
                trial._write_summary("add_hparams", summary, global_step, None)
            for key, value in metric_dict.items():
                trial.add_scalar(key, value, global_step)

    def add_note(self, markdown: str, *, tags: Sequence[str] = ()) -> None:
        """A note about the run (Markdown: what was tried, why); ridgeline shows the notes with the run, as it does
        a README.md, README.txt or NOTES.md in the run's directory. Each call adds one note. ``tags`` (e.g.
        ``["baseline"]``) are written as the note's front matter (``---\ntags: baseline\n---``), which the Runs
        table shows as the run's tags (docs/runs.md).

        A series keeps only its last record at a step, so each record holds every note of this writer so far."""
        if not isinstance(markdown, str):
            raise TypeError(f"add_note: markdown must be a string, got {type(markdown).__name__}")
        if isinstance(tags, str) or not all(isinstance(t, str) and t and not set(t) & set(",\n[]") for t in tags):
            raise TypeError(f"add_note: tags must be a list of words without commas or newlines, got {tags!r}")
        if tags:
            markdown = "---\ntags: " + ", ".join(tags) + "\n---\n" + markdown
        self._notes.append(markdown)
        self._write_summary("add_note", console.lines_summary(NOTES_TAG, self._notes), None, None)

    def _write_console(self, lines: list[str], step: int) -> None:
        writer = self.file_writer
        if writer is not None:  # lines printed after close are not this run's
            writer.add_event(event_pb2.Event(summary=console.lines_summary(CONSOLE_TAG, lines)), step)

    def sync_step(self, step: Any, barrier: Callable[[], object] | None = None) -> None:
        """Call once per step where the ranks synchronise: records when this rank arrived, waits at ``barrier``
        (default: ``torch.distributed.barrier()`` when a process group is initialised) and records when it left.
        ``ridgeline ranks`` aligns the ranks' clocks and names stragglers from these records (docs/distributed.md).
        """
        if barrier is not None and not callable(barrier):
            raise TypeError(f"sync_step: barrier must be a callable taking no argument, got {type(barrier).__name__}")
        checked = to_step(step, method="sync_step", argument="step")
        arrival, departure = distributed.synchronise(barrier)
        (self.file_writer or self._get_file_writer()).add_scalar(SYNC_TAG, departure - arrival, checked, departure)

    # --- lifecycle -----------------------------------------------------------------------------------------
    def flush(self) -> None:
        """Return once everything added so far is written to the event files."""
        if self._console is not None:
            self._console.drain()
        for writer in self._writers():
            writer.flush()

    def close(self) -> None:
        """Flush and close every file, after recording how the run ended (``finished``, or ``failed`` when a
        ``with`` block or a framework said so). The writer may be used again: it then starts new files, as torch's
        does, and the run counts as running until it is closed again."""
        if self._console is not None:
            self._console.stop()
            self._console = None
        if self._system_metrics is not None:
            self._system_metrics.stop()
            self._system_metrics = None
        self._end_session(hparams_pb2.STATUS_FAILURE if self._failure is not None else hparams_pb2.STATUS_SUCCESS)
        self._write_run_end()
        self._failure = None
        _open_writers.discard(self)
        writers = self._writers()
        self.file_writer = None
        self._sub_writers = {}
        errors = []
        for writer in writers:
            try:
                writer.close()
            except RuntimeError as error:
                errors.append(error)
        if errors:
            raise errors[0]

    def _end_session(self, status: hparams_pb2.Status) -> None:
        """Record when and how a run given ``hparams=`` ended (its session end), once. A failure is remembered for
        the end record that close() writes."""
        if status == hparams_pb2.STATUS_FAILURE and self._failure is None:
            self._failure = "the run reported a failure"
        if self.file_writer is not None and self._session_open:
            self._write_summary("close", summaries.session_end(status, end_time_secs=time.time()), None, None)
            self._session_open = False

    def _write_run_end(self) -> None:
        """The end record (``ridgeline.writer.run_metadata.run_end_summary``) in every open file of this writer:
        the run's own and each ``add_scalars`` sub-run's."""
        summary = run_end_summary(self._failure is not None, self._failure)
        for writer in self._writers():
            if writer.writable:  # a failed file raises its error at close, not here
                writer.add_event(event_pb2.Event(summary=summary))

    def _writers(self) -> list[EventFileWriter]:
        main = [self.file_writer] if self.file_writer is not None else []
        return main + list(self._sub_writers.values())

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, exc_type: object, exc: BaseException | None, traceback: object) -> None:
        if exc is not None and self._failure is None and not _clean_exit(exc):
            self._failure = exc  # the block raised: the run failed, whatever happens to the exception next
        self.close()


_open_writers: weakref.WeakSet[SummaryWriter] = weakref.WeakSet()


def _clean_exit(exc: BaseException) -> bool:
    """An exception that ends a program without failing it: ``sys.exit()``/``sys.exit(0)``, a generator closed."""
    return isinstance(exc, GeneratorExit) or (isinstance(exc, SystemExit) and exc.code in (0, None))


def _end_sessions_at_exit() -> None:
    """Runs before the event files' own exit handler (atexit is last-in, first-out): every writer left open
    records how the program ended. The interpreter sets ``sys.last_value`` when an uncaught exception ends the
    main program, before exit handlers run (and after ``sys.excepthook`` printed it, whoever replaced the hook),
    so no hook of ours is needed: the exception is there to record as the failure."""
    uncaught = getattr(sys, "last_value", None)
    for writer in list(_open_writers):
        if writer.file_writer is not None and writer.file_writer._pid == os.getpid():
            if writer._console is not None:  # the traceback of what ended the program is on stderr by now
                writer._console.stop()
                writer._console = None
            if isinstance(uncaught, BaseException) and writer._failure is None:
                writer._failure = uncaught
            failed = writer._failure is not None
            writer._end_session(hparams_pb2.STATUS_FAILURE if failed else hparams_pb2.STATUS_SUCCESS)
            writer._write_run_end()


def _flush_all_writers() -> None:
    """What a SIGTERM, SIGINT or SIGHUP does first (ridgeline.writer.signals): flush every writer of this process."""
    for writer in list(_open_writers):
        try:
            writer.flush()
        except Exception as error:  # one failed writer must not keep the others from flushing
            print(f"ridgeline: {error}", file=sys.stderr, flush=True)


atexit.register(_end_sessions_at_exit)
