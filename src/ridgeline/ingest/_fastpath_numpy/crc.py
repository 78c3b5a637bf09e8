"""CRC32C in numpy for the numpy record loop: lookup tables that check the length CRCs of many headers at once,
and the check of every record's data CRC in long chains.

Data CRCs: no CRC is computed per record. In a copy of the buffer, each record's 4 stored CRC bytes are replaced
by the value that brings the *raw* CRC32C register (initial value 0, no final xor) back to 0 after the record's
data if and only if the stored CRC is right, and each (already checked) header is zeroed. Records then chain:
the raw register over a run of intact records is 0, so one hardware ``crc32c`` call checks a run of about 1 MiB
of records. A run that fails is bisected down to its bad records; the check of one record alone is exact. A bad
record never hides in a run by itself (once the register is off 0, the intact records after it never bring it
back); only the damage of two or more bad records in one run can cancel out, with probability 2^-32 for random
damage, as damage escapes one record's own CRC.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import numpy as np
import numpy.typing as npt
from crc32c import crc32c as _crc32c

from ridgeline.format.records import HEADER_SIZE
from ridgeline.format.records import MASK_DELTA as _MASK_DELTA
from ridgeline.format.records import mask as _record_mask
from ridgeline.ingest._fastpath_numpy.buffers import FRAMING, I64, U8, U32, u32_at_every_byte, u64_at_every_byte

_POLY = 0x82F63B78  # CRC32C (Castagnoli), reflected
_U32 = 0xFFFFFFFF

SMALL = 1 << 16  # data lengths below this use the precomputed tables
_CHECK_RUN_BYTES = 1 << 20  # data CRCs are checked in runs of records of about this many bytes


def masked_crc(data: Any) -> int:
    """``records.masked_crc32c`` with the crc32c package imported here (this fallback checks CRCs in Python)."""
    return _record_mask(_crc32c(data))


def _byte_table() -> U32:
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(_POLY), table >> 1).astype(np.uint32)
    return table


_BYTE_TABLE = _byte_table()


def crc32c_rows(rows: U8) -> U32:
    """The CRC32C of each row of a 2-D uint8 array, one table lookup per column for all rows at once."""
    crc = np.full(rows.shape[0], _U32, dtype=np.uint32)
    for column in range(rows.shape[1]):
        crc = _BYTE_TABLE[(crc ^ rows[:, column]) & 0xFF] ^ (crc >> 8)
    return crc ^ np.uint32(_U32)


def mask(crc: U32) -> U32:
    return (((crc >> 15) | (crc << 17)) + np.uint32(_MASK_DELTA)).astype(np.uint32)


def _unmask(masked: U32) -> U32:
    rotated = (masked - np.uint32(_MASK_DELTA)).astype(np.uint32)
    return ((rotated << 15) | (rotated >> 17)).astype(np.uint32)


class CrcTables:
    """Lookup tables, built on first use (about 20 ms, 4 MB)."""

    def __init__(self) -> None:
        words = np.arange(SMALL, dtype=np.uint32)
        self.zero8 = int(crc32c_rows(np.zeros((1, 8), dtype=np.uint8))[0])
        # word[j][w]: what the 16-bit little-endian word j = w of an 8-byte message adds (xor) to its CRC.
        self.word: list[U32] = []
        for j in range(4):
            rows = np.zeros((SMALL, 8), dtype=np.uint8)
            rows[:, 2 * j] = words & 0xFF
            rows[:, 2 * j + 1] = words >> 8
            self.word.append((crc32c_rows(rows) ^ np.uint32(self.zero8)).astype(np.uint32))
        # The masked length CRC of every length below 2^16, as an array and as a list (for the Python loop).
        self.small_length_crc: U32 = mask((self.word[0] ^ np.uint32(self.zero8)).astype(np.uint32))
        self.small_length_crc_list: list[int] = self.small_length_crc.tolist()
        # zeros[n]: the raw CRC register (no final xor) after n zero bytes from the initial 0xFFFFFFFF.
        zeros = [0] * SMALL
        register = _U32
        table = _BYTE_TABLE.tolist()
        for n in range(SMALL):
            zeros[n] = register
            register = table[register & 0xFF] ^ (register >> 8)
        self.zeros: U32 = np.array(zeros, dtype=np.uint32)

    def masked_length_crc(self, lengths: npt.NDArray[np.uint64]) -> U32:
        """The masked CRC32C of each 8-byte little-endian length (any uint64)."""
        if len(lengths) and int(lengths.max()) < SMALL:
            return self.small_length_crc[lengths.astype(np.intp)]
        crc = np.full(len(lengths), self.zero8, dtype=np.uint32)
        for j in range(4):
            crc ^= self.word[j][((lengths >> np.uint64(16 * j)) & np.uint64(0xFFFF)).astype(np.intp)]
        return mask(crc)


@functools.cache
def crc_tables() -> CrcTables:
    return CrcTables()


@functools.lru_cache(maxsize=1024)
def _zeros_register(length: int) -> int:
    """The raw CRC register after ``length`` zero bytes from 0xFFFFFFFF (for lengths past the table)."""
    return _crc32c(bytes(length)) ^ _U32


def bad_data_crcs(arr: U8, hoff: I64, dlen: I64, corrupt: list[tuple[int, str]], end: int, tables: CrcTables) -> I64:
    """Indices (into hoff) of the records whose data CRC does not match."""
    chained = arr[:end].copy()
    c32 = u32_at_every_byte(chained)
    stored = u32_at_every_byte(arr)[hoff + (HEADER_SIZE + dlen)]
    zeros = tables.zeros[np.minimum(dlen, SMALL - 1)]
    big = np.flatnonzero(dlen >= SMALL)
    if len(big):
        zeros[big] = [_zeros_register(length) for length in dlen[big].tolist()]
    # raw register of data from 0 = ~crc32c(data) ^ zeros[len]; writing it after the data zeroes the register.
    c32[hoff + (HEADER_SIZE + dlen)] = ~_unmask(stored) ^ zeros
    u64_at_every_byte(chained)[hoff] = 0  # headers were checked while framing: out of the chain
    c32[hoff + 8] = 0
    for offset, _ in corrupt:  # the bytes skipped after a bad length CRC: out of the chain
        if offset < end:
            following = int(np.searchsorted(hoff, offset))
            stop = int(hoff[following]) if following < len(hoff) else end
            chained[offset:stop] = 0
    view = memoryview(chained)  # type: ignore[arg-type]
    record_end = hoff + dlen + FRAMING

    # A chain of records checks out as a whole, or is halved until the bad records are found. Iterative on
    # purpose: a recursive closure is a reference cycle that would keep this chunk's buffers alive until the
    # garbage collector runs (tens of MB on a large file).
    bad: list[int] = []
    bounds = [*np.searchsorted(hoff, np.arange(0, end, _CHECK_RUN_BYTES)).tolist(), len(hoff)]
    pending = [(first, last) for first, last in itertools.pairwise(bounds) if first < last]
    while pending:
        first, last = pending.pop()
        if _crc32c(view[int(hoff[first]) : int(record_end[last - 1])], _U32) == _U32:
            continue
        if last - first == 1:
            bad.append(first)
            continue
        middle = (first + last) // 2
        pending += [(middle, last), (first, middle)]  # first half popped first: bad records stay in order
    return np.array(bad, dtype=np.int64)
