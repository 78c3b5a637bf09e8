"""The images and audio routes against a real ``ridgeline serve`` on log directories written by torch's and
ridgeline's writers (see media_logs.py): listings without decoding pixels, blobs with their own content types
and caching headers, 404/400 JSON errors, and bad values described instead of failing."""

from __future__ import annotations

import io
import wave
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from ridgeline.plugins.kit.media import image_size
from tests.server.conftest import Served, serving_logdir
from tests.server.media_logs import LABELS, RATE, STEPS, TF2_IMAGES, WALL, png, write_media_logs


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serving_logdir(write_media_logs(tmp_path_factory.mktemp("media"))) as served:
        yield served


def listing(media: Served, kind: str, run: str, tag: str) -> list[dict[str, object]]:
    response = media.get(f"/api/{kind}", run=run, tag=tag)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["run"], body["tag"]) == (run, tag)
    steps: list[dict[str, object]] = body["steps"]
    return steps


def blob(media: Served, kind: str, run: str, tag: str, step: object, index: int = 0, **extra: object) -> bytes:
    response = media.get(f"/api/{kind}/blob", run=run, tag=tag, step=step, index=index, **extra)
    assert response.status_code == 200, response.text
    return response.content


def test_runs_list_image_and_audio_tags(media: Served) -> None:
    runs = {entry["run"]: entry["tags"] for entry in media.get("/api/runs").json()["runs"]}
    assert set(runs["torch"]["images"]) == {
        "images/single",
        "images/batch_nchw",
        "images/batch_nhwc",
        "plots/boxes",
        "plots/figure",
    }
    assert runs["torch"]["audio"] == ["audio/tone"]
    assert {"tf2/images", "video/clip", "bad/zero_sized"} <= set(runs["ridgeline"]["images"])


@pytest.mark.parametrize(
    ("run", "tag", "size"),
    [
        ("torch", "images/single", (40, 24)),
        ("torch", "images/batch_nchw", (32, 8)),  # torch's add_images writes one grid: 4 images in a row
        ("torch", "images/batch_nhwc", (16, 8)),
        ("ridgeline", "images/single", (16, 16)),
        ("ridgeline", "images/batch_nchw", (24, 8)),
        ("ridgeline", "tf2/images", (12, 10)),
    ],
)
def test_image_listing_has_every_step_with_count_and_size(
    media: Served, run: str, tag: str, size: tuple[int, int]
) -> None:
    steps = listing(media, "images", run, tag)
    assert [s["step"] for s in steps] == list(STEPS)
    assert [s["wall_time"] for s in steps] == pytest.approx([WALL + step for step in STEPS])
    count = TF2_IMAGES if tag == "tf2/images" else 1
    for s in steps:
        assert (s["width"], s["height"], s["count"]) == (*size, count)
        assert s["content_types"] == ["image/png"] * count
        assert "error" not in s
    assert len({s["key"] for s in steps}) == len(STEPS)


def test_image_blob_is_the_stored_png_with_content_type_and_cache_headers(media: Served) -> None:
    steps = listing(media, "images", "torch", "images/single")
    response = media.get("/api/images/blob", run="torch", tag="images/single", step=10)
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert response.headers["cache-control"] == "no-cache"  # no key: revalidate
    assert response.headers["x-content-type-options"] == "nosniff"
    etag = response.headers["etag"]
    picture = Image.open(io.BytesIO(response.content))
    assert picture.size == (40, 24)
    assert image_size(response.content) == (40, 24)
    # The listing's key makes the URL name the record: cached for good; the ETag answers 304.
    keyed = media.get("/api/images/blob", run="torch", tag="images/single", step=10, key=steps[1]["key"])
    assert keyed.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert keyed.headers["etag"] == etag
    again = media.client.get(
        "/api/images/blob", params={"run": "torch", "tag": "images/single", "step": 10}, headers={"If-None-Match": etag}
    )
    assert again.status_code == 304 and again.content == b""


def test_each_image_of_a_tf2_batch_is_served(media: Served) -> None:
    shades = {blob(media, "images", "ridgeline", "tf2/images", 20, index) for index in range(TF2_IMAGES)}
    assert shades == {png(12, 10, 40 * k + 40) for k in range(TF2_IMAGES)}
    missing = media.get("/api/images/blob", run="ridgeline", tag="tf2/images", step=20, index=TF2_IMAGES)
    assert missing.status_code == 404 and "no index 3" in missing.json()["error"]


def test_boxes_figure_and_video_are_served_as_png_and_gif(media: Served) -> None:
    (boxes,) = listing(media, "images", "torch", "plots/boxes")
    assert boxes["content_types"] == ["image/png"] and (boxes["width"], boxes["height"]) == (40, 24)
    drawn = Image.open(io.BytesIO(blob(media, "images", "torch", "plots/boxes", 0))).convert("RGB")
    assert drawn.getextrema() != ((0, 0), (0, 0), (0, 0)), "the boxes are drawn on the black image"
    (figure,) = listing(media, "images", "torch", "plots/figure")
    assert figure["content_types"] == ["image/png"] and (figure["width"], figure["height"]) == (200, 150)
    (video,) = listing(media, "images", "ridgeline", "video/clip")
    assert video["content_types"] == ["image/gif"]
    response = media.get("/api/images/blob", run="ridgeline", tag="video/clip", step=0)
    assert response.headers["content-type"] == "image/gif" and response.content.startswith(b"GIF8")


def test_bad_images_are_described_not_failed(media: Served) -> None:
    (garbage,) = listing(media, "images", "ridgeline", "bad/not_an_image")
    assert "not an image format" in str(garbage["error"])
    (zero,) = listing(media, "images", "ridgeline", "bad/zero_sized")
    assert "no image bytes" in str(zero["error"])
    empty = media.get("/api/images/blob", run="ridgeline", tag="bad/zero_sized", step=0)
    assert empty.status_code == 404 and "empty" in empty.json()["error"]
    # A PNG cut short still lists (its header says PNG); the browser's decoder reports it, and the card says so.
    (cut,) = listing(media, "images", "ridgeline", "bad/corrupt_png")
    assert cut["content_types"] == ["image/png"] and "error" not in cut
    assert len(blob(media, "images", "ridgeline", "bad/corrupt_png", 0)) == 40
    # The server is fine afterwards.
    assert listing(media, "images", "torch", "images/single")


def test_audio_listing_and_clips(media: Served) -> None:
    steps = listing(media, "audio", "torch", "audio/tone")
    assert [s["step"] for s in steps] == list(STEPS)
    for s in steps:
        assert (s["count"], s["sample_rate"], s["content_type"], s["labels"]) == (1, RATE, "audio/wav", [""])
    response = media.get("/api/audio/blob", run="torch", tag="audio/tone", step=20, key=steps[2]["key"])
    assert response.headers["content-type"] == "audio/wav"
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    with wave.open(io.BytesIO(response.content)) as clip:
        assert (clip.getframerate(), clip.getnframes()) == (RATE, RATE // 4)


def test_audio_labels_of_a_tf2_value(media: Served) -> None:
    steps = listing(media, "audio", "ridgeline", "tf2/audio")
    assert steps[0]["labels"] == list(LABELS) and steps[0]["count"] == len(LABELS)
    second = blob(media, "audio", "ridgeline", "tf2/audio", 0, 1)
    with wave.open(io.BytesIO(second)) as clip:
        assert clip.getframerate() == RATE


@pytest.mark.parametrize("kind", ["images", "audio"])
def test_errors_are_json(media: Served, kind: str) -> None:
    tag = "images/single" if kind == "images" else "audio/tone"
    for params, status in [
        ({"run": "nope", "tag": tag}, 404),
        ({"run": "torch", "tag": "nope"}, 404),
        ({"run": "torch"}, 400),
    ]:
        response = media.get(f"/api/{kind}", **params)
        assert response.status_code == status and response.json()["error"], params
    for params, status in [
        ({"run": "torch", "tag": tag, "step": 5}, 404),
        ({"run": "torch", "tag": tag, "step": "x"}, 400),
        ({"run": "torch", "tag": tag, "step": 0, "index": -1}, 400),
        ({"run": "nope", "tag": tag, "step": 0}, 404),
    ]:
        response = media.get(f"/api/{kind}/blob", **params)
        assert response.status_code == status and response.json()["error"], params


def test_routes_are_in_the_openapi_spec(media: Served) -> None:
    paths = media.get("/api/openapi.json").json()["paths"]
    for path in ("/api/images", "/api/images/blob", "/api/audio", "/api/audio/blob"):
        assert "get" in paths[path], path


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
