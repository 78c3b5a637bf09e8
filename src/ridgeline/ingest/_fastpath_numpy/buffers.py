"""The buffer as the numpy record loop sees it: its array types, the bytes framing adds to each record, and views
that read a little-endian integer at every byte offset."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ridgeline.format.records import FOOTER_SIZE, HEADER_SIZE

FRAMING = HEADER_SIZE + FOOTER_SIZE

U8 = npt.NDArray[np.uint8]
U32 = npt.NDArray[np.uint32]
I64 = npt.NDArray[np.int64]


def u64_at_every_byte(arr: U8) -> npt.NDArray[np.uint64]:
    """A view: element i is the little-endian uint64 at byte i."""
    return np.ndarray(shape=(max(0, len(arr) - 7),), dtype="<u8", buffer=arr, strides=(1,))


def u32_at_every_byte(arr: U8) -> U32:
    """A view: element i is the little-endian uint32 at byte i."""
    return np.ndarray(shape=(max(0, len(arr) - 3),), dtype="<u4", buffer=arr, strides=(1,))
