"""Writes the seed corpus of the fuzz targets into fuzz/corpus/ (committed; rerun only to change the seeds).

records/: event files as ridgeline's, torch's and tensorboardX's writers write them (scalars, a histogram, text),
and the damage the reliability tests care about: a length rewritten to 2^32, 2^62 and 2^64 - 1 with its CRC
(so the header looks valid), a bad length CRC, a flipped data bit, a file cut mid-record, junk. Each input is an
options byte (see fuzz_records.py) and the file. histogram/: normal values with torch's default edges, with a
few edges of their own, and with a lookup table. scanner/: a Kineto trace with kernels, memory instants and
metadata (tests/profile/handmade.py) pretty-printed and compact, cut short, as a bare array, and events that the
scanner must decline (bad escapes and UTF-8, huge numbers, deep nesting, repeated keys); each an options byte
(see fuzz_scanner.py) and the bytes.

    python fuzz/make_corpus.py            # every target's seeds
    python fuzz/make_corpus.py scanner    # one target's
"""

from __future__ import annotations

import json
import struct
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from ridgeline.format import records  # noqa: E402


def event_file(kind: str) -> bytes:
    """A small event file written by ``kind``'s SummaryWriter, at fixed wall times."""
    with tempfile.TemporaryDirectory() as log_dir, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "ridgeline":
            from ridgeline import SummaryWriter

            writer = SummaryWriter(log_dir, record_run_metadata=False)
        elif kind == "torch":
            from torch.utils.tensorboard import SummaryWriter as TorchWriter

            writer = TorchWriter(log_dir)
        else:
            from tensorboardX import SummaryWriter as XWriter

            writer = XWriter(log_dir)
        for step in range(12):
            for tag in ("loss", "accuracy/val", "lr"):
                writer.add_scalar(tag, 1.0 / (step + 1), step, walltime=1.7e9 + step)
        writer.add_histogram("weights", np.linspace(-1, 1, 50), 3, walltime=1.7e9)
        writer.add_text("notes", "a note", 4, walltime=1.7e9)
        writer.close()
        (path,) = (p for p in Path(log_dir).rglob("*") if "tfevents" in p.name)
        return path.read_bytes()


def with_length(data: bytes, record: int, length: int) -> bytes:
    """``data`` with record number ``record``'s length rewritten to ``length``, its length CRC too."""
    offset = 0
    for _ in range(record):
        offset += struct.unpack_from("<Q", data, offset)[0] + 16
    head = struct.pack("<Q", length)
    return data[:offset] + head + struct.pack("<I", records.masked_crc32c(head)) + data[offset + 12 :]


def scanner_seeds() -> dict[str, bytes]:
    from tests.profile import handmade

    trace = handmade.gpu_trace(0)
    pretty = json.dumps(trace, indent=1).encode()
    compact = json.dumps(trace, separators=(",", ":"), ensure_ascii=False).encode()
    event = (
        b'{"ph": "X", "name": "a", "cat": "kernel", "pid": 1, "tid": 2, "ts": 1.5, "dur": 2, '
        b'"args": {"grid": [2, 3], "External id": 7, "blocks per SM": 0.5}}'
    )
    seeds = {
        "gpu-pretty-64": b"\x00" + pretty,
        "gpu-pretty-4k": b"\x02" + pretty,
        "gpu-compact-1m": b"\x03" + compact,
        "gpu-cut": b"\x01" + pretty[: len(pretty) * 2 // 3],
        "bare-array": b"\x01" + json.dumps(trace["traceEvents"][:20]).encode(),
        "not-a-trace": b"\x00" + b'{"schemaVersion": 1, "other": []}',
        "events": b"\x04" + event + b", " + event.replace(b'"X"', b'"i"'),
    }
    hostile = {
        "escape": event.replace(b'"a"', b'"\\x"'),
        "surrogate": event.replace(b'"a"', b'"\\ud800"'),
        "not-utf8": event.replace(b'"a"', b'"\xff\xed\xa0\x80"'),
        "control": event.replace(b'"a"', b'"\x01"'),
        "huge": event.replace(b"1.5", b"1e400").replace(b"7", b"99999999999999999999999"),
        "deep": event.replace(b'"grid"', b'"nested": ' + b"[" * 140 + b"]" * 140 + b', "grid"'),
        "repeated": event.replace(b'"args"', b'"args": 5, "ts": "3", "args"'),
        "memory": b'{"ph": "i", "name": "[memory]", "ts": 3, "args": {"Device Type": 4294967296, "Bytes": -4096}}',
    }
    seeds.update({f"hostile-{name}": b"\x05" + body for name, body in hostile.items()})
    return seeds


def main(argv: list[str]) -> int:
    targets = argv or ["records", "histogram", "scanner"]
    if "scanner" in targets:
        out = HERE / "corpus" / "scanner"
        out.mkdir(parents=True, exist_ok=True)
        for name, data in scanner_seeds().items():
            (out / name).write_bytes(data)
    if "records" in targets:
        records_seeds()
    if "histogram" in targets:
        histogram_seeds()
    return 0


def records_seeds() -> None:
    out = HERE / "corpus" / "records"
    out.mkdir(parents=True, exist_ok=True)
    seeds: dict[str, bytes] = {}
    for kind in ("ridgeline", "torch", "tensorboardx"):
        data = event_file(kind)
        seeds[f"{kind}"] = b"\x01" + data
        seeds[f"{kind}-no-crc"] = b"\x00" + data
        seeds[f"{kind}-growing"] = b"\x03" + struct.pack("<I", 100) + data[: len(data) * 2 // 3]
        for length in (2**32, 2**62, 2**64 - 1):
            seeds[f"{kind}-length-{length:x}"] = b"\x01" + with_length(data, 5, length)
        bad_header = bytearray(data)
        bad_header[300] ^= 0xFF
        seeds[f"{kind}-damaged"] = b"\x01" + bytes(bad_header)
    seeds["junk"] = b"\x01" + bytes(np.random.default_rng(0).integers(0, 256, 3000, dtype=np.uint8))
    seeds["empty"] = b"\x01"
    for name, data in seeds.items():
        (out / name).write_bytes(data)


def histogram_seeds() -> None:
    out = HERE / "corpus" / "histogram"
    out.mkdir(parents=True, exist_ok=True)
    values = np.random.default_rng(1).standard_normal(500)
    special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e20, -1e20, 1e-12, -1e-12, 5e-324])
    edges = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
    (out / "default-edges").write_bytes(b"\x00\x00" + values.tobytes() + special.tobytes())
    (out / "own-edges").write_bytes(bytes([len(edges), 0]) + edges.tobytes() + values.tobytes())
    table = np.arange(256, dtype=np.uint16) * 6
    (out / "a-table").write_bytes(b"\x00\x02" + table.tobytes() + values.tobytes())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
