"""The protobuf wire format, as far as ridgeline reads and writes it by hand: varints, and a walk over the
top-level fields of a serialized message (to reach one field of a large message without parsing the rest).

Every key is a varint ``field_number << 3 | wire_type``; wire types 0 (varint), 1 (8 bytes), 2 (a varint
length, then that many bytes) and 5 (4 bytes) are the ones proto3 messages use.
"""

from __future__ import annotations

_U64 = (1 << 64) - 1


class WireError(ValueError):
    """Bytes that are not a well-formed serialized message."""


def encode_varint(value: int) -> bytes:
    """``value`` as a base-128 varint; a negative int64 is encoded as its 10-byte two's complement, as protobuf
    encodes it."""
    value &= _U64
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def decode_varint(data: bytes, pos: int, what: str) -> tuple[int, int]:
    """The varint at ``data[pos]`` and the position just past it; WireError (naming ``what``) when it is cut
    short or longer than 64 bits allow."""
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise WireError(f"malformed {what}: truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, pos


def fields(data: bytes, number: int, what: str) -> list[bytes]:
    """Every length-delimited field ``number`` at the top level of the serialized message ``data``, in order;
    WireError (naming ``what``) when ``data`` is no well-formed message."""
    found, pos = [], 0
    while pos < len(data):
        key, pos = decode_varint(data, pos, what)
        wire = key & 7
        if wire == 0:
            _, pos = decode_varint(data, pos, what)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            length, pos = decode_varint(data, pos, what)
            if key >> 3 == number:
                found.append(data[pos : pos + length])
            pos += length
        else:
            raise WireError(f"malformed {what}: wire type {wire}")
        if pos > len(data):
            raise WireError(f"malformed {what}: truncated field")
    return found


def last_field(data: bytes, number: int, what: str) -> bytes | None:
    """The last field ``number`` of ``data`` (the one a parser keeps for a singular field), None when absent."""
    found = fields(data, number, what)
    return found[-1] if found else None
