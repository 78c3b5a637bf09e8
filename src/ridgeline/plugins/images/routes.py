"""Thin routes of the images dashboard: ``GET /api/images`` lists a tag's steps (with the count and size of the
images at each, read from the stored records without decoding pixels) and ``GET /api/images/blob`` answers one
encoded image with its own content type (see :mod:`ridgeline.plugins.images.media`).

The routes are ``async``: a listing reads a few small records once (then remembered), a blob one record; cheaper on
the event loop than a hop to the thread pool for each of the page's many small requests."""

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


@router.get("/images")
async def images(request: Request, run: str, tag: str) -> OrjsonResponse:
    """The steps of an image tag: ``{"run", "tag", "steps": [{"step", "wall_time", "key", "count", "width",
    "height", "content_types"}]}`` in step order.

    ``count`` is how many images the step holds (a batch written as separate images, as TensorFlow's
    ``tf.summary.image`` does; torch's ``add_images`` writes one grid); ``key`` names the stored record (pass it
    to the blob route). A step whose value cannot be shown has an ``error`` saying why (no bytes, zero size, not
    an image format)."""
    found = media.entries(_logdir(request), "images", run, tag)
    return OrjsonResponse({"run": run, "tag": tag, "steps": media.listing(found, media.describe_images)})


@router.get(
    "/images/blob",
    response_class=Response,
    responses={
        200: {
            "description": "the image as stored, with an ETag",
            "content": {
                kind: {}
                for kind in ("image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/svg+xml")
            },
        }
    },
)
async def image_blob(request: Request, run: str, tag: str, step: Step, index: Index = 0, key: Key = None) -> Response:
    """One encoded image as stored (PNG, JPEG, GIF, WebP, BMP or SVG, with that Content-Type), with an ETag;
    404 when the run, tag, step or index is unknown or the image is empty."""
    logdir = _logdir(request)
    entry = media.entry_at(media.entries(logdir, "images", run, tag), step, run, tag)
    return media.blob(request, entry, index, key)
