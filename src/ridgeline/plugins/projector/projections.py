"""Linear projections of embedding vectors, in numpy: PCA, TensorBoard's "custom" projection along two directions,
and the Procrustes alignment that keeps points in place from one step to the next.

Rows that hold NaN/Inf (``finite`` False) take no part in fitting and come out as NaN coordinates. Nothing here
normalises the vectors: PCA centres them (as PCA must) and that is all.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_CHUNK_VALUES = 1 << 22  # values (rows × dimensions) handled at a time: bounded temporary memory
MAX_COMPONENTS = 10
_EXACT_DIMENSIONS = 2048  # above this, the covariance matrix is too large: a randomised SVD finds the components


@dataclass(frozen=True, slots=True)
class Pca:
    coordinates: np.ndarray  # (points, components) float32; NaN for rows left out
    variance: np.ndarray  # the fraction of the total variance each component explains
    mean: np.ndarray
    axes: np.ndarray  # (dimensions, components)


def _chunks(rows: int, dimensions: int) -> range:
    return range(0, rows, max(1, _CHUNK_VALUES // max(dimensions, 1)))


def pca(vectors: np.ndarray, finite: np.ndarray, components: int) -> Pca:
    """The first ``components`` principal components (fewer when the data has fewer dimensions), each axis' sign
    fixed so that its largest loading is positive (the same data gives the same picture every time)."""
    points, dimensions = vectors.shape
    kept = np.flatnonzero(finite)
    components = max(1, min(components, dimensions, MAX_COMPONENTS))
    if len(kept) == 0 or dimensions == 0:
        empty = np.full((points, components), np.nan, dtype=np.float32)
        return Pca(empty, np.zeros(components), np.zeros(dimensions), np.zeros((dimensions, components)))
    selected = vectors if len(kept) == points else None
    mean = np.zeros(dimensions, dtype=np.float64)
    for start in _chunks(len(kept), dimensions):
        mean += _rows(vectors, kept, selected, start, dimensions).sum(axis=0)
    mean /= len(kept)
    if dimensions <= _EXACT_DIMENSIONS:
        axes, variances, total = _covariance_axes(vectors, kept, selected, mean, components)
    else:
        axes, variances, total = _randomised_axes(vectors, kept, selected, mean, components)
    signs = np.sign(axes[np.argmax(np.abs(axes), axis=0), np.arange(axes.shape[1])])
    axes = axes * np.where(signs == 0, 1.0, signs)
    coordinates = project(vectors, finite, mean, axes)
    ratio = variances / total if total > 0 else np.zeros_like(variances)
    return Pca(coordinates, ratio, mean, axes)


def _rows(vectors: np.ndarray, kept: np.ndarray, whole: np.ndarray | None, start: int, dimensions: int) -> np.ndarray:
    """Rows ``start``... of the kept rows, as float64 (one chunk)."""
    step = max(1, _CHUNK_VALUES // max(dimensions, 1))
    if whole is not None:
        return np.asarray(whole[start : start + step], dtype=np.float64)
    return np.asarray(vectors[kept[start : start + step]], dtype=np.float64)


def _covariance_axes(
    vectors: np.ndarray, kept: np.ndarray, whole: np.ndarray | None, mean: np.ndarray, components: int
) -> tuple[np.ndarray, np.ndarray, float]:
    dimensions = len(mean)
    covariance = np.zeros((dimensions, dimensions), dtype=np.float64)
    for start in _chunks(len(kept), dimensions):
        chunk = _rows(vectors, kept, whole, start, dimensions) - mean
        covariance += chunk.T @ chunk
    covariance /= max(len(kept) - 1, 1)
    values, vectors_ = np.linalg.eigh(covariance)
    order = np.argsort(values)[::-1][:components]
    return vectors_[:, order], np.clip(values[order], 0, None), float(np.trace(covariance))


def _randomised_axes(
    vectors: np.ndarray, kept: np.ndarray, whole: np.ndarray | None, mean: np.ndarray, components: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """Halko et al.'s randomised range finder with power iterations, over the centred rows chunk by chunk."""
    dimensions = len(mean)
    rng = np.random.default_rng(0)
    basis = rng.standard_normal((dimensions, components + 10))
    total = 0.0
    for iteration in range(5):
        gram = np.zeros((dimensions, basis.shape[1]))
        for start in _chunks(len(kept), dimensions):
            chunk = _rows(vectors, kept, whole, start, dimensions) - mean
            gram += chunk.T @ (chunk @ basis)
            if iteration == 0:
                total += float(np.einsum("ij,ij->", chunk, chunk))
        basis, _ = np.linalg.qr(gram)
    small = np.zeros((basis.shape[1], basis.shape[1]))
    for start in _chunks(len(kept), dimensions):
        projected = (_rows(vectors, kept, whole, start, dimensions) - mean) @ basis
        small += projected.T @ projected
    values, rotation = np.linalg.eigh(small)
    order = np.argsort(values)[::-1][:components]
    scale = max(len(kept) - 1, 1)
    return basis @ rotation[:, order], np.clip(values[order], 0, None) / scale, total / scale


def project(vectors: np.ndarray, finite: np.ndarray, origin: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """``(vectors - origin) @ axes`` as float32, chunk by chunk; NaN rows where ``finite`` is False."""
    points, dimensions = vectors.shape
    out = np.empty((points, axes.shape[1]), dtype=np.float32)
    axes32 = axes.astype(np.float32)
    origin32 = origin.astype(np.float32)
    for start in _chunks(points, dimensions):
        chunk = np.asarray(vectors[start : start + _CHUNK_VALUES // max(dimensions, 1)], dtype=np.float32)
        with np.errstate(invalid="ignore", over="ignore"):
            out[start : start + len(chunk)] = (chunk - origin32) @ axes32
    out[~finite] = np.nan
    return out


def centroid(vectors: np.ndarray, rows: np.ndarray) -> np.ndarray:
    return np.asarray(vectors[rows], dtype=np.float64).mean(axis=0)


def custom(vectors: np.ndarray, finite: np.ndarray, directions: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """TensorBoard's custom projection: for each axis, the direction from the centroid of one set of rows to the
    centroid of another (``(from_rows, to_rows)``); each point's coordinate is its offset from the mean of the
    points along that direction (unit length)."""
    axes = []
    for left, right in directions:
        direction = centroid(vectors, right) - centroid(vectors, left)
        length = float(np.linalg.norm(direction))
        axes.append(direction / length if length > 0 else direction)
    kept = np.flatnonzero(finite)
    mean = centroid(vectors, kept) if len(kept) else np.zeros(vectors.shape[1])
    return project(vectors, finite, mean, np.stack(axes, axis=1))


def procrustes(reference: np.ndarray, moving: np.ndarray) -> np.ndarray:
    """``moving`` rotated (or reflected) and shifted onto ``reference`` (same points, same dimensions): the
    orthogonal Procrustes solution over the rows finite in both. Distances within ``moving`` are unchanged."""
    both = np.isfinite(reference).all(axis=1) & np.isfinite(moving).all(axis=1)
    if both.sum() < 2:
        return moving
    ref = reference[both].astype(np.float64)
    mov = moving[both].astype(np.float64)
    ref_mean, mov_mean = ref.mean(axis=0), mov.mean(axis=0)
    u, _, vt = np.linalg.svd((mov - mov_mean).T @ (ref - ref_mean))
    rotation = u @ vt
    aligned = (moving.astype(np.float64) - mov_mean) @ rotation + ref_mean
    return aligned.astype(np.float32)


def align_series(series: list[np.ndarray]) -> list[np.ndarray]:
    """Each step's coordinates aligned to the previous step's aligned ones (the first is kept as it is)."""
    aligned: list[np.ndarray] = []
    for coordinates in series:
        same = aligned and aligned[-1].shape == coordinates.shape
        aligned.append(procrustes(aligned[-1], coordinates) if same else coordinates)
    return aligned


def bounds(series: list[np.ndarray]) -> list[list[float]]:
    """[min, max] of each dimension over every step (NaN rows ignored): one scale for every step of a series."""
    dimensions = series[0].shape[1] if series else 0
    out = []
    for axis in range(dimensions):
        values = [s[:, axis][np.isfinite(s[:, axis])] for s in series]
        values = [v for v in values if len(v)]
        if not values:
            out.append([-1.0, 1.0])
            continue
        low = min(float(v.min()) for v in values)
        high = max(float(v.max()) for v in values)
        out.append([low, high])
    return out
