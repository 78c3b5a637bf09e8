"""Sliding-window mean and standard deviation that do not depend on how a series was chunked.

The anomaly detectors (:mod:`ridgeline.analysis.anomaly`) judge each point by the statistics of the window
before it, and must give the same alerts whether a series arrives in one chunk or point by point: the sums here
come from blocks at fixed positions in the series, so streaming equals batch bit for bit. Pure numpy; no I/O.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

BLOCK = 8192  # windows computed at once (keeps the temporaries of a long first chunk in cache)


def window_mean_std(
    values: np.ndarray, window: int, start: int, stop: int, origin: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population standard deviation of ``values[j - window:j]`` for each ``j`` in ``start..stop-1``
    (``start >= window``), where ``values[0]`` is the series' ``origin``-th value.

    O(1) per window: the series is cut into blocks of ``window`` values at fixed positions (multiples of
    ``window`` from the series' start), each with prefix and suffix sums of its values minus the block's first
    value; a window is a suffix of one block plus a prefix of the next. The sums depend on a block's contents
    alone, so a window's result does not depend on how the series was chunked: streaming equals batch, bit for
    bit (``values`` must reach back to the start of the block before ``start``'s). Where ``E[d²] - E[d]²``
    would lose more than six digits to cancellation (a window far from its blocks' first values, say after a
    1e12 outlier), the window is summed again directly, in two passes. Computed in pieces of BLOCK windows, so
    the temporaries stay in cache."""
    pieces = [
        _block_mean_std(values, window, first, min(first + BLOCK, stop), origin) for first in range(start, stop, BLOCK)
    ]
    if not pieces:
        return np.empty(0), np.empty(0)
    return np.concatenate([mean for mean, _ in pieces]), np.concatenate([std for _, std in pieces])


def _block_mean_std(
    values: np.ndarray, window: int, start: int, stop: int, origin: int
) -> tuple[np.ndarray, np.ndarray]:
    rows = stop - start
    if rows <= 0:
        return np.empty(0), np.empty(0)
    first_block = (origin + start) // window - 1
    begin = first_block * window - origin
    if begin < 0:
        raise ValueError("values must reach back to the start of the block before start's")
    segment = values[begin:stop]
    count = -(-len(segment) // window)
    padded = np.zeros(count * window)
    padded[: len(segment)] = segment
    blocks = padded.reshape(count, window)
    reference = np.repeat(blocks[:, 0], window)
    deviation = blocks - blocks[:, :1]
    squared = deviation * deviation
    prefix1 = np.cumsum(deviation, axis=1).ravel()
    prefix2 = np.cumsum(squared, axis=1).ravel()
    suffix1 = np.cumsum(deviation[:, ::-1], axis=1)[:, ::-1].ravel()
    suffix2 = np.cumsum(squared[:, ::-1], axis=1)[:, ::-1].ravel()
    first = start - begin  # the first window's end, in segment positions
    here = slice(first, first + rows)
    back = slice(first - window, first - window + rows)
    previous = slice(first - 1, first - 1 + rows)
    offset = np.arange(first, first + rows) % window  # values in the prefix part
    has_prefix = offset > 0
    head1 = np.where(has_prefix, prefix1[previous], 0.0)
    head2 = np.where(has_prefix, prefix2[previous], 0.0)
    shift = reference[here] - reference[back]
    total1 = suffix1[back] + head1 + offset * shift
    total2 = suffix2[back] + head2 + 2 * shift * head1 + offset * shift * shift
    mean_deviation = total1 / window
    variance = total2 / window - mean_deviation * mean_deviation
    means = reference[back] + mean_deviation
    stds = np.sqrt(np.maximum(variance, 0.0))
    redo = np.flatnonzero(~(variance * 1e6 >= total2 / window))
    if len(redo):
        again = sliding_window_view(values, window)[start - window + redo]
        total = np.zeros(len(redo))
        for column in range(window):
            total += again[:, column]
        mean = total / window
        squares = np.zeros(len(redo))
        for column in range(window):
            step = again[:, column] - mean
            squares += step * step
        means[redo] = mean
        stds[redo] = np.sqrt(squares / window)
    return means, stds
