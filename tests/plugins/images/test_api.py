"""The images routes in process, on log directories written by torch's and ridgeline's writers (see
tests/plugins/media_logs.py): listings without decoding pixels, blobs with their own content types and caching
headers, 404/400 JSON errors, and bad values described instead of failing."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from ridgeline.plugins.kit.media import image_size
from tests.plugins.conftest import Api, assert_media_errors_are_json, media_blob, media_listing
from tests.plugins.media_logs import STEPS, TF2_IMAGES, WALL, png


def test_runs_list_image_tags(media_api: Api) -> None:
    runs = {entry["run"]: entry["tags"] for entry in media_api.get("/api/runs").json()["runs"]}
    assert set(runs["torch"]["images"]) == {
        "images/single",
        "images/batch_nchw",
        "images/batch_nhwc",
        "plots/boxes",
        "plots/figure",
    }
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
    media_api: Api, run: str, tag: str, size: tuple[int, int]
) -> None:
    steps = media_listing(media_api, "images", run, tag)
    assert [s["step"] for s in steps] == list(STEPS)
    assert [s["wall_time"] for s in steps] == pytest.approx([WALL + step for step in STEPS])
    count = TF2_IMAGES if tag == "tf2/images" else 1
    for s in steps:
        assert (s["width"], s["height"], s["count"]) == (*size, count)
        assert s["content_types"] == ["image/png"] * count
        assert "error" not in s
    assert len({s["key"] for s in steps}) == len(STEPS)


def test_image_blob_is_the_stored_png_with_content_type_and_cache_headers(media_api: Api) -> None:
    steps = media_listing(media_api, "images", "torch", "images/single")
    response = media_api.get("/api/images/blob", run="torch", tag="images/single", step=10)
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert response.headers["cache-control"] == "no-cache"  # no key: revalidate
    assert response.headers["x-content-type-options"] == "nosniff"
    etag = response.headers["etag"]
    picture = Image.open(io.BytesIO(response.content))
    assert picture.size == (40, 24)
    assert image_size(response.content) == (40, 24)
    # The listing's key makes the URL name the record: cached for good; the ETag answers 304.
    keyed = media_api.get("/api/images/blob", run="torch", tag="images/single", step=10, key=steps[1]["key"])
    assert keyed.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert keyed.headers["etag"] == etag
    again = media_api.client.get(
        "/api/images/blob", params={"run": "torch", "tag": "images/single", "step": 10}, headers={"If-None-Match": etag}
    )
    assert again.status_code == 304 and again.content == b""


def test_each_image_of_a_tf2_batch_is_served(media_api: Api) -> None:
    shades = {media_blob(media_api, "images", "ridgeline", "tf2/images", 20, index) for index in range(TF2_IMAGES)}
    assert shades == {png(12, 10, 40 * k + 40) for k in range(TF2_IMAGES)}
    missing = media_api.get("/api/images/blob", run="ridgeline", tag="tf2/images", step=20, index=TF2_IMAGES)
    assert missing.status_code == 404 and "no index 3" in missing.json()["error"]


def test_boxes_figure_and_video_are_served_as_png_and_gif(media_api: Api) -> None:
    (boxes,) = media_listing(media_api, "images", "torch", "plots/boxes")
    assert boxes["content_types"] == ["image/png"] and (boxes["width"], boxes["height"]) == (40, 24)
    drawn = Image.open(io.BytesIO(media_blob(media_api, "images", "torch", "plots/boxes", 0))).convert("RGB")
    assert drawn.getextrema() != ((0, 0), (0, 0), (0, 0)), "the boxes are drawn on the black image"
    (figure,) = media_listing(media_api, "images", "torch", "plots/figure")
    assert figure["content_types"] == ["image/png"] and (figure["width"], figure["height"]) == (200, 150)
    (video,) = media_listing(media_api, "images", "ridgeline", "video/clip")
    assert video["content_types"] == ["image/gif"]
    response = media_api.get("/api/images/blob", run="ridgeline", tag="video/clip", step=0)
    assert response.headers["content-type"] == "image/gif" and response.content.startswith(b"GIF8")


def test_bad_images_are_described_not_failed(media_api: Api) -> None:
    (garbage,) = media_listing(media_api, "images", "ridgeline", "bad/not_an_image")
    assert "not an image format" in str(garbage["error"])
    (zero,) = media_listing(media_api, "images", "ridgeline", "bad/zero_sized")
    assert "no image bytes" in str(zero["error"])
    empty = media_api.get("/api/images/blob", run="ridgeline", tag="bad/zero_sized", step=0)
    assert empty.status_code == 404 and "empty" in empty.json()["error"]
    # A PNG cut short still lists (its header says PNG); the browser's decoder reports it, and the card says so.
    (cut,) = media_listing(media_api, "images", "ridgeline", "bad/corrupt_png")
    assert cut["content_types"] == ["image/png"] and "error" not in cut
    assert len(media_blob(media_api, "images", "ridgeline", "bad/corrupt_png", 0)) == 40
    # The server is fine afterwards.
    assert media_listing(media_api, "images", "torch", "images/single")


def test_errors_are_json(media_api: Api) -> None:
    assert_media_errors_are_json(media_api, "images", "images/single")


def test_routes_are_in_the_openapi_spec(media_api: Api) -> None:
    paths = media_api.get("/api/openapi.json").json()["paths"]
    for path in ("/api/images", "/api/images/blob"):
        assert "get" in paths[path], path
