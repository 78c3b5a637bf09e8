"""What the images and audio dashboards share: finding a tag's values, summarising them for a listing without keeping
their bytes, and answering one encoded image or clip with its content type and caching headers.

A listing describes every step (count, size, labels) from the stored records (``Entry.describe`` remembers the
summary per record, so the next listing reads no file); the pixels are never decoded here: an image's size is the
one in its ``Summary.Image`` or, when that says 0, the one in its PNG/GIF/JPEG/BMP header.
"""

from __future__ import annotations

import struct
from typing import Annotated, Any, Literal

from fastapi import Query, Request
from fastapi.responses import Response

from ridgeline.plugins.kit.responses import ApiError, missing_as_404
from ridgeline.store.logdir import Entry, LogDir
from ridgeline.store.payloads import OCTET_STREAM, Audio, DecodeError, Images

MediaKind = Literal["images", "audio"]

Step = Annotated[int, Query(description="the step whose value to answer")]
Index = Annotated[int, Query(ge=0, description="which image of the step's batch (0 for a single image)")]
Key = Annotated[
    str | None,
    Query(
        description="the step's `key` from the listing: when it names the current record the answer is cached "
        "for good (Cache-Control: immutable), else it is revalidated with its ETag"
    ),
]


# Served bytes are whatever a writer stored: never sniffed into HTML, never allowed to run script (an SVG opened
# in its own tab), and cached for good when the URL names the record (``key``), else revalidated by ETag.
_SAFE_HEADERS = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "default-src 'none'; sandbox"}
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"


def entries(logdir: LogDir, kind: MediaKind, run: str, tag: str) -> list[Entry]:
    """The tag's values in step order (the ones a restart superseded left out); 404 for an unknown run or tag."""
    with missing_as_404(f"no {kind} {run!r} / {tag!r}"):
        return logdir.images(run, tag) if kind == "images" else logdir.audio(run, tag)


def entry_at(found: list[Entry], step: int, run: str, tag: str) -> Entry:
    """The value written at ``step`` (the last one when several were); 404 when none was."""
    for entry in reversed(found):
        if entry.step == step:
            return entry
    raise ApiError(404, f"run {run!r} has no value of tag {tag!r} at step {step}")


def listing(found: list[Entry], summary: Any) -> list[dict[str, Any]]:
    """One dict per step: step, wall_time, key (names the stored record) and ``summary(value)``'s fields, or
    ``error`` (and count 0) when the value cannot be decoded."""
    steps = []
    for entry in found:
        item: dict[str, Any] = {"step": entry.step, "wall_time": entry.wall_time, "key": entry.key}
        try:
            item.update(entry.describe(summary))
        except (DecodeError, OSError) as error:
            item.update(count=0, error=str(error))
        steps.append(item)
    return steps


# --- images ----------------------------------------------------------------------------------------------------


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from an encoded image's header (PNG, GIF, BMP, JPEG), without decoding it; None if unknown."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return width, height
    if data[:2] == b"BM" and len(data) >= 26:
        width, height = struct.unpack("<ii", data[18:26])
        return abs(width), abs(height)
    if data[:3] == b"\xff\xd8\xff":
        return _jpeg_size(data)
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    pos = 2
    while pos + 9 <= len(data):
        if data[pos] != 0xFF:
            return None
        marker = data[pos + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # start of frame: precision, height, width
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return width, height
        pos += 2 + length
    return None


def describe_images(value: Images) -> dict[str, Any]:
    """count, width, height and content_types of one images value; ``error`` when it cannot be shown."""
    width, height = value.width, value.height
    if (not width or not height) and value.encoded:
        width, height = image_size(value.encoded[0]) or (width, height)
    item: dict[str, Any] = {
        "count": len(value.encoded),
        "width": width,
        "height": height,
        "content_types": list(value.content_types),
    }
    if not value.encoded or not any(value.encoded):
        item["error"] = "the value holds no image bytes"
    elif OCTET_STREAM in value.content_types:
        item["error"] = "not an image format a browser shows (not PNG, JPEG, GIF, WebP, BMP or SVG)"
    elif not width or not height:
        item["error"] = f"zero-sized image ({width}x{height})"
    return item


# --- audio -----------------------------------------------------------------------------------------------------


def describe_audio(value: Audio) -> dict[str, Any]:
    """count, labels, sample_rate and content_type of one audio value."""
    item: dict[str, Any] = {
        "count": len(value.clips),
        "labels": list(value.labels),
        "sample_rate": value.sample_rate,
        "content_type": value.content_type,
    }
    if not value.clips or not any(value.clips):
        item["error"] = "the value holds no audio bytes"
    return item


# --- blobs -----------------------------------------------------------------------------------------------------


def blob(request: Request, entry: Entry, index: int, key: str | None) -> Response:
    """The ``index``-th image or clip of ``entry``: its bytes with their content type, an ETag (the record's key
    and the index), immutable caching when the URL named the current record, 304 when the ETag matches."""
    try:
        value = entry.value
    except DecodeError as error:
        raise ApiError(404, f"the value at step {entry.step} cannot be read: {error}") from None
    if isinstance(value, Images):
        items, types = value.encoded, value.content_types
    else:
        items, types = value.clips, (value.content_type,) * len(value.clips)
    if not 0 <= index < len(items):
        raise ApiError(404, f"step {entry.step} holds {len(items)} item(s); there is no index {index}")
    if not items[index]:
        raise ApiError(404, f"item {index} of step {entry.step} is empty (0 bytes)")
    etag = f'"{entry.key}-{index}"'
    headers = {**_SAFE_HEADERS, "ETag": etag, "Cache-Control": IMMUTABLE if key == entry.key else REVALIDATE}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(items[index], media_type=types[index], headers=headers)
