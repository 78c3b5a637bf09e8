# The compiled record loop (_core.c); ridgeline.ingest.fastpath is its only caller.
HARDWARE_CRC: int

def parse(
    buffer: bytes | bytearray | memoryview, check_crc: bool, available: int | None, /
) -> tuple[
    int,
    list[str],
    list[tuple[int, str]],
    bytearray,
    bytearray,
    bytearray,
    bytearray,
    bytearray,
    bytearray,
    bytearray,
    bytearray,
    bytearray,
]: ...
def resume_point(
    buffer: bytes | bytearray | memoryview, first: int, available: int | None, intact: bool, /
) -> tuple[int, int]: ...
def masked_crc32c(buffer: bytes | bytearray | memoryview, /) -> int: ...
