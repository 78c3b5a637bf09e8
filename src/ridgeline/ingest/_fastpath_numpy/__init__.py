"""The record loop in Python + numpy: the fallback where the compiled core (``_core.c``) is not built, and the
reference the core is tested against. :mod:`ridgeline.ingest.fastpath` states what both do; this package is how
the numpy one does it, in three steps (``bench/fastpath.py`` measures each against the naive alternatives and
the core):

1. Framing (:mod:`.framing`): the records' offsets and lengths, their sizes guessed in bulk and checked for many
   records at once.
2. Data CRCs (:mod:`.crc`): no CRC computed per record; runs of about 1 MiB of records checked by one hardware
   ``crc32c`` call, a run that fails bisected down to its bad records.
3. Scalar events (:mod:`.scalars`): records grouped by length, each group decoded by whole-column numpy
   operations.

:mod:`.buffers` holds the array types and byte views the three share.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ridgeline.ingest._fastpath_numpy.buffers import u32_at_every_byte, u64_at_every_byte
from ridgeline.ingest._fastpath_numpy.crc import bad_data_crcs, crc_tables
from ridgeline.ingest._fastpath_numpy.framing import frame, resync
from ridgeline.ingest._fastpath_numpy.scalars import Raw, decode_records
from ridgeline.ingest.fastpath import DATA_CRC

__all__ = ["Raw", "parse", "resume_point"]


def parse(buffer: Any, check_crc: bool, available: int | None) -> Raw:
    """The numpy implementation of :func:`ridgeline.ingest.fastpath.parse_records` (``buffer`` already bytes-like
    with 1-byte items)."""
    arr = np.frombuffer(buffer, dtype=np.uint8)
    limit = len(arr) if available is None else available
    tables = crc_tables()
    hoff, dlen, corrupt, end = frame(buffer, arr, limit, tables)
    if check_crc and len(hoff):
        bad = bad_data_crcs(arr, hoff, dlen, corrupt, end, tables)
        if len(bad):
            keep = np.ones(len(hoff), dtype=bool)
            keep[bad] = False
            corrupt = sorted([*corrupt, *((int(hoff[i]), DATA_CRC) for i in bad.tolist())])
            hoff, dlen = hoff[keep], dlen[keep]
    return decode_records(arr, hoff, dlen, end, corrupt)


def resume_point(buffer: Any, first: int, available: int | None, intact: bool) -> tuple[int, int]:
    """The numpy implementation of :func:`ridgeline.ingest.fastpath.resume_point`: (status, position)."""
    arr = np.frombuffer(buffer, dtype=np.uint8)
    limit = len(arr) if available is None else available
    return resync(buffer, arr, u64_at_every_byte(arr), u32_at_every_byte(arr), first, limit, intact, crc_tables())
