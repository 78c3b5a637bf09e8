"""The projector's background worker: a separate process that runs UMAP, t-SNE and the neighbourhood comparison.

``python -m ridgeline.plugins.projector.worker``, started by :class:`~ridgeline.plugins.projector.jobs.JobQueue`.
A separate process because these take seconds to minutes of CPU and umap-learn's first call compiles with numba
for many seconds: the server's threads never wait on them, and cancelling a job is ending the process.

Protocol, one JSON object per line (nothing is pickled either way): the server writes a job to stdin
(``{"id", "method", "params", "inputs": [.npy paths], "output": directory}``); the worker answers on its original
stdout with ``{"id", "progress": 0..1, "message"}`` lines, then ``{"id", "done": true, "info": {...}}`` or
``{"id", "error": message}``. Whatever the libraries print goes to stderr. The outputs are .npy files in the
job's directory (``step-<i>.npy`` for the i-th input, ``order.npy``/``overlap.npy`` for a comparison), each
written to a temporary name and renamed. The worker exits when stdin closes or the server process is gone.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np

from ridgeline.plugins.projector.neighbours import changes
from ridgeline.plugins.projector.projections import align_series, bounds

Send = Callable[..., None]


def save(path: Path, array: np.ndarray) -> None:
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".tmp-", suffix=".npy", delete=False) as file:
        np.save(file, array, allow_pickle=False)
    os.replace(file.name, path)


def load(path: str) -> np.ndarray:
    array = np.load(path, mmap_mode="r", allow_pickle=False)
    if array.ndim != 2:
        raise ValueError(f"{path}: expected a (points, dimensions) matrix, got shape {array.shape}")
    return array


class _TqdmProgress(io.StringIO):
    """A file for tqdm (umap-learn's epochs bar, written as ``n/total``) that reports each update."""

    def __init__(self, report: Callable[[float], None]) -> None:
        super().__init__()
        self._report = report

    def write(self, text: str) -> int:
        found = re.findall(r"(\d+)/(\d+)", text)
        if found:
            done, total = found[-1]
            if int(total) > 0:
                self._report(int(done) / int(total))
        return len(text)


def _fit_each(
    inputs: list[str], params: dict[str, Any], send: Send, fit: Callable[[np.ndarray, np.ndarray | None, Any], Any]
) -> list[np.ndarray]:
    """Runs ``fit(rows, init, report)`` on each input's finite rows, the previous step's result as the start of the
    next (the points begin where they were), and returns each step's coordinates with NaN rows for the others."""
    results: list[np.ndarray] = []
    dims = int(params["dims"])
    for position, path in enumerate(inputs):
        vectors = load(path)
        finite = np.isfinite(vectors).all(axis=1)
        rows = np.ascontiguousarray(vectors[finite], dtype=np.float32)
        start = None
        if results and results[-1].shape[0] == len(vectors):
            previous = results[-1][finite]
            if np.isfinite(previous).all():
                start = np.ascontiguousarray(previous, dtype=np.float32)

        def report(done: float, message: str = "", position: int = position) -> None:
            step = f"step {position + 1} of {len(inputs)}: " if len(inputs) > 1 else ""
            send(progress=(position + min(max(done, 0.0), 1.0)) / len(inputs), message=step + message)

        coordinates = np.full((len(vectors), dims), np.nan, dtype=np.float32)
        coordinates[finite] = np.asarray(fit(rows, start, report), dtype=np.float32)
        results.append(coordinates)
    return results


def run_umap(inputs: list[str], params: dict[str, Any], send: Send) -> list[np.ndarray]:
    send(progress=0.0, message="loading umap-learn (its first run compiles with numba)")
    import umap

    def fit(rows: np.ndarray, start: np.ndarray | None, report: Callable[..., None]) -> np.ndarray:
        if len(rows) < 4:
            raise ValueError(f"UMAP needs at least 4 points with finite values; this step has {len(rows)}")
        neighbours = max(2, min(int(params["n_neighbors"]), len(rows) - 1))
        report(0.02, "finding each point's nearest neighbours")
        file = _TqdmProgress(lambda done: report(0.3 + 0.7 * done, "optimising the layout"))
        reducer = umap.UMAP(
            n_components=int(params["dims"]),
            n_neighbors=neighbours,
            min_dist=float(params["min_dist"]),
            metric=str(params["metric"]),
            init=start if start is not None else "spectral",
            random_state=params.get("seed"),
            tqdm_kwds={"disable": False, "file": file, "bar_format": "{n}/{total}", "mininterval": 0.2},
        )
        embedded: np.ndarray = reducer.fit_transform(rows)
        return embedded

    return _fit_each(inputs, params, send, fit)


def run_tsne(inputs: list[str], params: dict[str, Any], send: Send) -> list[np.ndarray]:
    send(progress=0.0, message="loading openTSNE")
    from openTSNE import TSNE

    dims = int(params["dims"])
    iterations = int(params["iterations"])
    exaggeration = 250

    def fit(rows: np.ndarray, start: np.ndarray | None, report: Callable[..., None]) -> np.ndarray:
        if len(rows) < 4:
            raise ValueError(f"t-SNE needs at least 4 points with finite values; this step has {len(rows)}")
        perplexity = min(float(params["perplexity"]), (len(rows) - 1) / 3)
        phase = {"offset": 0, "last": -1}

        def callback(iteration: int, error: float, embedding: np.ndarray) -> bool:
            if iteration <= phase["last"]:  # the optimisation after early exaggeration counts from 0 again
                phase["offset"] = exaggeration
            phase["last"] = iteration
            done = (phase["offset"] + iteration) / (exaggeration + iterations)
            report(0.15 + 0.85 * done, f"optimising (iteration {phase['offset'] + iteration})")
            return False

        report(0.02, "computing the affinities (nearest neighbours)")
        tsne = TSNE(
            n_components=dims,
            perplexity=perplexity,
            n_iter=iterations,
            early_exaggeration_iter=exaggeration,
            initialization=start if start is not None else "pca",
            negative_gradient_method="auto" if dims <= 2 else "bh",
            metric=str(params["metric"]),
            n_jobs=os.cpu_count() or 1,
            random_state=params.get("seed"),
            callbacks=callback,
            callbacks_every_iters=10,
        )
        return np.asarray(tsne.fit(rows))

    return _fit_each(inputs, params, send, fit)


def run(spec: dict[str, Any], send: Send) -> dict[str, Any]:
    method, params, inputs = spec["method"], spec["params"], spec["inputs"]
    output = Path(spec["output"])
    output.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if method == "changes":
        before, after = load(inputs[0]), load(inputs[1])
        if before.shape[0] != after.shape[0]:
            raise ValueError(f"the two steps hold {before.shape[0]} and {after.shape[0]} points: not the same points")
        finite = np.isfinite(before).all(axis=1) & np.isfinite(after).all(axis=1)
        order, overlap = changes(
            before,
            after,
            finite,
            int(params["k"]),
            str(params["metric"]),
            lambda done: send(progress=done, message="comparing every point's nearest neighbours"),
        )
        save(output / "order.npy", order)
        save(output / "overlap.npy", overlap)
        return {"ranked": len(order), "seconds": time.perf_counter() - started}
    runner = {"umap": run_umap, "tsne": run_tsne}.get(method)
    if runner is None:
        raise ValueError(f"unknown method {method!r}")
    series = runner(inputs, params, send)
    if params.get("align"):
        series = align_series(series)
    for position, coordinates in enumerate(series):
        save(output / f"step-{position}.npy", coordinates)
    return {"bounds": bounds(series), "seconds": time.perf_counter() - started}


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


def main(stdin: IO[str] | None = None) -> None:
    protocol = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # what the libraries print goes to stderr; the protocol keeps the original stdout
    sys.stdout = sys.stderr
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    lock = threading.Lock()
    for line in stdin or sys.stdin:
        if not line.strip():
            continue
        spec = json.loads(line)

        def send(job: str = str(spec.get("id")), **message: Any) -> None:
            with lock:
                protocol.write(json.dumps({"id": job, **message}) + "\n")

        try:
            send(done=True, info=run(spec, send))
        except Exception as error:  # reported to the server, which shows it in the card
            traceback.print_exc()
            send(error=f"{type(error).__name__}: {error}")


if __name__ == "__main__":
    main()
