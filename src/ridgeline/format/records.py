"""TFRecord framing, the container of every tfevents file.

Each record on disk is::

    uint64 length            little-endian
    uint32 masked_crc32c(length bytes)
    byte   data[length]
    uint32 masked_crc32c(data)

``masked_crc32c`` rotates the CRC32C right by 15 bits and adds 0xA282EAD8, so that a CRC of data that itself
contains CRCs does not degenerate.
"""

from __future__ import annotations

import contextlib
import functools
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass

HEADER_SIZE = 12  # length + its CRC
FOOTER_SIZE = 4  # CRC of the data
MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF
LENGTH = struct.Struct("<Q")
HEADER = struct.Struct("<QI")  # the length and its masked CRC
CRC = struct.Struct("<I")


def crc32c(data: bytes | memoryview, value: int = 0) -> int:
    """The CRC32C of ``data`` (continuing from ``value``): the ``crc32c`` package's, loaded on first use (see
    :func:`_crc32c_function`: a reader whose compiled core checks the CRCs itself, ``ridgeline.ingest.fastpath``,
    never loads it)."""
    return _crc32c_function()(data, value=value)


@functools.cache
def _crc32c_function() -> Callable[..., int]:
    """The ``crc32c`` package's function, from its compiled module loaded alone when it can be: importing the
    package runs ``importlib.metadata`` to look up its own version (17 ms of a 0.3 s warm start of the store, for
    a function that takes 0.5 ms to load); anything unexpected, and the package is imported as usual."""
    with contextlib.suppress(Exception):
        return _compiled_crc32c()
    from crc32c import crc32c as function

    return function  # type: ignore[no-any-return]


def _compiled_crc32c() -> Callable[..., int]:
    import importlib.machinery
    import importlib.util
    import os

    package = importlib.util.find_spec("crc32c")  # found, not imported
    if package is None or not package.submodule_search_locations:
        raise ImportError("no crc32c package")
    for directory in package.submodule_search_locations:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(directory, "_crc32c" + suffix)
            if os.path.isfile(path):
                loader = importlib.machinery.ExtensionFileLoader("crc32c._crc32c", path)
                spec = importlib.util.spec_from_file_location("crc32c._crc32c", path, loader=loader)
                if spec is None:
                    break
                module = importlib.util.module_from_spec(spec)
                loader.exec_module(module)
                function = module.crc32c
                if function(b"123456789") != 0xE3069283:  # the CRC-32C check value
                    raise ImportError("not CRC-32C")
                return function  # type: ignore[no-any-return]
    raise ImportError("no compiled crc32c module")


def masked_crc32c(data: bytes | memoryview) -> int:
    """The masked CRC32C that TFRecord stores beside the length and the data."""
    return mask(_crc32c_function()(data))


def mask(crc: int) -> int:
    """TFRecord's mask of a CRC32C (for a CRC computed in pieces: ``crc32c.crc32c(piece, value=crc)``)."""
    return (((crc >> 15) | (crc << 17)) + MASK_DELTA) & _U32


def frame(data: bytes) -> bytes:
    """One complete record holding ``data``."""
    length = LENGTH.pack(len(data))
    return b"".join((length, CRC.pack(masked_crc32c(length)), data, CRC.pack(masked_crc32c(data))))


class CorruptRecordError(ValueError):
    """A record whose length or data does not match its CRC."""

    def __init__(self, offset: int, reason: str) -> None:
        super().__init__(f"corrupt record at byte {offset}: {reason}")
        self.offset = offset
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Record:
    offset: int  # where the record's header starts
    data: bytes

    @property
    def end(self) -> int:
        return self.offset + HEADER_SIZE + len(self.data) + FOOTER_SIZE


def record_size(buffer: bytes | memoryview, offset: int = 0) -> int | None:
    """The full on-disk size of the record starting at ``offset``, if its header is complete and intact."""
    view = memoryview(buffer)
    if len(view) - offset < HEADER_SIZE:
        return None
    length, length_crc = HEADER.unpack_from(view, offset)
    if masked_crc32c(view[offset : offset + 8]) != length_crc:
        return None
    return int(HEADER_SIZE + length + FOOTER_SIZE)


def read_record(buffer: bytes | memoryview, offset: int = 0, *, check_crc: bool = True) -> Record | None:
    """The record starting at ``offset``, or None when the buffer ends before the record does.

    A record cut short is not an error: a writer may still be appending it. A record whose CRCs do not match
    raises CorruptRecordError; with ``check_crc=False`` only the length's CRC is checked, since a wrong length
    would make every later record unreadable.
    """
    view = memoryview(buffer)
    if len(view) - offset < HEADER_SIZE:
        return None
    length, length_crc = HEADER.unpack_from(view, offset)
    if masked_crc32c(view[offset : offset + 8]) != length_crc:
        raise CorruptRecordError(offset, "length CRC mismatch")
    start = offset + HEADER_SIZE
    end = start + length
    if len(view) < end + FOOTER_SIZE:
        return None
    data = view[start:end]
    if check_crc and masked_crc32c(data) != CRC.unpack_from(view, end)[0]:
        raise CorruptRecordError(offset, "data CRC mismatch")
    return Record(offset, bytes(data))


def iter_records(buffer: bytes | memoryview, *, check_crc: bool = True) -> Iterator[Record]:
    """Every complete record in ``buffer``, in order; raises CorruptRecordError at the first corrupt one."""
    offset = 0
    while (record := read_record(buffer, offset, check_crc=check_crc)) is not None:
        yield record
        offset = record.end
