"""What the projector's routes do, apart from HTTP: find an embedding, load it, project it, find its neighbours.

One :class:`Projector` per app (``app_service``): the datasets loaded (:class:`DatasetCache`) and the jobs
(:class:`JobQueue`), both under ``<cache dir>/projector/`` (the cache directory of :mod:`ridgeline.store.cache`,
never the log directory).

Every projection is answered as a job whose result is a *view*: the coordinates to draw for one or more steps,
with their bounds. PCA views are computed here at once from the embedding's first principal components (kept per
content hash: switching components or steps reads them back); with ``align`` each step's view is rotated onto the
first step's (Procrustes), so a point stays where it was while the slider moves. UMAP and t-SNE views are
background jobs over every step of the series, each step started from the previous one's layout, then aligned.
"""

from __future__ import annotations

import atexit
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ridgeline.plugins.projector import neighbours, projections
from ridgeline.plugins.projector.dataset import Dataset, DatasetCache, save_vectors, vectors_path
from ridgeline.plugins.projector.jobs import Job, JobQueue, job_key
from ridgeline.search.errors import SearchError
from ridgeline.store.cache import default_cache_dir
from ridgeline.store.embeddings import EmbeddingRef, ProjectorError

PCA_COMPONENTS = projections.MAX_COMPONENTS


class Provider(Protocol):
    """The part of the store's provider (:class:`ridgeline.store.provider.Provider`) the projector reads: a run's
    embeddings, their files read only when asked for."""

    def embeddings(self, run: str) -> list[EmbeddingRef]: ...


class NotFound(LookupError):
    """No such run, embedding or step (a 404)."""


class Unusable(ValueError):
    """The request cannot be answered from this embedding (a 422 with the reason)."""


@dataclass(frozen=True, slots=True)
class Projection:
    """What a projection view is asked for with (validated by the route)."""

    method: str
    dims: int
    components: tuple[int, ...] = (0, 1, 2)
    align: bool = True
    n_neighbors: int = 15
    min_dist: float = 0.1
    perplexity: float = 30.0
    iterations: int = 500
    metric: str = "euclidean"
    seed: int | None = None
    custom: tuple[str, str, str, str] = ("", "", "", "")
    column: str | None = None


def _writable_cache() -> Path | None:
    directory = default_cache_dir() / "projector"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return directory


class Projector:
    def __init__(self, cache_dir: Path | None = None) -> None:
        directory = cache_dir if cache_dir is not None else _writable_cache()
        self.datasets = DatasetCache(directory)
        self.jobs = JobQueue(directory)
        atexit.register(self.jobs.close)

    # --- finding embeddings ------------------------------------------------------------------------------------
    @staticmethod
    def refs(provider: Provider, run: str) -> list[EmbeddingRef]:
        try:
            return provider.embeddings(run)
        except KeyError as missing:
            raise NotFound(str(missing.args[0]) if missing.args else f"no run {run!r}") from None

    def series(self, provider: Provider, run: str, tag: str) -> list[EmbeddingRef]:
        """The run's embeddings of ``tag`` in step order (one per step: the last one listed wins)."""
        by_step: dict[int | None, EmbeddingRef] = {}
        for ref in self.refs(provider, run):
            if ref.tag == tag:
                by_step[ref.step] = ref
        if not by_step:
            tags = sorted({ref.tag for ref in self.refs(provider, run)})
            raise NotFound(f"run {run!r} has no embedding {tag!r} (its embeddings: {', '.join(tags) or 'none'})")
        return [by_step[s] for s in sorted(by_step, key=lambda s: (s is None, s or 0))]

    def find(self, provider: Provider, run: str, tag: str, step: int | None) -> tuple[EmbeddingRef, list[EmbeddingRef]]:
        series = self.series(provider, run, tag)
        for ref in series:
            if ref.step == step:
                return ref, series
        if step is None and len(series) == 1:
            return series[0], series
        steps = ", ".join("none" if r.step is None else str(r.step) for r in series)
        raise NotFound(f"embedding {tag!r} of run {run!r} has no step {step} (its steps: {steps})")

    def dataset(self, provider: Provider, run: str, tag: str, step: int | None) -> Dataset:
        ref, _ = self.find(provider, run, tag, step)
        return self.datasets.get(run, ref)

    # --- describing ----------------------------------------------------------------------------------------------
    def describe(self, provider: Provider, run: str, tag: str, step: int | None) -> dict[str, Any]:
        ref, series = self.find(provider, run, tag, step)
        data = self.datasets.get(run, ref)
        same = [r.step for r in series if _points(r) in (None, data.points)]
        sprite = data.sprite
        return {
            "run": run,
            "tag": tag,
            "step": ref.step,
            "name": ref.name,
            "points": data.points,
            "dimensions": data.dimensions,
            "digest": data.digest,
            "steps": [r.step for r in series],
            "aligned_steps": same,
            "finite": int(data.finite.sum()),
            "columns": [{"name": c.name, "kind": c.kind, "distinct": len(c.values)} for c in data.columns],
            "sprite": None
            if sprite is None
            else {
                "width": sprite.width,
                "height": sprite.height,
                "single_image_dim": list(sprite.single_image_dim),
                "per_row": sprite.per_row,
            },
            "bookmarks": ref.bookmarks_path is not None,
            "problems": data.problems,
            "metrics": list(neighbours.METRICS),
        }

    @staticmethod
    def metadata(data: Dataset) -> dict[str, Any]:
        """Every column dictionary-encoded: distinct values, each row's code, and numbers for numeric columns."""
        columns = []
        for column in data.columns:
            item: dict[str, Any] = {
                "name": column.name,
                "kind": column.kind,
                "values": column.values,
                "codes": column.codes,
            }
            if column.numbers is not None:
                item["numbers"] = [None if not math.isfinite(v) else v for v in column.numbers.tolist()]
            columns.append(item)
        return {"points": data.points, "columns": columns}

    # --- projections ---------------------------------------------------------------------------------------------
    def project(self, provider: Provider, run: str, tag: str, step: int | None, request: Projection) -> dict[str, Any]:
        ref, series = self.find(provider, run, tag, step)
        data = self.datasets.get(run, ref)
        if data.points == 0 or data.dimensions == 0:
            raise Unusable(f"embedding {tag!r} has no points to project")
        if request.method == "pca":
            job, position = self._pca(run, data, series, request), 0
        elif request.method == "custom":
            job, position = self._custom(data, request), 0
        else:
            members = [r for r in series if r is ref or (request.align and _points(r) in (None, data.points))]
            if not request.align:
                members = [ref]
            datasets = [data if r is ref else self.datasets.get(run, r) for r in members]
            datasets = [d for d in datasets if d.points == data.points]
            position = next(i for i, d in enumerate(datasets) if d is data)
            job = self._background(datasets, request)
        answer = job.describe()
        answer["position"] = position
        return answer

    def _pca_base(self, data: Dataset) -> tuple[np.ndarray, list[float]]:
        key = job_key(method="pca-base", digest=data.digest, components=PCA_COMPONENTS)
        info = self.jobs.finished(key)
        if info is not None:
            try:
                return self.jobs.load(key, "step-0"), list(info["variance"])
            except (OSError, ValueError, KeyError):
                pass
        memory = self.jobs.arrays_in_memory(key)
        if memory is not None:
            return memory["step-0"], list(self.jobs.get(key).info["variance"])  # type: ignore[union-attr]
        result = projections.pca(data.vectors, data.finite, PCA_COMPONENTS)
        variance = [float(v) for v in result.variance]
        self.jobs.store(key, "pca-base", {"step-0": result.coordinates}, {"variance": variance})
        return result.coordinates, variance

    def _pca(self, run: str, data: Dataset, series: list[EmbeddingRef], request: Projection) -> Job:
        base, variance = self._pca_base(data)
        available = base.shape[1]
        components = [c for c in request.components[: request.dims] if c < available]
        if len(components) < min(request.dims, available) or not components:
            raise Unusable(f"PCA has {available} component(s) here: ask for components below {available}")
        first = series[0]
        reference = None
        if request.align and first.step != data.ref.step and _points(first) in (None, data.points):
            reference_data = self.datasets.get(run, first)
            if reference_data.points == data.points:
                reference = reference_data
        key = job_key(
            method="pca",
            digest=data.digest,
            components=components,
            align_to=None if reference is None else reference.digest,
        )
        found = self._view(key)
        if found is not None:
            return found
        coordinates = base[:, components]
        if reference is not None:
            reference_base, _ = self._pca_base(reference)
            coordinates = projections.procrustes(reference_base[:, components], coordinates)
        info = {
            "variance": [variance[c] for c in components],
            "total_variance": variance,
            "components": components,
            "bounds": projections.bounds([coordinates]),
            "aligned_to": None if reference is None else first.step,
        }
        return self.jobs.store(key, "pca", {"step-0": coordinates}, info)

    def _custom(self, data: Dataset, request: Projection) -> Job:
        key = job_key(method="custom", digest=data.digest, queries=list(request.custom), column=request.column)
        found = self._view(key)
        if found is not None:
            return found
        search = data.search()
        sets = []
        for name, query in zip(("x left", "x right", "y down", "y up"), request.custom, strict=True):
            try:
                rows = search.matching(query, column=request.column)
            except SearchError as error:
                raise Unusable(f"the {name} query {query!r}: {error.message}") from None
            rows = rows[data.finite[rows]]
            if len(rows) == 0:
                raise Unusable(f"the {name} query {query!r} matches no point (with finite values)")
            sets.append(rows)
        coordinates = projections.custom(data.vectors, data.finite, [(sets[0], sets[1]), (sets[2], sets[3])])
        info = {"bounds": projections.bounds([coordinates]), "matches": [len(s) for s in sets]}
        return self.jobs.store(key, "custom", {"step-0": coordinates}, info)

    def _view(self, key: str) -> Job | None:
        job = self.jobs.get(key)
        return job if job is not None and job.state == "done" else None

    def _background(self, datasets: list[Dataset], request: Projection) -> Job:
        method = request.method
        params: dict[str, Any] = {"dims": request.dims, "metric": request.metric, "seed": request.seed}
        if method == "umap":
            params.update(n_neighbors=request.n_neighbors, min_dist=request.min_dist)
        else:
            params.update(perplexity=request.perplexity, iterations=request.iterations)
        params["align"] = request.align and len(datasets) > 1
        key = job_key(method=method, digests=[d.digest for d in datasets], params=params)
        steps = [d.ref.step for d in datasets]
        return self.jobs.submit(
            key, method, lambda: {"params": params, "inputs": self._inputs(datasets), "info": {"steps": steps}}
        )

    def _inputs(self, datasets: list[Dataset]) -> list[str]:
        """The .npy files the worker reads (written to the cache directory when not there yet)."""
        directory = self.jobs.directory
        if directory is None:
            raise OSError("no cache directory can be written, and background jobs need one")
        paths = []
        for data in datasets:
            if not save_vectors(directory, data.digest, data.vectors):
                raise OSError(f"the vectors cannot be written to {directory}")
            paths.append(str(vectors_path(directory, data.digest)))
        return paths

    def coordinates(self, key: str, position: int) -> np.ndarray:
        """A finished view's coordinates for one step (NotFound when there is no such view or step)."""
        memory = self.jobs.arrays_in_memory(key)
        if memory is not None and f"step-{position}" in memory:
            return memory[f"step-{position}"]
        if self.jobs.finished(key) is None:
            raise NotFound(f"no finished projection {key!r} (start it with POST /api/projector/projection)")
        try:
            return self.jobs.load(key, f"step-{position}")
        except OSError:
            raise NotFound(f"projection {key!r} has no step at position {position}") from None

    # --- neighbours and changes ----------------------------------------------------------------------------------
    @staticmethod
    def neighbours(data: Dataset, index: int, k: int, metric: str) -> dict[str, Any]:
        if not 0 <= index < data.points:
            last = data.points - 1
            raise NotFound(f"point {index} does not exist: the embedding has {data.points} points (0 to {last})")
        if not data.finite[index]:
            raise Unusable(f"point {index} holds NaN or ±Inf values: it has no neighbours")
        norms = data.norms()
        if metric == "cosine" and norms[index] == 0:
            raise Unusable(f"point {index} is the zero vector: its cosine distance to anything is undefined")
        found, distances = neighbours.nearest(data.vectors, norms, data.finite, index, k, metric)
        return {
            "index": index,
            "metric": metric,
            "exact": True,
            "neighbours": [
                {"index": int(i), "distance": float(d)} for i, d in zip(found.tolist(), distances.tolist(), strict=True)
            ],
        }

    def changes(
        self, provider: Provider, run: str, tag: str, before: int | None, after: int | None, k: int, metric: str
    ) -> Job:
        first = self.dataset(provider, run, tag, before)
        second = self.dataset(provider, run, tag, after)
        if first.points != second.points:
            raise Unusable(
                f"steps {before} and {after} hold {first.points:,} and {second.points:,} points: their "
                "neighbourhoods compare only when they are the same points"
            )
        params = {"k": k, "metric": metric}
        key = job_key(method="changes", digests=[first.digest, second.digest], params=params)
        return self.jobs.submit(
            key, "changes", lambda: {"params": params, "inputs": self._inputs([first, second]), "info": params}
        )

    def ranking(self, key: str, limit: int) -> dict[str, Any]:
        info = self.jobs.finished(key)
        if info is None:
            raise NotFound(f"no finished comparison {key!r} (start it with POST /api/projector/changes)")
        order, overlap = self.jobs.load(key, "order"), self.jobs.load(key, "overlap")
        return {
            "key": key,
            "k": info.get("k"),
            "metric": info.get("metric"),
            "ranked": len(order),
            "points": [
                {"index": int(i), "overlap": float(o)}
                for i, o in zip(order[:limit].tolist(), overlap[:limit].tolist(), strict=True)
            ],
        }


def _points(ref: EmbeddingRef) -> int | None:
    """The number of points the config gives for ``ref`` (None when it gives no shape)."""
    return int(ref.tensor_shape[0]) if len(ref.tensor_shape) == 2 else None


__all__ = ["NotFound", "Projection", "Projector", "ProjectorError", "Unusable"]
