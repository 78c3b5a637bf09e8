"""Thin routes of the scalars plugin: parse the request, read the LogDir, shape it (``series.py``), serialise.

Served under ``/api`` (the documented ``/api/scalars``, ``/api/scalars/batch``, ``/api/scalars.csv`` and
``/api/scalars.json``). A series is answered as ``{"step", "wall_time", "value", "reduced", "total_points",
"nonfinite"}`` plus ``band_low``/``band_high`` when reduced (see :mod:`ridgeline.plugins.scalars.series`).
The routes are plain ``def``: FastAPI runs them in its thread pool, so reducing a long series never stalls the
event loop (and every other request with it). Reduced answers are remembered per series version
(``answers.ReducedAnswers``): a chart polled while its series does not change is answered without a rescan, and a
long series of the on-disk store is reduced from its level-of-detail pyramid, never scanned (``indexed_payload``).
"""

from __future__ import annotations

import csv
import io
from typing import Annotated, Literal
from urllib.parse import quote

import orjson
from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ridgeline.plugins.kit import OrjsonResponse, logdir_of, missing_as_404, wants_binary
from ridgeline.plugins.scalars import binary
from ridgeline.plugins.scalars.answers import MAX_BATCH_SERIES, REDUCED, batch_entries
from ridgeline.plugins.scalars.series import Window, series_payload
from ridgeline.store.logdir import LogDir
from ridgeline.store.provider import Scalars

router = APIRouter()


MaxPoints = Annotated[
    int | None,
    Query(ge=2, description="reduce to at most this many points, keeping every bucket's min, max, first and last"),
]
SinceStep = Annotated[int | None, Query(description="only the points with a step greater than this (live polling)")]
MinStep = Annotated[int | None, Query(description="only the points with a step >= this (applied before reduction)")]
MaxStep = Annotated[int | None, Query(description="only the points with a step <= this (applied before reduction)")]


def _no_bool(value: object) -> object:
    """JSON's false is no step: pydantic would take it as 0 (a float with an integer value, 715.0, stays an
    integer, as JSON Schema says)."""
    if isinstance(value, bool):
        raise ValueError("expected an integer, not a boolean")
    return value


Step = Annotated[int, BeforeValidator(_no_bool)]


class SeriesKey(BaseModel):
    model_config = ConfigDict(strict=True)  # what the spec says: strings, never numbers turned into strings
    run: str
    tag: str


class BatchRequest(BaseModel):
    series: list[SeriesKey] = Field(max_length=MAX_BATCH_SERIES)
    max_points: Annotated[int, Field(ge=2), BeforeValidator(_no_bool)] | None = None  # ge first: the spec's minimum
    since_step: Step | None = None
    min_step: Step | None = None
    max_step: Step | None = None


def _logdir(request: Request) -> LogDir:
    logdir = logdir_of(request)
    return logdir


def _read(logdir: LogDir, run: str, tag: str) -> Scalars:
    with missing_as_404(f"no series {run!r} / {tag!r}"):
        return logdir.scalars(run, tag)


@router.get("/scalars")
def scalars(
    request: Request,
    run: str,
    tag: str,
    max_points: MaxPoints = None,
    since_step: SinceStep = None,
    min_step: MinStep = None,
    max_step: MaxStep = None,
) -> OrjsonResponse:
    """One series: ``{"step", "wall_time", "value", "reduced", "total_points", "nonfinite"}``.

    A ``null`` value is a NaN or ±Inf that was logged; ``nonfinite`` says which, for every such point in range.
    ``min_step``/``max_step`` (inclusive) and ``since_step`` (exclusive) choose the points; ``max_points`` (at
    least 2) then reduces them, keeping first, last and each bucket's min and max, and adds ``band_low`` and
    ``band_high``: per kept point, the extent of the values it stands for.
    """
    with missing_as_404(f"no series {run!r} / {tag!r}"):
        answer = REDUCED.payload(_logdir(request), run, tag, Window(max_points, since_step, min_step, max_step))
    return OrjsonResponse(answer)


BatchFormat = Annotated[
    Literal["json", "binary"] | None,
    Query(
        description="`binary`: the compact binary answer described above (also chosen by `Accept: "
        "application/octet-stream`); `json` or absent: JSON"
    ),
]

BATCH_DESCRIPTION = """Many series in one request: `{"series": [...]}` in request order, each with `run` and `tag`
and the fields of `GET /api/scalars`, or with an `error` when that pair is unknown (a run deleted while a page shows
it must not break the page).

**Binary form** (`?format=binary`, or `Accept: application/octet-stream`): the same series as
`application/octet-stream`, about half the bytes of JSON and no number to parse. Every integer little-endian:

- bytes 0-3: the magic `RLSB`; bytes 4-7: uint32 `H`, the header's length;
- `H` bytes of UTF-8 JSON, padded with spaces so that `8 + H` is a multiple of 8:
  `{"series": [{"run", "tag", "n", "reduced", "total_points", "nonfinite", "arrays"}, ...]}` in request order, or
  `{"run", "tag", "error", "n": 0, "arrays": []}` for an unknown pair;
- then, entry after entry, the columns its `arrays` names (in that order: `step`, `wall_time`, `value`, and
  `band_low`, `band_high` when reduced), each `n` float64 values, so every column is 8-byte aligned.

Steps travel as float64 (exact below 2^53); NaN and ±Inf travel as themselves (`nonfinite` lists them as in JSON,
and a band value is NaN where the JSON form has null). A malformed body is still a JSON 400."""


@router.post(
    "/scalars/batch",
    description=BATCH_DESCRIPTION,
    response_model=None,
    responses={
        200: {
            "description": "the series, as JSON or (`?format=binary`) in the binary form",
            "content": {"application/json": {}, binary.MEDIA_TYPE: {}},
        }
    },
)
def batch(
    request: Request, body: Annotated[BatchRequest, Body()], format: BatchFormat = None
) -> OrjsonResponse | Response:
    """Many series in one request (JSON, or the binary form with ``?format=binary``)."""
    logdir = _logdir(request)
    window = Window(body.max_points, body.since_step, body.min_step, body.max_step)
    results = batch_entries(logdir, [(key.run, key.tag) for key in body.series], window)
    if wants_binary(request, format):
        return Response(binary.encode_batch(results), media_type=binary.MEDIA_TYPE)
    return OrjsonResponse({"series": results})


@router.get("/scalars.csv", response_class=Response)
def scalars_csv(request: Request, run: str, tag: str) -> Response:
    """The full series as a CSV download: header ``step,wall_time,value``; floats round-trip; ``nan``/``inf``."""
    data = _read(_logdir(request), run, tag)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(("step", "wall_time", "value"))
    writer.writerows(
        (step, repr(wall), repr(value))
        for step, wall, value in zip(data.step.tolist(), data.wall_time.tolist(), data.value.tolist(), strict=True)
    )
    return Response(buffer.getvalue(), media_type="text/csv; charset=utf-8", headers=_attachment(run, tag, "csv"))


@router.get("/scalars.json", response_class=Response)
def scalars_json(request: Request, run: str, tag: str) -> Response:
    """The full series as a JSON download: ``{"run", "tag", "step", "wall_time", "value", "nonfinite", ...}``."""
    data = _read(_logdir(request), run, tag)
    body = orjson.dumps(
        {"run": run, "tag": tag, **series_payload(data, Window())},
        option=orjson.OPT_SERIALIZE_NUMPY,
    )
    return Response(body, media_type="application/json", headers=_attachment(run, tag, "json"))


def _attachment(run: str, tag: str, extension: str) -> dict[str, str]:
    """``Content-Disposition: attachment`` naming the file after the run and tag (UTF-8, with an ASCII fallback)."""
    name = f"{run}_{tag}".replace("/", "_").replace("\\", "_") + f".{extension}"
    ascii_name = "".join(c if c.isascii() and (c.isalnum() or c in "._-()[]") else "_" for c in name)
    return {"Content-Disposition": f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name, safe='')}"}
