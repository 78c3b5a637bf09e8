"""The binary form of ``POST /api/scalars/batch`` (in process): the same numbers as the JSON form
and as what was written (NaN and ±Inf included), per-entry errors, 8-byte aligned float64 columns."""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import numpy as np
import pytest

from ridgeline.plugins.scalars.binary import decode_batch
from tests.conftest import RIDGELINE_SERIES, TORCH_SERIES, as_read
from tests.plugins.conftest import Api

PAIRS = [
    *({"run": "mixed", "tag": tag} for tag in RIDGELINE_SERIES if tag != "backwards"),
    {"run": "mixed", "tag": "nope"},
    *({"run": "torch", "tag": tag} for tag in TORCH_SERIES),
    {"run": "gone", "tag": "loss"},
]


def parse(body: bytes) -> list[dict[str, Any]]:
    """The layout read by hand (independently of ``decode_batch``): magic, header length, header, columns."""
    assert body[:4] == b"RLSB"
    (size,) = struct.unpack("<I", body[4:8])
    assert (8 + size) % 8 == 0, "the columns must start 8-byte aligned"
    entries: list[dict[str, Any]] = json.loads(body[8 : 8 + size].decode())["series"]
    offset = 8 + size
    for entry in entries:
        for name in entry["arrays"]:
            assert offset % 8 == 0
            entry[name] = list(struct.unpack_from(f"<{entry['n']}d", body, offset))
            offset += 8 * entry["n"]
    assert offset == len(body)
    return entries


def post(api: Api, binary: bool, **body: object) -> Any:
    params = {"format": "binary"} if binary else None
    response = api.client.post("/api/scalars/batch", params=params, json={"series": PAIRS, **body})
    assert response.status_code == 200
    if not binary:
        return response.json()["series"]
    assert response.headers["content-type"] == "application/octet-stream"
    return response.content


def same(ours: list[float], json_values: list[float | None]) -> bool:
    """Equal value for value, a JSON null standing for a NaN or ±Inf (the JSON form cannot carry them)."""
    return len(ours) == len(json_values) and all(
        (not math.isfinite(a)) if b is None else a == b for a, b in zip(ours, json_values, strict=True)
    )


def test_binary_batch_has_the_json_numbers_and_what_was_written(api: Api) -> None:
    entries = parse(post(api, True))
    as_json = post(api, False)
    assert [(e["run"], e["tag"]) for e in entries] == [(p["run"], p["tag"]) for p in PAIRS]
    for ours, theirs in zip(entries, as_json, strict=True):
        if "error" in theirs:
            assert ours["error"] == theirs["error"] and ours["n"] == 0 and ours["arrays"] == []
            continue
        assert ours["arrays"] == ["step", "wall_time", "value"]
        assert ours["n"] == len(theirs["step"]) == ours["total_points"] == theirs["total_points"]
        assert ours["reduced"] is theirs["reduced"] is False
        assert ours["nonfinite"] == theirs["nonfinite"]
        assert ours["step"] == theirs["step"] and ours["wall_time"] == theirs["wall_time"]
        assert same(ours["value"], theirs["value"])
        written = (RIDGELINE_SERIES if ours["run"] == "mixed" else TORCH_SERIES)[ours["tag"]]
        steps, walls, values = as_read(written)
        assert ours["step"] == steps and ours["wall_time"] == walls
        assert same(ours["value"], values)
    odd = next(e for e in entries if e["tag"] == "acc(top-1)[val]")
    assert odd["value"][0] == 1.5 and math.isnan(odd["value"][1]) and odd["value"][2:] == [math.inf, -math.inf, 2.5]
    assert [p["value"] for p in odd["nonfinite"]] == ["nan", "inf", "-inf"]
    assert "'nope'" in entries[len(RIDGELINE_SERIES) - 1]["error"] and "no run 'gone'" in entries[-1]["error"]


def test_binary_batch_reduced_with_bands(api: Api) -> None:
    entries = decode_batch(post(api, True, max_points=20))
    as_json = post(api, False, max_points=20)
    for ours, theirs in zip(entries, as_json, strict=True):
        if "error" in theirs:
            continue
        assert ours["reduced"] is theirs["reduced"]
        names = ["step", "wall_time", "value"] + (["band_low", "band_high"] if theirs["reduced"] else [])
        assert ours["arrays"] == names
        for name in names:
            assert isinstance(ours[name], np.ndarray) and ours[name].dtype == np.float64
            assert same(ours[name].tolist(), theirs[name]), name
    loss = next(e for e in entries if e["tag"] == "loss")
    assert loss["reduced"] and loss["n"] <= 20 and loss["total_points"] == 1000


def test_binary_since_step_and_accept_header(api: Api) -> None:
    response = api.client.post(
        "/api/scalars/batch",
        json={"series": [{"run": "mixed", "tag": "loss"}], "since_step": 997},
        headers={"Accept": "application/octet-stream"},
    )
    assert response.headers["content-type"] == "application/octet-stream"
    (entry,) = decode_batch(response.content)
    assert entry["step"].tolist() == [998.0, 999.0] and entry["total_points"] == 2
    # format=json wins over the Accept header.
    response = api.client.post(
        "/api/scalars/batch",
        params={"format": "json"},
        json={"series": [{"run": "mixed", "tag": "loss"}]},
        headers={"Accept": "application/octet-stream"},
    )
    assert response.headers["content-type"].startswith("application/json")


@pytest.mark.parametrize("params", [{"format": "binary"}, {"format": "xml"}])
def test_binary_errors_stay_json(api: Api, params: dict[str, str]) -> None:
    body: dict[str, object] = {"series": [{"run": "torch"}]} if params["format"] == "binary" else {"series": []}
    response = api.client.post("/api/scalars/batch", params=params, json=body)
    assert response.status_code == 400
    assert response.json()["error"]


def test_openapi_documents_the_binary_form(api: Api) -> None:
    operation = api.get("/api/openapi.json").json()["paths"]["/api/scalars/batch"]["post"]
    assert "RLSB" in operation["description"] and "float64" in operation["description"]
    assert any(p["name"] == "format" for p in operation["parameters"])
