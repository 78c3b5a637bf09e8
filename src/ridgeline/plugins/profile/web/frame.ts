/**
 * Timeline frames in the route's binary form (`GET /api/profile/timeline?format=binary`, ridgeline/profile/
 * frame_bytes.py): a JSON header, then typed columns read as views of the answer's buffer, no number parsed.
 */
import { ApiError, getBinary } from "@api/client";
import type { Lane } from "./api";

export interface FrameRow {
  lane: number;
  depth: number;
  ids: Uint32Array;
  ts: Float64Array;
  dur: Float64Array;
  name: Int32Array;
  /** from, to (µs) and busy fraction of each block, one triple after the other */
  blocks: Float64Array;
}

export interface TimelineFrame {
  extent: [number, number];
  lanes: Lane[];
  start: number;
  end: number;
  rows: FrameRow[];
  names: Record<string, string>;
}

interface Header extends Omit<TimelineFrame, "rows"> {
  rows: { lane: number; depth: number; spans: number; blocks: number }[];
  spans: number;
  blocks: number;
}

const MAGIC = "RLTF";

/** A binary frame's bytes read into rows of typed-array views (no copy). Throws on bytes of another shape. */
export function decodeFrame(buffer: ArrayBuffer): TimelineFrame {
  const head = new DataView(buffer);
  if (buffer.byteLength < 8 || String.fromCharCode(...new Uint8Array(buffer, 0, 4)) !== MAGIC) {
    throw new Error("not a binary timeline frame");
  }
  const length = head.getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 8, length))) as Header;
  let offset = 8 + length;
  const take = <T>(make: (buffer: ArrayBuffer, offset: number, count: number) => T, count: number, size: number): T => {
    const array = make(buffer, offset, count);
    offset += count * size;
    return array;
  };
  const ts = take((b, o, n) => new Float64Array(b, o, n), header.spans, 8);
  const dur = take((b, o, n) => new Float64Array(b, o, n), header.spans, 8);
  const blocks = take((b, o, n) => new Float64Array(b, o, n), 3 * header.blocks, 8);
  const ids = take((b, o, n) => new Uint32Array(b, o, n), header.spans, 4);
  const name = take((b, o, n) => new Int32Array(b, o, n), header.spans, 4);
  if (offset !== buffer.byteLength) throw new Error("a binary timeline frame of the wrong length");
  let at = 0, blockAt = 0;
  const rows = header.rows.map((row): FrameRow => {
    const from = at, blockFrom = blockAt;
    at += row.spans;
    blockAt += row.blocks;
    return {
      lane: row.lane, depth: row.depth,
      ids: ids.subarray(from, at), ts: ts.subarray(from, at), dur: dur.subarray(from, at),
      name: name.subarray(from, at), blocks: blocks.subarray(3 * blockFrom, 3 * blockAt),
    };
  });
  return { extent: header.extent, lanes: header.lanes, start: header.start, end: header.end, names: header.names, rows };
}

export interface FrameQuery { run: string; trace: string; width: number; start?: number; end?: number }

/** One frame of the timeline in the binary form; errors as {@link ApiError} (their body is JSON). */
export async function fetchFrame(query: FrameQuery, signal: AbortSignal): Promise<TimelineFrame> {
  const { buffer } = await getBinary("/api/profile/timeline", { ...query, format: "binary" }, { signal });
  return decodeFrame(buffer);
}
