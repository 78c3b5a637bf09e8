import { describe, expect, it } from "vitest";
import { decodeBatch, isBinaryBatch } from "./binary";
import { fromBinary } from "./data";

/** Builds an answer the way the server does (ridgeline/plugins/scalars/binary.py). */
function encode(entries: { header: Record<string, unknown>; columns: number[][] }[]): ArrayBuffer {
  let head = new TextEncoder().encode(JSON.stringify({ series: entries.map((e) => e.header) }));
  const pad = (8 - ((8 + head.length) % 8)) % 8;
  const padded = new Uint8Array(head.length + pad).fill(32);
  padded.set(head);
  head = padded;
  const numbers = entries.flatMap((e) => e.columns.flat());
  const out = new ArrayBuffer(8 + head.length + numbers.length * 8);
  const bytes = new Uint8Array(out);
  bytes.set([82, 76, 83, 66]); // "RLSB"
  new DataView(out).setUint32(4, head.length, true);
  bytes.set(head, 8);
  const view = new DataView(out, 8 + head.length);
  numbers.forEach((v, i) => view.setFloat64(i * 8, v, true));
  return out;
}

const answer = () =>
  encode([
    {
      header: {
        run: "a",
        tag: "loss",
        n: 4,
        reduced: false,
        total_points: 4,
        nonfinite: [
          { step: 1, value: "nan" },
          { step: 2, value: "inf" },
          { step: 3, value: "-inf" },
        ],
        arrays: ["step", "wall_time", "value"],
      },
      columns: [
        [0, 1, 2, 2 ** 53 - 1],
        [1e9, 1e9 + 0.25, 1e9 + 0.5, 1e9 + 0.75],
        [1.5, NaN, Infinity, -Infinity],
      ],
    },
    { header: { run: "gone", tag: "loss", error: "no run 'gone'", n: 0, arrays: [] }, columns: [] },
    {
      header: {
        run: "b",
        tag: "ünïcødé/训练",
        n: 2,
        reduced: true,
        total_points: 10,
        nonfinite: [],
        arrays: ["step", "wall_time", "value", "band_low", "band_high"],
      },
      columns: [
        [0, 9],
        [5, 6],
        [0.1, 0.2],
        [0, NaN],
        [1, NaN],
      ],
    },
  ]);

describe("decodeBatch", () => {
  it("reads every entry in order with zero-copy, aligned views", () => {
    const buffer = answer();
    expect(isBinaryBatch(buffer)).toBe(true);
    const [a, gone, b] = decodeBatch(buffer);
    expect(a.run).toBe("a");
    expect(a.columns.step.buffer).toBe(buffer);
    expect(a.columns.step.byteOffset % 8).toBe(0);
    expect(Array.from(a.columns.step)).toEqual([0, 1, 2, 2 ** 53 - 1]);
    expect(a.columns.wall_time[3]).toBe(1e9 + 0.75);
    expect(a.columns.value[0]).toBe(1.5);
    expect(Number.isNaN(a.columns.value[1])).toBe(true);
    expect(a.columns.value[2]).toBe(Infinity);
    expect(a.columns.value[3]).toBe(-Infinity);
    expect(gone.error).toBe("no run 'gone'");
    expect(gone.columns).toEqual({});
    expect(b.tag).toBe("ünïcødé/训练");
    expect(Array.from(b.columns.band_high)).toEqual([1, NaN]);
  });

  it("rejects what is not the binary form", () => {
    const json = new TextEncoder().encode('{"series": []}').buffer as ArrayBuffer;
    expect(isBinaryBatch(json)).toBe(false);
    expect(() => decodeBatch(json)).toThrow(/magic/);
    expect(() => decodeBatch(answer().slice(0, 100))).toThrow(/truncated/);
  });
});

describe("fromBinary", () => {
  it("gives the same SeriesData as the JSON form: non-finite values are NaN, their kinds listed", () => {
    const [a, , b] = decodeBatch(answer());
    const s = fromBinary(a);
    expect(Array.from(s.value.subarray(1)).every(Number.isNaN)).toBe(true);
    expect(s.value[0]).toBe(1.5);
    expect(s.nonfinite.map((p) => p.value)).toEqual(["nan", "inf", "-inf"]);
    expect(s.low).toBeNull();
    expect(s.total).toBe(4);
    const r = fromBinary(b);
    expect(r.reduced).toBe(true);
    expect(r.total).toBe(10);
    expect(Array.from(r.low!)).toEqual([0, NaN]);
    expect(r.step.buffer).toBe(r.value.buffer);
  });
});
