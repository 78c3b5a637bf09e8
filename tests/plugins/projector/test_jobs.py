"""UMAP, t-SNE and the neighbourhood comparison as background jobs of a real server: they finish with progress
reported on the way, their results are cached by content (a second server over the same cache answers at once),
a running job can be cancelled and the next one still runs, and the server answers other requests meanwhile."""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.plugins.projector import logs
from tests.plugins.projector.conftest import ServeFactory, ok
from tests.plugins.projector.test_projector_api import coordinates, project
from tests.server.conftest import Served

pytest.importorskip("umap")
pytest.importorskip("openTSNE")
pytestmark = pytest.mark.slow

FEATURES = {"run": "ridgeline", "tag": "features"}
JOB_DEADLINE = 900  # seconds: a busy 2-core machine compiling umap-learn with numba for the first time


def wait(server: Served, key: str, seen: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Polls the job until it ends (its states appended to ``seen``)."""
    deadline = time.monotonic() + JOB_DEADLINE
    while True:
        state = ok(server.get("/api/projector/job", key=key))
        if seen is not None:
            seen.append(state)
        if state["state"] not in ("queued", "running"):
            return dict(state)
        assert time.monotonic() < deadline, f"the job never ended: {state}"
        time.sleep(0.2)


def cluster_separation(coords: np.ndarray) -> float:
    """Mean distance to other classes' centroids over mean distance to the point's own (> 1: separated)."""
    classes = logs.labels()
    centroids = np.stack([coords[classes == c].mean(axis=0) for c in range(len(logs.CLASSES))])
    distances = np.linalg.norm(coords[:, None, :] - centroids[None], axis=2)
    own = distances[np.arange(len(coords)), classes]
    other = (distances.sum(axis=1) - own) / (len(logs.CLASSES) - 1)
    return float(other.mean() / own.mean())


def test_umap_and_tsne_jobs(projector_logs: Path, serve_projector: ServeFactory, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with serve_projector(projector_logs, cache) as server:
        started = project(server, **FEATURES, step=5, method="umap", dims=2, n_neighbors=10, align=False, seed=1)
        assert started["state"] in ("queued", "running")
        # The server keeps answering while the job runs.
        assert ok(server.get("/api/projector/embedding", **FEATURES, step=5))["points"] == logs.POINTS
        seen: list[dict[str, Any]] = []
        done = wait(server, started["key"], seen)
        assert done["state"] == "done", done
        assert any(0 < s["progress"] < 1 and s["message"] for s in seen if s["state"] == "running")
        coords = coordinates(server, done["key"], started["position"])
        assert coords.shape == (logs.POINTS, 2) and np.isfinite(coords).all()
        assert cluster_separation(coords) > 2
        # The same request again: the finished result, at once.
        again = project(server, **FEATURES, step=5, method="umap", dims=2, n_neighbors=10, align=False, seed=1)
        assert again["state"] == "done" and again["key"] == started["key"]

        tsne = project(server, **FEATURES, step=0, method="tsne", dims=3, perplexity=10, align=False, seed=1)
        done = wait(server, tsne["key"])
        assert done["state"] == "done", done
        coords = coordinates(server, tsne["key"])
        assert coords.shape == (logs.POINTS, 3) and cluster_separation(coords) > 2

    # A new server over the same cache directory: the projection is found by the vectors' content.
    with serve_projector(projector_logs, cache) as server:
        again = project(server, **FEATURES, step=5, method="umap", dims=2, n_neighbors=10, align=False, seed=1)
        assert again["state"] == "done" and again["key"] == started["key"]
        assert coordinates(server, again["key"]).shape == (logs.POINTS, 2)


def test_aligned_umap_over_every_step(server: Served) -> None:
    started = project(server, **FEATURES, step=10, method="umap", dims=2, n_neighbors=10, align=True, seed=2)
    done = wait(server, started["key"])
    assert done["state"] == "done", done
    assert done["info"]["steps"] == [0, 5, 10] and started["position"] == 2
    steps = [coordinates(server, started["key"], position) for position in range(3)]
    # Each step starts from the previous one's layout and is aligned to it: the points stay near where they were
    # (much nearer than to a random point of the same step).
    for before, after in itertools.pairwise(steps):
        moved = np.linalg.norm(after - before, axis=1).mean()
        shuffled = np.linalg.norm(after - before[np.random.default_rng(0).permutation(len(before))], axis=1).mean()
        assert moved < shuffled / 2


def test_cancel_a_running_job_and_run_the_next(server: Served) -> None:
    started = project(server, **FEATURES, step=0, method="tsne", dims=2, perplexity=20, iterations=5000, seed=3)
    deadline = time.monotonic() + JOB_DEADLINE
    while ok(server.get("/api/projector/job", key=started["key"]))["state"] == "queued":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    cancelled = ok(server.client.post("/api/projector/job/cancel", json={"key": started["key"]}))
    assert cancelled["state"] == "cancelled"
    assert wait(server, started["key"])["state"] == "cancelled"
    assert server.get("/api/projector/coordinates", key=started["key"]).status_code == 404
    # The worker was ended; the next job starts a new one.
    following = project(server, **FEATURES, step=0, method="tsne", dims=2, perplexity=15, iterations=250, seed=3)
    finished = wait(server, following["key"])
    assert finished["state"] == "done", finished
    assert server.client.post("/api/projector/job/cancel", json={"key": "0" * 40}).status_code == 404


def test_neighbourhood_changes_between_steps(server: Served) -> None:
    started = ok(server.client.post("/api/projector/changes", json={**FEATURES, "before": 0, "after": 10, "k": 5}))
    assert wait(server, started["key"])["state"] == "done"
    ranking = ok(server.get("/api/projector/changes", key=started["key"], limit=logs.POINTS))
    assert ranking["ranked"] == logs.POINTS and ranking["k"] == 5

    def knn(matrix: np.ndarray) -> list[set[int]]:
        unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
        similarity = unit @ unit.T
        np.fill_diagonal(similarity, -np.inf)
        return [set(np.argsort(-row, kind="stable")[:5].tolist()) for row in similarity]

    before, after = knn(logs.clusters(0).astype(np.float64)), knn(logs.clusters(10).astype(np.float64))
    expected = {i: len(before[i] & after[i]) / 5 for i in range(logs.POINTS)}
    found = {p["index"]: p["overlap"] for p in ranking["points"]}
    assert found == pytest.approx(expected)
    overlaps = [p["overlap"] for p in ranking["points"]]
    assert overlaps == sorted(overlaps)  # the most changed first
