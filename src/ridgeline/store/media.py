"""The content type of encoded media from its first bytes, and the sample rate in a WAV header: what decoding
fills in when a summary does not say."""

from __future__ import annotations

import struct

from ridgeline.store.payloads import OCTET_STREAM

_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
)


def image_content_type(data: bytes) -> str:
    """The MIME type of an encoded image from its first bytes (application/octet-stream when unknown)."""
    for magic, mime in _IMAGE_MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    head = data[:256].lstrip()
    if head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in data[:1024]):
        return "image/svg+xml"
    return OCTET_STREAM


def audio_content_type(data: bytes) -> str:
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    if data.startswith(b"OggS"):
        return "audio/ogg"
    if data.startswith(b"fLaC"):
        return "audio/flac"
    if data.startswith(b"ID3") or data[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"):
        return "audio/mpeg"
    return OCTET_STREAM


def wav_sample_rate(data: bytes) -> float | None:
    """The sample rate in a RIFF/WAVE header's fmt chunk, or None when ``data`` is not such a file."""
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    pos = 12
    while pos + 8 <= len(data):
        chunk, size = data[pos : pos + 4], struct.unpack_from("<I", data, pos + 4)[0]
        if chunk == b"fmt ":
            if size < 8 or pos + 16 > len(data):
                return None
            return float(struct.unpack_from("<I", data, pos + 12)[0])
        pos += 8 + size + (size & 1)
    return None
