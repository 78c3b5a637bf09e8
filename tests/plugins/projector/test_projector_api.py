"""The projector's API on a real server, over embeddings written by ridgeline's, torch's and tensorboardX's
``add_embedding``: each embedding described, its metadata, PCA checked against numpy, steps aligned, exact
neighbours checked against numpy, metadata search, the custom projection, exports, sprites."""

from __future__ import annotations

import csv
import io
from typing import Any

import numpy as np
import pytest

from tests.plugins.projector import logs
from tests.plugins.projector.conftest import ok
from tests.server.conftest import Served

FEATURES = {"run": "ridgeline", "tag": "features"}


def project(server: Served, **body: Any) -> dict[str, Any]:
    answer: dict[str, Any] = ok(server.client.post("/api/projector/projection", json=body))
    return answer


def coordinates(server: Served, key: str, position: int = 0) -> np.ndarray:
    response = server.get("/api/projector/coordinates", key=key, position=position)
    assert response.status_code == 200, response.text
    dims = int(response.headers["x-dims"])
    return np.frombuffer(response.content, dtype="<f4").reshape(int(response.headers["x-points"]), dims)


def numpy_pca(matrix: np.ndarray, components: int) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates and explained-variance ratios, each axis' sign set like the server's (largest loading +)."""
    centred = matrix.astype(np.float64) - matrix.mean(axis=0)
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    axes = vt[:components].T
    axes *= np.sign(axes[np.argmax(np.abs(axes), axis=0), np.arange(components)])
    return centred @ axes, (singular**2 / np.sum(singular**2))[:components]


@pytest.mark.parametrize(
    ("run", "tag", "steps"),
    [("ridgeline", "features", [0, 5, 10]), ("torch", "layer/out", [1, 2]), ("tbx", "emb", [4])],
)
def test_each_writer_s_embeddings_are_described(server: Served, run: str, tag: str, steps: list[int]) -> None:
    info = ok(server.get("/api/projector/embedding", run=run, tag=tag, step=steps[-1]))
    assert (info["points"], info["dimensions"]) == (logs.POINTS, logs.DIMENSIONS)
    assert info["steps"] == steps and info["aligned_steps"] == steps
    assert info["problems"] == [] and info["finite"] == logs.POINTS
    assert info["sprite"]["single_image_dim"] == [6, 6]
    assert info["sprite"]["per_row"] * 6 == info["sprite"]["width"]
    # /api/runs lists the run's embedding tags under the projector's kind (the tab shows because of it).
    runs = {item["run"]: item["tags"] for item in ok(server.get("/api/runs"))["runs"]}
    assert tag in runs[run]["projector"]
    sprite = server.get("/api/projector/sprite", run=run, tag=tag, step=steps[-1])
    assert sprite.status_code == 200 and sprite.headers["content-type"] == "image/png"
    assert sprite.headers["x-content-type-options"] == "nosniff"


def test_metadata_columns_decode_to_the_rows_written(server: Served) -> None:
    body = ok(server.get("/api/projector/metadata", **FEATURES, step=5))
    columns = {c["name"]: c for c in body["columns"]}
    assert list(columns) == logs.HEADER
    rows = logs.metadata_rows()
    for position, name in enumerate(logs.HEADER):
        column = columns[name]
        assert [column["values"][code] for code in column["codes"]] == [row[position] for row in rows]
    assert columns["label"]["kind"] == "categorical"
    assert columns["score"]["kind"] == "numeric"
    assert columns["score"]["numbers"][columns["score"]["codes"][7]] == pytest.approx(float(rows[7][2]))
    info = ok(server.get("/api/projector/embedding", **FEATURES, step=5))
    assert [c["kind"] for c in info["columns"]] == ["categorical", "numeric", "numeric"]


def test_pca_is_numpy_s_pca(server: Served) -> None:
    answer = project(server, **FEATURES, step=0, method="pca", dims=3, components=[0, 1, 2], align=False)
    assert answer["state"] == "done" and answer["method"] == "pca"
    expected, ratios = numpy_pca(logs.clusters(0), 3)
    np.testing.assert_allclose(coordinates(server, answer["key"]), expected, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(answer["info"]["variance"], ratios, rtol=1e-4)
    # Other components come from the same decomposition: PC3 against PC1.
    other = project(server, **FEATURES, step=0, method="pca", dims=2, components=[2, 0], align=False)
    np.testing.assert_allclose(coordinates(server, other["key"]), expected[:, [2, 0]], rtol=1e-3, atol=1e-3)
    # Asked again: the same result, by the same key.
    assert project(server, **FEATURES, step=0, method="pca", dims=3, align=False)["key"] == answer["key"]


def test_steps_are_aligned_to_the_first(server: Served) -> None:
    aligned = project(server, **FEATURES, step=10, method="pca", dims=2, align=True)
    plain = project(server, **FEATURES, step=10, method="pca", dims=2, align=False)
    first = project(server, **FEATURES, step=0, method="pca", dims=2, align=True)
    assert aligned["info"]["aligned_to"] == 0 and plain["info"]["aligned_to"] is None
    reference = coordinates(server, first["key"])
    a, p = coordinates(server, aligned["key"]), coordinates(server, plain["key"])
    # A rotation (or reflection) and shift: distances within the step are those of its own PCA...
    np.testing.assert_allclose(np.linalg.norm(a - a[0], axis=1), np.linalg.norm(p - p[0], axis=1), rtol=1e-3, atol=1e-3)
    # ...that brings the points nearer to where they were at the first step.
    assert np.sum((a - reference) ** 2) <= np.sum((p - reference) ** 2) + 1e-6


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_neighbours_are_exact_in_the_original_space(server: Served, metric: str) -> None:
    matrix = logs.clusters(5).astype(np.float64)
    body = ok(server.get("/api/projector/neighbours", **FEATURES, step=5, index=7, k=10, metric=metric))
    assert body["metric"] == metric and body["exact"] is True
    if metric == "cosine":
        unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
        distances = 1 - unit @ unit[7]
    else:
        distances = np.linalg.norm(matrix - matrix[7], axis=1)
    distances[7] = np.inf
    expected = np.argsort(distances, kind="stable")[:10]
    assert [n["index"] for n in body["neighbours"]] == expected.tolist()
    np.testing.assert_allclose([n["distance"] for n in body["neighbours"]], distances[expected], rtol=1e-4, atol=1e-5)


def test_neighbour_errors_name_the_problem(server: Served) -> None:
    missing = server.get("/api/projector/neighbours", **FEATURES, step=5, index=logs.POINTS)
    assert missing.status_code == 404 and f"has {logs.POINTS} points" in missing.json()["error"]
    bad = server.get("/api/projector/neighbours", **FEATURES, step=5, index=1, metric="manhattan")
    assert bad.status_code == 400 and "metric" in bad.json()["error"]
    step = server.get("/api/projector/neighbours", **FEATURES, step=6, index=1)
    assert step.status_code == 404 and "its steps: 0, 5, 10" in step.json()["error"]


def test_search_the_metadata(server: Served) -> None:
    def search(**params: Any) -> Any:
        return server.get("/api/projector/search", **FEATURES, step=0, **params)

    cats = ok(search(q="meta:^cat$"))
    assert cats["total"] == logs.POINTS // 4
    assert cats["indices"] == [i for i in range(logs.POINTS) if logs.labels()[i] == 0]
    assert ok(search(q="^CAT$"))["total"] == logs.POINTS // 4  # case-insensitive by default
    assert ok(search(q="^CAT$", ignore_case=False))["total"] == 0
    either = ok(search(q="(meta:^cat$ OR meta:^dog$) NOT meta:^1"))
    rows = logs.metadata_rows()
    assert either["indices"] == [
        i for i, r in enumerate(rows) if r[0] in ("cat", "dog") and not any(v.startswith("1") for v in r)
    ]
    assert ok(search(q="^1$", column="index"))["indices"] == [1]
    for query, fragment in [("meta:(", "missing )"), ("tag:x", "not a field of the embedding's metadata")]:
        bad = search(q=query)
        assert bad.status_code == 400 and fragment in bad.json()["error"]
    assert search(q="x", column="nope").status_code == 400


def test_custom_projection_along_metadata_queries(server: Served) -> None:
    answer = project(
        server, **FEATURES, step=0, method="custom", custom=["meta:^cat$", "meta:^dog$", "meta:^bird$", "meta:^fish$"]
    )
    coords = coordinates(server, answer["key"])
    classes = logs.labels()
    assert coords[classes == 0, 0].mean() < coords[classes == 1, 0].mean()
    assert coords[classes == 2, 1].mean() < coords[classes == 3, 1].mean()
    matrix = logs.clusters(0).astype(np.float64)
    direction = matrix[classes == 1].mean(axis=0) - matrix[classes == 0].mean(axis=0)
    expected = (matrix - matrix.mean(axis=0)) @ (direction / np.linalg.norm(direction))
    np.testing.assert_allclose(coords[:, 0], expected, rtol=1e-3, atol=1e-3)
    nothing = server.client.post(
        "/api/projector/projection",
        json={**FEATURES, "step": 0, "method": "custom", "custom": ["zebra", "dog", "a", "b"]},
    )
    assert nothing.status_code == 422 and "matches no point" in nothing.json()["error"]


def test_export_the_projected_coordinates(server: Served) -> None:
    answer = project(server, **FEATURES, step=5, method="pca", dims=2, align=False)
    coords = coordinates(server, answer["key"])
    params = {**FEATURES, "step": 5, "key": answer["key"]}
    text = server.get("/api/projector/export", **params, format="csv")
    assert text.status_code == 200 and "attachment" in text.headers["content-disposition"]
    table = list(csv.reader(io.StringIO(text.text)))
    assert table[0] == ["index", "x", "y", *logs.HEADER]
    assert len(table) == logs.POINTS + 1
    assert [float(v) for v in table[8][1:3]] == pytest.approx(coords[7].tolist(), rel=1e-6)
    assert table[8][3:] == logs.metadata_rows()[7]
    import pyarrow.parquet as pq

    parquet = server.get("/api/projector/export", **params, format="parquet")
    frame = pq.read_table(io.BytesIO(parquet.content)).to_pydict()
    assert frame["label"][:4] == ["cat", "dog", "bird", "fish"]
    np.testing.assert_allclose(frame["y"], coords[:, 1], rtol=1e-6)


def test_unknown_names_and_keys_are_404(server: Served) -> None:
    assert server.get("/api/projector/embedding", run="nope", tag="x").status_code == 404
    unknown_tag = server.get("/api/projector/embedding", run="ridgeline", tag="nope")
    assert unknown_tag.status_code == 404 and "features, plain" in unknown_tag.json()["error"]
    assert server.get("/api/projector/coordinates", key="0" * 40).status_code == 404
    assert server.get("/api/projector/coordinates", key="../../etc").status_code == 404
    assert server.get("/api/projector/job", key="f" * 40).status_code == 404
    answer = project(server, **FEATURES, step=5, method="pca", dims=2)
    assert server.get("/api/projector/coordinates", key=answer["key"], position=3).status_code == 404
    assert server.client.post("/api/projector/projection", json={**FEATURES, "method": "magic"}).status_code == 400
