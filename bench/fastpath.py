"""Micro-benchmark of ``ridgeline.ingest.fastpath.parse_records``, the inner loop of loading a log directory.

The case: N scalar records (10 tags ``loss/train_0`` .. ``loss/train_9``, steps 0 .. N/10 - 1, about 49 bytes
each, written by ridgeline's own encoder), parsed the way ``ingest.tail`` reads a file: chunks (8 MiB by
default), each starting where the previous one's complete records ended. Reported: seconds for all N and
records/s, with and without data CRC checks, for the compiled core (when built) and the numpy path, next to the
floor (reading the bytes and one CRC32C over all of them) and the naive ways the numpy path replaced, timed on the
same bytes:

- read + CRC floor: ``crc32c`` over the whole buffer once (the work no parser can skip, minus the read);

- protobuf per record: split with ``struct``, check both CRCs with one ``crc32c`` call each, then
  ``Event.FromString`` and read tag, step, wall_time and simple_value;
- crc32c per record: the same split and the two ``crc32c`` calls per record, without decoding anything;
- split loop: the ``struct.unpack_from`` loop over the lengths alone, checking nothing;
- numpy table CRC: the data CRCs computed column by column in numpy (one table lookup per byte column for all
  records of one length at once), instead of chaining the records through one ``crc32c`` call per run.

Every figure is the best of ``--repeats`` runs (the least disturbed by whatever else the machine is doing).
Nothing here asserts on speed; the exit status is non-zero only when a parse gives wrong results.

    python bench/fastpath.py [--records N] [--repeats R] [--chunk BYTES] [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import struct
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from crc32c import crc32c

from ridgeline.format import records
from ridgeline.format.proto import event_pb2
from ridgeline.ingest import fastpath
from ridgeline.ingest._fastpath_numpy import buffers, crc, framing
from ridgeline.writer.event_file import _scalar_head, encode_scalar_event

TAGS = 10
HEADER = struct.Struct("<QI")
CRC = struct.Struct("<I")


def make_buffer(count: int) -> bytes:
    """``count`` framed scalar records, tags round-robin, step = record // TAGS."""
    heads = [_scalar_head(f"loss/train_{i}") for i in range(TAGS)]
    rng = np.random.default_rng(0)
    values = rng.standard_normal(count).astype(np.float32).tolist()
    pack_length, pack_crc, masked = struct.Struct("<Q").pack, CRC.pack, records.masked_crc32c
    out = []
    for i in range(count):
        data = encode_scalar_event(heads[i % TAGS], values[i], i // TAGS, 1.7e9 + i * 1e-3)
        length = pack_length(len(data))
        out.append(length + pack_crc(masked(length)) + data + pack_crc(masked(data)))
    return b"".join(out)


def best_of(repeats: int, run: Callable[[], Any]) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def parse_in_chunks(buffer: bytes, chunk: int, check_crc: bool, implementation: str) -> tuple[int, int, int]:
    """(scalars, others, corrupt) over the whole buffer, read ``chunk`` bytes at a time as ingest.tail does."""
    view = memoryview(buffer)
    offset = scalars = others = corrupt = 0
    while offset < len(buffer):
        parsed = fastpath.parse_records(
            view[offset : offset + chunk],
            check_crc=check_crc,
            available=len(buffer) - offset,
            implementation=implementation,
        )
        scalars += len(parsed.step)
        others += len(parsed.other_order)
        corrupt += len(parsed.corrupt)
        if parsed.end == 0:
            break
        offset += parsed.end
    return scalars, others, corrupt


def protobuf_per_record(buffer: bytes) -> int:
    view = memoryview(buffer)
    unpack, unpack_crc, masked, from_string = HEADER.unpack_from, CRC.unpack_from, records.masked_crc32c, None
    from_string = event_pb2.Event.FromString
    offset, count, total = 0, 0, 0.0
    while offset + 12 <= len(buffer):
        length, length_crc = unpack(view, offset)
        end = offset + 12 + length
        if (
            masked(view[offset : offset + 8]) != length_crc
            or masked(view[offset + 12 : end]) != unpack_crc(view, end)[0]
        ):
            raise ValueError("corrupt")
        event = from_string(view[offset + 12 : end])
        value = event.summary.value[0]
        total += value.simple_value + event.step + event.wall_time + len(value.tag)
        count += 1
        offset = end + 4
    return count


def crc32c_per_record(buffer: bytes) -> int:
    view = memoryview(buffer)
    unpack, unpack_crc, masked = HEADER.unpack_from, CRC.unpack_from, records.masked_crc32c
    offset, count = 0, 0
    while offset + 12 <= len(buffer):
        length, length_crc = unpack(view, offset)
        end = offset + 12 + length
        if (
            masked(view[offset : offset + 8]) != length_crc
            or masked(view[offset + 12 : end]) != unpack_crc(view, end)[0]
        ):
            raise ValueError("corrupt")
        count += 1
        offset = end + 4
    return count


def split_loop(buffer: bytes) -> int:
    unpack = HEADER.unpack_from
    offset, count = 0, 0
    while offset + 12 <= len(buffer):
        offset += unpack(buffer, offset)[0] + 16
        count += 1
    return count


def numpy_table_crcs(buffer: bytes, chunk: int) -> int:
    """The data CRCs of every record, computed column by column in numpy, per chunk and per data length."""
    arr = np.frombuffer(buffer, dtype=np.uint8)
    tables = crc.crc_tables()
    checked, offset = 0, 0
    while offset < len(arr):
        piece = arr[offset : offset + chunk]
        hoff, dlen, _, end = framing.frame(piece.tobytes(), piece, len(piece), tables)
        stored = buffers.u32_at_every_byte(piece)[hoff + 12 + dlen]
        for length in np.unique(dlen).tolist():
            group = dlen == length
            rows = np.lib.stride_tricks.sliding_window_view(piece, length)[hoff[group] + 12]
            if not np.array_equal(crc.mask(crc.crc32c_rows(rows)), stored[group]):
                raise ValueError("corrupt")
            checked += len(rows)
        offset += end
    return checked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=8 << 20)
    parser.add_argument("--quick", action="store_true", help="100,000 records, 2 repeats")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    if args.quick:
        args.records, args.repeats = 100_000, 2
    count, repeats = args.records, args.repeats

    buffer = make_buffer(count)
    print(f"{count:,} scalar records, {len(buffer) / 1e6:.1f} MB ({len(buffer) / count:.1f} bytes each), ", end="")
    print(
        f"{args.chunk >> 20} MiB chunks, best of {repeats}; Python {platform.python_version()}, numpy {np.__version__}"
        f"; load average {os.getloadavg()[0]:.1f}"
    )
    fastpath.parse_records(buffer[:4096])  # builds the lookup tables once, as the first file of a run would

    errors: list[str] = []
    results: dict[str, float] = {}

    def report(name: str, seconds: float, done: int) -> None:
        results[name] = seconds
        print(f"  {name:34s} {seconds:8.3f} s   {done / seconds / 1e6:7.2f} M records/s")
        if done != count:
            errors.append(f"{name}: {done} records, expected {count}")

    floor, _ = best_of(repeats, lambda: crc32c(buffer))
    results["read + CRC floor: crc32c over every byte"] = floor
    print(f"  {'floor: crc32c over every byte':34s} {floor:8.3f} s   {count / floor / 1e6:7.2f} M records/s")
    for implementation in fastpath.implementations()[::-1]:
        for check_crc in (True, False):
            seconds, (scalars, others, corrupt) = best_of(
                repeats,
                lambda check_crc=check_crc, implementation=implementation: parse_in_chunks(
                    buffer, args.chunk, check_crc, implementation
                ),
            )
            name = f"parse_records ({implementation}), check_crc={check_crc}"
            report(name, seconds, scalars)
            if check_crc:
                print(f"  {'':34s} {seconds / floor:8.1f}x the floor")
            if others or corrupt:
                errors.append(f"{name}: {others} others, {corrupt} corrupt, expected none")
    slow_repeats = max(1, min(repeats, 2))
    report("naive: protobuf per record", *best_of(slow_repeats, lambda: protobuf_per_record(buffer)))
    report("naive: crc32c per record", *best_of(slow_repeats, lambda: crc32c_per_record(buffer)))
    report("naive: split loop, no checks", *best_of(slow_repeats, lambda: split_loop(buffer)))
    report("numpy table CRC (data CRCs only)", *best_of(slow_repeats, lambda: numpy_table_crcs(buffer, args.chunk)))

    # Small buffers: what one pass costs when a live file grew by a few records.
    small = buffer[: len(buffer) // count * 10]
    calls = 2000
    for implementation in fastpath.implementations()[::-1]:
        seconds, _ = best_of(
            3, lambda i=implementation: [fastpath.parse_records(small, implementation=i) for _ in range(calls)]
        )
        name = f"small buffer (10 records), per call, {implementation}"
        results[name] = seconds / calls
        print(f"  {name:34s} {seconds / calls * 1e6:8.1f} us")

    if args.json:
        with open(args.json, "w") as out:
            figures = {"records": count, "bytes": len(buffer), "seconds": results, "errors": errors}
            json.dump({**figures, "load_average": os.getloadavg()}, out, indent=2)
    for error in errors:
        print("ERROR:", error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
