"""The projector's routes: ``GET /api/embeddings`` (the listing) and ``/api/projector/...`` (one embedding).

Routes only parse and answer; :mod:`ridgeline.plugins.projector.service` does the work. An embedding is named by
``run``, ``tag`` and ``step`` (left out for an embedding logged without one). Errors are ``{"error": message}``:
404 for an unknown run, tag, step, point or result, 400 for a bad parameter or search query, 422 when the
embedding's files cannot be read or cannot answer the request (the message says why, naming the file).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel, Field

from ridgeline.plugins.kit import ApiError, OrjsonResponse, RunRegex, app_service, compile_regex, logdir_of
from ridgeline.plugins.kit.media import IMMUTABLE
from ridgeline.plugins.projector import export
from ridgeline.plugins.projector.jobs import is_key
from ridgeline.plugins.projector.service import NotFound, Projection, Projector, Unusable
from ridgeline.search.errors import SearchError
from ridgeline.store.embeddings import EmbeddingRef, ProjectorError

router = APIRouter()

Run = Annotated[str, Query(description="the run")]
Tag = Annotated[str, Query(description="the embedding's tag (what add_embedding was given)")]
Step = Annotated[int | None, Query(description="its step (left out for an embedding logged without one)")]
Key = Annotated[str, Query(description="a projection's or comparison's key, as POST answered it")]
Metric = Literal["cosine", "euclidean"]
_UNREADABLE: dict[int | str, dict[str, Any]] = {
    404: {"description": "no such run, or no embedding under that tag and step"},
    422: {"description": "the embedding's files cannot be read, or cannot answer this"},
}
_SAFE_HEADERS = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "default-src 'none'; sandbox"}


def projector(request: Request) -> Projector:
    return app_service(request, "projector", Projector)


@contextmanager
def answering() -> Iterator[None]:
    """The service's errors as API errors."""
    try:
        yield
    except NotFound as missing:
        raise ApiError(404, str(missing)) from None
    except (Unusable, ProjectorError) as error:
        raise ApiError(422, str(error)) from None
    except SearchError as error:
        raise ApiError(400, f"query parameter 'q': {error.message}") from None


def _key(key: str) -> str:
    if not is_key(key):
        raise ApiError(404, f"no projection or comparison {key!r}")
    return key


@router.get("/embeddings")
def embeddings(request: Request, run_regex: RunRegex = None) -> OrjsonResponse:
    """``{"runs": {run: [{"name", "tag", "step", "shape", "metadata", "sprite"}]}, "errors": {run: message}}``:
    the embeddings of every run that has some (``step`` is null when the config does not say; ``shape`` is the
    config's ``[points, dimensions]``, empty when it gives none). A run whose projector config cannot be read is
    listed under ``errors`` with the reason, and the others still answer."""
    logdir = logdir_of(request)
    pattern = compile_regex(run_regex, "run_regex")
    found: dict[str, list[dict[str, Any]]] = {}
    errors: dict[str, str] = {}
    for run in logdir.runs():
        if pattern is not None and not pattern.search(run):
            continue
        try:
            refs = logdir.embeddings(run)
        except KeyError:  # the run vanished meanwhile
            continue
        except ProjectorError as error:
            errors[run] = str(error)
            continue
        if refs:
            found[run] = [_describe(ref) for ref in refs]
    return OrjsonResponse({"runs": found, "errors": errors})


def _describe(ref: EmbeddingRef) -> dict[str, Any]:
    return {
        "name": ref.name,
        "tag": ref.tag,
        "step": ref.step,
        "shape": list(ref.tensor_shape),
        "metadata": ref.metadata_path is not None,
        "sprite": ref.sprite_path is not None,
    }


@router.get("/projector/embedding", responses=_UNREADABLE)
def embedding(request: Request, run: Run, tag: Tag, step: Step = None) -> OrjsonResponse:
    """One embedding as the projector shows it: ``points``, ``dimensions``, ``steps`` (of its tag in the run;
    ``aligned_steps``: those with the same number of points), ``columns`` of its metadata (``kind``: categorical,
    numeric or text), its ``sprite``, ``problems`` (what is wrong with its files and was left out), ``finite``
    (points without NaN/Inf) and the content ``digest`` projections are cached by. Reading a large tensor file
    the first time takes a while; then it is cached."""
    with answering():
        return OrjsonResponse(projector(request).describe(logdir_of(request), run, tag, step))


@router.get("/projector/metadata", responses=_UNREADABLE)
def metadata(request: Request, run: Run, tag: Tag, step: Step = None) -> OrjsonResponse:
    """``{"points", "columns": [{"name", "kind", "values", "codes", "numbers"?}]}``: each metadata column
    dictionary-encoded (its distinct ``values``; each point's index into them in ``codes``; ``numbers`` the
    values as numbers when all are)."""
    service = projector(request)
    with answering():
        return OrjsonResponse(service.metadata(service.dataset(logdir_of(request), run, tag, step)))


@router.get("/projector/sprite", responses={**_UNREADABLE, 200: {"content": {"image/png": {}}}})
def sprite(request: Request, run: Run, tag: Tag, step: Step = None) -> Response:
    """The sprite image (one label image per point, tiled row by row), when it fits the embedding."""
    service = projector(request)
    with answering():
        data = service.dataset(logdir_of(request), run, tag, step)
        if data.sprite is None:
            reason = f": {data.problems[-1]}" if data.problems else ""
            raise Unusable(f"embedding {tag!r} has no usable sprite{reason}")
        image = data.ref.sprite().data
    headers = {**_SAFE_HEADERS, "Cache-Control": "no-cache", "ETag": f'"{data.digest}"'}
    return Response(image, media_type=data.sprite.content_type, headers=headers)


@router.get("/projector/bookmarks", responses=_UNREADABLE)
def bookmarks(request: Request, run: Run, tag: Tag, step: Step = None) -> Response:
    """The embedding's bookmarks file (TensorBoard's saved views, JSON) as stored."""
    service = projector(request)
    with answering():
        ref, _ = service.find(logdir_of(request), run, tag, step)
        body = ref.bookmarks()
    import orjson

    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise ApiError(422, f"the bookmarks file {ref.bookmarks_path} is not JSON: {error}") from None
    return OrjsonResponse({"bookmarks": parsed if isinstance(parsed, list) else [parsed]})


class ProjectionRequest(BaseModel):
    """A projection of one embedding (and, with ``align``, of every step of its tag with the same points)."""

    run: str
    tag: str
    step: int | None = None
    method: Literal["pca", "umap", "tsne", "custom"] = "pca"
    dims: Literal[2, 3] = 2
    components: list[Annotated[int, Field(ge=0, lt=10)]] = Field(default=[0, 1, 2], max_length=3)
    align: bool = True
    n_neighbors: int = Field(default=15, ge=2, le=200)
    min_dist: float = Field(default=0.1, ge=0.0, le=1.0)
    perplexity: float = Field(default=30.0, gt=1.0, le=200.0)
    iterations: int = Field(default=500, ge=50, le=5000)
    metric: Metric = "euclidean"
    seed: int | None = Field(default=None, ge=0, le=2**31 - 1)
    custom: list[str] = Field(
        default=["", "", "", ""],
        min_length=4,
        max_length=4,
        description="custom: the queries of the x axis' left and right ends and the y axis' bottom and top",
    )
    column: str | None = Field(default=None, description="custom: the metadata column the queries search")


@router.post("/projector/projection", responses=_UNREADABLE)
def projection(request: Request, body: ProjectionRequest) -> OrjsonResponse:
    """Start (or find) a projection: ``{"key", "state", "progress", "message", "error", "info", "position"}``.
    PCA and custom answer ``done`` at once; UMAP and t-SNE run in the background (poll ``GET
    /api/projector/job``). ``position`` is the asked step's place among the job's steps (``info.steps``), what
    ``GET /api/projector/coordinates`` takes."""
    asked = Projection(
        method=body.method,
        dims=body.dims,
        components=tuple(body.components or [0, 1, 2]),
        align=body.align,
        n_neighbors=body.n_neighbors,
        min_dist=body.min_dist,
        perplexity=body.perplexity,
        iterations=body.iterations,
        metric=body.metric,
        seed=body.seed,
        custom=(body.custom[0], body.custom[1], body.custom[2], body.custom[3]),
        column=body.column,
    )
    with answering():
        return OrjsonResponse(projector(request).project(logdir_of(request), body.run, body.tag, body.step, asked))


@router.get("/projector/job")
def job(request: Request, key: Key) -> OrjsonResponse:
    """A job's state (``queued``, ``running``, ``done``, ``failed``, ``cancelled``), progress (0 to 1), message."""
    found = projector(request).jobs.get(_key(key))
    if found is None:
        raise ApiError(404, f"no projection or comparison {key!r}")
    return OrjsonResponse(found.describe())


class CancelRequest(BaseModel):
    key: str = Field(description="the job's key, as POST answered it")


@router.post("/projector/job/cancel", responses={404: {"description": "no such job"}})
def cancel(request: Request, body: CancelRequest) -> OrjsonResponse:
    """Cancel a queued or running job (a finished one is left as it is); answers its state."""
    found = projector(request).jobs.cancel(_key(body.key))
    if found is None:
        raise ApiError(404, f"no projection or comparison {body.key!r}")
    return OrjsonResponse(found.describe())


Position = Annotated[int, Query(ge=0, description="the step's position among the job's steps (info.steps)")]


@router.get("/projector/coordinates", responses={200: {"content": {"application/octet-stream": {}}}})
def coordinates(request: Request, key: Key, position: Position = 0) -> Response:
    """A finished projection's coordinates for one step: little-endian float32, ``points × dims`` row by row
    (``X-Points`` and ``X-Dims`` headers), NaN for points left out. Immutable: a key names one result."""
    with answering():
        found = projector(request).coordinates(_key(key), position)
    headers = {"X-Points": str(found.shape[0]), "X-Dims": str(found.shape[1]), "Cache-Control": IMMUTABLE}
    return Response(found.astype("<f4").tobytes(), media_type="application/octet-stream", headers=headers)


@router.get("/projector/neighbours", responses=_UNREADABLE)
def nearest(
    request: Request,
    run: Run,
    tag: Tag,
    index: Annotated[int, Query(ge=0, description="the point (its row in tensors.tsv)")],
    step: Step = None,
    k: Annotated[int, Query(ge=1, le=1000, description="how many neighbours")] = 20,
    metric: Annotated[Metric, Query(description="the distance, on the vectors as logged")] = "cosine",
) -> OrjsonResponse:
    """The ``k`` points nearest to point ``index`` in the original space (the vectors, never a projection),
    exact, nearest first: ``{"index", "metric", "exact", "neighbours": [{"index", "distance"}]}``."""
    service = projector(request)
    with answering():
        data = service.dataset(logdir_of(request), run, tag, step)
        return OrjsonResponse(service.neighbours(data, index, k, metric))


@router.get("/projector/search", responses=_UNREADABLE)
def search(
    request: Request,
    run: Run,
    tag: Tag,
    q: Annotated[str, Query(max_length=2000, description="a search query: meta:PATTERN terms, AND, OR, NOT")],
    step: Step = None,
    column: Annotated[str | None, Query(description="search only this metadata column")] = None,
    ignore_case: bool = True,
    limit: Annotated[int, Query(ge=0, le=10_000_000)] = 1_000_000,
) -> OrjsonResponse:
    """The points whose metadata the query matches (ridgeline's pattern language over the metadata, field
    ``meta:``): ``{"query", "total", "indices"}`` (the first ``limit`` indices, ascending)."""
    service = projector(request)
    with answering():
        data = service.dataset(logdir_of(request), run, tag, step)
        if not data.columns:
            raise Unusable(f"embedding {tag!r} has no metadata to search")
        if column is not None and column not in {c.name for c in data.columns}:
            raise ApiError(400, f"query parameter 'column': no metadata column {column!r}")
        found = data.search().matching(q, column=column, ignore_case=ignore_case)
    return OrjsonResponse({"query": q, "total": len(found), "indices": found[:limit]})


class ChangesRequest(BaseModel):
    """Rank the points of one embedding by how much their neighbourhood changed from one step to another."""

    run: str
    tag: str
    before: int | None = Field(description="the first step")
    after: int | None = Field(description="the second step")
    k: int = Field(default=10, ge=1, le=200, description="neighbours compared per point")
    metric: Metric = "cosine"


@router.post("/projector/changes", responses=_UNREADABLE)
def changes(request: Request, body: ChangesRequest) -> OrjsonResponse:
    """Start (or find) the comparison (a background job, like a UMAP projection): answers its state."""
    service = projector(request)
    with answering():
        found = service.changes(logdir_of(request), body.run, body.tag, body.before, body.after, body.k, body.metric)
    return OrjsonResponse(found.describe())


@router.get("/projector/changes")
def ranking(request: Request, key: Key, limit: Annotated[int, Query(ge=1, le=100_000)] = 100) -> OrjsonResponse:
    """A finished comparison: the points whose neighbourhoods changed most first, each with its ``overlap`` (the
    share of its k nearest neighbours kept from one step to the other)."""
    with answering():
        return OrjsonResponse(projector(request).ranking(_key(key), limit))


@router.get(
    "/projector/export",
    responses={**_UNREADABLE, 200: {"content": {"text/csv": {}, "application/vnd.apache.parquet": {}}}},
)
def export_view(
    request: Request,
    key: Key,
    run: Run,
    tag: Tag,
    step: Step = None,
    position: Position = 0,
    format: Annotated[Literal["csv", "parquet"], Query(description="csv, or parquet (needs pyarrow)")] = "csv",
) -> Response:
    """A projection's coordinates with the metadata, one row per point: ``index, x, y[, z], <columns>``."""
    service = projector(request)
    with answering():
        data = service.dataset(logdir_of(request), run, tag, step)
        found = service.coordinates(_key(key), position)
        if len(found) != data.points:
            raise Unusable(f"projection {key!r} has {len(found)} points, embedding {tag!r} {data.points}")
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{tag}-{'' if step is None else step}-{key[:8]}")
    if format == "parquet":
        try:
            body = export.parquet_bytes(data, found)
        except ImportError:
            raise ApiError(422, "Parquet export needs pyarrow: pip install 'ridgeline[parquet]'") from None
        headers = {"Content-Disposition": f'attachment; filename="{name}.parquet"'}
        return Response(body, media_type="application/vnd.apache.parquet", headers=headers)
    headers = {"Content-Disposition": f'attachment; filename="{name}.csv"'}
    return StreamingResponse(export.csv_chunks(data, found), media_type="text/csv; charset=utf-8", headers=headers)
