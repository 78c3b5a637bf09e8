"""The reader fuzzed with Hypothesis over mutated real event files, run as a script by test_hostile_fuzz.py in a
subprocess whose address space is capped (``resource.RLIMIT_AS``): a mutation that makes the reader allocate
without bound fails with MemoryError instead of taking the machine down.

For each example: one real event file (torch's, tensorboardX's or ridgeline's writer), one mutation, read with
``ridgeline.open`` as a user would. No exception may escape; no file may take longer than a generous bound (an
alarm against hangs, not a speed check); and every scalar of every record the mutation left intact is returned,
exactly once. The expected points come from the unmutated file, parsed here with protobuf and ``struct`` only.

Usage: ``python fuzz_reader.py MAX_EXAMPLES BUDGET_BYTES FILE...``, the address space capped at what the process
has mapped once ridgeline is imported plus BUDGET_BYTES; prints ``ok N`` or fails.
"""

from __future__ import annotations

import collections
import resource
import signal
import struct
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HANG_BOUND_S = 120  # per file: only against hangs (a busy CI machine is slow, never this slow)
HEADER = 12  # uint64 length, uint32 masked CRC of the length
FOOTER = 4  # uint32 masked CRC of the data


@dataclass(frozen=True)
class Record:
    start: int
    end: int
    points: tuple[tuple[str, int, float], ...]  # (tag, step, simple_value as float32 read back)


def parse(data: bytes) -> list[Record]:
    """The records of an intact file and the simple_value scalars each holds (protobuf only, no ridgeline)."""
    from ridgeline.format.proto import event_pb2  # the message classes only: generated code, not the reader

    parsed, offset = [], 0
    while offset < len(data):
        (length,) = struct.unpack_from("<Q", data, offset)
        end = offset + HEADER + length + FOOTER
        event = event_pb2.Event.FromString(data[offset + HEADER : offset + HEADER + length])
        points = tuple(
            (value.tag, event.step, value.simple_value)
            for value in event.summary.value
            if value.WhichOneof("value") == "simple_value"
        )
        parsed.append(Record(offset, end, points))
        offset = end
    return parsed


def read_all(path: Path) -> collections.Counter[tuple[str, int, float]]:
    import math

    import ridgeline

    opened = ridgeline.open(path.parent.parent, cache=False, parallel=False)
    points: collections.Counter[tuple[str, int, float]] = collections.Counter()
    for run in opened.runs():
        for tag in opened.tags(run).get("scalars", []):
            series = opened.scalars(run, tag, all_points=True)
            for step, value in zip(series.step.tolist(), series.value.tolist(), strict=True):
                points[(tag, step, value if not math.isnan(value) else -0.0)] += 1
        opened.problems()
    return points


def expected(records: list[Record]) -> collections.Counter[tuple[str, int, float]]:
    import math

    return collections.Counter(
        (tag, step, value if not math.isnan(value) else -0.0)
        for record in records
        for tag, step, value in record.points
    )


def mutations(files: list[bytes]) -> st.SearchStrategy[tuple[int, str, int, int]]:
    """(file, kind, position, argument): what to do to which file where."""
    return st.tuples(
        st.integers(0, len(files) - 1),
        st.sampled_from(["flip", "flip_header", "truncate", "huge_length", "zero_length", "junk_record", "splice"]),
        st.integers(0, 1 << 30),
        st.integers(0, 1 << 30),
    )


def frame(data: bytes) -> bytes:
    from ridgeline.format.records import masked_crc32c  # the oracle's framing needs the CRC; the reader is not used

    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc32c(header)) + data + struct.pack("<I", masked_crc32c(data))


def mutate(data: bytes, records: list[Record], kind: str, position: int, argument: int) -> tuple[bytes, list[Record]]:
    """The mutated file, and the records whose points must still be read."""
    record = records[position % len(records)]
    kept = [r for r in records if r is not record]
    if kind == "flip":  # any bit of the record: header, length CRC, data or data CRC
        bit = argument % ((record.end - record.start) * 8)
        at = record.start + bit // 8
        return data[:at] + bytes([data[at] ^ (1 << bit % 8)]) + data[at + 1 :], kept
    if kind == "flip_header":
        bit = argument % (HEADER * 8)
        at = record.start + bit // 8
        return data[:at] + bytes([data[at] ^ (1 << bit % 8)]) + data[at + 1 :], kept
    if kind == "truncate":  # a file cut anywhere: the records before the cut, a partial one left for later
        cut = argument % (len(data) + 1)
        return data[:cut], [r for r in records if r.end <= cut]
    if kind in ("huge_length", "zero_length"):  # a length rewritten WITH a valid length CRC: a header that looks fine
        from ridgeline.format.records import masked_crc32c

        length = 0 if kind == "zero_length" else [1 << 32, 1 << 62, (1 << 64) - 1, len(data) * 2][argument % 4]
        header = struct.pack("<Q", length)
        header += struct.pack("<I", masked_crc32c(header))
        # Completeness after such a header is the record framing's business (resync past it); here: no crash,
        # no hang, bounded memory, and the records before it.
        before = [r for r in records if r.end <= record.start]
        return data[: record.start] + header + data[record.start + HEADER :], before
    if kind == "junk_record":  # a record with valid CRCs whose data is no Event, or a hostile one
        junk = argument.to_bytes(4, "little") * (argument % 64)
        return data[: record.start] + frame(junk) + data[record.start :], records
    # splice: a record of the file repeated at another record's place (valid CRCs, an older step)
    other = records[argument % len(records)]
    piece = data[other.start : other.end]
    return data[: record.start] + piece + data[record.start :], [*records, other]


def main() -> None:
    max_examples, budget = int(sys.argv[1]), int(sys.argv[2])
    sources = [Path(name).read_bytes() for name in sys.argv[3:]]
    parsed = [parse(data) for data in sources]
    import ridgeline.api  # noqa: F401  (imported before the cap: the cap is for what reading costs)

    status = Path("/proc/self/status").read_text().splitlines()
    mapped = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
    resource.setrlimit(resource.RLIMIT_AS, (mapped + budget, mapped + budget))
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError(f"a file took over {HANG_BOUND_S} s")))
    examples = 0

    @settings(max_examples=max_examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(mutations(sources))
    def reads_every_intact_record(mutation: tuple[int, str, int, int]) -> None:
        nonlocal examples
        index, kind, position, argument = mutation
        data, kept = mutate(sources[index], parsed[index], kind, position, argument)
        with tempfile.TemporaryDirectory() as root:
            path = Path(root) / "run" / "events.out.tfevents.1.fuzz.1.0"
            path.parent.mkdir()
            path.write_bytes(data)
            signal.alarm(HANG_BOUND_S)
            try:
                got = read_all(path)
            finally:
                signal.alarm(0)
        want = expected(kept)
        missing = want - got
        assert not missing, f"{kind} at {position}/{argument}: lost {sum(missing.values())}, e.g. {list(missing)[:3]}"
        if kind != "junk_record":  # junk with valid CRCs may happen to be an Event holding a scalar: a real point
            extra = got - expected(parsed[index] + ([] if kind != "splice" else kept[-1:]))
            assert not extra, f"{kind} at {position}/{argument}: {sum(extra.values())} points not in the file"
        examples += 1

    reads_every_intact_record()
    print("ok", examples)


if __name__ == "__main__":
    main()
