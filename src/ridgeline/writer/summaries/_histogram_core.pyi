# The compiled histogram count (_histogram_core.c); ridgeline.writer.summaries._histograms is its only caller.
def count(
    values: bytes | bytearray | memoryview,
    edges: bytes | bytearray | memoryview,
    table: bytes | bytearray | memoryview,
    /,
) -> bytearray: ...
