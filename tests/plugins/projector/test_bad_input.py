"""Bad projector input on a real server: each case answers with a message that says what is wrong (the embedding
still shown when its vectors can be read), never a 500 and never a hang."""

from __future__ import annotations

import numpy as np
import pytest

from tests.plugins.projector.conftest import ok
from tests.plugins.projector.test_projector_api import coordinates, project
from tests.server.conftest import Served


def describe(server: Served, tag: str) -> dict[str, object]:
    return dict(ok(server.get("/api/projector/embedding", run="bad", tag=tag)))


@pytest.mark.parametrize(
    ("tag", "problem"),
    [
        ("short_meta", "short_meta.tsv has 19 rows after its header line for 20 points: the metadata is left out"),
        ("single_header", "its first line is read as the column name"),
        ("small_sprite", "it holds 4 images of 8×8, not one for each of the 20 points"),
        ("nan", "2 of 20 points hold NaN or ±Inf values"),
        ("one_row", "a single point"),
        ("one_dim", "one dimension"),
    ],
)
def test_problems_are_explained_and_the_rest_shown(server: Served, tag: str, problem: str) -> None:
    info = describe(server, tag)
    problems = info["problems"]
    assert isinstance(problems, list) and any(problem in p for p in problems), problems
    answer = project(server, run="bad", tag=tag, method="pca", dims=2)
    assert answer["state"] == "done"
    coords = coordinates(server, answer["key"])
    assert coords.shape[0] == info["points"]


def test_what_is_left_out_is_left_out(server: Served) -> None:
    assert describe(server, "short_meta")["columns"] == []
    single = describe(server, "single_header")
    assert single["columns"] == [{"name": "label", "kind": "categorical", "distinct": 4}]
    assert describe(server, "small_sprite")["sprite"] is None
    assert server.get("/api/projector/sprite", run="bad", tag="small_sprite").status_code == 422
    # NaN/Inf rows: no coordinates, never a neighbour, and no neighbours of their own.
    answer = project(server, run="bad", tag="nan", method="pca", dims=2)
    coords = coordinates(server, answer["key"])
    assert np.isnan(coords[18:]).all() and np.isfinite(coords[:18]).all()
    near = ok(server.get("/api/projector/neighbours", run="bad", tag="nan", index=0, k=30))
    assert sorted(n["index"] for n in near["neighbours"]) == list(range(1, 18))
    own = server.get("/api/projector/neighbours", run="bad", tag="nan", index=19)
    assert own.status_code == 422 and "NaN" in own.json()["error"]
    # One point: projected at the origin, with no neighbours; one dimension: one component.
    assert ok(server.get("/api/projector/neighbours", run="bad", tag="one_row", index=0))["neighbours"] == []
    one_dim = project(server, run="bad", tag="one_dim", method="pca", dims=2)
    assert coordinates(server, one_dim["key"]).shape == (20, 1)


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        ("truncated", "line 20 has an empty value (two tabs in a row, or a tab at an end): the file looks truncated"),
        ("words", "not a matrix of numbers: line 4 holds 'not-a-number'"),
        ("missing", "missing.tsv does not exist"),
        ("raw_short", "it needs 320 bytes: truncated?"),
    ],
)
def test_unreadable_tensors_say_why(server: Served, tag: str, message: str) -> None:
    response = server.get("/api/projector/embedding", run="bad", tag=tag)
    assert response.status_code == 422
    assert message in response.json()["error"]
    projection = server.client.post("/api/projector/projection", json={"run": "bad", "tag": tag})
    assert projection.status_code == 422 and message in projection.json()["error"]


def test_raw_float32_tensors(server: Served) -> None:
    info = describe(server, "raw")
    assert (info["points"], info["dimensions"]) == (20, 4)


def test_a_config_pointing_outside_is_refused(server: Served) -> None:
    listing = ok(server.get("/api/embeddings"))
    assert "resolves outside the config's directory" in listing["errors"]["outside"]
    assert "ridgeline" in listing["runs"]
    response = server.get("/api/projector/embedding", run="outside", tag="escape")
    assert response.status_code == 422 and "resolves outside" in response.json()["error"]
