"""Nearest neighbours in the original space (the logged vectors, never a projection of them), exact, in numpy.

Two metrics, always named in answers: ``cosine`` (1 − cosine similarity) and ``euclidean``. Nothing is normalised
behind the user's back: cosine divides by each vector's norm because that is what the cosine is, euclidean uses
the vectors as logged. One query is one matrix-vector product over the rows (0.1 s at 100k × 768, under a second
at 1M × 768), so no approximate index is needed; every answer says ``exact``. Rows with NaN/Inf, and zero vectors
under cosine, are never neighbours.

:func:`changes` ranks the points whose neighbourhoods changed most between two steps of one embedding: the overlap
of each point's k nearest neighbours at both steps (1: the same neighbours, 0: none in common).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

METRICS = ("cosine", "euclidean")
_CHUNK_VALUES = 1 << 24  # entries of one block of the all-pairs distance matrix (64 MB of float32)

Progress = Callable[[float], None]


def _unit(vectors: np.ndarray, norms: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(vectors, dtype=np.float32) / norms[:, None]


def _usable(finite: np.ndarray, norms: np.ndarray, metric: str) -> np.ndarray:
    return finite & (norms > 0) if metric == "cosine" else finite


def nearest(
    vectors: np.ndarray, norms: np.ndarray, finite: np.ndarray, index: int, k: int, metric: str
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` rows nearest to row ``index`` (itself excluded), nearest first, and their distances."""
    usable = _usable(finite, norms, metric)
    query = np.asarray(vectors[index], dtype=np.float32)
    distances = np.empty(len(vectors), dtype=np.float32)
    step = max(1, _CHUNK_VALUES // max(vectors.shape[1], 1))
    for start in range(0, len(vectors), step):
        block = np.asarray(vectors[start : start + step], dtype=np.float32)
        distances[start : start + len(block)] = _distances(block, norms[start : start + len(block)], query, metric)
    distances[~usable] = np.inf
    distances[index] = np.inf
    k = min(k, int(np.isfinite(distances).sum()))
    if k <= 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
    chosen = np.argpartition(distances, k - 1)[:k]
    order = np.lexsort((chosen, distances[chosen]))
    return chosen[order].astype(np.int64), distances[chosen[order]]


def _distances(block: np.ndarray, norms: np.ndarray, query: np.ndarray, metric: str) -> np.ndarray:
    if metric == "cosine":
        query_norm = float(np.linalg.norm(query))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(1.0 - (block @ query) / (norms * query_norm), dtype=np.float32)
    difference = block - query  # exact, not |a|² + |b|² − 2a·b, which loses the small distances
    with np.errstate(invalid="ignore", over="ignore"):
        return np.sqrt(np.einsum("ij,ij->i", difference, difference)).astype(np.float32)


def all_nearest(vectors: np.ndarray, finite: np.ndarray, k: int, metric: str, progress: Progress) -> np.ndarray:
    """Every row's ``k`` nearest rows (itself excluded), as an (points, k) int array, exact: blocks of rows against
    all rows (rows left out get -1)."""
    points = len(vectors)
    norms = np.sqrt(np.einsum("ij,ij->i", vectors, vectors, dtype=np.float64)).astype(np.float32)
    usable = _usable(finite, norms, metric)
    data = _unit(vectors, norms) if metric == "cosine" else np.asarray(vectors, dtype=np.float32)
    data = np.where(usable[:, None], data, 0.0).astype(np.float32)
    squares = np.einsum("ij,ij->i", data, data)
    k = max(0, min(k, int(usable.sum()) - 1))
    out = np.full((points, k), -1, dtype=np.int64)
    if k == 0:
        return out
    step = max(1, _CHUNK_VALUES // max(points, 1))
    for start in range(0, points, step):
        block = data[start : start + step]
        scores = block @ data.T  # similarity (cosine) or −distance²/2 up to a per-row constant (euclidean)
        if metric == "euclidean":
            scores = scores - squares[None, :] / 2
        scores[:, ~usable] = -np.inf
        rows = np.arange(start, start + len(block))
        scores[rows - start, rows] = -np.inf
        chosen = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        out[start : start + len(block)] = chosen
        progress(min(1.0, (start + len(block)) / points))
    out[~usable] = -1
    return out


def changes(
    before: np.ndarray, after: np.ndarray, finite: np.ndarray, k: int, metric: str, progress: Progress
) -> tuple[np.ndarray, np.ndarray]:
    """The points ordered from the most changed neighbourhood to the least, and each one's overlap (the share of
    its ``k`` nearest neighbours at ``before`` that are still among them at ``after``). Points left out (NaN/Inf
    at either step) are not ranked."""
    first = all_nearest(before, finite, k, metric, lambda done: progress(done / 2))
    second = all_nearest(after, finite, k, metric, lambda done: progress(0.5 + done / 2))
    width = first.shape[1]
    if width == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
    ranked = np.flatnonzero((first[:, 0] >= 0) & (second[:, 0] >= 0))
    a = np.sort(first[ranked], axis=1)
    b = np.sort(second[ranked], axis=1)
    shared = np.zeros(len(ranked), dtype=np.int64)
    for column in range(width):  # each of a's neighbours found in b's sorted row
        position = np.clip(_searchsorted_rows(b, a[:, column]), 0, width - 1)
        shared += b[np.arange(len(ranked)), position] == a[:, column]
    overlap = (shared / width).astype(np.float32)
    order = np.lexsort((ranked, overlap))
    return ranked[order], overlap[order]


def _searchsorted_rows(sorted_rows: np.ndarray, values: np.ndarray) -> np.ndarray:
    """For each row, where ``values[row]`` goes in ``sorted_rows[row]`` (a row-wise searchsorted)."""
    return (sorted_rows < values[:, None]).sum(axis=1)
