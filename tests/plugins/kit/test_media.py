"""What the plugin kit gives media dashboards: image sizes read from the headers, listings that read each record
once."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from ridgeline.plugins.kit.media import image_size
from tests.plugins.media_logs import write_media_logs


@pytest.mark.parametrize(("size", "fmt"), [((7, 5), "PNG"), ((9, 4), "JPEG"), ((6, 3), "GIF"), ((5, 8), "BMP")])
def test_image_size_reads_headers(size: tuple[int, int], fmt: str) -> None:
    buffer = io.BytesIO()
    Image.new("RGB", size).save(buffer, format=fmt)
    assert image_size(buffer.getvalue()) == size
    assert image_size(b"nothing") is None
    assert image_size(buffer.getvalue()[:4]) is None


def test_listing_reads_each_record_once(tmp_path: Path) -> None:
    """Entry.describe remembers the summary: the second listing reads no file (the files can even be gone)."""
    import ridgeline
    from ridgeline.plugins.kit.media import describe_images
    from ridgeline.plugins.kit.media import listing as describe

    root = write_media_logs(tmp_path)
    logdir = ridgeline.open(root, cache=False)
    first = describe(logdir.images("torch", "images/single"), describe_images)
    for path in (root / "torch").iterdir():
        path.write_bytes(b"")
    assert describe(logdir.images("torch", "images/single"), describe_images) == first
