# The compiled trace scanner (_scan.c); ridgeline.profile.scanned, split, parse and overview call it.
from typing import Any as Buffer

def scan(
    body: bytes, count: int, /
) -> (
    tuple[
        tuple[list[bytes], list[bytes], list[bytes], list[bytes], list[bytes], list[bytes], list[bytes], list[bytes]],
        bytes,
        bytes,
        bytes,
    ]
    | None
): ...
def bounds(buffer: bytes | bytearray, start: int, /) -> tuple[bytes, int]: ...
def nesting(lane: Buffer, ts: Buffer, dur: Buffer, /) -> tuple[bytes, bytes]: ...
def sweep(starts: Buffer, ends: Buffer, categories: tuple[Buffer, ...], /) -> bytes: ...
