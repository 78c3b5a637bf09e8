"""The audio routes in process, on log directories written by torch's and ridgeline's writers (see
tests/plugins/media_logs.py): listings with sample rates and labels, WAV clips with their caching headers,
404/400 JSON errors."""

from __future__ import annotations

import io
import wave

from tests.plugins.conftest import Api, assert_media_errors_are_json, media_blob, media_listing
from tests.plugins.media_logs import LABELS, RATE, STEPS


def test_runs_list_audio_tags(media_api: Api) -> None:
    runs = {entry["run"]: entry["tags"] for entry in media_api.get("/api/runs").json()["runs"]}
    assert runs["torch"]["audio"] == ["audio/tone"]


def test_audio_listing_and_clips(media_api: Api) -> None:
    steps = media_listing(media_api, "audio", "torch", "audio/tone")
    assert [s["step"] for s in steps] == list(STEPS)
    for s in steps:
        assert (s["count"], s["sample_rate"], s["content_type"], s["labels"]) == (1, RATE, "audio/wav", [""])
    response = media_api.get("/api/audio/blob", run="torch", tag="audio/tone", step=20, key=steps[2]["key"])
    assert response.headers["content-type"] == "audio/wav"
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    with wave.open(io.BytesIO(response.content)) as clip:
        assert (clip.getframerate(), clip.getnframes()) == (RATE, RATE // 4)


def test_audio_labels_of_a_tf2_value(media_api: Api) -> None:
    steps = media_listing(media_api, "audio", "ridgeline", "tf2/audio")
    assert steps[0]["labels"] == list(LABELS) and steps[0]["count"] == len(LABELS)
    second = media_blob(media_api, "audio", "ridgeline", "tf2/audio", 0, 1)
    with wave.open(io.BytesIO(second)) as clip:
        assert clip.getframerate() == RATE


def test_errors_are_json(media_api: Api) -> None:
    assert_media_errors_are_json(media_api, "audio", "audio/tone")


def test_routes_are_in_the_openapi_spec(media_api: Api) -> None:
    paths = media_api.get("/api/openapi.json").json()["paths"]
    for path in ("/api/audio", "/api/audio/blob"):
        assert "get" in paths[path], path
