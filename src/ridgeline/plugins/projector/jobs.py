"""Projections and comparisons as jobs: computed once, kept in the cache directory, shown with progress, cancellable.

A job's key is a hash of what determines its answer (the vectors' content hashes, the method, its parameters), so
reopening a view finds its result at once, after a restart too. Results live in
``<cache dir>/projector/results/<key>/`` as .npy files (read with ``allow_pickle=False``) and an ``info.json``
written last: a directory with ``info.json`` is a finished result.

PCA and the custom projection are computed in the request's thread (numpy, well under a second for 100k points).
UMAP, t-SNE and the neighbourhood comparison run one at a time in the worker process
(:mod:`ridgeline.plugins.projector.worker`), fed by one background thread per app: the server never waits on them,
and cancelling a running job ends the worker (the next job starts a new one).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

import numpy as np

State = Literal["queued", "running", "done", "failed", "cancelled"]
BACKGROUND = ("umap", "tsne", "changes")
_KEEP_FINISHED = 200  # finished jobs remembered in memory (their results stay on disk)


def job_key(**parts: Any) -> str:
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def is_key(text: str) -> bool:
    return len(text) == 40 and all(c in "0123456789abcdef" for c in text)


@dataclass
class Job:
    key: str
    method: str
    spec: dict[str, Any]
    state: State = "queued"
    progress: float = 0.0
    message: str = ""
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.time)

    def describe(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "method": self.method,
            "state": self.state,
            "progress": round(self.progress, 4),
            "message": self.message,
            "error": self.error,
            "info": self.info,
        }


class JobQueue:
    """The jobs of one app, their results under ``directory`` (None: no cache directory can be written, so
    background jobs fail with a message saying so)."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._jobs: dict[str, Job] = {}
        self._queue: deque[str] = deque()
        self._lock = threading.Condition()
        self._thread: threading.Thread | None = None
        self._process: subprocess.Popen[str] | None = None
        self._running: str | None = None

    # --- results ---------------------------------------------------------------------------------------------
    def result_dir(self, key: str) -> Path:
        if self.directory is None:
            raise OSError("no cache directory")
        return self.directory / "results" / key

    def finished(self, key: str) -> dict[str, Any] | None:
        """The info of a finished result, or None."""
        if self.directory is None or not is_key(key):
            return None
        try:
            info: dict[str, Any] = json.loads((self.result_dir(key) / "info.json").read_bytes())
        except (OSError, ValueError):
            return None
        return info

    def load(self, key: str, name: str) -> np.ndarray:
        """One array of a finished result (OSError when there is none)."""
        return np.load(self.result_dir(key) / f"{name}.npy", allow_pickle=False)

    def store(self, key: str, method: str, arrays: dict[str, np.ndarray], info: dict[str, Any]) -> Job:
        """Save a result computed in this process (PCA, custom) like the worker's, and answer it as a done job;
        when nothing can be written it is kept in memory only (``arrays`` on the job)."""
        job = Job(key, method, {}, state="done", progress=1.0, info=info)
        try:
            directory = self.result_dir(key)
            directory.mkdir(parents=True, exist_ok=True)
            for name, array in arrays.items():
                _save(directory / f"{name}.npy", array)
            _write(directory / "info.json", json.dumps(info).encode())
        except OSError:
            job.spec = {"arrays": arrays}
        with self._lock:
            self._remember(job)
        return job

    def arrays_in_memory(self, key: str) -> dict[str, np.ndarray] | None:
        with self._lock:
            job = self._jobs.get(key)
        return job.spec.get("arrays") if job is not None else None

    # --- jobs ------------------------------------------------------------------------------------------------
    def get(self, key: str) -> Job | None:
        with self._lock:
            job = self._jobs.get(key)
        if job is not None:
            return job
        info = self.finished(key)
        return Job(key, str(info.get("method", "")), {}, "done", 1.0, info=info) if info is not None else None

    def submit(self, key: str, method: str, spec: Callable[[], dict[str, Any]]) -> Job:
        """The job ``key``: a finished or running one as it is, else a new one queued (``spec()`` makes its worker
        spec then: the inputs are written only when needed). A failed or cancelled one is queued again."""
        found = self.get(key)
        if found is not None and found.state in ("queued", "running", "done"):
            return found
        job = Job(key, method, {})
        if self.directory is None:
            job.state, job.error = "failed", "no cache directory can be written, and background jobs need one"
            with self._lock:
                self._remember(job)
            return job
        try:
            job.spec = {**spec(), "id": key, "method": method, "output": str(self.result_dir(key))}
        except (OSError, ValueError) as error:
            job.state, job.error = "failed", str(error)
        with self._lock:
            self._remember(job)
            if job.state == "queued":
                self._queue.append(key)
                job.message = "waiting for the job before it" if self._running else "starting"
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(target=self._serve, name="projector-jobs", daemon=True)
                    self._thread.start()
                self._lock.notify_all()
        return job

    def cancel(self, key: str) -> Job | None:
        with self._lock:
            job = self._jobs.get(key)
            if job is None or job.state not in ("queued", "running"):
                return job
            if job.state == "queued":
                self._queue.remove(key)
                job.state, job.message = "cancelled", "cancelled before it started"
                return job
            job.state, job.message = "cancelled", "cancelled"
            process = self._process
        if process is not None and process.poll() is None:
            process.kill()  # the worker holds nothing worth saving; the next job starts a new one
        return job

    def close(self) -> None:
        with self._lock:
            process, self._process = self._process, None
            self._queue.clear()
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(timeout=10)

    def _remember(self, job: Job) -> None:
        self._jobs[job.key] = job
        finished = [k for k, j in self._jobs.items() if j.state in ("done", "failed", "cancelled")]
        for old in finished[: max(0, len(finished) - _KEEP_FINISHED)]:
            del self._jobs[old]

    # --- the background thread -----------------------------------------------------------------------------
    def _serve(self) -> None:
        while True:
            with self._lock:
                while not self._queue:
                    if not self._lock.wait(timeout=60) and not self._queue:
                        self._thread = None  # idle for a minute: the next submit starts another
                        return
                key = self._queue.popleft()
                job = self._jobs[key]
                job.state, job.message, self._running = "running", "starting the worker", key
            try:
                self._run(job)
            except Exception as error:  # never leave a job running forever
                with self._lock:
                    if job.state == "running":
                        job.state, job.error = "failed", f"{type(error).__name__}: {error}"
            finally:
                with self._lock:
                    self._running = None

    def _worker(self) -> subprocess.Popen[str]:
        with self._lock:
            process = self._process
        if process is not None and process.poll() is None:
            return process
        assert self.directory is not None
        self.directory.mkdir(parents=True, exist_ok=True)
        log = open(self.directory / "worker.log", "w")  # noqa: SIM115 (the process writes to it until it ends)
        process = subprocess.Popen(
            [sys.executable, "-m", "ridgeline.plugins.projector.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            bufsize=1,
        )
        log.close()
        with self._lock:
            self._process = process
        return process

    def _run(self, job: Job) -> None:
        process = self._worker()
        stdin, stdout = process.stdin, process.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(json.dumps(job.spec) + "\n")
            stdin.flush()
        except OSError:
            pass  # the worker died: reading says so below
        outcome = _read_outcome(stdout, job, self._lock)
        if outcome is None:  # the worker ended (killed by a cancel, or crashed): the next job starts another
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
            with self._lock:
                if self._process is process:
                    self._process = None
        with self._lock:
            if job.state == "cancelled":
                return
            if outcome is None:
                job.state = "failed"
                job.error = f"the worker process ended unexpectedly (exit code {process.poll()})"
                return
            if "error" in outcome:
                job.state, job.error = "failed", str(outcome["error"])
                return
        info = {**outcome.get("info", {}), **job.spec.get("info", {}), "method": job.method}
        _write(self.result_dir(job.key) / "info.json", json.dumps(info).encode())
        with self._lock:
            job.state, job.progress, job.info, job.message = "done", 1.0, info, "done"


def _read_outcome(stdout: IO[str], job: Job, lock: threading.Condition) -> dict[str, Any] | None:
    """Reads the worker's lines for ``job`` until it is done or failed; None when the worker ended first."""
    for line in stdout:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("id") != job.key:
            continue
        if "done" in message or "error" in message:
            return dict(message)
        with lock:
            if job.state == "running":
                job.progress = float(message.get("progress", job.progress))
                job.message = str(message.get("message", job.message))
    return None


def _save(path: Path, array: np.ndarray) -> None:
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".tmp-", suffix=".npy", delete=False) as file:
        np.save(file, array, allow_pickle=False)
    os.replace(file.name, path)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".tmp-", delete=False) as file:
        file.write(data)
    os.replace(file.name, path)
