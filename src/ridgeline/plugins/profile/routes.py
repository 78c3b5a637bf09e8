"""Thin routes of the profile plugin over :mod:`ridgeline.services.profile`: ``/api/profile/...``.

Every route but ``/profile/runs`` names a run and (most) one of its traces by file name, as ``/profile/traces``
lists them; times are microseconds of the trace's clock.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from starlette.responses import FileResponse, Response

from ridgeline.plugins.kit import (
    ApiError,
    OrjsonResponse,
    app_service,
    compile_regex,
    logdir_of,
    regex_query,
    wants_binary,
)
from ridgeline.profile import frame_bytes, kinds, memory, operators, overview, ranks, timeline
from ridgeline.services.profile import Loaded, ProfileService, TraceError, find_traces
from ridgeline.store.logdir import LogDir

router = APIRouter()

TraceName = Annotated[str, Query(description="the trace's file name, as /api/profile/traces lists it")]
_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "a missing or malformed parameter"},
    404: {"description": "unknown run or trace"},
    422: {"description": "the trace cannot be read (not a Chrome trace, too large)"},
}


def _service(request: Request) -> ProfileService:
    return app_service(request, "profile", lambda: ProfileService.of(logdir_of(request)))


@contextmanager
def _answers() -> Iterator[None]:
    try:
        yield
    except TraceError as problem:
        message = str(problem)
        raise ApiError(404 if " has no " in message else 422, message) from None
    except KeyError as missing:
        raise ApiError(404, str(missing.args[0]) if missing.args else "no such run") from None


def _load(request: Request, run: str, trace: str) -> Loaded:
    with _answers():
        return _service(request).loaded(logdir_of(request), run, trace)


def _traces(logdir: LogDir, run: str) -> list[dict[str, Any]]:
    return [{"name": t.name, "worker": t.worker, "bytes": t.size} for t in find_traces(logdir, run)]


@router.get("/profile/runs", responses=_ERRORS)
def profile_runs(request: Request) -> OrjsonResponse:
    """The runs that have traces: ``{"runs": [{"run", "traces": [{"name", "worker", "bytes"}]}]}``."""
    logdir = logdir_of(request)
    found = []
    for run in logdir.runs():
        try:
            traces = _traces(logdir, run)
        except (KeyError, OSError):
            continue
        if traces:
            found.append({"run": run, "traces": traces})
    return OrjsonResponse({"runs": found})


@router.get("/profile/traces", responses=_ERRORS)
def profile_traces(request: Request, run: str) -> OrjsonResponse:
    """One run's trace files (one per worker or rank): ``{"run", "traces": [{"name", "worker", "bytes"}]}``."""
    with _answers():
        return OrjsonResponse({"run": run, "traces": _traces(logdir_of(request), run)})


@router.get("/profile/overview", responses=_ERRORS)
def profile_overview(request: Request, run: str, trace: TraceName) -> OrjsonResponse:
    """Step times and their breakdown (communication, kernel, memcpy, memset, dataloader, cpu, idle; µs), GPU
    utilisation, SM efficiency and achieved occupancy (null without device events), a recommendation, notes."""
    loaded = _load(request, run, trace)
    body = loaded.answer(("overview",), lambda: overview.overview(loaded.trace))
    return OrjsonResponse({"run": run, "trace": trace, **body})


@router.get("/profile/operators", responses=_ERRORS)
def profile_operators(
    request: Request,
    run: str,
    trace: TraceName,
    by_shapes: Annotated[bool, Query(description="one row per operator and input shapes")] = False,
    name_regex: Annotated[str | None, regex_query("only operators whose name matches")] = None,
) -> OrjsonResponse:
    """The torch operators: ``{"operators": [{"name", "input_shapes", "calls", "self_cpu", "total_cpu",
    "self_device", "total_device"}]}`` by self CPU time (µs), largest first."""
    matcher = compile_regex(name_regex, "name_regex")
    loaded = _load(request, run, trace)
    table = loaded.answer(("operators", by_shapes), lambda: operators.operators(loaded.trace, by_shapes=by_shapes))
    if matcher is not None:
        table = [row for row in table if matcher.search(row["name"])]
    return OrjsonResponse({"run": run, "trace": trace, "operators": table})


@router.get("/profile/stacks", responses=_ERRORS)
def profile_stacks(request: Request, run: str, trace: TraceName, name: str) -> OrjsonResponse:
    """The Python call stacks an operator was called from (``with_stack=True``), most frequent first:
    ``{"stacks": [{"calls", "frames" (innermost first)}]}``."""
    loaded = _load(request, run, trace)
    return OrjsonResponse(
        {"run": run, "trace": trace, "name": name, "stacks": operators.call_stacks(loaded.trace, name)}
    )


@router.get("/profile/kernels", responses=_ERRORS)
def profile_kernels(request: Request, run: str, trace: TraceName) -> OrjsonResponse:
    """Device kernels by total time: ``{"kernels": [{"name", "calls", "total", "mean", "min", "max",
    "tensor_cores", "grid", "block", "registers", "shared_memory", "blocks_per_sm", "warps_per_sm",
    "occupancy"}]}`` (empty for a CPU-only trace)."""
    loaded = _load(request, run, trace)
    table = loaded.answer(("kernels",), lambda: operators.kernels(loaded.trace))
    return OrjsonResponse({"run": run, "trace": trace, "kernels": table})


@router.get("/profile/memory", responses=_ERRORS)
def profile_memory(request: Request, run: str, trace: TraceName) -> OrjsonResponse:
    """Memory allocated over time per device (``profile_memory=True``): ``{"devices": [{"device", "ts",
    "allocated", "reserved", "peak": {"ts", "allocated"}}]}`` (µs, bytes)."""
    loaded = _load(request, run, trace)
    curves = loaded.answer(("memory",), lambda: memory.memory_curves(loaded.trace))
    return OrjsonResponse({"run": run, "trace": trace, "devices": curves})


FrameFormat = Annotated[
    Literal["json", "binary"] | None,
    Query(
        description="`binary`: the compact binary frame described above (also chosen by `Accept: "
        "application/octet-stream`); `json` or absent: JSON"
    ),
]

TIMELINE_DESCRIPTION = """What to draw of a window: `{"extent": [first, last], "lanes": [{"lane", "label",
"device", "depth"}], "start", "end", "rows": [{"lane", "depth", "ids", "ts", "dur", "name" (codes into "names"),
"blocks": [[from, to, busy fraction]]}], "names"}`. Rows with too many spans to draw send blocks for the small ones.

**Binary form** (`?format=binary`, or `Accept: application/octet-stream`), what the timeline page asks for: the
same frame as `application/octet-stream`, every integer little-endian: bytes 0-3 the magic `RLTF`, bytes 4-7 a
uint32 `H`; `H` bytes of UTF-8 JSON padded with spaces to make `8 + H` a multiple of 8, holding the fields above
but with `rows` as `[{"lane", "depth", "spans", "blocks"}]` (counts) and `spans`, `blocks` (their totals); then
the columns, each all rows' values in row order: `ts`, `dur` (float64), `blocks` (float64 triples), `ids`
(uint32), `name` (int32). An error is still a JSON answer."""


@router.get(
    "/profile/timeline",
    description=TIMELINE_DESCRIPTION,
    response_model=None,
    responses={
        **_ERRORS,
        200: {
            "description": "the frame, as JSON or (`?format=binary`) in the binary form",
            "content": {"application/json": {}, frame_bytes.MEDIA_TYPE: {}},
        },
    },
)
def profile_timeline(
    request: Request,
    run: str,
    trace: TraceName,
    start: Annotated[float | None, Query(description="window start (µs); default the trace's start")] = None,
    end: Annotated[float | None, Query(description="window end (µs); default the trace's end")] = None,
    width: Annotated[int, Query(ge=1, le=20000, description="pixels the window is drawn on")] = 1000,
    format: FrameFormat = None,
) -> OrjsonResponse | Response:
    """What to draw of a window (JSON, or the binary form with ``?format=binary``)."""
    loaded = _load(request, run, trace)
    first, last = loaded.answer(("extent",), lambda: timeline.extent(loaded.trace))
    begin = first if start is None else start
    finish = last if end is None else end
    if not (math.isfinite(begin) and math.isfinite(finish)) or finish <= begin:
        raise ApiError(400, f"query parameters 'start' and 'end': expected start < end, got {begin} and {finish}")
    frame = timeline.window(loaded.trace, loaded.rows, begin, finish, width)
    lanes = loaded.answer(("lanes",), lambda: timeline.lanes(loaded.trace, loaded.rows))
    answer = {"run": run, "trace": trace, "extent": [first, last], "lanes": lanes, **frame}
    if wants_binary(request, format):
        return Response(frame_bytes.encode(answer), media_type=frame_bytes.MEDIA_TYPE)
    return OrjsonResponse(answer)


@router.get("/profile/event", responses=_ERRORS)
def profile_event(
    request: Request, run: str, trace: TraceName, id: Annotated[int, Query(ge=0, description="the span's id")]
) -> OrjsonResponse:
    """One span of the timeline with its args: ``{"id", "name", "cat", "ts", "dur", "lane", "args"}``."""
    with _answers():
        return OrjsonResponse(
            {"run": run, "trace": trace, **_service(request).event(logdir_of(request), run, trace, id)}
        )


@router.get("/profile/download", responses={**_ERRORS, 200: {"description": "the trace file, as written"}})
def profile_download(request: Request, run: str, trace: TraceName) -> FileResponse:
    """The trace file itself, to open in Perfetto (ui.perfetto.dev) or chrome://tracing."""
    with _answers():
        file = _service(request).trace_file(logdir_of(request), run, trace)
    media = "application/gzip" if file.name.endswith(".gz") else "application/json"
    return FileResponse(file.path, media_type=media, filename=file.name)


@router.get("/profile/ranks", responses=_ERRORS)
def profile_ranks(request: Request, run: str) -> OrjsonResponse:
    """Across the run's traces (one per rank): ``{"categories", "ranks": [{"rank", "trace", "device", "steps",
    "step_time_mean", "breakdown", "overlap", "idle"}], "late_collectives": [{"step", "straggler", "delay"}]}``."""
    logdir = logdir_of(request)
    service = _service(request)
    with _answers():
        files = find_traces(logdir, run)
        loaded = [(file.name, service.load(file).trace) for file in files]
    return OrjsonResponse({"run": run, **ranks.compare(loaded)})


@router.get("/profile/steps", responses=_ERRORS)
def profile_steps(request: Request, run: str) -> OrjsonResponse:
    """The training steps the run's traces cover, for the marks on its scalar cards: ``{"run", "steps": [{"step",
    "time", "trace", "worker"}], "problems": [{"trace", "error"}]}``, ``time`` the step's duration (µs). A step is
    the N of the trace's ``ProfilerStep#N`` span: the training step when ``prof.step()`` is called once per step,
    from step 0 (docs/profile.md#next-to-the-curves). A trace without step spans covers no known step; one that
    cannot be read is named in ``problems``."""
    logdir = logdir_of(request)
    service = _service(request)
    steps: list[dict[str, Any]] = []
    problems: list[dict[str, str]] = []
    with _answers():
        files = find_traces(logdir, run)
    for file in files:
        try:
            trace = service.load(file).trace
        except TraceError as problem:
            problems.append({"trace": file.name, "error": str(problem)})
            continue
        numbers, starts, ends = kinds.steps(trace)
        for number, start, end in zip(numbers.tolist(), starts.tolist(), ends.tolist(), strict=True):
            if number >= 0:
                steps.append({"step": number, "time": end - start, "trace": file.name, "worker": file.worker})
    steps.sort(key=lambda s: (s["step"], s["worker"]))
    return OrjsonResponse({"run": run, "steps": steps, "problems": problems})
