"""Thin routes of the audio dashboard: ``GET /api/audio`` lists a tag's steps (clips, labels, sample rate) and
``GET /api/audio/blob`` answers one clip (``audio/wav`` for what torch and ridgeline write)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ridgeline.plugins.kit import OrjsonResponse, logdir_of, media
from ridgeline.plugins.kit.media import Index, Key, Step
from ridgeline.store.logdir import LogDir

router = APIRouter()


def _logdir(request: Request) -> LogDir:
    logdir = logdir_of(request)
    return logdir


@router.get("/audio")
async def audio(request: Request, run: str, tag: str) -> OrjsonResponse:
    """The steps of an audio tag: ``{"run", "tag", "steps": [{"step", "wall_time", "key", "count", "labels",
    "sample_rate", "content_type"}]}`` in step order; ``labels`` has one string per clip ("" when none was
    written), ``sample_rate`` is in Hz (null when unknown). An unreadable step has an ``error``."""
    found = media.entries(_logdir(request), "audio", run, tag)
    return OrjsonResponse({"run": run, "tag": tag, "steps": media.listing(found, media.describe_audio)})


@router.get(
    "/audio/blob",
    response_class=Response,
    responses={
        200: {
            "description": "the clip as stored, with an ETag",
            "content": {kind: {} for kind in ("audio/wav", "audio/ogg", "audio/flac", "audio/mpeg")},
        }
    },
)
async def audio_blob(request: Request, run: str, tag: str, step: Step, index: Index = 0, key: Key = None) -> Response:
    """One encoded clip as stored (``audio/wav``, or the type the writer recorded), with an ETag; 404 when the
    run, tag, step or index is unknown or the clip is empty."""
    logdir = _logdir(request)
    entry = media.entry_at(media.entries(logdir, "audio", run, tag), step, run, tag)
    return media.blob(request, entry, index, key)
