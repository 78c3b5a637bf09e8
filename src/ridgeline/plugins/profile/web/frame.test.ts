import { describe, expect, it } from "vitest";
import { decodeFrame } from "./frame";

/** Bytes laid out as ridgeline/profile/frame_bytes.py writes them. */
function encode(header: object, columns: { ts: number[]; dur: number[]; blocks: number[]; ids: number[]; name: number[] }): ArrayBuffer {
  let text = JSON.stringify(header);
  while ((8 + text.length) % 8) text += " ";
  const parts: Uint8Array[] = [new TextEncoder().encode(text)];
  for (const values of [columns.ts, columns.dur, columns.blocks]) parts.push(new Uint8Array(new Float64Array(values).buffer));
  parts.push(new Uint8Array(new Uint32Array(columns.ids).buffer), new Uint8Array(new Int32Array(columns.name).buffer));
  const size = 8 + parts.reduce((n, p) => n + p.length, 0);
  const bytes = new Uint8Array(size);
  bytes.set(new TextEncoder().encode("RLTF"));
  new DataView(bytes.buffer).setUint32(4, parts[0].length, true);
  let at = 8;
  for (const part of parts) { bytes.set(part, at); at += part.length; }
  return bytes.buffer;
}

const header = {
  extent: [0, 100], lanes: [{ lane: 0, label: "thread 1", device: false, depth: 2 }], start: 10, end: 60,
  names: { "0": "step", "1": "aten::mm" },
  rows: [{ lane: 0, depth: 0, spans: 1, blocks: 0 }, { lane: 0, depth: 1, spans: 2, blocks: 2 }],
  spans: 3, blocks: 2,
};
const columns = {
  ts: [0, 12, 40], dur: [100, 3.5, 2], blocks: [20, 25, 0.5, 30, 31, 1], ids: [7, 8, 4294967295], name: [0, 1, 1],
};

describe("binary timeline frames", () => {
  it("read each row's spans and blocks as views of the columns", () => {
    const frame = decodeFrame(encode(header, columns));
    expect(frame.start).toBe(10);
    expect(frame.names["1"]).toBe("aten::mm");
    expect(frame.rows.map((r) => [r.lane, r.depth, Array.from(r.ids), Array.from(r.ts), Array.from(r.dur)])).toEqual([
      [0, 0, [7], [0], [100]],
      [0, 1, [8, 4294967295], [12, 40], [3.5, 2]],
    ]);
    expect(Array.from(frame.rows[1].blocks)).toEqual([20, 25, 0.5, 30, 31, 1]);
    expect(Array.from(frame.rows[1].name)).toEqual([1, 1]);
    expect(frame.rows[0].blocks.length).toBe(0);
  });

  it("refuse other bytes", () => {
    expect(() => decodeFrame(new TextEncoder().encode('{"error": "x"}').buffer)).toThrow(/not a binary/);
    const good = encode(header, columns);
    expect(() => decodeFrame(good.slice(0, good.byteLength - 4))).toThrow();
  });
});
